#pragma once
// Where a chart's text goes (issue 14: presentation mode's larger fonts ran labels into each
// other and off the plot). Two halves: every text a chart draws as a rectangle in widget pixels,
// computed from what places it (tests check them: inside the chart, none on another), and the rule
// for annotations: the first of a few candidate spots that stays inside its bounds and meets no
// label placed before it, at the label's font and then a smaller one, or none at all.

#include <QRect>
#include <QString>
#include <QStringList>

#include <vector>

class QCPAxis;
class QCPLegend;
class QCustomPlot;
class QFont;

namespace trainmem {

class CachedTextItem;

/// One text a chart draws: where, and the rectangle it has to stay in (the widget, or the axis
/// rect for text that is clipped to it).
struct ChartLabel {
    QString text;
    QRect rect;
    QRect bounds;
};
using ChartLabels = std::vector<ChartLabel>;

/// Everything `plot` draws as text at its last layout: tick labels and axis labels of the visible
/// axes, legend entries, title elements and the visible, not skipped CachedTextItems.
ChartLabels chartLabels(const QCustomPlot* plot);
/// The visible tick labels of `axis` where QCPAxisPainterPrivate::placeTickLabel puts them
/// (unrotated labels outside the axis rect, the theme's setting).
void appendTickLabels(const QCPAxis* axis, const QRect& bounds, ChartLabels& out);
/// The rectangles of `legend`'s entries.
void appendLegend(const QCPLegend* legend, const QRect& bounds, ChartLabels& out);

/// A spot for a text item: its anchor in widget pixels and which corner or edge sits there.
struct LabelSpot {
    QPointF anchor;
    Qt::Alignment alignment;
};

/// Moves `item` (its position in absolute pixels) to the first of `spots` where its box lies in
/// `bounds` and meets none of `taken`, at `font` and, failing that, at `shrink` times it (not below `floorPx`); the box
/// is added to `taken`. No spot fits: the item is skipped (not drawn) and false returned.
bool placeLabel(CachedTextItem* item, const std::vector<LabelSpot>& spots, const QRect& bounds, const QFont& font,
                std::vector<QRect>& taken, double shrink = 0.8, double floorPx = 9);
/// placeLabel() with `text` on one line, else with the space at `breakAt` made a line break (none where `breakAt` is
/// not a space of `text`): "128k: 871 GB" over "128k:" / "871 GB", "Out of memory on one H100" over two lines. The item
/// keeps the last text tried; skipped and false when neither fits.
bool placeOnOneOrTwoLines(CachedTextItem* item, const QString& text, qsizetype breakAt,
                          const std::vector<LabelSpot>& spots, const QRect& bounds, const QFont& font,
                          std::vector<QRect>& taken, double shrink, double floorPx);
/// True when `r` meets one of `taken`.
bool meetsAny(const QRect& r, const std::vector<QRect>& taken);

/// `text` broken at spaces (inside a word only when it is longer than a line) into lines no wider than `width`
/// at `font`, at most `maxLines`, the last elided when the text needs more (then `*elided` is set).
QStringList wrapLines(const QString& text, const QFont& font, int width, int maxLines, bool* elided = nullptr);

} // namespace trainmem
