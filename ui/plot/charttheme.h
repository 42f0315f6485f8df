#pragma once
// Colours and fonts shared by every chart: one fixed colour per memory segment (so a colour means
// the same thing on every bar, curve and slide), and a palette-following or light "slide" theme.

#include "segmentkind.h"

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QString>

#include <array>

class QCPAxis;
class QCPLayoutGrid;
class QCPLegend;
class QCPTextElement;
class QCustomPlot;
class QPointF;

namespace trainmem {

/// Bars, curves and legends stack the core's memory terms (core/memory/terms.h) in the table's order; the
/// names, hints and colours below are read from that table.
inline constexpr int kSegmentCount = static_cast<int>(kTermCount);

/// Translated display name ("Optimizer state").
QString segmentName(SegmentKind k);
/// One sentence explaining the segment, for hover text.
QString segmentExplanation(SegmentKind k);

struct ChartTheme {
    QColor background = Qt::white;
    QColor foreground = QColor(0x20, 0x20, 0x20);
    QColor grid = QColor(0xd8, 0xd8, 0xd8);
    QColor subGrid = QColor(0xee, 0xee, 0xee);
    QColor capacity = QColor(0xb0, 0x1e, 0x1e); ///< the GPU line and the "dies" region
    QColor fits = QColor(0x1b, 0x7f, 0x3a);
    QColor marker = QColor(0x20, 0x20, 0x20);
    double fontPx = 13; ///< tick labels; titles and labels scale from it
    /// No text is smaller: 12 px on a slide of a 1024 × 768 projector or larger and in presentation mode (issue 31
    /// §2: the legend was ~9 px and the footer ~8 px there), 9 px elsewhere.
    double minFontPx = 9;
    bool dark = false;

    QFont font(double factor = 1.0, bool bold = false) const;
    static QColor segmentColor(SegmentKind k);
    /// The three checkpointing modes' curves (none, selective, full).
    static QColor checkpointColor(int mode);

    /// Follows the application palette (dark mode included); `fontScale` for presentation mode.
    static ChartTheme fromPalette(const QPalette& palette, double fontScale = 1.0);
    /// White background, dark text, fonts sized for a slide of `height` logical pixels.
    static ChartTheme slide(int width, int height);

    void applyToAxis(QCPAxis* axis) const;
    void applyToLegend(QCPLegend* legend) const;
    void applyToPlot(QCustomPlot* plot) const;
    /// Legend columns that fit `widthPx` (at most `maxColumns`), each as wide as its widest entry
    /// with the names in font(factor).
    int legendColumns(const QCPLegend* legend, int widthPx, int maxColumns, double factor = 1.0) const;
    /// A font factor (≤ `factor`) at which `text` fits `widthPx`, for titles on narrow charts.
    double fitFactor(const QString& text, int widthPx, double factor, bool bold) const;
    /// Re-wraps the legend to fit `widthPx` (in a smaller font when that saves a row beyond two)
    /// and shrinks the title to fit; fonts are set only when they change (a new font drops
    /// QCustomPlot's cached label pixmaps).
    void fitHeader(QCPLegend* legend, QCPTextElement* title, int widthPx, int maxColumns) const;
};

/// The title in a row above the plot, the legend in its own row under it, so neither hides data.
struct ChartHeader {
    QCPTextElement* title = nullptr;
    QCPLayoutGrid* legendRow = nullptr;
};
ChartHeader addChartHeader(QCustomPlot* plot, const QString& title);
/// Shows or hides the legend and gives its row's height to the plot when hidden (a low ladder or film: the colours
/// are the bar chart's, named in its legend); does nothing when the legend already is so.
void showLegendRow(QCPLegend* legend, QCPLayoutGrid* legendRow, bool shown);
/// Takes the header's title out of the layout, for a dock whose title bar says it; the caller then owns it.
void takeChartTitle(QCustomPlot* plot, QCPTextElement* title);

/// The bar under `pos` for bars at keys 0 … count−1 of width `barWidth` on the x axis, or −1.
int barIndexAt(const QCustomPlot* plot, const QPointF& pos, int count, double barWidth);

} // namespace trainmem
