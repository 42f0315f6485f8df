#include "segmentkind.h"

namespace trainmem {

double segmentBytes(const Segments& g, SegmentKind k)
{
    return g.*termInfo(k).field;
}

void setSegmentBytes(Segments& g, SegmentKind k, double bytes)
{
    g.*termInfo(k).field = bytes;
}

std::string segmentKindName(SegmentKind k)
{
    return termInfo(k).name;
}

std::string segmentKindId(SegmentKind k)
{
    return termInfo(k).key;
}

Segments subtractSegments(const Segments& a, const Segments& b)
{
    Segments d;
    for (SegmentKind k : kAllSegmentKinds)
        setSegmentBytes(d, k, segmentBytes(a, k) - segmentBytes(b, k));
    return d;
}

} // namespace trainmem
