#include "fastbars.h"

#include "cachedtext.h"

#include <cmath>

namespace trainmem {

void FastBars::draw(QCPPainter* painter)
{
    if (!mKeyAxis || !mValueAxis || mDataContainer->isEmpty())
        return;
    applyDefaultAntialiasingHint(painter);
    if (drawsForExport(painter) || painter->antialiasing() || !selection().isEmpty()) {
        QCPBars::draw(painter);
        return;
    }
    QCPBarsDataContainer::const_iterator begin, end;
    getVisibleDataBounds(begin, end);
    painter->setBrush(mBrush);
    painter->setPen(mPen);
    for (auto it = begin; it != end; ++it) {
        const QRectF r = getBarRect(it->key, it->value);
        if (std::isfinite(r.left()) && std::isfinite(r.top()) && std::isfinite(r.width()) && std::isfinite(r.height()))
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
