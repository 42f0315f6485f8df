// The GPU catalog loader (presets/gpus.json, core/model/gpu.cpp): the 2026 entries and an optional price.
#include "gpu.h"
#include "testdata.h"

#include <QtTest>

using namespace trainmem;

class TestGpu : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The shipped catalog loads without an error, every entry cites a source, and the 2026 entries carry their
    // vendor figures (dense peaks: sparse figures halved; each entry's source in presets/gpus.json says where).
    void catalogLoads()
    {
        const GpuCatalog c = testdata::gpus();
        QVERIFY2(c.errors.empty(), c.errors.empty() ? "" : c.errors.front().toString().c_str());
        QCOMPARE(c.gpus.size(), size_t(23));
        for (const GpuSpec& g : c.gpus)
            QVERIFY2(!g.source.empty(), g.id.c_str());
    }
    void entries2026_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("memoryGb");
        QTest::addColumn<double>("bf16");
        QTest::addColumn<double>("fp8");
        // HGX B300: 36 / 72 PFLOPS BF16 / FP8 with sparsity per 8 GPUs: 36e3 / 2 / 8 = 2250, 72e3 / 2 / 8 = 4500.
        QTest::newRow("B300: 288 GB, 2.25 / 4.5 PFLOPS dense") << "B300" << 288.0 << 2250.0 << 4500.0;
        // GB200 NVL72: 360 / 720 PFLOPS sparse per 72 GPUs: 360e3 / 2 / 72 = 2500; 13.4 TB / 72 = 186 GB.
        QTest::newRow("GB200: 186 GB, 2.5 / 5 PFLOPS dense") << "GB200" << 186.0 << 2500.0 << 5000.0;
        QTest::newRow("GB300: 288 GB, 2.5 / 5 PFLOPS dense") << "GB300" << 288.0 << 2500.0 << 5000.0;
        QTest::newRow("MI325X: 256 GB, MI300X's compute") << "MI325X" << 256.0 << 1307.4 << 2614.9;
        QTest::newRow("MI355X: 288 GB, 2.5166 / 5.0332 PF peak") << "MI355X" << 288.0 << 2516.6 << 5033.2;
        QTest::newRow("RTX 5090: 32 GB, 209.5 BF16 (FP32 accumulate)") << "RTX5090" << 32.0 << 209.5 << 419.0;
        QTest::newRow("RTX PRO 6000: 96 GB") << "RTXPRO6000" << 96.0 << 503.8 << 1007.6;
        // L4: 242 / 485 TFLOPS with sparsity, halved.
        QTest::newRow("L4: 24 GB, 121 / 242.5 dense") << "L4" << 24.0 << 121.0 << 242.5;
        QTest::newRow("V100 16 GB: fp16's 125, no fp8") << "V100-16GB" << 16.0 << 125.0 << 0.0;
        QTest::newRow("V100 32 GB: fp16's 125, no fp8") << "V100-32GB" << 32.0 << 125.0 << 0.0;
        QTest::newRow("RTX 3090: 24 GB, 71 dense, no fp8") << "RTX3090" << 24.0 << 71.0 << 0.0;
        QTest::newRow("Gaudi 3: 128 GB, 1835 BF16 and FP8") << "Gaudi3" << 128.0 << 1835.0 << 1835.0;
        // A10G (NVIDIA's A10G datasheet hosted by AWS): BF16 70 dense / 140 sparse; Ampere has no FP8, so 0 as for
        // the A100s. Not the A10's 125.
        QTest::newRow("A10G: 24 GB, 70 dense, no fp8") << "A10G" << 24.0 << 70.0 << 0.0;
        // RTX 6000 Ada: the datasheet's 1457.0 FP8 TFLOPS are with sparsity, 1457.0 / 2 = 728.5; the professional Ada
        // whitepaper's 364.2 dense FP16/BF16 tensor figure is half of that again.
        QTest::newRow("RTX 6000 Ada: 48 GB, 364.2 / 728.5 dense") << "RTX6000Ada" << 48.0 << 364.2 << 728.5;
    }
    void entries2026()
    {
        QFETCH(QString, id);
        QFETCH(double, memoryGb);
        QFETCH(double, bf16);
        QFETCH(double, fp8);
        const GpuSpec g = testdata::gpu(id.toStdString());
        QCOMPARE(g.memoryBytes, memoryGb * 1e9);
        QCOMPARE(g.bf16Tflops, bf16);
        QCOMPARE(g.fp8Tflops, fp8);
        QVERIFY2(!g.pricePerHour.has_value(), "no public price was found for the 2026 entries");
        QVERIFY2(!g.note.empty(), "each 2026 entry carries its caveat");
    }
    // V100's note says it has no BF16 tensor cores, where the GPU combo's hover shows it.
    void v100SaysItHasNoBf16() { QVERIFY(testdata::gpu("V100-32GB").note.find("no BF16") != std::string::npos); }

    // price_per_hour: absent or null is an unknown price; a number is kept; anything else is refused by name.
    void priceIsOptional_data()
    {
        QTest::addColumn<QString>("price"); // the field's JSON text, empty: absent
        QTest::addColumn<bool>("loads");
        QTest::addColumn<double>("value"); // -1: unknown
        QTest::addColumn<QString>("error");
        QTest::newRow("absent: unknown") << "" << true << -1.0 << "";
        QTest::newRow("null: unknown") << "null" << true << -1.0 << "";
        QTest::newRow("2.5: known") << "2.5" << true << 2.5 << "";
        QTest::newRow("0: a known free GPU") << "0" << true << 0.0 << "";
        QTest::newRow("negative: refused") << "-1" << false << 0.0
                                           << "g.json: /gpus/0/price_per_hour: must be a number between 0.0 and "
                                              "10000.0, got -1";
        QTest::newRow("a string: refused") << "\"cheap\"" << false << 0.0
                                           << "g.json: /gpus/0/price_per_hour: must be a number between 0.0 and "
                                              "10000.0, got \"cheap\"";
    }
    void priceIsOptional()
    {
        QFETCH(QString, price);
        QFETCH(bool, loads);
        QFETCH(double, value);
        QFETCH(QString, error);
        const std::string text = R"({"schema": "trainmem/gpus@1", "gpus": [{"id": "X1", "name": "Test X1", )"
                                 R"("memory_gb": 10, "bf16_tflops": 100, "source": "test")" +
                                 (price.isEmpty() ? std::string() : ", \"price_per_hour\": " + price.toStdString()) +
                                 "}]}";
        const GpuCatalog c = parseGpuCatalog(text, "g.json");
        QCOMPARE(c.gpus.size(), size_t(loads ? 1 : 0));
        if (!loads) {
            QCOMPARE(c.errors.size(), size_t(1));
            QCOMPARE(QString::fromStdString(c.errors.front().toString()), error);
            return;
        }
        QVERIFY(c.errors.empty());
        if (value < 0)
            QVERIFY(!c.gpus.front().pricePerHour.has_value());
        else
            QCOMPARE(*c.gpus.front().pricePerHour, value);
    }
};

QTEST_GUILESS_MAIN(TestGpu)
#include "tst_gpu.moc"
