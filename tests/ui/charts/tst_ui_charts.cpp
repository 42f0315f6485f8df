// The charts on their own: what they draw for the chapter's numbers, the log axis for 38 TB,
// hover text. (What a slider step draws and touches is in tst_ui_live; how long it takes is
// measured by bench/trainmem-bench, not timed in tests.)
#include "uitestutil.h"

#include "apptheme.h"
#include "chartexport.h"
#include "controlpanel.h"
#include "dashboard.h"
#include "logsliderfield.h"
#include "mainwindow.h"
#include "memorybarchart.h"
#include "sequencechart.h"
#include "tour.h"

using namespace trainmem;
using namespace trainmem::uitest;

class TestUiCharts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void barAxisScale_data();
    void barAxisScale();
    void sequenceChartMatchesSweep_data();
    void sequenceChartMatchesSweep();
    void hoverShowsSegmentValue();
    void inferenceShowsOneCurve();
    void legendListsOnlyWhatIsDrawn();
    void floorIsNoCheckpointingCurve();
    void coincidingCurvesBothShow();
    void aSliverBarIsZoomed_data();
    void aSliverBarIsZoomed();
    void capacityLabelCoversNoBar_data();
    void capacityLabelCoversNoBar();
    void capacityLineCrossesTheOptimizerState();
    void antialiasingReturnsAfterDrag();
    void outOfMemorySaysOnWhichGpus();
    void tourSizes_data();
    void noLabelIsCrossedByALine_data() { tourSizes_data(); }
    void noLabelIsCrossedByALine();
    void aBarsNameIsNeverCut_data() { tourSizes_data(); }
    void aBarsNameIsNeverCut();
    void stepsSharingAnAxisCompareOnIt_data() { tourSizes_data(); }
    void stepsSharingAnAxisCompareOnIt();
    void everyStepsPerGpuBarCanBeRead_data() { tourSizes_data(); }
    void everyStepsPerGpuBarCanBeRead();
    void theCapacityLabelCoversNoBarAtAnyStep_data() { tourSizes_data(); }
    void theCapacityLabelCoversNoBarAtAnyStep();
};

namespace {

/// Every step of the chapter tour, evaluated with the presets and GPUs the app ships.
std::vector<TourStage> tourStages()
{
    std::vector<TourStage> out;
    for (const TourStep& step : chapterTour())
        if (std::optional<TourStage> st = shippedTourStage(step))
            out.push_back(*st);
    return out;
}

/// The dashboard as the tour shows a step: its picture, then its scenario (TeachingDocks' order), laid out.
void showStage(Dashboard& d, const TourStage& st)
{
    d.setPicture(tourPicture(st));
    d.showScenario(st.scenario, st.gpu);
    d.barChart()->grab();
    d.sequenceChart()->grab();
}

/// `d` at `size` and `fontScale`, shown and exposed (the tour tests' dashboard).
bool openDashboard(Dashboard& d, QSize size, double fontScale)
{
    d.resize(size);
    d.setFontScale(fontScale);
    d.show();
    return QTest::qWaitForWindowExposed(&d);
}

/// Where the bar chart's capacity label covers a bar (more than its outline), that bar and the label; else empty.
QString capacityLabelOnABar(MemoryBarChart* bars)
{
    const QRect label = bars->capacityText()->pixelBox();
    for (int k = 0; k < static_cast<int>(bars->columns().size()); ++k) {
        const double h = bars->columns()[static_cast<size_t>(k)].height();
        if (!(h > 0))
            continue;
        const QRect bar =
            QRectF(QPointF(bars->xAxis->coordToPixel(k - MemoryBarChart::kBarWidth / 2), bars->yAxis->coordToPixel(h)),
                   QPointF(bars->xAxis->coordToPixel(k + MemoryBarChart::kBarWidth / 2),
                           bars->yAxis->coordToPixel(bars->isLogarithmic() ? 1.0 : 0.0)))
                .normalized()
                .toAlignedRect();
        if (label.intersects(bar.adjusted(1, 1, -1, -1)))
            return QStringLiteral("“%1” at %2,%3 %4×%5 covers bar %6 at %7,%8 %9×%10")
                .arg(bars->capacityText()->text())
                .arg(label.x())
                .arg(label.y())
                .arg(label.width())
                .arg(label.height())
                .arg(k)
                .arg(bar.x())
                .arg(bar.y())
                .arg(bar.width())
                .arg(bar.height());
    }
    return {};
}

} // namespace

void TestUiCharts::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestUiCharts::barAxisScale_data()
{
    QTest::addColumn<QString>("presetId");
    QTest::addColumn<bool>("log");
    // Regression (issue 14): stacked bars turned logarithmic by themselves once a bar passed 20× the GPU, even
    // mid-drag, and segment heights then lied (1.3 of 9.9 TB of weights filled half a bar). Linear unless chosen.
    QTest::newRow("7B: 138 GB against 80 GB stays linear") << "chapter-7b" << false;
    QTest::newRow("70B: 1.36 TB against 80 GB stays linear (17×)") << "chapter-70b" << false;
    QTest::newRow("2.4T: 40 TB against 80 GB stays linear too") << "qwen3.8-book" << false;
    QTest::newRow("DeepSeek-V3: 9.9 TB against 80 GB stays linear") << "deepseek-v3" << false;
}

void TestUiCharts::barAxisScale()
{
    QFETCH(QString, presetId);
    QFETCH(bool, log);
    Dashboard d;
    const Scenario s = preset(presetId);
    d.showScenario(s, gpuOf(s));
    MemoryBarChart* bars = d.barChart();
    QCOMPARE(bars->isLogarithmic(), log);
    QCOMPARE(bars->yAxis->scaleType(), log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    // Both the tallest bar and the capacity line are inside the axis.
    const double top = d.state().training.singleGpu.total();
    QVERIFY(bars->yAxis->range().contains(top));
    QVERIFY(bars->yAxis->range().contains(gpuOf(s).memoryBytes));
    QCOMPARE(bars->capacityLine()->point1->coords().y(), gpuOf(s).memoryBytes);
    d.setAxisScale(AxisScale::Linear);
    QVERIFY(!bars->isLogarithmic());
    d.setAxisScale(AxisScale::Logarithmic);
    QVERIFY(bars->isLogarithmic());
}

void TestUiCharts::sequenceChartMatchesSweep_data()
{
    QTest::addColumn<QString>("presetId");
    QTest::addColumn<int>("checkpointing");
    QTest::newRow("7B none: crossover labelled") << "chapter-7b" << int(Checkpointing::None);
    QTest::newRow("Llama 3 70B selective") << "llama3-70b" << int(Checkpointing::Selective);
    QTest::newRow("DeepSeek-V3 on 2048 H800s") << "deepseek-v3" << int(Checkpointing::Selective);
    QTest::newRow("GPT-2 small full recompute") << "gpt2-small" << int(Checkpointing::Full);
    QTest::newRow("Llama 3 70B per-op") << "llama3-70b" << int(Checkpointing::PerOp);
}

void TestUiCharts::sequenceChartMatchesSweep()
{
    QFETCH(QString, presetId);
    QFETCH(int, checkpointing);
    Scenario s = preset(presetId);
    s.training.checkpointing = static_cast<Checkpointing>(checkpointing);
    Dashboard d;
    d.showScenario(s, gpuOf(s));
    const ContextSweep sweep = sweepContext(s, gpuOf(s), kSweepPointsPerOctave);
    SequenceChart* c = d.sequenceChart();
    QCOMPARE(sweep.seq.size(), size_t{45});
    QCOMPARE(sweep.seq.front(), 512.0);
    QCOMPARE(sweep.seq.back(), 1048576.0);
    for (int mode = 0; mode < 3; ++mode) {
        QCOMPARE(graphKeys(c->curve(static_cast<Checkpointing>(mode))), sweep.seq);
        QCOMPARE(graphValues(c->curve(static_cast<Checkpointing>(mode))), sweep.totalPerGpu[static_cast<size_t>(mode)]);
        // The scenario's own mode is drawn thicker, the others dashed (two that coincide in dashes that alternate).
        const bool current = mode == checkpointing;
        const Qt::PenStyle style = c->curve(static_cast<Checkpointing>(mode))->pen().style();
        QVERIFY(current ? style == Qt::SolidLine : style == Qt::DashLine || style == Qt::CustomDashLine);
    }
    // Per-op checkpointing's curve, the scenario's own, is drawn (and listed last) only when it is the mode: the marker
    // of the current context lies on it.
    QCPGraph* perOp = c->curve(Checkpointing::PerOp);
    const bool own = checkpointing == int(Checkpointing::PerOp);
    QCOMPARE(perOp->visible(), own);
    QCOMPARE(c->legend->itemWithPlottable(perOp) != nullptr, own);
    QCOMPARE(graphValues(perOp), sweep.perOpTotalPerGpu);
    if (own) {
        QCOMPARE(graphKeys(perOp), sweep.seq);
        QCOMPARE(perOp->pen().style(), Qt::SolidLine);
        QCOMPARE(c->legend->item(c->legend->itemCount() - 1), c->legend->itemWithPlottable(perOp));
        const auto at = std::find(sweep.seq.begin(), sweep.seq.end(), static_cast<double>(s.training.seqLen));
        QVERIFY(at != sweep.seq.end());
        QCOMPARE(sweep.perOpTotalPerGpu[static_cast<size_t>(at - sweep.seq.begin())],
                 account(s, gpuOf(s)).perGpu.total());
    }
    QCOMPARE(graphValues(c->floorGraph()), (std::vector<double>{sweep.modelStatePerGpu, sweep.modelStatePerGpu}));
    QCOMPARE(c->capacityLine()->point1->coords().y(), gpuOf(s).memoryBytes);
    QCOMPARE(c->diesRegion()->bottomRight->coords().y(), gpuOf(s).memoryBytes);
    QCOMPARE(graphKeys(c->currentPoint()), std::vector<double>{static_cast<double>(s.training.seqLen)});
    QCOMPARE(graphValues(c->currentPoint()), std::vector<double>{account(s, gpuOf(s)).perGpu.total()});
    const bool cross = sweep.crossoverSeq && *sweep.crossoverSeq > kSweepMinSeq;
    QCOMPARE(c->crossoverLine()->visible(), cross);
    if (cross) {
        QCOMPARE(c->crossoverLine()->point1->coords().x(), *sweep.crossoverSeq);
        QVERIFY(c->crossoverText()->text().contains(QString::fromStdString(formatCount(*sweep.crossoverSeq))));
    }
    // The x axis is log₂ with labels 512, 1k … 1M at the powers of two.
    QCOMPARE(c->xAxis->scaleType(), QCPAxis::stLogarithmic);
}

void TestUiCharts::hoverShowsSegmentValue()
{
    Dashboard d;
    d.resize(1400, 800);
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    d.showScenario(s, gpuOf(s));
    MemoryBarChart* bars = d.barChart();
    bars->replot(QCustomPlot::rpImmediateRefresh);
    // Middle of the optimizer segment of the training bar: weights + grads + master + half the optimizer.
    const double y = (14e9 + 14e9 + 28e9 + 28e9);
    const QPointF at(bars->xAxis->coordToPixel(1), bars->yAxis->coordToPixel(y));
    const QString tip = bars->hoverText(at);
    QVERIFY2(tip.contains(QStringLiteral("Optimizer state: 56.0 GB")), qPrintable(tip));
    QVERIFY2(tip.contains(QLocale().toString(qlonglong(56'000'000'000))), qPrintable(tip));
    QVERIFY(bars->hoverText(QPointF(bars->xAxis->coordToPixel(0.5), bars->yAxis->coordToPixel(y))).isEmpty());
}

void TestUiCharts::inferenceShowsOneCurve()
{
    Scenario s = preset(QStringLiteral("llama3-8b"));
    s.training.mode = Mode::Inference;
    Dashboard d;
    d.showScenario(s, gpuOf(s));
    QVERIFY(d.sequenceChart()->curve(Checkpointing::None)->visible());
    QVERIFY(!d.sequenceChart()->curve(Checkpointing::Selective)->visible());
    QVERIFY(!d.sequenceChart()->curve(Checkpointing::Full)->visible());
    QCOMPARE(d.barChart()->columns()[2].label.section(QLatin1Char('\n'), 0, 0), QStringLiteral("Inference per GPU"));
}

// Issue 31 §1: with ZeRO-3 and the parameters offloaded the model state on the GPU is 0 (no floor on a log axis: not
// listed), and selective lies within half a percent of none (one line on the log axis: the legend says so).
void TestUiCharts::legendListsOnlyWhatIsDrawn()
{
    Scenario s = preset(QStringLiteral("chapter-70b"));
    s.training.seqLen = 8192;
    s.training.checkpointing = Checkpointing::Full;
    s.hardware.zeroStage = 3;
    s.hardware.offload = Offload::OptimizerParams;
    s = withGpuCount(s, 8);
    Dashboard d;
    d.showScenario(s, gpuOf(s));
    SequenceChart* seq = d.sequenceChart();
    QCOMPARE(d.state().sweep.modelStatePerGpu, 0.0);
    QStringList listed;
    for (int i = 0; i < seq->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(seq->legend->item(i))) {
            QVERIFY2(item->plottable()->visible(), qPrintable(item->plottable()->name()));
            listed << item->plottable()->name();
        }
    QVERIFY2(!listed.contains(QStringLiteral("Model state (the floor)")), qPrintable(listed.join(", ")));
    QVERIFY2(listed.contains(QStringLiteral("Selective = none with flash attention")), qPrintable(listed.join(", ")));
    // Back to a scenario with model state on the GPU: the floor is drawn and listed again.
    d.showScenario(preset(QStringLiteral("chapter-7b")), gpuOf(s));
    QVERIFY(seq->floorGraph()->visible());
    QVERIFY(seq->legend->hasItemWithPlottable(seq->floorGraph()));
}

// The floor is no checkpointing mode: it was drawn in the weights' blue (0x4e79a7) and dashed, which is selective
// recompute's colour and, where selective is not the scenario's mode, its style: on the tour's slides the legend listed
// "Selective = none with flash attention" and "Model state (the floor)" with the same icon.
void TestUiCharts::floorIsNoCheckpointingCurve()
{
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    Dashboard d;
    d.showScenario(s, gpuOf(s));
    SequenceChart* seq = d.sequenceChart();
    QVERIFY(seq->floorGraph()->visible());
    for (Checkpointing mode : {Checkpointing::None, Checkpointing::Selective, Checkpointing::Full}) {
        const QPen curve = seq->curve(mode)->pen();
        const QPen floor = seq->floorGraph()->pen();
        QVERIFY2(floor.color() != curve.color(), qPrintable(floor.color().name()));
    }
}

// The tour's "70B is about 1.1 TB" (its step 3): full checkpointing is the scenario's mode, so "No checkpointing"
// (red) and "Selective = none with flash attention" (blue) are both dashed on one path. With one dash pattern the blue
// dashes lay exactly on the red ones and the legend listed a red curve that was nowhere on the chart. Counted here:
// pixels of the red curve's own colour inside the plot (the shaded "out of memory" region is a 30/255 tint of the
// capacity colour and the capacity line is 0xb01e1e, neither near 0xe15759).
void TestUiCharts::coincidingCurvesBothShow()
{
    Scenario s = preset(QStringLiteral("chapter-70b"));
    s.training.seqLen = 8192;
    s.training.checkpointing = Checkpointing::Full;
    Dashboard d;
    d.resize(1600, 800);
    d.showScenario(s, gpuOf(s));
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    SequenceChart* seq = d.sequenceChart();
    QVERIFY(seq->legend->hasItemWithPlottable(seq->curve(Checkpointing::None)));
    QCOMPARE(seq->curve(Checkpointing::Selective)->name(), QStringLiteral("Selective = none with flash attention"));
    const QImage image = seq->toPixmap(seq->width(), seq->height(), 1.0).toImage();
    const QRect plot = seq->axisRect()->rect();
    const QColor red = ChartTheme::checkpointColor(static_cast<int>(Checkpointing::None));
    const QColor blue = ChartTheme::checkpointColor(static_cast<int>(Checkpointing::Selective));
    auto near = [](QColor a, QColor b) {
        return std::abs(a.red() - b.red()) <= 12 && std::abs(a.green() - b.green()) <= 12 &&
               std::abs(a.blue() - b.blue()) <= 12;
    };
    int reds = 0, blues = 0;
    for (int y = plot.top(); y <= plot.bottom(); ++y)
        for (int x = plot.left(); x <= plot.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            reds += near(c, red) ? 1 : 0;
            blues += near(c, blue) ? 1 : 0;
        }
    // Both curves run the plot's width (~1,000 px here) as dashes 3 line widths long: a few hundred pixels each.
    QVERIFY2(blues > 300, qPrintable(QString::number(blues)));
    QVERIFY2(reds > 300, qPrintable(QStringLiteral("red %1, blue %2").arg(reds).arg(blues)));
}

// Issue 31 §2: DeepSeek-V3's 76 GB per GPU on a 10 TB axis is a sliver; the chart draws it again to its own scale, top
// right, stacking the same segments, with the GPU's capacity; where the bar is tall enough, or on the log axis, not.
// At F5 on a 1024 × 768 projector (the slide's fonts, 1.4×) the inset kept its minimum width, 50 px inside 15 px
// margins and its tick labels, wider than its 28% of the plot: it ran off the chart's right edge with its bar and its
// name (the tour's steps 6 and 7).
void TestUiCharts::aSliverBarIsZoomed_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("fontScale");
    QTest::newRow("window, 1024×700") << QSize(1024, 700) << 1.0;
    QTest::newRow("F5 on a 1024×768 projector") << QSize(1024, 768) << 1.4;
    QTest::newRow("F5, a narrower bar chart (800×768)") << QSize(800, 768) << 1.4;
}

void TestUiCharts::aSliverBarIsZoomed()
{
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    const Scenario s = preset(QStringLiteral("deepseek-v3"));
    Dashboard d;
    d.resize(size);
    d.setFontScale(fontScale);
    d.showScenario(s, gpuOf(s));
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    MemoryBarChart* bars = d.barChart();
    bars->grab();
    const Segments& g = d.state().current.perGpu;
    QVERIFY(g.total() < MemoryBarChart::kInsetShare * d.state().training.singleGpu.total());
    QVERIFY(bars->inset()->visible());
    for (SegmentKind k : kAllSegmentKinds) {
        QCPBars* b = bars->insetBars(k);
        QVERIFY(b->visible());
        QCOMPARE(b->data()->size(), 1);
        QCOMPARE(b->data()->constBegin()->value, segmentBytes(g, k));
    }
    const QCPRange r = bars->inset()->axis(QCPAxis::atLeft)->range();
    QVERIFY(r.upper >= g.total() && r.upper >= gpuOf(s).memoryBytes);
    QVERIFY2(bars->inset()->outerRect().height() >= 120,
             qPrintable(QString::number(bars->inset()->outerRect().height())));
    // Inside the plot, its name inside the chart, and no total meets it.
    const QRect outer = bars->inset()->outerRect();
    QVERIFY2(bars->axisRect()->rect().contains(outer), qPrintable(QStringLiteral("inset %1..%2, plot %3..%4")
                                                                      .arg(outer.left())
                                                                      .arg(outer.right())
                                                                      .arg(bars->axisRect()->rect().left())
                                                                      .arg(bars->axisRect()->rect().right())));
    QCPAxis* name = bars->inset()->axis(QCPAxis::atBottom);
    const int nameWidth =
        QFontMetrics(name->labelFont()).boundingRect(QRect(), Qt::TextDontClip, name->label()).width();
    const int centre = bars->inset()->rect().center().x();
    QVERIFY2(centre - nameWidth / 2 >= 0 && centre + nameWidth / 2 <= bars->width(),
             qPrintable(QStringLiteral("\"%1\" %2 px wide, centred at %3 in %4")
                            .arg(name->label())
                            .arg(nameWidth)
                            .arg(centre)
                            .arg(bars->width())));
    for (int k = 0; k < static_cast<int>(bars->columns().size()); ++k)
        if (!bars->totalLabel(k)->skipped())
            QVERIFY(!bars->totalLabel(k)->pixelBox().intersects(bars->inset()->outerRect()));

    bars->setAxisScale(AxisScale::Logarithmic); // the log axis shows every total already
    QVERIFY(!bars->inset()->visible());
    bars->setAxisScale(AxisScale::Linear);
    QVERIFY(bars->inset()->visible());
    d.showScenario(preset(QStringLiteral("chapter-7b")), gpuOf(s)); // the per-GPU bar is the training bar
    QVERIFY(!bars->inset()->visible());
    QVERIFY(!bars->insetBars(SegmentKind::Weights)->visible());
}

// Issue 31 §2: the capacity label sat on the 223 GB per-GPU bar (the 70B over 32 H100s with ZeRO-3 and no
// checkpointing): where both ends of the line are taken by bars it goes into a gap between them.
// The tour's "70B is about 1.1 TB" at a 1024 × 768 slide: all three bars cross the line and no gap between them holds
// "80.0 GB"; the label covered the per-GPU bar. It is now a key in a free top corner.
void TestUiCharts::capacityLabelCoversNoBar_data()
{
    QTest::addColumn<int>("gpus");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("fontScale");
    QTest::newRow("70B ZeRO-3 on 32 H100s at 1600×700") << 32 << QSize(1600, 700) << 1.0;
    QTest::newRow("70B on one H100, every bar over the line, at 1024×700 in slide fonts")
        << 1 << QSize(1024, 700) << 1.3;
}

void TestUiCharts::capacityLabelCoversNoBar()
{
    QFETCH(int, gpus);
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    Scenario s = preset(QStringLiteral("chapter-70b"));
    s.hardware.zeroStage = gpus > 1 ? 3 : 0;
    s = withGpuCount(s, gpus);
    Dashboard d;
    d.resize(size);
    d.setFontScale(fontScale);
    d.showScenario(s, gpuOf(s));
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    MemoryBarChart* bars = d.barChart();
    bars->grab();
    QVERIFY(!bars->capacityText()->skipped());
    const QString covered = capacityLabelOnABar(bars);
    QVERIFY2(covered.isEmpty(), qPrintable(covered));
}

// The same at every step of the tour, at each size it is shown (step 3 at F5 on a 1024×768 projector: all three
// bars cross the line, its headline takes the top left, and the key "╌╌ H100 · 80.0 GB" ran over two bars).
void TestUiCharts::theCapacityLabelCoversNoBarAtAnyStep()
{
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    Dashboard d;
    QVERIFY(openDashboard(d, size, fontScale));
    const std::vector<TourStage> stages = tourStages();
    for (size_t i = 0; i < stages.size(); ++i) {
        showStage(d, stages[i]);
        MemoryBarChart* bars = d.barChart();
        if (!bars->isVisible() || !bars->capacityText()->visible() || bars->capacityText()->skipped())
            continue;
        const QString covered = capacityLabelOnABar(bars);
        QVERIFY2(covered.isEmpty(), qPrintable(QStringLiteral("step %1: %2").arg(i + 1).arg(covered)));
    }
}

// The dark theme's capacity colour (0xff6b6b) on the optimizer state's 0xe15759: where the 80 GB line crossed that
// segment (the chapter's 7B, the tour's steps 2 and 16) it was red on red, not there. Along the line, inside the
// training bar, some pixels now stand out from the segment by WCAG's 3:1 for graphics (SC 1.4.11).
void TestUiCharts::capacityLineCrossesTheOptimizerState()
{
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    Dashboard d;
    d.setPalette(themePalette(ThemeChoice::Dark));
    d.resize(1600, 800);
    d.showScenario(s, gpuOf(s));
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    MemoryBarChart* bars = d.barChart();
    QVERIFY(bars->palette().color(QPalette::Base).lightnessF() < 0.5);
    const Segments& g = d.state().training.singleGpu;
    const double capacity = gpuOf(s).memoryBytes;
    // 80 GB lies inside the optimizer state: weights + gradients + master = 14 + 14 + 28 = 56 GB below it, 112 GB on
    // top.
    const double below = g.weights + g.gradients + g.master;
    QVERIFY2(below < capacity && capacity < below + g.optimizer, qPrintable(QString::number(below)));
    const QImage image = bars->toPixmap(bars->width(), bars->height(), 1.0).toImage();
    const int y = qRound(bars->yAxis->coordToPixel(capacity));
    const int left = qRound(bars->xAxis->coordToPixel(1 - MemoryBarChart::kBarWidth / 2)) + 3;
    const int right = qRound(bars->xAxis->coordToPixel(1 + MemoryBarChart::kBarWidth / 2)) - 3;
    auto luminance = [](QColor c) {
        auto lin = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
    };
    const double segment = luminance(ChartTheme::segmentColor(SegmentKind::Optimizer));
    // The line is 2 px wide and antialiased: the best of the rows it covers.
    int contrasting = 0;
    for (int row = y - 1; row <= y + 1; ++row) {
        int n = 0;
        for (int x = left; x <= right; ++x) {
            const double l = luminance(image.pixelColor(x, row));
            n += (std::max(l, segment) + 0.05) / (std::min(l, segment) + 0.05) >= 3 ? 1 : 0;
        }
        contrasting = std::max(contrasting, n);
    }
    // The dashes' gaps are a third of the line (Qt's dash pattern 4, 2): none stood out before, most gaps do now.
    QVERIFY2(contrasting >= (right - left) / 6,
             qPrintable(QStringLiteral("%1 of %2 px").arg(contrasting).arg(right - left)));
}

// Regression: the live preview drops antialiasing while edits come in; QCustomPlot's
// setNotAntialiasedElements() also clears the antialiased set, which then stayed empty for good.
void TestUiCharts::antialiasingReturnsAfterDrag()
{
    Dashboard d;
    const QCP::AntialiasedElements bars = d.barChart()->antialiasedElements();
    const QCP::AntialiasedElements seq = d.sequenceChart()->antialiasedElements();
    QVERIFY(seq.testFlag(QCP::aePlottables));
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    for (int i = 0; i < 5; ++i) { // a drag: several edits in a row
        Scenario x = s;
        x.training.seqLen = 1024 << i;
        d.showScenario(x, gpuOf(x));
        QCOMPARE(d.sequenceChart()->notAntialiasedElements(), QCP::AntialiasedElements(QCP::aeAll));
    }
    QTRY_COMPARE_WITH_TIMEOUT(d.sequenceChart()->notAntialiasedElements(), QCP::AntialiasedElements(QCP::aeNone), 2000);
    QCOMPARE(d.barChart()->antialiasedElements(), bars);
    QCOMPARE(d.sequenceChart()->antialiasedElements(), seq);
}

QTEST_MAIN(TestUiCharts)
// Issue 31 (the tour looked at in F5): the context chart's shade said "Out of memory on one H100" on the per-GPU
// curves of a 32-GPU run, as if the whole run were out of memory.
void TestUiCharts::outOfMemorySaysOnWhichGpus()
{
    Dashboard d;
    Scenario s = preset(QStringLiteral("chapter-7b"));
    d.showScenario(s, gpuOf(s));
    QCOMPARE(d.sequenceChart()->diesText()->text().replace(QLatin1Char('\n'), QLatin1Char(' ')),
             QStringLiteral("Out of memory on one H100"));
    s.hardware.gpus = 32;
    d.showScenario(s, gpuOf(s));
    QCOMPARE(d.sequenceChart()->diesText()->text().replace(QLatin1Char('\n'), QLatin1Char(' ')),
             QStringLiteral("Out of memory on each H100"));
}

// The sizes the tour is shown at on a 1024×768 projector: in the window, and at F5 (the slide's font scale).
void TestUiCharts::tourSizes_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("fontScale");
    QTest::newRow("window, 1024×700") << QSize(1024, 700) << 1.0;
    // The dashboard as the window lays it out on a 1024×768 screen with the tour's dock beside it and the film under
    // it (steps 4 to 8): 790 × 445 px, measured on a screenshot of the tour's step 8.
    QTest::newRow("window at 1024×768 beside the tour, over the film") << QSize(790, 445) << 1.0;
    QTest::newRow("F5 on a 1024×768 projector") << QSize(1024, 768) << 1.4;
    QTest::newRow("F5 on a 1920×1080 screen") << QSize(1920, 1080) << 1.4;
    // F5's dashboard over the tour's narration (two lines) on a 1024×768 projector, measured on a screenshot of it.
    QTest::newRow("F5 on a 1024×768 projector, over the narration") << QSize(1024, 700) << 1.4;
    QTest::newRow("F5 on a 1024×768 projector, over three lines of narration") << QSize(1024, 650) << 1.4;
}

// Issue 31 (the tour looked at slide by slide): the current context's dotted line ran through "Out of memory on one
// H100" on the context chart, and the floor's dotted line through the current value. No label of that chart is crossed
// by its vertical lines (the current context's and the crossover's), at any step of the tour, and "out of memory" is on
// the chart at every step that has it (beside a line, or on two lines, where its corners are crossed).
void TestUiCharts::noLabelIsCrossedByALine()
{
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    Dashboard d;
    QVERIFY(openDashboard(d, size, fontScale));
    int shown = 0, withLabel = 0;
    const std::vector<TourStage> stages = tourStages();
    QCOMPARE(stages.size(), chapterTour().size());
    for (size_t i = 0; i < stages.size(); ++i) {
        showStage(d, stages[i]);
        SequenceChart* seq = d.sequenceChart();
        if (!seq->isVisible())
            continue; // a build-up step hides it
        std::vector<std::pair<QString, double>> lines{
            {QStringLiteral("current context"), seq->xAxis->coordToPixel(seq->markerLine()->point1->coords().x())}};
        if (seq->crossoverLine()->visible())
            lines.emplace_back(QStringLiteral("crossover"),
                               seq->xAxis->coordToPixel(seq->crossoverLine()->point1->coords().x()));
        for (CachedTextItem* label : {seq->diesText(), seq->capacityText(), seq->markerText(), seq->crossoverText()}) {
            if (!label->visible() || label->skipped())
                continue;
            const QRect box = label->pixelBox();
            for (const auto& [name, x] : lines)
                QVERIFY2(x < box.left() || x > box.right() + 1,
                         qPrintable(QStringLiteral("step %1: the %2 line (x = %3) crosses “%4” at %5..%6")
                                        .arg(i + 1)
                                        .arg(name)
                                        .arg(x)
                                        .arg(label->text())
                                        .arg(box.left())
                                        .arg(box.right() + 1)));
        }
        // Nor the current value and the crossover's note by the floor's dotted line (step 2: "4k: 138 GB" across the
        // 112 GB floor), unless the value would have no place at all.
        if (seq->floorGraph()->visible() && seq->data().sweep.modelStatePerGpu > 0) {
            const double floorY = seq->yAxis->coordToPixel(seq->data().sweep.modelStatePerGpu);
            for (CachedTextItem* label : {seq->markerText(), seq->crossoverText()}) {
                if (!label->visible() || label->skipped())
                    continue;
                const QRect box = label->pixelBox();
                QVERIFY2(floorY < box.top() || floorY > box.bottom() + 1,
                         qPrintable(QStringLiteral("step %1: the floor (y = %2) crosses “%3” at %4..%5")
                                        .arg(i + 1)
                                        .arg(floorY)
                                        .arg(label->text())
                                        .arg(box.top())
                                        .arg(box.bottom() + 1)));
            }
        }
        withLabel += seq->diesText()->visible() ? 1 : 0;
        shown += seq->diesText()->visible() && !seq->diesText()->skipped() ? 1 : 0;
        // The current value is on the chart at every step (step 8 at 1024×768 had none: one line fitted neither
        // between the crossover's line and the point nor between the point and the plot's edge).
        QVERIFY2(seq->markerText()->visible() && !seq->markerText()->skipped(),
                 qPrintable(QStringLiteral("step %1: the current value “%2” has no place")
                                .arg(i + 1)
                                .arg(seq->markerText()->text())));
    }
    QVERIFY2(shown == withLabel, qPrintable(QStringLiteral("%1 of %2 shown").arg(shown).arg(withLabel)));
}

// Issue 31: "Training pe…" and the layout under DeepSeek-V3's bars were cut on the bars at F5 on a 1024×768
// projector. A bar's name is never cut: every word of it is on the chart, whole (smaller, or on more lines), each
// line inside the bar's slot, at every step of the tour.
void TestUiCharts::aBarsNameIsNeverCut()
{
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    Dashboard d;
    QVERIFY(openDashboard(d, size, fontScale));
    const std::vector<TourStage> stages = tourStages();
    for (size_t i = 0; i < stages.size(); ++i) {
        showStage(d, stages[i]);
        MemoryBarChart* bars = d.barChart();
        const QMap<double, QString> ticks = static_cast<QCPAxisTickerText*>(bars->xAxis->ticker().data())->ticks();
        const std::vector<BarColumn>& columns = d.state().columns;
        QCOMPARE(ticks.size(), static_cast<qsizetype>(columns.size()));
        const double slot = std::fabs(bars->xAxis->coordToPixel(1) - bars->xAxis->coordToPixel(0));
        const QFontMetricsF fm(bars->xAxis->tickLabelFont());
        for (size_t k = 0; k < columns.size(); ++k) {
            const QString shown = ticks.value(static_cast<double>(k));
            const QString where = QStringLiteral("step %1, bar %2: “%3”").arg(i + 1).arg(k).arg(shown);
            QVERIFY2(!shown.contains(QChar(0x2026)), qPrintable(where));
            QCOMPARE(QString(shown).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified(),
                     QString(columns[k].label).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified());
            for (const QString& line : shown.split(QLatin1Char('\n')))
                QVERIFY2(fm.horizontalAdvance(line) <= slot,
                         qPrintable(where + QStringLiteral(": “%1” %2 px in a %3 px slot")
                                                .arg(line)
                                                .arg(fm.horizontalAdvance(line))
                                                .arg(slot)));
        }
    }
}

// Issue 31: DeepSeek-V3's step and its receipt's step show the same bars, yet the axis changed between the two
// slides (the room above the bars followed each step's callout, one line or two), and a class compares the heights.
// Steps that share an axis draw on the same one.
void TestUiCharts::stepsSharingAnAxisCompareOnIt()
{
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    Dashboard d;
    QVERIFY(openDashboard(d, size, fontScale));
    const std::vector<TourStage> stages = tourStages();
    const size_t first = *tourStepIndex("deepseek-v3"), second = *tourStepIndex("deepseek-v3-receipt");
    QCOMPARE(chapterTour()[first].axis, chapterTour()[second].axis);
    QVERIFY(!chapterTour()[first].axis.empty());
    showStage(d, stages[first]);
    const QCPRange a = d.barChart()->yAxis->range();
    const QRect plotA = d.barChart()->axisRect()->rect();
    showStage(d, stages[second]);
    const QCPRange b = d.barChart()->yAxis->range();
    QCOMPARE(d.barChart()->axisRect()->rect(), plotA);
    QVERIFY2(qFuzzyCompare(a.upper, b.upper) && a.lower == b.lower,
             qPrintable(QStringLiteral("%1..%2 against %3..%4").arg(a.lower).arg(a.upper).arg(b.lower).arg(b.upper)));
    // And back: the first step again is on the same axis.
    showStage(d, stages[first]);
    QVERIFY(qFuzzyCompare(d.barChart()->yAxis->range().upper, a.upper));
}

// Issue 31 §2 ("a bar that holds the point of the step must be visible"): the tour's step 4, "You cut it up", is about
// its per-GPU bar (58.5 GB on each of 32 H100s) beside a 1.19 TB bar and a number above them; in the window at
// 1024 × 768 the axis went to 2.6 TB, the bar was under 4 px, its segments drawn as nothing, and the inset, asked for
// below 4% of the axis without the number's room, did not come. At every step and size the per-GPU bar is at least
// kInsetPixels tall, or zoomed in the inset, inside the chart.
void TestUiCharts::everyStepsPerGpuBarCanBeRead()
{
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    const std::vector<TourStage> stages = tourStages();
    // In the window at 1024 × 768 the bar chart beside the controls is about 390 × 380: the dashboard's half of it.
    std::vector<QSize> sizes{size};
    if (fontScale == 1.0)
        sizes.push_back(QSize(790, 380));
    for (const QSize at : sizes) {
        Dashboard d;
        QVERIFY(openDashboard(d, at, fontScale));
        for (size_t i = 0; i < stages.size(); ++i) {
            showStage(d, stages[i]);
            MemoryBarChart* bars = d.barChart();
            if (bars->columns().size() < 3 || bars->columns()[2].measured || bars->columns()[2].pinned ||
                bars->yAxis->scaleType() == QCPAxis::stLogarithmic)
                continue;
            const double total = bars->columns()[2].segments.total();
            if (total <= 0)
                continue;
            const double pixels = bars->yAxis->coordToPixel(0) - bars->yAxis->coordToPixel(total);
            const QString where = QStringLiteral("step %1 at %2×%3: the per-GPU bar is %4 px tall")
                                      .arg(i + 1)
                                      .arg(at.width())
                                      .arg(at.height())
                                      .arg(pixels);
            if (pixels >= MemoryBarChart::kInsetPixels)
                continue;
            QVERIFY2(bars->inset()->visible(), qPrintable(where + QStringLiteral(" and not zoomed")));
            QVERIFY2(bars->rect().contains(bars->inset()->outerRect()),
                     qPrintable(where + QStringLiteral(", its inset "
                                                       "off the chart")));
        }
    }
}

#include "tst_ui_charts.moc"
