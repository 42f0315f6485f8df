#include "labellayout.h"

#include "cachedtext.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QRegularExpression>
#include <QTextLayout>

#include <algorithm>

namespace trainmem {
namespace {

/// QCPTextElement draws its text with its flags inside its rectangle.
QRect textElementRect(const QCPTextElement* t)
{
    const QRect r = t->rect();
    const QRect text = QFontMetrics(t->font()).boundingRect(r, t->textFlags() | Qt::TextDontClip, t->text());
    return text;
}

/// The axis label, where QCPAxisPainterPrivate::draw puts it: past the tick labels and the label
/// padding, centred along the axis rect (rotated on the left).
void appendAxisLabel(const QCPAxis* axis, int tickLabelExtent, const QRect& bounds, ChartLabels& out)
{
    if (axis->label().isEmpty())
        return;
    const QRect ar = axis->axisRect()->rect();
    const QRect text = QFontMetrics(axis->labelFont()).boundingRect(0, 0, 0, 0, Qt::TextDontClip, axis->label());
    const int distance = axis->offset() + axis->tickLabelPadding() + tickLabelExtent + axis->labelPadding();
    QRect r;
    if (axis->axisType() == QCPAxis::atBottom)
        r = QRect(ar.center().x() - text.width() / 2, ar.bottom() + distance, text.width(), text.height());
    else if (axis->axisType() == QCPAxis::atLeft)
        r = QRect(ar.left() - distance - text.height(), ar.center().y() - text.width() / 2, text.height(),
                  text.width());
    else
        return; // the charts label only the bottom and left axes
    out.push_back({axis->label(), r, bounds});
}

} // namespace

void appendTickLabels(const QCPAxis* axis, const QRect& bounds, ChartLabels& out)
{
    if (!axis->visible() || !axis->tickLabels())
        return;
    const QRect ar = axis->axisRect()->rect();
    const QFontMetrics fm(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const int distance =
        axis->offset() + axis->tickLabelPadding() + std::max(axis->tickLengthOut(), axis->subTickLengthOut());
    int extent = 0;
    for (int i = 0; i < std::min(ticks.size(), labels.size()); ++i) {
        if (labels[i].isEmpty())
            continue;
        const double px = axis->coordToPixel(ticks[i]);
        const QRect text = fm.boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignHCenter, labels[i]);
        QRect r;
        switch (axis->axisType()) {
        case QCPAxis::atBottom:
            r = QRect(qRound(px - text.width() / 2.0), ar.bottom() + distance, text.width(), text.height());
            extent = std::max(extent, text.height());
            break;
        case QCPAxis::atLeft:
            r = QRect(ar.left() - distance - text.width(), qRound(px - text.height() / 2.0), text.width(),
                      text.height());
            extent = std::max(extent, text.width());
            break;
        default:
            continue;
        }
        // QCustomPlot leaves out a tick label the widget's edge would cut (placeTickLabel).
        const QRect viewport = axis->parentPlot()->viewport();
        if (axis->orientation() == Qt::Horizontal ? r.left() < viewport.left() || r.right() > viewport.right()
                                                  : r.top() < viewport.top() || r.bottom() > viewport.bottom())
            continue;
        out.push_back({labels[i], r, bounds});
    }
    appendAxisLabel(axis, extent, bounds, out);
}

void appendLegend(const QCPLegend* legend, const QRect& bounds, ChartLabels& out)
{
    if (!legend || !legend->visible())
        return;
    for (int i = 0; i < legend->itemCount(); ++i) {
        const QCPAbstractLegendItem* item = legend->item(i);
        if (!item || !item->visible())
            continue;
        auto* p = qobject_cast<QCPPlottableLegendItem*>(const_cast<QCPAbstractLegendItem*>(item));
        out.push_back({p ? p->plottable()->name() : QString(), item->rect(), bounds});
    }
}

ChartLabels chartLabels(const QCustomPlot* plot)
{
    ChartLabels out;
    const QRect widget = plot->viewport();
    for (QCPAxisRect* ar : plot->axisRects())
        for (QCPAxis* axis : ar->axes())
            appendTickLabels(axis, widget, out);
    appendLegend(plot->legend, widget, out);
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
        if (auto* t = qobject_cast<QCPTextElement*>(e); t && t->visible() && !t->text().isEmpty())
            out.push_back({t->text(), textElementRect(t), widget});
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* t = qobject_cast<CachedTextItem*>(plot->item(i));
        if (!t || !t->visible() || t->skipped() || t->text().isEmpty())
            continue;
        const QRect bounds = t->clipToAxisRect() && t->clipAxisRect() ? t->clipAxisRect()->rect() : widget;
        out.push_back({t->text(), t->pixelBox(), bounds});
    }
    return out;
}

bool meetsAny(const QRect& r, const std::vector<QRect>& taken)
{
    return std::any_of(taken.begin(), taken.end(), [&](const QRect& t) { return t.intersects(r); });
}

bool placeLabel(CachedTextItem* item, const std::vector<LabelSpot>& spots, const QRect& bounds, const QFont& font,
                std::vector<QRect>& taken, double shrink, double floorPx)
{
    QFont smaller = font;
    smaller.setPixelSize(std::min(font.pixelSize(), qRound(std::max(floorPx, font.pixelSize() * shrink))));
    for (const QFont& f : {font, smaller}) {
        if (item->font() != f) // only on change: a new font re-renders the cached text
            item->setFont(f);
        for (const LabelSpot& s : spots) {
            item->setPositionAlignment(s.alignment);
            const QRect box = item->boxAt(s.anchor);
            if (bounds.contains(box) && !meetsAny(box, taken)) {
                item->position->setCoords(s.anchor);
                item->setSkipped(false);
                taken.push_back(box);
                return true;
            }
        }
    }
    item->setSkipped(true);
    return false;
}

bool placeOnOneOrTwoLines(CachedTextItem* item, const QString& text, qsizetype breakAt,
                          const std::vector<LabelSpot>& spots, const QRect& bounds, const QFont& font,
                          std::vector<QRect>& taken, double shrink, double floorPx)
{
    QString two;
    if (breakAt > 0 && breakAt < text.size() && text.at(breakAt) == QLatin1Char(' '))
        two = QString(text).replace(breakAt, 1, QLatin1Char('\n'));
    for (const QString& t : {text, two}) {
        if (t.isEmpty())
            break;
        if (item->text() != t) // only on change: a new text re-renders the cached text
            item->setText(t);
        if (placeLabel(item, spots, bounds, font, taken, shrink, floorPx))
            return true;
    }
    return false;
}

QStringList wrapLines(const QString& text, const QFont& font, int width, int maxLines, bool* elided)
{
    if (elided)
        *elided = false;
    QStringList lines;
    if (text.isEmpty() || maxLines <= 0)
        return lines;
    if (width <= 0)
        return {text}; // not laid out yet
    // A figure stays with its unit: "112 GB" broken as "(112" / "GB" read as two things on a slide. The space
    // between them does not break while the lines are laid out, and is given back in the lines.
    static const QRegularExpression figureAndUnit(
        QStringLiteral("(\\d) (B|[KMGTP]i?B|bytes?|tokens?|%|ms|µs|GPUs?)(?=\\W|$)"));
    QString bound = text;
    bound.replace(figureAndUnit, QStringLiteral("\\1\u00a0\\2"));
    auto unbound = [](QString line) { return line.replace(QChar(0x00a0), QLatin1Char(' ')); };
    QTextLayout layout(bound, font);
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        if (lines.size() == maxLines - 1) { // the last line there is room for: the rest of the text, elided
            const QString rest = unbound(bound.mid(line.textStart()).trimmed());
            lines << QFontMetrics(font).elidedText(rest, Qt::ElideRight, width);
            if (elided)
                *elided = lines.back() != rest;
            break;
        }
        lines << unbound(bound.mid(line.textStart(), line.textLength()).trimmed());
    }
    layout.endLayout();
    return lines;
}

} // namespace trainmem
