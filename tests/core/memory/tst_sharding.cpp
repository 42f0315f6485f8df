// ZeRO, tensor, pipeline and expert parallelism: what each cut divides, and its tax.
#include "testdata.h"

#include <QtTest>

using namespace trainmem;

class TestSharding : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void zeroStages_data()
    {
        QTest::addColumn<int>("stage");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("gradients");
        QTest::addColumn<double>("master");
        QTest::addColumn<double>("optimizer");
        // 7B, bf16 mixed AdamW, 8 GPUs of data parallelism.
        QTest::newRow("ZeRO-0: everything replicated, 112 GB per GPU") << 0 << 14e9 << 14e9 << 28e9 << 56e9;
        QTest::newRow("ZeRO-1: master + moments / 8 -> 38.5 GB") << 1 << 14e9 << 14e9 << 3.5e9 << 7e9;
        QTest::newRow("ZeRO-2: + gradients / 8 -> 26.25 GB") << 2 << 14e9 << 1.75e9 << 3.5e9 << 7e9;
        QTest::newRow("ZeRO-3 (FSDP): + weights / 8 -> 14 GB") << 3 << 1.75e9 << 1.75e9 << 3.5e9 << 7e9;
    }
    void zeroStages()
    {
        QFETCH(int, stage);
        QFETCH(double, weights);
        QFETCH(double, gradients);
        QFETCH(double, master);
        QFETCH(double, optimizer);
        Scenario s = testdata::sized(7'000'000'000);
        s.hardware.gpus = 8;
        s.hardware.zeroStage = stage;
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.dataParallel, qint64(8));
        QCOMPARE(b.perGpu.weights, weights);
        QCOMPARE(b.perGpu.gradients, gradients);
        QCOMPARE(b.perGpu.master, master);
        QCOMPARE(b.perGpu.optimizer, optimizer);
        QCOMPARE(b.modelStateBytes, 112e9); // the whole model never shrinks
    }

    void dataParallelTax_data()
    {
        QTest::addColumn<int>("stage");
        QTest::addColumn<double>("bytes");
        // Ring all-reduce of bf16 gradients: 2·(N-1)/N·Ψ·2 bytes; ZeRO-3 is 1.5× that (ZeRO paper §7).
        QTest::newRow("ZeRO-0 all-reduce 24.5 GB") << 0 << 2 * 2 * 7e9 * 7 / 8;
        QTest::newRow("ZeRO-2 same volume as all-reduce") << 2 << 2 * 2 * 7e9 * 7 / 8;
        QTest::newRow("ZeRO-3 1.5x: 36.75 GB") << 3 << 1.5 * 2 * 2 * 7e9 * 7 / 8;
    }
    void dataParallelTax()
    {
        QFETCH(int, stage);
        QFETCH(double, bytes);
        Scenario s = testdata::sized(7'000'000'000);
        s.hardware.gpus = 8;
        s.hardware.zeroStage = stage;
        testdata::compareBytes(account(s, testdata::gpu("H100")).tax.dataParallel, bytes);
    }

    void tensorAndPipelineDivideTheModel()
    {
        Scenario s = testdata::sized(7'000'000'000);
        s.hardware.gpus = 2;
        s.hardware.tp = 2;
        const Breakdown tp = account(s, testdata::gpu("H100"));
        QCOMPARE(tp.perGpu.modelState(), 56e9);
        QVERIFY(tp.tax.tensorParallel > 0);
        QCOMPARE(tp.tax.dataParallel, 0.0);
        // Megatron: 4 all-reduces of 2·s·b·h per layer, ring factor 2(t-1)/t: 32 · 4 · 1 · 2·4096·4096.
        QCOMPARE(tp.tax.tensorParallel, 32.0 * 4 * 1 * 2 * 4096 * 4096);
        s.hardware.tp = 1;
        s.hardware.pp = 2;
        const Breakdown pp = account(s, testdata::gpu("H100"));
        QCOMPARE(pp.perGpu.modelState(), 56e9);
        QCOMPARE(pp.layersPerStage, qint64(16));
        QCOMPARE(pp.tax.pipelineParallel, 2.0 * 2 * 4096 * 4096);
    }

    void expertParallelDividesOnlyExperts()
    {
        Scenario s = testdata::preset("mixtral-8x7b");
        s.hardware.gpus = 8;
        s.hardware.ep = 8;
        const Breakdown b = account(s, testdata::gpu("H100"));
        const double routed = 32.0 * 8 * 3 * 4096 * 14336;
        const double dense = 46702792704.0 - routed;
        QCOMPARE(b.perGpu.weights, 2 * (dense + routed / 8));
        QVERIFY(b.tax.expertParallel > 0);
    }

    void expertParallelAndZeroShareTheDataRanks()
    {
        // With ep=8 of 16 data ranks, ZeRO-3 shards experts over the remaining 2 ranks.
        Scenario s = testdata::preset("mixtral-8x7b");
        s.hardware.gpus = 16;
        s.hardware.ep = 8;
        s.hardware.zeroStage = 3;
        const Breakdown b = account(s, testdata::gpu("H100"));
        const double routed = 32.0 * 8 * 3 * 4096 * 14336;
        const double dense = 46702792704.0 - routed;
        testdata::compareBytes(b.perGpu.weights, 2 * (dense / 16 + routed / 8 / 2));
    }

    void minimumGpus_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("forModelState");
        QTest::newRow("7B: 112 GB / 80 GB -> 2") << "chapter-7b" << qint64(2);
        QTest::newRow("70B: 1.12 TB / 80 GB -> 14") << "chapter-70b" << qint64(14);
        QTest::newRow("Llama 3 70B: 1.129 TB -> 15") << "llama3-70b" << qint64(15);
        QTest::newRow("2.4T: 38.4 TB -> 480") << "qwen3.8-book" << qint64(480);
    }
    void minimumGpus()
    {
        QFETCH(QString, preset);
        QFETCH(qint64, forModelState);
        Scenario s = testdata::preset(preset.toStdString());
        // Full checkpointing keeps the tape small, so ZeRO-3 alone decides the count.
        s.training.checkpointing = Checkpointing::Full;
        s.training.seqLen = 4096;
        s.hardware.gpus = 1;
        s.hardware.tp = s.hardware.pp = s.hardware.ep = 1;
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.minGpusForModelState, forModelState);
        QVERIFY(b.minGpusToFit >= forModelState);
        // The claimed minimum really fits, and one fewer does not.
        s.hardware.zeroStage = 3;
        s.hardware.gpus = b.minGpusToFit;
        QVERIFY(account(s, testdata::gpu("H100")).fits);
        s.hardware.gpus = b.minGpusToFit - 1;
        if (s.hardware.gpus >= 1)
            QVERIFY(!account(s, testdata::gpu("H100")).fits);
    }

    void activationsAloneCanExceedTheGpu()
    {
        Scenario s = testdata::preset("llama3-8b");
        s.training.seqLen = 1048576;
        s.training.checkpointing = Checkpointing::None;
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.minGpusToFit, qint64(0)); // no amount of ZeRO helps: the tape is per GPU
    }

    void gpusNotDivisibleIsReported()
    {
        Scenario s = testdata::sized(7'000'000'000);
        s.hardware.gpus = 6;
        s.hardware.tp = 4;
        const FieldErrors errs = validateScenario(s, "x.json");
        QVERIFY(!errs.empty());
        QCOMPARE(QString::fromStdString(errs.front().path), QStringLiteral("/hardware/gpus"));
        const Breakdown b = account(s, testdata::gpu("H100")); // still computes, with a warning
        // Issue 13 changed this from dp 1 (tp 4 on 4 of the 6 GPUs) to the nearest valid layout,
        // which uses all six: tp = gcd(4, 6) = 2, dp = 6 / 2 = 3, so tp·pp·dp = gpus as reported.
        QCOMPARE(b.layout.tp, qint64(2));
        QCOMPARE(b.dataParallel, qint64(3));
        QVERIFY(!b.warnings.empty());
    }
};

QTEST_GUILESS_MAIN(TestSharding)
#include "tst_sharding.moc"
