#pragma once
// Teaching mode (issue 4) around the dashboard: the chapter tour, the formula drill-down, the
// scale-out ladder, the cost receipt and the cheapest fixes, each in a dock of the main window.
// MainWindow only forwards the scenario and listens for requests, so it stays small.

#include "accounting.h"
#include "gpu.h"
#include "scenario.h"

#include <QList>
#include <QObject>

#include <array>

class QAction;
class QDockWidget;
class QMainWindow;

namespace trainmem {

class Dashboard;
class DrillDownPanel;
class FixesPanel;
class LadderChart;
class PresetLibrary;
class ReceiptPanel;
class TourPanel;

class TeachingDocks : public QObject
{
    Q_OBJECT
public:
    TeachingDocks(QMainWindow* window, const PresetLibrary& library, Dashboard* dashboard);

    /// The window's scenario changed: refresh the panels that are visible (the others on show).
    /// `b` is the breakdown the dashboard computed for it, reused by the drill-down and the fixes.
    void setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b);
    /// Large fonts for projectors: every dock's text, the tour's list, title and numbers included.
    void setFontScale(double scale);
    /// Presentation mode: the charts are the slide and, while the tour runs, its narration is the line under
    /// them (the dashboard's); a step does not bring the tour dock onto the slide. Leaving shows the tour dock
    /// when the tour moved on during the presentation.
    void setPresenting(bool on);

    TourPanel* tour() const { return m_tour; }
    DrillDownPanel* drillDown() const { return m_drill; }
    LadderChart* ladder() const { return m_ladder; }
    ReceiptPanel* receipt() const { return m_receipt; }
    FixesPanel* fixes() const { return m_fixes; }
    QDockWidget* dock(int i) const { return m_docks[static_cast<size_t>(i)]; }
    static constexpr int kDockCount = 5;
    /// Show/hide actions for the View menu, then the tour's previous, next and leave.
    QList<QAction*> actions() const;

Q_SIGNALS:
    /// A panel asks the window to switch to this scenario (through undo).
    void scenarioRequested(const trainmem::Scenario& s);
    /// The teacher left the tour: the window goes back to `before` (the scenario before the tour) as one undo step.
    void tourLeft(const trainmem::Scenario& before);

private:
    QDockWidget* addDock(QMainWindow* window, int index, QWidget* content, const QString& title, const char* objectName,
                         Qt::DockWidgetArea area);
    void refresh(int dock);
    void connectDrillDown(Dashboard* dashboard);
    void updateNarration();

    TourPanel* m_tour = nullptr;
    DrillDownPanel* m_drill = nullptr;
    LadderChart* m_ladder = nullptr;
    ReceiptPanel* m_receipt = nullptr;
    FixesPanel* m_fixes = nullptr;
    std::array<QDockWidget*, kDockCount> m_docks{};
    std::array<bool, kDockCount> m_stale{};
    Scenario m_scenario;
    GpuSpec m_gpu;
    Breakdown m_breakdown;
    Dashboard* m_dashboard = nullptr;
    bool m_fromTour = false;       ///< the scenario being applied is the tour's own
    bool m_touring = false;        ///< the window shows a tour step's scenario
    Scenario m_beforeTour;         ///< what the window showed when the tour took over
    bool m_presenting = false;     ///< presentation mode: the tour narrates under the charts
    bool m_steppedOnSlide = false; ///< the tour moved on while presenting (its dock was not shown)
};

} // namespace trainmem
