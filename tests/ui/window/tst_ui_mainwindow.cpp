// The window around the charts: scenario files, undo/redo, pins, remembered state, presentation mode.
#include "uitestutil.h"

#include "userguide.h"
#include "verdictlabel.h"

#include "chartexport.h"
#include "controlpanel.h"
#include "dashboard.h"
#include "errorbanner.h"
#include "logsliderfield.h"
#include "mainwindow.h"
#include "settings.h"

#include <QClipboard>
#include <QDockWidget>
#include <QListWidget>
#include <QMimeData>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolBar>
#include <QUndoStack>

using namespace trainmem;
using namespace trainmem::uitest;

class TestUiMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void badFileShowsErrorAndKeepsState_data();
    void badFileShowsErrorAndKeepsState();
    void saveThenOpenRoundTrips();
    void sliderDragIsOneUndoStep();
    void undoRedoRestoresSnapshots();
    void pinAddsBarsUpToEight();
    void lastStateRestoredOnStart();
    void presentationModeEnlargesFonts();
    void exportFailureIsReported();
    void breakdownCopiesAsTextMarkdownAndCsv();
    void firstStartFitsTheScreen();
    void toolBarButtonsStayPut();
    void slideFooterNamesTheLayout();
    void themeFollowsTheChoice();
    void userGuideWorksOffline();
    void sessionKeepsPinsAndDocks();

private:
    QTemporaryDir m_dir;
};

void TestUiMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestUiMainWindow::init()
{
    QSettings().clear();
}

void TestUiMainWindow::badFileShowsErrorAndKeepsState_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expectedInMessage");
    QTest::newRow("negative seq_len names its JSON path")
        << QByteArray(R"({"schema": "trainmem/scenario@1", "training": {"seq_len": -4}})") << "/training/seq_len";
    QTest::newRow("not JSON at all") << QByteArray("this is not json {") << "bad.json";
    QTest::newRow("unknown precision names its JSON path")
        << QByteArray(R"({"schema": "trainmem/scenario@1", "training": {"precision": "fp7"}})")
        << "/training/precision";
    QTest::newRow("missing file") << QByteArray() << "cannot be read";
    // Issue 33 §7: it used to warn in the status bar and silently draw an H100.
    QTest::newRow("unknown GPU is refused as --gpu refuses it")
        << QByteArray(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "hardware": {"gpu": "h999"}})")
        << "/hardware/gpu: unknown GPU \"h999\" (known: ";
}

void TestUiMainWindow::badFileShowsErrorAndKeepsState()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, expectedInMessage);
    const QString path = m_dir.filePath(QStringLiteral("bad.json"));
    QFile::remove(path);
    if (!content.isEmpty()) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    }
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-70b")));
    w.setModalErrors(false);
    const double before = w.dashboard()->state().current.modelStateBytes;
    QSignalSpy spy(&w, &MainWindow::scenarioChanged);
    QVERIFY(!w.openFile(path));
    QCOMPARE(spy.count(), 0);
    QVERIFY(w.errorBanner()->isVisibleTo(&w));
    QVERIFY2(w.errorBanner()->text().contains(expectedInMessage), qPrintable(w.errorBanner()->text()));
    QCOMPARE(w.scenario().id, std::string("chapter-70b"));
    QCOMPARE(w.dashboard()->state().current.modelStateBytes, before);
    QCOMPARE(before, 1.12e12);
    QCOMPARE(w.undoStack()->count(), 0);
}

void TestUiMainWindow::saveThenOpenRoundTrips()
{
    const QString path = m_dir.filePath(QStringLiteral("roundtrip.json"));
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.controlPanel()->microBatchBox()->setValue(3);
        QVERIFY(w.saveFile(path));
        QVERIFY(w.undoStack()->isClean());
    }
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("llama3-70b")));
    QSignalSpy spy(&w, &MainWindow::scenarioChanged);
    QVERIFY(w.openFile(path));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(w.scenario().training.microBatch, int64_t{3});
    QCOMPARE(w.scenario().model.params, int64_t{7'000'000'000});
    QVERIFY(!w.errorBanner()->isVisibleTo(&w));
    // Opening is undoable like any edit.
    w.undoStack()->undo();
    QCOMPARE(w.scenario().id, std::string("llama3-70b"));
}

void TestUiMainWindow::sliderDragIsOneUndoStep()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    QSlider* s = w.controlPanel()->contextField()->slider();
    const int64_t seq0 = w.scenario().training.seqLen;
    s->setSliderDown(true);
    for (int i = 1; i <= 5; ++i)
        s->setValue(s->value() + 1);
    s->setSliderDown(false); // release ends the step
    QCOMPARE(w.undoStack()->count(), 1);
    s->setSliderDown(true);
    s->setValue(s->value() + 1);
    s->setSliderDown(false);
    QCOMPARE(w.undoStack()->count(), 2); // a second drag is its own step
    w.undoStack()->undo();
    w.undoStack()->undo();
    QCOMPARE(w.scenario().training.seqLen, seq0);
    QCOMPARE(w.dashboard()->sequenceChart()->data().currentSeq, static_cast<double>(seq0));
}

void TestUiMainWindow::undoRedoRestoresSnapshots()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    w.controlPanel()->gpuCountBox()->setValue(8);
    Q_EMIT w.controlPanel()->gpuCountBox()->editingFinished();
    QComboBox* zero = w.controlPanel()->zeroBox();
    zero->setCurrentIndex(zero->findData(3));
    QCOMPARE(w.dashboard()->state().current.perGpu.modelState(), 14e9);
    QCOMPARE(w.undoStack()->count(), 2);
    w.undoStack()->undo();
    QCOMPARE(w.scenario().hardware.zeroStage, 0);
    QCOMPARE(w.dashboard()->state().current.perGpu.modelState(), 112e9);
    QCOMPARE(w.controlPanel()->zeroBox()->currentData().toInt(), 0); // the controls follow undo
    w.undoStack()->redo();
    QCOMPARE(w.scenario().hardware.zeroStage, 3);
    QCOMPARE(barValue(w.dashboard()->barChart()->bars(SegmentKind::Weights), 2), 14e9 / 8);
}

void TestUiMainWindow::pinAddsBarsUpToEight()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    QAction* pin = w.action(QStringLiteral("pin"));
    QVERIFY(pin);
    QCOMPARE(pin->shortcut(), QKeySequence(QStringLiteral("Ctrl+P")));
    pin->trigger();
    w.controlPanel()->paramsField()->slider()->setValue(
        static_cast<int>(std::find(w.controlPanel()->paramsField()->steps().begin(),
                                   w.controlPanel()->paramsField()->steps().end(), 70'000'000'000) -
                         w.controlPanel()->paramsField()->steps().begin()));
    MemoryBarChart* bars = w.dashboard()->barChart();
    QCOMPARE(bars->columns().size(), size_t{4});
    // The pin keeps the 7B per-GPU bar while the scenario moved to 70B.
    QCOMPARE(barValue(bars->bars(SegmentKind::Optimizer), 3), 56e9);
    QCOMPARE(barValue(bars->bars(SegmentKind::Optimizer), 2), 560e9);
    // Issue 14: a preset pinned as it is goes by its name; the edited 70B by its size.
    QVERIFY2(bars->columns()[3].label.startsWith(QStringLiteral("Pin 1: The chapter's 7B\ntraining\n1 × H100")),
             qPrintable(bars->columns()[3].label));
    for (int i = 0; i < 10; ++i)
        pin->trigger();
    QVERIFY2(bars->columns()[4].label.startsWith(QStringLiteral("Pin 2: 70B\ntraining")),
             qPrintable(bars->columns()[4].label));
    QCOMPARE(w.dashboard()->pins().size(), size_t{8});
    QCOMPARE(bars->columns().size(), size_t{11});
    w.action(QStringLiteral("unpinLast"))->trigger();
    QCOMPARE(bars->columns().size(), size_t{10});
    w.action(QStringLiteral("clearPins"))->trigger();
    QCOMPARE(bars->columns().size(), size_t{3});
}

void TestUiMainWindow::lastStateRestoredOnStart()
{
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.controlPanel()->microBatchBox()->setValue(5);
        w.action(QStringLiteral("binaryUnits"))->setChecked(true);
        w.close(); // saves
    }
    Settings settings;
    const std::optional<Scenario> last = settings.lastScenario();
    QVERIFY(last.has_value());
    QCOMPARE(last->training.microBatch, int64_t{5});
    QCOMPARE(settings.units(), UnitSystem::Binary);
    MainWindow again(PresetLibrary::instance(), *last);
    QCOMPARE(again.dashboard()->units(), UnitSystem::Binary);
    QVERIFY(again.action(QStringLiteral("binaryUnits"))->isChecked());
    QCOMPARE(
        again.dashboard()->barChart()->totalLabel(1)->text(),
        QString::fromStdString(formatBytes(again.dashboard()->state().training.singleGpu.total(), UnitSystem::Binary)));
    QVERIFY(again.dashboard()->barChart()->totalLabel(1)->text().endsWith(QStringLiteral("GiB")));
}

void TestUiMainWindow::presentationModeEnlargesFonts()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    const int before = w.dashboard()->barChart()->yAxis->tickLabelFont().pixelSize();
    QCOMPARE(w.action(QStringLiteral("presentation"))->shortcut(), QKeySequence(Qt::Key_F5));
    w.setPresentationMode(true);
    QVERIFY(w.presentationMode());
    QVERIFY(w.action(QStringLiteral("presentation"))->isChecked());
    const int after = w.dashboard()->barChart()->yAxis->tickLabelFont().pixelSize();
    QVERIFY2(after >= before * 1.3, qPrintable(QStringLiteral("%1 → %2").arg(before).arg(after)));
    w.setPresentationMode(false);
    QCOMPARE(w.dashboard()->barChart()->yAxis->tickLabelFont().pixelSize(), before);
}

void TestUiMainWindow::exportFailureIsReported()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    w.setModalErrors(false);
    const QString bad = m_dir.filePath(QStringLiteral("no/such/folder/x.png"));
    QVERIFY(!w.exportTo(bad, ChartKind::Bars, ExportOptions{}));
    QVERIFY(w.errorBanner()->isVisibleTo(&w));
    QVERIFY2(w.errorBanner()->text().contains(QStringLiteral("x.png")), qPrintable(w.errorBanner()->text()));
    const QString good = m_dir.filePath(QStringLiteral("ok.pdf"));
    QVERIFY(w.exportTo(good, ChartKind::Dashboard, ExportOptions{}));
    QFile f(good);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(5) == "%PDF-");
}

// Issue 31 §3: Edit ▸ Copy breakdown as text (Ctrl+Shift+C), Markdown and CSV, the chapter's 7B on one H100: 14 GB of
// bf16 weights, 112 GB of model state, the same total in all three.
void TestUiMainWindow::breakdownCopiesAsTextMarkdownAndCsv()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    QCOMPARE(w.action(QStringLiteral("copyBreakdownText"))->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+C")));
    const Segments& g = w.dashboard()->state().current.perGpu;
    const QString total = QString::fromStdString(formatBytes(g.total()));

    w.action(QStringLiteral("copyBreakdownText"))->trigger();
    const QString text = QApplication::clipboard()->text();
    QVERIFY2(text.startsWith(QStringLiteral("The chapter's 7B: 7B parameters, training")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Model state: 112 GB")), qPrintable(text));

    w.action(QStringLiteral("copyBreakdownMarkdown"))->trigger();
    const QString md = QApplication::clipboard()->text();
    QVERIFY2(md.contains(QStringLiteral("| Term | Per GPU | Share |\n|---|---:|---:|\n")), qPrintable(md));
    QVERIFY2(md.contains(QStringLiteral("| weights | 14.0 GB |")), qPrintable(md));
    QVERIFY2(md.contains(QStringLiteral("| **Total** | **%1** | 100% |").arg(total)), qPrintable(md));
    QVERIFY2(md.contains(QStringLiteral("| GPU memory (H100) | 80.0 GB | |")), qPrintable(md));

    w.action(QStringLiteral("copyBreakdownCsv"))->trigger();
    const QMimeData* mime = QApplication::clipboard()->mimeData();
    QVERIFY(mime->hasFormat(QStringLiteral("text/csv")));
    const QStringList rows =
        QString::fromUtf8(mime->data(QStringLiteral("text/csv"))).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(rows.front(), QStringLiteral("term,label,bytes,share"));
    QVERIFY2(rows.filter(QStringLiteral("weights,weights,14000000000,")).size() == 1, qPrintable(rows.join('\n')));
    double sum = 0, listed = 0;
    for (const QString& r : rows.mid(1)) {
        const QStringList f = r.split(QLatin1Char(','));
        if (f[0] == QLatin1String("total"))
            listed = f[2].toDouble();
        else if (f[0] != QLatin1String("gpu_memory"))
            sum += f[2].toDouble();
    }
    QCOMPARE(listed, std::round(g.total()));
    QVERIFY(std::fabs(sum - listed) <= 11); // each term rounded to a byte
}

// Issue 31 §2: the first start opens at 1500 × 920 only where that fits (the offscreen screen is 800 × 600: the window
// takes its least size there); moved to a 1024 × 768 projector it takes that screen, inside it.
void TestUiMainWindow::firstStartFitsTheScreen()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
    const QSize screen = w.screen()->availableGeometry().size();
    QCOMPARE(w.size(), MainWindow::kFirstSize.boundedTo(screen).expandedTo(least));
    const QRect projector(1920, 0, 1024, 768);
    w.fitToScreen(projector);
    QVERIFY2(w.frameGeometry().width() <= 1024 && w.frameGeometry().height() <= 768,
             qPrintable(QStringLiteral("%1×%2, least %3×%4")
                            .arg(w.width())
                            .arg(w.height())
                            .arg(least.width())
                            .arg(least.height())));
    QVERIFY2(
        projector.contains(w.frameGeometry()),
        qPrintable(
            QStringLiteral("%1,%2 %3×%4").arg(w.geometry().x()).arg(w.geometry().y()).arg(w.width()).arg(w.height())));
}

// Issue 31 §2: the tool bar's Undo keeps its label as the undo text grows, so the buttons after it stay where they
// were; a dock that an action opens comes to the front of its tab group (Ctrl+T opened the film behind the fit map).
void TestUiMainWindow::toolBarButtonsStayPut()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* bar = w.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
    QVERIFY(bar);
    QWidget* pin = bar->widgetForAction(w.action(QStringLiteral("pin")));
    QVERIFY(pin);
    const int before = pin->x();
    w.controlPanel()->setScenario(preset(QStringLiteral("chapter-70b")));
    Q_EMIT w.controlPanel()->scenarioEdited(preset(QStringLiteral("chapter-70b")), ControlPanel::Control::Preset,
                                            false);
    QCoreApplication::processEvents();
    QVERIFY(w.action(QStringLiteral("undo"))->text().size() > 8); // "&Undo Load preset The chapter's 70B"
    QCOMPARE(pin->x(), before);

    auto* fitMap = w.findChild<QDockWidget*>(QStringLiteral("fitMapDock"));
    auto* film = w.findChild<QDockWidget*>(QStringLiteral("timelineDock"));
    fitMap->toggleViewAction()->trigger();
    QCoreApplication::processEvents();
    QVERIFY(!fitMap->visibleRegion().isEmpty());
    film->toggleViewAction()->trigger(); // Ctrl+T
    QCoreApplication::processEvents();
    QVERIFY(!film->visibleRegion().isEmpty());
    QVERIFY(fitMap->visibleRegion().isEmpty()); // behind it, in the same tab group
}

// Issue 31 §2: an exported slide's footer names the layout the verdict is for.
void TestUiMainWindow::slideFooterNamesTheLayout()
{
    Scenario s = preset(QStringLiteral("chapter-70b"));
    s.training.seqLen = 8192;
    s.training.checkpointing = Checkpointing::Full;
    s.hardware.zeroStage = 3;
    s.hardware.offload = Offload::OptimizerParams;
    s.hardware.tp = 2;
    s = withGpuCount(s, 8);
    QVERIFY(validateScenario(s, "").empty());
    const GpuSpec& gpu = PresetLibrary::instance().gpuFor(s);
    const QString footer = footerText(account(s, gpu), s);
    QVERIFY2(
        footer.endsWith(QStringLiteral("checkpointing full · 8 × H100 · ZeRO-3 · offload optimizer+params · tp 2 · "
                                       "made with TrainMem")),
        qPrintable(footer));
    // Serving names its weights, not a training recipe; QLoRA names itself and its rank.
    Scenario served = preset(QStringLiteral("chapter-7b"));
    served.training.mode = Mode::Inference;
    QCOMPARE(footerText(account(served, gpu), served),
             QStringLiteral("7B parameters · inference · bf16 weights · context 4k · batch 1 · 1 × H100 · made with "
                            "TrainMem"));
    Scenario qlora = preset(QStringLiteral("chapter-70b"));
    qlora.training.fineTune = FineTune::QLora;
    qlora.training.loraRank = 16;
    QVERIFY2(
        footerText(account(qlora, gpu), qlora).contains(QStringLiteral("checkpointing none · qlora rank 16 · 1 × ")),
        qPrintable(footerText(account(qlora, gpu), qlora)));
}

// Issue 31 §3: View ▸ Theme. Dark recolours the window and every chart (each paints its own background), light
// brings them back, the choice is remembered; System restores the palette the platform gave.
void TestUiMainWindow::themeFollowsTheChoice()
{
    const QPalette system = QApplication::palette();
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-70b")));
        w.setModalErrors(false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (const char* dock : {"fitMapDock", "ranksDock", "peersDock", "ladderDock"})
            w.findChild<QDockWidget*>(QLatin1String(dock))->show();
        QCoreApplication::processEvents();
        auto backgrounds = [&w] {
            QList<double> out;
            for (LivePlot* chart : w.findChildren<LivePlot*>())
                if (chart->isVisible())
                    out << chart->grab().toImage().pixelColor(3, 3).lightnessF();
            return out;
        };
        QVERIFY(backgrounds().size() >= 6); // bars, context, fit map, ranks, peers, ladder
        QAction* dark = w.findChild<QAction*>(QStringLiteral("theme-dark"));
        QAction* light = w.findChild<QAction*>(QStringLiteral("theme-light"));
        QVERIFY(dark && light && w.findChild<QAction*>(QStringLiteral("theme-system"))->isChecked());
        dark->trigger();
        QCoreApplication::processEvents();
        QVERIFY(QApplication::palette().color(QPalette::Window).lightnessF() < 0.25);
        for (double l : backgrounds())
            QVERIFY2(l < 0.25, qPrintable(QString::number(l)));
        // The verdict's text on its tint stays readable: light text on the dark window.
        QVERIFY(QApplication::palette().color(QPalette::WindowText).lightnessF() > 0.6);
        QVERIFY2(w.dashboard()->verdictLabel()->styleSheet().contains(
                     QApplication::palette().color(QPalette::WindowText).name()),
                 qPrintable(w.dashboard()->verdictLabel()->styleSheet()));
        light->trigger();
        QCoreApplication::processEvents();
        for (double l : backgrounds())
            QVERIFY2(l > 0.85, qPrintable(QString::number(l)));
        dark->trigger();
        w.close(); // saves the settings
    }
    {
        MainWindow again(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        QVERIFY(again.findChild<QAction*>(QStringLiteral("theme-dark"))->isChecked());
        QVERIFY(QApplication::palette().color(QPalette::Base).lightnessF() < 0.25);
        again.findChild<QAction*>(QStringLiteral("theme-system"))->trigger();
        QCOMPARE(QApplication::palette().color(QPalette::Base), system.color(QPalette::Base));
    }
}

// Issue 31 §3: Help ▸ User guide (F1) is built in: the README's sections in a contents list, a click on one shows
// it, a link to docs/accounting.md opens that page inside the guide (no network, no files beside the program).
void TestUiMainWindow::userGuideWorksOffline()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QAction* guideAction = w.action(QStringLiteral("userGuide"));
    QVERIFY(guideAction);
    QCOMPARE(guideAction->shortcut(), QKeySequence(QKeySequence::HelpContents));
    guideAction->trigger();
    auto* guide = w.findChild<UserGuide*>(QStringLiteral("userGuide"));
    QVERIFY(guide && guide->isVisible());
    QStringList sections;
    for (int i = 0; i < guide->contents()->count(); ++i)
        sections << guide->contents()->item(i)->text();
    for (const char* s :
         {"Quick start (Debian 12, as root or with sudo)", "The window", "Command line", "Known limits"})
        QVERIFY2(sections.contains(QLatin1String(s)), qPrintable(sections.join(" | ")));
    const QString text = guide->browser()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("Presentation mode (F5)")), qPrintable(text.left(300)));
    QVERIFY(!text.contains(QStringLiteral("## "))); // read as Markdown, not shown as source

    const int before = guide->browser()->verticalScrollBar()->value();
    QListWidgetItem* commandLine = guide->contents()->findItems(QStringLiteral("Command line"), Qt::MatchExactly).at(0);
    QTest::mouseClick(guide->contents()->viewport(), Qt::LeftButton, {},
                      guide->contents()->visualItemRect(commandLine).center());
    QCOMPARE(guide->browser()->textCursor().block().text(), QStringLiteral("Command line"));
    QVERIFY(guide->browser()->verticalScrollBar()->value() > before);

    Q_EMIT guide->browser()->anchorClicked(QUrl(QStringLiteral("docs/accounting.md")));
    QVERIFY2(guide->browser()->source().toString().endsWith(QStringLiteral("docs/accounting.md")),
             qPrintable(guide->browser()->source().toString()));
    QVERIFY(guide->browser()->toPlainText().contains(QStringLiteral("Korthikanti")));
    // A second F1 raises the same guide.
    guideAction->trigger();
    QCOMPARE(w.findChildren<UserGuide*>().size(), 1);
}

// Issue 31 §3: a session file keeps the pins and the open docks with the scenario; File ▸ Open reopens it in another
// window as it was; a bad session (a pin with a bad field, an unknown dock) is named in the banner and changes nothing.
void TestUiMainWindow::sessionKeepsPinsAndDocks()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lecture.session.json"));
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.action(QStringLiteral("pin"))->trigger();
        w.controlPanel()->setScenario(preset(QStringLiteral("chapter-70b")));
        Q_EMIT w.controlPanel()->scenarioEdited(preset(QStringLiteral("chapter-70b")), ControlPanel::Control::Preset,
                                                false);
        w.action(QStringLiteral("pin"))->trigger();
        w.controlPanel()->setScenario(preset(QStringLiteral("deepseek-v3")));
        Q_EMIT w.controlPanel()->scenarioEdited(preset(QStringLiteral("deepseek-v3")), ControlPanel::Control::Preset,
                                                false);
        w.findChild<QDockWidget*>(QStringLiteral("fitMapDock"))->show();
        w.findChild<QDockWidget*>(QStringLiteral("ranksDock"))->show();
        QCoreApplication::processEvents();
        QVERIFY(w.saveSession(path));
    }
    MainWindow again(PresetLibrary::instance(), preset(QStringLiteral("gpt2-small")));
    again.setModalErrors(false);
    again.resize(1600, 1000);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY(!again.findChild<QDockWidget*>(QStringLiteral("ranksDock"))->isVisible());
    QVERIFY(again.openFile(path)); // File ▸ Open tells a session from a scenario
    QCoreApplication::processEvents();
    QCOMPARE(again.scenario().id, std::string("deepseek-v3"));
    const std::vector<Scenario>& pins = again.dashboard()->pinnedScenarios();
    QCOMPARE(pins.size(), size_t{2});
    QCOMPARE(pins[0].id, std::string("chapter-7b"));
    QCOMPARE(pins[1].id, std::string("chapter-70b"));
    QCOMPARE(again.dashboard()->pins().size(), size_t{2});
    // The pinned bars are the pinned scenarios' totals: 7B at 4k is 138 GB, as on the chapter's slide.
    QVERIFY(std::fabs(again.dashboard()->pins()[0].segments.total() - 138e9) < 1e9);
    QVERIFY(again.findChild<QDockWidget*>(QStringLiteral("ranksDock"))->isVisible());
    QVERIFY(again.findChild<QDockWidget*>(QStringLiteral("fitMapDock"))->isVisible());
    QVERIFY(!again.findChild<QDockWidget*>(QStringLiteral("peersDock"))->isVisible());
    QCOMPARE(again.undoStack()->undoText(), QStringLiteral("Open session lecture.session.json"));

    // A bad pin and an unknown dock: both named, nothing changes.
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    text.replace("\"ranksDock\"", "\"nosuchDock\"");
    const QString bad = dir.filePath(QStringLiteral("bad.session.json"));
    QFile out(bad);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text.replace("\"gpus\": 1,", "\"gpus\": -3,"));
    out.close();
    again.dashboard()->clearPins();
    QVERIFY(!again.openFile(bad));
    QVERIFY(again.errorBanner()->isVisible());
    const QString shown = again.errorBanner()->text();
    QVERIFY2(shown.contains(QStringLiteral("nosuchDock")) && shown.contains(QStringLiteral("/hardware/gpus")),
             qPrintable(shown));
    QVERIFY(again.dashboard()->pins().empty());
    QCOMPARE(again.scenario().id, std::string("deepseek-v3"));
}

QTEST_MAIN(TestUiMainWindow)
#include "tst_ui_mainwindow.moc"
