// The fixes panel lists the core's verified changes; Apply sends one that fits.
#include "fixespanel.h"
#include "testdata.h"

#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

class TestUiTeachFixes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<trainmem::Scenario>(); }

    void listsEveryFixAndAppliesOne()
    {
        FixesPanel panel;
        const Scenario s = testdata::preset("chapter-7b");
        const GpuSpec h100 = testdata::gpu("H100");
        panel.setScenario(s, h100);
        const std::vector<Fix> expected = cheapestFixes(s, h100);
        QCOMPARE(panel.list()->topLevelItemCount(), int(expected.size()));
        QVERIFY(!expected.empty());
        QVERIFY(panel.statusText().startsWith(QStringLiteral("Dies: 138 GB")));
        QSignalSpy spy(&panel, &FixesPanel::scenarioRequested);
        const int last = panel.list()->topLevelItemCount() - 1;
        panel.applyFix(last);
        QCOMPARE(spy.count(), 1);
        const auto fixed = spy.at(0).at(0).value<Scenario>();
        QVERIFY(account(fixed, h100).fits);
        QCOMPARE(fixed.hardware.gpus, qint64(2)); // the last resort: a second GPU with ZeRO-3
    }

    void fitsSaysNothingToFix()
    {
        FixesPanel panel;
        Scenario s = testdata::sized(7'000'000'000);
        s.training.mode = Mode::Inference;
        panel.setScenario(s, testdata::gpu("H100"));
        QCOMPARE(panel.list()->topLevelItemCount(), 0);
        QVERIFY(panel.statusText().contains(QStringLiteral("Nothing to fix")));
        QSignalSpy spy(&panel, &FixesPanel::scenarioRequested);
        panel.applyFix(0);
        QCOMPARE(spy.count(), 0);
    }
};

QTEST_MAIN(TestUiTeachFixes)
#include "tst_ui_teach_fixes.moc"
