// Formula drill-down: every explained value is the value account() computes, and the GPT-3 activations
// read as Korthikanti's formula with the numbers substituted.
#include "explain.h"
#include "testdata.h"
#include "units.h"

#include <QtTest>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

namespace {

Scenario withLayout(Scenario s, int64_t gpus, int zero, int64_t tp, int64_t pp, int64_t ep)
{
    s.hardware.gpus = gpus;
    s.hardware.zeroStage = zero;
    s.hardware.tp = tp;
    s.hardware.pp = pp;
    s.hardware.ep = ep;
    return s;
}

Scenario with(Scenario s, Checkpointing c, bool flash, int64_t seq)
{
    s.training.checkpointing = c;
    s.training.flashAttention = flash;
    s.training.seqLen = seq;
    return s;
}

Scenario inference(Scenario s)
{
    s.training.mode = Mode::Inference;
    return s;
}

} // namespace

class TestExplain : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everySegmentEqualsAccount_data()
    {
        QTest::addColumn<Scenario>("scenario");
        using C = Checkpointing;
        const Scenario gpt3 = testdata::preset("gpt3-175b");
        QTest::newRow("GPT-3 no checkpointing, no flash (Korthikanti closed form)") << gpt3;
        QTest::newRow("GPT-3 selective") << with(gpt3, C::Selective, false, 2048);
        QTest::newRow("GPT-3 full") << with(gpt3, C::Full, false, 2048);
        QTest::newRow("GPT-3 flash attention") << with(gpt3, C::None, true, 2048);
        QTest::newRow("GPT-3 on 64 GPUs tp 8 pp 4 ZeRO-1") << withLayout(gpt3, 64, 1, 8, 4, 1);
        QTest::newRow("chapter 7B size-only") << testdata::preset("chapter-7b");
        QTest::newRow("7B ZeRO-3 on 8 GPUs") << withLayout(testdata::preset("chapter-7b"), 8, 3, 1, 1, 1);
        QTest::newRow("Llama 3 8B at 32k, flash") << with(testdata::preset("llama3-8b"), C::None, true, 32768);
        QTest::newRow("Llama 3 70B tp 8 without sequence parallel") << [] {
            Scenario s = withLayout(testdata::preset("llama3-70b"), 16, 2, 8, 1, 1);
            s.training.sequenceParallel = false;
            return s;
        }();
        QTest::newRow("Mixtral ep 8 ZeRO-3 on 16 GPUs") << withLayout(testdata::preset("mixtral-8x7b"), 16, 3, 1, 1, 8);
        QTest::newRow("DeepSeek-V3 preset (pp 16, ep 64, fp8)") << testdata::preset("deepseek-v3");
        QTest::newRow("DeepSeek-V3 full checkpointing pp 8")
            << with(withLayout(testdata::preset("deepseek-v3"), 64, 1, 1, 8, 8), C::Full, true, 4096);
        QTest::newRow("2.4T MoE size-only") << testdata::preset("qwen3.8-book");
        QTest::newRow("inference Llama 3 70B tp 4")
            << inference(withLayout(testdata::preset("llama3-70b"), 4, 0, 4, 1, 1));
        QTest::newRow("inference Llama 3 70B on 4 GPUs, no layout: weights split by tp")
            << inference(withLayout(testdata::preset("llama3-70b"), 4, 0, 1, 1, 1));
        QTest::newRow("inference DeepSeek-V3 (MLA KV cache)")
            << inference(withLayout(testdata::preset("deepseek-v3"), 16, 0, 1, 2, 8));
        // Serving formats (issue 29 §3): the quantised linears and the 16-bit rest, split by tp, pp and ep.
        for (const InferenceWeights w :
             {InferenceWeights::INT8, InferenceWeights::INT4, InferenceWeights::MXFP4, InferenceWeights::NVFP4}) {
            Scenario moe = inference(withLayout(testdata::preset("gpt-oss-120b"), 16, 0, 2, 2, 4));
            moe.training.inferenceWeights = w;
            QTest::addRow("serving gpt-oss-120b %s tp 2 pp 2 ep 4", toString(w)) << moe;
            Scenario dense = inference(withLayout(testdata::preset("llama3-8b"), 2, 0, 1, 2, 1));
            dense.training.inferenceWeights = w;
            QTest::addRow("serving Llama 3 8B %s pp 2", toString(w)) << dense;
        }
        Scenario sized = inference(testdata::preset("chapter-7b"));
        sized.training.inferenceWeights = InferenceWeights::NVFP4;
        QTest::newRow("serving the size-only 7B nvfp4") << sized;
    }
    void everySegmentEqualsAccount()
    {
        QFETCH(Scenario, scenario);
        const GpuSpec gpu = testdata::gpu("H100");
        const Breakdown b = account(scenario, gpu);
        double sum = 0;
        for (SegmentKind k : kAllSegmentKinds) {
            const Explanation e = explainSegment(k, scenario, b);
            const double expected = segmentBytes(b.perGpu, k);
            QVERIFY2(std::abs(e.value - expected) <= 1e-12 * std::max(1.0, expected),
                     qPrintable(QStringLiteral("%1: explained %2, account %3")
                                    .arg(QString::fromStdString(segmentKindName(k)))
                                    .arg(e.value, 0, 'f', 0)
                                    .arg(expected, 0, 'f', 0)));
            QCOMPARE(QString::fromStdString(e.result), QString::fromStdString(formatBytes(expected)));
            QVERIFY(!e.formula.empty());
            QVERIFY(!e.substituted.empty());
            QVERIFY(!e.assumptions.empty());
            QVERIFY(!e.source.empty());
            sum += e.value;
        }
        testdata::compareBytes(sum, b.perGpu.total(), 1e-12);
    }

    void gpt3ActivationsAreKorthikanti_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("formula");
        QTest::addColumn<QString>("substituted");
        QTest::addColumn<double>("bytes");
        QTest::newRow("none: s·b·h·(34 + 5·a·s/h) × L")
            << int(Checkpointing::None) << "s·b·h·(34 + 5·a·s/h) × L"
            << "2048·1·12288·(34 + 5·96·2048/12288) × 96" << 2048.0 * 12288 * (34 + 5.0 * 96 * 2048 / 12288) * 96;
        QTest::newRow("selective: 34·s·b·h × L") << int(Checkpointing::Selective) << "34·s·b·h × L"
                                                 << "34·2048·1·12288 × 96" << 34.0 * 2048 * 12288 * 96;
    }
    void gpt3ActivationsAreKorthikanti()
    {
        QFETCH(int, mode);
        QFETCH(QString, formula);
        QFETCH(QString, substituted);
        QFETCH(double, bytes);
        Scenario s = testdata::preset("gpt3-175b");
        s.training.checkpointing = static_cast<Checkpointing>(mode);
        const Breakdown b = account(s, testdata::gpu("A100-80GB"));
        const Explanation e = explainSegment(SegmentKind::Activations, s, b);
        QCOMPARE(QString::fromStdString(e.formula), formula);
        QCOMPARE(QString::fromStdString(e.substituted), substituted);
        testdata::compareBytes(e.value, bytes, 1e-12);
        testdata::compareBytes(b.perGpu.activations, bytes, 1e-12);
        QVERIFY(QString::fromStdString(e.source).contains(QStringLiteral("Korthikanti")));
    }

    void zeroThreeWeightsFormula()
    {
        Scenario s = withLayout(testdata::sized(7'000'000'000), 8, 3, 1, 1, 1);
        const Breakdown b = account(s, testdata::gpu("H100"));
        const Explanation e = explainSegment(SegmentKind::Weights, s, b);
        QCOMPARE(QString::fromStdString(e.formula), QStringLiteral("b_w · P/d"));
        QCOMPARE(QString::fromStdString(e.substituted), QStringLiteral("2 B × 7,000,000,000/8"));
        QCOMPARE(e.value, 1.75e9);
        const Explanation opt = explainSegment(SegmentKind::Optimizer, s, b);
        QCOMPARE(opt.value, 7e9); // 2 slots × 4 B × 7B / 8
    }

    void curvesEqualTheSweep_data()
    {
        QTest::addColumn<int>("curve");
        QTest::newRow("no checkpointing") << int(CurveKind::NoCheckpointing);
        QTest::newRow("selective") << int(CurveKind::Selective);
        QTest::newRow("full") << int(CurveKind::Full);
        QTest::newRow("model-state floor") << int(CurveKind::ModelStateFloor);
        QTest::newRow("capacity") << int(CurveKind::Capacity);
        QTest::newRow("per-op") << int(CurveKind::PerOp);
    }
    void curvesEqualTheSweep()
    {
        QFETCH(int, curve);
        Scenario s = testdata::preset("llama3-8b");
        s.training.seqLen = 4096; // a sweep point: 512 · 2³
        const GpuSpec gpu = testdata::gpu("H100");
        const ContextSweep sweep = sweepContext(s, gpu);
        const auto at = std::find(sweep.seq.begin(), sweep.seq.end(), 4096.0);
        QVERIFY(at != sweep.seq.end());
        const size_t i = static_cast<size_t>(at - sweep.seq.begin());
        const Explanation e = explainCurve(static_cast<CurveKind>(curve), s, gpu);
        double expected = 0;
        if (curve <= 2)
            expected = sweep.totalPerGpu[static_cast<size_t>(curve)][i];
        else if (curve == int(CurveKind::PerOp)) // the sweep draws per-op's curve when it is the scenario's mode
            expected =
                sweepContext(with(s, Checkpointing::PerOp, s.training.flashAttention, 4096), gpu).perOpTotalPerGpu[i];
        else if (curve == int(CurveKind::ModelStateFloor))
            expected = sweep.modelStatePerGpu;
        else
            expected = sweep.capacity;
        testdata::compareBytes(e.value, expected, 1e-12);
        QVERIFY(!e.formula.empty() && !e.source.empty() && !e.assumptions.empty());
    }

    void trainingHasNoKvCache()
    {
        const Scenario s = testdata::preset("chapter-7b");
        const Explanation e = explainSegment(SegmentKind::KvCache, s, account(s, testdata::gpu("H100")));
        QCOMPARE(e.value, 0.0);
        QVERIFY(QString::fromStdString(e.assumptions).contains(QStringLiteral("activation tape")));
    }
};

QTEST_GUILESS_MAIN(TestExplain)
#include "tst_explain.moc"
