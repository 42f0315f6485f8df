#include "fastbars.h"

#include "cachedtext.h"

#include <cmath>

namespace trainmem {

void FastBars::draw(QCPPainter* painter)
{
    if (!mKeyAxis || !mValueAxis || mDataContainer->isEmpty())
        return;
    applyDefaultAntialiasingHint(painter);
    if (!selection().isEmpty()) {
        QCPBars::draw(painter);
        return;
    }
    // A segment a bar does not have (0 bytes) is not drawn: QCPBars draws it as a line of its pen, and a tour
    // step's thick outline of an added segment then crossed the top of a bar that gained nothing (issue 31 §2).
    // Files and antialiased painters get QCPBars' own polygons, the screen plain rectangles.
    const bool polygons = drawsForExport(painter) || painter->antialiasing();
    QCPBarsDataContainer::const_iterator begin, end;
    getVisibleDataBounds(begin, end);
    painter->setBrush(mBrush);
    painter->setPen(mPen);
    for (auto it = begin; it != end; ++it) {
        if (it->value == 0)
            continue;
        const QRectF r = getBarRect(it->key, it->value);
        if (!std::isfinite(r.left()) || !std::isfinite(r.top()) || !std::isfinite(r.width()) ||
            !std::isfinite(r.height()))
            continue;
        if (polygons)
            painter->drawPolygon(r);
        else
            painter->drawRect(r);
    }
}

std::array<QCPBars*, kSegmentCount> addSegmentBars(QCustomPlot* plot, double width)
{
    return addSegmentBars(plot->xAxis, plot->yAxis, width);
}

std::array<QCPBars*, kSegmentCount> addSegmentBars(QCPAxis* key, QCPAxis* value, double width)
{
    std::array<QCPBars*, kSegmentCount> bars{};
    QCPBars* below = nullptr;
    for (int i = 0; i < kSegmentCount; ++i) {
        const auto seg = static_cast<SegmentKind>(i);
        auto* b = new FastBars(key, value);
        b->setName(segmentName(seg));
        b->setWidth(width);
        b->setBrush(ChartTheme::segmentColor(seg));
        if (below)
            b->moveAbove(below);
        below = b;
        bars[static_cast<size_t>(i)] = b;
    }
    return bars;
}

} // namespace trainmem
