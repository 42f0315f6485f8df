// The tour panel: next/previous and their shortcuts walk the chapter, each step asks for its scenario.
#include "testdata.h"
#include "tourpanel.h"

#include <QAction>
#include <QApplication>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

class TestUiTeachTour : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<trainmem::Scenario>(); }

    void nextWalksTheChapterAndRequestsEachScenario()
    {
        TourPanel panel;
        QSignalSpy scenarios(&panel, &TourPanel::scenarioRequested);
        QSignalSpy steps(&panel, &TourPanel::stepChanged);
        QCOMPARE(panel.currentStep(), -1);
        panel.nextStep();
        QCOMPARE(panel.currentStep(), 0);
        panel.nextStep();
        QCOMPARE(panel.currentStep(), 1);
        QCOMPARE(scenarios.count(), 2);
        QCOMPARE(steps.count(), 2);
        const auto s = scenarios.last().at(0).value<Scenario>();
        // Step 2 is the chapter's 7B training run: 112 GB of model state on one H100.
        QCOMPARE(account(s, testdata::gpu("H100")).modelStateBytes, 112e9);
        QVERIFY2(panel.highlightText().contains(QStringLiteral("112 GB")), qPrintable(panel.highlightText()));
        QVERIFY(panel.explanationText().contains(QStringLiteral("dies")));
    }

    // Issue 11 §2: in a narrow dock every step's title is shown whole, wrapped, not cut off.
    void stepTitlesWrapInANarrowDock()
    {
        TourPanel panel;
        panel.resize(260, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* list = panel.findChild<QListWidget*>(QStringLiteral("tourSteps"));
        QVERIFY(list);
        QTest::qWait(0);
        const int width = list->viewport()->width();
        bool someWrap = false;
        for (int i = 0; i < list->count(); ++i) {
            const QRect r = list->visualItemRect(list->item(i));
            const QRect need = list->fontMetrics().boundingRect(QRect(0, 0, r.width(), 10000), Qt::TextWordWrap,
                                                                list->item(i)->text());
            QVERIFY2(r.right() < width + 1, qPrintable(list->item(i)->text()));
            QVERIFY2(need.height() <= r.height(), qPrintable(QStringLiteral("%1: needs %2 px, has %3")
                                                                 .arg(list->item(i)->text())
                                                                 .arg(need.height())
                                                                 .arg(r.height())));
            someWrap = someWrap || need.height() > list->fontMetrics().height();
        }
        QVERIFY(someWrap); // at 260 px some title is longer than a line, so the check above meant something
    }

    // Regression: the list's focus made its first row current, which started the tour and replaced the window's
    // scenario (F5 did it: hiding the focused control passed the focus to the open tour dock's list). A click, or
    // moving with the keys, chooses a step.
    void focusAloneDoesNotStartTheTour()
    {
        TourPanel panel;
        panel.resize(400, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QApplication::setActiveWindow(&panel);
        QSignalSpy scenarios(&panel, &TourPanel::scenarioRequested);
        auto* list = panel.findChild<QListWidget*>(QStringLiteral("tourSteps"));
        QVERIFY(list);
        list->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(list->hasFocus());
        QCOMPARE(panel.currentStep(), -1);
        QCOMPARE(scenarios.count(), 0);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(0)).center());
        QCOMPARE(panel.currentStep(), 0);
        QTest::keyClick(list, Qt::Key_Down);
        QCOMPARE(panel.currentStep(), 1);
        QCOMPARE(scenarios.count(), 2);
    }

    void shortcutsAreThePresenterKeys()
    {
        TourPanel panel;
        QVERIFY(panel.nextAction()->shortcuts().contains(QKeySequence(Qt::Key_PageDown)));
        QVERIFY(panel.previousAction()->shortcuts().contains(QKeySequence(Qt::Key_PageUp)));
        panel.nextAction()->trigger();
        panel.nextAction()->trigger();
        panel.previousAction()->trigger();
        QCOMPARE(panel.currentStep(), 0);
    }

    void endsStayInRange()
    {
        TourPanel panel;
        panel.setStep(0);
        panel.previousStep();
        QCOMPARE(panel.currentStep(), 0);
        panel.setStep(1000);
        QCOMPARE(panel.currentStep(), panel.stepCount() - 1);
        panel.nextStep();
        QCOMPARE(panel.currentStep(), panel.stepCount() - 1);
        const auto buttons = panel.findChildren<QPushButton*>();
        for (QPushButton* b : buttons)
            if (b->text() == QStringLiteral("Next"))
                QVERIFY(!b->isEnabled());
    }

    void programmerPictureRevealsSegments()
    {
        TourPanel panel;
        panel.setStep(static_cast<int>(*tourStepIndex("picture-gradients")));
        QCOMPARE(panel.revealedSegments(), (std::vector<SegmentKind>{SegmentKind::Weights, SegmentKind::Gradients}));
        QVERIFY(panel.highlightText().contains(QStringLiteral("28.0 GB")));
    }

    void missingPresetSaysSo()
    {
        TourPanel panel;
        panel.setLookups([](const std::string&) -> std::optional<Scenario> { return std::nullopt; },
                         [](const std::string& g) -> std::optional<GpuSpec> { return testdata::gpu(g); });
        QSignalSpy scenarios(&panel, &TourPanel::scenarioRequested);
        panel.setStep(1);
        QCOMPARE(scenarios.count(), 0);
        QVERIFY(panel.explanationText().contains(QStringLiteral("chapter-7b")));
    }
};

QTEST_MAIN(TestUiTeachTour)
#include "tst_ui_teach_tour.moc"
