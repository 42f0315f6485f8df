// One training step as a film (issue 11 §1): the chart, its dock and its export, on the offscreen platform.
// The numbers are the core's stepTimeline() (tst_timeline checks them against the terms); here the chart must
// stack exactly those bands, mark and name the peak, name the phases under the axis, keep its labels inside
// the chart at the dock's and the slides' sizes, and the window must offer the dock hidden and follow edits.
#include "chartexport.h"
#include "controlpanel.h"
#include "dashboard.h"
#include "logsliderfield.h"
#include "mainwindow.h"
#include "teachingdocks.h"
#include "timelinechart.h"
#include "tourpanel.h"
#include "uitestutil.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {

TimelineChartData dataFor(const Scenario& s)
{
    const GpuSpec& gpu = gpuOf(s);
    return timelineChartData(s, gpu, account(s, gpu));
}

} // namespace

class TestUiTimeline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void chartStacksTheCoresBands()
    {
        const Scenario s = preset(QStringLiteral("chapter-7b"));
        TimelineChart chart;
        chart.resize(1200, 700);
        const TimelineChartData d = dataFor(s);
        chart.setData(d);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        const StepTimeline& t = d.timeline;
        // The top band's value at each sample is the sample's total; each band sits on the one below it.
        const std::vector<double> top = graphValues(chart.band(SegmentKind::Fragmentation));
        QCOMPARE(top.size(), 2 * t.samples.size());
        for (size_t i = 0; i < t.samples.size(); ++i) {
            QCOMPARE(top[2 * i], t.samples[i].total());
            QCOMPARE(top[2 * i + 1], t.samples[i].total());
        }
        const std::vector<double> weights = graphValues(chart.band(SegmentKind::Weights));
        for (double w : weights)
            QCOMPARE(w, 14e9);
        QCOMPARE(chart.band(SegmentKind::Master)->channelFillGraph(), chart.band(SegmentKind::Gradients, true));
        // The legend lists what the film shows: no KV cache, recompute or adapters without them.
        QVERIFY(chart.legend->itemWithPlottable(chart.band(SegmentKind::Activations)));
        QVERIFY(chart.legend->itemWithPlottable(chart.band(SegmentKind::Gradients, true)));
        QVERIFY(!chart.legend->itemWithPlottable(chart.band(SegmentKind::KvCache)));
        QVERIFY(!chart.legend->itemWithPlottable(chart.band(SegmentKind::Activations, true)));
        QVERIFY(!chart.legend->itemWithPlottable(chart.band(SegmentKind::Adapters)));
        // The peak: marked at its moment, named with the bars' total, 138 GB.
        QCOMPARE(chart.peakPoint()->data()->size(), 1);
        QCOMPARE(chart.peakPoint()->data()->constBegin()->value, t.peakBytes);
        QCOMPARE(chart.peakText(), QStringLiteral("Peak: the loss (logits) · 138 GB"));
        QVERIFY(!chart.peakLabel()->skipped());
        QCOMPARE(chart.peakLabel()->text(), chart.peakText());
        // Every phase is named under the axis at this width.
        QStringList names;
        for (const QString& n : chart.phaseTicker()->ticks().values())
            names << n;
        QCOMPARE(names, (QStringList{"forward", "loss", "backward", "optimizer (adamw)"}));
        // Hover over the start of the backward pass: its layer, total and bands.
        const TimelinePhase& bw = t.phases[firstPhaseOf(t, StepPhaseKind::Backward)];
        const QPointF at(chart.xAxis->coordToPixel(bw.start + 0.5), chart.axisRect()->center().y());
        const QString tip = chart.hoverText(at);
        QVERIFY2(tip.startsWith(QStringLiteral("<b>backward, layer 32</b>")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Gradient buffer (not yet written): 14.0 GB")), qPrintable(tip));
        QVERIFY(chart.hoverText(QPointF(1, 1)).isEmpty());
        const QStringList problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // Regression: going from serving (no gradients) to training put the gradient bands at the legend's end; the
    // legend follows the stack's order whatever came and went.
    void legendKeepsTheStacksOrder()
    {
        Scenario s = preset(QStringLiteral("chapter-7b"));
        s.training.mode = Mode::Inference;
        TimelineChart chart;
        chart.setData(dataFor(s));
        QVERIFY(!chart.legend->itemWithPlottable(chart.band(SegmentKind::Gradients)));
        s.training.mode = Mode::Training;
        chart.setData(dataFor(s));
        QStringList names;
        for (int i = 0; i < chart.legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(chart.legend->item(i)))
                names << item->plottable()->name();
        QCOMPARE(names.mid(0, 5), (QStringList{"Weights", "Gradients (written)", "Gradient buffer (not yet written)",
                                               "Master weights (fp32)", "Optimizer state"}));
    }

    // Full recomputation: the rebuilt layer is its own band in the backward pass, and only there.
    void recomputeIsItsOwnBand()
    {
        Scenario s = preset(QStringLiteral("gpt3-175b"));
        s.training.checkpointing = Checkpointing::Full;
        TimelineChart chart;
        chart.resize(1000, 600);
        const TimelineChartData d = dataFor(s);
        chart.setData(d);
        QVERIFY(chart.legend->itemWithPlottable(chart.band(SegmentKind::Activations, true)));
        const StepTimeline& t = d.timeline;
        const std::vector<double> tape = graphValues(chart.band(SegmentKind::Activations));
        const std::vector<double> rebuilt = graphValues(chart.band(SegmentKind::Activations, true));
        for (size_t i = 0; i < t.samples.size(); ++i) {
            const double band = rebuilt[2 * i] - tape[2 * i];
            if (t.phases[t.samples[i].phase].kind == StepPhaseKind::Backward)
                QVERIFY(band > 2e9); // GPT-3's layer tape, 2.87 GB
            else
                QCOMPARE(band, 0.0);
        }
        QVERIFY(chart.peakText().startsWith(QStringLiteral("Peak: backward of layer 96")));
    }

    // A tour step plays a phase: it stays in full colour, outlined, and the rest of the step is veiled.
    void playedPhaseIsShaded()
    {
        TimelineChart chart;
        chart.resize(1000, 500);
        chart.setData(dataFor(preset(QStringLiteral("chapter-7b"))));
        QVERIFY(!chart.playedRect()->visible());
        chart.setPlayedPhase(StepPhaseKind::Optimizer);
        QVERIFY(chart.playedRect()->visible());
        const StepTimeline& t = chart.data().timeline;
        const TimelinePhase& opt = t.phases[firstPhaseOf(t, StepPhaseKind::Optimizer)];
        QCOMPARE(chart.playedRect()->topLeft->coords().x(), opt.start);
        QCOMPARE(chart.playedRect()->bottomRight->coords().x(), opt.end);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const QImage img = chart.grab().toImage();
        const double dpr = img.devicePixelRatio();
        // Halfway up the weights band (0 … 14 GB): its own colour in the played phase, veiled in the forward pass.
        const double y = chart.yAxis->coordToPixel(7e9);
        auto colourAt = [&](double key) {
            return img.pixelColor(QPoint(int(chart.xAxis->coordToPixel(key) * dpr), int(y * dpr)));
        };
        const TimelinePhase& fwd = t.phases[firstPhaseOf(t, StepPhaseKind::Forward)];
        const QColor weights = ChartTheme::segmentColor(SegmentKind::Weights);
        QCOMPARE(colourAt((opt.start + opt.end) / 2).name(), weights.name());
        const QColor veiled = colourAt((fwd.start + fwd.end) / 2);
        QVERIFY2(veiled.lightness() > weights.lightness() + 40, qPrintable(veiled.name()));
        chart.setPlayedPhase(std::nullopt);
        QVERIFY(!chart.playedRect()->visible());
        const QImage plain = chart.grab().toImage();
        QCOMPARE(plain.pixelColor(QPoint(int(chart.xAxis->coordToPixel((fwd.start + fwd.end) / 2) * dpr), int(y * dpr)))
                     .name(),
                 weights.name());
    }

    // Issue 31 §1: a build-up step ("+ a gradient per weight": weights and gradients so far, 28 GB of the 7B) shows the
    // same "so far" on every visible chart: the film holds only the revealed segments and peaks at the bars' 28 GB,
    // and the dashboard's context chart, which cannot show a partial state, steps aside.
    void buildUpStepShowsSoFarEverywhere()
    {
        const Scenario s = preset(QStringLiteral("chapter-7b"));
        const GpuSpec& gpu = gpuOf(s);
        TourPicture picture;
        picture.revealed = {SegmentKind::Weights, SegmentKind::Gradients};
        picture.added = {SegmentKind::Gradients};
        picture.callout = "So far: 28.0 GB";
        QVERIFY(isBuildUp(picture));
        TimelinePanel panel;
        panel.setScenario(s, gpu, account(s, gpu), UnitSystem::Decimal);
        panel.setPicture(picture);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const StepTimeline& t = panel.chart()->data().timeline;
        QCOMPARE(t.peakBytes, 28e9); // 14 GB of bf16 weights + their 14 GB of bf16 gradients
        QCOMPARE(t.barsTotal, 28e9);
        for (const TimelineSample& x : t.samples)
            QCOMPARE(x.bytes.optimizer + x.bytes.master + x.bytes.activations + x.bytes.logits, 0.0);
        panel.setPicture(std::nullopt);
        QCoreApplication::processEvents();
        QVERIFY(panel.chart()->data().timeline.peakBytes > 112e9);

        Dashboard d;
        d.showScenario(s, gpu);
        d.setPicture(picture);
        QVERIFY(d.sequenceChart()->isHidden());
        d.setPicture(std::nullopt);
        QVERIFY(!d.sequenceChart()->isHidden());
    }

    // Labels inside the chart and apart, at the dock's, the window's and the slides' sizes.
    void labelsStayInside_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("slide");
        for (bool slide : {false, true}) {
            const char* theme = slide ? ", slide theme" : "";
            for (const QSize& size : {QSize(1920, 1080), QSize(1024, 700), QSize(700, 320)}) {
                const QString at = QStringLiteral(" at %1×%2%3").arg(size.width()).arg(size.height()).arg(theme);
                QTest::addRow("%s", qPrintable(QStringLiteral("chapter-7b") + at))
                    << QStringLiteral("chapter-7b") << QString() << size << slide;
                QTest::addRow("%s", qPrintable(QStringLiteral("deepseek-v3 stage 0 of 16") + at))
                    << QStringLiteral("deepseek-v3") << QString() << size << slide;
                QTest::addRow("%s", qPrintable(QStringLiteral("7B ZeRO-2 + optimizer offload") + at))
                    << QStringLiteral("chapter-7b") << QStringLiteral("offload") << size << slide;
                QTest::addRow("%s", qPrintable(QStringLiteral("llama3-70b served") + at))
                    << QStringLiteral("llama3-70b") << QStringLiteral("serve") << size << slide;
            }
        }
    }
    void labelsStayInside()
    {
        QFETCH(QString, id);
        QFETCH(QString, variant);
        QFETCH(QSize, size);
        QFETCH(bool, slide);
        Scenario s = preset(id);
        if (variant == QLatin1String("offload")) {
            s.hardware.gpus = 8;
            s.hardware.zeroStage = 2;
            s.hardware.offload = Offload::Optimizer;
        } else if (variant == QLatin1String("serve")) {
            s.training.mode = Mode::Inference;
        }
        TimelineChart chart;
        chart.resize(size);
        if (slide)
            chart.setTheme(ChartTheme::slide(size.width(), size.height()));
        chart.setData(dataFor(s));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        QVERIFY(!chart.peakLabel()->skipped());
        const QStringList problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        // The first and the last phase are always named, in full or short.
        const QList<QString> names = chart.phaseTicker()->ticks().values();
        QVERIFY(!names.isEmpty());
        QVERIFY(!names.first().isEmpty());
        if (qEnvironmentVariableIsSet("TRAINMEM_TIMELINE_SHOTS"))
            chart.grab().save(QStringLiteral("%1/%2.png")
                                  .arg(qEnvironmentVariable("TRAINMEM_TIMELINE_SHOTS"),
                                       QString::fromLatin1(QTest::currentDataTag())
                                           .replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]+")), "-")));
    }

    // Drawn into a file at a tour slide's size (fonts sized for the whole 1024 × 700 slide, 201 px for the film): the
    // memory axis's title gives way, the phase names change with the wider plot, and the labels are still placed
    // (on the tour's checkpointing slide they were not: LivePlot stopped after two layout passes, and the peak's
    // label and the GPU's were drawn nowhere). The peak's label sits by the peak, every label in the picture.
    void labelsPlacedWhenDrawnToAFile()
    {
        Scenario s = preset(QStringLiteral("llama3-8b"));
        s.training.seqLen = 131072;
        s.training.checkpointing = Checkpointing::Full;
        TimelineChart chart; // as chartexport.cpp's makeScene() makes it
        chart.setTheme(ChartTheme::slide(1024, 700));
        chart.setUnits(UnitSystem::Decimal);
        chart.fitLabelsTo(1024);
        chart.setData(dataFor(s));
        chart.setPlayedPhase(StepPhaseKind::Backward);
        QImage img(984, 201, QImage::Format_ARGB32_Premultiplied);
        QCPPainter p(&img);
        chart.toPainter(&p, 984, 201);
        p.end();
        QVERIFY(chart.yAxis->label() != QStringLiteral("Memory per GPU")); // the plot is lower than the title is long
        QVERIFY(!chart.peakLabel()->skipped());
        const QRect plot = chart.axisRect()->rect();
        QVERIFY2(
            plot.contains(chart.peakLabel()->pixelBox()),
            qPrintable(
                QStringLiteral("%1,%2").arg(chart.peakLabel()->pixelBox().x()).arg(chart.peakLabel()->pixelBox().y())));
        QVERIFY(plot.contains(chart.capacityLabel()->pixelBox()));
        for (const ChartLabel& l : chart.labelRects())
            QVERIFY2(QRect(0, 0, 984, 201).contains(l.rect), qPrintable(l.text));
    }

    void windowOffersTheDockHiddenAndFollowsEdits()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        showWindow(w);
        QDockWidget* dock = nullptr;
        TimelinePanel* panel = nullptr;
        openPanelDock(w, QStringLiteral("timelineDock"), &dock, &panel);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(w.dockWidgetArea(dock), Qt::BottomDockWidgetArea);
        QVERIFY2(panel->summary()->text().startsWith(QStringLiteral("The step peaks at the loss (logits): 138 GB, the "
                                                                    "per-GPU bar's total")),
                 qPrintable(panel->summary()->text()));
        w.resize(1024, 700);
        QTest::qWait(20);
        panel->chart()->grab();
        QVERIFY2(w.height() <= 700 && w.width() <= 1024,
                 qPrintable(QStringLiteral("%1×%2").arg(w.width()).arg(w.height())));
        if (qEnvironmentVariableIsSet(
                "TRAINMEM_TIMELINE_SHOTS")) // for looking at it: the window as a projector shows it
            w.grab().save(
                QStringLiteral("%1/window-1024x700.png").arg(qEnvironmentVariable("TRAINMEM_TIMELINE_SHOTS")));
        QVERIFY(panel->chart()->axisRect()->height() >= 80);
        const QStringList problems = labelProblems(panel->chart());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

        // Dragging the context slider redraws the film with every step, from the dashboard's own breakdown.
        QSlider* context = w.controlPanel()->contextField()->slider();
        for (int i = 1; i <= 3; ++i) {
            const int before = panel->recomputeCount();
            context->setValue(context->value() + 1);
            QCoreApplication::processEvents();
            QVERIFY(panel->recomputeCount() > before);
            const Scenario now = w.scenario();
            const StepTimeline core = stepTimeline(now, gpuOf(now));
            QCOMPARE(panel->chart()->data().timeline.peakBytes, core.peakBytes);
            QCOMPARE(panel->chart()->data().timeline.samples.size(), core.samples.size());
        }
        dock->toggleViewAction()->trigger();
        QVERIFY(dock->isHidden());
        const int before = panel->recomputeCount();
        context->setValue(context->value() + 1);
        QCoreApplication::processEvents();
        QCOMPARE(panel->recomputeCount(), before);
    }

    // Full recomputation of the chapter's 7B: the rebuilt layer (539 MB) is smaller than the logits (786 MB), so the
    // film still peaks at the loss, below the bar by the rebuilt layer, and the panel says so with the reason on
    // hover.
    // Issue 31 §1: on the tour's checkpointing slide the film said "Peak … 293 GB" beside a 313 GB bar with no word
    // of why. Llama 3 8B at 128k with full recomputation: the step peaks at the loss with the tape of 32 layer inputs
    // (34.4 GB) and the logits; the bar also adds the one layer's tape that backward rebuilds (18.3 GB) and the reserve
    // on it, so the label names the bar's total and why, and keeps only its first line where two do not fit.
    void peakLabelSaysWhyTheBarDiffers()
    {
        Scenario s = preset(QStringLiteral("llama3-8b"));
        s.training.seqLen = 131072;
        s.training.checkpointing = Checkpointing::Full;
        const TimelineChartData d = dataFor(s);
        QCOMPARE(qRound(d.timeline.peakBytes / 1e9), 293);
        QCOMPARE(qRound(d.timeline.barsTotal / 1e9), 313);
        TimelineChart chart;
        chart.setUnits(UnitSystem::Decimal);
        chart.resize(1400, 420);
        chart.setData(d);
        QCOMPARE(chart.peakText(), QStringLiteral("Peak: the loss (logits) · 293 GB\n"
                                                  "The bar's 313 GB adds parts never alive at once"));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        QVERIFY(!chart.peakLabel()->skipped());
        QCOMPARE(chart.peakLabel()->text(), chart.peakText());
        // Lower and lower docks: the label stays inside the plot, in two lines while they fit and then in one.
        bool oneLine = false;
        for (int h = 300; h >= 90; h -= 10) {
            chart.resize(560, h);
            chart.grab();
            if (chart.peakLabel()->skipped())
                continue;
            QVERIFY2(chart.axisRect()->rect().contains(chart.peakLabel()->pixelBox()), qPrintable(QString::number(h)));
            if (chart.peakLabel()->text() == QStringLiteral("Peak: the loss (logits) · 293 GB"))
                oneLine = true;
            else
                QCOMPARE(chart.peakLabel()->text(), chart.peakText());
        }
        QVERIFY(oneLine);
        // Where the bar and the peak print alike (the chapter's 7B, 138 GB) the label has one line.
        chart.setData(dataFor(preset(QStringLiteral("chapter-7b"))));
        QVERIFY(!chart.peakText().contains(QLatin1Char('\n')));
    }

    void panelSaysWhyThePeakIsBelowTheBar()
    {
        Scenario full = preset(QStringLiteral("chapter-7b"));
        full.training.checkpointing = Checkpointing::Full;
        TimelinePanel panel;
        panel.resize(900, 400);
        panel.setScenario(full, gpuOf(full), account(full, gpuOf(full)), UnitSystem::Decimal);
        QCOMPARE(panel.recomputeCount(), 0);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(panel.recomputeCount(), 1);
        QVERIFY2(panel.summary()->text().contains(QStringLiteral("below the per-GPU bar")),
                 qPrintable(panel.summary()->text()));
        QVERIFY2(panel.summary()->text().startsWith(QStringLiteral("The step peaks at the loss (logits)")),
                 qPrintable(panel.summary()->text()));
        QVERIFY2(panel.summary()->toolTip().contains(QStringLiteral("Activations: Full recomputation rebuilds")),
                 qPrintable(panel.summary()->toolTip()));
    }

    // Presentation mode keeps a shown film on the slide, in the slide's larger fonts; the other docks go.
    void presentationKeepsTheFilm()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.resize(1600, 1000);
        showWindow(w);
        QDockWidget* dock = nullptr;
        TimelinePanel* panel = nullptr;
        openPanelDock(w, QStringLiteral("timelineDock"), &dock, &panel);
        if (QTest::currentTestFailed())
            return;
        auto* controls = w.findChild<QDockWidget*>(QStringLiteral("controlsDock"));
        QCoreApplication::processEvents();
        const double before = panel->chart()->xAxis->tickLabelFont().pointSizeF();
        w.setPresentationMode(true);
        QCoreApplication::processEvents();
        QVERIFY(dock->isVisible());
        QVERIFY(!controls->isVisible());
        QVERIFY2(
            panel->chart()->xAxis->tickLabelFont().pointSizeF() >= before * 1.3,
            qPrintable(QStringLiteral("%1 → %2").arg(before).arg(panel->chart()->xAxis->tickLabelFont().pointSizeF())));
        w.setPresentationMode(false);
        QCoreApplication::processEvents();
        QVERIFY(dock->isVisible());
        QVERIFY(controls->isVisible());
        QCOMPARE(panel->chart()->xAxis->tickLabelFont().pointSizeF(), before);
        // Hidden before F5: it stays hidden on the slide.
        dock->toggleViewAction()->trigger();
        w.setPresentationMode(true);
        QCoreApplication::processEvents();
        QVERIFY(!dock->isVisible());
        w.setPresentationMode(false);
    }

    // The tour plays a phase on the film: the gradients step shades the backward pass, Adam's the optimizer step,
    // and the film's dock comes up for it; a step without a phase shades none.
    void tourStepsPlayTheirPhase()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.resize(1600, 1000);
        showWindow(w);
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("timelineDock"));
        auto* panel = dock->findChild<TimelinePanel*>();
        QVERIFY(dock->isHidden());
        TourPanel* tour = w.teaching()->tour();
        tour->setStep(int(*tourStepIndex("picture-gradients")));
        QCoreApplication::processEvents();
        QVERIFY(dock->isVisible());
        QVERIFY(panel->chart()->playedPhase() == StepPhaseKind::Backward);
        QVERIFY(panel->chart()->playedRect()->visible());
        tour->setStep(int(*tourStepIndex("picture-adam")));
        QCoreApplication::processEvents();
        QVERIFY(panel->chart()->playedPhase() == StepPhaseKind::Optimizer);
        tour->setStep(int(*tourStepIndex("7b-training")));
        QCoreApplication::processEvents();
        QVERIFY(!panel->chart()->playedPhase());
        QVERIFY(!panel->chart()->playedRect()->visible());
    }

    void exportDrawsTheFilm()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("timeline.png"));
        const Scenario s = preset(QStringLiteral("chapter-7b"));
        ExportOptions o;
        o.width = 1920;
        o.height = 1080;
        QString error;
        QVERIFY2(exportChartPng(s, gpuOf(s), ChartKind::Timeline, file, o, &error), qPrintable(error));
        const QImage img(file);
        QCOMPARE(img.size(), QSize(1920, 1080));
        QVERIFY(distinctColours(img) > 12);
        QCOMPARE(chartKindFromName(QStringLiteral("timeline")), std::optional<ChartKind>(ChartKind::Timeline));
        QCOMPARE(chartKindName(ChartKind::Timeline), QStringLiteral("timeline"));
    }
};

QTEST_MAIN(TestUiTimeline)
#include "tst_ui_timeline.moc"
