#include "sequencechart.h"

#include "bytestickers.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace trainmem {
namespace {

constexpr int kMinExp = 9;  // 512
constexpr int kMaxExp = 20; // 1M

QString curveName(int mode)
{
    switch (static_cast<Checkpointing>(mode)) {
    case Checkpointing::None:
        return SequenceChart::tr("No checkpointing");
    case Checkpointing::Selective:
        return SequenceChart::tr("Selective recompute");
    case Checkpointing::Full:
        return SequenceChart::tr("Full recompute");
    case Checkpointing::PerOp:
        return SequenceChart::tr("Per-op recompute");
    }
    return {};
}

} // namespace

SequenceChart::SequenceChart(QWidget* parent) : LivePlot(parent)
{
    setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
    setObjectName(QStringLiteral("sequenceChart"));
    setAntialiasedElements(QCP::aePlottables | QCP::aeItems | QCP::aeLegend | QCP::aeScatters);

    m_title = addChartHeader(this, tr("Memory per GPU against context length")).title;

    m_seqTicker.reset(new QCPAxisTickerText);
    xAxis->setScaleType(QCPAxis::stLogarithmic);
    xAxis->setTicker(m_seqTicker);
    xAxis->setSubTicks(false);
    xAxis->setLabel(tr("Context length (tokens)"));
    xAxis->setRange(kSweepMinSeq / 1.1, kSweepMaxSeq * 1.1);

    m_bytesTicker.reset(new LogBytesTicker);
    m_bytesTicker->setSubTickCount(8);
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(m_bytesTicker);
    yAxis->setLabel(tr("Memory per GPU"));
    yAxis->grid()->setSubGridVisible(true);

    // Drawn first so curves sit on top of it.
    m_dies = new QCPItemRect(this);
    // The annotations are placed in pixels by arrangeLabels(), after each layout.
    m_diesText = new CachedTextItem(this);
    m_diesText->position->setType(QCPItemPosition::ptAbsolute);
    m_diesText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);

    for (int mode = 0; mode < 4; ++mode) {
        QCPGraph* g = addGraph();
        g->setName(curveName(mode));
        g->setLineStyle(QCPGraph::lsLine);
        m_curves[static_cast<size_t>(mode)] = g;
    }
    m_floor = addGraph();
    m_floor->setName(tr("Model state (the floor)"));
    m_current = addGraph();
    m_current->setName(tr("Current context"));
    m_current->setLineStyle(QCPGraph::lsNone);
    for (QCPGraph* g : {m_curves[0], m_curves[1], m_curves[2], m_floor, m_current})
        addCachedLegendItem(legend, g);

    m_capacityLine = new QCPItemStraightLine(this);
    m_capacityText = new CachedTextItem(this);
    m_capacityText->position->setType(QCPItemPosition::ptAbsolute);
    m_capacityText->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    m_capacityText->setPadding(QMargins(4, 1, 4, 1));

    m_marker = new QCPItemStraightLine(this);
    m_markerText = new CachedTextItem(this);
    m_markerText->position->setType(QCPItemPosition::ptAbsolute);
    m_markerText->setPadding(QMargins(6, 2, 6, 2));

    m_crossLine = new QCPItemStraightLine(this);
    m_crossText = new CachedTextItem(this);
    m_crossText->position->setType(QCPItemPosition::ptAbsolute);
    m_crossText->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_crossText->setPadding(QMargins(5, 2, 5, 2));
    m_crossText->setTextAlignment(Qt::AlignLeft);

    setTheme(ChartTheme::fromPalette(palette()));
    fitTicksTo(width());
}

SequenceChart::~SequenceChart() = default;

void SequenceChart::setTitle(const QString& title)
{
    m_title->setText(title);
    fitTicksTo(m_fitWidth > 0 ? m_fitWidth : width());
}

void SequenceChart::setTheme(const ChartTheme& theme)
{
    m_theme = theme;
    theme.applyToPlot(this);
    m_title->setFont(theme.font(1.25, true));
    m_title->setTextColor(theme.foreground);
    QColor halo = theme.background;
    halo.setAlpha(225);
    const double lineW = std::max(2.0, theme.fontPx / 6);

    QColor dies = theme.capacity;
    dies.setAlpha(theme.dark ? 55 : 30);
    m_dies->setPen(Qt::NoPen);
    m_dies->setBrush(dies);
    m_diesText->setFont(theme.font(1.1, true));
    m_diesText->setColor(theme.capacity);

    // The floor is not a checkpointing mode: in the weights' blue and dashed it had the legend icon and the look of
    // "Selective recompute" (the tour's slides, issue 31 §1: a legend a class can read). Dotted, in the text's colour.
    m_floor->setPen(QPen(theme.foreground, lineW, Qt::DotLine));
    m_current->setPen(QPen(theme.marker, lineW));
    m_current->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, theme.marker, theme.background, theme.fontPx * 0.9));
    m_capacityLine->setPen(QPen(theme.capacity, lineW, Qt::DashLine));
    m_capacityText->setFont(theme.font(1.0, true));
    m_capacityText->setColor(theme.capacity);
    m_capacityText->setBrush(halo);
    m_marker->setPen(QPen(theme.marker, 1, Qt::DotLine));
    m_markerText->setFont(theme.font(1.0, true));
    m_markerText->setColor(theme.foreground);
    m_markerText->setBrush(halo);
    m_crossLine->setPen(QPen(theme.foreground, 1.5, Qt::DashDotLine));
    m_crossText->setFont(theme.font(0.95));
    m_crossText->setColor(theme.foreground);
    m_crossText->setBrush(halo);
    rebuild();
}

void SequenceChart::setUnits(UnitSystem units)
{
    m_units = units;
    m_bytesTicker->units = units;
    m_bytesTicker->setLogBase(units == UnitSystem::Decimal ? 10 : 2);
    rebuild();
}

void SequenceChart::fitTicksTo(int widthPx)
{
    m_fitWidth = widthPx;
    if (widthPx > 0)
        m_theme.fitHeader(legend, m_title, widthPx, 3);
    // Before the first layout the axis is a guess (the width minus the value labels);
    // arrangeLabels() refits the stride to the axis as laid out.
    if (!m_laidOut || m_seqTicker->ticks().isEmpty())
        applyTickStride(std::max(1.0, widthPx - m_theme.fontPx * 7) / std::log2(kSweepMaxSeq * 1.21 / kSweepMinSeq));
}

bool SequenceChart::applyTickStride(double octavePx)
{
    const QFont font = xAxis->tickLabelFont();
    double widest = 1;
    for (int e = kMinExp; e <= kMaxExp; ++e)
        widest = std::max(widest, cachedTextWidth(font, QString::fromStdString(formatContext(int64_t{1} << e))));
    // "32k128k512k" at presentation size: a gap of most of a font height between labels.
    const double need = widest + m_theme.fontPx * 0.8;
    const int stride = std::clamp(static_cast<int>(std::ceil(need / std::max(1.0, octavePx))), 1, kMaxExp - kMinExp);
    if (stride == m_tickStride && !m_seqTicker->ticks().isEmpty())
        return false;
    m_tickStride = stride;
    m_seqTicker->clear();
    for (int e = kMinExp; e <= kMaxExp; ++e) {
        const auto tokens = int64_t{1} << e;
        m_seqTicker->addTick(static_cast<double>(tokens),
                             (e - kMinExp) % stride == 0 ? QString::fromStdString(formatContext(tokens)) : QString());
    }
    return true;
}

bool SequenceChart::arrangeLabels()
{
    m_laidOut = true;
    bool relayout =
        applyTickStride(std::fabs(xAxis->coordToPixel(2.0 * kSweepMinSeq) - xAxis->coordToPixel(kSweepMinSeq)));
    // The memory axis's title where the plot is tall enough for it (a slide with the film under it).
    relayout = fitValueAxisTitle({tr("Memory per GPU"), tr("Memory")}) || relayout;
    // Memory ticks at least two and a half font heights apart: fewer decades labelled on a low plot.
    const int ticks = std::clamp(static_cast<int>(axisRect()->height() / (m_theme.fontPx * 2.5)), 2, 5);
    if (m_bytesTicker->tickCount() != ticks) {
        m_bytesTicker->setTickCount(ticks);
        relayout = true;
    }
    if (relayout)
        return true;
    // Inside the plot (they are clipped to it), none on another, in the order they matter: the
    // GPU's capacity, the current point's value, "out of memory", the crossover.
    const QRect plot = axisRect()->rect();
    std::vector<QRect> taken;
    // No label is crossed by a line (issue 31: the current context's dotted line ran through "Out of memory on one
    // H100"): the vertical lines, the current context's and the crossover's, are taken, with a pixel either side.
    std::vector<int> lineXs;
    if (m_marker->visible())
        lineXs.push_back(qRound(xAxis->coordToPixel(m_markerSeq)));
    if (m_crossLine->visible() && m_data.sweep.crossoverSeq)
        lineXs.push_back(qRound(xAxis->coordToPixel(*m_data.sweep.crossoverSeq)));
    constexpr int kBeside = 3; // a label beside a line starts this far from it
    for (int x : lineXs)
        taken.push_back(QRect(x - kBeside + 1, plot.top(), 2 * kBeside - 1, plot.height()));
    const double capY = yAxis->coordToPixel(m_data.sweep.capacity);
    const double inset = m_theme.fontPx * 0.25;
    if (m_capacityText->visible()) {
        // At the line's right or left end, over it or under it; else beside one of the vertical lines.
        std::vector<LabelSpot> spots{{QPointF(plot.right() - inset, capY), Qt::AlignRight | Qt::AlignBottom},
                                     {QPointF(plot.right() - inset, capY + 1), Qt::AlignRight | Qt::AlignTop},
                                     {QPointF(plot.left() + inset, capY), Qt::AlignLeft | Qt::AlignBottom},
                                     {QPointF(plot.left() + inset, capY + 1), Qt::AlignLeft | Qt::AlignTop}};
        for (int x : lineXs)
            for (const double side : {-1.0, 1.0})
                for (const bool over : {true, false})
                    spots.push_back(
                        {QPointF(x + side * kBeside, over ? capY : capY + 1),
                         (side < 0 ? Qt::AlignRight : Qt::AlignLeft) | (over ? Qt::AlignBottom : Qt::AlignTop)});
        placeLabel(m_capacityText, spots, plot, m_theme.font(1.0, true), taken, 0.8, m_theme.minFontPx);
    }
    // The current point's value is not written over the floor's dotted line either (the tour's step 2 at 4k: "4k:
    // 138 GB" sat across the 112 GB floor just under it): the floor's row is taken for it, so it goes over the point.
    std::optional<QRect> floorRow;
    if (m_floor->visible() && m_data.sweep.modelStatePerGpu > 0) {
        const double floorY = yAxis->coordToPixel(m_data.sweep.modelStatePerGpu);
        if (std::isfinite(floorY)) {
            floorRow = QRect(plot.left(), qRound(floorY) - 1, plot.width(), 3);
            taken.push_back(*floorRow);
        }
    }
    const QPointF point(xAxis->coordToPixel(m_markerSeq), yAxis->coordToPixel(m_data.currentTotal));
    if (m_data.currentTotal > 0 && std::isfinite(point.y())) {
        // Beside the point, on the side with more room first, under it before over it.
        const double dx = m_theme.fontPx * 0.7, dy = m_theme.fontPx * 0.5;
        const LabelSpot right{point + QPointF(dx, dy), Qt::AlignLeft | Qt::AlignTop};
        const LabelSpot rightUp{point + QPointF(dx, -dy), Qt::AlignLeft | Qt::AlignBottom};
        const LabelSpot left{point + QPointF(-dx, dy), Qt::AlignRight | Qt::AlignTop};
        const LabelSpot leftUp{point + QPointF(-dx, -dy), Qt::AlignRight | Qt::AlignBottom};
        const bool leftHalf = point.x() < plot.center().x();
        const std::vector<LabelSpot> spots = leftHalf ? std::vector<LabelSpot>{right, rightUp, left, leftUp}
                                                      : std::vector<LabelSpot>{left, leftUp, right, rightUp};
        // On one line ("128k: 871 GB"), else on two ("128k:" over "871 GB": the tour's step 8 at 1024×768 has the
        // point 60 px right of the crossover's line and 80 px left of the plot's edge, too narrow for one line either
        // side), else across the floor rather than not at all.
        const QString oneLine = QString(m_markerText->text()).replace(QLatin1Char('\n'), QLatin1Char(' '));
        const qsizetype colon = oneLine.indexOf(QStringLiteral(": "));
        const auto place = [&] {
            return placeOnOneOrTwoLines(m_markerText, oneLine, colon > 0 ? colon + 1 : -1, spots, plot,
                                        m_theme.font(1.0, true), taken, 0.8, m_theme.minFontPx);
        };
        if (!place() && floorRow) {
            taken.erase(std::find(taken.begin(), taken.end(), *floorRow));
            place();
            taken.push_back(*floorRow);
        }
    } else {
        m_markerText->setSkipped(true);
    }
    if (m_diesText->visible()) {
        // In the shaded region above the line, at its top left or right.
        const QRect dies(plot.topLeft(),
                         QPoint(plot.right(), std::clamp(static_cast<int>(capY) - 1, plot.top(), plot.bottom())));
        // At its top left or right, else beside one of the lines, else just above the capacity line; on one line,
        // else on two ("Out of memory" / "on one H100"), else not at all.
        const QPointF gap(plot.width() * 0.015, plot.height() * 0.02);
        const double y = plot.top() + gap.y(), low = dies.bottom() - gap.y();
        std::vector<LabelSpot> spots{{QPointF(plot.left() + gap.x(), y), Qt::AlignLeft | Qt::AlignTop},
                                     {QPointF(plot.right() - gap.x(), y), Qt::AlignRight | Qt::AlignTop}};
        for (int x : lineXs) {
            spots.push_back({QPointF(x + kBeside + gap.x(), y), Qt::AlignLeft | Qt::AlignTop});
            spots.push_back({QPointF(x - kBeside - gap.x(), y), Qt::AlignRight | Qt::AlignTop});
        }
        if (low - y > m_theme.fontPx * 2) {
            spots.push_back({QPointF(plot.left() + gap.x(), low), Qt::AlignLeft | Qt::AlignBottom});
            spots.push_back({QPointF(plot.right() - gap.x(), low), Qt::AlignRight | Qt::AlignBottom});
        }
        const QString oneLine = QString(m_diesText->text()).replace(QLatin1Char('\n'), QLatin1Char(' '));
        placeOnOneOrTwoLines(m_diesText, oneLine, oneLine.indexOf(QStringLiteral(" on ")), spots, dies,
                             m_theme.font(1.1, true), taken, 0.8, m_theme.minFontPx);
    }
    if (m_crossText->visible()) {
        // Beside its line, at the bottom of the plot or else at the top; right of it first.
        const double x = xAxis->coordToPixel(*m_data.sweep.crossoverSeq);
        const double bottom = plot.bottom() - plot.height() * 0.03, top = plot.top() + plot.height() * 0.03;
        const double right = x + kBeside, left = x - kBeside;
        placeLabel(m_crossText,
                   {{QPointF(right, bottom), Qt::AlignLeft | Qt::AlignBottom},
                    {QPointF(left, bottom), Qt::AlignRight | Qt::AlignBottom},
                    {QPointF(right, top), Qt::AlignLeft | Qt::AlignTop},
                    {QPointF(left, top), Qt::AlignRight | Qt::AlignTop}},
                   plot, m_theme.font(0.95), taken, 0.8, m_theme.minFontPx);
    }
    return false;
}

void SequenceChart::resizeEvent(QResizeEvent* e)
{
    fitTicksTo(e->size().width());
    m_fitWidth = 0;
    LivePlot::resizeEvent(e);
}

void SequenceChart::orderLegend()
{
    // Entries are appended as they are shown, so the order depended on what was hidden before (the floor under
    // offload, per-op's curve): one order instead, per-op's last, so that three columns keep the long "Selective =
    // none with flash attention" above the floor's entry and the 640 px half of a 1280 px dashboard holds them.
    std::vector<QCPGraph*> order;
    for (QCPGraph* p : {m_curves[0], m_curves[1], m_curves[2], m_current, m_floor, m_curves[3]})
        if (legend->itemWithPlottable(p))
            order.push_back(p);
    bool inOrder = legend->itemCount() == static_cast<int>(order.size());
    for (int i = 0; inOrder && i < legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
        inOrder = item && item->plottable() == order[static_cast<size_t>(i)];
    }
    if (inOrder)
        return;
    for (QCPGraph* p : order)
        p->removeFromLegend();
    for (QCPGraph* p : order)
        addCachedLegendItem(legend, p);
}

void SequenceChart::setData(const SequenceChartData& data)
{
    m_data = data;
    rebuild();
}

void SequenceChart::rebuild()
{
    const ContextSweep& sw = m_data.sweep;
    const auto n = static_cast<int>(sw.seq.size());
    const QVector<double> keys(sw.seq.begin(), sw.seq.end());
    const int currentMode = static_cast<int>(m_data.checkpointing);
    const double lineW = std::max(2.0, m_theme.fontPx / 6);
    double lo = sw.modelStatePerGpu > 0 ? sw.modelStatePerGpu : 1e9, hi = std::max(sw.capacity, 1.0);
    // Flash attention already drops the s² scores selective recompute would drop, so the two
    // curves lie on each other: the legend says so rather than listing a curve one cannot see (issue 14).
    // Within half a percent at every context the two lines are one on the log axis (issue 31 §1: with
    // ZeRO-3 and full offload selective lay a hair above none and hid it, both still listed).
    const std::vector<double>& none = sw.totalPerGpu[0];
    const std::vector<double>& selective = sw.totalPerGpu[static_cast<size_t>(Checkpointing::Selective)];
    const bool same = !m_data.inference && none.size() == selective.size() &&
                      std::equal(selective.begin(), selective.end(), none.begin(), [](double a, double b) {
                          return std::fabs(a - b) <= 0.005 * std::max(std::fabs(a), std::fabs(b));
                      });
    const auto perOp = static_cast<int>(Checkpointing::PerOp);
    for (int mode = 0; mode <= perOp; ++mode) {
        QCPGraph* g = m_curves[static_cast<size_t>(mode)];
        const auto& v = mode == perOp ? sw.perOpTotalPerGpu : sw.totalPerGpu[static_cast<size_t>(mode)];
        g->setData(keys.mid(0, static_cast<int>(v.size())), QVector<double>(v.begin(), v.end()), true);
        // Inference has no backward pass: the three modes coincide, so one curve tells it. Per-op checkpointing's
        // curve is the scenario's own, drawn only when the scenario uses it (the sweep has it then).
        const bool shown = mode == perOp ? !m_data.inference && !v.empty() : !m_data.inference || mode == 0;
        g->setVisible(shown);
        if (shown != (legend->itemWithPlottable(g) != nullptr))
            shown ? addCachedLegendItem(legend, g) : static_cast<void>(g->removeFromLegend());
        if (mode == 0)
            g->setName(m_data.inference ? tr("Inference: weights + KV cache") : curveName(0));
        if (mode == static_cast<int>(Checkpointing::Selective)) {
            const QString name = same ? tr("Selective = none with flash attention") : curveName(mode);
            if (g->name() != name)
                g->setName(name);
        }
        const bool current = m_data.inference || mode == currentMode;
        // The other modes dashed: where two modes coincide (selective = none with flash attention)
        // both colours still show. Two dashed lines on one path with one pattern showed only the second: with
        // full checkpointing (the tour's 70B, its cut, its QLoRA) "No checkpointing" was listed and nowhere seen.
        // Their dashes alternate, red, blue, red.
        QPen pen(ChartTheme::checkpointColor(mode), current ? lineW * 1.8 : lineW,
                 current ? Qt::SolidLine : Qt::DashLine);
        if (same && !m_data.inference && currentMode > static_cast<int>(Checkpointing::Selective) &&
            mode <= static_cast<int>(Checkpointing::Selective)) {
            pen.setDashPattern({3, 3});
            if (mode == static_cast<int>(Checkpointing::Selective))
                pen.setDashOffset(3);
        }
        if (g->pen() != pen)
            g->setPen(pen);
        if (shown && !v.empty()) {
            lo = std::min(lo, *std::min_element(v.begin(), v.end()));
            hi = std::max(hi, *std::max_element(v.begin(), v.end()));
        }
    }
    m_floor->setName(m_data.inference ? tr("Weights (the floor)") : tr("Model state (the floor)"));
    m_floor->setData({kSweepMinSeq / 2, kSweepMaxSeq * 2}, {sw.modelStatePerGpu, sw.modelStatePerGpu}, true);
    // No floor to draw when the model state is all in host memory (offload): a log axis has no 0, and the legend
    // lists only what is drawn (issue 31 §1).
    const bool floor = sw.modelStatePerGpu > 0;
    m_floor->setVisible(floor);
    if (floor != (legend->itemWithPlottable(m_floor) != nullptr))
        floor ? addCachedLegendItem(legend, m_floor) : static_cast<void>(m_floor->removeFromLegend());
    orderLegend();
    fitTicksTo(m_fitWidth > 0 ? m_fitWidth : width());
    m_current->setData({m_data.currentSeq}, {m_data.currentTotal}, true);
    if (m_data.currentTotal > 0) {
        lo = std::min(lo, m_data.currentTotal);
        hi = std::max(hi, m_data.currentTotal);
    }
    // The capacity line stays on the chart even when every curve is far above it (38 TB vs 80 GB).
    lo = std::max(std::min(lo, sw.capacity), 1e3);
    const double lower = lo / 2.5;
    const double upper = hi * (n > 0 ? 3.0 : 10.0);
    yAxis->setRange(lower, upper);

    // Everything above one GPU's memory is out of memory.
    m_dies->topLeft->setCoords(kSweepMinSeq / 4, upper * 100);
    m_dies->bottomRight->setCoords(kSweepMaxSeq * 4, sw.capacity);
    // The curves are memory per GPU: on a run of many GPUs "on one H100" read as if the whole run were out of memory.
    m_diesText->setText(m_data.gpus > 1 ? tr("Out of memory on each %1").arg(m_data.gpuName)
                                        : tr("Out of memory on one %1").arg(m_data.gpuName));
    m_diesText->setVisible(sw.capacity < upper);
    m_capacityLine->point1->setCoords(kSweepMinSeq, sw.capacity);
    m_capacityLine->point2->setCoords(kSweepMaxSeq, sw.capacity);
    m_capacityText->setText(m_data.capacityLabel);

    m_markerSeq = std::clamp(m_data.currentSeq, kSweepMinSeq, kSweepMaxSeq);
    m_marker->point1->setCoords(m_markerSeq, lower);
    m_marker->point2->setCoords(m_markerSeq, upper);
    m_markerText->setText(
        QStringLiteral("%1: %2").arg(QString::fromStdString(formatContext(static_cast<int64_t>(m_data.currentSeq))),
                                     tickBytes(m_data.currentTotal, m_units)));

    const bool cross = sw.crossoverSeq.has_value() && *sw.crossoverSeq > kSweepMinSeq;
    m_crossLine->setVisible(cross);
    m_crossText->setVisible(cross);
    if (cross) {
        const double x = *sw.crossoverSeq;
        m_crossLine->point1->setCoords(x, lower);
        m_crossLine->point2->setCoords(x, upper);
        const QString at = QString::fromStdString(formatCount(x));
        m_crossText->setText(m_data.inference ? tr("KV cache passes the weights\nat %1 tokens").arg(at)
                                              : tr("Activations pass model state\nat %1 tokens").arg(at));
    }
}

} // namespace trainmem
