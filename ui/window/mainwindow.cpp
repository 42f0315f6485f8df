#include "mainwindow.h"

#include "apptheme.h"
#include "session.h"
#include "userguide.h"

#include "teachingdocks.h"

#include "chartpanel.h"
#include "dashboard.h"
#include "errorbanner.h"
#include "exportdialog.h"
#include "fitmapchart.h"
#include "lazydock.h"
#include "measureddialog.h"
#include "peerspanel.h"
#include "presetlibrary.h"
#include "rankchart.h"
#include "scenariocommand.h"
#include "scenarioio.h"
#include "timelinechart.h"
#include "trainingconfigfiles.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace trainmem {
namespace {

constexpr double kPresentationScale = 1.4;
constexpr int kPresentationStateVersion = 0x5d; ///< saveState() around a presentation, never stored

/// The extension the chosen filter implies, added when the name has none of the filter's.
QString withExtension(QString path, const QString& filter)
{
    const QString ext = filter.contains(QLatin1String("*.pdf"))    ? QStringLiteral(".pdf")
                        : filter.contains(QLatin1String("*.json")) ? QStringLiteral(".json")
                                                                   : QStringLiteral(".png");
    if (!path.endsWith(ext, Qt::CaseInsensitive))
        path += ext;
    return path;
}

} // namespace

MainWindow::MainWindow(const PresetLibrary& library, const Scenario& initial, QWidget* parent)
    : QMainWindow(parent), m_library(library), m_scenario(initial)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/trainmem.svg")));
    m_undo = new QUndoStack(this);
    m_panel = new ControlPanel(library, this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The panel scrolls: its least height is not the window's. Its least width is its widest
    // label or field (rows wrap below that), so a 1024 px window keeps the charts wide (issue 14).
    scroll->setMinimumWidth(m_panel->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
    m_dock = new QDockWidget(tr("Controls"), this);
    m_dock->setObjectName(QStringLiteral("controlsDock"));
    m_dock->setWidget(scroll);
    m_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, m_dock);
    // The right column runs the window's height: a film or fit map opening under the charts leaves the tour's
    // buttons where they were (issue 31 §2: Next jumped ~100 px). The bottom docks keep the width under the controls
    // (the ladder and the fit map are wide).
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    m_banner = new ErrorBanner(central);
    m_dashboard = new Dashboard(central);
    layout->addWidget(m_banner);
    layout->addWidget(m_dashboard, 1);
    setCentralWidget(central);

    m_teaching = new TeachingDocks(this, library, m_dashboard);
    connect(m_teaching, &TeachingDocks::scenarioRequested, this,
            [this](const Scenario& s) { pushScenario(s, -1, tr("Teaching: %1").arg(QString::fromStdString(s.name))); });
    connect(m_teaching, &TeachingDocks::tourLeft, this,
            [this](const Scenario& s) { pushScenario(s, -1, tr("Leave the tour")); });
    // Issue 10: Megatron-LM's and DeepSpeed's own estimates beside TrainMem's.
    // In a scroll area: its chart, table and notes are taller than a 768 px screen leaves beside a bottom dock.
    auto* peersScroll = new QScrollArea(this);
    m_peers = new PeersPanel(peersScroll);
    m_peers->hide(); // until the dock first shows: the scroll area would lay it out now (LazyDock)
    peersScroll->setWidgetResizable(true);
    peersScroll->setFrameShape(QFrame::NoFrame);
    peersScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_peersDock = addPanelDock(peersScroll, tr("Compare with Megatron / DeepSpeed"), "peersDock",
                               Qt::RightDockWidgetArea, [this, peersScroll] {
                                   peersScroll->setWidget(m_peers);
                                   peersScroll->setMinimumWidth(m_peers->minimumSizeHint().width() +
                                                                peersScroll->verticalScrollBar()->sizeHint().width());
                               });
    connect(m_peers, &PeersPanel::scenarioRequested, this,
            [this](const Scenario& s, const QString& text) { pushScenario(s, -1, text); });
    connect(this, &MainWindow::scenarioChanged, m_peers,
            [this](const Scenario& s) { m_peers->setScenario(s, m_library.gpuFor(s)); });
    // Issue 13: every rank kind of the layout with its memory (hidden: computes nothing).
    m_ranks = new RanksPanel(this);
    m_ranksDock = addPanelDock(m_ranks, tr("Ranks"), "ranksDock", Qt::RightDockWidgetArea);
    connect(this, &MainWindow::scenarioChanged, m_ranks,
            [this](const Scenario& s) { m_ranks->setScenario(s, m_library.gpuFor(s)); });
    // Issue 11 §3: GPUs needed over model size × context for this recipe and GPU (hidden: computes nothing).
    // Under the charts, as wide as the window: the map is wide and a right dock at 1024 px would leave it a strip.
    m_fitMap = new FitMapPanel(this);
    m_fitMapDock = addPanelDock(m_fitMap, tr("Fit map"), "fitMapDock", Qt::BottomDockWidgetArea);
    connect(this, &MainWindow::scenarioChanged, m_fitMap,
            [this](const Scenario& s) { m_fitMap->setScenario(s, m_library.gpuFor(s)); });
    // Issue 11 §1: one training step as a film, under the charts like the fit map and tabbed with it, so that
    // a 1024 × 700 window keeps room for the bars; it reuses the breakdown the dashboard just computed.
    m_timeline = new TimelinePanel(this);
    m_timelineDock = addPanelDock(m_timeline, tr("One training step"), "timelineDock", Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_fitMapDock, m_timelineDock);
    connect(this, &MainWindow::scenarioChanged, m_timeline, [this](const Scenario& s) {
        m_timeline->setScenario(s, m_library.gpuFor(s), m_dashboard->state().current, m_dashboard->units());
    });
    // A tour step that plays a phase of the step (issue 11 §2) shows the film with that phase shaded.
    connect(m_dashboard, &Dashboard::pictureChanged, this, [this] {
        const std::optional<TourPicture>& picture = m_dashboard->barChart()->picture();
        const std::optional<StepPhaseKind> phase = picture ? picture->phase : std::nullopt;
        m_timeline->setPicture(picture); // a build-up step's film shows the bars' "so far"
        m_timeline->chart()->setPlayedPhase(phase);
        m_timeline->chart()->refresh();
        // In the window the film comes up for it; a slide keeps the film only when the teacher had it open, so
        // that a 1024 × 768 projector's slide is not split three ways unasked.
        if (phase && !m_presentation) {
            m_filmByTour = m_filmByTour || !m_timelineDock->isVisible();
            m_timelineDock->show();
            m_timelineDock->raise();
        }
    });
    createActions();
    connect(m_panel, &ControlPanel::scenarioEdited, this, &MainWindow::applyEdit);
    connect(m_panel, &ControlPanel::editFinished, this, [this] { ++m_mergeEpoch; });
    connect(m_undo, &QUndoStack::indexChanged, this, [this] { ++m_mergeEpoch; });
    connect(m_undo, &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    connect(m_dashboard, &Dashboard::pinsChanged, this, [this](int n) {
        statusBar()->showMessage(tr("%n bar(s) pinned", nullptr, n), 3000);
        action(QStringLiteral("clearPins"))->setEnabled(n > 0);
        action(QStringLiteral("unpinLast"))->setEnabled(n > 0);
    });

    setAcceptDrops(true); // a dropped config.json (or a .json naming a model_type) imports its model; another .json
                          // opens as a scenario
    restoreSettings();
    setScenario(initial);
    m_undo->setClean();
}

MainWindow::~MainWindow()
{
    // Children outlive this class's part of the object: a spin box losing focus as it is destroyed
    // must not call back into a half-destroyed window.
    disconnect(m_panel, nullptr, this, nullptr);
    disconnect(m_undo, nullptr, this, nullptr);
    disconnect(m_dashboard, nullptr, this, nullptr);
}

QAction* MainWindow::action(const QString& objectName) const
{
    return findChild<QAction*>(objectName);
}

void MainWindow::createActions()
{
    auto make = [this](const QString& name, const QString& text, const QKeySequence& key, const QString& tip,
                       QStyle::StandardPixmap icon = QStyle::SP_CustomBase) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        if (!key.isEmpty())
            a->setShortcut(key);
        a->setStatusTip(tip);
        a->setToolTip(tip);
        if (icon != QStyle::SP_CustomBase)
            a->setIcon(style()->standardIcon(icon));
        return a;
    };
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = make(QStringLiteral("open"), tr("&Open scenario…"), QKeySequence::Open,
                         tr("Open a scenario JSON file"), QStyle::SP_DialogOpenButton);
    QAction* save = make(QStringLiteral("save"), tr("&Save scenario"), QKeySequence::Save,
                         tr("Save the scenario as JSON"), QStyle::SP_DialogSaveButton);
    QAction* saveAs = make(QStringLiteral("saveAs"), tr("Save scenario &as…"), QKeySequence::SaveAs,
                           tr("Save the scenario to a new JSON file"));
    QAction* exportAct = make(QStringLiteral("export"), tr("&Export chart…"), QKeySequence(tr("Ctrl+E")),
                              tr("Export a chart or the dashboard as PNG or PDF for slides"));
    QAction* copy = make(QStringLiteral("copy"), tr("&Copy dashboard image"), QKeySequence(tr("Ctrl+Alt+C")),
                         tr("Copy the dashboard as an image, in the slide theme"));
    QAction* quit = make(QStringLiteral("quit"), tr("&Quit"), QKeySequence::Quit, tr("Quit TrainMem"));
    QAction* importHf =
        make(QStringLiteral("importHfConfig"), tr("&Import Hugging Face config…"), QKeySequence(tr("Ctrl+I")),
             tr("Use the model of a Hugging Face config.json (or drop one on the window)"));
    QAction* openTraining =
        make(QStringLiteral("openTrainingConfig"), tr("Open &training config…"), QKeySequence(tr("Ctrl+Shift+O")),
             tr("Apply a torchtune or axolotl YAML or a DeepSpeed JSON to the scenario (or drop one on the window)"));
    QAction* savePreset = make(QStringLiteral("saveUserPreset"), tr("Save as &user preset"), {},
                               tr("Keep the scenario in your presets folder, listed with the built-in presets"));
    QAction* saveSessionAct =
        make(QStringLiteral("saveSession"), tr("Save se&ssion…"), {},
             tr("Keep the scenario with the pinned bars, the open docks and the layout in one file (File ▸ Open "
                "scenario reopens it)"));
    file->addActions({open, save, saveAs, saveSessionAct});
    file->addSeparator();
    file->addActions({importHf, openTraining, savePreset});
    file->addSeparator();
    file->addActions({exportAct, copy});
    QAction* paste =
        make(QStringLiteral("pasteMegatron"), tr("Paste &Megatron-LM arguments…"), QKeySequence(),
             tr("Read a Megatron-LM launch command and compare Megatron's and DeepSpeed's estimates with TrainMem's"));
    file->addAction(paste);
    connect(paste, &QAction::triggered, this, [this] {
        m_peersDock->show();
        m_peers->pasteDialog();
    });
    file->addSeparator();
    file->addAction(quit);
    connect(open, &QAction::triggered, this, &MainWindow::openDialog);
    connect(save, &QAction::triggered, this, [this] {
        if (m_file.isEmpty())
            saveAsDialog();
        else
            saveFile(m_file);
    });
    connect(saveAs, &QAction::triggered, this, &MainWindow::saveAsDialog);
    connect(saveSessionAct, &QAction::triggered, this, [this] {
        QString filter = tr("TrainMem session (*.session.json)");
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save session"), m_settings.lastDirectory() + QStringLiteral("/lecture.session.json"), filter,
            &filter);
        if (!path.isEmpty())
            saveSession(path.endsWith(QLatin1String(".json")) ? path : path + QStringLiteral(".session.json"));
    });
    connect(importHf, &QAction::triggered, this, &MainWindow::importHfDialog);
    connect(openTraining, &QAction::triggered, this, &MainWindow::openTrainingConfigDialog);
    connect(savePreset, &QAction::triggered, this, [this] { saveUserPreset(); });
    connect(exportAct, &QAction::triggered, this, &MainWindow::exportDialog);
    connect(copy, &QAction::triggered, this, &MainWindow::copyToClipboard);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_undo->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    // The tool bar shows a fixed label: "Undo Load preset The chapter's 70B" grew and pushed the buttons after it
    // under the pointer (issue 31 §2); the menu keeps the full text.
    undo->setIconText(tr("Undo"));
    QAction* redo = m_undo->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redo"));
    redo->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence::Redo});
    redo->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    redo->setIconText(tr("Redo"));
    edit->addActions({undo, redo});
    edit->addSeparator();
    // Issue 31 §3: the breakdown as text for a chat, a Markdown table for notes, CSV for a spreadsheet.
    QAction* copyText = make(QStringLiteral("copyBreakdownText"), tr("Copy breakdown as &text"),
                             QKeySequence(tr("Ctrl+Shift+C")), tr("Copy the breakdown as the --text table"));
    QAction* copyMarkdown = make(QStringLiteral("copyBreakdownMarkdown"), tr("Copy breakdown as Mark&down"), {},
                                 tr("Copy the breakdown as a Markdown table"));
    QAction* copyCsv = make(QStringLiteral("copyBreakdownCsv"), tr("Copy breakdown as CS&V"), {},
                            tr("Copy the busiest GPU's terms as CSV, bytes as whole numbers"));
    edit->addActions({copyText, copyMarkdown, copyCsv});
    connect(copyText, &QAction::triggered, this, [this] { copyBreakdown(BreakdownFormat::Text); });
    connect(copyMarkdown, &QAction::triggered, this, [this] { copyBreakdown(BreakdownFormat::Markdown); });
    connect(copyCsv, &QAction::triggered, this, [this] { copyBreakdown(BreakdownFormat::Csv); });
    edit->addSeparator();
    QAction* pasteMeasured =
        make(QStringLiteral("pasteMeasured"), tr("Paste &measured memory…"), QKeySequence(tr("Ctrl+Shift+M")),
             tr("Put what the GPU showed (torch.cuda.memory_summary(), nvidia-smi, an out-of-memory error, a figure) "
                "beside the prediction of the same statistic"));
    QAction* clearMeasured =
        make(QStringLiteral("clearMeasured"), tr("C&lear measured memory"), {}, tr("Remove the measured bar"));
    clearMeasured->setEnabled(false);
    edit->addActions({pasteMeasured, clearMeasured});
    connect(pasteMeasured, &QAction::triggered, this, &MainWindow::pasteMeasuredDialog);
    connect(clearMeasured, &QAction::triggered, this, [this] { setMeasured(std::nullopt); });

    QMenu* compare = menuBar()->addMenu(tr("&Compare"));
    QAction* pinAct = make(QStringLiteral("pin"), tr("&Pin this scenario"), QKeySequence(tr("Ctrl+P")),
                           tr("Keep the current scenario as an extra bar to compare (up to 8)"));
    QAction* unpin = make(QStringLiteral("unpinLast"), tr("&Unpin the last bar"), QKeySequence(tr("Ctrl+Shift+P")),
                          tr("Remove the most recently pinned bar"));
    QAction* clear = make(QStringLiteral("clearPins"), tr("&Clear pinned bars"), {}, tr("Remove every pinned bar"));
    unpin->setEnabled(false);
    clear->setEnabled(false);
    compare->addActions({pinAct, unpin, clear});
    connect(pinAct, &QAction::triggered, this, &MainWindow::pin);
    connect(unpin, &QAction::triggered, this,
            [this] { m_dashboard->removePin(static_cast<int>(m_dashboard->pins().size()) - 1); });
    connect(clear, &QAction::triggered, m_dashboard, &Dashboard::clearPins);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* present = make(QStringLiteral("presentation"), tr("&Presentation mode"), QKeySequence(Qt::Key_F5),
                            tr("A slide: the verdict and the charts full screen in large fonts, for projectors "
                               "(F5 or Esc leaves)"));
    present->setCheckable(true);
    QAction* leave = make(QStringLiteral("leavePresentation"), tr("Leave presentation mode"),
                          QKeySequence(Qt::Key_Escape), tr("Back to the window as it was"));
    leave->setEnabled(false); // Esc means nothing to the window otherwise
    connect(leave, &QAction::triggered, this, [this] { setPresentationMode(false); });
    addAction(leave);
    QAction* binary = make(QStringLiteral("binaryUnits"), tr("&Binary units (GiB)"), {},
                           tr("Show GiB/TiB (powers of 1024) instead of the chapter's GB/TB"));
    binary->setCheckable(true);
    view->addActions({present, binary});
    QMenu* axis = view->addMenu(tr("Memory &axis"));
    m_axisGroup = new QActionGroup(this);
    const std::pair<AxisScale, QString> scales[] = {{AxisScale::Linear, tr("&Linear (segments to scale)")},
                                                    {AxisScale::Logarithmic, tr("L&ogarithmic (totals only)")}};
    for (const auto& [scale, text] : scales) {
        QAction* a = axis->addAction(text);
        a->setObjectName(QStringLiteral("axis%1").arg(static_cast<int>(scale)));
        a->setCheckable(true);
        a->setData(static_cast<int>(scale));
        a->setStatusTip(tr("Linear keeps every segment's height its share of the bar; logarithmic shows totals of very "
                           "different sizes, but a segment's height no longer is its share"));
        m_axisGroup->addAction(a);
    }
    // Issue 31 §3: the system's palette (dark mode included), or light or dark whatever the desktop says.
    QMenu* theme = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    const std::pair<ThemeChoice, QString> themes[] = {
        {ThemeChoice::System, tr("&System")}, {ThemeChoice::Light, tr("&Light")}, {ThemeChoice::Dark, tr("&Dark")}};
    for (const auto& [choice, text] : themes) {
        QAction* a = theme->addAction(text);
        a->setObjectName(QStringLiteral("theme-") + themeName(choice));
        a->setCheckable(true);
        a->setData(static_cast<int>(choice));
        a->setStatusTip(tr("The window's colours: the desktop's, or light or dark (exported slides stay white)"));
        m_themeGroup->addAction(a);
    }
    connect(m_themeGroup, &QActionGroup::triggered, this, [this](QAction* a) {
        const auto choice = static_cast<ThemeChoice>(a->data().toInt());
        applyTheme(choice);
        m_settings.setTheme(choice);
    });
    view->addSeparator();
    view->addAction(m_dock->toggleViewAction());
    view->addAction(m_peersDock->toggleViewAction());
    view->addAction(m_ranksDock->toggleViewAction());
    view->addAction(m_fitMapDock->toggleViewAction());
    view->addAction(m_timelineDock->toggleViewAction());
    QMenu* teach = menuBar()->addMenu(tr("&Teach"));
    const QList<QAction*> teaching = m_teaching->actions();
    teach->addActions(teaching.mid(0, TeachingDocks::kDockCount));
    teach->addSeparator();
    teach->addActions(teaching.mid(TeachingDocks::kDockCount));
    connect(present, &QAction::toggled, this, &MainWindow::setPresentationMode);
    connect(binary, &QAction::toggled, this, [this](bool on) {
        m_dashboard->setUnits(on ? UnitSystem::Binary : UnitSystem::Decimal);
        m_ranks->setUnits(m_dashboard->units());
    });
    connect(m_axisGroup, &QActionGroup::triggered, this,
            [this](QAction* a) { m_dashboard->setAxisScale(static_cast<AxisScale>(a->data().toInt())); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = make(QStringLiteral("userGuide"), tr("&User guide"), QKeySequence::HelpContents,
                          tr("The README's sections and the accounting, built in: works offline"));
    connect(guide, &QAction::triggered, this, &MainWindow::showUserGuide);
    help->addAction(guide);
    help->addAction(tr("&About TrainMem"), this, [this] {
        QMessageBox::about(this, tr("About TrainMem"),
                           tr("<h3>TrainMem %1</h3><p>Why training a large model does not fit on one GPU: the memory "
                              "of weights, gradients, optimizer state and activations, live.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addActions({open, save});
    bar->addSeparator();
    bar->addActions({undo, redo});
    bar->addSeparator();
    bar->addActions({pinAct, exportAct, present});
    // The film of one step is the third chart (issue 11 §1): one key and one button away.
    QAction* film = m_timelineDock->toggleViewAction();
    connect(film, &QAction::triggered, this, [this] { m_filmByTour = false; }); // the teacher's choice now
    film->setShortcut(QKeySequence(tr("Ctrl+T")));
    film->setToolTip(tr("Show or hide one training step as a film (Ctrl+T)"));
    bar->addAction(film);
    // A dock an action opens comes to the front, not as a background tab (issue 31 §2).
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        connect(d->toggleViewAction(), &QAction::triggered, d, [d](bool shown) {
            if (shown)
                d->raise();
        });
        // However it opens (View menu, tour, a bar clicked), after the layout has taken it in.
        connect(d, &QDockWidget::visibilityChanged, this, [this, d](bool visible) {
            if (visible && !d->isFloating())
                QMetaObject::invokeMethod(
                    this, [this, d] { keepDocksOnScreen(d); }, Qt::QueuedConnection);
        });
    }
    // Presentation mode hides the menu bar and the tool bar, and a shortcut works only while a
    // widget showing its action is visible: the window shows them all.
    for (QAction* a : findChildren<QAction*>())
        if (!a->shortcut().isEmpty() && !actions().contains(a))
            addAction(a);
}

QDockWidget* MainWindow::addPanelDock(QWidget* panel, const QString& title, const char* objectName,
                                      Qt::DockWidgetArea area, std::function<void()> prepare)
{
    auto* dock = new LazyDock(title, this, panel, std::move(prepare)); // the panel goes in when first shown
    dock->setObjectName(QString::fromLatin1(objectName));              // saveState() needs it
    addDockWidget(area, dock);
    dock->hide();
    return dock;
}

void MainWindow::applyEdit(const Scenario& s, ControlPanel::Control control, bool continuous)
{
    const QString text = control == ControlPanel::Control::Preset
                             ? tr("Load preset %1").arg(QString::fromStdString(s.name))
                             : ControlPanel::controlName(control);
    pushScenario(s, continuous ? (m_mergeEpoch << 5) + static_cast<int>(control) : -1, text);
}

void MainWindow::pushScenario(const Scenario& s, int mergeId, const QString& text)
{
    // The epoch moves on every push from indexChanged; keep it for a merging series.
    const int epoch = m_mergeEpoch;
    m_undo->push(new ScenarioCommand(m_scenario, s, mergeId, text, [this](const Scenario& x) { setScenario(x); }));
    if (mergeId >= 0)
        m_mergeEpoch = epoch;
}

void MainWindow::setScenario(const Scenario& s)
{
    m_scenario = s;
    m_panel->setScenario(s);
    QString gpuError;
    const GpuSpec& gpu = m_library.gpuFor(s, &gpuError);
    if (!gpuError.isEmpty())
        statusBar()->showMessage(gpuError, 5000);
    m_dashboard->showScenario(s, gpu);
    m_teaching->setScenario(s, gpu, m_dashboard->state().current);
    updateTitle();
    Q_EMIT scenarioChanged(m_scenario);
}

void MainWindow::updateTitle()
{
    const QString name = m_file.isEmpty() ? QString::fromStdString(m_scenario.name) : QFileInfo(m_file).fileName();
    setWindowTitle(tr("%1[*] — TrainMem").arg(name.isEmpty() ? tr("Untitled") : name));
    setWindowModified(!m_undo->isClean());
}

void MainWindow::showError(const QString& title, const QStringList& details, bool modal)
{
    m_banner->showError(title, details);
    statusBar()->showMessage(title, 8000);
    if (modal && m_modalErrors)
        QMessageBox::warning(this, title, details.join(QLatin1Char('\n')));
}

bool MainWindow::openFile(const QString& path)
{
    if (QByteArray bytes; !readUserFile(path, "a scenario", bytes) && looksLikeSession(bytes.toStdString()))
        return openSessionText(path, bytes); // a session is a scenario with the window around it, read once

    const ScenarioParse parsed = PresetLibrary::loadFile(path);
    if (!parsed.ok()) {
        QStringList lines;
        for (const FieldError& e : parsed.errors)
            lines << toQString(e);
        showError(tr("Could not open %1; the current scenario is kept.").arg(QFileInfo(path).fileName()), lines, false);
        return false;
    }
    FieldErrors semantic = validateScenario(parsed.scenario, path.toStdString());
    if (std::optional<FieldError> e = m_library.unknownGpu(parsed.scenario, path))
        semantic.push_back(std::move(*e));
    if (!semantic.empty()) {
        QStringList lines;
        for (const FieldError& e : semantic)
            lines << toQString(e);
        showError(tr("Could not open %1; the current scenario is kept.").arg(QFileInfo(path).fileName()), lines, false);
        return false;
    }
    m_banner->hide();
    m_file = path;
    pushScenario(parsed.scenario, -1, tr("Open %1").arg(QFileInfo(path).fileName()));
    m_undo->setClean();
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    return true;
}

bool MainWindow::saveFile(const QString& path)
{
    if (const QString failure = saveUserFile(path, QByteArray::fromStdString(scenarioToText(m_scenario)));
        !failure.isEmpty()) {
        showError(tr("Could not save the scenario"), {failure}, true);
        return false;
    }
    m_file = path;
    m_undo->setClean();
    updateTitle();
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::saveSession(const QString& path)
{
    Session s;
    s.scenario = m_scenario;
    s.pins = m_dashboard->pinnedScenarios();
    for (QDockWidget* d : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
        if (d->isVisibleTo(this) && d != m_dock)
            s.docks.push_back(d->objectName().toStdString());
    s.windowState = saveState(Settings::kWindowStateVersion).toBase64().toStdString();
    if (const QString failure = saveUserFile(path, QByteArray::fromStdString(sessionToText(s))); !failure.isEmpty()) {
        showError(tr("Could not save the session"), {failure}, true);
        return false;
    }
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Saved the session %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::openSession(const QString& path)
{
    QByteArray bytes;
    if (std::optional<FieldError> e = readUserFile(path, "a session", bytes)) {
        showError(tr("Could not open the session %1; the window is kept as it was.").arg(QFileInfo(path).fileName()),
                  {toQString(*e)}, false);
        return false;
    }
    return openSessionText(path, bytes);
}

bool MainWindow::openSessionText(const QString& path, const QByteArray& bytes)
{
    const QString cannot =
        tr("Could not open the session %1; the window is kept as it was.").arg(QFileInfo(path).fileName());
    const SessionParse parsed = parseSession(bytes.toStdString(), path.toStdString());
    QStringList lines;
    for (const FieldError& e : parsed.errors)
        lines << toQString(e);
    if (parsed.ok()) {
        // The scenarios as any opened scenario: valid, on a GPU of the catalog.
        auto check = [&](const Scenario& s, const std::string& prefix) {
            FieldErrors semantic = validateScenario(s, path.toStdString());
            if (std::optional<FieldError> e = m_library.unknownGpu(s, path))
                semantic.push_back(std::move(*e));
            for (FieldError& e : semantic) {
                e.path = prefix + e.path;
                lines << toQString(e);
            }
        };
        check(parsed.session.scenario, "/scenario");
        for (size_t i = 0; i < parsed.session.pins.size(); ++i)
            check(parsed.session.pins[i], "/pins/" + std::to_string(i));
        if (parsed.session.pins.size() > static_cast<size_t>(MemoryBarChart::kMaxPinned))
            lines << tr("%1: /pins: at most %2 pinned bars, got %3")
                         .arg(path)
                         .arg(MemoryBarChart::kMaxPinned)
                         .arg(parsed.session.pins.size());
    }
    QStringList known;
    for (QDockWidget* d : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
        known << d->objectName();
    for (size_t i = 0; i < parsed.session.docks.size(); ++i)
        if (!known.contains(QString::fromStdString(parsed.session.docks[i])))
            lines << tr("%1: /docks/%2: no dock \"%3\" (the docks are %4)")
                         .arg(path)
                         .arg(i)
                         .arg(QString::fromStdString(parsed.session.docks[i]), known.join(QStringLiteral(", ")));
    if (!lines.isEmpty()) {
        showError(cannot, lines, false);
        return false;
    }
    const Session& s = parsed.session;
    m_banner->hide();
    pushScenario(s.scenario, -1, tr("Open session %1").arg(QFileInfo(path).fileName()));
    m_file.clear(); // Save writes a scenario file: a session is saved with Save session
    m_dashboard->clearPins();
    for (const Scenario& pin : s.pins)
        m_dashboard->pinScenario(pin, m_library.gpuFor(pin));
    if (!s.windowState.empty())
        restoreState(QByteArray::fromBase64(QByteArray::fromStdString(s.windowState)), Settings::kWindowStateVersion);
    for (QDockWidget* d : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
        if (d != m_dock)
            d->setVisible(std::find(s.docks.begin(), s.docks.end(), d->objectName().toStdString()) != s.docks.end());
    keepDocksOnScreen(); // saved on a larger screen
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    return true;
}

bool MainWindow::importHfConfig(const QString& path)
{
    Scenario imported;
    const FieldErrors errors = PresetLibrary::importHfConfig(path, m_scenario, imported);
    QStringList lines;
    for (const FieldError& e : errors)
        lines << toQString(e);
    for (const FieldError& e : errors.empty() ? validateScenario(imported, path.toStdString()) : FieldErrors{})
        lines << toQString(e);
    if (!lines.isEmpty()) {
        showError(tr("Could not import %1; the current scenario is kept.").arg(QFileInfo(path).fileName()), lines,
                  false);
        return false;
    }
    m_banner->hide();
    m_file.clear(); // the import is not the file on disk: Save asks where to write it
    pushScenario(imported, -1, tr("Import %1").arg(QString::fromStdString(imported.name)));
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    statusBar()->showMessage(
        tr("Imported %1: %2").arg(QString::fromStdString(imported.name), QString::fromStdString(imported.description)),
        8000);
    return true;
}

bool MainWindow::saveUserPreset(const QString& dir)
{
    const QString folder = dir.isEmpty() ? PresetLibrary::userPresetDir() : dir;
    const QString id = QString::fromStdString(m_scenario.id.empty() ? "my-preset" : m_scenario.id);
    const QString path = QDir(folder).filePath(id + QStringLiteral(".json"));
    const QString failure = QDir().mkpath(folder)
                                ? saveUserFile(path, QByteArray::fromStdString(scenarioToText(m_scenario)))
                                : tr("%1: the folder cannot be created").arg(folder);
    if (!failure.isEmpty()) {
        showError(tr("Could not save the user preset"), {failure}, true);
        return false;
    }
    statusBar()->showMessage(
        tr("Saved the user preset %1 (listed from the next start)").arg(QDir::toNativeSeparators(path)), 6000);
    return true;
}

bool MainWindow::openTrainingConfig(const QString& path)
{
    const QString name = QFileInfo(path).fileName();
    const QString cannot = tr("Could not open the training config %1; the current scenario is kept.").arg(name);
    const std::optional<TrainingConfigKind> kind = detectTrainingConfig(path);
    if (!kind) {
        QByteArray probe;
        const std::optional<FieldError> unread = readUserFile(path, "a training config", probe);
        showError(cannot,
                  {unread ? toQString(*unread)
                          : tr("%1: is not a torchtune or axolotl YAML (.yaml, .yml) or a DeepSpeed config JSON "
                               "(zero_optimization, train_micro_batch_size_per_gpu, …)")
                                .arg(path)},
                  false);
        return false;
    }
    TrainingConfigFlags flags;
    (*kind == TrainingConfigKind::DeepSpeed ? flags.deepspeed
     : *kind == TrainingConfigKind::Axolotl ? flags.axolotl
                                            : flags.torchtune) = path;
    flags.startingModel = tr("the current scenario");
    flags.optionNames = false;
    QString error;
    std::optional<TrainingConfigRead> read = readTrainingConfigFiles(flags, m_scenario, error);
    QStringList notes;
    if (read && !finishTrainingConfig(read->config, OverrideFlags{}, read->scenario, notes, error))
        read.reset();
    if (!read) {
        showError(cannot, error.split(QLatin1Char('\n')), false);
        return false;
    }
    // A file can set a layout the scenario's GPUs cannot hold (ZeRO-3 offload of params needs ZeRO 3, and so on).
    if (const FieldErrors semantic = validateScenario(read->scenario, path.toStdString()); !semantic.empty()) {
        QStringList lines;
        for (const FieldError& e : semantic)
            lines << toQString(e);
        showError(cannot, lines, false);
        return false;
    }
    const TrainingConfig& c = read->config;
    for (const std::string& n : c.notes)
        notes.prepend(QString::fromStdString(n));
    QStringList lines;
    QStringList set;
    for (const std::string& k : describeTrainingConfig(c))
        set << QString::fromStdString(k);
    lines << tr("Read: %1").arg(set.isEmpty() ? tr("nothing TrainMem models") : set.join(QStringLiteral("; ")));
    if (!c.ignored.empty()) {
        QStringList ignored;
        for (const std::string& i : c.ignored)
            ignored << QString::fromStdString(i);
        lines << tr("Ignored (not read by TrainMem): %1").arg(ignored.join(QStringLiteral(", ")));
    }
    for (const QString& n : notes)
        lines << tr("Note: %1").arg(n);
    const QString kindName = *kind == TrainingConfigKind::DeepSpeed ? tr("DeepSpeed config")
                             : *kind == TrainingConfigKind::Axolotl ? tr("axolotl config")
                                                                    : tr("torchtune recipe");
    m_file.clear(); // the scenario is not the file on disk: Save asks where to write it
    pushScenario(read->scenario, -1, tr("Open %1 %2").arg(kindName, name));
    m_banner->showInfo(tr("Opened the %1 %2 (Edit ▸ Undo puts the scenario back).").arg(kindName, name), lines);
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    return true;
}

void MainWindow::openTrainingConfigDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open training config"), m_settings.lastDirectory(),
        tr("Training configs (*.yaml *.yml *.json);;torchtune or axolotl YAML (*.yaml *.yml);;DeepSpeed JSON "
           "(*.json);;All files (*)"));
    if (!path.isEmpty())
        openTrainingConfig(path);
}

void MainWindow::setMeasured(const std::optional<MeasuredMemory>& measured)
{
    m_dashboard->setMeasured(measured);
    action(QStringLiteral("clearMeasured"))->setEnabled(measured.has_value());
}

void MainWindow::copyBreakdown(BreakdownFormat format)
{
    const DashboardState& st = m_dashboard->state();
    const GpuSpec& gpu = m_library.gpuFor(m_scenario);
    const std::string text = format == BreakdownFormat::Markdown ? breakdownToMarkdown(st.current, m_scenario, gpu)
                             : format == BreakdownFormat::Csv    ? breakdownToCsv(st.current, m_scenario, gpu)
                                                                 : breakdownToText(st.current, m_scenario, gpu);
    auto* mime = new QMimeData;
    mime->setText(QString::fromStdString(text));
    if (format == BreakdownFormat::Csv) // a spreadsheet takes text/csv; an editor the plain text
        mime->setData(QStringLiteral("text/csv"), QByteArray::fromStdString(text));
    QApplication::clipboard()->setMimeData(mime);
    statusBar()->showMessage(format == BreakdownFormat::Markdown ? tr("Copied the breakdown as a Markdown table")
                             : format == BreakdownFormat::Csv    ? tr("Copied the breakdown as CSV")
                                                                 : tr("Copied the breakdown as text"),
                             4000);
}

bool MainWindow::openMeasured(const QString& path)
{
    QByteArray bytes;
    MeasuredMemory m;
    if (const std::optional<FieldError> e = readUserFile(path, "a memory readout", bytes))
        m.errors.push_back(*e);
    else
        m = parseMeasuredMemory(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())),
                                path.toStdString());
    if (!m.ok()) {
        QStringList lines;
        for (const FieldError& e : m.errors)
            lines << toQString(e);
        showError(tr("Could not read the measured memory in %1").arg(QFileInfo(path).fileName()), lines, false);
        return false;
    }
    m_banner->hide();
    setMeasured(m);
    m_lastMeasuredText = QString::fromUtf8(bytes);
    return true;
}

void MainWindow::pasteMeasuredDialog()
{
    MeasuredDialog dialog(this);
    if (!m_lastMeasuredText.isEmpty())
        dialog.setText(m_lastMeasuredText);
    const int answer = dialog.exec();
    m_lastMeasuredText = dialog.editor()->toPlainText();
    if (answer == QDialog::Accepted)
        setMeasured(dialog.result());
}

void MainWindow::importHfDialog()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import Hugging Face config"), m_settings.lastDirectory(),
                                     tr("Hugging Face config (config.json *.json);;All files (*)"));
    if (!path.isEmpty())
        importHfConfig(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    const QList<QUrl> urls = e->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile()) {
        const QFileInfo info(urls.front().toLocalFile());
        static const QStringList kSuffixes{QStringLiteral("json"), QStringLiteral("yaml"), QStringLiteral("yml"),
                                           QStringLiteral("txt"), QStringLiteral("log")};
        if (info.isDir() || kSuffixes.contains(info.suffix(), Qt::CaseInsensitive))
            e->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* e)
{
    const QList<QUrl> urls = e->mimeData()->urls();
    if (urls.size() != 1 || !urls.front().isLocalFile())
        return;
    const QString path = urls.front().toLocalFile();
    const QFileInfo info(path);
    e->acceptProposedAction();
    // config.json (or a model folder, or a .json naming a model_type under another name) is a Hugging Face config; a
    // YAML or a DeepSpeed JSON a training config; a text or log file a memory readout; any other .json is a scenario
    // file.
    const QString suffix = info.suffix().toLower();
    if (info.isDir() || info.fileName() == QLatin1String("config.json") || looksLikeHfConfig(path))
        importHfConfig(path);
    else if (suffix == QLatin1String("yaml") || suffix == QLatin1String("yml") || detectTrainingConfig(path))
        openTrainingConfig(path);
    else if (suffix == QLatin1String("txt") || suffix == QLatin1String("log"))
        openMeasured(path);
    else
        openFile(path);
}

bool MainWindow::exportTo(const QString& path, ChartKind kind, const ExportOptions& options)
{
    ChartExtras extras;
    extras.pins = m_dashboard->pins();
    extras.units = m_dashboard->units();
    extras.axisScale = m_dashboard->axisScale();
    extras.megatron = m_peers->pastedArgs();
    extras.measured = m_dashboard->measured();
    const ExportFormat format =
        path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive) ? ExportFormat::Pdf : ExportFormat::Png;
    QString error;
    if (!exportChart(m_scenario, m_library.gpuFor(m_scenario), kind, path, format, options, extras, &error)) {
        showError(tr("Export failed"), {error}, true);
        return false;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::exportTourTo(const QString& dir, const ExportOptions& options)
{
    QStringList written;
    QString error;
    if (!exportTour(dir, options, &written, &error)) {
        showError(tr("Export failed"), {error}, true);
        return false;
    }
    statusBar()->showMessage(
        tr("Wrote %1 slides and index.md to %2").arg(written.size() - 1).arg(QDir::toNativeSeparators(dir)), 6000);
    return true;
}

void MainWindow::copyToClipboard()
{
    ChartExtras extras;
    extras.pins = m_dashboard->pins();
    extras.units = m_dashboard->units();
    extras.axisScale = m_dashboard->axisScale();
    extras.megatron = m_peers->pastedArgs();
    extras.measured = m_dashboard->measured();
    const QImage image = renderChart(m_scenario, m_library.gpuFor(m_scenario), m_settings.exportChart(),
                                     m_settings.exportOptions(), extras);
    if (image.isNull()) {
        showError(tr("Copy failed"), {tr("The image could not be rendered.")}, true);
        return;
    }
    QApplication::clipboard()->setImage(image);
    statusBar()->showMessage(tr("Copied a %1 × %2 image").arg(image.width()).arg(image.height()), 4000);
}

void MainWindow::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), m_settings.lastDirectory(),
                                                      tr("Scenario or session (*.json);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

bool MainWindow::saveAsDialog()
{
    QString filter = tr("Scenario (*.json)");
    const QString suggested = m_settings.lastDirectory() + QLatin1Char('/') +
                              QString::fromStdString(m_scenario.id.empty() ? "scenario" : m_scenario.id) +
                              QStringLiteral(".json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), suggested, filter, &filter);
    return !path.isEmpty() && saveFile(withExtension(path, filter));
}

void MainWindow::exportDialog()
{
    ExportDialog dialog(m_settings.exportChart(), m_settings.exportOptions(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_settings.setExportChart(dialog.chart());
    m_settings.setExportOptions(dialog.options());
    if (dialog.tourSlides()) {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Export the tour as slides into"), m_settings.lastDirectory());
        if (!dir.isEmpty() && exportTourTo(dir, dialog.options()))
            m_settings.setLastDirectory(dir);
        return;
    }
    QString filter = tr("PNG image (*.png)");
    const QString suggested = m_settings.lastDirectory() + QLatin1Char('/') +
                              QString::fromStdString(m_scenario.id.empty() ? "trainmem" : m_scenario.id) +
                              QStringLiteral(".png");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), suggested,
                                                      tr("PNG image (*.png);;PDF document (*.pdf)"), &filter);
    if (path.isEmpty())
        return;
    const QString file = withExtension(path, filter);
    if (exportTo(file, dialog.chart(), dialog.options()))
        m_settings.setLastDirectory(QFileInfo(file).absolutePath());
}

void MainWindow::pin()
{
    if (!m_dashboard->addPin())
        statusBar()->showMessage(tr("At most %1 bars can be pinned; unpin one first.").arg(MemoryBarChart::kMaxPinned),
                                 5000);
}

void MainWindow::setPresentationMode(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    // A slide: the verdict and the charts fill the screen; docks, tool bar, menus, status bar and the
    // controls go, and come back as they were (issue 14). The actions stay on the window, so their
    // keys still work with the menu bar hidden.
    if (on) {
        m_beforePresentation = saveState(kPresentationStateVersion);
        m_wasMaximized = isMaximized();
        m_geometryBeforePresentation = isMaximized() || isFullScreen() ? QRect() : geometry();
        // The film of one step stays when it is shown: it is the third chart (issue 11 §1); on a small screen only
        // when the teacher opened it (a tour step opens it in the window).
        const bool smallSlide = screen() && screen()->geometry().height() < kFilmSlideLeast;
        for (QDockWidget* d : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly))
            if (d != m_timelineDock || d->visibleRegion().isEmpty() || (m_filmByTour && smallSlide))
                d->hide();
        // On the slide the film is a chart, not a dock: no title bar (issue 31 §2: it stayed), and below.
        if (m_timelineDock->isVisible() && !m_timelineDock->titleBarWidget())
            m_timelineDock->setTitleBarWidget(new QWidget(m_timelineDock));
        for (QToolBar* t : findChildren<QToolBar*>(Qt::FindDirectChildrenOnly))
            t->hide();
        menuBar()->hide();
        // statusBar() makes one: only a status bar that is there is hidden, and shown again.
        auto* status = findChild<QStatusBar*>(QString(), Qt::FindDirectChildrenOnly);
        m_statusBeforePresentation = status && status->isVisible();
        if (status)
            status->hide();
    }
    const double scale = on ? kPresentationScale : 1.0;
    m_dashboard->setFontScale(scale);
    m_teaching->setFontScale(scale); // a teaching dock shown on the slide (a bar clicked: the formula) reads too
    for (ChartPanel* p : std::initializer_list<ChartPanel*>{m_ranks, m_fitMap, m_timeline})
        p->setFontScale(scale);
    if (QAction* a = action(QStringLiteral("presentation")); a && a->isChecked() != on)
        a->setChecked(on);
    action(QStringLiteral("leavePresentation"))->setEnabled(on);
    if (on) {
        m_teaching->setPresenting(true); // the tour's narration under the charts
        // Without a window manager (a kiosk, a bare X server) the full-screen state alone moves nothing.
        if (QScreen* sc = screen())
            setGeometry(sc->geometry());
        showFullScreen();
        // The film keeps a third of the slide: at its window height under a two-row legend in the slide's fonts its
        // plot was ~40 px tall at 1920 × 1080 (issue 31 §2).
        if (m_timelineDock->isVisible())
            resizeDocks({m_timelineDock}, {height() * 36 / 100}, Qt::Vertical);
        return;
    }
    if (m_wasMaximized)
        showMaximized();
    else
        showNormal();
    if (m_geometryBeforePresentation.isValid())
        setGeometry(m_geometryBeforePresentation);
    menuBar()->show();
    if (m_statusBeforePresentation)
        statusBar()->show();
    // The docks' sizes are kept for the window's own size: lay out at that size first.
    if (QLayout* l = layout())
        l->activate();
    if (QWidget* bare = m_timelineDock->titleBarWidget()) { // the film's title bar back
        m_timelineDock->setTitleBarWidget(nullptr);
        bare->deleteLater();
    }
    restoreState(m_beforePresentation, kPresentationStateVersion);
    m_teaching->setPresenting(false); // after the docks are back: a tour moved on meanwhile shows its dock
}

void MainWindow::restoreSettings()
{
    const QByteArray geometry = m_settings.geometry();
    if (geometry.isEmpty() || !restoreGeometry(geometry))
        resize(kFirstSize);
    if (const QScreen* sc = screen())
        fitToScreen(sc->availableGeometry());
    restoreState(m_settings.windowState(), Settings::kWindowStateVersion);
    keepDocksOnScreen(); // docks saved on a larger screen
    m_dashboard->splitter()->restoreState(m_settings.splitterState());
    const UnitSystem units = m_settings.units();
    m_dashboard->setUnits(units);
    action(QStringLiteral("binaryUnits"))->setChecked(units == UnitSystem::Binary);
    const ThemeChoice theme = m_settings.theme();
    if (theme != ThemeChoice::System)
        applyTheme(theme);
    for (QAction* a : m_themeGroup->actions())
        a->setChecked(a->data().toInt() == static_cast<int>(theme));
    const AxisScale scale = m_settings.axisScale();
    m_dashboard->setAxisScale(scale);
    for (QAction* a : m_axisGroup->actions())
        a->setChecked(a->data().toInt() == static_cast<int>(scale));
}

void MainWindow::fitToScreen(const QRect& available)
{
    // Issue 31 §2: the first start (1500 × 920) or a size saved on a larger screen must not run off a 1024 × 768
    // projector; the window takes the room there is, down to its least size.
    if (available.isEmpty())
        return;
    const QSize frame = frameGeometry().size() - size(); // the title bar and borders, where there are any
    const QSize room = (available.size() - frame).expandedTo(QSize(1, 1));
    const QSize fitted = size().boundedTo(room).expandedTo(minimumSizeHint().expandedTo(minimumSize()));
    if (fitted != size())
        resize(fitted);
    const QRect outer = frameGeometry();
    if (!available.contains(outer)) // move() places the frame
        move(
            std::clamp(outer.x(), available.left(), std::max(available.left(), available.right() - outer.width() + 1)),
            std::clamp(outer.y(), available.top(), std::max(available.top(), available.bottom() - outer.height() + 1)));
}

UserGuide* MainWindow::showUserGuide()
{
    if (!m_guide)
        m_guide = new UserGuide(this);
    m_guide->show();
    m_guide->raise();
    m_guide->activateWindow();
    return m_guide;
}

void MainWindow::keepDocksOnScreen(QDockWidget* opened, bool refit)
{
    const QScreen* sc = screen();
    if (!sc || m_presentation || m_keepingDocks)
        return;
    m_keepingDocks = true;
    const QRect available = sc->availableGeometry();
    const QSize room = available.size() - (frameGeometry().size() - size());
    auto tooBig = [&] {
        if (QLayout* l = layout())
            l->invalidate();
        const QSize least = minimumSizeHint().expandedTo(minimumSize());
        return least.width() > room.width() || least.height() > room.height();
    };
    auto isOpen = [this](QDockWidget* d) { return d->isVisibleTo(this) && !d->isFloating(); };
    QList<QDockWidget*> order;
    if (opened && opened != m_dock && isOpen(opened))
        order << opened;
    for (QDockWidget* d : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
        if (d != m_dock && d != opened && isOpen(d))
            order << d;
    bool moved = false;
    for (QDockWidget* d : order) {
        if (!tooBig())
            break;
        const Qt::DockWidgetArea area = dockWidgetArea(d);
        const QList<QDockWidget*> group = tabifiedDockWidgets(d);
        QDockWidget* target = nullptr;
        for (QDockWidget* other : order)
            if (other != d && !group.contains(other) && dockWidgetArea(other) == area) {
                target = other;
                break;
            }
        if (!target && (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea) && isOpen(m_dock) &&
            !group.contains(m_dock))
            target = m_dock; // a side dock takes the controls' column, in front of them
        if (!target)
            continue;
        tabifyDockWidget(target, d);
        d->raise();
        moved = true;
    }
    if (QLayout* l = layout(); l && moved) { // the window's least size follows the new tab groups
        l->invalidate();
        l->activate();
    }
    if (moved || refit) // a window the user made larger than the screen stays so; one the docks grew does not
        fitToScreen(available);
    if (moved) // a wrapped sentence in a moved dock refits to its new width after this pass: fit again then
        QMetaObject::invokeMethod(
            this, [this] { keepDocksOnScreen(nullptr, true); }, Qt::QueuedConnection);
    m_keepingDocks = false;
}

void MainWindow::saveSettings()
{
    m_settings.setGeometry(saveGeometry());
    m_settings.setWindowState(saveState(Settings::kWindowStateVersion));
    m_settings.setSplitterState(m_dashboard->splitter()->saveState());
    m_settings.setUnits(m_dashboard->units());
    m_settings.setAxisScale(m_dashboard->axisScale());
    m_settings.setLastScenario(m_scenario);
    m_settings.sync();
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (m_presentation)
        setPresentationMode(false);
    saveSettings();
    e->accept();
}

} // namespace trainmem
