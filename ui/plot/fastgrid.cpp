#include "fastgrid.h"

#include "cachedtext.h"

#include <cmath>

namespace trainmem {
namespace {

bool onePixelLine(const QPen& pen)
{
    return pen.widthF() <= 1.0 && pen.brush().style() == Qt::SolidPattern &&
           (pen.style() == Qt::SolidLine || pen.style() == Qt::DotLine);
}

} // namespace

FastGrid::FastGrid(QCPAxis* axis)
    : QCPLayerable(axis->parentPlot(), QStringLiteral("grid"), axis->axisRect()), m_axis(axis)
{
}

void FastGrid::applyDefaultAntialiasingHint(QCPPainter* painter) const
{
    applyAntialiasingHint(painter, m_axis->grid()->antialiased(), QCP::aeGrid);
}

QRect FastGrid::clipRect() const
{
    return m_axis->axisRect()->rect();
}

void FastGrid::draw(QCPPainter* painter)
{
    const QCPGrid* grid = m_axis->grid();
    if (!grid->visible())
        return;
    if (grid->subGridVisible()) {
        // QCPAxis keeps its sub-ticks private; its ticker gives the same ones for the same range.
        QVector<double> ticks, subTicks;
        m_axis->ticker()->generate(m_axis->range(), m_axis->parentPlot()->locale(), QLatin1Char('g'), 6, ticks,
                                   &subTicks, nullptr);
        drawLines(painter, subTicks, grid->subGridPen(), grid->antialiasedSubGrid(), QCP::aeSubGrid);
    }
    drawLines(painter, m_axis->tickVector(), grid->pen(), grid->antialiased(), QCP::aeGrid);
}

void FastGrid::drawLines(QCPPainter* painter, const QVector<double>& coords, const QPen& pen, bool antialiased,
                         QCP::AntialiasedElement element)
{
    if (pen.style() == Qt::NoPen || coords.isEmpty())
        return;
    applyAntialiasingHint(painter, antialiased, element);
    const QRect r = m_axis->axisRect()->rect();
    const bool vertical = m_axis->orientation() == Qt::Horizontal; // an x axis has vertical grid lines
    // Lines where QCPGrid puts them: at the tick's pixel, from one side of the axis rect to the other.
    auto lineAt = [&](double px) {
        return vertical ? QLineF(px, r.bottom(), px, r.top()) : QLineF(r.left(), px, r.right(), px);
    };
    if (drawsForExport(painter) || painter->antialiasing() || !onePixelLine(pen)) {
        painter->setPen(pen);
        for (double c : coords) {
            const double px = m_axis->coordToPixel(c);
            if (std::isfinite(px))
                painter->drawLine(lineAt(px));
        }
        return;
    }
    const bool dotted = pen.style() == Qt::DotLine;
    const QBrush solid(pen.color());
    for (double c : coords) {
        const double px = m_axis->coordToPixel(c);
        if (!std::isfinite(px) || std::fabs(px) > 1e6)
            continue;
        const QLine l = lineAt(px).toLine(); // what a non-antialiased drawLine rounds to
        const QRect pixels = vertical ? QRect(l.x1(), std::min(l.y1(), l.y2()), 1, std::abs(l.y2() - l.y1()) + 1)
                                      : QRect(std::min(l.x1(), l.x2()), l.y1(), std::abs(l.x2() - l.x1()) + 1, 1);
        if (dotted)
            painter->drawImage(pixels.topLeft(), dots(pen.color(), pixels.size(), vertical));
        else
            painter->fillRect(pixels, solid);
    }
}

const QImage& FastGrid::dots(const QColor& color, const QSize& size, bool vertical)
{
    // Qt's DotLine for a one-pixel pen is one pixel on, two off, from where the line starts:
    // QCPGrid draws vertical lines bottom to top, horizontal ones left to right. A prepared strip
    // is one blend per line; a tiled dot brush costs as much as the dashed line itself.
    if (m_dots.size() != size || m_dotsColor != color) {
        m_dots = QImage(size, QImage::Format_ARGB32_Premultiplied);
        m_dots.fill(Qt::transparent);
        const int n = vertical ? size.height() : size.width();
        for (int i = 0; i < n; i += 3) {
            if (vertical)
                m_dots.setPixelColor(0, size.height() - 1 - i, color);
            else
                m_dots.setPixelColor(i, 0, color);
        }
        m_dotsColor = color;
    }
    return m_dots;
}

} // namespace trainmem
