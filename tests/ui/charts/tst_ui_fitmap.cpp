// The fit map's chart, dock and export (issue 11 §3), on the offscreen platform. The numbers are the core's
// fitMap() (tst_fitmap compares them with account()); here the chart must draw exactly those cells in their
// bands' colours, mark the scenario, draw the one-GPU boundary where a column's cells change from 1 to more,
// keep its labels inside the chart, and the window must offer the dock hidden and follow every edit when shown.
#include "chartexport.h"
#include "controlpanel.h"
#include "fitmapchart.h"
#include "logsliderfield.h"
#include "mainwindow.h"
#include "uitestutil.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {

/// The cell's centre in widget pixels (cells are even steps on both log axes).
QPointF cellCentre(const FitMapChart& chart, size_t c, size_t r)
{
    const FitMap& m = chart.data().map;
    const double x = static_cast<double>(m.axes.params[c]);
    const double y = kSweepMinSeq * std::pow(kSweepMaxSeq / kSweepMinSeq, double(r) / double(m.rows() - 1));
    return {chart.xAxis->coordToPixel(x), chart.yAxis->coordToPixel(y)};
}

} // namespace

class TestUiFitMap : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void chartDrawsTheCoresCells()
    {
        const Scenario s = preset(QStringLiteral("llama2-7b"));
        const FitMap core = fitMap(s, gpuOf(s));
        FitMapChart chart;
        chart.resize(1200, 800);
        chart.setData(fitMapChartData(s, gpuOf(s)));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const QImage img = chart.grab().toImage();
        QCPColorMapData* d = chart.colorMap()->data();
        QCOMPARE(d->keySize(), int(core.columns()));
        QCOMPARE(d->valueSize(), int(core.rows()));
        QCOMPARE(core.columns(), size_t(61));
        QCOMPARE(core.rows(), size_t(45));
        std::array<int, kFitBandCount> seen{};
        for (size_t c = 0; c < core.columns(); ++c)
            for (size_t r = 0; r < core.rows(); ++r) {
                QCOMPARE(d->cell(int(c), int(r)), double(core.bandAt(c, r)));
                ++seen[size_t(core.bandAt(c, r))];
            }
        // The 7B recipe on an H100 spans one GPU (1B at short context) to never (10T at 1M tokens).
        QVERIFY(seen[size_t(FitBand::One)] > 0);
        QVERIFY(seen[size_t(FitBand::UpTo8)] > 0);
        QVERIFY(seen[size_t(FitBand::Never)] > 0);

        // Each cell is painted in its band's colour: every cell whose neighbours share its band (so no boundary
        // line or marker is near its centre) has that colour at its centre pixel.
        const double dpr = img.devicePixelRatio();
        int checked = 0;
        const QRect label = chart.markerText()->pixelBox().adjusted(-2, -2, 2, 2);
        const QPointF marker(chart.xAxis->coordToPixel(chart.marker()->data()->constBegin()->key),
                             chart.yAxis->coordToPixel(chart.marker()->data()->constBegin()->value));
        for (size_t c = 1; c + 1 < core.columns(); ++c)
            for (size_t r = 1; r + 1 < core.rows(); ++r) {
                const FitBand b = core.bandAt(c, r);
                bool uniform = true;
                for (int dc = -1; dc <= 1; ++dc)
                    for (int dr = -1; dr <= 1; ++dr)
                        uniform = uniform && core.bandAt(c + dc, r + dr) == b;
                const QPointF p = cellCentre(chart, c, r);
                if (!uniform || label.contains(p.toPoint()) ||
                    QLineF(p, marker).length() < 30) // the marker at 6.7B · 4k
                    continue;
                const QColor got = img.pixelColor(QPoint(int(p.x() * dpr), int(p.y() * dpr)));
                QVERIFY2(got == FitMapChart::bandColor(b), qPrintable(QStringLiteral("cell %1,%2: %3, band %4")
                                                                          .arg(c)
                                                                          .arg(r)
                                                                          .arg(got.name())
                                                                          .arg(FitMapChart::bandName(b))));
                ++checked;
            }
        QVERIFY(checked > 1000);

        // The marker at the scenario: Llama 2 7B's 6,738,415,616 parameters at 4096 tokens, saying 2 GPUs.
        QCOMPARE(chart.marker()->data()->size(), 1);
        QCOMPARE(chart.marker()->data()->constBegin()->key, 6'738'415'616.0);
        QCOMPARE(chart.marker()->data()->constBegin()->value, 4096.0);
        QCOMPARE(chart.markerText()->text(), QStringLiteral("6.7B · 4k: 2 GPUs"));
        QVERIFY(!chart.markerText()->skipped());

        // Hover: the 6.31B column at 4k tokens (row 4·3 = 12) needs 2 H100s.
        const QString tip = chart.hoverText(cellCentre(chart, 12, 12));
        QVERIFY2(tip.startsWith(QStringLiteral("6.3B parameters, 4k tokens: 2 GPUs")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("ZeRO-3 at tp 1 · pp 1")), qPrintable(tip));
        QVERIFY(chart.hoverText(QPointF(2, 2)).isEmpty());
        const QString never = chart.hoverText(cellCentre(chart, 60, 44));
        QVERIFY2(never.contains(QStringLiteral("never fits")), qPrintable(never));

        const QStringList problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // The boundary runs along the top of each column's one-GPU cells: between the last row that fits one GPU and
    // the first that does not, over exactly that column, and down to the axis after the last column that fits.
    void boundaryWhereOneBecomesMore()
    {
        const Scenario s = preset(QStringLiteral("llama2-7b"));
        FitMapChart chart;
        chart.resize(1200, 800);
        chart.setData(fitMapChartData(s, gpuOf(s)));
        const FitMap& m = chart.data().map;
        QVERIFY(chart.boundary()->visible());
        std::vector<std::pair<double, double>> pts;
        for (auto it = chart.boundary()->data()->constBegin(); it != chart.boundary()->data()->constEnd(); ++it)
            pts.emplace_back(it->key, it->value);
        const double colStep = std::pow(10.0, 1.0 / kFitMapParamsPerDecade);
        int columns = 0;
        for (size_t c = 0; c < m.columns(); ++c) {
            const size_t k = m.oneGpuRows[c];
            if (k == 0 || k == m.rows())
                continue;
            ++columns;
            QCOMPARE(m.bandAt(c, k - 1), FitBand::One);
            QVERIFY(m.bandAt(c, k) != FitBand::One);
            // A horizontal piece over this column, between row k − 1's context and row k's.
            const double lo = std::sqrt(double(m.axes.params[c]) * double(m.axes.params[c]) / colStep);
            const double hi = lo * colStep;
            bool found = false;
            for (size_t i = 0; i + 1 < pts.size(); ++i)
                found = found || (std::fabs(pts[i].first / lo - 1) < 1e-9 &&
                                  std::fabs(pts[i + 1].first / hi - 1) < 1e-9 && pts[i].second == pts[i + 1].second &&
                                  pts[i].second > double(m.axes.seq[k - 1]) && pts[i].second < double(m.axes.seq[k]));
            QVERIFY2(found, qPrintable(QStringLiteral("no boundary over column %1").arg(c)));
        }
        QVERIFY(columns >= 8); // 1B … 4.6B on an H100
        // It ends on the axis: the last point at the shortest context's lower edge.
        QVERIFY(pts.back().second < double(m.axes.seq.front()));

        // A tensor-parallel layout never uses one GPU: no boundary, and none in the legend.
        Scenario tp = s;
        tp.hardware.gpus = 8;
        tp.hardware.tp = 8;
        chart.setData(fitMapChartData(tp, gpuOf(tp)));
        QVERIFY(!chart.boundary()->visible());
        QVERIFY(!chart.legend->itemWithPlottable(chart.boundary()));
        for (FitBand b : chart.data().map.bands)
            QVERIFY(b != FitBand::One);
    }

    // Regression: the legend listed all six bands, "1 GPU" too beside DeepSeek-V3's map, where no cell is 1 GPU.
    // It lists the bands the map has, in their fixed order, then the edge (when drawn) and the marker, and follows
    // the map from one scenario to the next.
    void legendListsOnlyTheMapsBands()
    {
        FitMapChart chart;
        chart.resize(1200, 800);
        for (const auto& [id, hasOne] :
             {std::pair{QStringLiteral("deepseek-v3"), false}, std::pair{QStringLiteral("llama2-7b"), true},
              std::pair{QStringLiteral("deepseek-v3"), false}}) {
            const Scenario s = preset(id);
            chart.setData(fitMapChartData(s, gpuOf(s)));
            const std::vector<FitBand>& bands = chart.data().map.bands;
            // The scenario is what the check needs: a map without a one-GPU cell, or with one.
            QCOMPARE(std::find(bands.begin(), bands.end(), FitBand::One) != bands.end(), hasOne);
            QStringList expected;
            for (size_t b = 0; b < kFitBandCount; ++b)
                if (std::find(bands.begin(), bands.end(), FitBand(b)) != bands.end())
                    expected << FitMapChart::bandName(FitBand(b));
            if (chart.boundary()->visible())
                expected << chart.boundary()->name();
            expected << chart.marker()->name();
            QStringList listed;
            for (int i = 0; i < chart.legend->itemCount(); ++i)
                if (auto* item = qobject_cast<QCPPlottableLegendItem*>(chart.legend->item(i)))
                    listed << item->plottable()->name();
            QCOMPARE(listed, expected);
            QCOMPARE(listed.contains(FitMapChart::bandName(FitBand::One)), hasOne);
        }
    }

    // Labels inside the chart and apart, at the dock's and the slides' sizes, for a scenario at the map's corner.
    void labelsStayInside_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("slide");
        for (bool slide : {false, true}) {
            const char* theme = slide ? ", slide theme" : "";
            QTest::addRow("llama2-7b at 1920×1080%s", theme)
                << QStringLiteral("llama2-7b") << QSize(1920, 1080) << slide;
            QTest::addRow("llama2-7b at 1024×700%s", theme) << QStringLiteral("llama2-7b") << QSize(1024, 700) << slide;
            QTest::addRow("deepseek-v3 in a 420×520 dock%s", theme)
                << QStringLiteral("deepseek-v3") << QSize(420, 520) << slide;
            QTest::addRow("gpt2-small off the left edge%s", theme)
                << QStringLiteral("gpt2-small") << QSize(1024, 700) << slide;
            QTest::addRow("qwen3.8-book 2.4T%s", theme) << QStringLiteral("qwen3.8-book") << QSize(1024, 700) << slide;
        }
    }

    void labelsStayInside()
    {
        QFETCH(QString, id);
        QFETCH(QSize, size);
        QFETCH(bool, slide);
        const Scenario s = preset(id);
        FitMapChart chart;
        chart.resize(size);
        if (slide) // what --chart fitmap draws at this size
            chart.setTheme(ChartTheme::slide(size.width(), size.height()));
        chart.setData(fitMapChartData(s, gpuOf(s)));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        QVERIFY(!chart.markerText()->skipped());
        const QStringList problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // 10T at 1M tokens without flash attention on a 24 GB RTX 4090: "never", a finite chart, no crash.
    void badInputSaysNever()
    {
        Scenario s = preset(QStringLiteral("llama2-7b"));
        s.model.hasArchitecture = false;
        s.model.params = 10'000'000'000'000;
        s.training.seqLen = 1'048'576;
        s.training.flashAttention = false;
        s.hardware.gpu = "RTX4090";
        FitMapChart chart;
        chart.resize(800, 600);
        chart.setData(fitMapChartData(s, gpuOf(s)));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        QCOMPARE(chart.markerText()->text(), QStringLiteral("10T · 1M: never fits"));
        QCOMPARE(chart.marker()->data()->constBegin()->key, 1e13);
        for (FitBand b : chart.data().map.bands)
            QVERIFY(b == FitBand::Never || b == FitBand::UpTo8 || b == FitBand::One || b == FitBand::UpTo64 ||
                    b == FitBand::UpTo1024 || b == FitBand::More);
        QCOMPARE(chart.data().map.bandAt(60, 44), FitBand::Never);
    }

    // Issue 31 §1: the sentence is grammatical when nothing fits, and measures a model-parallel launch against its
    // smallest group, not one GPU (a tp 8 · pp 4 Megatron launch read "not even 1B parameters fit on one H100").
    void sentenceSaysNeverAndTheLayoutsGroup()
    {
        Scenario never = preset(QStringLiteral("llama2-7b"));
        never.training.seqLen = 1'048'576;
        never.training.flashAttention = false;
        never.hardware.gpu = "RTX4090";
        FitMapPanel panel;
        panel.setScenario(never, gpuOf(never));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QString text = panel.summary()->text();
        QVERIFY2(text.contains(QStringLiteral("never fits: its working set alone")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("needs never")), qPrintable(text));

        Scenario grid = preset(QStringLiteral("llama2-7b"));
        grid.hardware.tp = 8;
        grid.hardware.pp = 4;
        grid = withGpuCount(grid, 32);
        QVERIFY(validateScenario(grid, "").empty());
        panel.setScenario(grid, gpuOf(grid));
        QCoreApplication::processEvents();
        text = panel.summary()->text();
        QVERIFY2(text.startsWith(QStringLiteral("At 4k tokens one group of 32 × H100 (tp 8 · pp 4 · cp 1) holds up to "
                                                "about")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("This scenario (6.7B) needs 32 GPUs")), qPrintable(text));
    }

    // Issue 31's slider step: a context step keeps the grid (every row sets its own context) and moves the marker;
    // any other edit computes the grid again. Each time the chart holds what fitMap() gives for the scenario now.
    void contextStepKeepsTheGridOtherEditsRedoIt()
    {
        Scenario s = preset(QStringLiteral("llama2-7b"));
        FitMapPanel panel;
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto check = [&](const Scenario& x) {
            panel.setScenario(x, gpuOf(x));
            QCoreApplication::processEvents();
            const FitMapChartData& d = panel.chart()->data();
            const FitMap fresh = fitMap(x, gpuOf(x));
            QCOMPARE(d.currentSeq, x.training.seqLen);
            QVERIFY(d.map.gpus == fresh.gpus);
            QVERIFY(d.map.bands == fresh.bands);
            QVERIFY(d.map.axes.seq == fresh.axes.seq);
        };
        check(s);
        const std::vector<int64_t> before = panel.chart()->data().map.gpus;
        s.training.seqLen = 32768;
        check(s);
        QVERIFY(panel.chart()->data().map.gpus == before); // the same grid
        s.training.microBatch = 4;                         // four times the tape: another grid
        check(s);
        QVERIFY(panel.chart()->data().map.gpus != before);
        s.hardware.gpu = "A100-40GB";
        check(s);
    }

    void windowOffersTheDockHiddenAndFollowsEdits()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("llama2-7b")));
        showWindow(w);
        QDockWidget* dock = nullptr;
        FitMapPanel* panel = nullptr;
        openPanelDock(w, QStringLiteral("fitMapDock"), &dock, &panel);
        if (QTest::currentTestFailed())
            return;
        // Under the charts at 1024 × 700 (a projector): the window keeps its size, the map's labels fit its plot.
        QCOMPARE(w.dockWidgetArea(dock), Qt::BottomDockWidgetArea);
        w.resize(1024, 700);
        QTest::qWait(20);
        panel->chart()->grab();
        QVERIFY2(w.height() <= 700 && w.width() <= 1024,
                 qPrintable(QStringLiteral("%1×%2").arg(w.width()).arg(w.height())));
        QVERIFY(panel->chart()->axisRect()->height() >= 100);
        QVERIFY(!panel->chart()->markerText()->skipped());
        const QStringList problems = labelProblems(panel->chart());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        if (qEnvironmentVariableIsSet("TRAINMEM_FITMAP_SHOTS")) // for looking at it: the window as a projector shows it
            w.grab().save(QStringLiteral("%1/window-1024x700.png").arg(qEnvironmentVariable("TRAINMEM_FITMAP_SHOTS")));
        const Scenario s = w.scenario();
        const FitMap core = fitMap(s, gpuOf(s));
        QCOMPARE(panel->chart()->data().map.bands, core.bands);
        QCOMPARE(panel->chart()->markerText()->text(), QStringLiteral("6.7B · 4k: 2 GPUs"));
        QVERIFY2(panel->summary()->text().contains(QStringLiteral("This scenario (6.7B) needs 2 GPUs")),
                 qPrintable(panel->summary()->text()));
        QVERIFY2(panel->summary()->text().startsWith(QStringLiteral("At 4k tokens one H100 holds up to about")),
                 qPrintable(panel->summary()->text()));

        // Dragging the context and the size sliders moves the marker with every step, as the other charts do.
        QSlider* context = w.controlPanel()->contextField()->slider();
        QSlider* size = w.controlPanel()->paramsField()->slider();
        for (int i = 1; i <= 3; ++i) {
            const int before = panel->recomputeCount();
            context->setValue(context->value() + 1);
            size->setValue(size->value() + 1);
            QCoreApplication::processEvents();
            QVERIFY(panel->recomputeCount() > before);
            const Scenario now = w.scenario();
            QCOMPARE(panel->chart()->data().currentSeq, now.training.seqLen);
            QCOMPARE(panel->chart()->data().currentParams, double(resolveModel(now.model).params.total));
            QCOMPARE(panel->chart()->marker()->data()->constBegin()->value, double(now.training.seqLen));
            QCOMPARE(panel->chart()->data().map.bands, fitMap(now, gpuOf(now)).bands);
        }
        QVERIFY(w.scenario().training.seqLen > 4096);

        // Hidden again: edits compute nothing.
        dock->toggleViewAction()->trigger();
        QVERIFY(dock->isHidden());
        const int before = panel->recomputeCount();
        context->setValue(context->value() + 1);
        QCoreApplication::processEvents();
        QCOMPARE(panel->recomputeCount(), before);
    }

    void exportDrawsTheMap()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fitmap.png"));
        const Scenario s = preset(QStringLiteral("llama2-7b"));
        ExportOptions o;
        o.width = 1920;
        o.height = 1080;
        QString error;
        QVERIFY2(exportChartPng(s, gpuOf(s), ChartKind::FitMap, file, o, &error), qPrintable(error));
        const QImage img(file);
        QCOMPARE(img.size(), QSize(1920, 1080));
        std::array<bool, kFitBandCount> found{};
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 0; x < img.width(); x += 3)
                for (size_t b = 0; b < kFitBandCount; ++b)
                    found[b] = found[b] || img.pixelColor(x, y) == FitMapChart::bandColor(FitBand(b));
        for (size_t b = 0; b < kFitBandCount; ++b)
            QVERIFY2(found[b], qPrintable(FitMapChart::bandName(FitBand(b)))); // each band, in the legend at least
        QCOMPARE(chartKindFromName(QStringLiteral("fitmap")), std::optional<ChartKind>(ChartKind::FitMap));
        QCOMPARE(chartKindName(ChartKind::FitMap), QStringLiteral("fitmap"));
    }
};

QTEST_MAIN(TestUiFitMap)
#include "tst_ui_fitmap.moc"
