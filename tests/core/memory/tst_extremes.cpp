// No value a slider or file can produce may give NaN, a negative segment or an inconsistent total.
#include "testdata.h"

#include <QtTest>

#include <cmath>

using namespace trainmem;

namespace {

void checkSegments(const Segments& g, const char* what)
{
    // Every field of Segments (its static_assert counts them): the adapters and the recurrent state too.
    const double parts[] = {g.weights, g.gradients,      g.master, g.optimizer, g.adapters,  g.activations,
                            g.kvCache, g.recurrentState, g.logits, g.workspace, g.framework, g.fragmentation};
    static_assert(sizeof(parts) == sizeof(Segments), "checkSegments reads every field of Segments");
    double sum = 0;
    for (double p : parts) {
        QVERIFY2(std::isfinite(p), what);
        QVERIFY2(p >= 0, what);
        sum += p;
    }
    QVERIFY2(std::isfinite(g.total()), what);
    QVERIFY2(std::abs(g.total() - sum) <= 1e-9 * std::max(1.0, sum), what);
}

} // namespace

class TestExtremes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sizeOnlyGrid()
    {
        const GpuSpec gpu = testdata::gpu("H100");
        int cases = 0;
        for (int64_t params : {int64_t(1), int64_t(1000), int64_t(7'000'000'000), int64_t(10'000'000'000'000),
                               int64_t(1'000'000'000'000'000)}) {
            for (int64_t seq : {int64_t(1), int64_t(512), int64_t(1048576), kMaxSeq}) {
                for (int64_t batch : {int64_t(1), int64_t(1024), kMaxMicroBatch}) {
                    for (Mode mode : {Mode::Training, Mode::Inference}) {
                        for (int c = 0; c < 3; ++c) {
                            for (Precision p : {Precision::FP32, Precision::BF16Mixed, Precision::FP8Mixed}) {
                                for (int64_t gpus : {int64_t(1), kMaxGpus}) {
                                    Scenario s = testdata::sized(params, params / 2 + 1);
                                    s.training.seqLen = seq;
                                    s.training.microBatch = batch;
                                    s.training.mode = mode;
                                    s.training.checkpointing = Checkpointing(c);
                                    s.training.precision = p;
                                    s.hardware.gpus = gpus;
                                    s.hardware.zeroStage = 3;
                                    const Breakdown b = account(s, gpu);
                                    checkSegments(b.perGpu, "per GPU");
                                    checkSegments(b.singleGpu, "single GPU");
                                    QVERIFY(std::isfinite(b.modelStateBytes));
                                    QVERIFY(b.minGpusForModelState >= 1);
                                    QVERIFY(b.minGpusToFit >= 0);
                                    QVERIFY(std::isfinite(b.tax.total()) && b.tax.total() >= 0);
                                    ++cases;
                                }
                            }
                        }
                    }
                }
            }
        }
        QCOMPARE(cases, 5 * 4 * 3 * 2 * 3 * 3 * 2);
    }

    void tenTrillionAtOneMillionContextBatch1024()
    {
        Scenario s = testdata::sized(10'000'000'000'000);
        s.training.seqLen = 1048576;
        s.training.microBatch = 1024;
        s.training.flashAttention = false; // the s² term at its largest
        const Breakdown b = account(s, testdata::gpu("H100"));
        checkSegments(b.perGpu, "10T");
        QCOMPARE(b.modelStateBytes, 1.6e14);
        QVERIFY(!b.fits);
    }

    void everyPresetEveryMode()
    {
        const std::vector<std::string> ids = testdata::presetIds();
        QCOMPARE(ids.size(), size_t(17)); // every built-in preset, the 2026 hybrids and latent MoE included
        for (const std::string& name : ids) {
            const char* id = name.c_str();
            Scenario s = testdata::preset(id);
            const GpuSpec gpu = testdata::gpu("H100");
            for (int c = 0; c < 3; ++c) {
                s.training.checkpointing = Checkpointing(c);
                for (bool flash : {true, false}) {
                    s.training.flashAttention = flash;
                    checkSegments(account(s, gpu).perGpu, id);
                }
            }
            const ContextSweep sw = sweepContext(s, gpu);
            QCOMPARE(sw.seq.size(), size_t(45));
            QCOMPARE(sw.seq.front(), 512.0);
            QCOMPARE(sw.seq.back(), 1048576.0);
            for (const auto& curve : sw.totalPerGpu) {
                QCOMPARE(curve.size(), sw.seq.size());
                for (size_t i = 0; i < curve.size(); ++i) {
                    QVERIFY(std::isfinite(curve[i]) && curve[i] > 0);
                    if (i > 0)
                        QVERIFY2(curve[i] >= curve[i - 1], id); // memory never falls as context grows
                }
            }
        }
    }

    // A latent MoE at the edges a scenario file allows: the latent width at its bound, 65,536 experts, the longest
    // context, on one GPU and on the most; every term stays finite.
    void latentMoeAtItsBoundsStaysFinite()
    {
        Scenario s = testdata::preset("nemotron-3-super-120b-a12b");
        Architecture& a = s.model.architecture;
        a.moe.experts = 65536;
        a.moe.activeExperts = 65536;
        for (const int64_t latent : {int64_t(1), kMaxHidden}) {
            a.moe.latent = latent;
            for (const Mode mode : {Mode::Training, Mode::Inference}) {
                s.training.mode = mode;
                s.training.seqLen = kMaxSeq;
                for (const int64_t gpus : {int64_t(1), kMaxGpus}) {
                    s.hardware.gpus = gpus;
                    s.hardware.tp = 1;
                    s.hardware.ep = 1;
                    const Breakdown b = account(s, testdata::gpu("H100"));
                    checkSegments(b.perGpu, "latent MoE per GPU");
                    checkSegments(b.singleGpu, "latent MoE one GPU");
                    QVERIFY(std::isfinite(b.tax.total()) && b.tax.total() >= 0);
                }
            }
        }
    }

    void architectureWithoutHiddenSizeGivesNoNaN()
    {
        // fuzz_scenario found it (CI, issue 28's fresh-clone run): GPT-3's architecture with "hidden" misspelt
        // parses with errors and hidden 0, and the Korthikanti form s·b·h·(34 + 5·a·s/h) gave 0·∞ = NaN. The
        // window and the fuzzer account such a scenario while its errors are shown, so every term stays finite.
        const ScenarioParse p = parseScenario(
            R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 96, "hidYden": 12288,
                "heads": 96, "kv_heads": 96, "ffn_kind": "gelu", "vocab": 50257, "dropout": true}},
                "training": {"checkpointing": "none", "flash_attention": false}})",
            "hidYden.json");
        QVERIFY(!p.ok());
        QCOMPARE(p.scenario.model.architecture.hidden, int64_t(0));
        const Breakdown b = account(p.scenario, GpuSpec{});
        checkSegments(b.perGpu, "per GPU");
        checkSegments(b.singleGpu, "one GPU");
    }

    // The context chart's sweep evaluates each stage's model state once and only the tapes per point
    // (sweepContext, evaluateTokenTerms): every point, in every mode, must be what account() gives for that context
    // and mode, over the recipes and layouts that change which terms hold what.
    void sweepPointIsAccountAtThatPoint_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("variant");
        for (const char* id : {"chapter-7b", "llama3-70b", "deepseek-v3", "gpt-oss-120b", "kimi-k2", "mixtral-8x7b",
                               "llama3.1-405b", "gpt3-175b"})
            QTest::addRow("%s", id) << id << "";
        for (const char* v : {"lora", "qlora", "serving", "zero3-offload", "cp", "pp-tied", "paged-compile-offload"})
            QTest::addRow("llama3-70b %s", v) << "llama3-70b" << v;
        QTest::addRow("deepseek-v3 layout") << "deepseek-v3"
                                            << "layout";
        QTest::addRow("deepseek-v3 uneven") << "deepseek-v3"
                                            << "uneven";
        QTest::addRow("gpt-oss-120b serving") << "gpt-oss-120b"
                                              << "serving";
        QTest::addRow("llama3-70b per-op") << "llama3-70b"
                                           << "per-op";
        QTest::addRow("deepseek-v3 per-op") << "deepseek-v3"
                                            << "per-op";
    }

    void sweepPointIsAccountAtThatPoint()
    {
        QFETCH(QString, preset);
        QFETCH(QString, variant);
        Scenario s = testdata::preset(preset.toStdString());
        if (variant == "lora" || variant == "qlora") {
            s.training.fineTune = variant == "lora" ? FineTune::Lora : FineTune::QLora;
            s.hardware.gpus = 2;
        } else if (variant == "serving") {
            s.training.mode = Mode::Inference;
        } else if (variant == "per-op") {
            s.training.checkpointing = Checkpointing::PerOp; // the scenario's own curve, beside the three
        } else if (variant == "zero3-offload") {
            s.hardware.gpus = 8;
            s.hardware.zeroStage = 3;
            s.hardware.offload = Offload::OptimizerParams;
        } else if (variant == "cp") {
            s.hardware.gpus = 16;
            s.hardware.tp = 4;
            s.hardware.cp = 2;
        } else if (variant == "pp-tied") {
            s.model.architecture.tiedEmbeddings = true;
            s.hardware.gpus = 32;
            s.hardware.pp = 4;
            s.training.gradAccum = 2;
        } else if (variant == "paged-compile-offload") {
            s.training.pagedOptimizer = true;
            s.training.compile = true;
            s.training.activationOffload = true;
            s.training.optimizerInBackward = true;
        } else if (variant == "layout") {
            // Megatron-LM's own DeepSeek-V3 layout (docs/user-guide/features/pipeline_parallel_layout.md at d98e8a6):
            // each middle rank holds its own layers, one of them the MTP layer.
            s = testdata::deepseekV3OnPipeline(16);
            s.hardware.vpp = 2;
            QCOMPARE(setPipelineLayout(s.hardware.split, "Et*3|(tt|)*29,m|L"), std::string());
        } else if (variant == "uneven") {
            s = testdata::deepseekV3OnPipeline(16, 3, 2);
        }
        const FieldErrors errs = validateScenario(s, "");
        QVERIFY2(errs.empty(), errs.empty() ? "" : errs.front().message.c_str());
        const GpuSpec gpu = testdata::gpu("H100");
        const ContextSweep sw = sweepContext(s, gpu, 2);
        for (size_t i = 0; i < sw.seq.size(); ++i) {
            for (int c = 0; c < 3; ++c) {
                Scenario x = s;
                x.training.seqLen = int64_t(sw.seq[i]);
                x.training.checkpointing = Checkpointing(c);
                const Segments g = account(x, gpu).perGpu;
                QCOMPARE(sw.totalPerGpu[size_t(c)][i], g.total());
                QCOMPARE(sw.activationsPerGpu[size_t(c)][i], g.activations + g.logits + g.kvCache + g.recurrentState);
            }
        }
        // Per-op checkpointing's curve is there exactly when it is the scenario's mode.
        const bool perOp = s.training.checkpointing == Checkpointing::PerOp;
        QCOMPARE(sw.perOpTotalPerGpu.size(), perOp ? sw.seq.size() : size_t(0));
        QCOMPARE(sw.perOpActivationsPerGpu.size(), sw.perOpTotalPerGpu.size());
        for (size_t i = 0; i < sw.perOpTotalPerGpu.size(); ++i) {
            Scenario x = s;
            x.training.seqLen = int64_t(sw.seq[i]);
            const Segments g = account(x, gpu).perGpu;
            QCOMPARE(sw.perOpTotalPerGpu[i], g.total());
            QCOMPARE(sw.perOpActivationsPerGpu[i], g.activations + g.logits + g.kvCache + g.recurrentState);
        }
        // The crossover and the first context that does not fit are the first whole contexts (whole 2·cp chunks
        // under context parallel) where each holds: it holds there and not one step before.
        const int64_t unit = s.hardware.cp > 1 ? 2 * s.hardware.cp : 1;
        auto tape = [](const Segments& g) { return g.activations + g.logits + g.kvCache + g.recurrentState; };
        auto at = [&](double seq) {
            Scenario x = s;
            x.training.seqLen = int64_t(seq);
            return account(x, gpu).perGpu;
        };
        if (sw.crossoverSeq && *sw.crossoverSeq > kSweepMinSeq) {
            QVERIFY(tape(at(*sw.crossoverSeq)) >= at(*sw.crossoverSeq).modelState());
            QVERIFY(tape(at(*sw.crossoverSeq - unit)) < at(*sw.crossoverSeq - unit).modelState());
        }
        if (sw.diesFromSeq && *sw.diesFromSeq > kSweepMinSeq) {
            QVERIFY(at(*sw.diesFromSeq).total() > gpu.memoryBytes);
            QVERIFY(at(*sw.diesFromSeq - unit).total() <= gpu.memoryBytes);
        }
        QVERIFY(sw.crossoverSeq || sw.diesFromSeq || s.training.mode == Mode::Inference);
    }

    void sweepMatchesAccount()
    {
        Scenario s = testdata::preset("llama3-8b");
        const GpuSpec gpu = testdata::gpu("H100");
        const ContextSweep sw = sweepContext(s, gpu);
        for (size_t i = 0; i < sw.seq.size(); i += 8) {
            for (int c = 0; c < 3; ++c) {
                Scenario x = s;
                x.training.seqLen = int64_t(sw.seq[i]);
                x.training.checkpointing = Checkpointing(c);
                QCOMPARE(sw.totalPerGpu[size_t(c)][i], account(x, gpu).perGpu.total());
            }
        }
        // The crossover: activations + logits pass the model state there and not before.
        QVERIFY(sw.crossoverSeq.has_value());
        Scenario at = s;
        at.training.seqLen = int64_t(*sw.crossoverSeq);
        const Breakdown b = account(at, gpu);
        QVERIFY(b.perGpu.activations + b.perGpu.logits >= b.perGpu.modelState());
        at.training.seqLen = int64_t(*sw.crossoverSeq * 0.98);
        const Breakdown before = account(at, gpu);
        QVERIFY(before.perGpu.activations + before.perGpu.logits < before.perGpu.modelState());
    }
};

QTEST_GUILESS_MAIN(TestExtremes)
#include "tst_extremes.moc"
