// trainmem-bench: the performance figures of DEVELOPERS.md, as JSON on stdout.
//   core recompute (account + every sweep curve), one slider step end to end (control change,
//   recompute, replot and paint of every chart, offscreen at 1600×1000), PNG export at
//   1920×1080 and 3840×2160, start-up to first painted frame, peak RSS.
//   the fit map (issue 11 §3): one grid of 61 × 45 cells from the core, and a context-slider step with the
//   Fit map dock shown (its recompute and paint included); the step as a film (issue 11 §1): stepTimeline() from
//   the core, a context-slider step with its dock shown (three charts), and its PNG export.
//   Slider steps run on the default preset and on a hybrid one (Qwen3-Next-80B-A3B served at 262,144 tokens).
// Usage: trainmem-bench [--quick] [--only core|steps|fitmap|timeline|docks|export|startup] [--dock NAME]
//   --quick: fewer repetitions, for a smoke run; --only: one section, for profiling it alone; --dock: the docks
//   section with that dock alone (peersDock, fitMapDock, …). TRAINMEM_BENCH_TRACE=1 prints each dock step.
#include "accounting.h"
#include "chartexport.h"
#include "controlpanel.h"
#include "dashboard.h"
#include "fitmap.h"
#include "liveplot.h"
#include "logsliderfield.h"
#include "mainwindow.h"
#include "presetlibrary.h"
#include "timeline.h"

#include <QApplication>
#include <QDockWidget>

#include <QElapsedTimer>
#include <QPaintEvent>
#include <QProcess>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <vector>

using namespace trainmem;
using Clock = std::chrono::steady_clock;

namespace {

nlohmann::json stats(std::vector<double> v, const char* unit)
{
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
        return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
    };
    return {{"unit", unit},    {"runs", v.size()}, {"median", at(0.5)},
            {"p99", at(0.99)}, {"min", v.front()}, {"max", v.back()}};
}

double since(Clock::time_point t0, double scale)
{
    return std::chrono::duration<double>(Clock::now() - t0).count() * scale;
}

// Child mode: time from main() to the first paint of the window's charts, printed in ms.
int startupOnce(int argc, char** argv, Clock::time_point started)
{
    QApplication app(argc, argv);
    const PresetLibrary& lib = PresetLibrary::instance();
    MainWindow w(lib, lib.find(QString::fromLatin1(PresetLibrary::kDefaultPresetId))->scenario);
    w.resize(1600, 1000);
    struct FirstPaint : QObject {
        Clock::time_point t0;
        bool eventFilter(QObject*, QEvent* e) override
        {
            if (e->type() == QEvent::Paint) {
                std::printf("%.3f\n", since(t0, 1e3));
                std::fflush(stdout);
                QTimer::singleShot(0, qApp, &QCoreApplication::quit);
            }
            return false;
        }
    } filter;
    filter.t0 = started;
    w.dashboard()->sequenceChart()->installEventFilter(&filter);
    w.show();
    return app.exec();
}

} // namespace

// A context-slider drag on a 1600 × 1000 window with `dockName` shown: each step end to end (the edit, the core,
// every chart shown), and the dock's chart's own paint.
nlohmann::json dragWithDock(const PresetLibrary& lib, const char* dockName, int n)
{
    MainWindow w(lib, lib.find(QString::fromLatin1(PresetLibrary::kDefaultPresetId))->scenario);
    w.setModalErrors(false);
    w.resize(1600, 1000);
    w.show();
    auto* dock = w.findChild<QDockWidget*>(QString::fromLatin1(dockName));
    dock->show();
    dock->raise();
    QCoreApplication::processEvents();
    auto* chart = dock->findChild<LivePlot*>(); // none in the text docks (formula, receipt, fixes, tour)
    QAbstractSlider* context = w.controlPanel()->contextField()->slider();
    std::vector<double> ms, chartPaintMs;
    const int lo = context->minimum(), span = std::max(1, context->maximum() - lo);
    for (int i = 0; i < n; ++i) {
        const int phase = i % (2 * span);
        const int paintsBefore = chart ? chart->paintCount() : 0;
        const auto t0 = Clock::now();
        context->setValue(lo + (phase < span ? phase : 2 * span - phase));
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        ms.push_back(since(t0, 1e3));
        chartPaintMs.push_back(chart && chart->paintCount() > paintsBefore ? chart->lastPaintMs() : 0);
        if (qEnvironmentVariableIsSet("TRAINMEM_BENCH_TRACE"))
            std::fprintf(stderr, "step %d value %d: %.2f ms (dock chart %.2f)\n", i, context->value(), ms.back(),
                         chartPaintMs.back());
    }
    nlohmann::json step = stats(ms, "ms");
    step["dock_chart_paint_ms"] = stats(chartPaintMs, "ms")["median"];
    return step;
}

// Slider steps, end to end, on a real window offscreen showing preset `presetId`: `n` steps of each named control
// (params, context, micro_batch, gpu_count, active_params), swept up and down its range like a hand dragging.
std::optional<nlohmann::json> sliderSteps(const PresetLibrary& lib, const char* presetId,
                                          std::initializer_list<const char*> names, int n)
{
    const auto* preset = lib.find(QString::fromLatin1(presetId));
    if (!preset) {
        std::fprintf(stderr, "bench: no preset %s\n", presetId);
        return std::nullopt;
    }
    MainWindow w(lib, preset->scenario);
    w.setModalErrors(false);
    w.resize(1600, 1000);
    w.show();
    QCoreApplication::processEvents();
    ControlPanel* panel = w.controlPanel();
    struct Target {
        const char* name;
        QAbstractSlider* slider;
        QSpinBox* spin;
    };
    std::vector<Target> targets;
    for (const char* name : names) {
        const std::string key = name;
        if (key == "params")
            targets.push_back({name, panel->paramsField()->slider(), nullptr});
        else if (key == "context")
            targets.push_back({name, panel->contextField()->slider(), nullptr});
        else if (key == "micro_batch")
            targets.push_back({name, nullptr, panel->microBatchBox()});
        else if (key == "gpu_count")
            targets.push_back({name, nullptr, panel->gpuCountBox()});
        else if (key == "active_params")
            targets.push_back({name, panel->activeField()->slider(), nullptr});
        else {
            std::fprintf(stderr, "bench: no control %s\n", name);
            return std::nullopt;
        }
    }
    nlohmann::json steps;
    // Paints of the two charts and of every widget: what a step repaints besides the charts.
    // TRAINMEM_BENCH_PAINTLOG=1 lists each paint with its widget and rectangle on stderr.
    struct PaintCounter : QObject {
        int charts = 0, widgets = 0;
        const QObject* bars = nullptr;
        const QObject* seq = nullptr;
        bool log = qEnvironmentVariableIsSet("TRAINMEM_BENCH_PAINTLOG");
        bool eventFilter(QObject* o, QEvent* e) override
        {
            if (e->type() != QEvent::Paint)
                return false;
            ++widgets;
            charts += (o == bars || o == seq) ? 1 : 0;
            if (log) {
                const QRect r = static_cast<QPaintEvent*>(e)->rect();
                std::fprintf(stderr, "paint %s %s %d,%d %dx%d\n", o->metaObject()->className(),
                             qPrintable(o->objectName()), r.x(), r.y(), r.width(), r.height());
            }
            return false;
        }
    } paints;
    LivePlot* bars = w.dashboard()->barChart();
    LivePlot* seq = w.dashboard()->sequenceChart();
    paints.bars = bars;
    paints.seq = seq;
    qApp->installEventFilter(&paints);
    int replots = 0; // QCustomPlot::replot(): the live path should need none
    QObject::connect(bars, &QCustomPlot::afterReplot, [&] { ++replots; });
    QObject::connect(seq, &QCustomPlot::afterReplot, [&] { ++replots; });
    for (const Target& t : targets) {
        if (paints.log)
            std::fprintf(stderr, "target %s\n", t.name);
        std::vector<double> ms, editMs, paintMs, chartMs;
        if (t.slider && !t.slider->isEnabled()) {
            std::fprintf(stderr, "bench: the %s slider is disabled in %s\n", t.name, presetId);
            return std::nullopt;
        }
        const int lo = t.slider ? t.slider->minimum() : t.spin->minimum();
        const int hi = t.slider ? t.slider->maximum() : std::min(t.spin->maximum(), t.spin->minimum() + 255);
        const int span = std::max(1, hi - lo);
        for (int i = 0; i < n; ++i) {
            // Sweep up and down the range like a hand dragging.
            const int phase = i % (2 * span);
            const int v = lo + (phase < span ? phase : 2 * span - phase);
            const int barsBefore = bars->paintCount(), seqBefore = seq->paintCount();
            const auto t0 = Clock::now();
            // The control change: scenario, undo stack, recompute with the core, chart data.
            if (t.slider)
                t.slider->setValue(v);
            else
                t.spin->setValue(v);
            const auto t1 = Clock::now();
            QCoreApplication::sendPostedEvents(); // layout requests, queued updates
            QCoreApplication::processEvents();    // and the paint of everything that changed
            const auto t2 = Clock::now();
            ms.push_back(std::chrono::duration<double>(t2 - t0).count() * 1e3);
            editMs.push_back(std::chrono::duration<double>(t1 - t0).count() * 1e3);
            paintMs.push_back(std::chrono::duration<double>(t2 - t1).count() * 1e3);
            chartMs.push_back((bars->paintCount() > barsBefore ? bars->lastPaintMs() : 0) +
                              (seq->paintCount() > seqBefore ? seq->lastPaintMs() : 0));
        }
        nlohmann::json& r = steps[t.name];
        r = stats(ms, "ms");
        // Where the step goes (medians): the edit up to new chart data; the event-loop pass
        // that paints; and, within that, the two charts' own paint events.
        r["edit_recompute_ms"] = stats(editMs, "ms")["median"];
        r["paint_ms"] = stats(paintMs, "ms")["median"];
        r["chart_paint_ms"] = stats(chartMs, "ms")["median"];
        r["chart_paints_per_step"] = static_cast<double>(paints.charts) / n;
        r["widget_paints_per_step"] = static_cast<double>(paints.widgets) / n;
        r["replots_per_step"] = static_cast<double>(replots) / n;
        replots = paints.charts = paints.widgets = 0;
    }
    return steps;
}

int main(int argc, char** argv)
{
    const Clock::time_point started = Clock::now();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QCoreApplication::setOrganizationName(QStringLiteral("TrainMem-bench")); // keep the user's settings out of it
    QCoreApplication::setApplicationName(QStringLiteral("trainmem-bench"));
    for (int i = 1; i < argc; ++i)
        if (QByteArray(argv[i]) == "--startup-once")
            return startupOnce(argc, argv, started);
    bool quick = false;
    QByteArray only, onlyDock;
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--quick") {
            quick = true;
        } else if (a == "--only" && i + 1 < argc) {
            only = argv[++i];
        } else if (a == "--dock" && i + 1 < argc) {
            onlyDock = argv[++i];
        } else {
            std::fprintf(stderr,
                         "trainmem-bench: unknown argument '%s'\n"
                         "usage: trainmem-bench [--quick] [--only core|steps|fitmap|timeline|docks|export|startup] "
                         "[--dock NAME]\n",
                         argv[i]);
            return 2;
        }
    }
    if (!only.isEmpty() && only != "core" && only != "steps" && only != "fitmap" && only != "timeline" &&
        only != "docks" && only != "export" && only != "startup") {
        std::fprintf(stderr,
                     "trainmem-bench: --only takes core, steps, fitmap, timeline, docks, export or startup, got '%s'\n",
                     only.constData());
        return 2;
    }
    auto wanted = [&](const char* section) { return only.isEmpty() || only == section; };

    QApplication app(argc, argv);
    const PresetLibrary& lib = PresetLibrary::instance();
    nlohmann::json out;
    out["machine"] = {{"cores", QThread::idealThreadCount()},
                      {"platform", QGuiApplication::platformName().toStdString()}};

    // 1. Core: one full breakdown plus every curve of the sequence chart, for every built-in preset (issue 29's
    // target holds for each).
    if (wanted("core")) {
        nlohmann::json core;
        for (const PresetEntry& preset : lib.presets()) {
            if (!preset.builtIn)
                continue;
            const std::string id = preset.scenario.id;
            const Scenario& s = preset.scenario;
            const GpuSpec& gpu = lib.gpuFor(s);
            std::vector<double> us;
            double sink = 0;
            const int runs = quick ? 200 : 5000;
            for (int i = 0; i < runs; ++i) {
                const auto t0 = Clock::now();
                const Breakdown b = account(s, gpu);
                const ContextSweep sw = sweepContext(s, gpu, kSweepPointsPerOctave);
                sink += b.perGpu.total() + sw.totalPerGpu[0].back();
                us.push_back(since(t0, 1e6));
            }
            core[id] = stats(us, "us");
            if (sink < 0)
                std::puts("");
        }
        out["core_recompute"] = core;
    }

    // 2. Slider steps, end to end, on a real window offscreen: the default preset with every slider, and a hybrid
    // model (issue 29: Qwen3-Next-80B-A3B served at 262,144 tokens, 12 layers of KV cache beside 36 Gated DeltaNet
    // states) with the controls that keep its architecture (the size sliders would replace it by the size rule).
    if (wanted("steps")) {
        const int n = quick ? 100 : 1000;
        const auto steps = sliderSteps(lib, PresetLibrary::kDefaultPresetId,
                                       {"params", "context", "micro_batch", "gpu_count", "active_params"}, n);
        const auto hybrid = sliderSteps(lib, "qwen3-next-80b-a3b", {"context", "micro_batch"}, n);
        if (!steps || !hybrid)
            return 1;
        out["slider_step_1600x1000"] = *steps;
        out["slider_step_hybrid_1600x1000"] = *hybrid;
        out["slider_step_hybrid_1600x1000"]["preset"] = "qwen3-next-80b-a3b";
    }

    // 3. The fit map: the core's grid (every cell's minGpusToFit), and a context-slider step with its dock shown.
    if (wanted("fitmap")) {
        nlohmann::json fm;
        for (const char* id : {"chapter-7b", "llama3-70b", "deepseek-v3"}) {
            const Scenario s = lib.find(QString::fromLatin1(id))->scenario;
            const GpuSpec& gpu = lib.gpuFor(s);
            std::vector<double> ms;
            size_t cells = 0;
            int64_t sink = 0;
            const int runs = quick ? 20 : 200;
            for (int i = 0; i < runs; ++i) {
                const auto t0 = Clock::now();
                const FitMap m = fitMap(s, gpu);
                ms.push_back(since(t0, 1e3));
                cells = m.gpus.size();
                sink += m.gpus.back();
            }
            nlohmann::json& r = fm[id];
            r = stats(ms, "ms");
            r["cells"] = cells;
            r["us_per_cell"] = r["median"].get<double>() * 1e3 / static_cast<double>(std::max<size_t>(cells, 1));
            if (sink < 0)
                std::puts("");
        }
        out["fitmap_grid"] = fm;

        out["slider_step_with_fitmap_1600x1000"] = dragWithDock(lib, "fitMapDock", quick ? 50 : 300);
    }

    // 4. The step as a film: the core's stepTimeline(), and a context-slider step with its dock shown, so that
    // three charts follow the drag.
    if (wanted("timeline")) {
        nlohmann::json tl;
        for (const char* id : {"chapter-7b", "llama3-70b", "deepseek-v3"}) {
            const Scenario s = lib.find(QString::fromLatin1(id))->scenario;
            const GpuSpec& gpu = lib.gpuFor(s);
            const ResolvedModel m = resolveModel(s.model);
            const Breakdown b = account(m, s, gpu);
            std::vector<double> us;
            double sink = 0;
            const int runs = quick ? 200 : 3000;
            size_t samples = 0;
            for (int i = 0; i < runs; ++i) {
                const auto t0 = Clock::now();
                const StepTimeline t = stepTimeline(m, s, b);
                us.push_back(since(t0, 1e6));
                sink += t.peakBytes;
                samples = t.samples.size();
            }
            tl[id] = stats(us, "us");
            tl[id]["samples"] = samples;
            if (sink < 0)
                std::puts("");
        }
        out["timeline_core"] = tl;
        out["slider_step_with_timeline_1600x1000"] = dragWithDock(lib, "timelineDock", quick ? 50 : 300);
    }

    // 4b. A context-slider step with each dock shown alone (issue 31: p99 under 8 ms with any dock shown).
    if (wanted("docks")) {
        nlohmann::json docks;
        for (const char* name : {"peersDock", "ranksDock", "fitMapDock", "timelineDock", "tourDock", "formulaDock",
                                 "fixesDock", "receiptDock", "ladderDock"})
            if (onlyDock.isEmpty() || onlyDock == name)
                docks[name] = dragWithDock(lib, name, quick ? 50 : 300);
        out["slider_step_with_each_dock_1600x1000"] = docks;
    }

    // 5. PNG export of the dashboard and of the film.
    if (wanted("export")) {
        QTemporaryDir dir;
        const Scenario s = lib.find(QString::fromLatin1(PresetLibrary::kDefaultPresetId))->scenario;
        const GpuSpec& gpu = lib.gpuFor(s);
        for (auto [kind, key] : {std::pair{ChartKind::Dashboard, "png_export_dashboard"},
                                 std::pair{ChartKind::Timeline, "png_export_timeline"}}) {
            nlohmann::json ex;
            for (auto [w, h, label] : {std::tuple{1920, 1080, "1920x1080"}, std::tuple{3840, 2160, "3840x2160"}}) {
                std::vector<double> ms;
                const int runs = quick ? 3 : 20;
                for (int i = 0; i < runs; ++i) {
                    ExportOptions o;
                    o.width = w;
                    o.height = h;
                    QString error;
                    const auto t0 = Clock::now();
                    if (!exportChartPng(s, gpu, kind, dir.filePath(QStringLiteral("d.png")), o, &error)) {
                        std::fprintf(stderr, "export failed: %s\n", qPrintable(error));
                        return 1;
                    }
                    ms.push_back(since(t0, 1e3));
                }
                ex[label] = stats(ms, "ms");
            }
            out[key] = ex;
        }
    }

    // 6. Start-up to first painted frame, in fresh processes.
    if (wanted("startup")) {
        std::vector<double> ms;
        const int runs = quick ? 3 : 20;
        for (int i = 0; i < runs; ++i) {
            QProcess p;
            p.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--startup-once")});
            if (!p.waitForFinished(60000) || p.exitCode() != 0) {
                std::fprintf(stderr, "start-up run failed: %s\n", p.readAllStandardError().constData());
                return 1;
            }
            ms.push_back(QString::fromLatin1(p.readAllStandardOutput()).trimmed().toDouble());
        }
        out["startup_to_first_paint"] = stats(ms, "ms");
    }

    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    out["peak_rss_mib"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
