// Serving formats (issue 29 §3, issue 30 "4-bit serving"): a quantised checkpoint stores the blocks' linears in its
// format, with the format's constants, and keeps the embeddings, the output head, norms, biases and routers in 16
// bits; MXFP4 on a MoE model quantises the experts only, as gpt-oss ships (docs/accounting.md, "Serving formats").
#include "hfconfig.h"
#include "lora.h"
#include "report.h"
#include "testdata.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace trainmem;

namespace {

Scenario served(Scenario s, InferenceWeights w)
{
    s.training.mode = Mode::Inference;
    s.training.inferenceWeights = w;
    s.training.seqLen = 8192;
    s.training.microBatch = 1;
    s.hardware.gpus = 1;
    s.hardware.tp = 1;
    s.hardware.pp = 1;
    s.hardware.ep = 1;
    return s;
}

Scenario gptOss20b()
{
    const std::string path = std::string(TRAINMEM_HF_DATA) + "/gpt-oss-20b.json";
    const HfImport imp = parseHfConfig(testdata::readFile(path), "gpt-oss-20b.json");
    if (!imp.ok())
        qFatal("gpt-oss-20b.json does not import");
    Scenario s;
    s.model.hasArchitecture = true;
    s.model.architecture = imp.architecture;
    return s;
}

} // namespace

class TestServing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // What each format quantises. Llama 3 8B (h 4096, 32 layers, 32 heads and 8 KV heads of 128, f 14336): a
    // layer's linears q 4096², k and v 4096·1024, o 4096², gate/up/down 3·4096·14336 = 218,103,808; ·32 =
    // 6,979,321,856 of the 8,030,261,248. Output rows a layer 4096 + 1024 + 1024 + 4096 + 2·14336 + 4096 = 43,008
    // (·32 = 1,376,256), 7 matrices a layer (224). Mixtral 8x7B: attention 41,943,040 and 8 experts of
    // 3·4096·14336 a layer, 32 layers: 46,439,333,888 linears, 45,097,156,608 of them routed experts; the routers
    // (4096·8 a layer) are left out.
    void quantisedLinears()
    {
        const QuantisedLinears llama = servedQuantisedLinears(testdata::preset("llama3-8b").model.architecture, false);
        QCOMPARE(llama.weights.total, qint64(6979321856));
        QCOMPARE(llama.weights.routedExperts, qint64(0));
        QCOMPARE(llama.rows, 1376256.0);
        QCOMPARE(llama.tensors, 224.0);
        const Architecture mixtral = testdata::preset("mixtral-8x7b").model.architecture;
        const QuantisedLinears all = servedQuantisedLinears(mixtral, false);
        QCOMPARE(all.weights.total, qint64(46439333888));
        QCOMPARE(all.weights.routedExperts, qint64(45097156608));
        QCOMPARE(linearWeights(mixtral).total - all.weights.total, qint64(32 * 4096 * 8)); // the routers
        const QuantisedLinears experts = servedQuantisedLinears(mixtral, true);
        QCOMPARE(experts.weights.total, qint64(45097156608));
        QCOMPARE(experts.weights.routedExperts, qint64(45097156608));
        QCOMPARE(experts.tensors, 32.0 * 8 * 3);
        // A dense model has no experts: expertsOnly quantises every linear.
        QCOMPARE(servedQuantisedLinears(testdata::preset("llama3-8b").model.architecture, true).weights.total,
                 qint64(6979321856));
    }

    // Llama 3 8B served on one GPU. The 16-bit rest: 8,030,261,248 − 6,979,321,856 = 1,050,939,392 parameters
    // (embeddings 2·128256·4096 and the norms) at 2 B = 2,101,878,784 B.
    void llama3_8bWeights_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<double>("weights");
        QTest::newRow("bf16: 2 B each") << int(InferenceWeights::BF16) << 8030261248.0 * 2;
        // 6,979,321,856 B + 4 B · 1,376,256 rows + 2,101,878,784 B.
        QTest::newRow("int8: 1 B and an fp32 scale a row") << int(InferenceWeights::INT8) << 9086705664.0;
        // 6,979,321,856 · (4 + 20/128)/8 = 6,979,321,856 · 133/256 = 3,625,975,808 + 2,101,878,784.
        QTest::newRow("int4: 4.15625 bits") << int(InferenceWeights::INT4) << 5727854592.0;
        // 6,979,321,856 · 4.25/8 = 3,707,764,736 + 2,101,878,784 (a dense model: every linear).
        QTest::newRow("mxfp4: 4.25 bits") << int(InferenceWeights::MXFP4) << 5809643520.0;
        // 6,979,321,856 · 4.5/8 = 3,925,868,544 + 4 B · 224 tensors + 2,101,878,784.
        QTest::newRow("nvfp4: 4.5 bits and 4 B a tensor") << int(InferenceWeights::NVFP4) << 6027748224.0;
    }
    void llama3_8bWeights()
    {
        QFETCH(int, format);
        QFETCH(double, weights);
        const Scenario s = served(testdata::preset("llama3-8b"), static_cast<InferenceWeights>(format));
        const Breakdown b = account(s, testdata::gpu("H100"));
        testdata::compareBytes(b.perGpu.weights, weights, 1e-12);
        // bytes_per_param is the average over every parameter, 16-bit ones included.
        testdata::compareBytes(b.bytesPerParam, weights / 8030261248.0, 1e-12);
        const nlohmann::json j =
            breakdownToJson(b, s, testdata::gpu("H100"), computeCost(b.model, s, testdata::gpu("H100")));
        QCOMPARE(j["per_gpu_bytes"]["weights"].get<double>(), b.perGpu.weights);
    }

    // Tensor parallelism splits both parts: every matrix and the vocabulary rows of the embeddings.
    void tensorParallelHalvesBoth()
    {
        Scenario s = served(testdata::preset("llama3-8b"), InferenceWeights::INT4);
        s.hardware.gpus = 2;
        s.hardware.tp = 2;
        testdata::compareBytes(account(s, testdata::gpu("H100")).perGpu.weights, 5727854592.0 / 2, 1e-12);
    }

    // gpt-oss ships its experts in MXFP4 and everything else in bf16; the model card (arXiv 2508.10925, Table 1)
    // gives the checkpoints as 60.8 GiB (120b) and 12.8 GiB (20b). gpt-oss-120b: 36 layers of 128 experts of
    // gate_up h·2f and down f·h (h = f = 2880): 36·128·3·2880² = 114,661,785,600 quantised at 4.25 bits =
    // 60,914,073,600 B; the other 116,829,156,672 − 114,661,785,600 = 2,167,371,072 parameters (attention, the
    // experts' biases, routers, sinks, norms, embeddings) at 2 B = 4,334,742,144 B; 65,248,815,744 B = 60.77 GiB.
    // gpt-oss-20b: 24·32·3·2880² = 19,110,297,600 at 4.25 bits = 10,152,345,600 B, and (20,914,757,184 −
    // 19,110,297,600) · 2 = 3,608,919,168 B: 13,761,264,768 B = 12.82 GiB.
    void gptOssCheckpoints_data()
    {
        QTest::addColumn<bool>("big");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("publishedGiB");
        QTest::newRow("gpt-oss-120b: 60.8 GiB") << true << 65248815744.0 << 60.8;
        QTest::newRow("gpt-oss-20b: 12.8 GiB") << false << 13761264768.0 << 12.8;
    }
    void gptOssCheckpoints()
    {
        QFETCH(bool, big);
        QFETCH(double, weights);
        QFETCH(double, publishedGiB);
        const Scenario s = served(big ? testdata::preset("gpt-oss-120b") : gptOss20b(), InferenceWeights::MXFP4);
        const Breakdown b = account(s, testdata::gpu("H100"));
        testdata::compareBytes(b.perGpu.weights, weights, 1e-12);
        // Within the model card's rounding (0.05 GiB).
        QVERIFY2(std::abs(b.perGpu.weights / (1024.0 * 1024 * 1024) - publishedGiB) < 0.05,
                 qPrintable(QString::number(b.perGpu.weights / (1024.0 * 1024 * 1024))));
    }

    // "quantizing these to MXFP4 enables the larger model to fit on a single 80GB GPU" (the model card, §2.1): the
    // preset serves it so at 8k tokens; in bf16 (233.7 GB of weights) it does not.
    void gptOss120bFitsOneH100()
    {
        const Scenario s = testdata::preset("gpt-oss-120b");
        QCOMPARE(s.training.mode, Mode::Inference);
        QCOMPARE(s.training.inferenceWeights, InferenceWeights::MXFP4);
        QVERIFY(account(s, testdata::gpu("H100")).fits);
        Scenario bf16 = s;
        bf16.training.inferenceWeights = InferenceWeights::BF16;
        QVERIFY(!account(bf16, testdata::gpu("H100")).fits);
    }

    // NVFP4 on the same MoE quantises attention too (every linear but the router): 36 layers of attention
    // q 2880·4096, k and v 2880·512, o 4096·2880 = 26,542,080 weights a layer (955,514,880 in all) join the
    // experts: 115,617,300,480 at 4.5 bits = 65,034,731,520 B, plus 4 B · 36·(4 + 128·3) = 13,968 tensors =
    // 55,872 B, plus (116,829,156,672 − 115,617,300,480) · 2 = 2,423,712,384 B: 67,458,499,776 B.
    void nvfp4QuantisesAttentionToo()
    {
        const Scenario s = served(testdata::preset("gpt-oss-120b"), InferenceWeights::NVFP4);
        testdata::compareBytes(account(s, testdata::gpu("H100")).perGpu.weights, 67458499776.0, 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestServing)
#include "tst_serving.moc"
