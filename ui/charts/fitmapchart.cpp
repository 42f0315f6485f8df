#include "fitmapchart.h"

#include "units.h"

#include <QLabel>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace trainmem {
namespace {

QString count(double params)
{
    return QString::fromStdString(formatCount(params));
}

QString context(int64_t tokens)
{
    return QString::fromStdString(formatContext(tokens));
}

/// "2 GPUs", "never fits", "more than 10,000,000 GPUs" for a cell or the scenario.
QString gpusText(int64_t gpus, bool never)
{
    if (never)
        return FitMapChart::tr("never fits");
    if (gpus <= 0)
        return FitMapChart::tr("more than %1 GPUs").arg(QLocale().toString(static_cast<qlonglong>(kMaxGpus)));
    return gpus == 1 ? FitMapChart::tr("1 GPU") : FitMapChart::tr("%1 GPUs").arg(static_cast<qlonglong>(gpus));
}

/// The index of the entry of `values` nearest `v` on a log axis (values ascending and positive).
template <class T> size_t nearestOnLog(const std::vector<T>& values, double v)
{
    size_t best = 0;
    double bestDist = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < values.size(); ++i) {
        const double d = std::fabs(std::log(static_cast<double>(values[i]) / std::max(v, 1.0)));
        if (d < bestDist) {
            bestDist = d;
            best = i;
        }
    }
    return best;
}

// The axes' nominal extent: cell i of n sits at lo·(hi/lo)^(i/(n−1)) (fitMapAxes' even log steps), its edges half
// a step either side.
struct LogSpan {
    double lo = 1, hi = 10;
    size_t n = 1;
    double step() const { return n > 1 ? std::log(hi / lo) / static_cast<double>(n - 1) : std::log(2.0); }
    double centre(double i) const { return lo * std::exp(step() * i); }
    double edge(double i) const { return centre(i - 0.5); } ///< the lower edge of cell i (i = n: the top)
    /// The cell at coordinate v, or −1 outside.
    long cell(double v) const
    {
        if (!(v > 0))
            return -1;
        const double i = std::log(v / lo) / step();
        const long k = std::lround(i);
        return k >= 0 && k < static_cast<long>(n) ? k : -1;
    }
};

LogSpan paramsSpan(const FitMap& m)
{
    if (m.axes.params.empty())
        return {kFitMapMinParams, kFitMapMaxParams, 1};
    return {static_cast<double>(m.axes.params.front()), static_cast<double>(m.axes.params.back()), m.columns()};
}

LogSpan seqSpan(const FitMap& m)
{
    return {kSweepMinSeq, kSweepMaxSeq, std::max<size_t>(m.rows(), 1)};
}

} // namespace

FitMapChartData fitMapChartData(const Scenario& s, const GpuSpec& gpu, const FitMap* map)
{
    FitMapChartData d;
    d.map = map ? *map : fitMap(s, gpu);
    const ResolvedModel m = resolveModel(s.model);
    d.currentParams = static_cast<double>(m.params.total);
    d.currentSeq = s.training.seqLen;
    d.current = gpusToFit(m, s, gpu);
    d.gpuName = QString::fromStdString(gpu.id);
    if (s.training.mode == Mode::Training) {
        const ParallelLayout p = parallelLayout(s, m);
        d.layout = FitMapChart::tr("ZeRO-3 at tp %1 · pp %2").arg(p.tp).arg(p.pp);
        if (p.cp > 1)
            d.layout += FitMapChart::tr(" · cp %1").arg(p.cp);
    } else {
        d.layout = FitMapChart::tr("serving, weights split by tensor parallel");
    }
    return d;
}

QColor FitMapChart::bandColor(FitBand b)
{
    // Green where one GPU does, then lighter to darker warm colours as the count grows (ColorBrewer RdYlGn),
    // and a dark grey where nothing does: ordered by lightness too, so they read in grey and for most colour
    // vision deficiencies.
    switch (b) {
    case FitBand::One:
        return {0x1a, 0x98, 0x50};
    case FitBand::UpTo8:
        return {0xa6, 0xd9, 0x6a};
    case FitBand::UpTo64:
        return {0xfe, 0xe0, 0x8b};
    case FitBand::UpTo1024:
        return {0xf4, 0x6d, 0x43};
    case FitBand::More:
        return {0xa5, 0x00, 0x26};
    case FitBand::Never:
        break;
    }
    return {0x3a, 0x3a, 0x3a};
}

QString FitMapChart::bandName(FitBand b)
{
    switch (b) {
    case FitBand::One:
        return tr("1 GPU");
    case FitBand::UpTo8:
        return tr("2–8 GPUs");
    case FitBand::UpTo64:
        return tr("9–64");
    case FitBand::UpTo1024:
        return tr("65–1024");
    case FitBand::More:
        return tr("over 1024");
    case FitBand::Never:
        break;
    }
    return tr("never fits");
}

FitMapChart::FitMapChart(QWidget* parent) : LivePlot(parent)
{
    setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
    setObjectName(QStringLiteral("fitMapChart"));
    setAntialiasedElements(QCP::aePlottables | QCP::aeItems | QCP::aeLegend | QCP::aeScatters);

    const ChartHeader header = addChartHeader(this, tr("GPUs needed by model size and context"));
    m_title = header.title;
    m_legendRow = header.legendRow;

    auto logAxis = [](QCPAxis* axis, const QString& label) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(ticker);
        axis->setSubTicks(false);
        axis->grid()->setVisible(false);
        axis->setLabel(label);
        return ticker;
    };
    const auto sizes = logAxis(xAxis, tr("Model size (total parameters)"));
    for (double p = kFitMapMinParams; p <= kFitMapMaxParams * 1.001; p *= 10)
        sizes->addTick(p, count(p));
    m_seqTicker = logAxis(yAxis, tr("Context length (tokens)"));
    for (int e : {9, 12, 15, 18, 20})
        m_seqTicker->addTick(std::ldexp(1.0, e), context(int64_t{1} << e));

    // The map: one cell per (size, context), its value the band's index; a gradient of exactly kFitBandCount
    // levels puts stop i at QCPColorGradient's own i·(1/(levels − 1)), so each band gets its colour unblended.
    m_map = new QCPColorMap(xAxis, yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    QCPColorGradient gradient;
    gradient.clearColorStops();
    const double step = 1.0 / static_cast<double>(kFitBandCount - 1);
    for (size_t i = 0; i < kFitBandCount; ++i)
        gradient.setColorStopAt(static_cast<double>(i) * step, bandColor(static_cast<FitBand>(i)));
    gradient.setLevelCount(static_cast<int>(kFitBandCount));
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    m_map->setGradient(gradient);
    m_map->setDataRange(QCPRange(0, static_cast<double>(kFitBandCount - 1)));

    // The legend's squares: bars with no data, one per band (listed by updateLegend() when the map has it).
    for (size_t i = 0; i < kFitBandCount; ++i) {
        auto* b = new QCPBars(xAxis, yAxis);
        b->setName(bandName(static_cast<FitBand>(i)));
        b->setBrush(bandColor(static_cast<FitBand>(i)));
        b->setPen(QPen(bandColor(static_cast<FitBand>(i)).darker(130)));
        m_swatches[i] = b;
    }
    // The boundary of one GPU: a light halo under a dark line, readable on every band's colour.
    m_boundaryHalo = new QCPCurve(xAxis, yAxis);
    m_boundary = new QCPCurve(xAxis, yAxis);
    m_boundary->setName(tr("edge of one GPU"));

    m_marker = new QCPGraph(xAxis, yAxis);
    m_marker->setLineStyle(QCPGraph::lsNone);
    m_marker->setName(tr("this scenario"));
    updateLegend();
    m_markerText = new CachedTextItem(this);
    m_markerText->position->setType(QCPItemPosition::ptAbsolute); // placed by arrangeLabels()
    m_markerText->setPadding(QMargins(6, 2, 6, 2));

    showHoverText();
    setTheme(ChartTheme::fromPalette(palette()));
}

FitMapChart::~FitMapChart()
{
    if (!m_titleShown)
        delete m_title; // taken out of the layout, so not the plot's to delete
}

void FitMapChart::hideTitle()
{
    if (!m_titleShown)
        return;
    plotLayout()->take(m_title);
    plotLayout()->simplify();
    m_title->setVisible(false); // still a layerable of the plot: it would draw at its old place
    m_titleShown = false;
}

void FitMapChart::setTitle(const QString& title)
{
    m_title->setText(title);
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
}

void FitMapChart::setTheme(const ChartTheme& theme)
{
    m_theme = theme;
    theme.applyToPlot(this);
    m_title->setFont(theme.font(1.25, true));
    m_title->setTextColor(theme.foreground);
    m_legendRow->setMargins(QMargins(0, qRound(theme.fontPx * 0.3), 0, 0));
    const double lineW = std::max(2.5, theme.fontPx / 5);
    // The line's colours do not follow the palette: they sit on the map's fixed colours.
    m_boundaryHalo->setPen(QPen(QColor(255, 255, 255, 230), lineW * 2.2, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
    m_boundary->setPen(QPen(QColor(0x10, 0x10, 0x10), lineW, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
    m_marker->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(0x10, 0x10, 0x10), lineW),
                                              QBrush(Qt::white), theme.fontPx * 0.85));
    QColor halo = theme.background;
    halo.setAlpha(235);
    m_markerText->setFont(theme.font(1.0, true));
    m_markerText->setColor(theme.foreground);
    m_markerText->setBrush(halo);
    m_markerText->setPen(QPen(theme.foreground, 1));
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
}

void FitMapChart::fitLabelsTo(int widthPx)
{
    m_fitWidth = widthPx;
    if (widthPx > 0)
        m_theme.fitHeader(legend, m_title, widthPx, 8);
}

void FitMapChart::resizeEvent(QResizeEvent* e)
{
    fitLabelsTo(e->size().width());
    m_fitWidth = 0;
    LivePlot::resizeEvent(e);
}

void FitMapChart::setData(const FitMapChartData& data)
{
    m_data = data;
    rebuild();
}

void FitMapChart::rebuild()
{
    const FitMap& fm = m_data.map;
    const LogSpan px = paramsSpan(fm), sy = seqSpan(fm);
    const int cols = static_cast<int>(fm.columns()), rows = static_cast<int>(fm.rows());
    QCPColorMapData* d = m_map->data();
    d->setSize(std::max(cols, 1), std::max(rows, 1));
    d->setRange(QCPRange(px.lo, px.hi), QCPRange(sy.lo, sy.hi));
    for (int c = 0; c < cols; ++c)
        for (int r = 0; r < rows; ++r)
            d->setCell(c, r, static_cast<double>(fm.bandAt(static_cast<size_t>(c), static_cast<size_t>(r))));
    if (cols == 0 || rows == 0)
        d->fill(static_cast<double>(FitBand::Never));
    xAxis->setRange(px.edge(0), px.edge(static_cast<double>(px.n)));
    yAxis->setRange(sy.edge(0), sy.edge(static_cast<double>(sy.n)));

    // The boundary: along the top of each column's one-GPU cells, from the first column that has any to the last,
    // then down to the axis. Columns past it need more than one GPU even at the shortest context.
    QVector<double> bx, by;
    for (int c = 0; c < cols; ++c) {
        const size_t k = fm.oneGpuRows[static_cast<size_t>(c)];
        if (k == 0) {
            if (!bx.isEmpty()) { // the edge comes down to the shortest context and stops
                bx << px.edge(c);
                by << sy.edge(0);
                break;
            }
            continue;
        }
        const double top = sy.edge(static_cast<double>(k));
        if (bx.isEmpty()) { // enters from the left edge, or up from the axis where a column first fits
            bx << px.edge(c);
            by << (c == 0 ? top : sy.edge(0));
        }
        bx << px.edge(c) << px.edge(c + 1);
        by << top << top;
    }
    QVector<double> t(bx.size());
    std::iota(t.begin(), t.end(), 0.0);
    m_boundary->setData(t, bx, by);
    m_boundaryHalo->setData(t, bx, by);
    m_boundary->setVisible(!bx.isEmpty());
    m_boundaryHalo->setVisible(!bx.isEmpty());
    updateLegend();

    // The scenario, clamped into the map (a 124M GPT-2 sits on its left edge).
    const double mx = std::clamp(m_data.currentParams, px.lo, px.hi);
    const double my = std::clamp(static_cast<double>(m_data.currentSeq), sy.lo, sy.hi);
    m_marker->setData({mx}, {my}, true);
    m_markerText->setText(tr("%1 · %2: %3")
                              .arg(count(m_data.currentParams), context(m_data.currentSeq),
                                   gpusText(m_data.current.gpus, m_data.current.never)));
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
}

void FitMapChart::updateLegend()
{
    // A band no cell has would name a colour the map does not show ("1 GPU" beside DeepSeek-V3's map).
    std::array<bool, kFitBandCount> bands{};
    for (FitBand b : m_data.map.bands)
        bands[static_cast<size_t>(b)] = true;
    if (m_data.map.bands.empty())
        bands[static_cast<size_t>(FitBand::Never)] = true; // rebuild() fills an empty map with it
    const bool boundary = m_boundary->visible();
    if (legend->itemCount() > 0 && bands == m_legendBands && boundary == legend->hasItemWithPlottable(m_boundary))
        return; // a drag step that changes no band keeps the legend as it is
    m_legendBands = bands;
    legend->clearItems();
    for (size_t i = 0; i < kFitBandCount; ++i)
        if (bands[i])
            addCachedLegendItem(legend, m_swatches[i]);
    if (boundary)
        addCachedLegendItem(legend, m_boundary);
    addCachedLegendItem(legend, m_marker);
}

bool FitMapChart::arrangeLabels()
{
    // A low plot: the context label shortens to what its height holds, and the 256k tick goes when 256k and 1M
    // (two doublings) would be less than a label and a gap apart.
    bool relayout = false;
    const double h = axisRect()->height();
    const QFont labelFont = yAxis->labelFont();
    QString label = tr("Context length (tokens)");
    if (cachedTextWidth(labelFont, label) > h)
        label = tr("Context");
    if (cachedTextWidth(labelFont, label) > h)
        label.clear();
    if (yAxis->label() != label) {
        yAxis->setLabel(label);
        relayout = true;
    }
    const double twoOctaves = std::fabs(yAxis->coordToPixel(kSweepMaxSeq) - yAxis->coordToPixel(kSweepMaxSeq / 4));
    const bool thin = twoOctaves < m_theme.fontPx * 1.6;
    if (thin != m_thinSeqTicks) {
        m_thinSeqTicks = thin;
        m_seqTicker->clear();
        for (int e : {9, 12, 15, 18, 20})
            if (!(thin && e == 18))
                m_seqTicker->addTick(std::ldexp(1.0, e), context(int64_t{1} << e));
        relayout = true;
    }
    if (relayout)
        return true;
    // The scenario's label beside its marker, inside the plot, on the side with more room first.
    const QRect plot = axisRect()->rect();
    std::vector<QRect> taken;
    if (m_marker->data()->isEmpty()) {
        m_markerText->setSkipped(true);
        return false;
    }
    const auto pt = m_marker->data()->constBegin();
    const QPointF point(xAxis->coordToPixel(pt->key), yAxis->coordToPixel(pt->value));
    // The marker's own box (its circle and pen), and spots just clear of it: straight out, or at a corner.
    const double m = m_theme.fontPx * 0.5 + 2, r = m + 3, d = m + 2;
    taken.push_back(QRectF(point - QPointF(m, m), point + QPointF(m, m)).toAlignedRect());
    const LabelSpot right{point + QPointF(r, 0), Qt::AlignLeft | Qt::AlignVCenter};
    const LabelSpot left{point - QPointF(r, 0), Qt::AlignRight | Qt::AlignVCenter};
    const LabelSpot up{point - QPointF(0, r), Qt::AlignHCenter | Qt::AlignBottom};
    const LabelSpot down{point + QPointF(0, r), Qt::AlignHCenter | Qt::AlignTop};
    const LabelSpot upRight{point + QPointF(d, -d), Qt::AlignLeft | Qt::AlignBottom};
    const LabelSpot upLeft{point + QPointF(-d, -d), Qt::AlignRight | Qt::AlignBottom};
    const LabelSpot downRight{point + QPointF(d, d), Qt::AlignLeft | Qt::AlignTop};
    const LabelSpot downLeft{point + QPointF(-d, d), Qt::AlignRight | Qt::AlignTop};
    const bool leftHalf = point.x() < plot.center().x();
    placeLabel(m_markerText,
               leftHalf ? std::vector<LabelSpot>{right, upRight, downRight, up, down, left, upLeft, downLeft}
                        : std::vector<LabelSpot>{left, upLeft, downLeft, up, down, right, upRight, downRight},
               plot, m_theme.font(1.0, true), taken, 0.8, m_theme.minFontPx);
    return false;
}

bool FitMapChart::cellAt(const QPointF& pos, size_t* column, size_t* row) const
{
    const FitMap& fm = m_data.map;
    if (fm.columns() == 0 || fm.rows() == 0 || !axisRect()->rect().contains(pos.toPoint()))
        return false;
    const long c = paramsSpan(fm).cell(xAxis->pixelToCoord(pos.x()));
    const long r = seqSpan(fm).cell(yAxis->pixelToCoord(pos.y()));
    if (c < 0 || r < 0)
        return false;
    *column = static_cast<size_t>(c);
    *row = static_cast<size_t>(r);
    return true;
}

QString FitMapChart::hoverText(const QPointF& pos) const
{
    size_t c = 0, r = 0;
    if (!cellAt(pos, &c, &r))
        return {};
    const FitMap& fm = m_data.map;
    const FitBand band = fm.bandAt(c, r);
    QString text = tr("%1 parameters, %2 tokens: %3")
                       .arg(count(static_cast<double>(fm.axes.params[c])), context(fm.axes.seq[r]),
                            gpusText(fm.gpusAt(c, r), band == FitBand::Never));
    if (band == FitBand::Never)
        text +=
            QLatin1Char('\n') + tr("The activations, logits and workspace alone exceed one %1.").arg(m_data.gpuName);
    else
        text += QLatin1Char('\n') + tr("%1 GPUs, %2.").arg(m_data.gpuName, m_data.layout);
    return text;
}

FitMapPanel::FitMapPanel(QWidget* parent)
    : ChartPanel(QStringLiteral("fitMapPanel"), QStringLiteral("fitMapSummary"), parent)
{
    m_chart = new FitMapChart(this);
    m_chart->hideTitle();
    setChart(m_chart, 200);
}

void FitMapPanel::setScenario(const Scenario& s, const GpuSpec& gpu)
{
    m_scenario = s;
    m_gpu = gpu;
    invalidate();
}

void FitMapPanel::applyTheme(const ChartTheme& theme)
{
    m_chart->setTheme(theme);
}

void FitMapPanel::recompute()
{
    std::pair<Scenario, GpuSpec> key{m_scenario, m_gpu};
    key.first.training.seqLen = 0;
    const bool sameMap = m_mapFor && *m_mapFor == key;
    const FitMapChartData d = fitMapChartData(m_scenario, m_gpu, sameMap ? &m_chart->data().map : nullptr);
    m_mapFor = std::move(key);
    m_chart->setData(d);

    // The sentence: where one GPU (or the layout's smallest group: tp · pp · cp GPUs) stops at this context, and what
    // the scenario itself needs (issue 31 §1: a tp 8 · pp 4 launch is not measured against one GPU).
    const FitMap& fm = d.map;
    const HardwareSetup& hw = m_scenario.hardware;
    const int64_t unit = std::max<int64_t>(1, hw.tp * hw.pp * hw.cp);
    const QString one = unit == 1 ? tr("one %1").arg(d.gpuName)
                                  : tr("one group of %1 × %2 (tp %3 · pp %4 · cp %5)")
                                        .arg(unit)
                                        .arg(d.gpuName)
                                        .arg(hw.tp)
                                        .arg(hw.pp)
                                        .arg(hw.cp);
    QString text;
    if (fm.rows() > 0 && fm.columns() > 0) {
        const size_t row = nearestOnLog(fm.axes.seq, static_cast<double>(d.currentSeq));
        size_t fits = 0; // columns that fit one GPU (one group) at this row
        auto fitsOne = [&](size_t column) {
            const int64_t g = fm.gpusAt(column, row);
            return fm.bandAt(column, row) != FitBand::Never && g >= 1 && g <= unit;
        };
        while (fits < fm.columns() && fitsOne(fits))
            ++fits;
        const QString at = context(fm.axes.seq[row]);
        if (fits == 0)
            text = tr("At %1 tokens not even %2 parameters fit on %3.")
                       .arg(at, count(static_cast<double>(fm.axes.params.front())), one);
        else if (fits == fm.columns())
            text = tr("At %1 tokens every size up to %2 fits on %3.")
                       .arg(at, count(static_cast<double>(fm.axes.params.back())), one);
        else
            text = tr("At %1 tokens %2 holds up to about %3 parameters.")
                       .arg(at, one, count(static_cast<double>(fm.axes.params[fits - 1])));
    }
    text +=
        QLatin1Char(' ') +
        (d.current.never && m_scenario.training.mode == Mode::Training
             ? tr("This scenario (%1) never fits: its working set alone (activations, logits, workspace) exceeds "
                  "one %2.")
                   .arg(count(d.currentParams), d.gpuName)
         : d.current.never
             ? tr("This scenario (%1) never fits: no split of its weights and cache fits.").arg(count(d.currentParams))
             : tr("This scenario (%1) needs %2.").arg(count(d.currentParams), gpusText(d.current.gpus, false)));
    summary()->setText(text);
}

} // namespace trainmem
