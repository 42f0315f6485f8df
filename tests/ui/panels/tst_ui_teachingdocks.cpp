// The teaching docks inside the window (issue 14): each dock shows the window's scenario when it
// opens, the tour says when it has been left, and the preset box tells a preset from an edit.
#include "uitestutil.h"

#include "controlpanel.h"
#include "dashboard.h"
#include "drilldownpanel.h"
#include "fixespanel.h"
#include "ladderchart.h"
#include "logsliderfield.h"
#include "mainwindow.h"
#include "receiptpanel.h"
#include "teachingdocks.h"
#include "tourpanel.h"
#include "verdictlabel.h"

#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTreeWidget>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {

// TeachingDocks' order: tour, formula, ladder, receipt, fixes.
constexpr int kDrillDock = 1, kLadderDock = 2, kReceiptDock = 3, kFixesDock = 4;

void openDock(MainWindow& w, int dock)
{
    w.teaching()->dock(dock)->toggleViewAction()->trigger();
    w.teaching()->dock(dock)->raise();
    QCoreApplication::processEvents();
}

void dragParamsTo(MainWindow& w, int64_t params)
{
    LogSliderField* f = w.controlPanel()->paramsField();
    const auto& steps = f->steps();
    f->slider()->setValue(static_cast<int>(std::find(steps.begin(), steps.end(), params) - steps.begin()));
}

} // namespace

class TestUiTeachingDocks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().clear(); }

    void receiptDockStartsFromTheScenario()
    {
        // Regression: Teach ▸ Cost receipt on DeepSeek-V3 showed "0.000 T tokens", "0.01 % MFU" and 1 × H100
        // ($63.5k): the receipt dock refreshed the ladder instead of itself. The report: 2,048 H800s,
        // 14.8T tokens, 2.788M H800-hours, $5.576M at $2 per GPU-hour.
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("deepseek-v3")));
        w.show();
        openDock(w, kReceiptDock);
        ReceiptPanel* r = w.teaching()->receipt();
        QCOMPARE(r->tokensEditor()->value(), 14.8);
        QVERIFY2(r->tokensEditor()->text().startsWith(QStringLiteral("14.800")), qPrintable(r->tokensEditor()->text()));
        QCOMPARE(r->mfuEditor()->value(), 19.96); // issue 13: the MFU of the 2.664M pre-training hours (tst_cost)
        QCOMPARE(r->gpusEditor()->value(), 2048);
        QCOMPARE(r->gpuEditor()->currentText(), QStringLiteral("H800"));
        QCOMPARE(r->gpuHoursText(), QStringLiteral("2.79M H800-hours"));
        QVERIFY2(r->costText().startsWith(QStringLiteral("$5.58M")), qPrintable(r->costText()));
    }

    void fixesAndLadderDocksStartFromTheScenario()
    {
        // Regression: the fixes dock opened empty on DeepSeek-V3, for the same reason.
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.show();
        openDock(w, kFixesDock);
        QVERIFY2(w.teaching()->fixes()->statusText().startsWith(QStringLiteral("Dies")),
                 qPrintable(w.teaching()->fixes()->statusText()));
        QVERIFY(w.teaching()->fixes()->list()->topLevelItemCount() > 0);
        openDock(w, kLadderDock);
        QCOMPARE(w.teaching()->ladder()->rungs().front().breakdown.modelStateBytes, 112e9);
    }

    void docksReuseTheDashboardsBreakdown()
    {
        // The formula and fixes docks take the breakdown the dashboard computed instead of running
        // account() again (issue 12 §2). Proof: hand them the dashboard's breakdown of the 7B with
        // the model resolved at 1B parameters; what they show follows that breakdown, not the scenario.
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.show();
        openDock(w, kDrillDock);
        openDock(w, kFixesDock);
        const Scenario s = w.scenario();
        const GpuSpec gpu = PresetLibrary::instance().gpuFor(s);
        const Breakdown& shown = w.dashboard()->state().current;
        QCOMPARE(shown.modelStateBytes, 112e9); // the dashboard's own: 16 B × 7B
        w.teaching()->drillDown()->showSegment(SegmentKind::Weights);
        QCOMPARE(w.teaching()->drillDown()->explanation().value, 14e9); // 2 B × 7B, from the dashboard's breakdown

        Breakdown other = shown;
        other.model.params.total = 1'000'000'000;
        other.perGpu.optimizer = 1e9;
        w.teaching()->setScenario(s, gpu, other);
        QCOMPARE(w.teaching()->drillDown()->explanation().value, 2e9); // 2 B × 1B: the given breakdown's model
        const double total = other.perGpu.total();
        QVERIFY2(w.teaching()->fixes()->statusText().contains(QString::fromStdString(formatBytes(total))),
                 qPrintable(w.teaching()->fixes()->statusText()));
    }

    void tourBuildsThePictureOnTheBars()
    {
        // Issue 11 §2: at "+ a gradient per weight" the bars stack only weights and gradients of the
        // 7B (2 B + 2 B per parameter = 14 GB + 14 GB), the gradients outlined, "So far: 28.0 GB" in
        // large type; leaving the tour shows every segment again.
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.show();
        TourPanel* tour = w.teaching()->tour();
        tour->setStep(static_cast<int>(*tourStepIndex("picture-gradients")));
        MemoryBarChart* bars = w.dashboard()->barChart();
        const int perGpu = 2; // inference, training, training per GPU
        QCOMPARE(barValue(bars->bars(SegmentKind::Weights), perGpu), 14e9);
        QCOMPARE(barValue(bars->bars(SegmentKind::Gradients), perGpu), 14e9);
        for (SegmentKind k :
             {SegmentKind::Master, SegmentKind::Optimizer, SegmentKind::Activations, SegmentKind::Framework})
            QCOMPARE(barValue(bars->bars(k), perGpu), 0.0);
        QCOMPARE(bars->columns()[perGpu].segments.total(), 28e9);
        int outlined = 0;
        for (SegmentKind k : kAllSegmentKinds)
            outlined += bars->bars(k)->pen().widthF() > 1.5;
        QCOMPARE(outlined, 1);
        QVERIFY(bars->bars(SegmentKind::Gradients)->pen().widthF() > 1.5);
        QVERIFY(bars->calloutLabel()->visible());
        QCOMPARE(bars->calloutLabel()->text(), QStringLiteral("So far: 28.0 GB"));
        // Issue 31 §1: the verdict above says what the bars show so far, in green, not the whole run's "Dies: 112 GB".
        QCOMPARE(w.dashboard()->verdictLabel()->text(),
                 QStringLiteral("So far it fits: 28.0 GB on one H100 (80.0 GB, 35% used)."));
        QVERIFY(w.dashboard()->verdictLabel()->fits());
        tour->setStep(static_cast<int>(*tourStepIndex("picture-adam"))); // 112 GB so far: past the GPU
        QCOMPARE(w.dashboard()->verdictLabel()->text(),
                 QStringLiteral("So far it already dies: 112 GB is 1.4× one H100 (80.0 GB)."));
        QVERIFY(!w.dashboard()->verdictLabel()->fits());
        tour->setStep(static_cast<int>(*tourStepIndex("picture-gradients")));

        dragParamsTo(w, 70'000'000'000); // any edit leaves the tour
        QVERIFY(tour->hasLeft());
        QVERIFY(!bars->picture().has_value());
        QVERIFY(!bars->calloutLabel()->visible());
        QVERIFY(barValue(bars->bars(SegmentKind::Optimizer), perGpu) > 0);
    }

    void tourSaysWhenAnotherPresetReplacesItsStep()
    {
        // Regression: the tour dock kept "So far: 138 GB" for 7B after another preset loaded.
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.show();
        TourPanel* tour = w.teaching()->tour();
        tour->setStep(static_cast<int>(*tourStepIndex("picture-workspace")));
        QVERIFY(tour->highlightText().startsWith(QStringLiteral("So far")));
        QVERIFY(!tour->hasLeft());
        QComboBox* box = w.controlPanel()->presetBox();
        box->setCurrentIndex(box->findData(QStringLiteral("llama3-70b")));
        Q_EMIT box->activated(box->currentIndex());
        QCOMPARE(w.scenario().id, std::string("llama3-70b"));
        QVERIFY(tour->hasLeft());
        QVERIFY(tour->highlightText().isEmpty());
        tour->nextAction()->trigger(); // back on the tour: the step's own numbers again
        QVERIFY(!tour->hasLeft());
    }

    // Issue 31 §3: leaving the tour goes back to the scenario before it in one step (one click, one undo step), the
    // tour's dock closes and the bars show every segment again; undo brings the tour's step back.
    void leavingTheTourReturnsToTheScenarioBeforeIt()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("llama3-8b")));
        w.setModalErrors(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TourPanel* tour = w.teaching()->tour();
        QAction* leave = tour->leaveAction();
        QVERIFY(!leave->isEnabled()); // nothing to leave yet
        tour->nextAction()->trigger();
        tour->nextAction()->trigger();
        tour->setStep(static_cast<int>(*tourStepIndex("picture-master"))); // a build-up step: a partial picture
        QCOMPARE(w.scenario().id, std::string("chapter-7b"));
        QVERIFY(w.dashboard()->barChart()->picture().has_value());
        QVERIFY(leave->isEnabled());
        const int undoSteps = w.undoStack()->count();
        auto* leaveButton = tour->findChild<QPushButton*>(QStringLiteral("leaveTourButton"));
        QVERIFY(leaveButton && leaveButton->isEnabled());
        QTest::mouseClick(leaveButton, Qt::LeftButton);
        QCoreApplication::processEvents();
        QCOMPARE(w.scenario().id, std::string("llama3-8b"));
        QCOMPARE(w.undoStack()->count(), undoSteps + 1);
        QCOMPARE(w.undoStack()->undoText(), QStringLiteral("Leave the tour"));
        QVERIFY(!w.dashboard()->barChart()->picture().has_value());
        QVERIFY(!w.teaching()->dock(0)->isVisible());
        QVERIFY(tour->hasLeft());
        QVERIFY(!leave->isEnabled());
        w.undoStack()->undo(); // the tour's step again
        QCOMPARE(w.scenario().id, std::string("chapter-7b"));
        // Started again from a preset the teacher chose meanwhile, the tour goes back to that one.
        w.undoStack()->redo();
        tour->nextAction()->trigger();
        QVERIFY(leave->isEnabled());
        leave->trigger();
        QCOMPARE(w.scenario().id, std::string("llama3-8b"));
    }

    void presetBoxSaysCustomAfterAnEdit()
    {
        // Regression: after dragging 7B to 1T the box still said "The chapter's 7B" with its description,
        // and at tour step 1 (a size-only 7B) it went blank.
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.show();
        QComboBox* box = w.controlPanel()->presetBox();
        auto* description = w.controlPanel()->findChild<QLabel*>(QStringLiteral("presetDescription"));
        QVERIFY(description);
        QCOMPARE(box->currentText(), QStringLiteral("The chapter's 7B"));
        QVERIFY(description->isVisibleTo(w.controlPanel()));
        dragParamsTo(w, 1'000'000'000'000);
        QCOMPARE(box->currentIndex(), -1);
        QCOMPARE(box->placeholderText(), QStringLiteral("Custom (from The chapter's 7B)"));
        QVERIFY(!description->isVisibleTo(w.controlPanel()));
        w.teaching()->tour()->setStep(0);
        QCOMPARE(box->currentIndex(), -1);
        QCOMPARE(box->placeholderText(), QStringLiteral("Custom"));
        w.teaching()->tour()->setStep(1); // the chapter-7b preset as it is
        QCOMPARE(box->currentText(), QStringLiteral("The chapter's 7B"));
    }

    void presetsInTheToursOrder()
    {
        // Regression: the list sorted "70B" before "7B" (by file name).
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        QComboBox* box = w.controlPanel()->presetBox();
        QStringList ids;
        for (int i = 0; i < box->count(); ++i)
            ids << box->itemData(i).toString();
        QVERIFY(ids.indexOf(QStringLiteral("chapter-7b")) < ids.indexOf(QStringLiteral("chapter-70b")));
        QCOMPARE(ids.mid(0, 5), (QStringList{"chapter-7b", "chapter-70b", "qwen3.8-book", "deepseek-v3", "llama3-8b"}));
    }

    void windowKeepsItsWidthThroughTheTour()
    {
        // Regression: the window grew ~80 px wide at every tour step (unwrapped labels in the dock).
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.resize(1500, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TourPanel* tour = w.teaching()->tour();
        tour->setStep(0);
        QCoreApplication::processEvents();
        const int width = w.width();
        for (int i = 1; i < tour->stepCount(); ++i) {
            tour->setStep(i);
            QCoreApplication::processEvents();
            QVERIFY2(w.width() == width,
                     qPrintable(QStringLiteral("step %1: %2 px, was %3").arg(i).arg(w.width()).arg(width)));
        }
    }
};

QTEST_MAIN(TestUiTeachingDocks)
#include "tst_ui_teachingdocks.moc"
