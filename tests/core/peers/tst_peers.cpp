// The peers' own estimates, reproduced to the byte (issue 10). Every expected number below is the
// peer's formula evaluated by hand on the launch's flags, in the peer's order of operations:
//   Megatron-LM megatron/training/theoretical_memory_usage.py @ d98e8a64ddf34856e74b24714e3bedb2f5a39553
//   DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py, stage3.py @ edaa7221267243c7be7fb49c5d5f5c4fb97b4641
// Where the formula produces a non-integer the expectation is written as the formula itself
// (a product with 1.05 or a ratio like 18432/7168), evaluated in double as Python evaluates it.
#include "peers.h"

#include "params.h"
#include "testdata.h"

#include <QtTest>

#include <cmath>

using namespace trainmem;

namespace {

MegatronArgs argsOf(const char* text)
{
    const MegatronParse p = parseMegatronArgs(text);
    if (!p.ok())
        qFatal("bad test flags: %s", p.errors.front().toString().c_str());
    return p.args;
}

// Llama-2 7B (Meta's config: 32 × 4096, SwiGLU 11008, 32 heads, vocab 32000, untied), tp 2 on 8 GPUs.
constexpr const char* kLlama2 =
    "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 32 --hidden-size 4096 --ffn-hidden-size 11008 "
    "--num-attention-heads 32 --swiglu --normalization RMSNorm --untie-embeddings-and-output-weights "
    "--disable-bias-linear --position-embedding-type rope --vocab-size 32000 --seq-length 4096 --micro-batch-size 1 "
    "--global-batch-size 1024 --tensor-model-parallel-size 2 --sequence-parallel --recompute-activations "
    "--use-distributed-optimizer --bf16";
// Llama-3 8B (GQA 8 groups, SwiGLU 14336, vocab 128256, 8k context), data parallel on 8 GPUs.
constexpr const char* kLlama3 =
    "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 --group-query-attention "
    "--num-query-groups 8 --kv-channels 128 --swiglu --normalization RMSNorm --untie-embeddings-and-output-weights "
    "--disable-bias-linear --position-embedding-type rope --vocab-size 128256 --seq-length 8192 --micro-batch-size 1 "
    "--global-batch-size 128 --use-distributed-optimizer --bf16 --gpus 8";
// GPT-3 175B (Brown et al. 2020: 96 × 12288, 96 heads, 2k context, GPT-2 vocabulary) on 1024 GPUs,
// tp 8 · pp 16 with the interleaved schedule (3 layers per virtual stage -> vpp 2).
constexpr const char* kGpt3 =
    "--num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 --max-position-embeddings 2048 "
    "--vocab-size 50257 --micro-batch-size 1 --global-batch-size 1536 --tensor-model-parallel-size 8 "
    "--pipeline-model-parallel-size 16 --num-layers-per-virtual-pipeline-stage 3 --sequence-parallel "
    "--recompute-activations --use-distributed-optimizer --bf16 --gpus 1024";
// Mixtral 8x7B (8 experts, top-2, SwiGLU 14336) on 64 GPUs: pp 4, ep 8, full recompute.
constexpr const char* kMixtral =
    "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 --group-query-attention "
    "--num-query-groups 8 --swiglu --normalization RMSNorm --untie-embeddings-and-output-weights --disable-bias-linear "
    "--position-embedding-type rope --vocab-size 32000 --num-experts 8 --moe-router-topk 2 --seq-length 4096 "
    "--micro-batch-size 1 --global-batch-size 256 --pipeline-model-parallel-size 4 --expert-model-parallel-size 8 "
    "--recompute-granularity full --recompute-method uniform --use-distributed-optimizer --bf16 --gpus 64";
// DeepSeek-V3 (its config.json: MLA q/kv ranks 1536/512, 256 experts of 2048, top-8, one shared expert,
// three dense layers of 18432, vocab 129280, one MTP layer) on 512 GPUs: tp 8, ep 64, etp 1.
constexpr const char* kDeepSeekV3 =
    "--num-layers 61 --hidden-size 7168 --ffn-hidden-size 18432 --num-attention-heads 128 --multi-latent-attention "
    "--q-lora-rank 1536 --kv-lora-rank 512 --qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128 "
    "--num-experts 256 --moe-ffn-hidden-size 2048 --moe-router-topk 8 --moe-shared-expert-intermediate-size 2048 "
    "--moe-layer-freq '([0]*3+[1]*58)' --mtp-num-layers 1 --swiglu --normalization RMSNorm "
    "--untie-embeddings-and-output-weights --disable-bias-linear --position-embedding-type rope --vocab-size 129280 "
    "--seq-length 4096 --micro-batch-size 1 --tensor-model-parallel-size 8 --expert-model-parallel-size 64 "
    "--expert-tensor-parallel-size 1 --sequence-parallel --recompute-granularity selective --use-distributed-optimizer "
    "--bf16 --gpus 512";

} // namespace

class TestPeers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void megatron_data();
    void megatron();
    void deepspeed_data();
    void deepspeed();
    void deepspeedTakesTheSizeGiven();
    void deepspeedOffloadChoices_data();
    void deepspeedOffloadChoices();
    void differencesAddUpToTheGap_data();
    void differencesAddUpToTheGap();
    void trainmemCountsTheSameModel();
    void hybridHasNoMegatronEstimate();
};

void TestPeers::megatron_data()
{
    QTest::addColumn<QString>("flags");
    QTest::addColumn<double>("totalParams");
    QTest::addColumn<double>("mostLoaded");
    QTest::addColumn<double>("weightAndOptimizer");
    QTest::addColumn<double>("activation");
    QTest::addColumn<bool>("spBranch");

    // Llama-2 7B. attention 2h²·(1 + 32/32)·1 = 67,108,864; mlp 2·4096·11008·1.5 = 135,266,304; norms 2·4096 = 8192:
    // layer 202,383,360 × 32 + final 4096 = 6,476,271,616; padded vocab ⌈32000/256⌉·256 = 32000, embeddings
    // 2 · 131,072,000 -> total 6,738,415,616. Shard: ((202,375,168·32)/1 + 131,072,000)/2 = 3,303,538,688, replicated
    // 8192·32 + 4096 = 266,240, untied at pp 1 adds 131,072,000/2 -> 3,369,340,928; × (6 + 12/4) = 30,324,068,352.
    // Activations (SP + selective): 4096·4096·(18 + 4·11008/4096 = 28.75) = 482,344,960 × 32 = 15,435,038,720,
    // + 8·4096 + 4096·4096 = 15,451,848,704, + 4096·4096·4·(1 + 32000/4096) = 591,396,864 -> ÷ tp 2 = 8,021,622,784.
    QTest::newRow("Llama-2 7B, tp 2, SP + selective, distributed optimizer")
        << kLlama2 << 6738415616.0 << 3369340928.0 << 30324068352.0 << 8021622784.0 << true;
    // Llama-3 8B. attention 2h²·(1 + 8/32) = 41,943,040; mlp 2·4096·14336·1.5 = 176,160,768; layer 218,112,000 × 32
    // + 4096 = 6,979,588,096; vocab 128256 (= 1002·128), embeddings 2 · 525,336,576 -> 8,030,261,248. Shard at tp 1 pp
    // 1: everything, 8,030,261,248 × (6 + 12/8) = 60,226,959,360. Activations (tp 1, so no SP: the other branch):
    // 8192·4096·(10 + 24) × 32 = 36,507,222,016 + 8·8192 + 8192·4096 = 36,540,841,984, + (8192·128256 + 8192·4096)·2
    // = 2,168,455,168 -> 38,709,297,152 × 1.05.
    QTest::newRow("Llama-3 8B, data parallel, no SP: the 1.05 branch")
        << kLlama3 << 8030261248.0 << 8030261248.0 << 60226959360.0 << 38709297152.0 * 1.05 << false;
    // GPT-3 175B. attention 4h² = 603,979,776; mlp 8h² = 1,207,959,552; LayerNorm 4h = 49,152; layer 1,811,988,480 × 96
    // + 2h = 173,950,918,656; vocab ⌈50257/1024⌉·1024 = 51200, tied: 629,145,600 -> 174,580,064,256. Shard:
    // (1,811,939,328·96/16 + 629,145,600)/8 = 1,437,597,696 + (49,152·96 + 24,576)/16 = 296,448 -> 1,437,894,144;
    // dp 1024/128 = 8: × 7.5 = 10,784,206,080. Activations: 2048·12288·(18 + 16) × 96 = 82,141,249,536 + 8·2048·16
    // + 2048·12288·16 = 82,544,164,864; interleaving penalty 1 + 15/(16·2) = 1.46875 -> 121,236,742,144; pp > 1: no
    // output layer; ÷ tp 8 = 15,154,592,768.
    QTest::newRow("GPT-3 175B, tp 8 pp 16, interleaved (vpp 2)")
        << kGpt3 << 174580064256.0 << 1437894144.0 << 10784206080.0 << 15154592768.0 << true;
    // Mixtral 8x7B. attention 41,943,040; routed 2·4096·14336·8·1.5 = 1,409,286,144; norms 8192; router 4096·8 (no
    // bias) = 32,768: MoE layer 1,451,270,144 × 32 + 4096 = 46,440,648,704, + 2 · 131,072,000 = 46,702,792,704. Shard:
    // tp part (41,943,040·32/4 + 131,072,000)/1 = 466,616,320; replicated ((8192 + 32,768)·32 + 4096)/4 = 328,704;
    // experts 1,409,286,144·32/4/(1·8) = 1,409,286,144. dp 64/4 = 16 -> 6.75 B; expert dp 64/(1·8·4) = 2 -> 12 B:
    // 466,945,024 · 6.75 + 1,409,286,144 · 12 = 3,151,878,912 + 16,911,433,728 = 20,063,312,640.
    // Activations (full recompute: the other branch): 4096·4096·34 × 32 = 18,253,611,008 + 8·4096·4 + 4096·4096·4
    // = 18,320,850,944; 16 micro-batches ≥ pp, no discount; × 1.05.
    QTest::newRow("Mixtral 8x7B, pp 4 ep 8, full recompute")
        << kMixtral << 46702792704.0 << (466616320.0 + 328704.0 + 1409286144.0) << 20063312640.0 << 18320850944.0 * 1.05
        << false;
    // DeepSeek-V3. MLA: q 1536·(7168 + 128·192 + 1) = 48,760,320; kv 512·(7168 + 128·256 + 1) = 20,447,744; rope key
    // 7168·64 = 458,752; out 16384·7168 = 117,440,512 -> 187,107,328. Dense layer: + 2·7168·18432·1.5 = 396,361,728
    // + 14,336 = 583,483,392. MoE layer: + shared 44,040,192 + routed 2·7168·2048·256·1.5 = 11,274,289,152 + 14,336
    // + router 1,835,008 = 11,507,286,016. Block 3·583,483,392 + 58·11,507,286,016 + 7168 = 669,173,046,272; the last
    // pattern entry is MoE so the MTP layer is one more MoE layer; vocab ⌈129280/1024⌉·1024 = 130,048, embeddings
    // 2 · 932,184,064 -> 682,544,700,416. Shard: tp ((583,469,056·3 + 231,147,520·58)/1 + 231,147,520 + 932,184,064)/8
    // = 2,040,036,864 + untied 116,523,008; replicated 14,336·3 + 1,849,344·58 + 7168 + 1,849,344 = 109,161,472;
    // experts 11,274,289,152·59/64 = 10,393,485,312. dp 512/8 = 64 -> 6.1875 B; expert dp 512/64 = 8 -> 7.5 B:
    // 2,265,721,344 · 6.1875 + 10,393,485,312 · 7.5 = 14,019,150,816 + 77,951,139,840 = 91,970,290,656.
    // Activations (SP + selective): 4096·7168·(18 + 4·(18432/7168)) × 61 + 8·4096 + 4096·7168, + the output layer
    // 4096·7168·4·(1 + 130048/7168), ÷ tp 8 — written out below in Python's order.
    const double sbh = 4096.0 * 7168;
    double dsAct = sbh * (18 + 4 * (18432.0 / 7168.0));
    dsAct *= 61;
    dsAct += 8.0 * 4096;
    dsAct += sbh;
    dsAct += sbh * 4 * (1 + 130048.0 / 7168.0);
    dsAct /= 8;
    QTest::newRow("DeepSeek-V3, MLA + MTP + dense-first list, tp 8 ep 64 etp 1")
        << kDeepSeekV3 << 682544700416.0 << (2156559872.0 + 109161472.0 + 10393485312.0) << 91970290656.0 << dsAct
        << true;
}

void TestPeers::megatron()
{
    QFETCH(QString, flags);
    QFETCH(double, totalParams);
    QFETCH(double, mostLoaded);
    QFETCH(double, weightAndOptimizer);
    QFETCH(double, activation);
    QFETCH(bool, spBranch);
    const MegatronEstimate e = megatronEstimate(argsOf(flags.toUtf8().constData()));
    QVERIFY(e.available);
    QCOMPARE(e.totalParams, totalParams);
    QCOMPARE(e.mostLoadedShardParams, mostLoaded);
    QCOMPARE(e.weightAndOptimizerBytes, weightAndOptimizer);
    QCOMPARE(e.activationBytes, activation);
    QCOMPARE(e.sequenceParallelBranch, spBranch);
    // The components add up to Megatron's figures.
    QVERIFY(std::fabs(e.weights + e.gradients + e.master + e.optimizer - e.weightAndOptimizerBytes) < 1);
    QVERIFY(std::fabs(e.activationLayers + e.activationEmbedding + e.activationOutput - e.activationBytes) < 1);
}

void TestPeers::deepspeed_data()
{
    QTest::addColumn<QString>("flags");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<qint64>("largest");
    QTest::addColumn<qint64>("zero2Gpu");
    QTest::addColumn<qint64>("zero2Cpu");
    QTest::addColumn<qint64>("zero3Gpu");
    QTest::addColumn<qint64>("zero3Cpu");
    // No offload (the scenario's choice), ZeRO-3 with zero_init. Largest tensor = the embedding V·h in each row.
    // Llama-2 7B on 1 node × 8: 2P + int(18P/8) = 13,476,831,232 + 15,161,435,136; cpu P·4·8·1.5;
    // ZeRO-3 4·131,072,000 + 15,161,435,136, cpu 131,072,000·4·8·1.5.
    QTest::newRow("Llama-2 7B, 1 node of 8")
        << kLlama2 << qint64(6738415616) << qint64(131072000) << qint64(28638266368) << qint64(323443949568)
        << qint64(15685723136) << qint64(6291456000);
    // Llama-3 8B: 2·8,030,261,248 + 18,068,087,808; cpu P·48; ZeRO-3 4·525,336,576 + 18,068,087,808, cpu
    // 525,336,576·48.
    QTest::newRow("Llama-3 8B, 1 node of 8")
        << kLlama3 << qint64(8030261248) << qint64(525336576) << qint64(34128610304) << qint64(385452539904)
        << qint64(20169434112) << qint64(25216155648);
    // GPT-3 175B has biases and learned positions, which parameters() lists: + 96·(3h + h + 4h + h) = 10,616,832
    // + 2048·12288 = 25,165,824 -> P = 174,615,846,912. 128 nodes × 8: int(18P/1024) = 3,069,419,184.
    QTest::newRow("GPT-3 175B, 128 nodes of 8")
        << kGpt3 << qint64(174615846912) << qint64(629145600) << qint64(352301113008) << qint64(8381560651776)
        << qint64(5586001584) << qint64(30198988800);
    // Mixtral: 8 nodes × 8; int(18P/64) = 13,135,160,448.
    QTest::newRow("Mixtral 8x7B, 8 nodes of 8")
        << kMixtral << qint64(46702792704) << qint64(131072000) << qint64(106540745856) << qint64(2241734049792)
        << qint64(13659448448) << qint64(6291456000);
    // DeepSeek-V3: 64 nodes × 8; int(18P/512) = 23,995,712,124; largest = 130,048 · 7168 = 932,184,064.
    QTest::newRow("DeepSeek-V3, 64 nodes of 8")
        << kDeepSeekV3 << qint64(682544700416) << qint64(932184064) << qint64(1389085112956) << qint64(32762145619968)
        << qint64(27724448380) << qint64(44744835072);
}

void TestPeers::deepspeed()
{
    QFETCH(QString, flags);
    QFETCH(qint64, params);
    QFETCH(qint64, largest);
    QFETCH(qint64, zero2Gpu);
    QFETCH(qint64, zero2Cpu);
    QFETCH(qint64, zero3Gpu);
    QFETCH(qint64, zero3Cpu);
    const MegatronArgs a = argsOf(flags.toUtf8().constData());
    const Scenario s = scenarioFromMegatron(a, Scenario{});
    const PeerComparison c = comparePeers(a, s, GpuSpec{});
    QCOMPARE(c.deepspeedParams, params);
    QCOMPARE(c.deepspeedLargestLayer, largest);
    QCOMPARE(c.zero2.gpuBytes, zero2Gpu);
    QCOMPARE(c.zero2.cpuBytes, zero2Cpu);
    QCOMPARE(c.zero3.gpuBytes, zero3Gpu);
    QCOMPARE(c.zero3.cpuBytes, zero3Cpu);
    QCOMPARE(c.zero2Variants.size(), size_t(2)); // what estimate_zero2_..._all_cold prints
    QCOMPARE(c.zero3Variants.size(), size_t(6));
}

void TestPeers::deepspeedTakesTheSizeGiven()
{
    // Issue 33: for --params N DeepSpeed got the Megatron count of the made-up shape. Its estimators take
    // model.parameters(), which is N. On one GPU without offload estimate_zero2_model_states_mem_needs gives
    // 2P + int(18P/1) = 20 · 7e9 = 140,000,000,000 B (it prints 130.39GB, ÷ 2^30), and with cpu_offload 2P on the
    // GPU and P · max(4·1, 16) · 1.5 = 168,000,000,000 B on the CPU.
    Scenario s = testdata::sized(7'000'000'000);
    const MegatronArgs m = megatronFromScenario(s, resolveModel(s.model).arch);
    QVERIFY(megatronModelParams(m) != 7'000'000'000); // the shape's own count: what was fed before
    const PeerComparison c = comparePeers(m, s, GpuSpec{});
    QCOMPARE(c.deepspeedParams, int64_t(7'000'000'000));
    QCOMPARE(c.zero2.gpuBytes, int64_t(140'000'000'000));
    QCOMPARE(c.zero2Variants.front().gpuBytes, int64_t(14'000'000'000));
    QCOMPARE(c.zero2Variants.front().cpuBytes, int64_t(168'000'000'000));
}

void TestPeers::deepspeedOffloadChoices_data()
{
    QTest::addColumn<int>("stage");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<qint64>("largest");
    QTest::addColumn<int>("perNode");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<bool>("offloadOptimizer");
    QTest::addColumn<bool>("offloadParam");
    QTest::addColumn<bool>("zeroInit");
    QTest::addColumn<qint64>("gpu");
    QTest::addColumn<qint64>("cpu");
    const qint64 P = 6738415616, LL = 131072000; // Llama-2 7B, 1 node × 8
    QTest::newRow("ZeRO-2 offload: gpu 2P, cpu P·max(4·8, 16)·1.5")
        << 2 << P << LL << 8 << 1 << true << false << true << qint64(13476831232) << qint64(323443949568);
    QTest::newRow("ZeRO-3 offload param, zero_init: gpu 4·LL, cpu P·18·1·1.5")
        << 3 << P << LL << 8 << 1 << true << true << true << qint64(524288000) << qint64(181937221632);
    QTest::newRow("ZeRO-3 offload param, no zero_init: cpu P·max(32, 18)·1.5")
        << 3 << P << LL << 8 << 1 << true << true << false << qint64(524288000) << qint64(323443949568);
    QTest::newRow("ZeRO-3 offload optimizer, zero_init: gpu 4·LL + int(2P/8), cpu P·16·1.5")
        << 3 << P << LL << 8 << 1 << true << false << true << qint64(2208891904) << qint64(161721974784);
    QTest::newRow("ZeRO-3 offload optimizer, no zero_init: cpu P·max(32, 16)·1.5")
        << 3 << P << LL << 8 << 1 << true << false << false << qint64(2208891904) << qint64(323443949568);
    QTest::newRow("ZeRO-3 no offload, no zero_init: cpu P·4·8·1.5")
        << 3 << P << LL << 8 << 1 << false << false << false << qint64(15685723136) << qint64(323443949568);
    // Two nodes: gpus_factor 1/2. P = 1e9, LL = 1e8, 4 GPUs per node.
    QTest::newRow("ZeRO-3 two nodes, offload param, zero_init: cpu 1e9·18·0.5·1.5")
        << 3 << qint64(1000000000) << qint64(100000000) << 4 << 2 << true << true << true << qint64(400000000)
        << qint64(13500000000);
    QTest::newRow("ZeRO-3 two nodes, offload param, no zero_init: cpu 1e9·max(16, 9)·1.5")
        << 3 << qint64(1000000000) << qint64(100000000) << 4 << 2 << true << true << false << qint64(400000000)
        << qint64(24000000000);
    // Three nodes of one GPU: max(4, 18·(1/3) = 6.0) takes the float side: 1e9·6·1.5.
    QTest::newRow("ZeRO-3 three single-GPU nodes: the float side of max")
        << 3 << qint64(1000000000) << qint64(100000000) << 1 << 3 << true << true << false << qint64(400000000)
        << qint64(9000000000);
    // int() truncation: P = 1,000,000,001 on 4 GPUs: 18P/4 = 4,500,000,004.5 -> 4,500,000,004; + 2P.
    QTest::newRow("ZeRO-2 truncates 18P/N") << 2 << qint64(1000000001) << qint64(0) << 4 << 1 << false << false << true
                                            << qint64(6500000006) << qint64(24000000024);
}

void TestPeers::deepspeedOffloadChoices()
{
    QFETCH(int, stage);
    QFETCH(qint64, params);
    QFETCH(qint64, largest);
    QFETCH(int, perNode);
    QFETCH(int, nodes);
    QFETCH(bool, offloadOptimizer);
    QFETCH(bool, offloadParam);
    QFETCH(bool, zeroInit);
    QFETCH(qint64, gpu);
    QFETCH(qint64, cpu);
    const DeepSpeedEstimate d =
        stage == 2 ? deepspeedZero2(params, perNode, nodes, offloadOptimizer)
                   : deepspeedZero3(params, largest, perNode, nodes, offloadOptimizer, offloadParam, zeroInit);
    QCOMPARE(d.gpuBytes, gpu);
    QCOMPARE(d.cpuBytes, cpu);
}

void TestPeers::differencesAddUpToTheGap_data()
{
    QTest::addColumn<QString>("flags");
    for (const char* f : {kLlama2, kLlama3, kGpt3, kMixtral, kDeepSeekV3})
        QTest::newRow(QByteArray(f).left(40).constData()) << QString::fromLatin1(f);
}

void TestPeers::differencesAddUpToTheGap()
{
    QFETCH(QString, flags);
    const MegatronArgs a = argsOf(flags.toUtf8().constData());
    const Scenario s = scenarioFromMegatron(a, Scenario{});
    const PeerComparison c = comparePeers(a, s, GpuSpec{});
    const double trainmem = c.trainmem.total();
    const std::pair<const char*, double> peers[] = {{"megatron", c.megatron.totalBytes()},
                                                    {"deepspeed_zero2", static_cast<double>(c.zero2.gpuBytes)},
                                                    {"deepspeed_zero3", static_cast<double>(c.zero3.gpuBytes)}};
    for (const auto& [peer, total] : peers) {
        double tm = 0, pe = 0;
        for (const PeerDifference& d : c.differences) {
            if (d.peer != peer)
                continue;
            QVERIFY2(!d.reason.empty(), d.term.c_str());
            tm += d.trainmemBytes;
            pe += d.peerBytes;
        }
        QVERIFY2(std::fabs(tm - trainmem) < 1e-6 * trainmem, peer);
        QVERIFY2(std::fabs(pe - total) < 1e-6 * total, peer);
    }
}

// TrainMem counts the converted model as Megatron does when it has no biases and no learned
// positions: the same 8,030,261,248 parameters for Llama-3 8B (norms and untied embeddings included).
void TestPeers::trainmemCountsTheSameModel()
{
    const MegatronArgs a = argsOf(kLlama3);
    const Scenario s = scenarioFromMegatron(a, Scenario{});
    QCOMPARE(countParams(s.model.architecture).total, qint64(8030261248));
    QCOMPARE(s.hardware.zeroStage, 1); // the distributed optimizer
    QCOMPARE(s.hardware.gpus, qint64(8));
    QCOMPARE(s.training.gradAccum, qint64(16)); // 128 / (1 · 8)
}

void TestPeers::hybridHasNoMegatronEstimate()
{
    MegatronArgs a = argsOf(kLlama3);
    a.hybrid = true;
    const MegatronEstimate e = megatronEstimate(a);
    QVERIFY(!e.available);
    QVERIFY(e.unavailableReason.find("hybrid") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestPeers)
#include "tst_peers.moc"
