// The compute and cost receipt (docs/accounting.md, "Receipts"; Kaplan et al. 2020).
#include "cost.h"
#include "report.h"
#include "testdata.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace trainmem;

class TestCost : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void deepseekV3Receipt()
    {
        const Scenario s = testdata::preset("deepseek-v3");
        const GpuSpec h800 = testdata::gpu("H800");
        const CostReceipt r = computeCost(resolveModel(s.model), s, h800);
        // 6 · 37.55B active + 3 · 61 · 4096 · 128 · (192 + 128) attention FLOPs per token.
        QCOMPARE(r.flopsPerToken, 6 * 37552282624.0 + 3 * 61.0 * 4096 * 128 * 320);
        QCOMPARE(r.peakFlopsPerGpu, 1978.9e12); // fp8 dense peak
        // Issue 13 changed the preset's MFU from 0.1908 to 0.1996: the report's Table 1 splits the
        // 2.788M H800-hours into 2.664M pre-training (the 14.8T tokens), 119K context extension and
        // 5K post-training, so the MFU the pre-training implies is 14.8e12 · 256,016,001,024 FLOP /
        // (1978.9e12 FLOP/s · 3600 s · 2.664e6) = 0.19965; 0.1996 gives 2.6647M hours.
        QCOMPARE(r.mfu, 0.1996);
        QVERIFY2(std::abs(r.pretrainingGpuHours / 2.664e6 - 1) < 0.001,
                 qPrintable(QString::number(r.pretrainingGpuHours)));
        QCOMPARE(r.phases.size(), size_t(2));
        QCOMPARE(QString::fromStdString(r.phases[0].name), QStringLiteral("context extension"));
        QCOMPARE(r.phases[0].gpuHours, 119e3);
        QCOMPARE(QString::fromStdString(r.phases[1].name), QStringLiteral("post-training"));
        QCOMPARE(r.phases[1].gpuHours, 5e3);
        QCOMPARE(r.gpuHours, r.pretrainingGpuHours + 119e3 + 5e3);
        // The report: 2.788M H800-hours in all, $5.576M at $2 per GPU-hour.
        QVERIFY2(std::abs(r.gpuHours / 2.788e6 - 1) < 0.005, qPrintable(QString::number(r.gpuHours)));
        QVERIFY2(std::abs(r.costUsd / 5.576e6 - 1) < 0.005, qPrintable(QString::number(r.costUsd)));
        QVERIFY(std::abs(r.wallClockDays - 2.788e6 / 2048 / 24) < 0.5);
    }

    void sixNDRule_data()
    {
        QTest::addColumn<double>("tokens");
        QTest::addColumn<double>("mfu");
        QTest::addColumn<double>("hours");
        // 7B (size rule: 32 layers, 4096 wide, MHA) at 4096 context, H100 bf16 989.4 TFLOP/s.
        const double perToken = 6 * 7e9 + 3 * 32.0 * 4096 * 32 * 256;
        QTest::newRow("1T tokens at 40% MFU") << 1e12 << 0.4 << perToken * 1e12 / (989.4e12 * 0.4) / 3600;
        QTest::newRow("halving MFU doubles the hours") << 1e12 << 0.2 << perToken * 1e12 / (989.4e12 * 0.2) / 3600;
    }
    void sixNDRule()
    {
        QFETCH(double, tokens);
        QFETCH(double, mfu);
        QFETCH(double, hours);
        Scenario s = testdata::sized(7'000'000'000);
        s.cost.tokens = tokens;
        s.cost.mfu = mfu;
        s.cost.pricePerGpuHour = 0; // use the catalog's typical price
        const GpuSpec h100 = testdata::gpu("H100");
        const CostReceipt r = computeCost(resolveModel(s.model), s, h100);
        testdata::compareBytes(r.gpuHours, hours);
        QCOMPARE(r.pricePerGpuHour, *h100.pricePerHour);
        QVERIFY(r.priceKnown);
        testdata::compareBytes(r.costUsd, hours * *h100.pricePerHour);
    }

    // A GPU without a public price (the catalog's null) and no price in the scenario: the receipt says the price is
    // unknown and never shows $0 as a cost; the hours are computed all the same. A price the user sets wins.
    void unknownPriceIsNotZeroDollars_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<double>("userPrice"); // 0: none set, the catalog's
        QTest::addColumn<bool>("known");
        QTest::addColumn<double>("price");
        QTest::newRow("B300, no price anywhere: unknown") << "B300" << 0.0 << false << 0.0;
        QTest::newRow("MI355X, no price anywhere: unknown") << "MI355X" << 0.0 << false << 0.0;
        QTest::newRow("B300 at the user's $6.50: known") << "B300" << 6.5 << true << 6.5;
        QTest::newRow("H100, the catalog's $2.50: known") << "H100" << 0.0 << true << 2.5;
    }
    void unknownPriceIsNotZeroDollars()
    {
        QFETCH(QString, gpu);
        QFETCH(double, userPrice);
        QFETCH(bool, known);
        QFETCH(double, price);
        Scenario s = testdata::sized(7'000'000'000);
        s.cost.tokens = 1e12;
        s.cost.mfu = 0.4;
        s.cost.pricePerGpuHour = userPrice;
        const GpuSpec g = testdata::gpu(gpu.toStdString());
        const CostReceipt r = computeCost(resolveModel(s.model), s, g);
        QCOMPARE(r.priceKnown, known);
        QCOMPARE(r.pricePerGpuHour, price);
        QVERIFY(r.gpuHours > 0);
        QCOMPARE(r.costUsd, r.gpuHours * price);
        // --json: null, not 0, where the price is unknown.
        const nlohmann::json j = breakdownToJson(account(s, g), s, g, r);
        QCOMPARE(j["cost"]["cost_usd"].is_null(), !known);
        QCOMPARE(j["cost"]["price_per_gpu_hour"].is_null(), !known);
        QCOMPARE(j["gpu"]["price_per_hour"].is_null(), gpu != QLatin1String("H100"));
        for (const auto& phase : j["cost"]["phases"])
            QCOMPARE(phase["cost_usd"].is_null(), !known);
    }
};

QTEST_GUILESS_MAIN(TestCost)
#include "tst_cost.moc"
