#include "chartexport.h"

#include "charttheme.h"
#include "dashboard.h"
#include "fitmapchart.h"
#include "memorybarchart.h"
#include "peerschart.h"
#include "presetlibrary.h"
#include "rankchart.h"
#include "sequencechart.h"
#include "timelinechart.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>

#include <qcustomplot.h>

#include <cmath>
#include <memory>

namespace trainmem {
namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ChartExport", text);
}

/// The offscreen charts for one export, themed and filled from the core's numbers.
struct Scene {
    DashboardState state;
    ChartTheme theme;
    std::unique_ptr<MemoryBarChart> bars;
    std::unique_ptr<SequenceChart> seq;
    std::unique_ptr<PeersChart> peers;
    std::unique_ptr<RankChart> ranks;
    std::unique_ptr<FitMapChart> fitMap;
    std::unique_ptr<TimelineChart> timeline;
    QString title;
    bool verdictFits = false; ///< the verdict band's colour: the scenario's, or a build-up step's "so far"
};

/// A slide's margin and the gap between its charts (drawDashboard()).
struct SlideSpacing {
    int margin;
    int gap;
};
SlideSpacing slideSpacing(const ChartTheme& t)
{
    return {qRound(t.fontPx * 1.3), qRound(t.fontPx)};
}

} // namespace

int slideChartWidth(const ChartTheme& t, int width, bool sideBySide, bool contextChart)
{
    const SlideSpacing sp = slideSpacing(t);
    const int across = width - 2 * sp.margin;
    if (!sideBySide)
        return across;
    const int bars = (across - sp.gap) / 2;
    return contextChart ? across - sp.gap - bars : bars;
}

namespace {

Scene makeScene(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const ExportOptions& o, const ChartExtras& x)
{
    Scene sc;
    sc.state = computeDashboard(s, gpu, x.pins, x.units, nullptr, x.measured ? &*x.measured : nullptr);
    const ShownVerdict shown = shownVerdict(sc.state, x.picture, gpu); // a build-up slide says "so far" (issue 31 §1)
    sc.state.verdict = shown.text;
    sc.verdictFits = shown.fits;
    sc.theme =
        o.slideTheme ? ChartTheme::slide(o.width, o.height) : ChartTheme::fromPalette(QGuiApplication::palette());
    sc.title = !x.title.isEmpty() ? x.title : QString::fromStdString(s.name.empty() ? s.id : s.name);
    // A preset edited since it was loaded is no longer the preset its name says (issue 31 §2).
    if (x.title.isEmpty() && !s.id.empty() && PresetLibrary::instance().find(QString::fromStdString(s.id)) &&
        !PresetLibrary::instance().isUnedited(s))
        sc.title = tr("%1 (changed)").arg(sc.title);
    const bool single = kind != ChartKind::Dashboard;
    if (kind == ChartKind::Peers) {
        sc.peers = std::make_unique<PeersChart>();
        sc.peers->setTheme(sc.theme);
        sc.peers->setUnits(x.units);
        sc.peers->setAxisScale(x.axisScale);
        sc.peers->fitLabelsTo(o.width);
        sc.peers->setComparison(peerComparisonFor(s, gpu, x.megatron), s.hardware.zeroStage == 3 ? 3 : 2,
                                gpu.memoryBytes, sc.state.capacityLabel);
        sc.peers->setTitle(tr("Megatron-LM and DeepSpeed beside TrainMem: %1").arg(sc.title));
        return sc;
    }
    if (kind == ChartKind::Ranks) {
        const ResolvedModel model = resolveModel(s.model);
        sc.ranks = std::make_unique<RankChart>();
        sc.ranks->setTheme(sc.theme);
        sc.ranks->setUnits(x.units);
        sc.ranks->setAxisScale(x.axisScale);
        sc.ranks->fitLabelsTo(o.width);
        sc.ranks->setRanks(rankKinds(model, s), parallelLayout(s, model).pp, gpu.memoryBytes, sc.state.capacityLabel);
        sc.ranks->setTitle(tr("Memory per GPU, rank by rank: %1").arg(sc.title));
        return sc;
    }
    if (kind == ChartKind::FitMap) {
        sc.fitMap = std::make_unique<FitMapChart>();
        sc.fitMap->setTheme(sc.theme);
        sc.fitMap->fitLabelsTo(o.width);
        sc.fitMap->setData(fitMapChartData(s, gpu));
        sc.fitMap->setTitle(
            tr("GPUs needed by model size and context on %1: %2").arg(QString::fromStdString(gpu.id), sc.title));
        return sc;
    }
    // The film: on its own, or under a tour slide's two charts when the step plays one of its phases (issue 11 §2).
    const std::optional<StepPhaseKind> played = x.picture ? x.picture->phase : std::nullopt;
    if (kind == ChartKind::Timeline || (kind == ChartKind::Dashboard && played)) {
        sc.timeline = std::make_unique<TimelineChart>();
        sc.timeline->setTheme(sc.theme);
        sc.timeline->setUnits(x.units);
        sc.timeline->fitLabelsTo(o.width);
        TimelineChartData film = timelineChartData(s, gpu, sc.state.current, x.units);
        if (isBuildUp(x.picture)) // a build-up slide's film shows the bars' "so far" (issue 31 §1)
            revealOnly(film, x.picture->revealed, sc.state.current.perGpu);
        sc.timeline->setData(film);
        sc.timeline->setPlayedPhase(played);
        if (kind == ChartKind::Timeline) {
            const bool training = s.training.mode == Mode::Training;
            sc.timeline->setTitle(
                (training ? tr("One training step, memory per GPU: %1") : tr("One forward pass, memory per GPU: %1"))
                    .arg(sc.title));
            return sc;
        }
    }
    if (kind != ChartKind::Seq) {
        sc.bars = std::make_unique<MemoryBarChart>();
        sc.bars->setTheme(sc.theme);
        sc.bars->setUnits(x.units);
        sc.bars->setAxisScale(x.axisScale);
        // Fitted to the width it is drawn at (the context chart's legend, fitted to half the slide, wrapped into
        // three columns the 1024-px slide's chart is too narrow for: "…flash attention" ran under "Full recompute").
        const bool wide = single || o.width < o.height * 1.2 || (kind == ChartKind::Dashboard && isBuildUp(x.picture));
        sc.bars->fitLabelsTo(single ? o.width : slideChartWidth(sc.theme, o.width, !wide, false));
        sc.bars->setPicture(x.picture);
        sc.bars->setColumns(sc.state.columns, gpu.memoryBytes, sc.state.capacityLabel);
        if (single && !sc.title.isEmpty())
            sc.bars->setTitle(tr("Where the memory goes: %1").arg(sc.title));
    }
    // The context chart shows whole totals: a build-up slide, whose bars show "so far", leaves it out (issue 31 §1).
    if (kind != ChartKind::Bars && !(kind == ChartKind::Dashboard && isBuildUp(x.picture))) {
        sc.seq = std::make_unique<SequenceChart>();
        sc.seq->setTheme(sc.theme);
        sc.seq->setUnits(x.units);
        sc.seq->fitTicksTo(single ? o.width : slideChartWidth(sc.theme, o.width, o.width >= o.height * 1.2, true));
        sc.seq->setData(sc.state.sequence);
        if (single && !sc.title.isEmpty())
            sc.seq->setTitle(tr("Memory per GPU against context: %1").arg(sc.title));
    }
    return sc;
}

void drawChart(QCPPainter& p, QCustomPlot* chart, const QRect& r)
{
    p.save();
    p.translate(r.topLeft());
    chart->toPainter(&p, r.width(), r.height());
    p.restore();
}

} // namespace

QString footerText(const Breakdown& b, const Scenario& s)
{
    const QString params = QString::fromStdString(formatCount(static_cast<double>(b.model.params.total)));
    const QString context = QString::fromStdString(formatContext(s.training.seqLen));
    // Serving has no optimizer, precision recipe or checkpointing: its footer names the weights' format instead
    // (the tour's first slide read "inference · bf16-mixed · adamw … checkpointing none").
    QString text = s.training.mode == Mode::Inference
                       ? tr("%1 parameters · inference · %2 weights · context %3 · batch %4")
                             .arg(params, QString::fromLatin1(toString(s.training.inferenceWeights)), context)
                             .arg(s.training.microBatch)
                       : tr("%1 parameters · training · %2 · %3 · context %4 · micro-batch %5 · checkpointing %6")
                             .arg(params, QString::fromLatin1(toString(s.training.precision)),
                                  QString::fromLatin1(toString(s.training.optimizer)), context)
                             .arg(s.training.microBatch)
                             .arg(QString::fromLatin1(toString(s.training.checkpointing)));
    if (s.training.adapters())
        text += tr(" · %1 rank %2").arg(QString::fromLatin1(toString(s.training.fineTune))).arg(s.training.loraRank);
    // The layout that makes it fit (issue 31 §2): GPUs, ZeRO, offload and the model-parallel cuts.
    const ParallelLayout& p = b.layout;
    QStringList layout{tr("%1 × %2").arg(p.gpus).arg(QString::fromStdString(s.hardware.gpu))};
    if (s.training.mode == Mode::Training && p.zero > 0)
        layout << tr("ZeRO-%1").arg(p.zero);
    if (s.training.mode == Mode::Training && s.hardware.offload != Offload::None)
        layout << tr("offload %1").arg(QString::fromLatin1(toString(s.hardware.offload)));
    for (const auto& [name, n] : {std::pair{"tp", p.tp}, {"pp", p.pp}, {"cp", p.cp}, {"ep", p.ep}})
        if (n > 1)
            layout << QStringLiteral("%1 %2").arg(QLatin1String(name)).arg(n);
    return text + QStringLiteral(" · ") + layout.join(QStringLiteral(" · ")) + tr(" · made with TrainMem");
}

namespace {

/// A slide: the scenario's name, the verdict, the two charts and a footer with the inputs.
void drawDashboard(QCPPainter& p, Scene& sc, const Scenario& s, int w, int h)
{
    const ChartTheme& t = sc.theme;
    const int m = slideSpacing(t).margin;
    int y = m;
    const QFont titleFont = t.font(1.8, true);
    p.setFont(titleFont);
    p.setPen(t.foreground);
    const QRect titleRect(m, y, w - 2 * m, QFontMetrics(titleFont).height());
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, sc.title.isEmpty() ? tr("TrainMem") : sc.title);
    y = titleRect.bottom() + qRound(t.fontPx * 0.5);

    const QFont verdictFont = t.font(1.2, true);
    const int bar = qRound(t.fontPx * 0.35);
    const QRect verdictArea(m + bar * 3, y, w - 2 * m - bar * 3, h);
    const QRect verdictRect = QFontMetrics(verdictFont).boundingRect(verdictArea, Qt::TextWordWrap, sc.state.verdict);
    const QColor accent = sc.verdictFits ? t.fits : t.capacity;
    QColor tint = accent;
    tint.setAlpha(28);
    const QRect band(m, y - bar, w - 2 * m, verdictRect.height() + 2 * bar);
    p.fillRect(band, tint);
    p.fillRect(QRect(m, band.top(), bar, band.height()), accent);
    p.setFont(verdictFont);
    p.setPen(t.foreground);
    p.drawText(verdictRect, Qt::TextWordWrap, sc.state.verdict);
    y = band.bottom() + qRound(t.fontPx * 0.8);

    const QFont footerFont = t.font(0.8);
    const QString footer = footerText(sc.state.current, s);
    const int footerFlags = Qt::AlignRight | Qt::AlignBottom | Qt::TextWordWrap;
    const int footerH = QFontMetrics(footerFont).boundingRect(QRect(0, 0, w - 2 * m, h), footerFlags, footer).height() +
                        qRound(t.fontPx * 0.4);
    int chartsH = h - y - m - footerH;
    const int gap = slideSpacing(t).gap;
    QRect film; // a tour step's film under the two charts, a third of their height
    if (sc.timeline) {
        const int filmH = (chartsH - gap) * 3 / 8;
        chartsH -= filmH + gap;
        film = QRect(m, y + chartsH + gap, w - 2 * m, filmH);
    }
    if (!sc.seq) {
        drawChart(p, sc.bars.get(), QRect(m, y, w - 2 * m, chartsH));
    } else if (w >= h * 1.2) {
        const int cw = slideChartWidth(t, w, true, false);
        drawChart(p, sc.bars.get(), QRect(m, y, cw, chartsH));
        drawChart(p, sc.seq.get(), QRect(m + cw + gap, y, slideChartWidth(t, w, true, true), chartsH));
    } else {
        const int ch = (chartsH - gap) / 2;
        drawChart(p, sc.bars.get(), QRect(m, y, w - 2 * m, ch));
        drawChart(p, sc.seq.get(), QRect(m, y + ch + gap, w - 2 * m, chartsH - gap - ch));
    }
    if (sc.timeline)
        drawChart(p, sc.timeline.get(), film);

    p.setFont(footerFont);
    QColor grey = t.foreground;
    grey.setAlpha(150);
    p.setPen(grey);
    p.drawText(QRect(m, h - m - footerH, w - 2 * m, footerH), footerFlags, footer);
}

void paintScene(QCPPainter& p, Scene& sc, const Scenario& s, ChartKind kind, int w, int h)
{
    p.fillRect(QRect(0, 0, w, h), sc.theme.background);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    switch (kind) {
    case ChartKind::Bars:
        drawChart(p, sc.bars.get(), QRect(0, 0, w, h));
        break;
    case ChartKind::Seq:
        drawChart(p, sc.seq.get(), QRect(0, 0, w, h));
        break;
    case ChartKind::Dashboard:
        drawDashboard(p, sc, s, w, h);
        break;
    case ChartKind::Peers:
        drawChart(p, sc.peers.get(), QRect(0, 0, w, h));
        break;
    case ChartKind::Ranks:
        drawChart(p, sc.ranks.get(), QRect(0, 0, w, h));
        break;
    case ChartKind::FitMap:
        drawChart(p, sc.fitMap.get(), QRect(0, 0, w, h));
        break;
    case ChartKind::Timeline:
        drawChart(p, sc.timeline.get(), QRect(0, 0, w, h));
        break;
    }
}

bool fail(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

} // namespace

QImage renderChart(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const ExportOptions& o,
                   const ChartExtras& extras)
{
    Scene sc = makeScene(s, gpu, kind, o, extras);
    QImage image(qRound(o.width * o.scale), qRound(o.height * o.scale), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return image;
    image.fill(sc.theme.background);
    QCPPainter p(&image);
    p.scale(o.scale, o.scale);
    paintScene(p, sc, s, kind, o.width, o.height);
    p.end();
    return image;
}

QStringList squeezedLegendEntries(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const ExportOptions& o,
                                  const ChartExtras& extras)
{
    Scene sc = makeScene(s, gpu, kind, o, extras);
    QImage image(o.width, o.height, QImage::Format_ARGB32_Premultiplied);
    QCPPainter p(&image);
    paintScene(p, sc, s, kind, o.width, o.height); // lays every chart out at the size it is drawn
    p.end();
    QStringList out;
    for (QCustomPlot* chart : std::initializer_list<QCustomPlot*>{sc.bars.get(), sc.seq.get(), sc.peers.get(),
                                                                  sc.ranks.get(), sc.fitMap.get(), sc.timeline.get()}) {
        if (!chart || !chart->legend->visible())
            continue;
        const QFontMetrics fm(chart->legend->font());
        for (int i = 0; i < chart->legend->itemCount(); ++i) {
            auto* item = qobject_cast<QCPPlottableLegendItem*>(chart->legend->item(i));
            if (!item || !item->visible())
                continue;
            const int needs = chart->legend->iconSize().width() + chart->legend->iconTextPadding() +
                              fm.boundingRect(item->plottable()->name()).width();
            if (item->rect().width() < needs)
                out << QStringLiteral("“%1”: %2 of %3 px")
                           .arg(item->plottable()->name())
                           .arg(item->rect().width())
                           .arg(needs);
        }
    }
    return out;
}

bool exportChart(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const QString& file, ExportFormat format,
                 const ExportOptions& o, const ChartExtras& extras, QString* error)
{
    if (file.isEmpty())
        return fail(error, tr("no file name given"));
    const QFileInfo info(file);
    if (!info.absoluteDir().exists())
        return fail(error,
                    tr("%1: the folder %2 does not exist").arg(file, QDir::toNativeSeparators(info.absolutePath())));
    if (o.width < 1 || o.height < 1 || !(o.scale > 0) || !exportSizeAllowed(o.width, o.height, o.scale))
        return fail(error, tr("%1: an image of %2×%3 at scale %4 is out of range; an export is at most %5")
                               .arg(file)
                               .arg(o.width)
                               .arg(o.height)
                               .arg(o.scale)
                               .arg(exportSizeLimitText()));

    QSaveFile out(file);
    if (const QString failure = openForSave(out); !failure.isEmpty())
        return fail(error, failure);
    if (format == ExportFormat::Png) {
        const QImage image = renderChart(s, gpu, kind, o, extras);
        if (image.isNull())
            return fail(error,
                        tr("%1: not enough memory for a %2×%3 image").arg(file).arg(image.width()).arg(image.height()));
        if (!image.save(&out, "PNG"))
            return fail(error, tr("%1: the PNG could not be encoded: %2").arg(file, out.errorString()));
    } else {
        // Vector output: one point per logical pixel, no scale needed.
        Scene sc = makeScene(s, gpu, kind, o, extras);
        QPdfWriter pdf(&out);
        pdf.setResolution(72);
        pdf.setPageSize(QPageSize(QSizeF(o.width, o.height), QPageSize::Point, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setCreator(QStringLiteral("TrainMem"));
        pdf.setTitle(sc.title);
        QCPPainter p(&pdf);
        if (!p.isActive())
            return fail(error, tr("%1: cannot start a PDF").arg(file));
        p.setMode(QCPPainter::pmVectorized);
        paintScene(p, sc, s, kind, o.width, o.height);
        p.end();
    }
    if (!out.commit())
        return fail(error, tr("%1: cannot be written: %2").arg(file, out.errorString()));
    return true;
}

bool exportChartPng(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const QString& file,
                    const ExportOptions& options, QString* error, const std::optional<MegatronArgs>& megatron,
                    const std::optional<MeasuredMemory>& measured)
{
    ChartExtras extras;
    extras.megatron = megatron;
    extras.measured = measured;
    return exportChart(s, gpu, kind, file, ExportFormat::Png, options, extras, error);
}

std::optional<TourStage> shippedTourStage(const TourStep& step)
{
    const PresetLookup presets = [](const std::string& id) -> std::optional<Scenario> {
        if (const PresetEntry* e = PresetLibrary::instance().find(QString::fromStdString(id)))
            return e->scenario;
        return std::nullopt;
    };
    const GpuLookup gpus = [](const std::string& id) -> std::optional<GpuSpec> {
        if (const GpuSpec* g = PresetLibrary::instance().gpus().find(id))
            return *g;
        return std::nullopt;
    };
    return evaluateTourStep(step, presets, gpus);
}

bool exportTour(const QString& dir, const ExportOptions& o, QStringList* written, QString* error)
{
    if (dir.isEmpty())
        return fail(error, tr("no folder given for the tour's slides"));
    if (!QDir().mkpath(dir))
        return fail(error, tr("%1: the folder cannot be created").arg(QDir::toNativeSeparators(dir)));
    const QDir out(dir);
    const std::vector<TourStep>& tour = chapterTour();
    QString index = tr("# The chapter tour\n\nWritten by TrainMem: one slide per step of Teach ▸ Chapter tour, %1 × %2 "
                       "pixels. Each slide shows only the memory the step has revealed so far, outlines what it adds, "
                       "and states its number.\n\n")
                        .arg(qRound(o.width * o.scale))
                        .arg(qRound(o.height * o.scale));
    for (size_t i = 0; i < tour.size(); ++i) {
        const std::optional<TourStage> stage = shippedTourStage(tour[i]);
        if (!stage)
            return fail(error, tr("tour step %1 (%2): its preset or GPU is missing")
                                   .arg(i + 1)
                                   .arg(QString::fromStdString(tour[i].id)));
        ChartExtras x;
        x.picture = tourPicture(*stage);
        x.title = QStringLiteral("%1. %2").arg(i + 1).arg(QString::fromStdString(tour[i].title));
        const QString name = QString::fromStdString(tourSlideName(i, tour[i])) + QStringLiteral(".png");
        const QString path = out.filePath(name);
        if (!exportChart(stage->scenario, stage->gpu, ChartKind::Dashboard, path, ExportFormat::Png, o, x, error))
            return false;
        if (written)
            written->append(path);
        // The slide's verdict line under its number, as the speaker's notes (issue 31 §1).
        const Breakdown b = account(stage->scenario, stage->gpu);
        const std::string said = isBuildUp(x.picture)
                                     ? soFarVerdict(revealedBytes(b.perGpu, x.picture->revealed), stage->gpu)
                                     : verdict(b, stage->scenario, stage->gpu);
        index +=
            QStringLiteral("## %1\n\n![%2](%3)\n\n**%4**\n\n> %5\n\n%6\n\n")
                .arg(x.title, QString::fromStdString(tour[i].title), name, QString::fromStdString(x.picture->callout),
                     QString::fromStdString(said), QString::fromStdString(stage->highlight.text));
    }
    const QString indexPath = out.filePath(QStringLiteral("index.md"));
    if (const QString failure = saveUserFile(indexPath, index.toUtf8()); !failure.isEmpty())
        return fail(error, failure);
    if (written)
        written->append(indexPath);
    return true;
}

PeerComparison peerComparisonFor(const Scenario& s, const GpuSpec& gpu, const std::optional<MegatronArgs>& megatron)
{
    Scenario t = s;
    t.training.mode = Mode::Training;
    const MegatronArgs m = megatron ? *megatron : megatronFromScenario(t, resolveModel(t.model).arch);
    return comparePeers(m, t, gpu);
}

} // namespace trainmem
