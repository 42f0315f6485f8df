// The source chapter's numbers, reproduced by the accounting (the source chapter; docs/accounting.md).
#include "report.h"
#include "testdata.h"

#include <QtTest>

using namespace trainmem;

class TestChapter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void modelState_data()
    {
        QTest::addColumn<qint64>("params");
        QTest::addColumn<qint64>("active");
        QTest::addColumn<double>("modelState");
        QTest::newRow("7B mixed Adam = 112 GB") << qint64(7'000'000'000) << qint64(0) << 112e9;
        QTest::newRow("70B mixed Adam = 1.12 TB (about 1.1 TB)") << qint64(70'000'000'000) << qint64(0) << 1.12e12;
        QTest::newRow("2.4T MoE with 95B active = 38.4 TB: total, not active")
            << qint64(2'400'000'000'000) << qint64(95'000'000'000) << 38.4e12;
    }
    void modelState()
    {
        QFETCH(qint64, params);
        QFETCH(qint64, active);
        QFETCH(double, modelState);
        const Breakdown b = account(testdata::sized(params, active), testdata::gpu("H100"));
        QCOMPARE(b.bytesPerParam, 16.0);
        QCOMPARE(b.modelStateBytes, modelState);
        QCOMPARE(b.singleGpu.modelState(), modelState);
    }

    void sevenBInferenceIs14GB()
    {
        Scenario s = testdata::sized(7'000'000'000);
        s.training.mode = Mode::Inference;
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.weights, 14e9);
        QCOMPARE(b.perGpu.gradients + b.perGpu.master + b.perGpu.optimizer, 0.0);
        QVERIFY(b.fits);
        QVERIFY(QString::fromStdString(verdict(b, s, testdata::gpu("H100")))
                    .startsWith(QStringLiteral("Fits: 14.0 GB of bf16 weights")));
    }

    void servingSplitsWeightsAcrossGpus()
    {
        Scenario s = testdata::preset("llama3-70b");
        s.training.mode = Mode::Inference;
        const GpuSpec h100 = testdata::gpu("H100");
        const Breakdown one = account(s, h100);
        QCOMPARE(one.perGpu.weights, 70553706496.0 * 2); // 141 GB of bf16 weights
        // KV cache: 2 · 80 layers · 8 KV heads · 128 · 8192 tokens · 2 bytes = 2.68 GB.
        QCOMPARE(one.perGpu.kvCache, 2.0 * 80 * 8 * 128 * 8192 * 2);
        QVERIFY(!one.fits);
        QCOMPARE(one.minGpusToFit, qint64(2));
        s.hardware.gpus = 2;
        const Breakdown two = account(s, h100);
        QVERIFY(two.fits);
        QCOMPARE(two.perGpu.weights, 70553706496.0);
        s.training.inferenceWeights = InferenceWeights::INT4;
        s.hardware.gpus = 1;
        QVERIFY(account(s, h100).fits); // 39.8 GB of int4 weights: 35.6 GB of linears, 4.2 GB of 16-bit embeddings
    }

    void sevenBTrainingDiesOnOneH100()
    {
        const Scenario s = testdata::preset("chapter-7b");
        const GpuSpec h100 = testdata::gpu("H100");
        const Breakdown b = account(s, h100);
        QCOMPARE(b.modelStateBytes, 112e9);
        QVERIFY(!b.fits);
        QCOMPARE(b.minGpusForModelState, qint64(2));
        QCOMPARE(b.minGpusToFit, qint64(2));
        QCOMPARE(
            QString::fromStdString(verdict(b, s, h100)),
            QStringLiteral("Dies: 112 GB of model state is 1.4× one H100 (80.0 GB); it needs 2 GPUs with ZeRO-3."));
        // ... and with two GPUs and ZeRO-3 it does fit.
        Scenario two = s;
        two.hardware.gpus = 2;
        two.hardware.zeroStage = 3;
        QVERIFY(account(two, h100).fits);
    }

    // Issue 31 §1: the tour's "Checkpointing buys the memory back" (Llama 3 8B at 128k, full recomputation) said
    // "the activations alone exceed one GPU. Checkpoint, …": it already recomputes fully, and its largest working term
    // is the logits, 128k tokens × 128,256 × (2 + 4) B = 101 GB, against a tape of 32 layer inputs + one layer's
    // rebuilt tape, 52.6 GB. The verdict names both and offers only the ways back the run does not use yet.
    void whenShardingCannotHelpTheVerdictOffersWhatIsNotUsedYet()
    {
        const GpuSpec h100 = testdata::gpu("H100");
        Scenario s = testdata::preset("llama3-8b");
        s.training.seqLen = 131072;
        s.training.checkpointing = Checkpointing::Full;
        const Breakdown b = account(s, h100);
        QCOMPARE(b.minGpusToFit, qint64(0));
        QCOMPARE(b.perGpu.logits, 131072.0 * 128256 * 6);
        QCOMPARE(QString::fromStdString(verdict(b, s, h100)),
                 QStringLiteral("Dies: 128 GB of model state is 1.6× one H100 (80.0 GB); more GPUs cannot fix it by "
                                "sharding the model state: the logits (101 GB) and activations (52.6 GB) exceed one "
                                "GPU. Use a chunked or fused loss (--loss), shorten the context, or add tensor, "
                                "pipeline or context parallelism."));
        // With a chunked loss the logits are no longer offered; without checkpointing it is the first way back.
        Scenario chunked = s;
        chunked.training.loss = LossKind::Chunked;
        const std::string c = verdict(account(chunked, h100), chunked, h100);
        QVERIFY2(c.find("--loss") == std::string::npos && c.find("Checkpoint") == std::string::npos, c.c_str());
        Scenario none = s;
        none.training.checkpointing = Checkpointing::None;
        none.training.microBatch = 2;
        const std::string n = verdict(account(none, h100), none, h100);
        // (its tape, 1.17 TB, dwarfs the logits, 202 GB: the loss is not offered)
        QVERIFY2(n.find("the activations (1.17 TB) and logits (202 GB) exceed one GPU. Checkpoint, shorten the context "
                        "or the micro-batch, or add tensor, pipeline or context parallelism.") != std::string::npos,
                 n.c_str());
    }

    void sparsityDoesNotShrinkTheOptimizer()
    {
        const Breakdown moe = account(testdata::preset("qwen3.8-book"), testdata::gpu("H100"));
        QCOMPARE(moe.model.params.active, qint64(95'000'000'000));
        QCOMPARE(moe.modelStateBytes, 2.4e12 * 16);
        QVERIFY(moe.modelStateBytes > 25 * 95e9 * 16); // 38.4 TB, not the 1.52 TB the active count would give
        QCOMPARE(moe.minGpusForModelState, qint64(480));
    }

    void deepseekV3ModelStateFromTotal()
    {
        const Scenario s = testdata::preset("deepseek-v3");
        const Breakdown b = account(s, testdata::gpu("H800"));
        // fp8 mixed: bf16 working copy 2 + fp32 gradients 4 + fp32 master 4 + bf16 moments 2+2 = 14 B.
        QCOMPARE(b.bytesPerParam, 14.0);
        // Of the main model's 671,026,404,352 parameters and the one multi-token-prediction module it trains,
        // 11,610,067,968 more (tst_params, deepseekMtpModuleIsOutsideTheTotal).
        QCOMPARE(b.model.params.mtp, qint64(11610067968));
        QCOMPARE(b.modelStateBytes, (671026404352.0 + 11610067968.0) * 14);
        Scenario mixed = s;
        mixed.training.precision = Precision::BF16Mixed;
        const Breakdown m = account(mixed, testdata::gpu("H800"));
        QCOMPARE(m.modelStateBytes,
                 (671026404352.0 + 11610067968.0) * 16); // 10.9 TB, from 683B trained, not 37B active
        // Serving drops the MTP module (transformers does not build it): the weights are the main model's.
        Scenario serve = mixed;
        serve.training.mode = Mode::Inference;
        QCOMPARE(account(serve, testdata::gpu("H800")).singleGpu.weights, 671026404352.0 * 2);
    }

    void activationsDwarfWeightsAtLongContext()
    {
        Scenario s = testdata::preset("llama3-8b");
        s.training.checkpointing = Checkpointing::None;
        s.training.seqLen = 131072;
        const Breakdown at128k = account(s, testdata::gpu("H100"));
        s.training.seqLen = 8192;
        const Breakdown at8k = account(s, testdata::gpu("H100"));
        QVERIFY(at128k.perGpu.activations > at128k.perGpu.weights * 10);
        QCOMPARE(at128k.perGpu.activations / at8k.perGpu.activations, 16.0); // linear with flash attention
        // Logits at 128k: s·V·(2+4) bytes = 131072 · 128256 · 6 = 100.9 GB.
        QCOMPARE(at128k.perGpu.logits, 131072.0 * 128256 * 6);
    }

    void checkpointingBuysMemoryBack()
    {
        Scenario s = testdata::preset("llama3-8b");
        s.training.seqLen = 32768;
        double last = 1e300;
        for (Checkpointing c : {Checkpointing::None, Checkpointing::Selective, Checkpointing::Full}) {
            s.training.checkpointing = c;
            const double act = account(s, testdata::gpu("H100")).perGpu.activations;
            QVERIFY(act < last);
            last = act;
        }
    }
};

QTEST_GUILESS_MAIN(TestChapter)
#include "tst_chapter.moc"
