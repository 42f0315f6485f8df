// Reading Megatron-LM launch commands (issue 10): shell words, Megatron's defaults, the
// --moe-layer-freq list expressions, ignored flags and an error naming the flag for bad input.
// Defaults are those of Megatron-LM @ d98e8a64ddf34856e74b24714e3bedb2f5a39553 (arguments.py,
// transformer_config.py, model_parallel_config.py, build_tokenizer.py vocab_size_with_padding).
#include "accounting.h"
#include "megatronargs.h"

#include <QtTest>

using namespace trainmem;

namespace {
constexpr const char* kSmall =
    "--num-layers 2 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --vocab-size 50257";
}

class TestMegatronArgs : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void megatronDefaults();
    void derivedValues_data();
    void derivedValues();
    void torchrunLineGivesTheGpuCount();
    void scriptWithContinuationsQuotesAndVariables();
    void ignoredFlagsAreListed();
    void layerPattern_data();
    void layerPattern();
    void badInputNamesTheFlag_data();
    void badInputNamesTheFlag();
    void scenarioFromFlags();
    void scenarioRoundTrip();
    void unevenPipelineIsRead();
    void pipelineLayoutIsRead();
};

void TestMegatronArgs::megatronDefaults()
{
    const MegatronParse p = parseMegatronArgs(kSmall);
    QVERIFY(p.ok());
    const MegatronArgs& a = p.args;
    QCOMPARE(a.ffn(), qint64(4096));               // 4 · hidden
    QCOMPARE(a.kvChannelsOrDefault(), qint64(64)); // hidden / heads
    QCOMPARE(a.queryGroups(), qint64(16));         // heads without --group-query-attention
    QCOMPARE(a.paddedVocab(), qint64(50304));      // ⌈50257 / 128⌉ · 128
    QCOMPARE(a.expertTensorParallel(), qint64(1)); // = tp
    QCOMPARE(a.normalization, std::string("LayerNorm"));
    QVERIFY(a.addBiasLinear);
    QVERIFY(!a.untieEmbeddingsAndOutputWeights);
    QCOMPARE(a.positionEmbeddingType, std::string("learned_absolute"));
    QCOMPARE(a.moeRouterTopk, qint64(2));
    QCOMPARE(a.kvLoraRank, qint64(32)); // _add_mla_args defaults
    QCOMPARE(a.qkHeadDim, qint64(128));
    QCOMPARE(a.qkPosEmbHeadDim, qint64(64));
    QCOMPARE(a.vHeadDim, qint64(128));
    QCOMPARE(a.worldSize, qint64(1));         // one replica: tp·pp·cp
    QCOMPARE(a.numMicrobatches(), qint64(1)); // global batch = micro · dp
    QVERIFY(!a.recomputeGranularity);
    QVERIFY(!a.virtualPipeline());
}

void TestMegatronArgs::derivedValues_data()
{
    QTest::addColumn<QString>("extra");
    QTest::addColumn<QString>("what");
    QTest::addColumn<qint64>("value");
    // int((4·4096·2/3)/64)·64 = int(170.67)·64 = 10880.
    QTest::newRow("SwiGLU default FFN is 2/3 of 4h, down to 64")
        << "--hidden-size 4096 --num-attention-heads 32 --swiglu"
        << "ffn" << qint64(10880);
    QTest::newRow("vocabulary padded to 128 · tp") << "--tensor-model-parallel-size 8 --gpus 8"
                                                   << "vocab" << qint64(51200);
    QTest::newRow("make-vocab-size-divisible-by") << "--make-vocab-size-divisible-by 64"
                                                  << "vocab" << qint64(50304);
    QTest::newRow("expert tensor parallel defaults to tp") << "--tensor-model-parallel-size 4 --gpus 4"
                                                           << "etp" << qint64(4);
    QTest::newRow("expert tensor parallel given")
        << "--tensor-model-parallel-size 4 --expert-tensor-parallel-size 1 --gpus 4"
        << "etp" << qint64(1);
    QTest::newRow("data parallel = world / (tp · pp · cp)")
        << "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --context-parallel-size 2 --gpus 64"
        << "dp" << qint64(8);
    QTest::newRow("micro-batches = global / (micro · dp)") << "--micro-batch-size 2 --global-batch-size 64 --gpus 4"
                                                           << "nmb" << qint64(8);
    QTest::newRow("virtual stages from layers per virtual stage")
        << "--num-layers 96 --pipeline-model-parallel-size 16 --num-layers-per-virtual-pipeline-stage 3 --gpus 16"
        << "vpp" << qint64(2);
    QTest::newRow("one virtual stage per rank is no interleaving")
        << "--num-layers 96 --pipeline-model-parallel-size 16 --num-layers-per-virtual-pipeline-stage 6 --gpus 16"
        << "vpp" << qint64(0);
    QTest::newRow("kv-channels given") << "--kv-channels 128"
                                       << "kv" << qint64(128);
}

void TestMegatronArgs::derivedValues()
{
    QFETCH(QString, extra);
    QFETCH(QString, what);
    QFETCH(qint64, value);
    const MegatronParse p = parseMegatronArgs(std::string(kSmall) + " " + extra.toStdString());
    QVERIFY2(p.ok(), p.ok() ? "" : p.errors.front().toString().c_str());
    const MegatronArgs& a = p.args;
    const qint64 got = what == "ffn"     ? a.ffn()
                       : what == "vocab" ? a.paddedVocab()
                       : what == "etp"   ? a.expertTensorParallel()
                       : what == "dp"    ? a.dataParallel()
                       : what == "nmb"   ? a.numMicrobatches()
                       : what == "vpp"   ? a.virtualPipeline().value_or(0)
                                         : a.kvChannelsOrDefault();
    QCOMPARE(got, value);
}

void TestMegatronArgs::torchrunLineGivesTheGpuCount()
{
    const MegatronParse p = parseMegatronArgs(
        "torchrun --nproc_per_node=8 --nnodes 4 --node_rank 0 --master_addr localhost pretrain_gpt.py " +
        std::string(kSmall) + " --tensor-model-parallel-size 8");
    QVERIFY(p.ok());
    QCOMPARE(p.args.worldSize, qint64(32));
    QCOMPARE(p.args.gpusPerNode, qint64(8));
    QCOMPARE(p.args.nodes, qint64(4));
    QCOMPARE(p.args.dataParallel(), qint64(4));
    QVERIFY(!p.notes.empty());
    // Without torchrun's flags the caller's GPU count is used.
    QCOMPARE(parseMegatronArgs(kSmall, 16).args.worldSize, qint64(16));
}

void TestMegatronArgs::scriptWithContinuationsQuotesAndVariables()
{
    const char* script = R"(#!/bin/bash
# Megatron-LM example style: variables, arrays and continuations
GPUS_PER_NODE=8
NUM_NODES=2
MODEL_ARGS=(
    --num-layers 32   # a comment after a flag
    --hidden-size 4096
)
torchrun --nproc_per_node $GPUS_PER_NODE --nnodes ${NUM_NODES} pretrain_gpt.py \
    ${MODEL_ARGS[@]} \
    --num-attention-heads "32" --seq-length ${SEQ:-4096} --vocab-size=32000 \
    --moe-layer-freq '([0]*1+[1]*31)' --num-experts 8 \
    --normalization "RMSNorm"
)";
    const MegatronParse p = parseMegatronArgs(script);
    QVERIFY2(p.ok(), p.ok() ? "" : p.errors.front().toString().c_str());
    QCOMPARE(p.args.numLayers, qint64(32));
    QCOMPARE(p.args.hiddenSize, qint64(4096));
    QCOMPARE(p.args.numAttentionHeads, qint64(32));
    QCOMPARE(p.args.seqLength, qint64(4096));
    QCOMPARE(p.args.vocabSize.value_or(0), qint64(32000));
    QCOMPARE(p.args.worldSize, qint64(16));
    QCOMPARE(p.args.normalization, std::string("RMSNorm"));
    QCOMPARE(p.args.moeLayerPattern.size(), size_t(32));
    QCOMPARE(p.args.moeLayerPattern[0], 0);
    QCOMPARE(p.args.moeLayerPattern[1], 1);
    QVERIFY(p.ignored.empty());
}

void TestMegatronArgs::ignoredFlagsAreListed()
{
    const MegatronParse p =
        parseMegatronArgs(std::string(kSmall) + " --lr 3e-4 --use-flash-attn --data-path /data/x --min-lr -1 --bf16");
    QVERIFY(p.ok());
    const std::vector<std::string> expected = {"--lr 3e-4", "--use-flash-attn", "--data-path /data/x", "--min-lr -1"};
    QCOMPARE(p.ignored, expected);
    QVERIFY(p.args.bf16);
}

void TestMegatronArgs::layerPattern_data()
{
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("expected"); // the list, as digits
    QTest::addColumn<QString>("error");
    // The examples of moe_freq_type's docstring in arguments.py.
    QTest::newRow("([1]*3+[0]*1)*3") << "([1]*3+[0]*1)*3"
                                     << "111011101110"
                                     << "";
    QTest::newRow("([1]*3+[0]*2)*2") << "([1]*3+[0]*2)*2"
                                     << "1110011100"
                                     << "";
    QTest::newRow("([0]+[1]*23)") << "([0]+[1]*23)"
                                  << "0" + QString(23, '1') << "";
    QTest::newRow("DeepSeek-V3 ([0]*3+[1]*58)") << "([0]*3+[1]*58)"
                                                << "000" + QString(58, '1') << "";
    QTest::newRow("explicit list with spaces") << "[0, 1, 1 ,0]"
                                               << "0110"
                                               << "";
    QTest::newRow("int times list") << "2*[1,0]"
                                    << "1010"
                                    << "";
    QTest::newRow("entry not 0 or 1") << "[2]*4"
                                      << ""
                                      << "layer pattern entries must be 0 or 1, got 2 at character 3";
    QTest::newRow("list plus number") << "[0]+1"
                                      << ""
                                      << "cannot add a list and a number at character 6";
    QTest::newRow("missing bracket") << "([0]*3"
                                     << ""
                                     << "missing \")\" at character 7";
    QTest::newRow("not a list") << "3*4"
                                << ""
                                << "is not a list at character 4";
    QTest::newRow("too long") << "[1]*1000000"
                              << ""
                              << "list longer than 100000 at character 12";
    // Python: [] * n == [] for any n. The repetition loop used to run n times over nothing
    // (two 10^9 loops here: a frozen window).
    QTest::newRow("empty list times 10^9 is empty at once (hang)") << "[]*999999999*999999999+[0,1]"
                                                                   << "01"
                                                                   << "";
    // Each bracket was a recursion level: 200000 of them overflowed the stack. The 101st is refused
    // (the limit is 100 levels, the 101st "(" is character 101).
    QTest::newRow("brackets nested 200000 deep are refused, not a stack overflow")
        << QString(200000, '(') + "[0]" + QString(200000, ')') << ""
        << "brackets nested deeper than 100 at character 101";
    // Each "*1" copied the 100000-entry list again: a megabyte of them was 5·10^10 copies. The work is
    // limited to 10^7 entries: 10^5 for [0]*100000, 10^5 per "*1", so the 100th "*1" passes it; it
    // ends at character 10 + 2·100 = 210, the next is 211.
    QString repeated = "[0]*100000";
    for (int k = 0; k < 200; ++k)
        repeated += "*1";
    QTest::newRow("a long chain of *1 is refused, not a freeze (quadratic copying)")
        << repeated << ""
        << "expression builds more than 10000000 list entries in all at character 211";
    QTest::newRow("brackets nested 100 deep still read") << QString(99, '(') + "[0,1]" + QString(99, ')') << "01"
                                                         << "";
}

void TestMegatronArgs::layerPattern()
{
    QFETCH(QString, expr);
    QFETCH(QString, expected);
    QFETCH(QString, error);
    const PatternResult r = evalLayerPattern(expr.toStdString());
    QCOMPARE(QString::fromStdString(r.error), error);
    QString digits;
    for (int v : r.values)
        digits += QChar('0' + v);
    QCOMPARE(digits, expected);
}

void TestMegatronArgs::badInputNamesTheFlag_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    const QString base = QString::fromLatin1(kSmall) + ' ';
    QTest::newRow("not an integer") << base + "--num-layers abc"
                                    << "--megatron-args: --num-layers: must be an integer, got \"abc\"";
    QTest::newRow("unset shell variable") << base + "--micro-batch-size $MBS"
                                          << "--megatron-args: --micro-batch-size: must be an integer, got \"$MBS\" (a "
                                             "shell variable the pasted text does not set)";
    QTest::newRow("zero layers") << base + "--num-layers 0"
                                 << "--megatron-args: --num-layers: must be between 1 and 10000, got 0";
    QTest::newRow("unknown normalization")
        << base + "--normalization BatchNorm"
        << "--megatron-args: --normalization: must be LayerNorm or RMSNorm, got \"BatchNorm\"";
    QTest::newRow("unknown recompute granularity")
        << base + "--recompute-granularity some"
        << "--megatron-args: --recompute-granularity: must be selective or full, got \"some\"";
    QTest::newRow("bad layer pattern")
        << base + "--num-experts 8 --moe-layer-freq '[0]*3+'"
        << "--megatron-args: --moe-layer-freq: expected a number, [ or ( at character 7 in \"[0]*3+\"";
    QTest::newRow("pattern of the wrong length")
        << base + "--num-experts 8 --moe-layer-freq '[0]*3'"
        << "--megatron-args: --moe-layer-freq: lists 3 layers, expected --num-layers = 2";
    // Issue 33 §4: an empty list left the pattern unset, which reads as every layer MoE.
    QTest::newRow("empty layer pattern is not every layer MoE")
        << base + "--num-experts 8 --moe-layer-freq '[]'"
        << "--megatron-args: --moe-layer-freq: lists no layers, expected one 0 or 1 per layer (--num-layers of them), "
           "got \"[]\"";
    // Issue 33 §5 (fuzz_megatron's finding): one head on tp 2 converted to a scenario validateScenario refuses.
    // transformer_config.py raises on it, and on query groups that neither divide tp nor are divided by it.
    QTest::newRow("tp not dividing the heads")
        << "--num-layers 2 --hidden-size 1024 --num-attention-heads 1 --seq-length 512 --vocab-size 50257 "
           "--tensor-model-parallel-size 2 --gpus 2"
        << "--megatron-args: --tensor-model-parallel-size: must divide --num-attention-heads (1), got 2";
    QTest::newRow("tp neither a multiple nor a divisor of the query groups")
        << "--num-layers 2 --hidden-size 1536 --num-attention-heads 24 --group-query-attention --num-query-groups 8 "
           "--seq-length 512 --vocab-size 50257 --tensor-model-parallel-size 12 --gpus 12"
        << "--megatron-args: --tensor-model-parallel-size: must be a multiple or divisor of the query groups (8), "
           "got 12";
    QTest::newRow("missing value at the end") << base + "--seq-length"
                                              << "--megatron-args: --seq-length: needs a value";
    QTest::newRow("value for a switch") << base + "--swiglu=1"
                                        << "--megatron-args: --swiglu: takes no value, got \"1\"";
    QTest::newRow("query groups not dividing heads")
        << base + "--group-query-attention --num-query-groups 5"
        << "--megatron-args: --num-query-groups: must divide --num-attention-heads (16), got 5";
    QTest::newRow("missing vocabulary") << "--num-layers 2 --hidden-size 1024 --num-attention-heads 16 --seq-length 512"
                                        << "--megatron-args: --vocab-size: missing: Megatron-LM reads it from the "
                                           "tokenizer; add --vocab-size N (e.g. 128256 "
                                           "for Llama 3, 32000 for Llama 2)";
    QTest::newRow("missing layers") << "--hidden-size 1024 --num-attention-heads 16 --seq-length 512 --vocab-size 10"
                                    << "--megatron-args: --num-layers: missing: Megatron-LM needs it";
    QTest::newRow("GPUs not divisible by tp·pp")
        << base + "--tensor-model-parallel-size 4 --gpus 6"
        << "--megatron-args: --gpus: 6 GPUs are not divisible by tp·pp·cp = 4 (arguments.py asserts it)";
    QTest::newRow("layers not divisible by pp")
        << base + "--pipeline-model-parallel-size 4 --gpus 4"
        << "--megatron-args: --pipeline-model-parallel-size: must divide --num-layers (2), got 4";
    QTest::newRow("both bf16 and fp16") << base + "--bf16 --fp16"
                                        << "--megatron-args: --fp16: cannot be combined with --bf16";
    QTest::newRow("global batch not a multiple")
        << base + "--global-batch-size 6 --micro-batch-size 4 --gpus 1"
        << "--megatron-args: --global-batch-size: must be a multiple of micro-batch × data-parallel size (4), got 6";
    QTest::newRow("top-k above experts")
        << base + "--num-experts 4 --moe-router-topk 8"
        << "--megatron-args: --moe-router-topk: must not exceed --num-experts (4), got 8";
    QTest::newRow("dropout above 1")
        << base + "--hidden-dropout 1.5"
        << "--megatron-args: --hidden-dropout: must be a probability between 0 and 1, got \"1.5\"";
    // tp·pp·cp was multiplied in int64 before any check: three degrees of 10^7 overflowed (UB).
    QTest::newRow("tp·pp·cp beyond the GPU limit is refused before it overflows")
        << base + "--tensor-model-parallel-size 10000000 --pipeline-model-parallel-size 10000000 "
                  "--context-parallel-size 10000000"
        << "--megatron-args: --tensor-model-parallel-size: tp·pp·cp = 10000000·10000000·10000000 is more than 10000000 "
           "GPUs";
    QTest::newRow("etp·ep·pp beyond the GPU limit is refused before it overflows")
        << base + "--expert-tensor-parallel-size 10000000 --expert-model-parallel-size 10000000 "
                  "--pipeline-model-parallel-size 10000000"
        << "--megatron-args: --expert-model-parallel-size: etp·ep·pp = 10000000·10000000·10000000 is more than "
           "10000000 GPUs";
    // Found by fuzz_megatron: 8 layers on pp 8 leave one layer a stage, which 2 virtual stages cannot split;
    // get_num_layers_to_build (transformer_block.py at d98e8a6) asserts num_layers_per_pipeline_rank % vp_size == 0.
    // It converted to a scenario the validator refuses (pp·vpp = 16 > 8 layers).
    QTest::newRow("virtual stages that do not divide a stage's layers")
        << "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --vocab-size 50257 "
           "--pipeline-model-parallel-size 8 --num-virtual-stages-per-pipeline-rank 2"
        << "--megatron-args: --num-virtual-stages-per-pipeline-rank: must divide the layers per pipeline stage (1), "
           "got 2";
    QTest::newRow("the same by --virtual-pipeline-model-parallel-size")
        << "--num-layers 12 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --vocab-size 50257 "
           "--pipeline-model-parallel-size 4 --virtual-pipeline-model-parallel-size 2"
        << "--megatron-args: --virtual-pipeline-model-parallel-size: must divide the layers per pipeline stage (3), "
           "got 2";
    {
        // Every A=$A$A doubles A: 1024 bytes doubled 40 times was 2^50 bytes of words (a hang, then out
        // of memory). Expanded text is limited to 2^20 bytes: line k (A = 1024·2^(k−1) before it) brings
        // the total to 2048·(2^k − 1), 1046528 after line 9; line 10's first $A (524288 more) passes the
        // limit. It sits at 1027 (the first line) + 9·7 + 2 = index 1092, character 1093.
        QString bomb = "A=" + QString(1024, 'x') + '\n';
        for (int k = 0; k < 40; ++k)
            bomb += "A=$A$A\n";
        QTest::newRow("variables doubling 40 times are refused, not a hang (expansion bomb)")
            << bomb + base << "--megatron-args: shell variables expand to more than 1 MiB of text (at character 1093)";
    }
}

void TestMegatronArgs::badInputNamesTheFlag()
{
    QFETCH(QString, text);
    QFETCH(QString, error);
    const MegatronParse p = parseMegatronArgs(text.toStdString());
    QVERIFY(!p.ok());
    QCOMPARE(QString::fromStdString(p.errors.front().toString()), error);
}

void TestMegatronArgs::scenarioFromFlags()
{
    const MegatronParse p = parseMegatronArgs(
        "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --group-query-attention --num-query-groups 8 "
        "--ffn-hidden-size 14336 --swiglu --normalization RMSNorm --untie-embeddings-and-output-weights "
        "--disable-bias-linear --position-embedding-type rope --vocab-size 128256 --seq-length 8192 --micro-batch-size "
        "2 "
        "--global-batch-size 512 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --sequence-parallel "
        "--recompute-granularity full --use-distributed-optimizer --bf16 --attention-dropout 0 --hidden-dropout 0 "
        "--gpus 64");
    QVERIFY(p.ok());
    const Scenario s = scenarioFromMegatron(p.args, Scenario{});
    const Architecture& a = s.model.architecture;
    QVERIFY(s.model.hasArchitecture);
    QCOMPARE(a.layers, qint64(32));
    QCOMPARE(a.kvHeads, qint64(8));
    QCOMPARE(a.headDim, qint64(128));
    QCOMPARE(a.ffn, qint64(14336));
    QCOMPARE(a.ffnKind, FfnKind::SwiGLU);
    QCOMPARE(a.vocab, qint64(128256)); // 128256 = 501 · 256, already padded for tp 2
    QCOMPARE(a.attention, AttentionKind::GQA);
    QCOMPARE(a.norm, NormKind::RMSNorm);
    QVERIFY(!a.tiedEmbeddings && !a.bias && !a.learnedPositions && !a.dropoutOrDefault());
    QCOMPARE(s.training.precision, Precision::BF16Mixed);
    QCOMPARE(s.training.checkpointing, Checkpointing::Full);
    QCOMPARE(s.training.seqLen, qint64(8192));
    QCOMPARE(s.training.microBatch, qint64(2));
    QCOMPARE(s.training.gradAccum, qint64(16)); // 512 / (2 · 16)
    QVERIFY(s.training.sequenceParallel);
    QCOMPARE(s.hardware.gpus, qint64(64));
    QCOMPARE(s.hardware.tp, qint64(2));
    QCOMPARE(s.hardware.pp, qint64(2));
    QCOMPARE(s.hardware.zeroStage, 1);
}

// A scenario written as flags and read back describes the same model and layout.
void TestMegatronArgs::scenarioRoundTrip()
{
    Scenario s;
    s.model.hasArchitecture = true;
    Architecture& a = s.model.architecture;
    a.layers = 61, a.hidden = 7168, a.heads = 128, a.ffn = 18432, a.vocab = 129280, a.attention = AttentionKind::MLA;
    a.mla.qLoraRank = 1536;
    a.moe = {256, 8, 1, 2048, 3, 18432};
    s.hardware.gpus = 256, s.hardware.tp = 8, s.hardware.ep = 32, s.hardware.zeroStage = 1;
    const MegatronArgs m = megatronFromScenario(s, a);
    QCOMPARE(m.layerPattern().size(), size_t(61));
    QCOMPARE(m.layerPattern()[2], 0);
    QCOMPARE(m.layerPattern()[3], 1);
    const Scenario back = scenarioFromMegatron(m, s);
    QCOMPARE(back.model.architecture.moe.denseLayers, qint64(3));
    QCOMPARE(back.model.architecture.moe.sharedExperts, qint64(1));
    QCOMPARE(back.model.architecture.mla.qLoraRank, qint64(1536));
    QCOMPARE(back.model.architecture.vocab, qint64(130048)); // Megatron pads 129280 to 1024 = 128 · tp 8
    QCOMPARE(back.hardware.ep, qint64(32));
    QCOMPARE(back.hardware.zeroStage, 1);
}

void TestMegatronArgs::unevenPipelineIsRead()
{
    // Issue 33: the values of --decoder-first/last-pipeline-num-layers were read and dropped. A DeepSeek-V3-shaped
    // launch: 61 layers on pp 8 with 7 on the first stage and 6 on the last, (61 − 13)/6 = 8 on each other one.
    const std::string launch = "--num-layers 61 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 "
                               "--vocab-size 50257 --pipeline-model-parallel-size 8 --gpus 8 ";
    const MegatronParse p =
        parseMegatronArgs(launch + "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 6");
    QVERIFY2(p.ok(), p.ok() ? "" : p.errors.front().toString().c_str());
    QCOMPARE(p.args.pipelineSplit.firstLayers, int64_t(7));
    QCOMPARE(p.args.pipelineSplit.lastLayers, int64_t(6));
    QVERIFY(p.ignored.empty());
    const Scenario s = scenarioFromMegatron(p.args, Scenario{});
    QCOMPARE(s.hardware.split.firstLayers, int64_t(7));
    QCOMPARE(s.hardware.split.lastLayers, int64_t(6));
    for (int64_t i = 1; i < 7; ++i)
        QCOMPARE(layersOnStage(s.hardware.split, 61, 8, i), int64_t(8));
    // And written back as the same flags.
    QCOMPARE(megatronFromScenario(s, s.model.architecture).pipelineSplit, p.args.pipelineSplit);
    // Megatron's own rule: the left over layers divide the left over stages.
    const MegatronParse bad =
        parseMegatronArgs(launch + "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 5");
    QVERIFY(!bad.ok());
    QCOMPARE(QString::fromStdString(bad.errors.front().toString()),
             QStringLiteral("--megatron-args: --decoder-first-pipeline-num-layers: leaves 49 layers for the other 6 "
                            "stages, which must be a positive multiple of them (Megatron-LM asserts the left over "
                            "layers divide the left over stages)"));
    // The embedding and the loss as a stage's worth each: 61 + 2 = 63 on 7 stages, 9 each, the ends one less.
    const MegatronParse ends = parseMegatronArgs(
        "--num-layers 61 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --vocab-size 50257 "
        "--pipeline-model-parallel-size 7 --gpus 7 --account-for-embedding-in-pipeline-split "
        "--account-for-loss-in-pipeline-split");
    QVERIFY2(ends.ok(), ends.ok() ? "" : ends.errors.front().toString().c_str());
    QCOMPARE(layersOnStage(ends.args.pipelineSplit, 61, 7, 0), int64_t(8));
    QCOMPARE(layersOnStage(ends.args.pipelineSplit, 61, 7, 3), int64_t(9));
    QCOMPARE(layersOnStage(ends.args.pipelineSplit, 61, 7, 6), int64_t(8));
    // Found by fuzz_megatron: 6 layers + the embedding on pp 7 leaves stage 0 no transformer layer, which
    // get_num_layers_to_build allows (it asserts only num_layers_to_build >= 0); the scenario refused pp 7 > 6 layers.
    const MegatronParse empty = parseMegatronArgs(
        "--num-layers 6 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --vocab-size 50257 "
        "--pipeline-model-parallel-size 7 --gpus 7 --account-for-embedding-in-pipeline-split");
    QVERIFY2(empty.ok(), empty.ok() ? "" : empty.errors.front().toString().c_str());
    const Scenario fromEmpty = scenarioFromMegatron(empty.args, Scenario{});
    QVERIFY(validateScenario(fromEmpty, "").empty());
    QCOMPARE(layersOnStage(fromEmpty.hardware.split, 6, 7, 0), int64_t(0));
    QCOMPARE(withValidLayout(fromEmpty).hardware.pp, int64_t(7));
}

void TestMegatronArgs::pipelineLayoutIsRead()
{
    // Issue 33: --pipeline-model-parallel-layout was listed as ignored. The launch is Megatron-LM's own functional
    // test tests/functional_tests/test_cases/mixtral/deepseekv3_proxy_flex_tp1pp4emp16etp1cp1_release/
    // model_config.yaml at d98e8a6 (its model and parallel flags; --gpus 128 added): a 14-layer DeepSeek-V3 proxy
    // with one MTP layer, laid "Et*2|(tt|)*5t|tmL" on pp 4, which arguments.py reads as 8 stages, vpp 2.
    const std::string launch =
        "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 --expert-model-parallel-size 16 "
        "--context-parallel-size 1 --expert-tensor-parallel-size 1 --use-distributed-optimizer --sequence-parallel "
        "--disable-bias-linear --micro-batch-size 1 --global-batch-size 512 --seq-length 4096 --num-layers 14 "
        "--hidden-size 7168 --ffn-hidden-size 18432 --num-attention-heads 128 --kv-channels 128 "
        "--max-position-embeddings 4096 --position-embedding-type rope --make-vocab-size-divisible-by 3232 "
        "--normalization RMSNorm --swiglu --untie-embeddings-and-output-weights --multi-latent-attention "
        "--mtp-num-layers 1 --num-experts 64 --moe-layer-freq ([0]*3+[1]*11) --moe-ffn-hidden-size 2048 "
        "--moe-shared-expert-intermediate-size 2048 --moe-router-topk 8 --q-lora-rank 1536 --kv-lora-rank 512 "
        "--qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128 --vocab-size 129280 --gpus 128 ";
    const MegatronParse p = parseMegatronArgs(launch + "--pipeline-model-parallel-layout \"Et*2|(tt|)*5t|tmL\"");
    QVERIFY2(p.ok(), p.ok() ? "" : p.errors.front().toString().c_str());
    QVERIFY(p.ignored.empty());
    QCOMPARE(p.args.virtualPipeline(), std::optional<int64_t>(2));
    QCOMPARE(p.args.pipelineSplit.stages.size(), size_t(8));
    const std::vector<std::string> notes(p.notes.end() - 4, p.notes.end());
    QCOMPARE(notes, (std::vector<std::string>{"pipeline layout, rank 0: embedding + 2 layers | 2 layers",
                                              "pipeline layout, rank 1: 2 layers | 2 layers",
                                              "pipeline layout, rank 2: 2 layers | 1 layer",
                                              "pipeline layout, rank 3: 2 layers | 1 layer + 1 MTP layer + loss"}));
    const Scenario s = scenarioFromMegatron(p.args, Scenario{});
    QCOMPARE(s.hardware.vpp, int64_t(2));
    QCOMPARE(s.hardware.split.layout, std::string("Et*2|(tt|)*5t|tmL"));
    QVERIFY2(validateScenario(s, "").empty(), "the launch's scenario is refused");
    // Written back as the same flag.
    QCOMPARE(megatronFromScenario(s, s.model.architecture).pipelineSplit, p.args.pipelineSplit);

    // Megatron-LM's own refusals (arguments.py, transformer_config.py at d98e8a6), each naming the flag.
    auto error = [&](const std::string& extra) {
        const MegatronParse bad = parseMegatronArgs(launch + extra);
        return bad.ok() ? QString() : QString::fromStdString(bad.errors.front().toString());
    };
    QCOMPARE(error("--pipeline-model-parallel-layout \"Et*2|(tt|)*5t|tmL\" --num-virtual-stages-per-pipeline-rank 2"),
             QStringLiteral("--megatron-args: --pipeline-model-parallel-layout: cannot be combined with "
                            "--num-virtual-stages-per-pipeline-rank: the layout gives the virtual stages "
                            "(arguments.py asserts it)"));
    QCOMPARE(error("--pipeline-model-parallel-layout \"Et*2|(tt|)*5t|tmL\" --decoder-first-pipeline-num-layers 2"),
             QStringLiteral("--megatron-args: --pipeline-model-parallel-layout: a pipeline layout cannot be combined "
                            "with first/last stage layers or the embedding or loss in the split "
                            "(transformer_config.py raises on it)"));
    QCOMPARE(error("--pipeline-model-parallel-layout \"Et*2|(tt|)*4t|tmL\""),
             QStringLiteral("--megatron-args: --pipeline-model-parallel-layout: has 7 stages, which pp 4 does not "
                            "divide (Megatron-LM's arguments.py asserts it)"));
    QCOMPARE(error("--pipeline-model-parallel-layout \"Et*2|(tt|)*5t|tmLq\""),
             QStringLiteral("--megatron-args: --pipeline-model-parallel-layout: \"Et*2|(tt|)*5t|tmLq\" has 'q' in "
                            "stage 7, which is not a layer: the layers are E (embedding), t (transformer layer), m "
                            "(MTP layer) and L (loss), stages are split by |, and \"t*3\" or \"(tt|)*2\" repeat"));
    QCOMPARE(error("--pipeline-model-parallel-layout \"Et*2|(tt|)*5|tmL\""),
             QStringLiteral("--megatron-args: --pipeline-model-parallel-layout: places 13 transformer layers, the "
                            "model has 14"));
}

QTEST_GUILESS_MAIN(TestMegatronArgs)
#include "tst_megatronargs.moc"
