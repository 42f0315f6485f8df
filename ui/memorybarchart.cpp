#include "memorybarchart.h"

#include "bytestickers.h"
#include "fastbars.h"

#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QLocale>
#include <QMenu>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace trainmem {
namespace {

// Log view when the tallest bar dwarfs the GPU line: a 38 TB bar against an 80 GB line
// leaves the line at 0.2% of a linear axis.

} // namespace

MemoryBarChart::MemoryBarChart(QWidget* parent) : LivePlot(parent)
{
    setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
    setObjectName(QStringLiteral("memoryBarChart"));
    setMouseTracking(true);
    // Bars and grid are axis-aligned: antialiasing them costs time and blurs edges. Text and items keep it.
    setAntialiasedElements(QCP::aeItems | QCP::aeLegend);

    m_keyTicker.reset(new QCPAxisTickerText);
    m_linearTicker.reset(new BytesTicker);
    m_linearTicker->setTickCount(6);
    m_logTicker.reset(new LogBytesTicker);
    m_logTicker->setLogBase(10);
    m_logTicker->setSubTickCount(0);

    xAxis->setTicker(m_keyTicker);
    xAxis->grid()->setVisible(false);
    xAxis->setSubTicks(false);
    yAxis->setTicker(m_linearTicker);
    yAxis->setLabel(tr("Memory per GPU"));
    yAxis->grid()->setSubGridVisible(false);
    yAxis->setSubTicks(false);

    // The legend gets its own row above the plot, so it never hides a bar.
    const ChartHeader header = addChartHeader(this, tr("Where the memory goes"));
    m_title = header.title;
    m_legendRow = header.legendRow;

    m_bars = addSegmentBars(this, kBarWidth);
    for (QCPBars* b : m_bars) {
        b->setStackingGap(0);
        b->setAntialiased(false);
    }
    for (auto& t : m_totals) {
        t = new CachedTextItem(this);
        t->position->setType(QCPItemPosition::ptPlotCoords);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        t->setClipToAxisRect(false);
        t->setPadding(QMargins(0, 0, 0, 3));
        t->setVisible(false);
    }
    m_pinSeparator = new QCPItemStraightLine(this);
    m_pinSeparator->setVisible(false);
    m_capacityLine = new QCPItemStraightLine(this);
    m_capacityText = new CachedTextItem(this);
    m_capacityText->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_capacityText->position->setTypeY(QCPItemPosition::ptPlotCoords);
    m_capacityText->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    m_capacityText->setPadding(QMargins(4, 1, 4, 1));
    m_callout = new CachedTextItem(this);
    m_callout->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_callout->position->setCoords(0.02, 0.02);
    m_callout->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_callout->setPadding(QMargins(6, 2, 6, 2));
    m_callout->setVisible(false);

    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const QString text = toolTipAt(e->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(), text, this);
    });
    setTheme(ChartTheme::fromPalette(palette()));
}

MemoryBarChart::~MemoryBarChart() = default;

void MemoryBarChart::setTheme(const ChartTheme& theme)
{
    m_theme = theme;
    theme.applyToPlot(this);
    m_title->setFont(theme.font(1.25, true));
    m_title->setTextColor(theme.foreground);
    xAxis->setTickLabelFont(theme.font(1.0));
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
    applyPens();
    m_callout->setFont(theme.font(2.2, true));
    m_callout->setColor(theme.foreground);
    QColor totalHalo = theme.background;
    totalHalo.setAlpha(200);
    for (QCPItemText* t : m_totals) {
        t->setFont(theme.font(1.05, true));
        t->setColor(theme.foreground);
        t->setBrush(totalHalo); // stays readable where it crosses the capacity line
    }
    m_capacityLine->setPen(QPen(theme.capacity, std::max(2.0, theme.fontPx / 7), Qt::DashLine));
    m_pinSeparator->setPen(QPen(theme.grid, std::max(1.0, theme.fontPx / 10)));
    m_capacityText->setFont(theme.font(1.0, true));
    m_capacityText->setColor(theme.capacity);
    QColor halo = theme.background;
    halo.setAlpha(225);
    m_capacityText->setBrush(halo);
    m_legendRow->setMargins(QMargins(0, qRound(theme.fontPx * 0.3), 0, 0));
}

void MemoryBarChart::fitLabelsTo(int widthPx)
{
    m_fitWidth = widthPx;
    if (widthPx <= 0)
        return;
    if (m_columns.empty()) {
        legend->setWrap(m_theme.legendColumns(legend, widthPx, 5));
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        return;
    }
    // The axis takes about the plot minus the value labels on the left.
    const double slot = (widthPx - m_theme.fontPx * 7) / static_cast<double>(m_columns.size());
    const QFont font = m_theme.font();
    double widest = 1;
    for (const BarColumn& c : m_columns)
        for (const QString& line : c.label.split(QLatin1Char('\n')))
            widest = std::max(widest, cachedTextWidth(font, line));
    const double factor = std::clamp(slot * 0.92 / widest, 0.55, 1.0);
    // Only on change: a new font drops QCustomPlot's cached tick-label pixmaps.
    const QFont tickFont = m_theme.font(factor);
    if (xAxis->tickLabelFont() != tickFont)
        xAxis->setTickLabelFont(tickFont);
    m_theme.fitHeader(legend, m_title, widthPx, 5);
}

void MemoryBarChart::resizeEvent(QResizeEvent* e)
{
    m_fitWidth = 0;
    fitLabelsTo(e->size().width());
    m_fitWidth = 0;
    LivePlot::resizeEvent(e);
}

void MemoryBarChart::setTitle(const QString& title)
{
    m_title->setText(title);
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
}

void MemoryBarChart::setUnits(UnitSystem units)
{
    m_units = units;
    m_linearTicker->units = units;
    m_logTicker->units = units;
    // Binary units: powers of two, so ticks land on round GiB/TiB.
    m_logTicker->setLogBase(units == UnitSystem::Decimal ? 10 : 2);
    m_logTicker->setTickCount(units == UnitSystem::Decimal ? 8 : 6);
    setColumns(std::vector<BarColumn>(m_columns), m_capacity, m_capacityLabel);
}

void MemoryBarChart::setAxisScale(AxisScale scale)
{
    m_scale = scale;
    rebuildRanges();
}

void MemoryBarChart::setPicture(const std::optional<TourPicture>& picture)
{
    m_picture = picture;
    m_callout->setVisible(picture.has_value() && !picture->callout.empty());
    if (picture)
        m_callout->setText(QString::fromStdString(picture->callout));
    applyPens();
    rebuildRanges();
}

void MemoryBarChart::applyPens()
{
    // The segments a tour step adds are outlined in the text colour; the others keep a hairline
    // in the background colour that separates the stacked segments.
    for (int i = 0; i < kSegmentCount; ++i) {
        const auto k = static_cast<SegmentKind>(i);
        const bool added =
            m_picture && std::find(m_picture->added.begin(), m_picture->added.end(), k) != m_picture->added.end();
        m_bars[static_cast<size_t>(i)]->setPen(added ? QPen(m_theme.foreground, std::max(2.0, m_theme.fontPx / 5))
                                                     : QPen(m_theme.background, 1));
    }
}

void MemoryBarChart::setColumns(const std::vector<BarColumn>& columns, double capacity, const QString& capacityLabel)
{
    m_columns.assign(columns.begin(), columns.begin() + std::min<ptrdiff_t>(ptrdiff_t(columns.size()), kMaxColumns));
    if (m_picture) // a tour step's picture: the segments it has not revealed yet are not drawn or counted
        for (BarColumn& c : m_columns)
            for (SegmentKind k : kAllSegmentKinds)
                if (std::find(m_picture->revealed.begin(), m_picture->revealed.end(), k) == m_picture->revealed.end())
                    setSegmentBytes(c.segments, k, 0);
    m_capacity = capacity;
    m_capacityLabel = capacityLabel;
    const int n = static_cast<int>(m_columns.size());

    QVector<double> keys(n);
    for (int k = 0; k < n; ++k)
        keys[k] = k;
    std::array<bool, kSegmentCount> used{};
    for (int i = 0; i < kSegmentCount; ++i) {
        QVector<double> values(n);
        for (int k = 0; k < n; ++k) {
            values[k] = segmentBytes(m_columns[static_cast<size_t>(k)].segments, static_cast<SegmentKind>(i));
            used[static_cast<size_t>(i)] = used[static_cast<size_t>(i)] || values[k] > 0;
        }
        m_bars[static_cast<size_t>(i)]->setData(keys, values, true);
    }
    // The legend lists the segments some bar has, in stacking order (top of the stack last). With
    // LoRA adapters the weights are the frozen base (core/terms.cpp names it the same way).
    bool legendChanged = legend->itemCount() != static_cast<int>(std::count(used.begin(), used.end(), true));
    QCPBars* weights = m_bars[static_cast<size_t>(SegmentKind::Weights)];
    const QString weightsName = used[static_cast<size_t>(SegmentKind::Adapters)]
                                    ? QCoreApplication::translate("trainmem", termInfo(SegmentKind::Weights).frozenName)
                                    : segmentName(SegmentKind::Weights);
    if (weights->name() != weightsName) {
        weights->setName(weightsName);
        legendChanged = true;
    }
    for (int i = 0; i < kSegmentCount && !legendChanged; ++i)
        legendChanged = used[static_cast<size_t>(i)] != m_bars[static_cast<size_t>(i)]->visible();
    if (legendChanged) {
        legend->clearItems();
        for (int i = 0; i < kSegmentCount; ++i) {
            m_bars[static_cast<size_t>(i)]->setVisible(used[static_cast<size_t>(i)]);
            if (used[static_cast<size_t>(i)])
                addCachedLegendItem(legend, m_bars[static_cast<size_t>(i)]);
        }
    }

    m_keyTicker->clear();
    for (int k = 0; k < n; ++k)
        m_keyTicker->addTick(k, m_columns[static_cast<size_t>(k)].label);
    for (int k = 0; k < kMaxColumns; ++k) {
        QCPItemText* t = m_totals[static_cast<size_t>(k)];
        t->setVisible(k < n);
        if (k < n) {
            const double total = m_columns[static_cast<size_t>(k)].segments.total();
            t->setText(QString::fromStdString(formatBytes(total, m_units)));
            t->position->setCoords(k, total);
        }
    }
    m_capacityText->setText(capacityLabel);
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
    const auto firstPin = std::find_if(m_columns.begin(), m_columns.end(), [](const BarColumn& c) { return c.pinned; });
    m_pinSeparator->setVisible(firstPin != m_columns.begin() && firstPin != m_columns.end());
    const double sepX = static_cast<double>(firstPin - m_columns.begin()) - 0.5;
    m_pinSeparator->point1->setCoords(sepX, 0);
    m_pinSeparator->point2->setCoords(sepX, 1);
    rebuildRanges();
}

void MemoryBarChart::rebuildRanges()
{
    double top = m_capacity, smallest = m_capacity;
    for (const BarColumn& c : m_columns) {
        const double t = c.segments.total();
        top = std::max(top, t);
        if (t > 0)
            smallest = std::min(smallest, t);
    }
    const bool log = m_scale == AxisScale::Logarithmic;
    if (log != m_log || yAxis->label().isEmpty()) // only on a change: a new label re-lays out the axis
        yAxis->setLabel(log ? tr("Memory per GPU (log: totals, not segment shares)") : tr("Memory per GPU"));
    m_log = log;
    if (log) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(m_logTicker);
        const double lower = std::pow(10.0, std::floor(std::log10(std::max(smallest, 1.0) / 3)));
        yAxis->setRange(lower, top * 4);
    } else {
        yAxis->setScaleType(QCPAxis::stLinear);
        yAxis->setTicker(m_linearTicker);
        // A tour step's number sits top left: room above the tallest bar for it and the totals.
        yAxis->setRange(0, top * (m_callout->visible() ? 1.45 : 1.15));
    }
    // On a log axis the stack starts at 1 byte (below the visible range) instead of at 0.
    m_bars[0]->setBaseValue(log ? 1.0 : 0.0);
    xAxis->setRange(-0.6, std::max<double>(1, static_cast<double>(m_columns.size())) - 0.4);
    m_capacityLine->point1->setCoords(-1, m_capacity);
    m_capacityLine->point2->setCoords(1, m_capacity);
    // The label sits at the right end of the line unless the last bar's total label is there too.
    const double lastTotal = m_columns.empty() ? 0 : m_columns.back().segments.total();
    const bool clash = lastTotal > 0 && (log ? std::fabs(std::log10(lastTotal / std::max(m_capacity, 1.0))) < 0.3
                                             : std::fabs(lastTotal - m_capacity) < 0.1 * yAxis->range().size());
    m_capacityText->setPositionAlignment((clash ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignBottom);
    m_capacityText->position->setCoords(clash ? 0.005 : 0.995, m_capacity);
}

int MemoryBarChart::columnAt(const QPointF& pos) const
{
    return barIndexAt(this, pos, static_cast<int>(m_columns.size()), kBarWidth);
}

QString MemoryBarChart::toolTipAt(const QPointF& pos) const
{
    const int k = columnAt(pos);
    if (k < 0)
        return {};
    const BarColumn& c = m_columns[static_cast<size_t>(k)];
    const double value = yAxis->pixelToCoord(pos.y());
    const double total = c.segments.total();
    const QLocale locale;
    auto bytes = [&](double b) { return QString::fromStdString(formatBytes(b, m_units)); };
    QString title = c.label;
    title.replace(QLatin1Char('\n'), QStringLiteral(" · "));
    double base = 0;
    for (int i = 0; i < kSegmentCount; ++i) {
        const auto seg = static_cast<SegmentKind>(i);
        const double v = segmentBytes(c.segments, seg);
        if (v > 0 && value >= base && value <= base + v) {
            return tr("<b>%1</b><br><b>%2: %3</b> (%4% of %5)<br>%6 bytes<br><i>%7</i>")
                .arg(title.toHtmlEscaped(), segmentName(seg), bytes(v))
                .arg(total > 0 ? 100 * v / total : 0, 0, 'f', 1)
                .arg(bytes(total), locale.toString(static_cast<qlonglong>(std::llround(v))), segmentExplanation(seg));
        }
        base += v;
    }
    if (value > total && value < total * (m_log ? 3 : 1.1))
        return tr("<b>%1</b><br>Total: %2<br>%3 bytes")
            .arg(title.toHtmlEscaped(), bytes(total), locale.toString(static_cast<qlonglong>(std::llround(total))));
    return {};
}

void MemoryBarChart::contextMenuEvent(QContextMenuEvent* e)
{
    const int k = columnAt(e->pos());
    const bool anyPinned = std::any_of(m_columns.begin(), m_columns.end(), [](const BarColumn& c) { return c.pinned; });
    if (!anyPinned)
        return;
    QMenu menu(this);
    if (k >= 0 && m_columns[static_cast<size_t>(k)].pinned) {
        int pinIndex = 0;
        for (int i = 0; i < k; ++i)
            pinIndex += m_columns[static_cast<size_t>(i)].pinned ? 1 : 0;
        QString label = m_columns[static_cast<size_t>(k)].label;
        label.replace(QLatin1Char('\n'), QLatin1Char(' '));
        menu.addAction(tr("Unpin “%1”").arg(label), this, [this, pinIndex] { Q_EMIT unpinRequested(pinIndex); });
    }
    menu.addAction(tr("Clear all pinned bars"), this, &MemoryBarChart::clearPinsRequested);
    menu.exec(e->globalPos());
}

} // namespace trainmem
