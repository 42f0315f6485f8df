#pragma once
// Stacked bars drawn as rectangles. QCPBars turns every bar segment into a polygon and QPainter
// rasterises it through its general polygon filler and path stroker; on screen, without
// antialiasing, a segment is an axis-aligned rectangle, which the raster engine fills and outlines
// with its rectangle fast paths. Files (pmNoCaching, pmVectorized), antialiasing and selections
// take QCPBars' own path.

#include "charttheme.h"

#include <qcustomplot.h>

#include <array>

namespace trainmem {

class FastBars : public QCPBars
{
    Q_OBJECT
public:
    FastBars(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPBars(keyAxis, valueAxis) {}

protected:
    void draw(QCPPainter* painter) override;
};

/// One FastBars per memory segment on `plot`'s axes, stacked in segment order (weights at the
/// bottom), each named and coloured for its segment, `width` wide. Pens are the caller's.
std::array<QCPBars*, kSegmentCount> addSegmentBars(QCustomPlot* plot, double width);
/// The same on the axes `key` and `value` (another axis rect of the plot: an inset).
std::array<QCPBars*, kSegmentCount> addSegmentBars(QCPAxis* key, QCPAxis* value, double width);

} // namespace trainmem
