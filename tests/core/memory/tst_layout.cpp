// Issue 13: parallel layouts as they really are. The layout reported is the layout used, and a
// layout no framework could run is refused with a message naming the field and the numbers.
#include "testdata.h"

#include "cost.h"
#include "hfconfig.h"
#include "report.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace trainmem;

class TestLayout : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // validateScenario() refuses layouts a framework cannot run (Megatron-LM's arguments.py asserts
    // the same divisibility: num_experts % ep, world % (etp·ep·pp), and a stage needs a layer).
    void badLayoutsAreRefused_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<qint64>("tp");
        QTest::addColumn<qint64>("pp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        // presets/mixtral-8x7b.json: 8 experts (mistralai/Mixtral-8x7B-v0.1 num_local_experts 8).
        QTest::newRow("mixtral ep 16 > its 8 experts (the issue's case)")
            << "mixtral-8x7b" << qint64(64) << qint64(1) << qint64(1) << qint64(16) << "/hardware/ep"
            << "must divide the model's 8 experts, got 16";
        QTest::newRow("mixtral ep 3 does not divide 8 experts")
            << "mixtral-8x7b" << qint64(3) << qint64(1) << qint64(1) << qint64(3) << "/hardware/ep"
            << "must divide the model's 8 experts, got 3";
        // 12 GPUs, tp 1, pp 1: 12 % 8 ≠ 0, so the expert grid 1·8·1 does not tile the GPUs.
        QTest::newRow("mixtral ep 8 on 12 GPUs: the expert grid does not divide them")
            << "mixtral-8x7b" << qint64(12) << qint64(1) << qint64(1) << qint64(8) << "/hardware/ep"
            << "must divide gpus/(etp·pp) = 12/1 = 12 (the expert grid etp·ep·pp = 8 must divide the GPUs; etp is tp "
               "unless set), got 8";
        // presets/llama3-8b.json: 32 layers (meta-llama/Meta-Llama-3-8B num_hidden_layers 32).
        QTest::newRow("llama3-8b pp 64 > its 32 layers (the issue's case)")
            << "llama3-8b" << qint64(64) << qint64(1) << qint64(64) << qint64(1) << "/hardware/pp"
            << "must not exceed the model's 32 layers (a pipeline stage holds at least one), got 64";
        // Issue 33 §5: Megatron-LM's attention.py divides num_attention_heads by tp; 10^7-way tp of Llama 3 8B's 32
        // heads (meta-llama/Meta-Llama-3-8B num_attention_heads 32) "fitted" in fractions of a head.
        QTest::newRow("llama3-8b tp 64 does not divide its 32 heads")
            << "llama3-8b" << qint64(64) << qint64(64) << qint64(1) << qint64(1) << "/hardware/tp"
            << "must divide the model's 32 attention heads (Megatron-LM and vLLM split whole heads), got 64";
        QTest::newRow("llama3-8b tp 10^7")
            << "llama3-8b" << qint64(10'000'000) << qint64(10'000'000) << qint64(1) << qint64(1) << "/hardware/tp"
            << "must divide the model's 32 attention heads (Megatron-LM and vLLM split whole heads), got 10000000";
        QTest::newRow("ep on a dense model")
            << "llama3-8b" << qint64(8) << qint64(1) << qint64(1) << qint64(8) << "/hardware/ep"
            << "must be 1: the model has no mixture-of-experts layers to split, got 8";
    }
    void badLayoutsAreRefused()
    {
        QFETCH(QString, preset);
        QFETCH(qint64, gpus);
        QFETCH(qint64, tp);
        QFETCH(qint64, pp);
        QFETCH(qint64, ep);
        QFETCH(QString, path);
        QFETCH(QString, message);
        Scenario s = testdata::preset(preset.toStdString());
        s.hardware.gpus = gpus;
        s.hardware.tp = tp;
        s.hardware.pp = pp;
        s.hardware.ep = ep;
        const FieldErrors e = validateScenario(s, "x.json");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(QString::fromStdString(e.front().path), path);
        QCOMPARE(QString::fromStdString(e.front().message), message);
        // withValidLayout() repairs it into one that passes, and the accounting uses that one.
        const Scenario fixed = withValidLayout(s);
        QVERIFY(validateScenario(fixed, "").empty());
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.layout.tp, fixed.hardware.tp);
        QCOMPARE(b.layout.pp, fixed.hardware.pp);
        QCOMPARE(b.layout.ep, fixed.hardware.ep);
        QCOMPARE(b.layout.tp * b.layout.pp * b.layout.dp, b.layout.gpus);
        QVERIFY(!b.warnings.empty()); // and says what it changed
    }

    // Issue 33 §5, the query groups: transformer_config.py at d98e8a6 raises unless num_query_groups is "a multiple
    // or divisor of tensor_model_parallel_size". Qwen2.5-7B (tests/data/hf/Qwen2.5-7B.json: 28 heads, 4 key/value
    // heads) on tp 14 splits its heads whole but not its 4 query groups: 4 % 14 ≠ 0 and 14 % 4 ≠ 0.
    void tensorParallelSplitsOrCopiesWholeQueryGroups()
    {
        const HfImport qwen = parseHfConfig(testdata::readFile(TRAINMEM_HF_DATA "/Qwen2.5-7B.json"), "config.json");
        QVERIFY(qwen.ok());
        QCOMPARE(qwen.architecture.heads, int64_t(28));
        QCOMPARE(qwen.architecture.kvHeads, int64_t(4));
        Scenario s = scenarioWithHfModel(Scenario{}, qwen, "Qwen2.5-7B");
        s.hardware.gpus = 14;
        s.hardware.tp = 14;
        FieldErrors e = validateScenario(s, "");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(QString::fromStdString(e.front().path), QStringLiteral("/hardware/tp"));
        QCOMPARE(QString::fromStdString(e.front().message),
                 QStringLiteral("must be a multiple or a divisor of the model's 4 key/value heads (query groups: "
                                "Megatron-LM and vLLM split them whole or copy them), got 14"));
        // The window's repair keeps the largest divisor of 14 that works: 2 (7 divides 28 heads but not 4 groups).
        QCOMPARE(withValidLayout(s).hardware.tp, int64_t(2));
        QCOMPARE(account(s, testdata::gpu("H100")).layout.tp, int64_t(2));
        // tp 28 copies each of the 4 groups to 7 ranks: allowed.
        s.hardware.gpus = 28;
        s.hardware.tp = 28;
        QVERIFY(validateScenario(s, "").empty());
    }

    // withValidLayout() keeps each degree's largest divisor that is valid.
    void validLayoutKeepsTheLargestDivisor_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<qint64>("pp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("wantPp");
        QTest::addColumn<qint64>("wantEp");
        // 32 layers: pp 64 on 64 GPUs becomes 32, the largest divisor of 64 that is ≤ 32.
        QTest::newRow("llama3-8b pp 64 -> 32")
            << "llama3-8b" << qint64(64) << qint64(64) << qint64(1) << qint64(32) << qint64(1);
        // 8 experts: ep 16 -> gcd(16, 8, 64) = 8.
        QTest::newRow("mixtral ep 16 -> 8")
            << "mixtral-8x7b" << qint64(64) << qint64(1) << qint64(16) << qint64(1) << qint64(8);
        // 12 GPUs: ep 8 -> gcd(8, 8, 12) = 4.
        QTest::newRow("mixtral ep 8 on 12 GPUs -> 4")
            << "mixtral-8x7b" << qint64(12) << qint64(1) << qint64(8) << qint64(1) << qint64(4);
        // DeepSeek-V3: 61 layers, 256 experts. pp 16 on 48 GPUs -> gcd 16 = 16, ep 64 -> gcd(64, 256, 3) = 1.
        QTest::newRow("deepseek-v3 pp 16 ep 64 on 48 GPUs -> pp 16, ep 1")
            << "deepseek-v3" << qint64(48) << qint64(16) << qint64(64) << qint64(16) << qint64(1);
        QTest::newRow("a dense model's ep -> 1")
            << "llama3-8b" << qint64(8) << qint64(1) << qint64(8) << qint64(1) << qint64(1);
    }
    void validLayoutKeepsTheLargestDivisor()
    {
        QFETCH(QString, preset);
        QFETCH(qint64, gpus);
        QFETCH(qint64, pp);
        QFETCH(qint64, ep);
        Scenario s = testdata::preset(preset.toStdString());
        s.hardware.gpus = gpus;
        s.hardware.tp = 1;
        s.hardware.pp = pp;
        s.hardware.ep = ep;
        s = withValidLayout(s);
        QFETCH(qint64, wantPp);
        QFETCH(qint64, wantEp);
        QCOMPARE(s.hardware.pp, wantPp);
        QCOMPARE(s.hardware.ep, wantEp);
        QVERIFY(validateScenario(s, "").empty());
    }

    // --json's `parallel` is the layout used: serving llama3-70b on 4 GPUs with no layout given
    // splits the weights by tensor parallel ×4 (parallelLayout), so tp is 4 and dp 1, not tp 1, dp 4.
    void jsonParallelIsTheLayoutUsed()
    {
        Scenario s = testdata::preset("llama3-70b");
        s.training.mode = Mode::Inference;
        s.hardware.gpus = 4;
        s.hardware.tp = s.hardware.pp = 1;
        const GpuSpec gpu = testdata::gpu("H100");
        const Breakdown b = account(s, gpu);
        const nlohmann::json p = breakdownToJson(b, s, gpu, computeCost(b.model, s, gpu))["parallel"];
        QCOMPARE(p["gpus"].get<int64_t>(), int64_t(4));
        QCOMPARE(p["tp"].get<int64_t>(), int64_t(4));
        QCOMPARE(p["pp"].get<int64_t>(), int64_t(1));
        QCOMPARE(p["data_parallel"].get<int64_t>(), int64_t(1));
        QVERIFY(b.warnings.empty()); // a documented default, not an adjustment
    }

    // Every preset, on every GPU count, under every layout withValidLayout() makes: tp·pp·dp = gpus
    // and tp·ep·pp·dp_expert = gpus in the layout used.
    void layoutUsedTilesTheGpus()
    {
        const GpuSpec gpu = testdata::gpu("H100");
        for (const char* id : {"llama3-8b", "mixtral-8x7b", "deepseek-v3", "llama3.1-405b"}) {
            for (int64_t n : {1, 6, 8, 12, 64, 96, 2048}) {
                const Scenario s = withGpuCount(testdata::preset(id), n);
                const ParallelLayout p = account(s, gpu).layout;
                QCOMPARE(p.gpus, n);
                QCOMPARE(p.tp * p.pp * p.dp, n);
                QCOMPARE(p.etp * p.ep * p.pp * p.dpExpert, n);
                QCOMPARE(p.tp, s.hardware.tp);
                QCOMPARE(p.pp, s.hardware.pp);
                QCOMPARE(p.ep, s.hardware.ep);
            }
        }
    }

    // Issue 13 §2: `--preset llama2-7b --gpus 8 --pp 8`. Llama 2 7B (meta-llama/Llama-2-7b-hf
    // config.json): L 32, h 4096, 32 heads, f 11008 SwiGLU, V 32000 untied, P = 6,738,415,616.
    // Each stage holds n = 32/8 = 4 layers' share of P_layers = P − 2·V·h = 6,476,271,616, i.e.
    // 809,533,952; the first adds the input embedding V·h = 131,072,000 (Megatron-LM builds it on
    // the first stage), the last the output head, another 131,072,000, and the logits.
    // Tape of one layer (core/memory/activations.h; bf16, flash, no dropout, MHA): attention 10·sbh,
    // scores 4·a·sb = 128·sb, SwiGLU mlp sb·(2h + 6f), norms 4·sbh: sb·(16h + 6f + 128).
    // 1F1B: stage i holds p − i micro-batches in flight (Narayanan et al. 2021 §2.2): 8, 7, 1.
    void busiestPipelineStage()
    {
        Scenario s = testdata::preset("llama2-7b");
        s.hardware.gpus = 8;
        s.hardware.pp = 8;
        s.training.gradAccum = 8; // m ≥ p: 1F1B's stages hold p − i micro-batches (see microBatchesInFlight)
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.stages.size(), size_t(3));
        const double sb = 4096, perLayer = sb * (16 * 4096 + 6 * 11008 + 128);
        const double layerShare = 6'476'271'616.0 * 4 / 32, embedding = 32000.0 * 4096;
        const double first = layerShare + embedding, middle = layerShare, last = layerShare + embedding;
        const StageMemory& f = b.stages[0];
        const StageMemory& m = b.stages[1];
        const StageMemory& l = b.stages[2];
        QCOMPARE(f.stage, PipelineStage::First);
        QCOMPARE(m.stage, PipelineStage::Middle);
        QCOMPARE(l.stage, PipelineStage::Last);
        QCOMPARE(m.index, int64_t(1));
        QCOMPARE(l.index, int64_t(7));
        // bf16-mixed AdamW: 2 B weights, 2 B gradients, 4 B master, 8 B moments (ZeRO §3.1).
        testdata::compareBytes(f.bytes.weights, 2 * first);
        testdata::compareBytes(m.bytes.weights, 2 * middle);
        testdata::compareBytes(l.bytes.weights, 2 * last);
        testdata::compareBytes(f.bytes.optimizer, 8 * first);
        testdata::compareBytes(f.bytes.activations, 4 * 8 * perLayer);
        testdata::compareBytes(m.bytes.activations, 4 * 7 * perLayer);
        testdata::compareBytes(l.bytes.activations, 4 * 1 * perLayer);
        QCOMPARE(f.bytes.logits, 0.0);
        testdata::compareBytes(l.bytes.logits, sb * 32000 * (2 + 4)); // s·b·V·(e + 4 B)
        // The first stage is the busiest: 16 B × 940,605,952 + 32 layer-tapes against the last's
        // 16 B × 940,605,952 + 4 tapes + 786 MB of logits. perGpu is that stage.
        QCOMPARE(b.busiestStage, size_t(0));
        QCOMPARE(b.perGpu.total(), f.bytes.total());
        QVERIFY(f.bytes.total() > l.bytes.total() && f.bytes.total() > m.bytes.total());
        // The even split said 16 B × P/8 = 16 × 842,301,952 for every stage's model state: the first
        // stage holds 16 × 98,304,000 B = 1.57 GB more than that.
        testdata::compareBytes(f.bytes.modelState() - 16 * 6'738'415'616.0 / 8, 16 * (first - 6'738'415'616.0 / 8));
        // The whole model is still there: first + 6 middle stages + last hold every parameter.
        testdata::compareBytes(first + 6 * middle + last, 6'738'415'616.0);
    }

    // With one stage nothing moves: the view is the whole model (pp = 1 keeps every existing number).
    void oneStageIsTheWholeModel()
    {
        const Breakdown b = account(testdata::preset("llama2-7b"), testdata::gpu("H100"));
        QCOMPARE(b.stages.size(), size_t(1));
        QCOMPARE(b.stages[0].stage, PipelineStage::Only);
        testdata::compareBytes(b.perGpu.weights, 2 * 6'738'415'616.0);
        QCOMPARE(b.perGpu.total(), b.singleGpu.total());
    }

    // Issue 13 §3: with m micro-batches per step, 1F1B's stage i holds min(p − i, m) tapes
    // (Megatron-LM schedules.py: p − i − 1 warm-up forwards, capped at m). PP 8 with 4 micro-batches:
    // the first stage holds 4, not 8, so the old figure was twice the tape.
    void microBatchesInFlight_data()
    {
        QTest::addColumn<qint64>("gradAccum");
        QTest::addColumn<qint64>("vpp");
        QTest::addColumn<double>("first");
        QTest::addColumn<double>("middle");
        QTest::addColumn<double>("last");
        QTest::newRow("m 4 < p 8: min(8,4), min(7,4), min(1,4)") << qint64(4) << qint64(1) << 4.0 << 4.0 << 1.0;
        QTest::newRow("m 1: one micro-batch everywhere") << qint64(1) << qint64(1) << 1.0 << 1.0 << 1.0;
        QTest::newRow("m 16 ≥ p: p − i") << qint64(16) << qint64(1) << 8.0 << 7.0 << 1.0;
        // Interleaved, v = 2: (2·(p − i − 1) + (v − 1)·p + 1)/v chunks' worth = (14 + 8 + 1)/2 = 11.5 on
        // stage 0, which is Megatron's p·(1 + (p − 1)/(p·v)) = 8·(1 + 7/16) = 11.5
        // (theoretical_memory_usage.py); stage 1: (12 + 8 + 1)/2 = 10.5; stage 7: (0 + 8 + 1)/2 = 4.5.
        QTest::newRow("vpp 2, m 16") << qint64(16) << qint64(2) << 11.5 << 10.5 << 4.5;
        // m·v = 8 chunks cap the warm-up: min(23, 8)/2 = 4 on stage 0 and 1, min(9, 8)/2 = 4 on stage 7.
        QTest::newRow("vpp 2, m 4") << qint64(4) << qint64(2) << 4.0 << 4.0 << 4.0;
    }
    void microBatchesInFlight()
    {
        QFETCH(qint64, gradAccum);
        QFETCH(qint64, vpp);
        QFETCH(double, first);
        QFETCH(double, middle);
        QFETCH(double, last);
        Scenario s = testdata::preset("llama2-7b");
        s.hardware.gpus = 8;
        s.hardware.pp = 8;
        s.hardware.vpp = vpp;
        s.training.gradAccum = gradAccum;
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.stages[0].inflight, first);
        QCOMPARE(b.stages[1].inflight, middle);
        QCOMPARE(b.stages[2].inflight, last);
        // The tape is n = 4 layers × in flight × one layer's sb·(16h + 6f + 128) (see busiestPipelineStage).
        const double perLayer = 4096.0 * (16 * 4096 + 6 * 11008 + 128);
        testdata::compareBytes(b.stages[0].bytes.activations, 4 * first * perLayer);
        testdata::compareBytes(b.stages[2].bytes.activations, 4 * last * perLayer);
    }

    void globalBatchRefusesDegreesWhoseProductOverflows()
    {
        // Issue 33 §1: tp = pp = cp = 2^22 multiply to 2^66, which wrapped to 0 in int64 and was divided by
        // (SIGFPE). The product is now checked against the GPU count factor by factor.
        Scenario s = testdata::preset("llama2-7b");
        s.hardware.gpus = 8;
        s.hardware.tp = s.hardware.pp = s.hardware.cp = int64_t(1) << 22;
        std::string why;
        QCOMPARE(gradAccumForGlobalBatch(s, 8, &why), std::optional<int64_t>());
        QCOMPARE(QString::fromStdString(why),
                 QStringLiteral("needs gpus to be a multiple of tp·pp·cp = "
                                "4194304·4194304·4194304, which exceeds the GPU count (8)"));
        // At the largest degrees (10^7 each, 10^21 in all) the message names the factors, not a wrapped product.
        s.hardware.gpus = s.hardware.tp = s.hardware.pp = s.hardware.cp = kMaxGpus;
        QCOMPARE(gradAccumForGlobalBatch(s, 8, &why), std::optional<int64_t>());
        QCOMPARE(QString::fromStdString(why), QStringLiteral("needs gpus to be a multiple of tp·pp·cp = "
                                                             "10000000·10000000·10000000, which exceeds the GPU count "
                                                             "(10000000)"));
        // The same in a scenario file: an error naming the field, not a crash.
        const ScenarioParse p = parseScenario(
            R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "training": {"global_batch": 8},
                "hardware": {"gpus": 8, "tp": 4194304, "pp": 4194304, "context_parallel": 4194304}})",
            "big.json");
        QVERIFY(!p.ok());
        QVERIFY2(QString::fromStdString(p.errors.front().toString()).contains(QStringLiteral("global_batch")),
                 p.errors.front().toString().c_str());
    }

    void globalBatchSetsGradAccum()
    {
        Scenario s = testdata::preset("llama2-7b");
        s.hardware.gpus = 64;
        s.hardware.pp = 8;
        s.training.microBatch = 2;
        // dp = 64/(1·8) = 8; global = micro_batch · dp · m: 64 = 2 · 8 · 4.
        QCOMPARE(gradAccumForGlobalBatch(s, 64, nullptr), std::optional<int64_t>(4));
        std::string why;
        QCOMPARE(gradAccumForGlobalBatch(s, 100, &why), std::optional<int64_t>());
        QCOMPARE(QString::fromStdString(why),
                 QStringLiteral("must be a multiple of micro_batch × data parallel = 2 × 8 = 16, got 100"));
        // The scenario file's global_batch does the same.
        const ScenarioParse p = parseScenario(
            R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "training": {"micro_batch": 2, "global_batch": 64},
                "hardware": {"gpus": 64, "pp": 8}})",
            "g.json");
        QVERIFY2(p.ok(), p.ok() ? "" : p.errors.front().toString().c_str());
        QCOMPARE(p.scenario.training.gradAccum, int64_t(4));
        const ScenarioParse bad = parseScenario(
            R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "training": {"micro_batch": 2, "global_batch": 100},
                "hardware": {"gpus": 64, "pp": 8}})",
            "g.json");
        QVERIFY(!bad.ok());
        QCOMPARE(QString::fromStdString(bad.errors.front().toString()),
                 QStringLiteral("g.json: /training/global_batch: must be a multiple of micro_batch × data parallel = 2 "
                                "× 8 = 16, got 100"));
    }

    void badVirtualPipelines_data()
    {
        QTest::addColumn<qint64>("pp");
        QTest::addColumn<qint64>("vpp");
        QTest::addColumn<QString>("message");
        QTest::newRow("vpp without a pipeline")
            << qint64(1) << qint64(2)
            << "must be 1 without pipeline parallelism (pp 1): the interleaved schedule splits pipeline stages, got 2";
        // llama2-7b has 32 layers: 8 stages × 8 virtual stages would need 64.
        QTest::newRow("pp·vpp above the layers")
            << qint64(8) << qint64(8)
            << "pp·vpp = 8·8 = 64 must not exceed the model's 32 layers (a virtual stage holds at least one), got 8";
    }
    void badVirtualPipelines()
    {
        QFETCH(qint64, pp);
        QFETCH(qint64, vpp);
        QFETCH(QString, message);
        Scenario s = testdata::preset("llama2-7b");
        s.hardware.gpus = 8;
        s.hardware.pp = pp;
        s.hardware.vpp = vpp;
        const FieldErrors e = validateScenario(s, "");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(QString::fromStdString(e.front().path), QStringLiteral("/hardware/vpp"));
        QCOMPARE(QString::fromStdString(e.front().message), message);
        QVERIFY(validateScenario(withValidLayout(s), "").empty());
    }

    // Issue 13 §4: expert tensor parallel. Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json: L 32,
    // h 4096, 32 heads, 8 kv heads, f 14336, 8 experts, V 32000 untied) on 64 GPUs, tp 8, ep 8,
    // ZeRO-1 (Megatron's distributed optimizer). Routed experts: 32 layers × 8 × 3·h·f =
    // 32 · 8 · 176,160,768 = 45,097,156,608; the rest: 46,702,792,704 − that = 1,605,636,096.
    // dp = 64/8 = 8. With etp 1 (Megatron's MoE recipes, DeepSeek-V3) an expert is whole on a GPU:
    // experts per GPU = 45,097,156,608/(etp 1 · ep 8) = 5,637,144,576, the expert data-parallel
    // group EDP = 64/(1·8·1) = 8 shards their master and moments. With etp = tp = 8 (the default):
    // 45,097,156,608/64 = 704,643,072 per GPU and EDP = 64/(8·8) = 1.
    void expertTensorParallel_data()
    {
        QTest::addColumn<qint64>("etp");
        QTest::addColumn<double>("expertsHeld");
        QTest::addColumn<qint64>("edp");
        QTest::newRow("etp unset = tp 8 (Megatron's default)") << qint64(0) << 704'643'072.0 << qint64(1);
        QTest::newRow("etp 8 given") << qint64(8) << 704'643'072.0 << qint64(1);
        QTest::newRow("etp 1: whole experts") << qint64(1) << 5'637'144'576.0 << qint64(8);
    }
    void expertTensorParallel()
    {
        QFETCH(qint64, etp);
        QFETCH(double, expertsHeld);
        QFETCH(qint64, edp);
        Scenario s = testdata::preset("mixtral-8x7b");
        s.hardware.gpus = 64;
        s.hardware.tp = 8;
        s.hardware.ep = 8;
        s.hardware.etp = etp;
        s.hardware.zeroStage = 1;
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.model.params.routedExperts, int64_t(45'097'156'608));
        QCOMPARE(b.layout.dpExpert, edp);
        const double dense = 1'605'636'096.0 / 8; // ÷ tp: 200,704,512
        // bf16-mixed AdamW: weights and gradients 2 B each on every held parameter; master 4 B and
        // moments 8 B sharded by ZeRO-1 over dp 8 (dense) and EDP (experts).
        testdata::compareBytes(b.perGpu.weights, 2 * (dense + expertsHeld));
        testdata::compareBytes(b.perGpu.gradients, 2 * (dense + expertsHeld));
        testdata::compareBytes(b.perGpu.master, 4 * (dense / 8 + expertsHeld / double(edp)));
        testdata::compareBytes(b.perGpu.optimizer, 8 * (dense / 8 + expertsHeld / double(edp)));
    }
    // etp 1 against the etp = tp assumption: 4 B × (200,704,512 + 5,637,144,576) + 12 B × 729,731,136
    // = 32,108,169,984 B of model state against 4 B × 905,347,584 + the same 8,756,773,632 =
    // 12,378,163,968 B: the old figure was 61% low. (ZeRO-1's sharded part is the same: 5,637,144,576/8
    // = 704,643,072/1.)
    void expertTensorParallelModelState()
    {
        Scenario s = testdata::preset("mixtral-8x7b");
        s.hardware.gpus = 64;
        s.hardware.tp = 8;
        s.hardware.ep = 8;
        s.hardware.zeroStage = 1;
        const GpuSpec gpu = testdata::gpu("H100");
        const double byTp = account(s, gpu).perGpu.modelState();
        s.hardware.etp = 1;
        const double byEtp = account(s, gpu).perGpu.modelState();
        testdata::compareBytes(byTp, 12'378'163'968.0);
        testdata::compareBytes(byEtp, 32'108'169'984.0);
    }

    void badExpertTensorParallel_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("etp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        QTest::newRow("etp on a dense model")
            << "llama3-8b" << qint64(2) << qint64(1) << "/hardware/expert_tensor_parallel"
            << "must not be set: the model has no mixture-of-experts layers, got 2";
        QTest::newRow("etp 3 does not divide 64 GPUs")
            << "mixtral-8x7b" << qint64(3) << qint64(1) << "/hardware/expert_tensor_parallel"
            << "must divide gpus/pp = 64/1 = 64, got 3";
        // etp 16 · ep 8 = 128 > 64 GPUs.
        QTest::newRow("etp·ep·pp above the GPUs") << "mixtral-8x7b" << qint64(16) << qint64(8) << "/hardware/ep"
                                                  << "must divide gpus/(etp·pp) = 64/16 = 4 (the expert grid etp·ep·pp "
                                                     "= 128 must divide the GPUs; etp is tp unless set), got 8";
    }
    void badExpertTensorParallel()
    {
        QFETCH(QString, preset);
        QFETCH(qint64, etp);
        QFETCH(qint64, ep);
        QFETCH(QString, path);
        QFETCH(QString, message);
        Scenario s = testdata::preset(preset.toStdString());
        s.hardware.gpus = 64;
        s.hardware.etp = etp;
        s.hardware.ep = ep;
        const FieldErrors e = validateScenario(s, "");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(QString::fromStdString(e.front().path), path);
        QCOMPARE(QString::fromStdString(e.front().message), message);
        QVERIFY(validateScenario(withValidLayout(s), "").empty());
    }

    // DeepSeek-V3's multi-token-prediction module (report §2.2; Megatron-LM builds it in the last stage's
    // postprocess, multi_token_prediction.py) lives with the output head: on pp 16, ep 64, tp 1, ZeRO-1 the
    // last stage gains its 16-bit weights, (335,778,816 + 11,274,289,152/64)·2 B: the dense part (attention,
    // shared expert, router, projection, norms: 11,610,067,968 − 256·3·7168·2048) whole, the routed experts
    // split 64 ways, and a copy of the input embedding, V·h = 129,280·7,168 = 926,679,040 parameters, that the MTP
    // stage keeps to embed its shifted tokens (Megatron-LM at d98e8a6: gpt_model.py builds self.embedding when
    // mtp_process, language_module.py "maintain a copy of embedding layer in the mtp process stage").
    // Stage 0 is unchanged; the last stage's logits double (a second loss through the shared
    // head); under full checkpointing its tape grows by the module's two inputs, 2·e·sbh = 2·2·4096·7168 B.
    void mtpSitsOnTheLastStage()
    {
        Scenario s = testdata::preset("deepseek-v3");
        s.training.checkpointing = Checkpointing::Full;
        Scenario none = s;
        none.model.architecture.mtpLayers = 0;
        const GpuSpec gpu = testdata::gpu("H800");
        const Breakdown with = account(s, gpu), without = account(none, gpu);
        QCOMPARE(with.layout.pp, qint64(16));
        QCOMPARE(with.stages.size(), without.stages.size());
        const Segments& w0 = with.stages.front().bytes;
        const Segments& n0 = without.stages.front().bytes;
        QCOMPARE(with.stages.front().index, qint64(0));
        QCOMPARE(w0.total(), n0.total());
        const Segments& wl = with.stages.back().bytes;
        const Segments& nl = without.stages.back().bytes;
        QCOMPARE(with.stages.back().stage, PipelineStage::Last);
        testdata::compareBytes(wl.weights - nl.weights, (335778816.0 + 11274289152.0 / 64 + 129280.0 * 7168) * 2);
        QCOMPARE(wl.logits, 2 * nl.logits);
        QVERIFY(nl.logits > 0);
        testdata::compareBytes(wl.activations - nl.activations, 2.0 * 2 * 4096 * 7168);
        // The one-GPU view trains all of it: 14 B per parameter of 671,026,404,352 + 11,610,067,968.
        QCOMPARE(with.singleGpu.modelState(), (671026404352.0 + 11610067968.0) * 14);
        // LoRA drops the module (transformers does not build it): the frozen base is the main model's.
        Scenario lora = s;
        lora.training.fineTune = FineTune::Lora;
        Scenario loraNone = lora;
        loraNone.model.architecture.mtpLayers = 0;
        QCOMPARE(account(lora, gpu).singleGpu.total(), account(loraNone, gpu).singleGpu.total());
    }
};

QTEST_GUILESS_MAIN(TestLayout)
#include "tst_layout.moc"
