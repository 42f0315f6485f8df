#pragma once
// Text that the live charts draw from a cache. QPainter lays text out (HarfBuzz shaping) on every
// drawText() and again for every boundingRect(); QCustomPlot's text items and legend entries do
// both on every paint, which was a sixth of a slider step. These subclasses measure and render
// their text once, keep the image while text, font and colour stay the same, and draw the image.
// Exports (QCPPainter::pmNoCaching, set by toPainter) and PDF (pmVectorized) take QCustomPlot's own
// path, so files get real, vector text.

#include <qcustomplot.h>

namespace trainmem {

/// QFontMetricsF(font).horizontalAdvance(text), remembered: the charts re-fit their legends and
/// labels to the width on every update, mostly with the same strings. GUI thread only.
double cachedTextWidth(const QFont& font, const QString& text);

/// One string rendered into an image: re-rendered only when something it depends on changes.
class TextStamp
{
public:
    /// The rectangle QFontMetrics::boundingRect(QRect(0, 0, box), flags, text) gives, cached.
    QRect bounds(const QString& text, const QFont& font, int flags, QSize box = {});
    /// Draws `text` as QPainter::drawText(rect, flags, text) would, from the cached image.
    void draw(QPainter* painter, const QRect& rect, int flags, const QString& text, const QFont& font,
              const QColor& color);

private:
    QString m_boundsText;
    QFont m_boundsFont;
    int m_boundsFlags = -1;
    QSize m_boundsBox;
    QRect m_bounds;

    QString m_text;
    QFont m_font;
    QColor m_color;
    int m_flags = -1;
    QSize m_size;
    double m_dpr = 0;
    QImage m_image;
};

/// QCPItemText drawing its text from a TextStamp.
class CachedTextItem : public QCPItemText
{
    Q_OBJECT
public:
    explicit CachedTextItem(QCustomPlot* plot) : QCPItemText(plot) {}

    /// The padded box the item draws, in widget pixels, for its position at `pixel` (QCPItemText's
    /// geometry: the text's bounds, padded, placed by the position alignment). draw() uses it too.
    QRect boxAt(const QPointF& pixel) const;
    QRect pixelBox() const { return boxAt(position->pixelPosition()); }
    /// Left out by a chart's label layout (no room that meets no other label): not drawn, on
    /// screen or in a file, while visible() keeps saying whether the chart has something to say.
    void setSkipped(bool skipped) { m_skipped = skipped; }
    bool skipped() const { return m_skipped; }

protected:
    void draw(QCPPainter* painter) override;

private:
    QRect localBox(QRect* textRect = nullptr) const; ///< the box and the text in it, relative to the position

    mutable TextStamp m_stamp;
    bool m_skipped = false;
};

/// A legend entry for a plottable whose text is measured and drawn from a TextStamp.
class CachedLegendItem : public QCPPlottableLegendItem
{
    Q_OBJECT
public:
    CachedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable) : QCPPlottableLegendItem(legend, plottable) {}

protected:
    void draw(QCPPainter* painter) override;
    QSize minimumOuterSizeHint() const override;

private:
    mutable TextStamp m_stamp;
};

/// A chart title (QCPTextElement) measured and drawn from a TextStamp.
class CachedTextElement : public QCPTextElement
{
    Q_OBJECT
public:
    CachedTextElement(QCustomPlot* plot, const QString& text) : QCPTextElement(plot, text) {}

protected:
    void draw(QCPPainter* painter) override;
    QSize minimumOuterSizeHint() const override;
    QSize maximumOuterSizeHint() const override;

private:
    QSize textSize() const;
    mutable TextStamp m_sizeStamp; ///< the layout asks for the bare size, the paint for the aligned box:
    TextStamp m_stamp;             ///< one stamp each, or they would evict each other every frame
};

/// Adds `plottable` to `legend` as a CachedLegendItem, unless it is listed already.
void addCachedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable);

/// True when `painter` draws for a file: QCustomPlot's own, uncached path then.
bool drawsForExport(const QCPPainter* painter);

} // namespace trainmem
