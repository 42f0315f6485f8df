#include "recipe.h"

#include <QtTest>

using namespace trainmem;
Q_DECLARE_METATYPE(trainmem::Precision)
Q_DECLARE_METATYPE(trainmem::Optimizer)

class TestRecipe : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void bytesPerParam_data()
    {
        QTest::addColumn<Precision>("precision");
        QTest::addColumn<Optimizer>("optimizer");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("gradients");
        QTest::addColumn<double>("master");
        QTest::addColumn<double>("optimizerBytes");
        QTest::addColumn<double>("total");
        QTest::newRow("bf16 mixed AdamW = 2+2+4+4+4 = 16 B (ZeRO paper)")
            << Precision::BF16Mixed << Optimizer::AdamW << 2.0 << 2.0 << 4.0 << 8.0 << 16.0;
        QTest::newRow("fp16 mixed Adam = 16 B")
            << Precision::FP16Mixed << Optimizer::Adam << 2.0 << 2.0 << 4.0 << 8.0 << 16.0;
        QTest::newRow("fp32 Adam = 4+4+8 = 16 B")
            << Precision::FP32 << Optimizer::Adam << 4.0 << 4.0 << 0.0 << 8.0 << 16.0;
        QTest::newRow("pure bf16 AdamW = 2+2+2+2 = 8 B")
            << Precision::BF16 << Optimizer::AdamW << 2.0 << 2.0 << 0.0 << 4.0 << 8.0;
        QTest::newRow("fp8 mixed (DeepSeek-V3) = 2+4+4+2+2 = 14 B")
            << Precision::FP8Mixed << Optimizer::AdamW << 2.0 << 4.0 << 4.0 << 4.0 << 14.0;
        QTest::newRow("bf16 mixed Lion: one fp32 slot = 12 B")
            << Precision::BF16Mixed << Optimizer::Lion << 2.0 << 2.0 << 4.0 << 4.0 << 12.0;
        QTest::newRow("bf16 mixed SGD momentum = 12 B")
            << Precision::BF16Mixed << Optimizer::SGDMomentum << 2.0 << 2.0 << 4.0 << 4.0 << 12.0;
        QTest::newRow("bf16 mixed plain SGD = 8 B")
            << Precision::BF16Mixed << Optimizer::SGD << 2.0 << 2.0 << 4.0 << 0.0 << 8.0;
        QTest::newRow("bf16 mixed 8-bit Adam = 2+2+4+1+1 = 10 B")
            << Precision::BF16Mixed << Optimizer::Adam8bit << 2.0 << 2.0 << 4.0 << 2.0 << 10.0;
        QTest::newRow("bf16 mixed Adafactor at h=4096: factored, 4 B x 2/4096")
            << Precision::BF16Mixed << Optimizer::Adafactor << 2.0 << 2.0 << 4.0 << 8.0 / 4096 << 8.0 + 8.0 / 4096;
    }
    void bytesPerParam()
    {
        QFETCH(Precision, precision);
        QFETCH(Optimizer, optimizer);
        QFETCH(double, weights);
        QFETCH(double, gradients);
        QFETCH(double, master);
        QFETCH(double, optimizerBytes);
        QFETCH(double, total);
        const StateRecipe r = trainingRecipe(precision, optimizer, 4096);
        QCOMPARE(r.weights, weights);
        QCOMPARE(r.gradients, gradients);
        QCOMPARE(r.master, master);
        QCOMPARE(r.optimizer, optimizerBytes);
        QCOMPARE(r.total(), total);
    }

    void inferenceWeights()
    {
        QCOMPARE(inferenceWeightBytes(InferenceWeights::BF16), 2.0);
        QCOMPARE(inferenceWeightBytes(InferenceWeights::INT8), 1.0);
        // int4: 4 bits + (16-bit scale + 4-bit zero) / 128 = 4.15625 bits = 0.51953125 B (AutoAWQ's WQLinear_GEMM).
        QCOMPARE(inferenceWeightBytes(InferenceWeights::INT4), 0.51953125);
        // MXFP4: 4 + 8/32 = 4.25 bits (OCP MX v1.0); NVFP4: 4 + 8/16 = 4.5 bits.
        QCOMPARE(inferenceWeightBytes(InferenceWeights::MXFP4), 0.53125);
        QCOMPARE(inferenceWeightBytes(InferenceWeights::NVFP4), 0.5625);
    }

    // The constants that scale with rows and tensors, and which linears each format quantises.
    void weightFormats()
    {
        QVERIFY(!weightFormat(InferenceWeights::BF16).quantised());
        QCOMPARE(weightFormat(InferenceWeights::INT8).rowBits, 32.0);     // LLM.int8()'s fp32 row scale
        QCOMPARE(weightFormat(InferenceWeights::NVFP4).tensorBytes, 4.0); // the fp32 per-tensor scale
        QCOMPARE(weightFormat(InferenceWeights::NVFP4).blockSize, 16.0);
        QCOMPARE(weightFormat(InferenceWeights::MXFP4).blockSize, 32.0);
        QVERIFY(weightFormat(InferenceWeights::MXFP4).expertsOnly); // gpt-oss: the experts only
        QVERIFY(!weightFormat(InferenceWeights::NVFP4).expertsOnly);
        QCOMPARE(weightFormat(InferenceWeights::INT4).blockSize, 128.0);
    }
};

QTEST_GUILESS_MAIN(TestRecipe)
#include "tst_recipe.moc"
