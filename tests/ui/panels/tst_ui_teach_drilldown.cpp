// The drill-down panel shows the core's formula with the scenario's numbers.
#include "drilldownpanel.h"
#include "testdata.h"
#include "units.h"

#include <QComboBox>
#include <QtTest>

using namespace trainmem;

class TestUiTeachDrillDown : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gpt3ActivationsShowKorthikanti()
    {
        DrillDownPanel panel;
        const Scenario s = testdata::preset("gpt3-175b");
        panel.setScenario(s, testdata::gpu("A100-80GB"));
        panel.showSegment(SegmentKind::Activations);
        QCOMPARE(panel.formulaText(), QStringLiteral("s·b·h·(34 + 5·a·s/h) × L"));
        QCOMPARE(panel.substitutedText(), QStringLiteral("2048·1·12288·(34 + 5·96·2048/12288) × 96"));
        const Breakdown b = account(s, testdata::gpu("A100-80GB"));
        QCOMPARE(panel.resultText(), QString::fromStdString(formatBytes(b.perGpu.activations)));
    }

    void pickerAndChartSegmentsAgree()
    {
        DrillDownPanel panel;
        panel.setScenario(testdata::preset("chapter-7b"), testdata::gpu("H100"));
        panel.showSegment(SegmentKind::Optimizer);
        QVERIFY(std::get<SegmentKind>(panel.item()) == SegmentKind::Optimizer);
        QCOMPARE(panel.explanation().value, 56e9); // 2 slots × 4 B × 7B
        auto* picker = panel.findChild<QComboBox*>();
        QVERIFY(picker);
        picker->setCurrentIndex(static_cast<int>(kAllSegmentKinds.size()) +
                                static_cast<int>(CurveKind::ModelStateFloor));
        QVERIFY(std::get<CurveKind>(panel.item()) == CurveKind::ModelStateFloor);
        QCOMPARE(panel.explanation().value, 112e9);
    }

    void followsTheScenario()
    {
        DrillDownPanel panel;
        panel.showSegment(SegmentKind::Weights);
        Scenario s = testdata::sized(7'000'000'000);
        panel.setScenario(s, testdata::gpu("H100"));
        QCOMPARE(panel.resultText(), QStringLiteral("14.0 GB"));
        s.hardware.gpus = 8;
        s.hardware.zeroStage = 3;
        panel.setScenario(s, testdata::gpu("H100"));
        QCOMPARE(panel.resultText(), QStringLiteral("1.75 GB"));
        QCOMPARE(panel.formulaText(), QStringLiteral("b_w · P/d"));
    }
};

QTEST_MAIN(TestUiTeachDrillDown)
#include "tst_ui_teach_drilldown.moc"
