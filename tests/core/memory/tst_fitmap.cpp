// Issue 11 §3, the fit map: GPUs needed over model size × context. Every cell must be what the full
// core says for the same scenario (account()'s Breakdown::minGpusToFit), on every cell of a smaller grid
// for real presets and for each recipe, checkpointing, layout and mode that changes the terms; and the
// map must say what the chapter says: Llama 2 7B's 112 GB of model state does not fit one 80 GB H100.
#include "testdata.h"

#include "fitmap.h"
#include "units.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

namespace {

// Sizes three per decade (1B, 2.15B, 4.64B, 10B … 10T) and contexts two per doubling (512, 724, 1k … 1M).
FitMapAxes smallAxes(const Scenario& s)
{
    return fitMapAxes(s.hardware.cp, 3, 2);
}

QString cellName(const FitMap& map, size_t c, size_t r)
{
    return QStringLiteral("%1 params at %2 tokens")
        .arg(QString::fromStdString(formatCount(static_cast<double>(map.axes.params[c]))))
        .arg(map.axes.seq[r]);
}

Scenario withGpu(Scenario s, const char* gpu)
{
    s.hardware.gpu = gpu;
    return s;
}

} // namespace

class TestFitMap : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyCellIsAccountsMinGpusToFit_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::newRow("llama2-7b: bf16-mixed AdamW, flash, one H100") << testdata::preset("llama2-7b");
        QTest::newRow("llama3-70b: vocab 128k, GQA") << testdata::preset("llama3-70b");
        QTest::newRow("mixtral-8x7b: a mixture of experts keeps its active share") << testdata::preset("mixtral-8x7b");
        QTest::newRow("deepseek-v3: fp8-mixed, selective, 2048 H800s at pp 16, ZeRO-1")
            << testdata::preset("deepseek-v3");
        Scenario noFlash = testdata::sized(7'000'000'000);
        noFlash.training.flashAttention = false;
        QTest::newRow("no flash attention: the 5·a·s²·b scores") << noFlash;
        Scenario selective = noFlash;
        selective.training.checkpointing = Checkpointing::Selective;
        QTest::newRow("selective checkpointing") << selective;
        Scenario full = testdata::sized(7'000'000'000);
        full.training.checkpointing = Checkpointing::Full;
        full.training.microBatch = 4;
        QTest::newRow("full checkpointing, micro-batch 4") << full;
        Scenario zero1 = testdata::preset("llama2-7b");
        zero1.hardware.gpus = 8;
        zero1.hardware.zeroStage = 1;
        QTest::newRow("ZeRO-1 on 8 GPUs: the search still counts ZeRO-3's gathered layer") << zero1;
        Scenario tpcp = testdata::preset("llama3-70b");
        tpcp.hardware.gpus = 64;
        tpcp.hardware.tp = 8;
        tpcp.hardware.cp = 4;
        tpcp.hardware.zeroStage = 3;
        tpcp.training.sequenceParallel = true;
        QTest::newRow("tp 8, sequence parallel, cp 4, ZeRO-3 on 64 GPUs") << tpcp;
        Scenario pp = testdata::preset("llama2-7b");
        pp.hardware.gpus = 32;
        pp.hardware.pp = 8;
        pp.training.gradAccum = 4;
        QTest::newRow("pp 8, 4 micro-batches: the busiest stage") << pp;
        Scenario lora = testdata::preset("llama2-7b");
        lora.training.fineTune = FineTune::Lora;
        QTest::newRow("LoRA: bytes per parameter from the one-GPU view") << lora;
        Scenario qlora = lora;
        qlora.training.fineTune = FineTune::QLora;
        qlora.training.loraTargets = LoraTargets::All;
        QTest::newRow("QLoRA on every linear") << qlora;
        Scenario offload = testdata::preset("llama2-7b");
        offload.hardware.gpus = 8;
        offload.hardware.zeroStage = 3;
        offload.hardware.offload = Offload::OptimizerParams;
        QTest::newRow("ZeRO-3 with optimizer+params offloaded") << offload;
        Scenario fp32 = testdata::sized(7'000'000'000);
        fp32.training.precision = Precision::FP32;
        fp32.training.optimizer = Optimizer::SGD;
        QTest::newRow("fp32 with plain SGD") << fp32;
        Scenario serve = testdata::preset("llama3-70b");
        serve.training.mode = Mode::Inference;
        serve.training.inferenceWeights = InferenceWeights::INT4;
        QTest::newRow("inference at int4: the tensor-parallel search") << serve;
        QTest::newRow("a 24 GB RTX 4090") << withGpu(testdata::sized(7'000'000'000), "RTX4090");
    }

    void everyCellIsAccountsMinGpusToFit()
    {
        QFETCH(Scenario, scenario);
        const GpuCatalog catalog = testdata::gpus();
        const GpuSpec* gpu = catalog.find(scenario.hardware.gpu);
        QVERIFY2(gpu, scenario.hardware.gpu.c_str());
        const FitMap map = fitMap(scenario, *gpu, smallAxes(scenario));
        QCOMPARE(map.columns(), size_t(13));
        QVERIFY(map.rows() >= 12);
        std::array<int, kFitBandCount> seen{};
        for (size_t c = 0; c < map.columns(); ++c) {
            for (size_t r = 0; r < map.rows(); ++r) {
                const Breakdown b = account(fitMapScenario(scenario, map.axes.params[c], map.axes.seq[r]), *gpu);
                QVERIFY2(map.gpusAt(c, r) == b.minGpusToFit, qPrintable(QStringLiteral("%1: map %2, account() %3")
                                                                            .arg(cellName(map, c, r))
                                                                            .arg(map.gpusAt(c, r))
                                                                            .arg(b.minGpusToFit)));
                // 0 is "never" on these grids: none needs more than kMaxGpus (10M) GPUs.
                QCOMPARE(map.bandAt(c, r), fitBand(b.minGpusToFit, b.minGpusToFit == 0));
                ++seen[static_cast<size_t>(map.bandAt(c, r))];
            }
        }
        // Not a trivial map: more than one band on each.
        QVERIFY2(std::count_if(seen.begin(), seen.end(), [](int n) { return n > 0; }) >= 2, "every cell in one band");
    }

    // Every row sets its own context, so the map does not depend on the scenario's: the Fit map dock keeps its grid
    // on a context-slider step (FitMapPanel::recompute) and relies on this.
    void theMapDoesNotDependOnTheScenariosContext()
    {
        for (const char* id : {"llama2-7b", "deepseek-v3", "gpt-oss-120b"}) {
            Scenario s = testdata::preset(id);
            const GpuSpec gpu = testdata::gpu("H100");
            s.training.seqLen = 1024;
            const FitMap a = fitMap(s, gpu);
            s.training.seqLen = 131072;
            const FitMap b = fitMap(s, gpu);
            QVERIFY2(a.gpus == b.gpus && a.bands == b.bands && a.oneGpuRows == b.oneGpuRows, id);
        }
    }

    // The chapter: 2 + 2 + 4 + 4 + 4 = 16 B per parameter, 6.74B × 16 B = 107.8 GB (the chapter rounds to 7B and
    // 112 GB) of model state on an 80 GB H100. The map's 7B cell at 4k needs 2 GPUs, as the verdict says.
    void llama2At4kNeedsTwoH100s()
    {
        const Scenario s = testdata::preset("llama2-7b");
        const GpuSpec h100 = testdata::gpu("H100");
        const Breakdown b = account(s, h100);
        QCOMPARE(b.bytesPerParam, 16.0);
        QVERIFY(b.modelStateBytes > h100.memoryBytes);
        QCOMPARE(b.minGpusToFit, int64_t(2)); // the verdict's "it needs 2 GPUs with ZeRO-3"
        const FitMap map = fitMap(s, h100, FitMapAxes{{6'738'415'616, 7'000'000'000}, {4096}});
        QCOMPARE(map.gpusAt(0, 0), int64_t(2));
        QCOMPARE(map.gpusAt(1, 0), int64_t(2));
        QCOMPARE(map.bandAt(0, 0), FitBand::UpTo8);
        QCOMPARE(map.oneGpuRows[0], size_t(0));
        // On the default axes: the column nearest 6.74B on the log axis (10^(12/15)·1B = 6.31B) at 4k.
        const FitMap whole = fitMap(s, h100);
        size_t col = 0;
        for (size_t c = 1; c < whole.columns(); ++c)
            if (std::fabs(std::log(double(whole.axes.params[c]) / 6.738e9)) <
                std::fabs(std::log(double(whole.axes.params[col]) / 6.738e9)))
                col = c;
        QCOMPARE(col, size_t(12));
        const auto row = size_t(std::find(whole.axes.seq.begin(), whole.axes.seq.end(), 4096) - whole.axes.seq.begin());
        QVERIFY(col < whole.columns() && row < whole.rows());
        QCOMPARE(whole.bandAt(col, row), FitBand::UpTo8);
        QVERIFY(whole.gpusAt(col, row) >= 2);
    }

    // 1B at 512 tokens: 16 GB of model state and a small tape, on one H100. 1T (the size rule's 172 layers of
    // h = 22016): 16 TB of model state is at least 16e12 / 80e9 = 200 H100s before any activation, so the 65–1024
    // band with full checkpointing; without it the tape alone, 172 · s·b·(16h + 6f + 128) ≈ 497 GB at 4k, exceeds
    // one GPU however many shard the model state: never.
    void anchorsAtTheCorners()
    {
        Scenario s = testdata::preset("llama2-7b");
        const GpuSpec h100 = testdata::gpu("H100");
        const FitMapAxes axes{{1'000'000'000, 1'000'000'000'000}, {512, 4096}};
        const FitMap none = fitMap(s, h100, axes);
        QCOMPARE(none.gpusAt(0, 0), int64_t(1));
        QCOMPARE(none.bandAt(0, 0), FitBand::One);
        QCOMPARE(none.oneGpuRows[0], size_t(2)); // 1B at 4k fits too
        QCOMPARE(none.bandAt(1, 1), FitBand::Never);
        const Breakdown tape = account(fitMapScenario(s, 1'000'000'000'000, 4096), h100);
        QVERIFY(tape.perGpu.activations > 4.9e11 && tape.perGpu.activations < 5.0e11);
        s.training.checkpointing = Checkpointing::Full;
        const FitMap full = fitMap(s, h100, axes);
        QVERIFY(full.gpusAt(1, 1) >= 200);
        QVERIFY(full.gpusAt(1, 1) <= 1024);
        QCOMPARE(full.bandAt(1, 1), FitBand::UpTo1024);
        QCOMPARE(full.oneGpuRows[1], size_t(0));
    }

    // Without flash attention a 7B model's scores at 1M tokens, 5·a·s²·b = 5·32·2⁴⁰ B ≈ 176 TB a layer, exceed any
    // GPU by themselves: never, however many GPUs shard the model state.
    void scoresAtLongContextNeverFit()
    {
        Scenario s = testdata::sized(7'000'000'000);
        s.training.flashAttention = false;
        const GpuSpec h100 = testdata::gpu("H100");
        const FitMap map = fitMap(s, h100, FitMapAxes{{7'000'000'000}, {4096, 1'048'576}});
        QCOMPARE(map.bandAt(0, 1), FitBand::Never);
        QCOMPARE(map.gpusAt(0, 1), int64_t(0));
        QVERIFY(map.bandAt(0, 0) != FitBand::Never);
        const GpusToFit n = gpusToFit(resolveModel(fitMapModel(resolveModel(s.model), 7'000'000'000)),
                                      fitMapScenario(s, 7'000'000'000, 1'048'576), h100);
        QVERIFY(n.never);
    }

    void defaultAxes()
    {
        const FitMapAxes a = fitMapAxes();
        QCOMPARE(a.params.size(), size_t(61)); // 15 per decade over 4 decades
        QCOMPARE(a.params.front(), int64_t(1'000'000'000));
        QCOMPARE(a.params[15], int64_t(10'000'000'000));
        QCOMPARE(a.params.back(), int64_t(10'000'000'000'000));
        QCOMPARE(a.seq.size(), size_t(45)); // 4 per doubling over 11 doublings
        QCOMPARE(a.seq.front(), int64_t(512));
        QCOMPARE(a.seq.back(), int64_t(1'048'576));
        for (int64_t tick : {4096, 32768, 262144})
            QVERIFY(std::find(a.seq.begin(), a.seq.end(), tick) != a.seq.end());
        // Under context parallel 8 every context is a multiple of 16, still ascending; under cp 256 (chunks of 512)
        // the short rows repeat 512 and 1024 rather than move: every row stays at its place on the axis.
        const FitMapAxes cp = fitMapAxes(8);
        for (size_t i = 0; i < cp.seq.size(); ++i) {
            QCOMPARE(cp.seq[i] % 16, int64_t(0));
            if (i > 0)
                QVERIFY(cp.seq[i] > cp.seq[i - 1]);
        }
        const FitMapAxes wide = fitMapAxes(256);
        QCOMPARE(wide.seq.size(), size_t(45));
        QCOMPARE(wide.seq[1], int64_t(512)); // 609 rounds to one chunk
        QCOMPARE(wide.seq[4], int64_t(1024));
        QCOMPARE(wide.seq.back(), int64_t(1'048'576));
    }

    void bands_data()
    {
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<bool>("never");
        QTest::addColumn<int>("band");
        QTest::newRow("1 GPU") << qint64(1) << false << int(FitBand::One);
        QTest::newRow("2 is a node") << qint64(2) << false << int(FitBand::UpTo8);
        QTest::newRow("8 is a node") << qint64(8) << false << int(FitBand::UpTo8);
        QTest::newRow("9") << qint64(9) << false << int(FitBand::UpTo64);
        QTest::newRow("64") << qint64(64) << false << int(FitBand::UpTo64);
        QTest::newRow("65") << qint64(65) << false << int(FitBand::UpTo1024);
        QTest::newRow("1024") << qint64(1024) << false << int(FitBand::UpTo1024);
        QTest::newRow("1025 is more") << qint64(1025) << false << int(FitBand::More);
        QTest::newRow("0 with a working set that fits: beyond 10M GPUs") << qint64(0) << false << int(FitBand::More);
        QTest::newRow("0, the working set exceeds: never") << qint64(0) << true << int(FitBand::Never);
    }

    void bands()
    {
        QFETCH(qint64, gpus);
        QFETCH(bool, never);
        QFETCH(int, band);
        QCOMPARE(int(fitBand(gpus, never)), band);
    }

    // Dense stays dense; a mixture of experts keeps its active share (Mixtral: 12.88B of 46.70B, 27.6%).
    void columnsKeepTheActiveShare()
    {
        const ResolvedModel mixtral = resolveModel(testdata::preset("mixtral-8x7b").model);
        const ModelSpec at1T = fitMapModel(mixtral, 1'000'000'000'000);
        QVERIFY(!at1T.hasArchitecture);
        QCOMPARE(at1T.params, int64_t(1'000'000'000'000));
        QCOMPARE(at1T.activeParams, std::llround(1e12 * 12'879'925'248.0 / 46'702'792'704.0));
        const ModelSpec dense = fitMapModel(resolveModel(testdata::preset("llama3-70b").model), 5'000'000'000);
        QCOMPARE(dense.params, int64_t(5'000'000'000));
        QCOMPARE(dense.activeParams, int64_t(0));
    }

    // The boundary: each column's one-GPU rows are exactly its leading cells of band One.
    void boundaryFollowsTheCells()
    {
        const Scenario s = testdata::preset("llama2-7b");
        const FitMap map = fitMap(s, testdata::gpu("H100"));
        size_t columnsWithOne = 0;
        for (size_t c = 0; c < map.columns(); ++c) {
            const size_t k = map.oneGpuRows[c];
            for (size_t r = 0; r < k; ++r)
                QCOMPARE(map.bandAt(c, r), FitBand::One);
            if (k < map.rows())
                QVERIFY(map.bandAt(c, k) != FitBand::One);
            columnsWithOne += k > 0 ? 1 : 0;
        }
        // 1B … about 4B fit one H100 at short context (4B × 16 B = 64 GB), 7B no longer does.
        QVERIFY(columnsWithOne >= 9);
        QVERIFY(columnsWithOne <= 14);
        QVERIFY(map.oneGpuRows.front() > 0); // 1B at 512 tokens
    }

    // Bad input never gives NaN, overflow or a crash: 10T at 1M tokens without flash on a 24 GB GPU is "never",
    // a GPU of 0 bytes or a NaN fragmentation reserve is "never" everywhere, the largest sizes stay finite.
    void badInputIsNeverNotOverflow()
    {
        Scenario s = testdata::sized(7'000'000'000);
        s.training.flashAttention = false;
        const GpuSpec rtx = testdata::gpu("RTX4090");
        const FitMap huge = fitMap(s, rtx, FitMapAxes{{10'000'000'000'000}, {1'048'576}});
        QCOMPARE(huge.bandAt(0, 0), FitBand::Never);
        s.training.flashAttention = true;
        s.training.microBatch = kMaxMicroBatch;
        const FitMap batch = fitMap(s, rtx, FitMapAxes{{10'000'000'000'000}, {1'048'576}});
        QCOMPARE(batch.bandAt(0, 0), FitBand::Never);

        GpuSpec empty = rtx;
        empty.memoryBytes = 0;
        Scenario nan = testdata::sized(1'000'000'000);
        nan.hardware.fragmentation = std::numeric_limits<double>::quiet_NaN();
        for (const auto& [sc, g] : {std::pair{testdata::sized(1'000'000'000), empty}, {nan, rtx}}) {
            const FitMap m = fitMap(sc, g, fitMapAxes(1, 1, 1));
            for (FitBand b : m.bands)
                QCOMPARE(b, FitBand::Never);
        }
        // The largest model on the biggest layout the scenario allows: a count, never a wrapped one.
        Scenario big = testdata::sized(10'000'000'000'000);
        big.hardware.gpus = kMaxGpus;
        const FitMap m = fitMap(big, rtx, fitMapAxes(1, 1, 1));
        for (int64_t g : m.gpus)
            QVERIFY(g >= 0 && g <= kMaxGpus);
    }
};

QTEST_GUILESS_MAIN(TestFitMap)
#include "tst_fitmap.moc"
