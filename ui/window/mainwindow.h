#pragma once
// The window: controls on the left, the dashboard in the middle. It holds the one Scenario;
// every edit goes through the undo stack into setScenario(), the single update path.

#include "chartexport.h"
#include "controlpanel.h"
#include "scenario.h"
#include "settings.h"

#include <QMainWindow>

#include <functional>

class QAction;
class QActionGroup;
class QDockWidget;
class QUndoStack;

namespace trainmem {

class UserGuide;

class Dashboard;
class ErrorBanner;
class PeersPanel;
class RanksPanel;
class FitMapPanel;
class TimelinePanel;
class PresetLibrary;
class TeachingDocks;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(const PresetLibrary& library, const Scenario& initial, QWidget* parent = nullptr);
    ~MainWindow() override;

    const Scenario& scenario() const { return m_scenario; }
    /// Reads a scenario file; on any error shows it in the banner and keeps the current state.
    bool openFile(const QString& path);
    bool saveFile(const QString& path);
    /// Replaces the model with a Hugging Face config.json's (a file or a folder holding one), as one
    /// undo step; on any error shows it in the banner and keeps the current scenario.
    bool importHfConfig(const QString& path);
    /// Applies a training config (a torchtune or axolotl YAML, a DeepSpeed JSON; issue 32) to the scenario as one
    /// undo step, and lists what it set, ignored and did not model in the banner; on any error shows it and keeps
    /// the current scenario.
    bool openTrainingConfig(const QString& path);
    /// Reads a memory readout file (what the GPU showed) and draws it beside the prediction; errors go to the banner.
    bool openMeasured(const QString& path);
    /// What the GPU showed, beside the prediction (nullopt removes it); kept across scenario changes.
    void setMeasured(const std::optional<MeasuredMemory>& measured);
    /// A session file (issue 31 §3): the scenario, the pinned bars, the open docks and the window's layout.
    bool saveSession(const QString& path);
    /// Opens a session as saved; on any error shows it (file, field) and keeps everything as it was.
    bool openSession(const QString& path);
    /// Writes the scenario as a user preset (`dir` defaults to PresetLibrary::userPresetDir()).
    bool saveUserPreset(const QString& dir = QString());
    bool exportTo(const QString& path, ChartKind kind, const ExportOptions& options);
    /// The chapter tour as slides into `dir` (exportTour); false with the error shown.
    bool exportTourTo(const QString& dir, const ExportOptions& options);
    void copyToClipboard();
    enum class BreakdownFormat { Text, Markdown, Csv };
    /// The breakdown on the clipboard: the --text table, a Markdown table, or CSV (also as text/csv).
    void copyBreakdown(BreakdownFormat format);
    void setPresentationMode(bool on);
    /// Help ▸ User guide (F1): the built-in guide, one window reused.
    UserGuide* showUserGuide();
    /// The size of a first start, before fitToScreen().
    static constexpr QSize kFirstSize{1500, 920};
    /// Shrinks and moves the window into `available` (a screen's available geometry), down to its least size.
    void fitToScreen(const QRect& available);
    /// While the window's least size is larger than its screen, tabs an open dock with another open one (same
    /// area first; a side dock with the controls), `opened` first; then fits the window to the screen. So no
    /// combination of docks grows the window past the screen or draws one dock over another (issue 31 §2).
    /// `refit`: fit the window to the screen even when its least size fits (after docks grew it).
    void keepDocksOnScreen(QDockWidget* opened = nullptr, bool refit = false);
    bool presentationMode() const { return m_presentation; }
    /// false: errors go to the banner only, never a modal box (tests, kiosk use).
    void setModalErrors(bool on) { m_modalErrors = on; }

    ControlPanel* controlPanel() const { return m_panel; }
    Dashboard* dashboard() const { return m_dashboard; }
    ErrorBanner* errorBanner() const { return m_banner; }
    TeachingDocks* teaching() const { return m_teaching; }
    PeersPanel* peers() const { return m_peers; }
    QUndoStack* undoStack() const { return m_undo; }
    QAction* action(const QString& objectName) const;

Q_SIGNALS:
    /// After every change of the scenario (edit, undo, redo, preset, file).
    void scenarioChanged(const trainmem::Scenario& s);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void createActions();
    /// openSession() of a file already read (File ▸ Open read it to tell a session from a scenario).
    bool openSessionText(const QString& path, const QByteArray& bytes);
    void openTrainingConfigDialog();
    void pasteMeasuredDialog();
    void applyEdit(const Scenario& s, ControlPanel::Control control, bool continuous);
    void pushScenario(const Scenario& s, int mergeId, const QString& text);
    void setScenario(const Scenario& s);
    void updateTitle();
    void showError(const QString& title, const QStringList& details, bool modal);
    void openDialog();
    void importHfDialog();
    bool saveAsDialog();
    void exportDialog();
    void pin();
    /// A hidden dock holding `panel`, for the View menu.
    QDockWidget* addPanelDock(QWidget* panel, const QString& title, const char* objectName, Qt::DockWidgetArea area,
                              std::function<void()> prepare = {});
    void restoreSettings();
    void saveSettings();

    const PresetLibrary& m_library;
    Settings m_settings;
    Scenario m_scenario;
    QString m_file;
    ControlPanel* m_panel = nullptr;
    QDockWidget* m_dock = nullptr;
    Dashboard* m_dashboard = nullptr;
    ErrorBanner* m_banner = nullptr;
    TeachingDocks* m_teaching = nullptr;
    QString m_lastMeasuredText; ///< the paste dialog reopens with it
    PeersPanel* m_peers = nullptr;
    QDockWidget* m_peersDock = nullptr;
    RanksPanel* m_ranks = nullptr;
    QDockWidget* m_ranksDock = nullptr;
    FitMapPanel* m_fitMap = nullptr;
    QDockWidget* m_fitMapDock = nullptr;
    TimelinePanel* m_timeline = nullptr;
    QDockWidget* m_timelineDock = nullptr;
    /// The film is open because a tour step opened it, not the teacher: a slide under kFilmSlideLeast px high
    /// leaves it out (issue 31: at F5 on a 1024×768 projector it left the bar chart a ~50 px plot under the tour's
    /// three lines, the callout cut and the per-GPU bar's name under its inset).
    bool m_filmByTour = false;
    static constexpr int kFilmSlideLeast = 1000;
    QUndoStack* m_undo = nullptr;
    QActionGroup* m_axisGroup = nullptr;
    QActionGroup* m_themeGroup = nullptr; ///< View ▸ Theme
    UserGuide* m_guide = nullptr;
    int m_mergeEpoch = 0; ///< bumped when a drag ends, so the next drag is its own undo step
    bool m_presentation = false;
    bool m_keepingDocks = false; ///< keepDocksOnScreen() is tabbing docks (their visibility signals re-enter)
    bool m_modalErrors = true;
    bool m_wasMaximized = false;
    QByteArray m_beforePresentation;    ///< docks and tool bars as they were before F5
    QRect m_geometryBeforePresentation; ///< and the window's normal geometry
    bool m_statusBeforePresentation = false;
};

} // namespace trainmem
