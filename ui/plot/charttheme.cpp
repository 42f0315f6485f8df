#include "charttheme.h"

#include "cachedtext.h"
#include "coreapi.h"

#include <qcustomplot.h>

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace trainmem {

// The core's table holds the English texts; they are translated here, in the "trainmem" context.
QString segmentName(SegmentKind k)
{
    return QCoreApplication::translate("trainmem", termInfo(k).name);
}

QString segmentExplanation(SegmentKind k)
{
    return QCoreApplication::translate("trainmem", termInfo(k).hint);
}

QColor ChartTheme::segmentColor(SegmentKind k)
{
    return QColor::fromRgb(termInfo(k).colour);
}

QColor ChartTheme::checkpointColor(int mode)
{
    // Tableau 10's red, blue, green and orange: none, selective, full, per-op.
    static constexpr std::array<QRgb, 4> colours{0xe15759, 0x4e79a7, 0x59a14f, 0xf28e2b};
    return QColor::fromRgb(colours[static_cast<size_t>(std::clamp(mode, 0, 3))]);
}

QFont ChartTheme::font(double factor, bool bold) const
{
    QFont f;
    f.setPixelSize(qRound(std::max(minFontPx, fontPx * factor)));
    f.setBold(bold);
    return f;
}

ChartTheme ChartTheme::fromPalette(const QPalette& palette, double fontScale)
{
    ChartTheme t;
    t.background = palette.color(QPalette::Base);
    t.foreground = palette.color(QPalette::Text);
    t.dark = t.background.lightnessF() < 0.5;
    t.grid = t.dark ? t.background.lighter(180) : t.background.darker(118);
    t.subGrid = t.dark ? t.background.lighter(135) : t.background.darker(106);
    t.capacity = t.dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xb0, 0x1e, 0x1e);
    t.fits = t.dark ? QColor(0x6b, 0xd3, 0x8a) : QColor(0x1b, 0x7f, 0x3a);
    t.marker = t.foreground;
    const QFont app = QFont();
    const double px = app.pixelSize() > 0 ? app.pixelSize() : app.pointSizeF() * 96.0 / 72.0;
    t.fontPx = std::max(9.0, px) * fontScale;
    t.minFontPx = fontScale > 1.0 ? 12.0 : 9.0;
    return t;
}

ChartTheme ChartTheme::slide(int width, int height)
{
    ChartTheme t;
    // 16 px tick labels on a 1600×1000 slide, scaled with the smaller side so small exports stay legible.
    const double k = std::min(width / 1600.0, height / 1000.0);
    t.fontPx = std::clamp(17.0 * k, 9.0, 60.0);
    t.minFontPx = width >= 1000 && height >= 700 ? 12.0 : 9.0;
    return t;
}

void ChartTheme::applyToAxis(QCPAxis* axis) const
{
    axis->setBasePen(QPen(foreground, 1));
    axis->setTickPen(QPen(foreground, 1));
    axis->setSubTickPen(QPen(foreground, 1));
    axis->setTickLabelColor(foreground);
    axis->setLabelColor(foreground);
    axis->setTickLabelFont(font());
    axis->setLabelFont(font(1.1, true));
    axis->setTickLengthOut(0);
    axis->setSubTickLengthOut(0);
    axis->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
    axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
    axis->setLabelPadding(qRound(fontPx * 0.5));
    axis->setTickLabelPadding(qRound(fontPx * 0.4));
}

void ChartTheme::applyToLegend(QCPLegend* legend) const
{
    legend->setBrush(Qt::NoBrush);
    legend->setBorderPen(Qt::NoPen);
    legend->setTextColor(foreground);
    legend->setFont(font());
    const int icon = qRound(fontPx * 1.1);
    legend->setIconSize(icon, icon);
    legend->setIconTextPadding(qRound(fontPx * 0.4));
    legend->setRowSpacing(qRound(fontPx * 0.15));
    legend->setColumnSpacing(qRound(fontPx * 0.9));
    legend->setMargins(
        QMargins(qRound(fontPx * 0.5), qRound(fontPx * 0.3), qRound(fontPx * 0.5), qRound(fontPx * 0.3)));
}

void ChartTheme::applyToPlot(QCustomPlot* plot) const
{
    plot->setBackground(background);
    // The plot's own background is under the axis rect already: a second fill would only cost time.
    plot->axisRect()->setBackground(Qt::NoBrush);
    for (QCPAxis* a : plot->axisRect()->axes())
        applyToAxis(a);
    // Above the plot only the top tick label's upper half needs room (no top axis is shown);
    // QCustomPlot's 15 px minimum there cost a 1024 × 700 window the bars' last 10 px (issue 14).
    QMargins least = plot->axisRect()->minimumMargins();
    least.setTop(qRound(fontPx * 0.7));
    plot->axisRect()->setMinimumMargins(least);
    // Title, legend and plot are stacked rows; the legend row carries its own top margin.
    plot->plotLayout()->setRowSpacing(qRound(fontPx * 0.2));
    applyToLegend(plot->legend);
}

} // namespace trainmem

namespace trainmem {

int ChartTheme::legendColumns(const QCPLegend* legend, int widthPx, int maxColumns, double factor) const
{
    // The most columns whose entries fit side by side, each column as wide as its widest entry
    // (foColumnsFirst puts entry i in column i mod columns), not every column as wide as the
    // widest name: a narrow chart then keeps one row fewer for its plot (issue 14).
    // An entry's width as CachedLegendItem::minimumOuterSizeHint gives it, for the names in font(factor).
    const QFont f = font(factor);
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
            widths.push_back(legend->iconSize().width() + legend->iconTextPadding() + item->margins().left() +
                             item->margins().right() +
                             static_cast<int>(std::ceil(cachedTextWidth(f, item->plottable()->name()))) + 1);
    const int n = static_cast<int>(widths.size());
    const int room = widthPx - qRound(fontPx) - legend->margins().left() - legend->margins().right();
    for (int columns = std::min(maxColumns, n); columns > 1; --columns) {
        int total = (columns - 1) * legend->columnSpacing();
        for (int c = 0; c < columns; ++c) {
            int widest = 0;
            for (int i = c; i < n; i += columns)
                widest = std::max(widest, widths[static_cast<size_t>(i)]);
            total += widest;
        }
        if (total <= room)
            return columns;
    }
    return 1;
}

double ChartTheme::fitFactor(const QString& text, int widthPx, double factor, bool bold) const
{
    const double w = cachedTextWidth(font(factor, bold), text);
    const double room = widthPx - fontPx;
    return w <= room || w <= 0 ? factor : std::max(0.6, factor * room / w);
}

void ChartTheme::fitHeader(QCPLegend* legend, QCPTextElement* title, int widthPx, int maxColumns) const
{
    // A narrow chart's legend in a smaller font when that saves a row: the rows are the plot's.
    const int n = legend->itemCount();
    auto rows = [n](int columns) { return (n + columns - 1) / std::max(1, columns); };
    int wrap = legendColumns(legend, widthPx, maxColumns);
    double factor = 1.0;
    if (rows(wrap) > 2) {
        const int smaller = legendColumns(legend, widthPx, maxColumns, 0.85);
        if (rows(smaller) < rows(wrap)) {
            wrap = smaller;
            factor = 0.85;
        }
    }
    if (legend->font() != font(factor))
        legend->setFont(font(factor));
    if (wrap != legend->wrap()) {
        legend->setWrap(wrap);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // re-wrap the existing entries
    }
    const QFont titleFont = font(fitFactor(title->text(), widthPx, 1.25, true), true);
    if (title->font() != titleFont)
        title->setFont(titleFont);
}

ChartHeader addChartHeader(QCustomPlot* plot, const QString& title)
{
    ChartHeader h;
    h.title = new CachedTextElement(plot, title);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, h.title);
    h.legendRow = new QCPLayoutGrid;
    plot->plotLayout()->insertRow(1);
    plot->plotLayout()->addElement(1, 0, h.legendRow);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    plot->axisRect()->insetLayout()->take(plot->legend);
    h.legendRow->addElement(0, 0, plot->legend);
    h.legendRow->setMargins(QMargins(0, 0, 0, 0));
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setVisible(true);
    return h;
}

void showLegendRow(QCPLegend* legend, QCPLayoutGrid* legendRow, bool shown)
{
    if (legend->visible() == shown)
        return;
    legend->setVisible(shown);
    // A hidden element still asks for its size: the row itself is held to a pixel.
    legendRow->setMinimumSize(shown ? QSize(0, 0) : QSize(1, 1));
    legendRow->setMaximumSize(QWIDGETSIZE_MAX, shown ? QWIDGETSIZE_MAX : 1);
}

void takeChartTitle(QCustomPlot* plot, QCPTextElement* title)
{
    plot->plotLayout()->take(title);
    plot->plotLayout()->simplify();
    title->setVisible(false); // still a layerable of the plot: it would draw at its old place
}

int barIndexAt(const QCustomPlot* plot, const QPointF& pos, int count, double barWidth)
{
    if (!plot->axisRect()->rect().contains(pos.toPoint()))
        return -1;
    const double key = plot->xAxis->pixelToCoord(pos.x());
    const int i = static_cast<int>(std::lround(key));
    if (i < 0 || i >= count || std::fabs(key - i) > barWidth / 2)
        return -1;
    return i;
}

} // namespace trainmem
