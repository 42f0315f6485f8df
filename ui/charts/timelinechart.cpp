#include "timelinechart.h"

#include "bytestickers.h"

#include <QLabel>

#include <algorithm>
#include <cmath>

namespace trainmem {
namespace {

QString bytesText(double bytes, UnitSystem units)
{
    return QString::fromStdString(formatBytes(bytes, units));
}

/// A phase's names under the axis when the whole one does not fit its width: shorter, then shortest.
QStringList shorterNames(StepPhaseKind k)
{
    using C = TimelineChart;
    switch (k) {
    case StepPhaseKind::Forward:
        return {C::tr("fwd")};
    case StepPhaseKind::Loss:
        return {};
    case StepPhaseKind::Backward:
        return {C::tr("bwd")};
    case StepPhaseKind::GradientSync:
        return {C::tr("gradient sync"), C::tr("sync")};
    case StepPhaseKind::Optimizer:
        return {C::tr("optimizer"), C::tr("opt")};
    case StepPhaseKind::WeightGather:
        return {C::tr("all-gather"), C::tr("gather")};
    case StepPhaseKind::OffloadOut:
        return {C::tr("→ host"), C::tr("→CPU")};
    case StepPhaseKind::OffloadIn:
        return {C::tr("← host"), C::tr("←CPU")};
    }
    return {};
}

} // namespace

std::vector<TimelineBand> timelineBands()
{
    std::vector<TimelineBand> bands;
    for (SegmentKind k : kAllSegmentKinds) {
        bands.push_back({k, false});
        if (k == SegmentKind::Gradients || k == SegmentKind::Activations)
            bands.push_back({k, true});
    }
    return bands;
}

double bandBytes(const TimelineSample& x, TimelineBand b)
{
    const double v = x.bytes.*termInfo(b.term).field;
    if (b.term == SegmentKind::Gradients)
        return b.second ? std::max(0.0, v - x.gradientsWritten) : std::min(x.gradientsWritten, v);
    if (b.term == SegmentKind::Activations)
        return b.second ? std::min(x.recompute, v) : std::max(0.0, v - x.recompute);
    return b.second ? 0.0 : v;
}

TimelineChartData timelineChartData(const Scenario& s, const GpuSpec& gpu, const Breakdown& b, UnitSystem units)
{
    TimelineChartData d;
    d.timeline = stepTimeline(b.model, s, b);
    d.pipelineStages = b.layout.pp;
    d.capacityLabel =
        TimelineChart::tr("%1 · %2").arg(QString::fromStdString(gpu.id), bytesText(gpu.memoryBytes, units));
    return d;
}

QString TimelineChart::bandName(TimelineBand b, bool training)
{
    if (b.term == SegmentKind::Gradients)
        return b.second ? tr("Gradient buffer (not yet written)") : tr("Gradients (written)");
    if (b.term == SegmentKind::Activations)
        return b.second ? tr("Rebuilt in backward (recompute)")
                        : (training ? tr("Activations (the tape)") : tr("Activations (one layer)"));
    return segmentName(b.term);
}

QColor TimelineChart::bandColor(TimelineBand b)
{
    // The terms' own colours (the same on the bars); the second parts as a lighter and a darker shade.
    const QColor c = ChartTheme::segmentColor(b.term);
    if (!b.second)
        return c;
    return b.term == SegmentKind::Gradients ? c.lighter(150) : c.darker(160);
}

QCPGraph* TimelineChart::band(SegmentKind term, bool second) const
{
    for (size_t i = 0; i < m_bandKinds.size(); ++i)
        if (m_bandKinds[i] == TimelineBand{term, second})
            return m_bands[i];
    return nullptr;
}

TimelineChart::TimelineChart(QWidget* parent) : LivePlot(parent)
{
    setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
    setObjectName(QStringLiteral("timelineChart"));
    setAntialiasedElements(QCP::aeItems | QCP::aeLegend | QCP::aeScatters);

    const ChartHeader header = addChartHeader(this, tr("One training step: memory per GPU"));
    m_title = header.title;
    m_legendRow = header.legendRow;

    m_phaseTicker.reset(new QCPAxisTickerText);
    xAxis->setTicker(m_phaseTicker);
    xAxis->setSubTicks(false);
    xAxis->setTickLength(0, 0);
    xAxis->grid()->setVisible(false);
    xAxis->setLabel(tr("Time through the step (schematic: a layer's backward takes twice its forward)"));
    QSharedPointer<BytesTicker> bytes(new BytesTicker);
    yAxis->setTicker(bytes);
    yAxis->setLabel(tr("Memory per GPU"));

    // Each band fills down to the one below it (the first to zero): a stacked area.
    QCPGraph* below = nullptr;
    m_bandKinds = timelineBands();
    for (const TimelineBand& b : m_bandKinds) {
        QCPGraph* g = addGraph();
        g->setLineStyle(QCPGraph::lsLine);
        g->setPen(Qt::NoPen);
        g->setBrush(bandColor(b));
        if (below)
            g->setChannelFillGraph(below);
        m_bands.push_back(g);
        below = g;
    }
    // The phase a tour step plays: the rest of the step veiled, over the bands, and the phase outlined.
    for (QCPItemRect*& veil : m_veils) {
        veil = new QCPItemRect(this);
        veil->setPen(Qt::NoPen);
        veil->setVisible(false);
    }
    m_playedRect = new QCPItemRect(this);
    m_playedRect->setBrush(Qt::NoBrush);
    m_playedRect->setVisible(false);
    // Phase boundaries: one impulse per boundary, up to the top of the plot.
    m_boundaries = addGraph();
    m_boundaries->setLineStyle(QCPGraph::lsImpulse);

    m_capacityLine = new QCPItemStraightLine(this);
    m_capacityText = new CachedTextItem(this);
    m_capacityText->position->setType(QCPItemPosition::ptAbsolute);
    m_capacityText->setPadding(QMargins(4, 1, 4, 1));

    m_peak = addGraph(); // named by its label, not in the legend
    m_peak->setName(tr("Peak"));
    m_peak->setLineStyle(QCPGraph::lsNone);
    m_peakText = new CachedTextItem(this);
    m_peakText->position->setType(QCPItemPosition::ptAbsolute);
    m_peakText->setPadding(QMargins(6, 2, 6, 2));

    showHoverText();
    setTheme(ChartTheme::fromPalette(palette()));
}

TimelineChart::~TimelineChart()
{
    if (!m_titleShown)
        delete m_title; // taken out of the layout, so not the plot's to delete
}

void TimelineChart::hideTitle()
{
    if (!m_titleShown)
        return;
    takeChartTitle(this, m_title);
    m_titleShown = false;
}

void TimelineChart::setTitle(const QString& title)
{
    m_customTitle = true;
    m_title->setText(title);
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
}

void TimelineChart::setTheme(const ChartTheme& theme)
{
    m_theme = theme;
    theme.applyToPlot(this);
    xAxis->grid()->setVisible(false);
    m_title->setFont(theme.font(1.25, true));
    m_title->setTextColor(theme.foreground);
    m_legendRow->setMargins(QMargins(0, qRound(theme.fontPx * 0.3), 0, 0));
    const double lineW = std::max(2.0, theme.fontPx / 6);
    QColor halo = theme.background;
    halo.setAlpha(225);
    QColor veil = theme.background;
    veil.setAlpha(165);
    for (QCPItemRect* v : m_veils)
        v->setBrush(veil);
    m_playedRect->setPen(QPen(theme.marker, lineW));
    QColor boundary = theme.foreground;
    boundary.setAlpha(110);
    m_boundaries->setPen(QPen(boundary, 1, Qt::DotLine));
    m_capacityLine->setPen(QPen(theme.capacity, lineW, Qt::DashLine));
    m_capacityText->setFont(theme.font(1.0, true));
    m_capacityText->setColor(theme.capacity);
    m_capacityText->setBrush(halo);
    m_peak->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(theme.marker, lineW), theme.background, theme.fontPx * 0.9));
    m_peakText->setFont(theme.font(1.05, true));
    m_peakText->setColor(theme.foreground);
    m_peakText->setBrush(halo);
    m_peakText->setPen(QPen(theme.foreground, 1));
    rebuild();
}

void TimelineChart::setUnits(UnitSystem units)
{
    m_units = units;
    yAxis->ticker().dynamicCast<BytesTicker>()->units = units;
    rebuild();
}

void TimelineChart::fitLabelsTo(int widthPx)
{
    m_fitWidth = widthPx;
    if (widthPx > 0)
        m_theme.fitHeader(legend, m_title, widthPx, 8);
}

void TimelineChart::resizeEvent(QResizeEvent* e)
{
    // A low film (a 768 px slide: 74 px of plot under two legend rows in the slide's fonts) gives its legend's rows
    // to the plot, as the ladder does: the colours are the bar chart's, named in its legend above.
    showLegendRow(legend, m_legendRow, e->size().height() >= 16 * m_theme.fontPx);
    fitLabelsTo(e->size().width());
    m_fitWidth = 0;
    LivePlot::resizeEvent(e);
}

void TimelineChart::setData(const TimelineChartData& data)
{
    m_data = data;
    rebuild();
}

void TimelineChart::setPlayedPhase(std::optional<StepPhaseKind> kind)
{
    m_played = kind;
    rebuild();
}

QString TimelineChart::peakText() const
{
    const StepTimeline& t = m_data.timeline;
    if (t.samples.empty())
        return {};
    QString text = tr("Peak: %1 · %2").arg(QString::fromStdString(t.peakWhere), bytesText(t.peakBytes, m_units));
    // Beside the bars, a class reads two totals (issue 31 §1: the views agree). When they print differently the
    // label says why, in the words of the window's sentence under the film (TimelineDock).
    const QString bar = bytesText(t.barsTotal, m_units);
    if (t.barsTotal > 0 && bar != bytesText(t.peakBytes, m_units))
        text += QLatin1Char('\n') + (t.barsTotal > t.peakBytes
                                         ? tr("The bar's %1 adds parts never alive at once").arg(bar)
                                         : tr("The bar's %1 leaves out what backward rebuilds").arg(bar));
    return text;
}

void TimelineChart::rebuild()
{
    const StepTimeline& t = m_data.timeline;
    const auto n = static_cast<int>(t.samples.size());
    // Two points per sample, at its start and end: the areas step from one moment to the next.
    QVector<double> keys(2 * n);
    for (int i = 0; i < n; ++i) {
        keys[2 * i] = t.samples[static_cast<size_t>(i)].start;
        keys[2 * i + 1] = t.samples[static_cast<size_t>(i)].end;
    }
    QVector<double> sum(2 * n, 0.0);
    std::vector<bool> shown(m_bandKinds.size());
    for (size_t b = 0; b < m_bandKinds.size(); ++b) {
        const TimelineBand band = m_bandKinds[b];
        bool any = false;
        for (int i = 0; i < n; ++i) {
            const double v = bandBytes(t.samples[static_cast<size_t>(i)], band);
            any = any || v > 0;
            sum[2 * i] += v;
            sum[2 * i + 1] += v;
        }
        QCPGraph* g = m_bands[b];
        g->setData(keys, sum, true);
        const QString name = bandName(band, t.training);
        if (g->name() != name)
            g->setName(name);
        shown[b] = any;
    }
    // The legend lists what the film shows, in the stack's order (a band that comes back after a scenario
    // without it goes to its place, not to the end); a drag step that changes no band leaves it alone.
    if (shown != m_shownBands || legend->itemCount() == 0) {
        m_shownBands = shown;
        legend->clearItems();
        for (size_t b = 0; b < m_bands.size(); ++b)
            if (shown[b])
                addCachedLegendItem(legend, m_bands[b]);
    }
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());

    const double capacity = t.capacity;
    const double top = std::max({t.peakBytes, capacity, 1.0}) * 1.18;
    yAxis->setRange(0, top);
    xAxis->setRange(0, std::max(t.duration, 1.0));

    QVector<double> edges, heights;
    for (size_t i = 1; i < t.phases.size(); ++i) {
        edges << t.phases[i].start;
        heights << top * 2;
    }
    m_boundaries->setData(edges, heights, true);

    m_capacityLine->setVisible(capacity > 0);
    m_capacityLine->point1->setCoords(0, capacity);
    m_capacityLine->point2->setCoords(1, capacity);
    m_capacityText->setText(m_data.capacityLabel);
    m_capacityText->setVisible(capacity > 0 && !m_data.capacityLabel.isEmpty());

    if (n > 0) {
        const TimelineSample& p = t.samples[t.peakSample];
        m_peak->setData({(p.start + p.end) / 2}, {t.peakBytes}, true);
    } else {
        m_peak->data()->clear();
    }
    // The layout (below) may keep only the first line; a step that changes neither keeps the cached text.
    m_peakFull = peakText();
    if (m_peakText->text() != m_peakFull && m_peakText->text() != m_peakFull.section(QLatin1Char('\n'), 0, 0))
        m_peakText->setText(m_peakFull);
    m_peakText->setVisible(n > 0);

    const size_t played = m_played ? firstPhaseOf(t, *m_played) : t.phases.size();
    const bool playing = played < t.phases.size();
    m_playedRect->setVisible(playing);
    for (QCPItemRect* v : m_veils)
        v->setVisible(playing);
    if (playing) {
        const double x0 = t.phases[played].start, x1 = t.phases[played].end, end = std::max(t.duration, 1.0);
        // The outline just inside the plot's top and bottom, so that all four sides show.
        m_playedRect->topLeft->setCoords(x0, top * 0.995);
        m_playedRect->bottomRight->setCoords(x1, top * 0.005);
        m_veils[0]->topLeft->setCoords(-end, top * 2);
        m_veils[0]->bottomRight->setCoords(x0, -top);
        m_veils[1]->topLeft->setCoords(x1, top * 2);
        m_veils[1]->bottomRight->setCoords(2 * end, -top);
    }

    if (!m_customTitle) {
        QString title = t.training ? tr("One training step: memory per GPU") : tr("One forward pass: memory per GPU");
        if (m_data.pipelineStages > 1)
            title += tr(" (pipeline stage %1 of %2)").arg(t.stageIndex).arg(m_data.pipelineStages);
        if (m_title->text() != title) {
            m_title->setText(title);
            fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
        }
    }
    xAxis->setLabel(t.training ? tr("Time through the step (schematic: a layer's backward takes twice its forward)")
                               : tr("Time through the forward pass (schematic)"));
}

bool TimelineChart::applyPhaseTicks()
{
    const StepTimeline& t = m_data.timeline;
    const QFont font = xAxis->tickLabelFont();
    const double gap = m_theme.fontPx * 0.6;
    QStringList labels;
    QVector<double> keys;
    double lastRight = -1e9;
    for (const TimelinePhase& p : t.phases) {
        const double x0 = xAxis->coordToPixel(p.start), x1 = xAxis->coordToPixel(p.end);
        const double centre = (x0 + x1) / 2, room = std::fabs(x1 - x0) + gap;
        QString label;
        for (const QString& candidate : QStringList{QString::fromStdString(p.name)} + shorterNames(p.kind)) {
            const double w = cachedTextWidth(font, candidate);
            // Within its phase (a little over its edges) and clear of the label before it.
            if (w <= room + gap && centre - w / 2 >= lastRight + gap) {
                label = candidate;
                lastRight = centre + w / 2;
                break;
            }
        }
        labels << label;
        keys << (p.start + p.end) / 2;
    }
    // The ticks are laid out with the axis: a change needs one more layout, so none is made when nothing moved.
    if (labels == m_phaseLabels && keys == m_phaseKeys)
        return false;
    m_phaseLabels = labels;
    m_phaseKeys = keys;
    m_phaseTicker->clear();
    for (qsizetype i = 0; i < keys.size(); ++i)
        m_phaseTicker->addTick(keys[i], labels[i]);
    return true;
}

bool TimelineChart::arrangeLabels()
{
    bool relayout = applyPhaseTicks();
    const auto ticks = std::clamp(static_cast<int>(axisRect()->height() / (m_theme.fontPx * 2.5)), 2, 6);
    if (yAxis->ticker()->tickCount() != ticks) {
        yAxis->ticker()->setTickCount(ticks);
        relayout = true;
    }
    // The memory axis's title where the plot is tall enough for it (a low dock: the ticks say bytes).
    relayout = fitValueAxisTitle({tr("Memory per GPU"), tr("Memory")}) || relayout;
    if (relayout)
        return true;
    const QRect plot = axisRect()->rect();
    std::vector<QRect> taken;
    const double inset = m_theme.fontPx * 0.25;
    const StepTimeline& t = m_data.timeline;
    // The peak first (the chart's point), then the GPU's line on a side the peak leaves free.
    if (m_peakText->visible() && !t.samples.empty()) {
        const TimelineSample& p = t.samples[t.peakSample];
        const QPointF point(xAxis->coordToPixel((p.start + p.end) / 2), yAxis->coordToPixel(t.peakBytes));
        const double dx = m_theme.fontPx * 0.7, dy = m_theme.fontPx * 0.6;
        const bool leftHalf = point.x() < plot.center().x();
        const LabelSpot upRight{point + QPointF(dx, -dy), Qt::AlignLeft | Qt::AlignBottom};
        const LabelSpot upLeft{point + QPointF(-dx, -dy), Qt::AlignRight | Qt::AlignBottom};
        const LabelSpot downRight{point + QPointF(dx, dy), Qt::AlignLeft | Qt::AlignTop};
        const LabelSpot downLeft{point + QPointF(-dx, dy), Qt::AlignRight | Qt::AlignTop};
        const LabelSpot topCentre{QPointF(plot.center().x(), plot.top() + inset), Qt::AlignHCenter | Qt::AlignTop};
        const std::vector<LabelSpot> spots =
            leftHalf ? std::vector<LabelSpot>{upRight, downRight, upLeft, downLeft, topCentre}
                     : std::vector<LabelSpot>{upLeft, downLeft, upRight, downRight, topCentre};
        // The two-line label (peak, and why the bar differs) where it fits, else its first line alone.
        for (const QString& text : {m_peakFull, m_peakFull.section(QLatin1Char('\n'), 0, 0)}) {
            if (m_peakText->text() != text)
                m_peakText->setText(text);
            if (placeLabel(m_peakText, spots, plot, m_theme.font(1.05, true), taken, 0.8, m_theme.minFontPx) ||
                !text.contains(QLatin1Char('\n')))
                break;
        }
    }
    if (m_capacityText->visible()) {
        const double capY = yAxis->coordToPixel(t.capacity);
        placeLabel(m_capacityText,
                   {{QPointF(plot.right() - inset, capY), Qt::AlignRight | Qt::AlignBottom},
                    {QPointF(plot.left() + inset, capY), Qt::AlignLeft | Qt::AlignBottom},
                    {QPointF(plot.right() - inset, capY + 1), Qt::AlignRight | Qt::AlignTop},
                    {QPointF(plot.left() + inset, capY + 1), Qt::AlignLeft | Qt::AlignTop}},
                   plot, m_theme.font(1.0, true), taken, 0.8, m_theme.minFontPx);
    }
    return false;
}

QString TimelineChart::hoverText(const QPointF& pos) const
{
    const StepTimeline& t = m_data.timeline;
    if (t.samples.empty() || !axisRect()->rect().contains(pos.toPoint()))
        return {};
    const double x = xAxis->pixelToCoord(pos.x());
    auto it = std::upper_bound(t.samples.begin(), t.samples.end(), x,
                               [](double v, const TimelineSample& s) { return v < s.end; });
    if (it == t.samples.end())
        return {};
    const TimelineSample& s = *it;
    const TimelinePhase& ph = t.phases[s.phase];
    QString where = QString::fromStdString(ph.name);
    if (s.lastLayer > 0)
        where += s.firstLayer == s.lastLayer ? tr(", layer %1").arg(s.lastLayer)
                                             : tr(", layers %1–%2").arg(s.firstLayer).arg(s.lastLayer);
    if (s.microBatch > 0)
        where += tr(", micro-batch %1").arg(s.microBatch);
    QStringList lines{QStringLiteral("<b>%1</b>: %2").arg(where.toHtmlEscaped(), bytesText(s.total(), m_units))};
    for (size_t b = m_bandKinds.size(); b-- > 0;) {
        const double v = bandBytes(s, m_bandKinds[b]);
        if (v > 0)
            lines << QStringLiteral("%1: %2").arg(bandName(m_bandKinds[b], t.training).toHtmlEscaped(),
                                                  bytesText(v, m_units));
    }
    return lines.join(QStringLiteral("<br>"));
}

void revealOnly(TimelineChartData& d, const std::vector<SegmentKind>& revealed, const Segments& bars)
{
    StepTimeline& t = d.timeline;
    auto shown = [&](SegmentKind k) { return std::find(revealed.begin(), revealed.end(), k) != revealed.end(); };
    t.barsTotal = 0;
    for (SegmentKind k : revealed)
        t.barsTotal += segmentBytes(bars, k);
    t.peakBytes = 0;
    for (size_t i = 0; i < t.samples.size(); ++i) {
        TimelineSample& x = t.samples[i];
        for (SegmentKind k : kAllSegmentKinds)
            if (!shown(k))
                setSegmentBytes(x.bytes, k, 0);
        if (!shown(SegmentKind::Activations))
            x.recompute = 0;
        if (!shown(SegmentKind::Gradients))
            x.gradientsWritten = 0;
        if (x.total() > t.peakBytes) {
            t.peakBytes = x.total();
            t.peakSample = i;
        }
    }
    for (TimelinePhase& p : t.phases) {
        p.peakBytes = 0;
        for (const TimelineSample& x : t.samples)
            if (x.start >= p.start && x.end <= p.end)
                p.peakBytes = std::max(p.peakBytes, x.total());
    }
    // Where the peak of what remains lies: its phase (the full film's "backward of layer 32" may no longer be it).
    if (t.peakSample < t.samples.size() && t.samples[t.peakSample].phase < t.phases.size())
        t.peakWhere = t.phases[t.samples[t.peakSample].phase].name;
    t.differences.clear(); // of the whole bars
}

bool isBuildUp(const std::optional<TourPicture>& picture)
{
    return picture && picture->revealed.size() < kAllSegmentKinds.size();
}

TimelinePanel::TimelinePanel(QWidget* parent)
    : ChartPanel(QStringLiteral("timelinePanel"), QStringLiteral("timelineSummary"), parent)
{
    m_chart = new TimelineChart(this);
    m_chart->hideTitle();
    setChart(m_chart, 190);
}

void TimelinePanel::setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b, UnitSystem units)
{
    m_scenario = s;
    m_gpu = gpu;
    m_breakdown = b;
    m_units = units;
    invalidate();
}

void TimelinePanel::applyTheme(const ChartTheme& theme)
{
    m_chart->setTheme(theme);
}

void TimelinePanel::setPicture(const std::optional<TourPicture>& picture)
{
    m_picture = picture;
    invalidate();
}

void TimelinePanel::recompute()
{
    TimelineChartData d = timelineChartData(m_scenario, m_gpu, m_breakdown, m_units);
    if (isBuildUp(m_picture))
        revealOnly(d, m_picture->revealed, m_breakdown.perGpu);
    m_chart->setUnits(m_units);
    m_chart->setData(d);

    // The sentence: where the peak is, and how it stands against the bars' total.
    const StepTimeline& t = d.timeline;
    if (t.samples.empty()) {
        summary()->clear();
        return;
    }
    QString text =
        tr("The step peaks at %1: %2").arg(QString::fromStdString(t.peakWhere), bytesText(t.peakBytes, m_units));
    const double gap = t.barsTotal - t.peakBytes;
    if (std::fabs(gap) <= 1e-6 * std::max(1.0, t.barsTotal))
        text += tr(", the per-GPU bar's total: every term is alive at that moment.");
    else if (gap > 0)
        text += tr(", %1 below the per-GPU bar, which adds terms that are never alive together (hover for each).")
                    .arg(bytesText(gap, m_units));
    else
        text += tr(", %1 above the per-GPU bar: the backward pass rebuilds what the bar leaves out.")
                    .arg(bytesText(-gap, m_units));
    QStringList reasons;
    for (const TimelineDifference& d : t.differences)
        reasons << QStringLiteral("%1: %2").arg(segmentName(d.term), QString::fromStdString(d.reason));
    summary()->setToolTip(reasons.join(QLatin1Char('\n')));
    summary()->setText(text);
}

} // namespace trainmem
