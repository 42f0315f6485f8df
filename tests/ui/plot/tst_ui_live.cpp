// The live drawing path (issue 5's slider-step work), checked by what it draws and what it
// touches, not by a clock: the charts painted from caches look like QCustomPlot's own rendering, a
// slider step paints each chart once and re-lays out nothing, the verdict's cheap height is never
// less than QLabel's own, and setting an unchanged scenario repaints no control.
#include "uitestutil.h"

#include "controlpanel.h"
#include "dashboard.h"
#include "fastbars.h"
#include "labellayout.h"
#include "lazydock.h"
#include "liveplot.h"
#include "logsliderfield.h"
#include "mainwindow.h"
#include "peerspanel.h"
#include "presetlibrary.h"
#include "verdictlabel.h"

#include <QAction>
#include <QClipboard>
#include <QLineEdit>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {

/// 4×4 blocks of `a` and `b` whose average colour differs by more than `tolerance` in a channel.
/// Glyph edges that land a pixel over, or antialias to other greys (text blended from a cached
/// image; QCustomPlot's own tick-label cache does the same), move a block's average a little; a
/// missing, moved or different label, legend entry, bar or line moves it a lot.
int differingBlocks(const QImage& a, const QImage& b, int tolerance, int* worst)
{
    const QImage x = a.convertToFormat(QImage::Format_RGB32);
    const QImage y = b.convertToFormat(QImage::Format_RGB32);
    if (x.size() != y.size())
        return x.width() * x.height();
    constexpr int kBlock = 4;
    int n = 0;
    *worst = 0;
    for (int by = 0; by + kBlock <= x.height(); by += kBlock) {
        for (int bx = 0; bx + kBlock <= x.width(); bx += kBlock) {
            int sum[2][3] = {};
            for (int dy = 0; dy < kBlock; ++dy)
                for (int dx = 0; dx < kBlock; ++dx) {
                    const QRgb p = x.pixel(bx + dx, by + dy), q = y.pixel(bx + dx, by + dy);
                    sum[0][0] += qRed(p), sum[0][1] += qGreen(p), sum[0][2] += qBlue(p);
                    sum[1][0] += qRed(q), sum[1][1] += qGreen(q), sum[1][2] += qBlue(q);
                }
            int d = 0;
            for (int c = 0; c < 3; ++c)
                d = std::max(d, std::abs(sum[0][c] - sum[1][c]) / (kBlock * kBlock));
            *worst = std::max(*worst, d);
            n += d > tolerance ? 1 : 0;
        }
    }
    return n;
}

/// The chart as an export draws it: QCustomPlot's own path (pmNoCaching), no cache involved.
QImage exported(QCustomPlot* chart)
{
    QImage image(chart->size(), QImage::Format_RGB32);
    image.fill(Qt::white);
    QCPPainter p(&image);
    chart->toPainter(&p, chart->width(), chart->height());
    p.end();
    return image;
}

/// Counts paint and layout events per widget while it is installed.
struct EventCounter : QObject {
    QHash<QObject*, int> paints;
    QHash<QObject*, int> layoutRequests;
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (e->type() == QEvent::Paint)
            ++paints[o];
        else if (e->type() == QEvent::LayoutRequest)
            ++layoutRequests[o];
        return false;
    }
};

/// A chart item that counts its draws.
class CountingItem : public QCPLayerable
{
public:
    explicit CountingItem(QCustomPlot* plot) : QCPLayerable(plot) {}
    int draws = 0;

protected:
    void applyDefaultAntialiasingHint(QCPPainter*) const override {}
    void draw(QCPPainter*) override { ++draws; }
};

} // namespace

class TestUiLive : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void livePaintMatchesExport_data();
    void livePaintMatchesExport();
    void sliderStepPaintsEachChartOnceAndRelaysOutNothing_data();
    void sliderStepPaintsEachChartOnceAndRelaysOutNothing();
    void verdictHeightIsQLabels();
    void verdictGrowsWhenItNeedsAnotherLine();
    void verdictCopiesToTheClipboard();
    void chartsMoveAtMostOncePerDrag();
    void unchangedScenarioRepaintsNoControl();
    void invalidTextThenValidValueClearsTheWarning();
    void replotLaysOutAndDrawsNothing();
    void hiddenDocksTakeTheirPanelsWhenFirstShown();
    void wrappedLinesKeepAFigureWithItsUnit();
    void aSegmentABarDoesNotHaveIsNotDrawn();
};

void TestUiLive::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestUiLive::livePaintMatchesExport_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("seq");
    QTest::newRow("chapter 7B at 4k") << QStringLiteral("chapter-7b") << 4096;
    QTest::newRow("Llama 3 70B at 128k") << QStringLiteral("llama3-70b") << 131072;
    QTest::newRow("DeepSeek-V3 at 512") << QStringLiteral("deepseek-v3") << 512;
    QTest::newRow("the 2.4T book model") << QStringLiteral("qwen3.8-book") << 8192;
}

void TestUiLive::livePaintMatchesExport()
{
    QFETCH(QString, id);
    QFETCH(int, seq);
    Dashboard d;
    d.resize(1400, 800);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    // First another scenario, so every cached text, legend entry and grid strip is re-made.
    const Scenario other = preset(QStringLiteral("gpt2-small"));
    d.showScenario(other, gpuOf(other));
    QCoreApplication::processEvents();
    Scenario s = preset(id);
    s.training.seqLen = seq;
    d.showScenario(s, gpuOf(s));
    // After the drag has settled: antialiasing as the export has it.
    QTRY_COMPARE_WITH_TIMEOUT(d.sequenceChart()->notAntialiasedElements(), QCP::AntialiasedElements(QCP::aeNone), 2000);
    for (QCustomPlot* chart : std::initializer_list<QCustomPlot*>{d.barChart(), d.sequenceChart()}) {
        const QImage live = chart->grab().toImage();
        const QImage file = exported(chart);
        QVERIFY(distinctColours(live) > 8);
        int worst = 0;
        const int differ = differingBlocks(live, file, 80, &worst);
        // Measured: matching charts differ by at most ~65 in a block, a missing label by 170+.
        QVERIFY2(differ == 0, qPrintable(QStringLiteral("%1: %2 blocks of 4×4 px differ (worst by %3)")
                                             .arg(chart->objectName())
                                             .arg(differ)
                                             .arg(worst)));
        // And the comparison can fail: without one of its labels the live chart does not match.
        QCPItemText* label = nullptr;
        for (int i = 0; i < chart->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(chart->item(i)); t && t->visible() && !t->text().isEmpty())
                label = t;
        QVERIFY(label);
        label->setVisible(false);
        const QImage without = chart->grab().toImage();
        label->setVisible(true);
        QVERIFY2(differingBlocks(without, file, 80, &worst) > 10, qPrintable(label->text()));
    }
}

void TestUiLive::sliderStepPaintsEachChartOnceAndRelaysOutNothing_data()
{
    QTest::addColumn<QString>("control");
    QTest::newRow("context") << QStringLiteral("context");
    QTest::newRow("total parameters (verdict text changes)") << QStringLiteral("params");
    QTest::newRow("micro-batch") << QStringLiteral("microBatch");
}

void TestUiLive::sliderStepPaintsEachChartOnceAndRelaysOutNothing()
{
    QFETCH(QString, control);
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
    w.setModalErrors(false);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCoreApplication::processEvents();
    ControlPanel* panel = w.controlPanel();
    LivePlot* bars = w.dashboard()->barChart();
    LivePlot* seq = w.dashboard()->sequenceChart();
    const QRect barsGeometry = bars->geometry();
    const QRect seqGeometry = seq->geometry();
    int replots = 0;
    connect(bars, &QCustomPlot::afterReplot, this, [&] { ++replots; });
    connect(seq, &QCustomPlot::afterReplot, this, [&] { ++replots; });
    auto step = [&](int i) {
        if (control == QLatin1String("context"))
            panel->contextField()->slider()->setValue(i);
        else if (control == QLatin1String("params"))
            panel->paramsField()->slider()->setValue(panel->paramsField()->slider()->value() + (i % 2 ? 1 : -1) * i);
        else
            panel->microBatchBox()->setValue(1 + i);
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    };
    // The first edit enables Undo and marks the window modified, which re-lays out the tool bar
    // once; the drag after it is what is checked.
    step(1);
    EventCounter counter;
    qApp->installEventFilter(&counter);
    const QString verdictBefore = w.dashboard()->verdictLabel()->text();
    constexpr int kSteps = 12;
    for (int i = 2; i <= kSteps + 1; ++i)
        step(i);
    qApp->removeEventFilter(&counter);
    if (control == QLatin1String("params"))
        QVERIFY(w.dashboard()->verdictLabel()->text() != verdictBefore); // the case the fence is for
    QCOMPARE(counter.paints.value(bars), kSteps);
    QCOMPARE(counter.paints.value(seq), kSteps);
    QCOMPARE(replots, 0); // the live path draws at paint time; replot() would draw a second time
    // Nothing above the charts was re-laid out, so nothing moved.
    for (QWidget* wgt = bars->parentWidget(); wgt; wgt = wgt->parentWidget())
        QVERIFY2(counter.layoutRequests.value(wgt) == 0, wgt->metaObject()->className());
    QCOMPARE(bars->geometry(), barsGeometry);
    QCOMPARE(seq->geometry(), seqGeometry);
}

void TestUiLive::verdictHeightIsQLabels()
{
    // The fence asks VerdictLabel::heightForWidth on every step, so it is one QTextLayout instead
    // of QLabel's text control; it must come to the same height (at least the two-line minimum).
    QWidget host;
    auto* label = new VerdictLabel(&host);
    host.show();
    for (const double scale : {1.0, 1.6}) // presentation mode scales the verdict's font
        for (const PresetEntry& e : PresetLibrary::instance().presets()) {
            label->setFontScale(scale);
            const Scenario& s = e.scenario;
            const GpuSpec& gpu = gpuOf(s);
            label->setVerdict(QString::fromStdString(verdict(account(s, gpu), s, gpu)), false);
            for (int width = 240; width <= 1800; width += 40) {
                const int ours = label->heightForWidth(width);
                const int qlabels = std::max(label->QLabel::heightForWidth(width), label->minimumHeight());
                QVERIFY2(ours == qlabels, qPrintable(QStringLiteral("%1 at %2 px: %3, QLabel's %4")
                                                         .arg(e.scenario.id.c_str())
                                                         .arg(width)
                                                         .arg(ours)
                                                         .arg(qlabels)));
            }
        }
}

void TestUiLive::verdictGrowsWhenItNeedsAnotherLine()
{
    Dashboard d;
    d.resize(700, 700);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    d.showScenario(s, gpuOf(s));
    QCoreApplication::processEvents();
    VerdictLabel* label = d.verdictLabel();
    const int twoLines = label->height();
    QCOMPARE(twoLines, label->minimumHeight());
    auto chartTop = [&] { return d.barChart()->mapTo(&d, QPoint(0, 0)).y(); };
    const int chartTopBefore = chartTop();
    // Four times the verdict: more than two lines at this width.
    const QString text = label->text();
    label->setVerdict(text + QLatin1Char(' ') + text + QLatin1Char(' ') + text + QLatin1Char(' ') + text,
                      label->fits());
    QTRY_VERIFY(label->height() > twoLines);
    QVERIFY(label->height() >= label->QLabel::heightForWidth(label->width()));
    QTRY_VERIFY(chartTop() > chartTopBefore); // the charts made room
}

void TestUiLive::chartsMoveAtMostOncePerDrag()
{
    // At 32k the chapter's 7B verdict explains that sharding cannot help: three lines at this width.
    Dashboard d;
    d.resize(1000, 700);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    Scenario s = preset(QStringLiteral("chapter-7b"));
    auto showAt = [&](int64_t seq) {
        s.training.seqLen = seq;
        d.showScenario(s, gpuOf(s));
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    };
    auto chartTop = [&] { return d.barChart()->mapTo(&d, QPoint(0, 0)).y(); };
    showAt(4096);
    QTRY_COMPARE_WITH_TIMEOUT(d.sequenceChart()->notAntialiasedElements(), QCP::AntialiasedElements(QCP::aeNone), 2000);
    const int settledTop = chartTop();
    // A drag across the threshold and back: the charts make room once and stay there.
    showAt(32768);
    QTRY_VERIFY(chartTop() > settledTop);
    const int dragTop = chartTop();
    for (int64_t seq : {16384, 8192, 4096, 32768, 4096}) {
        showAt(seq);
        QCOMPARE(chartTop(), dragTop);
    }
    // The drag pauses: the verdict is short again and the charts take the room back.
    QTRY_COMPARE_WITH_TIMEOUT(chartTop(), settledTop, 2000);
}

void TestUiLive::verdictCopiesToTheClipboard()
{
    // Not selectable (see VerdictLabel), so there is an action for it: the context menu and Ctrl+C.
    Dashboard d;
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    d.showScenario(s, gpuOf(s));
    VerdictLabel* label = d.verdictLabel();
    QCOMPARE(label->contextMenuPolicy(), Qt::ActionsContextMenu);
    auto* copy = label->findChild<QAction*>(QStringLiteral("copyVerdict"));
    QVERIFY(copy);
    QCOMPARE(copy->shortcut(), QKeySequence(QKeySequence::Copy));
    QGuiApplication::clipboard()->clear();
    copy->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(),
             QStringLiteral("Dies: 112 GB of model state is 1.4× one H100 (80.0 GB); it needs 2 GPUs with ZeRO-3."));
}

void TestUiLive::unchangedScenarioRepaintsNoControl()
{
    ControlPanel panel(PresetLibrary::instance());
    panel.resize(380, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const Scenario s = preset(QStringLiteral("mixtral-8x7b")); // has the experts spin box
    panel.setScenario(s);
    QTest::qWait(50); // the first paints and layouts of the new scenario
    EventCounter counter;
    qApp->installEventFilter(&counter);
    panel.setScenario(s); // what the window does for every control on every edit
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    qApp->removeEventFilter(&counter);
    QStringList painted;
    for (auto it = counter.paints.constBegin(); it != counter.paints.constEnd(); ++it)
        painted << QString::fromLatin1(it.key()->metaObject()->className()) + QLatin1Char(' ') + it.key()->objectName();
    QVERIFY2(painted.isEmpty(), qPrintable(painted.join(QStringLiteral(", "))));
    QCOMPARE(counter.layoutRequests.value(&panel), 0);
}

void TestUiLive::invalidTextThenValidValueClearsTheWarning()
{
    ControlPanel panel(PresetLibrary::instance());
    panel.setScenario(preset(QStringLiteral("chapter-7b")));
    LogSliderField* field = panel.paramsField();
    auto* edit = field->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->setText(QStringLiteral("lots"));
    QMetaObject::invokeMethod(edit, "editingFinished");
    QVERIFY(!edit->styleSheet().isEmpty());
    QVERIFY(edit->toolTip().contains(QStringLiteral("“lots” is not a number")));
    field->setValue(70'000'000'000); // a valid value arrives (a preset, undo, the slider)
    QVERIFY(edit->styleSheet().isEmpty());
    QCOMPARE(edit->text(), QStringLiteral("70B"));
    QVERIFY(!edit->toolTip().contains(QStringLiteral("not a number")));
}

QTEST_MAIN(TestUiLive)
void TestUiLive::replotLaysOutAndDrawsNothing()
{
    // QCustomPlot's replot() (its constructor queues one, every resize runs one) used to draw every layer into
    // LivePlot's discarded buffer: at start-up 9 replots drew everything once for nothing.
    LivePlot plot;
    plot.resize(400, 300);
    plot.setViewport(plot.rect()); // as its resizeEvent does, which a hidden widget does not get yet
    auto* item = new CountingItem(&plot);
    plot.xAxis->setRange(0, 10);
    plot.replot();
    QCOMPARE(item->draws, 0);
    QCOMPARE(plot.axisRect()->outerRect().size(), QSize(400, 300)); // laid out for its size
    for (int i = 0; i < plot.layerCount(); ++i) // shown again after it, but the one LivePlot keeps hidden
        QCOMPARE(plot.layer(i)->visible(), plot.layer(i)->name() != QStringLiteral("qcpGrids"));
    plot.grab(); // a paint draws it
    QCOMPARE(item->draws, 1);
    QCOMPARE(plot.paintCount(), 1);
}

void TestUiLive::hiddenDocksTakeTheirPanelsWhenFirstShown()
{
    // A dock that starts hidden keeps its panel out until it is shown (start-up: laying out the hidden panels
    // was an eighth of the time to the first paint); every way of showing it puts the panel in first.
    QSettings().clear();
    const PresetLibrary& lib = PresetLibrary::instance();
    MainWindow w(lib, lib.find(QString::fromLatin1(PresetLibrary::kDefaultPresetId))->scenario);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QList<LazyDock*> docks = w.findChildren<LazyDock*>();
    QCOMPARE(docks.size(), 9); // tour, formula, fixes, receipt, ladder, peers, ranks, fit map, film
    for (LazyDock* d : docks) {
        QVERIFY2(d->isHidden() && d->widget() == nullptr && !d->content()->isVisibleTo(d), qPrintable(d->objectName()));
        QCOMPARE(d->content()->parentWidget(), d);
    }
    LazyDock* byAction = w.findChild<LazyDock*>(QStringLiteral("ladderDock"));
    byAction->toggleViewAction()->trigger();
    QCoreApplication::processEvents();
    QVERIFY(byAction->isVisible() && byAction->attached());
    QCOMPARE(byAction->widget(), byAction->content());
    QVERIFY(byAction->content()->isVisible() && byAction->content()->height() > 100);

    auto* peers = w.findChild<LazyDock*>(QStringLiteral("peersDock")); // a scroll area that takes its panel then
    peers->show();
    QCoreApplication::processEvents();
    auto* scroll = qobject_cast<QScrollArea*>(peers->widget());
    QVERIFY(scroll && scroll->widget() == w.findChild<PeersPanel*>());
    QVERIFY(scroll->widget()->isVisible() && scroll->minimumWidth() > scroll->widget()->minimumSizeHint().width());

    // Restored from a saved layout: the dock is shown by restoreState() and has its panel.
    const QByteArray state = w.saveState();
    MainWindow again(lib, lib.find(QString::fromLatin1(PresetLibrary::kDefaultPresetId))->scenario);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY(again.restoreState(state));
    QCoreApplication::processEvents();
    for (const char* name : {"ladderDock", "peersDock"}) {
        auto* d = again.findChild<LazyDock*>(QString::fromLatin1(name));
        QVERIFY2(d->isVisible() && d->attached(), name);
    }
    QVERIFY(!again.findChild<LazyDock*>(QStringLiteral("fitMapDock"))->attached());
}

// The tour's narration on a slide broke "(112 GB" as "(112" / "GB" (issue 31 §2, seen in F5): a figure and its unit
// stay on one line, and the lines give back the text as it was.
void TestUiLive::wrappedLinesKeepAFigureWithItsUnit()
{
    QFont font;
    font.setPixelSize(16);
    const QFontMetrics fm(font);
    const QString text = QStringLiteral("Weights, gradients and Adam: 7B × 16 B = 112 GB of model state");
    // Room for everything up to "112 G": a break at any space would leave "112" at the end of the first line.
    const int width = fm.horizontalAdvance(QStringLiteral("Weights, gradients and Adam: 7B × 16 B = 112 G"));
    const QStringList lines = wrapLines(text, font, width, 3);
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0], QStringLiteral("Weights, gradients and Adam: 7B × 16 B ="));
    QCOMPARE(lines[1], QStringLiteral("112 GB of model state"));
    // And between "16" and "B".
    const int narrower = fm.horizontalAdvance(QStringLiteral("Weights, gradients and Adam: 7B × 16 "));
    const QStringList again = wrapLines(text, font, narrower, 3);
    QVERIFY2(again.size() >= 2 && again[1].startsWith(QStringLiteral("16 B")),
             qPrintable(again.join(QLatin1Char('|'))));
    QCOMPARE(again.join(QLatin1Char(' ')), text);
}

// A tour step outlines the segments it adds; on a bar that has none of them (the inference bar gains no gradients)
// QCPBars drew the 0-byte segment as a thick line across the bar's top (issue 31 §2, steps 12–15 in F5). On screen
// and in a file, a segment a bar does not have is not drawn.
void TestUiLive::aSegmentABarDoesNotHaveIsNotDrawn()
{
    LivePlot plot;
    plot.resize(300, 300);
    plot.xAxis->setRange(-0.5, 1.5);
    plot.yAxis->setRange(0, 10);
    auto* below = new FastBars(plot.xAxis, plot.yAxis);
    below->setData({0, 1}, {3, 3}, true);
    below->setBrush(QColor(0x4e, 0x79, 0xa7));
    below->setPen(Qt::NoPen);
    auto* added = new FastBars(plot.xAxis, plot.yAxis);
    added->moveAbove(below);
    added->setData({0, 1}, {0, 2}, true); // bar 0 has none of it, bar 1 has 2
    added->setBrush(QColor(0xf2, 0x8e, 0x2b));
    added->setPen(QPen(QColor(0xff, 0x00, 0x00), 5));
    plot.setViewport(plot.rect());
    const QImage screen = plot.grab().toImage();
    const QImage file = exported(&plot);
    for (const QImage* image : {&screen, &file}) {
        auto redNear = [&](double key, double value) {
            const int x = qRound(plot.xAxis->coordToPixel(key)), y = qRound(plot.yAxis->coordToPixel(value));
            int red = 0;
            for (int dy = -4; dy <= 4; ++dy)
                for (int dx = -10; dx <= 10; ++dx) {
                    const QColor c = image->pixelColor(x + dx, y + dy);
                    red += c.red() > 200 && c.green() < 60 && c.blue() < 60;
                }
            return red;
        };
        QCOMPARE(redNear(0, 3), 0);  // no line where bar 0's missing segment would be
        QVERIFY(redNear(1, 5) > 20); // bar 1's segment keeps its outline
    }
}

#include "tst_ui_live.moc"
