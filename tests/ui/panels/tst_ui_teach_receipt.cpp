// The cost receipt: DeepSeek-V3's 2.788M H800-hours and about $5.6M, and edits flow back.
#include "receiptpanel.h"
#include "testdata.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

class TestUiTeachReceipt : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<trainmem::Scenario>(); }

    void deepseekV3Receipt()
    {
        ReceiptPanel panel;
        panel.setScenario(testdata::preset("deepseek-v3"), testdata::gpu("H800"));
        QVERIFY(std::abs(panel.receipt().gpuHours / 2.788e6 - 1) < 0.005);
        QVERIFY(std::abs(panel.receipt().costUsd / 5.576e6 - 1) < 0.005);
        QCOMPARE(panel.gpuHoursText(), QStringLiteral("2.79M H800-hours"));
        QVERIFY2(panel.costText().startsWith(QStringLiteral("$5.58M")), qPrintable(panel.costText()));
        // Issue 13: the preset's MFU is 0.1996, the one its 2.664M pre-training hours imply (tst_cost).
        QCOMPARE(panel.mfuEditor()->value(), 19.96);
        QCOMPARE(panel.gpusEditor()->value(), 2048);
        QCOMPARE(panel.gpuEditor()->currentText(), QStringLiteral("H800"));
        // The report's Table 1, three lines: 2.664M + 119K + 5K = 2.788M H800-hours.
        QCOMPARE(panel.phaseLines(),
                 QStringList({QStringLiteral("Pre-training (14.8T tokens): 2.66M H800-hours, computed"),
                              QStringLiteral("context extension: 119k H800-hours, as published"),
                              QStringLiteral("post-training: 5k H800-hours, as published")}));
    }

    // A GPU without a public price (the 2026 catalog entries), and "catalog price" in the dock: the cost line says
    // the price is unknown and asks for one, never $0; a price typed in gives dollars again.
    void unknownPriceAsksForOne()
    {
        ReceiptPanel panel;
        panel.setCatalog(testdata::gpus());
        Scenario s = testdata::preset("deepseek-v3");
        s.hardware.gpu = "B300";
        s.cost.pricePerGpuHour = 0;
        panel.setScenario(s, testdata::gpu("B300"));
        QVERIFY(!panel.receipt().priceKnown);
        QCOMPARE(panel.costText(), QStringLiteral("Price unknown for the B300: set your own price per GPU-hour"));
        QVERIFY(!panel.costText().contains(QLatin1Char('$')));
        QVERIFY(panel.receipt().gpuHours > 0);
        panel.priceEditor()->setValue(6.5);
        QVERIFY(panel.receipt().priceKnown);
        QVERIFY2(panel.costText().contains(QStringLiteral("at $6.50 per GPU-hour")), qPrintable(panel.costText()));
    }

    void editsRequestTheScenarioAndRecompute()
    {
        ReceiptPanel panel;
        panel.setScenario(testdata::preset("deepseek-v3"), testdata::gpu("H800"));
        const double hours = panel.receipt().pretrainingGpuHours;
        QSignalSpy spy(&panel, &ReceiptPanel::scenarioRequested);
        // Double the MFU: half the pre-training hours (issue 13: the published phases stay as given).
        panel.mfuEditor()->setValue(39.92);
        QCOMPARE(spy.count(), 1);
        const auto s = spy.at(0).at(0).value<Scenario>();
        QCOMPARE(s.cost.mfu, 0.3992);
        QVERIFY(std::abs(panel.receipt().pretrainingGpuHours / (hours / 2) - 1) < 1e-9);
        QCOMPARE(panel.receipt().gpuHours, panel.receipt().pretrainingGpuHours + 124e3);
        panel.gpusEditor()->setValue(4096); // twice the GPUs: same hours, half the days
        QCOMPARE(spy.last().at(0).value<Scenario>().hardware.gpus, qint64(4096));
        QVERIFY(std::abs(panel.receipt().wallClockDays - panel.receipt().gpuHours / 4096 / 24) < 1e-9);
    }

    // Regression (issue 12): on llama3.1-405b (tp 8 · pp 16) the dock's GPU count set to 1 made gpus=1,
    // tp=8, pp=16, which Save wrote and Open refused.
    void gpuCountKeepsTheScenarioValid()
    {
        ReceiptPanel panel;
        panel.setScenario(testdata::preset("llama3.1-405b"), testdata::gpu("H100"));
        QSignalSpy spy(&panel, &ReceiptPanel::scenarioRequested);
        for (int n : {1, 12, 64}) {
            panel.gpusEditor()->setValue(n);
            const auto s = spy.last().at(0).value<Scenario>();
            QCOMPARE(s.hardware.gpus, qint64(n));
            QVERIFY(s.hardware.gpus % (s.hardware.tp * s.hardware.pp) == 0);
            const ScenarioParse back = parseScenario(scenarioToText(s), "saved.json");
            QVERIFY2(back.ok(), back.ok() ? "" : back.errors.front().toString().c_str());
            QVERIFY(validateScenario(back.scenario, "saved.json").empty());
        }
    }

    void settingAScenarioEmitsNothing()
    {
        ReceiptPanel panel;
        QSignalSpy spy(&panel, &ReceiptPanel::scenarioRequested);
        panel.setScenario(testdata::preset("chapter-7b"), testdata::gpu("H100"));
        QCOMPARE(spy.count(), 0);
    }
};

QTEST_MAIN(TestUiTeachReceipt)
#include "tst_ui_teach_receipt.moc"
