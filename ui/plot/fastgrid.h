#pragma once
// Grid lines drawn as one-pixel fills. QCPGrid draws each line through QPainter::drawLine, which
// rasterises a one-pixel pen pixel by pixel and, for the dotted sub-grid of a log axis, tests the
// dash pattern at every pixel: about a sixth of a live chart paint. On screen (no antialiasing,
// axis-aligned, width ≤ 1) a solid line is a 1-px rectangle fill (half the time of drawLine for a
// vertical one, a thirtieth for a horizontal one) and a dotted one a prepared strip of dots
// (a twentieth of a dotted drawLine). Files (QCPPainter::pmNoCaching or pmVectorized)
// and any other pen get QPainter lines, as QCPGrid draws them.
//
// The axis's QCPGrid stays the holder of the settings (visible, pens, sub-grid): LivePlot moves it
// to a hidden layer and puts a FastGrid, which reads those settings, on the "grid" layer instead.

#include <qcustomplot.h>

namespace trainmem {

class FastGrid : public QCPLayerable
{
    Q_OBJECT
public:
    explicit FastGrid(QCPAxis* axis);

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override;
    QRect clipRect() const override;
    void draw(QCPPainter* painter) override;

private:
    void drawLines(QCPPainter* painter, const QVector<double>& coords, const QPen& pen, bool antialiased,
                   QCP::AntialiasedElement element);

    const QImage& dots(const QColor& color, const QSize& size, bool vertical);

    QCPAxis* m_axis;
    QImage m_dots;
    QColor m_dotsColor;
};

} // namespace trainmem
