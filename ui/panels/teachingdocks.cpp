#include "teachingdocks.h"

#include "coreapi.h"
#include "dashboard.h"
#include "drilldownpanel.h"
#include "fixespanel.h"
#include "ladderchart.h"
#include "lazydock.h"
#include "presetlibrary.h"
#include "receiptpanel.h"
#include "tourpanel.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>

#include <qcustomplot.h>

#include <algorithm>

namespace trainmem {

namespace {
enum Dock { TourDock, DrillDock, LadderDock, ReceiptDock, FixesDock };
}

TeachingDocks::TeachingDocks(QMainWindow* window, const PresetLibrary& library, Dashboard* dashboard) : QObject(window)
{
    m_tour = new TourPanel;
    m_tour->setLookups(
        [&library](const std::string& id) -> std::optional<Scenario> {
            if (const PresetEntry* e = library.find(QString::fromStdString(id)))
                return e->scenario;
            return std::nullopt;
        },
        [&library](const std::string& id) -> std::optional<GpuSpec> {
            if (const GpuSpec* g = library.gpus().find(id))
                return *g;
            return std::nullopt;
        });
    m_drill = new DrillDownPanel;
    m_ladder = new LadderChart;
    // Seen squashed to a strip in a bottom dock: bars and labels need room; but no more than a
    // 700 px high window can give beside the dashboard (issue 14).
    m_ladder->setMinimumHeight(200);
    m_receipt = new ReceiptPanel;
    m_receipt->setCatalog(library.gpus());
    m_fixes = new FixesPanel;

    m_docks[TourDock] = addDock(window, TourDock, m_tour, tr("Chapter tour"), "tourDock", Qt::RightDockWidgetArea);
    m_docks[DrillDock] = addDock(window, DrillDock, m_drill, tr("Formula"), "formulaDock", Qt::RightDockWidgetArea);
    m_docks[FixesDock] =
        addDock(window, FixesDock, m_fixes, tr("Cheapest change to fit"), "fixesDock", Qt::RightDockWidgetArea);
    m_docks[ReceiptDock] =
        addDock(window, ReceiptDock, m_receipt, tr("Cost receipt"), "receiptDock", Qt::RightDockWidgetArea);
    m_docks[LadderDock] =
        addDock(window, LadderDock, m_ladder, tr("Scale-out ladder"), "ladderDock", Qt::BottomDockWidgetArea);
    window->tabifyDockWidget(m_docks[TourDock], m_docks[DrillDock]);
    window->tabifyDockWidget(m_docks[DrillDock], m_docks[FixesDock]);
    window->tabifyDockWidget(m_docks[FixesDock], m_docks[ReceiptDock]);
    m_docks[TourDock]->raise();
    for (QDockWidget* d : m_docks)
        d->hide(); // teaching mode is opt-in: the View menu or the tour shortcut shows them

    // The window applies a request synchronously, so setScenario() knows the tour's own scenario
    // from any other (a preset, a drag, undo), which leaves the tour.
    connect(m_tour, &TourPanel::scenarioRequested, this, [this](const Scenario& s) {
        if (!m_touring) { // the tour takes over: remember what to go back to
            m_beforeTour = m_scenario;
            m_touring = true;
            m_tour->setTouring(true);
        }
        m_fromTour = true;
        Q_EMIT scenarioRequested(s);
        m_fromTour = false;
    });
    // Leaving the tour: the scenario before it, as one undo step, and the dock closes.
    connect(m_tour, &TourPanel::leaveRequested, this, [this] {
        if (!m_touring)
            return;
        const Scenario before = m_beforeTour;
        Q_EMIT tourLeft(before); // setScenario() below leaves the tour and clears its picture
        m_docks[TourDock]->hide();
    });
    connect(m_ladder, &LadderChart::scenarioRequested, this, &TeachingDocks::scenarioRequested);
    connect(m_receipt, &ReceiptPanel::scenarioRequested, this, &TeachingDocks::scenarioRequested);
    connect(m_fixes, &FixesPanel::scenarioRequested, this, &TeachingDocks::scenarioRequested);
    // The tour's keys work from anywhere in the window; starting it shows its dock.
    window->addAction(m_tour->nextAction());
    window->addAction(m_tour->previousAction());
    // The tour builds the picture where the class is looking: the bars show the step's segments.
    connect(m_tour, &TourPanel::stepChanged, this, [this, dashboard] {
        if (m_presenting) {
            m_steppedOnSlide = true;
        } else {
            m_docks[TourDock]->show();
            m_docks[TourDock]->raise();
        }
        if (m_tour->currentStage())
            dashboard->setPicture(tourPicture(*m_tour->currentStage()));
        updateNarration();
    });
    m_dashboard = dashboard;
    connectDrillDown(dashboard);
}

QDockWidget* TeachingDocks::addDock(QMainWindow* window, int index, QWidget* content, const QString& title,
                                    const char* objectName, Qt::DockWidgetArea area)
{
    auto* dock = new LazyDock(title, window, content);    // hidden until asked for: its panel goes in then
    dock->setObjectName(QString::fromLatin1(objectName)); // saveState() needs it
    window->addDockWidget(area, dock);
    // The dock's own index, given: docks are made out of index order (the tabbed ones first), and
    // the first empty slot once made the fixes and receipt docks refresh the ladder instead (issue 14).
    connect(dock, &QDockWidget::visibilityChanged, this, [this, index](bool visible) {
        if (visible && m_stale[static_cast<size_t>(index)])
            refresh(index);
    });
    return dock;
}

void TeachingDocks::connectDrillDown(Dashboard* dashboard)
{
    // Clicking a bar segment or a curve explains it.
    MemoryBarChart* bars = dashboard->barChart();
    connect(bars, &QCustomPlot::plottableClick, this, [this, bars](QCPAbstractPlottable* p, int, QMouseEvent*) {
        for (int i = 0; i < kSegmentCount; ++i) {
            if (bars->bars(static_cast<SegmentKind>(i)) == p) {
                m_drill->showSegment(static_cast<SegmentKind>(i));
                m_docks[DrillDock]->show();
                m_docks[DrillDock]->raise();
                return;
            }
        }
    });
    SequenceChart* seq = dashboard->sequenceChart();
    connect(seq, &QCustomPlot::plottableClick, this, [this, seq](QCPAbstractPlottable* p, int, QMouseEvent*) {
        for (CurveKind c : {CurveKind::NoCheckpointing, CurveKind::Selective, CurveKind::Full, CurveKind::PerOp}) {
            if (seq->curve(curveMode(c, Checkpointing::None)) == p) {
                m_drill->showCurve(c);
                m_docks[DrillDock]->show();
                m_docks[DrillDock]->raise();
                return;
            }
        }
        if (seq->floorGraph() == p) {
            m_drill->showCurve(CurveKind::ModelStateFloor);
            m_docks[DrillDock]->show();
            m_docks[DrillDock]->raise();
        }
    });
}

void TeachingDocks::setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b)
{
    m_scenario = s;
    m_gpu = gpu;
    m_breakdown = b;
    if (!m_fromTour) {
        m_touring = false;
        m_tour->setTouring(false);
        m_tour->leave();
        if (m_dashboard->barChart()->picture()) // leaving the tour shows every segment again
            m_dashboard->setPicture(std::nullopt);
        updateNarration();
    }
    for (int i = 0; i < kDockCount; ++i) {
        m_stale[static_cast<size_t>(i)] = true;
        if (m_docks[static_cast<size_t>(i)]->isVisible())
            refresh(i);
    }
}

void TeachingDocks::refresh(int dock)
{
    m_stale[static_cast<size_t>(dock)] = false;
    switch (dock) {
    case TourDock:
        break; // the tour sets scenarios; it does not follow them
    case DrillDock:
        m_drill->setScenario(m_scenario, m_gpu, m_breakdown);
        break;
    case LadderDock:
        m_ladder->setScenario(m_scenario, m_gpu);
        break;
    case ReceiptDock:
        m_receipt->setScenario(m_scenario, m_gpu);
        break;
    case FixesDock:
        m_fixes->setScenario(m_scenario, m_gpu, m_breakdown);
        break;
    default:
        break;
    }
}

void TeachingDocks::setFontScale(double scale)
{
    // The dock's font reaches its panel and the panel's children (the tour's list, its title and highlight
    // follow in TourPanel::changeEvent). At 1 the docks follow the application's font again.
    for (QDockWidget* d : m_docks) {
        QFont f = d->font();
        f.setPointSizeF(QApplication::font().pointSizeF() * scale);
        d->setFont(scale == 1.0 ? QFont() : f);
    }
}

void TeachingDocks::setPresenting(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    if (!on && m_steppedOnSlide && m_tour->currentStep() >= 0) {
        m_docks[TourDock]->show();
        m_docks[TourDock]->raise();
    }
    m_steppedOnSlide = false;
    updateNarration();
}

void TeachingDocks::updateNarration()
{
    const std::optional<TourStage>& stage = m_tour->currentStage();
    if (!m_presenting || !stage || m_tour->hasLeft()) {
        m_dashboard->setNarration({}, {});
        return;
    }
    m_dashboard->setNarration(
        tr("%1. %2").arg(m_tour->currentStep() + 1).arg(QString::fromStdString(stage->step->title)),
        QString::fromStdString(stage->highlight.text));
}

QList<QAction*> TeachingDocks::actions() const
{
    QList<QAction*> list;
    for (QDockWidget* d : m_docks)
        list << d->toggleViewAction();
    list << m_tour->previousAction() << m_tour->nextAction() << m_tour->leaveAction();
    return list;
}

} // namespace trainmem
