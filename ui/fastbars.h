#pragma once
// Stacked bars drawn as rectangles. QCPBars turns every bar segment into a polygon and QPainter
// rasterises it through its general polygon filler and path stroker; on screen, without
// antialiasing, a segment is an axis-aligned rectangle, which the raster engine fills and outlines
// with its rectangle fast paths. Files (pmNoCaching, pmVectorized), antialiasing and selections
// take QCPBars' own path.

#include <qcustomplot.h>

namespace trainmem {

class FastBars : public QCPBars
{
    Q_OBJECT
public:
    FastBars(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPBars(keyAxis, valueAxis) {}

protected:
    void draw(QCPPainter* painter) override;
};

} // namespace trainmem
