// The loss as computed, framework profiles and the caching allocator (issue 30 §2–§3): the logits term of each
// cross-entropy kind, a profile filling only what the scenario leaves unset, and the expandable-segments reserve.
// Every expected number is worked by hand in the comments from docs/accounting.md, "The loss as computed".
#include "testdata.h"

#include "hfconfig.h"
#include "scenarioio.h"
#include "terms.h"

#include <QtTest>

using namespace trainmem;

namespace {

// Llama 2 7B (V = 32000, h = 4096) at s = 4096, b = 1 in bf16 mixed precision (e = 2 B): s·b·V = 131,072,000 logits.
Scenario llama2(std::optional<LossKind> loss, std::optional<Framework> framework = std::nullopt)
{
    Scenario s = testdata::preset("llama2-7b");
    s.training.mode = Mode::Training;
    s.training.precision = Precision::BF16Mixed;
    s.training.seqLen = 4096;
    s.training.microBatch = 1;
    s.training.loss = loss;
    s.framework = framework;
    return s;
}

double logitsOf(const Scenario& s)
{
    return account(s, testdata::gpu("H100")).perGpu.logits;
}

} // namespace

class TestLoss : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void logitsByLoss_data()
    {
        QTest::addColumn<int>("loss"); // -1: unset
        QTest::addColumn<int>("tp");
        QTest::addColumn<double>("bytes");
        // The chapter's e + 4 B per logit: 131,072,000 · 6 = 786,432,000 B, unchanged without --loss.
        QTest::newRow("no loss named: the chapter's 6 B per logit") << -1 << 1 << 786432000.0;
        // Megatron-LM's in-place softmax on one fp32 copy: the same 6 B.
        QTest::newRow("vocab-parallel: e + 4 B = 6 B") << int(LossKind::VocabParallel) << 1 << 786432000.0;
        // Eager on fp32-upcast logits: backward's saved log-probabilities, their gradient and the input gradient,
        // 3 × 4 B = 12 B: 131,072,000 · 12 = 1,572,864,000 B.
        QTest::newRow("eager fp32 upcast: 12 B per logit") << int(LossKind::Eager) << 1 << 1572864000.0;
        // Chunked, 8 chunks: 4 B + (2 + 8)/8 B = 5.25 B: 131,072,000 · 5.25 = 688,128,000 B; and while the chunks'
        // gradients of the trained head's weight are summed, a second V·h in b_g = 2 B: 32,000 · 4,096 · 2 =
        // 262,144,000 B (PyTorch's InputBuffer::add). 688,128,000 + 262,144,000 = 950,272,000 B.
        QTest::newRow("chunked (torchtune, 8 chunks): 5.25 B per logit and the head's V·h")
            << int(LossKind::Chunked) << 1 << 950272000.0;
        // Liger: chunk = next_pow2(⌈4096 / ⌈32000/4096⌉⌉) = next_pow2(512) = 512 tokens; 2 B · (512·32000 + 4096·4096)
        // = 2 · (16,384,000 + 16,777,216) = 66,322,432 B.
        QTest::newRow("fused (Liger): one chunk and grad_input") << int(LossKind::Fused) << 1 << 66322432.0;
        // Tensor parallel 2 splits the vocabulary: 1,572,864,000 / 2.
        QTest::newRow("eager at tp 2: half") << int(LossKind::Eager) << 2 << 786432000.0;
        QTest::newRow("vocab-parallel at tp 2: half") << int(LossKind::VocabParallel) << 2 << 393216000.0;
        // PyTorch's loss_parallel(): backward holds the saved fp32 log-probabilities, zeros_like, exp and their sum,
        // 16 B per logit: 131,072,000 · 16 = 2,097,152,000 B; at tp 2 each rank has V/2: 1,048,576,000 B.
        QTest::newRow("loss-parallel: 16 B per logit") << int(LossKind::LossParallel) << 1 << 2097152000.0;
        QTest::newRow("loss-parallel at tp 2: half") << int(LossKind::LossParallel) << 2 << 1048576000.0;
        // torchtitan's ChunkedLossWrapper, 8 chunks, each one's backward right after its forward:
        //  - one chunk's logits at e + 12 B: 131,072,000 / 8 · 14 = 16,384,000 · 14 = 229,376,000 B;
        //  - the fp32 GradAccumulator over all tokens and one chunk's 16-bit gradient of the hidden states:
        //    s·b·h = 4096 · 4096 = 16,777,216 · (4 + 2/8) = 71,303,168 B;
        //  - on one GPU the trained head's gradient summed in place: one more V·h·b_g = 32,000 · 4,096 · 2 =
        //    262,144,000 B.
        //  229,376,000 + 71,303,168 + 262,144,000 = 562,823,168 B.
        QTest::newRow("chunked-backward (torchtitan, 8 chunks)") << int(LossKind::ChunkedBackward) << 1 << 562823168.0;
        // At tp 2 (no FSDP: gpus = tp) each chunk's V/2 slice is the loss-parallel one, e + 16 B:
        // 16,384,000 · 18 / 2 = 147,456,000 B; the accumulator is over all tokens and the full h (the final norm's
        // output is gathered before chunking): 71,303,168 B; the head's extra V·h / 2 = 131,072,000 B.
        // 147,456,000 + 71,303,168 + 131,072,000 = 349,831,168 B.
        QTest::newRow("chunked-backward at tp 2: loss-parallel chunks")
            << int(LossKind::ChunkedBackward) << 2 << 349831168.0;
    }
    void logitsByLoss()
    {
        QFETCH(int, loss);
        QFETCH(int, tp);
        QFETCH(double, bytes);
        Scenario s = llama2(loss < 0 ? std::nullopt : std::optional<LossKind>(static_cast<LossKind>(loss)));
        s.hardware.gpus = tp;
        s.hardware.tp = tp;
        QCOMPARE(logitsOf(s), bytes);
    }

    // Compiled, torchtune's chunked loss keeps every chunk's 16-bit logits and one chunk's 16-bit gradient (the
    // partitioner recomputes the fp32 upcast and the log-softmax in the backward kernel): e·(1 + 1/8) = 2.25 B per
    // logit at e = 2 (docs/accounting.md, "The loss as computed"). Compiling changes no other loss.
    void compiledChunkedLossKeepsTheSixteenBitLogits_data()
    {
        QTest::addColumn<int>("loss");
        QTest::addColumn<bool>("compile");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<int>("tp");
        // 131,072,000 · 2 · (1 + 1/8) = 131,072,000 · 2.25 = 294,912,000 B, and the head's second V·h gradient
        // while the chunks' are summed, 262,144,000 B: 557,056,000 B.
        QTest::newRow("chunked, compiled: 2.25 B per logit") << int(LossKind::Chunked) << true << 557056000.0 << 1;
        // Not compiled: the eager bound, 5.25 B, and the same V·h (the row of logitsByLoss).
        QTest::newRow("chunked, eager: 5.25 B per logit") << int(LossKind::Chunked) << false << 950272000.0 << 1;
        // The other kinds do not read --compile: eager stays 12 B, 1,572,864,000 B.
        QTest::newRow("eager, compiled: still 12 B per logit") << int(LossKind::Eager) << true << 1572864000.0 << 1;
        // At tp 2 torchtune (bd2a0fc apply_compile_strategy) skips the compile with its default token masking: the
        // eager bound split by t, the head's gradient with it: 950,272,000 / 2 = 475,136,000 B.
        QTest::newRow("chunked, compiled, tp 2: compile skipped, 5.25 B / 2")
            << int(LossKind::Chunked) << true << 475136000.0 << 2;
    }
    void compiledChunkedLossKeepsTheSixteenBitLogits()
    {
        QFETCH(int, loss);
        QFETCH(bool, compile);
        QFETCH(double, bytes);
        QFETCH(int, tp);
        Scenario s = llama2(static_cast<LossKind>(loss));
        s.training.compile = compile;
        s.hardware.gpus = tp;
        s.hardware.tp = tp;
        QCOMPARE(logitsOf(s), bytes);
    }

    // torchtune's README run (tests/data/measured/torchtune-llama3_2-3b-*): Llama 3.2 3B (V = 128,256), s = 4096,
    // b = 2, bf16, compiled, chunked: s·b·V = 8192 · 128,256 = 1,050,673,152 logits; · 2 B · 9/8 = 2,364,014,592 B
    // (2.20 GiB), where the eager bound was · 5.25 B = 5,516,034,048 B (5.14 GiB). Trained in full, the tied head's
    // weight gradient is written by each of the 8 chunks and summed into the first: a second V·h = 128,256 · 3,072 ·
    // 2 B = 788,004,864 B while the loss's backward runs, 3,152,019,456 B compiled and 6,304,038,912 B eager. Under
    // LoRA the head is frozen: the logits alone.
    void compiledChunkedLossOfTorchtunesLlama32()
    {
        Scenario s = testdata::torchtuneLlama32_3B();
        QCOMPARE(logitsOf(s), 3152019456.0);
        s.training.compile = false;
        QCOMPARE(logitsOf(s), 6304038912.0);
        s.training.fineTune = FineTune::Lora;
        s.training.loraRank = 64;
        QCOMPARE(logitsOf(s), 5516034048.0);
        s.training.compile = true;
        QCOMPARE(logitsOf(s), 2364014592.0);
    }

    // LitGPT's chunked_cross_entropy (chunked-16bit): no fp32 upcast, the logits kept through backward; the output
    // layer itself is chunked only under adapters (finetune/lora.py's lm_head_chunk_size=128, not full.py's).
    void litgptChunkedLossByRecipe_data()
    {
        QTest::addColumn<int>("fineTune");
        QTest::addColumn<double>("bytes");
        // full.py: the logits, split's concatenated gradient and the slice's full-size gradient, 3e = 6 B:
        // 131,072,000 · 6 = 786,432,000 B.
        QTest::newRow("full fine-tune: 3e = 6 B per logit") << int(FineTune::Full) << 786432000.0;
        // lora.py: logits and log-probabilities (or their gradient), 2e = 4 B: 131,072,000 · 4 = 524,288,000 B; and
        // one 128-token chunk's two gradients in flight, 2e · b·128·V = 4 · 128 · 32000 = 16,384,000 B.
        // 524,288,000 + 16,384,000 = 540,672,000 B.
        QTest::newRow("LoRA: 2e = 4 B per logit and one 128-token chunk's 4 B") << int(FineTune::Lora) << 540672000.0;
        QTest::newRow("QLoRA: the same logits") << int(FineTune::QLora) << 540672000.0;
    }
    void litgptChunkedLossByRecipe()
    {
        QFETCH(int, fineTune);
        QFETCH(double, bytes);
        Scenario s = llama2(LossKind::Chunked16);
        s.training.fineTune = static_cast<FineTune>(fineTune);
        s.training.loraRank = 8;
        QCOMPARE(logitsOf(s), bytes);
        // Shorter than a chunk, the chunk is the sequence: s = 64, b = 2: 2e · (64·2·32000) · 2 (logits plus the
        // chunk) = 4 · 4,096,000 · 2 = 32,768,000 B under adapters; 6 · 4,096,000 = 24,576,000 B in full.
        s.training.seqLen = 64;
        s.training.microBatch = 2;
        QCOMPARE(logitsOf(s), fineTune == int(FineTune::Full) ? 24576000.0 : 32768000.0);
    }

    // The loss compiled with the model (docs/accounting.md, "The loss as computed"): the partitioner keeps the 16-bit
    // logits and the backward kernel writes a 16-bit gradient, 2e = 4 B per logit: 131,072,000 · 4 = 524,288,000 B.
    void compiledLossFollowsTheFramework()
    {
        // torchtitan compiles its loss under --compile (BaseLoss._maybe_compile).
        Scenario titan = llama2(LossKind::Eager, Framework::Torchtitan);
        QCOMPARE(logitsOf(titan), 1572864000.0); // not compiled: 12 B
        titan.training.compile = true;
        QVERIFY(effectiveCompileLoss(titan, LossKind::Eager));
        QCOMPARE(logitsOf(titan), 524288000.0);
        // Its 9dec370 left the loss out of the compile: --compile-loss off, 12 B again.
        titan.training.compileLoss = false;
        QCOMPARE(logitsOf(titan), 1572864000.0);
        // torchtune's compile_loss returns a compiled copy of a loss that is not chunked, which the recipe discards:
        // its eager loss stays 12 B under --compile; its chunked loss is patched in place (2.25 B and the head's V·h,
        // 557,056,000 B, compiledChunkedLossKeepsTheSixteenBitLogits).
        Scenario tune = llama2(LossKind::Eager, Framework::Torchtune);
        tune.training.compile = true;
        QCOMPARE(logitsOf(tune), 1572864000.0);
        tune.training.loss = LossKind::Chunked;
        QCOMPARE(logitsOf(tune), 557056000.0);
        tune.training.compileLoss = false; // the chunked loss left eager: 5.25 B and the V·h, 950,272,000 B
        QCOMPARE(logitsOf(tune), 950272000.0);
        // Without a framework the eager loss is compiled only when told.
        Scenario plain = llama2(LossKind::Eager);
        plain.training.compile = true;
        QCOMPARE(logitsOf(plain), 1572864000.0);
        plain.training.compileLoss = true;
        QCOMPARE(logitsOf(plain), 524288000.0);
        // The setting round-trips through a scenario file, and is left out when unset.
        const ScenarioParse back = parseScenario(scenarioToText(plain), "compiled.json");
        QVERIFY(back.ok());
        QCOMPARE(back.scenario.training.compileLoss, std::optional<bool>(true));
        QVERIFY(scenarioToText(llama2(LossKind::Eager)).find("compile_loss") == std::string::npos);
    }

    // torchtitan's ChunkedLossWrapper under FSDP2 (ZeRO-3 over 8 GPUs): the head is its own unit, whose gradient sync
    // the wrapper turns off until the last chunk, so FSDP2 keeps the head's unsharded gradient in an fp32 accumulator
    // and adds each chunk's 16-bit one to it (_fsdp_param.py to_accumulated_grad_if_needed,
    // accumulate_unsharded_grad_if_needed): V·h·(4 + 2) B = 131,072,000 · 6 = 786,432,000 B, beside the chunk's
    // logits 229,376,000 B and the hidden states' fp32 accumulator 71,303,168 B (logitsByLoss): 1,087,111,168 B.
    // Compiled, a chunk keeps its 16-bit logits and its 16-bit gradient, 2e = 4 B: 16,384,000 · 4 = 65,536,000 B,
    // so 65,536,000 + 71,303,168 + 786,432,000 = 923,271,168 B.
    void chunkedBackwardUnderFsdp2()
    {
        Scenario s = llama2(std::nullopt, Framework::Torchtitan);
        s.hardware.gpus = 8;
        s.hardware.zeroStage = 3;
        QCOMPARE(effectiveLoss(s), std::optional<LossKind>(LossKind::ChunkedBackward));
        QCOMPARE(logitsOf(s), 1087111168.0);
        s.training.compile = true;
        QCOMPARE(logitsOf(s), 923271168.0);
        // Under LoRA the head is frozen: no gradient to keep, 65,536,000 + 71,303,168 = 136,839,168 B.
        s.training.fineTune = FineTune::Lora;
        QCOMPARE(logitsOf(s), 136839168.0);
    }

    // torchtitan's tensor-parallel plan makes the output head ColwiseParallel(input_layouts=Shard(1)), so the head's
    // saved input is the final norm's output all-gathered over the sequence: s·b·h·e whole on every rank
    // (docs/accounting.md, "The head's input under torchtitan's tensor parallelism"). Llama 2 7B: 4096 · 4096 · 2 B =
    // 33,554,432 B on top of the loss's own bytes at tp 2.
    void torchtitanHeadInputUnderTensorParallelism_data()
    {
        QTest::addColumn<int>("loss");
        QTest::addColumn<int>("framework"); // -1: none
        QTest::addColumn<int>("tp");
        QTest::addColumn<double>("bytes");
        // loss-parallel at tp 2: 1,048,576,000 B (logitsByLoss) + 33,554,432 B = 1,082,130,432 B.
        QTest::newRow("torchtitan, loss-parallel, tp 2")
            << int(LossKind::LossParallel) << int(Framework::Torchtitan) << 2 << 1082130432.0;
        // eager at tp 2: 786,432,000 B + 33,554,432 B = 819,986,432 B.
        QTest::newRow("torchtitan, eager, tp 2")
            << int(LossKind::Eager) << int(Framework::Torchtitan) << 2 << 819986432.0;
        // At tp 1 nothing is gathered: the head's input is one more layer input, left out with the textbook tape.
        QTest::newRow("torchtitan, eager, tp 1")
            << int(LossKind::Eager) << int(Framework::Torchtitan) << 1 << 1572864000.0;
        // Megatron-LM's ColumnParallelLinear keeps the sequence shard: no framework, the loss alone.
        QTest::newRow("no framework, loss-parallel, tp 2") << int(LossKind::LossParallel) << -1 << 2 << 1048576000.0;
        // chunked-backward holds one chunk of the head's input already (logitsByLoss): unchanged, 349,831,168 B.
        QTest::newRow("torchtitan, chunked-backward, tp 2")
            << int(LossKind::ChunkedBackward) << int(Framework::Torchtitan) << 2 << 349831168.0;
    }
    void torchtitanHeadInputUnderTensorParallelism()
    {
        QFETCH(int, loss);
        QFETCH(int, framework);
        QFETCH(int, tp);
        QFETCH(double, bytes);
        Scenario s = llama2(static_cast<LossKind>(loss),
                            framework < 0 ? std::nullopt : std::optional<Framework>(static_cast<Framework>(framework)));
        s.hardware.gpus = tp;
        s.hardware.tp = tp;
        QCOMPARE(logitsOf(s), bytes);
    }

    // torchtitan's Llama 3.1 70B on 256 H100s, FSDP 32 × TP 8, local batch 16 at 8192 tokens, loss-parallel (its
    // 9dec370 H100 page; docs/accuracy.md): s·b = 131,072 tokens, V/8 = 128,256 / 8 = 16,032.
    //  - loss-parallel: 131,072 · 16,032 · 16 B = 33,621,540,864 B;
    //  - the head's gathered input: 131,072 · 8,192 · 2 B = 2,147,483,648 B;
    //  33,621,540,864 + 2,147,483,648 = 35,769,024,512 B.
    void torchtitanSeventyBHeadInput()
    {
        Scenario s = testdata::hfTraining("Llama-3.1-70B");
        s.training.precision = Precision::BF16Mixed;
        s.training.seqLen = 8192;
        s.training.microBatch = 16;
        s.training.loss = LossKind::LossParallel;
        s.framework = Framework::Torchtitan;
        s.hardware.gpus = 256;
        s.hardware.tp = 8;
        s.hardware.zeroStage = 3;
        QCOMPARE(logitsOf(s), 35769024512.0);
    }

    void frameworkFillsWhatIsUnset_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<bool>("expandable");
        QTest::newRow("megatron: vocab-parallel, classic allocator")
            << int(Framework::Megatron) << 786432000.0 << false;
        QTest::newRow("deepspeed: the model's loss (default 6 B)") << int(Framework::DeepSpeed) << 786432000.0 << false;
        // torchtitan's ChunkedLossWrapper (row chunkedBackward of logitsByLoss): 562,823,168 B.
        QTest::newRow("torchtitan: chunked-backward, expandable segments")
            << int(Framework::Torchtitan) << 562823168.0 << true;
        QTest::newRow("torchtune: chunked, expandable segments") << int(Framework::Torchtune) << 950272000.0 << true;
        QTest::newRow("hf: eager, classic allocator") << int(Framework::HF) << 1572864000.0 << false;
    }
    void frameworkFillsWhatIsUnset()
    {
        QFETCH(int, framework);
        QFETCH(double, bytes);
        QFETCH(bool, expandable);
        const Scenario s = llama2(std::nullopt, static_cast<Framework>(framework));
        QCOMPARE(logitsOf(s), bytes);
        QCOMPARE(effectiveExpandableSegments(s), expandable);
    }

    // A profile never overrides what the scenario sets: an explicit loss or allocator setting wins.
    void explicitSettingsWinOverTheProfile()
    {
        Scenario s = llama2(LossKind::Fused, Framework::Torchtitan); // torchtitan's own loss is chunked-backward
        QCOMPARE(effectiveLoss(s), std::optional<LossKind>(LossKind::Fused));
        QCOMPARE(logitsOf(s), 66322432.0);
        s.hardware.expandableSegments = false; // torchtitan's run_train.sh turns it on
        QVERIFY(!effectiveExpandableSegments(s));
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.fragmentation, 0.05 * reservedBytes(b.perGpu));
        Scenario hf = llama2(LossKind::Chunked, Framework::HF);
        hf.hardware.expandableSegments = true;
        QCOMPARE(logitsOf(hf), 950272000.0); // 5.25 B per logit and the head's V·h, as in logitsByLoss
        QVERIFY(effectiveExpandableSegments(hf));
    }

    // With expandable segments the allocator maps 20 MiB (large pool) and 2 MiB (small pool) pages: the reserve is
    // at most 22 MiB = 23,068,672 B, whatever the 5% fraction would have been (here several GB).
    void expandableSegmentsReserve()
    {
        Scenario s = llama2(std::nullopt);
        const Breakdown classic = account(s, testdata::gpu("H100"));
        QCOMPARE(classic.perGpu.fragmentation, 0.05 * reservedBytes(classic.perGpu));
        s.hardware.expandableSegments = true;
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.fragmentation, 23068672.0);
        QCOMPARE(kExpandableSegmentsReserve, 23068672.0);
        // Everything else is the same: only the reserve changed.
        QCOMPARE(b.perGpu.total() - b.perGpu.fragmentation, classic.perGpu.total() - classic.perGpu.fragmentation);
    }

    // The three keys round-trip through a scenario file; an unknown value names its field.
    void scenarioFileKeys()
    {
        Scenario s = llama2(LossKind::Chunked, Framework::Torchtune);
        s.hardware.expandableSegments = false;
        const ScenarioParse p = parseScenario(scenarioToText(s), "s.json");
        QVERIFY(p.ok());
        QCOMPARE(p.scenario.training.loss, std::optional<LossKind>(LossKind::Chunked));
        QCOMPARE(p.scenario.framework, std::optional<Framework>(Framework::Torchtune));
        QCOMPARE(p.scenario.hardware.expandableSegments, std::optional<bool>(false));
        // The training and hardware setups come back field for field (the preset's model is not this test's).
        QVERIFY(p.scenario.training == s.training);
        QVERIFY(p.scenario.hardware == s.hardware);
        // Unset stays unset (and is not written).
        const Scenario plain = llama2(std::nullopt);
        const std::string text = scenarioToText(plain);
        QVERIFY(text.find("\"loss\"") == std::string::npos);
        QVERIFY(text.find("expandable_segments") == std::string::npos);
        const ScenarioParse back = parseScenario(text, "s.json");
        QVERIFY(!back.scenario.training.loss && !back.scenario.framework && !back.scenario.hardware.expandableSegments);
        QVERIFY(back.scenario.training == plain.training);

        std::string bad = scenarioToText(s);
        bad.replace(bad.find("\"chunked\""), 9, "\"liger\"");
        const ScenarioParse e = parseScenario(bad, "bad.json");
        QVERIFY(!e.ok());
        QCOMPARE(QString::fromStdString(e.errors.front().toString()),
                 QStringLiteral("bad.json: /training/loss: must be one of "
                                "eager|chunked|fused|vocab-parallel|chunked-16bit|loss-parallel|chunked-backward, got "
                                "\"liger\""));
    }
};

QTEST_GUILESS_MAIN(TestLoss)
#include "tst_loss.moc"
