#include "cachedtext.h"

#include <QFontMetrics>
#include <QHash>

#include <cmath>

namespace trainmem {
namespace {

// Glyphs may reach past the metrics' rectangle (italics, TextDontClip): the image has this margin.
constexpr int kMargin = 2;

// QCPAbstractPlottable::drawLegendIcon is protected, for QCPPlottableLegendItem (a friend). A
// using-declaration in a derived class names it publicly, and the member pointer taken through it
// calls the plottable's own (virtual) icon drawing.
struct IconAccess : QCPAbstractPlottable {
    using QCPAbstractPlottable::drawLegendIcon;
};

void drawLegendIcon(const QCPAbstractPlottable* plottable, QCPPainter* painter, const QRectF& rect)
{
    (plottable->*(&IconAccess::drawLegendIcon))(painter, rect);
}

} // namespace

double cachedTextWidth(const QFont& font, const QString& text)
{
    static QHash<QString, double> widths;
    // Font key and text, with a separator neither contains.
    const QString key = font.key() + QChar(0x1f) + text;
    if (const auto it = widths.constFind(key); it != widths.constEnd())
        return *it;
    if (widths.size() > 4096) // bound it: labels with numbers in them are mostly one-offs
        widths.clear();
    const double w = QFontMetricsF(font).horizontalAdvance(text);
    widths.insert(key, w);
    return w;
}

bool drawsForExport(const QCPPainter* painter)
{
    return painter->modes().testFlag(QCPPainter::pmNoCaching) || painter->modes().testFlag(QCPPainter::pmVectorized);
}

QRect TextStamp::bounds(const QString& text, const QFont& font, int flags, QSize box)
{
    if (flags != m_boundsFlags || box != m_boundsBox || text != m_boundsText || font != m_boundsFont) {
        m_bounds = QFontMetrics(font).boundingRect(QRect(QPoint(0, 0), box), flags, text);
        m_boundsText = text;
        m_boundsFont = font;
        m_boundsFlags = flags;
        m_boundsBox = box;
    }
    return m_bounds;
}

void TextStamp::draw(QPainter* painter, const QRect& rect, int flags, const QString& text, const QFont& font,
                     const QColor& color)
{
    if (text.isEmpty() || rect.isEmpty())
        return;
    const double dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    if (rect.size() != m_size || flags != m_flags || !qFuzzyCompare(dpr, m_dpr) || color != m_color || text != m_text ||
        font != m_font) {
        const QSize logical = rect.size() + QSize(2 * kMargin, 2 * kMargin);
        m_image = QImage((QSizeF(logical) * dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
        m_image.setDevicePixelRatio(dpr);
        m_image.fill(Qt::transparent);
        QPainter p(&m_image);
        p.setRenderHint(QPainter::TextAntialiasing);
        p.setFont(font);
        p.setPen(color);
        p.drawText(QRect(QPoint(kMargin, kMargin), rect.size()), flags, text);
        p.end();
        m_size = rect.size();
        m_flags = flags;
        m_dpr = dpr;
        m_color = color;
        m_text = text;
        m_font = font;
    }
    painter->drawImage(rect.topLeft() - QPoint(kMargin, kMargin), m_image);
}

QRect CachedTextItem::localBox(QRect* textRect) const
{
    // QCPItemText's geometry: the text's box, padded, placed by the position alignment.
    QRect text = m_stamp.bounds(mText, mainFont(), Qt::TextDontClip | static_cast<int>(mTextAlignment));
    QRect box = text.adjusted(-mPadding.left(), -mPadding.top(), mPadding.right(), mPadding.bottom());
    const QPoint topLeft = getTextDrawPoint(QPointF(0, 0), box, mPositionAlignment).toPoint();
    text.moveTopLeft(topLeft + QPoint(mPadding.left(), mPadding.top()));
    box.moveTopLeft(topLeft);
    if (textRect)
        *textRect = text;
    return box;
}

QRect CachedTextItem::boxAt(const QPointF& pixel) const
{
    if (!std::isfinite(pixel.x()) || !std::isfinite(pixel.y()) || std::fabs(pixel.x()) > 1e6 ||
        std::fabs(pixel.y()) > 1e6)
        return {}; // no data yet, or far off the chart: draw() draws nothing
    return localBox().translated(qRound(pixel.x()), qRound(pixel.y()));
}

void CachedTextItem::draw(QCPPainter* painter)
{
    if (m_skipped)
        return;
    if (drawsForExport(painter) || !qFuzzyIsNull(mRotation)) {
        QCPItemText::draw(painter);
        return;
    }
    const QPointF pos = position->pixelPosition();
    // No data yet (NaN) or far off the chart: nothing to see, and a raster engine fed a NaN
    // transform crashes.
    if (!std::isfinite(pos.x()) || !std::isfinite(pos.y()) || std::fabs(pos.x()) > 1e6 || std::fabs(pos.y()) > 1e6)
        return;
    QTransform transform = painter->transform();
    transform.translate(pos.x(), pos.y());
    const QFont font = mainFont();
    const int flags = Qt::TextDontClip | static_cast<int>(mTextAlignment);
    QRect textRect;
    const QRect box = localBox(&textRect);
    const int clipPad = static_cast<int>(std::ceil(mainPen().widthF()));
    const QRect outer = box.adjusted(-clipPad, -clipPad, clipPad, clipPad);
    if (!transform.mapRect(outer).intersects(painter->transform().mapRect(clipRect())))
        return;
    painter->setTransform(transform);
    const QPen pen = mainPen();
    const QBrush brush = mainBrush();
    if ((brush.style() != Qt::NoBrush && brush.color().alpha() != 0) ||
        (pen.style() != Qt::NoPen && pen.color().alpha() != 0)) {
        painter->setPen(pen);
        painter->setBrush(brush);
        painter->drawRect(box);
    }
    m_stamp.draw(painter, textRect, flags, mText, font, mainColor());
}

QSize CachedLegendItem::minimumOuterSizeHint() const
{
    if (!mPlottable)
        return {};
    const QSize icon = mParentLegend->iconSize();
    const QRect text = m_stamp.bounds(mPlottable->name(), getFont(), Qt::TextDontClip, QSize(0, icon.height()));
    return {icon.width() + mParentLegend->iconTextPadding() + text.width() + mMargins.left() + mMargins.right(),
            std::max(text.height(), icon.height()) + mMargins.top() + mMargins.bottom()};
}

void CachedLegendItem::draw(QCPPainter* painter)
{
    if (!mPlottable)
        return;
    if (drawsForExport(painter)) {
        QCPPlottableLegendItem::draw(painter);
        return;
    }
    // As QCPPlottableLegendItem: the icon at the top left, the text after it, top-aligned (or
    // centred on the icon when shorter, which the box height gives).
    const QSize icon = mParentLegend->iconSize();
    const QFont font = getFont();
    const QRect text = m_stamp.bounds(mPlottable->name(), font, Qt::TextDontClip, QSize(0, icon.height()));
    const QRect textBox(mRect.x() + icon.width() + mParentLegend->iconTextPadding(), mRect.y(), text.width(),
                        std::max(text.height(), icon.height()));
    m_stamp.draw(painter, textBox, Qt::TextDontClip, mPlottable->name(), font, getTextColor());
    const QRect iconRect(mRect.topLeft(), icon);
    painter->save();
    painter->setClipRect(iconRect, Qt::IntersectClip);
    drawLegendIcon(mPlottable, painter, iconRect);
    painter->restore();
    if (getIconBorderPen().style() != Qt::NoPen) {
        painter->setPen(getIconBorderPen());
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(iconRect);
    }
}

QSize CachedTextElement::textSize() const
{
    return m_sizeStamp.bounds(mText, mSelected ? mSelectedFont : mFont, Qt::TextDontClip).size();
}

QSize CachedTextElement::minimumOuterSizeHint() const
{
    return textSize() + QSize(mMargins.left() + mMargins.right(), mMargins.top() + mMargins.bottom());
}

QSize CachedTextElement::maximumOuterSizeHint() const
{
    return {QWIDGETSIZE_MAX, textSize().height() + mMargins.top() + mMargins.bottom()};
}

void CachedTextElement::draw(QCPPainter* painter)
{
    if (drawsForExport(painter)) {
        QCPTextElement::draw(painter);
        return;
    }
    // QCPTextElement draws the text with its flags inside its rectangle: the same rectangle,
    // aligned the same way, from the stamp.
    const QFont font = mSelected ? mSelectedFont : mFont;
    mTextBoundingRect = m_stamp.bounds(mText, font, mTextFlags, mRect.size()).translated(mRect.topLeft());
    m_stamp.draw(painter, mTextBoundingRect, mTextFlags, mText, font, mSelected ? mSelectedTextColor : mTextColor);
}

void addCachedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable)
{
    if (legend && plottable && !legend->hasItemWithPlottable(plottable))
        legend->addItem(new CachedLegendItem(legend, plottable));
}

} // namespace trainmem
