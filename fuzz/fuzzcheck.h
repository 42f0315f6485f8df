#pragma once
// The invariants the fuzz targets share: a failed check aborts, which libFuzzer reports with the input.

#include "accounting.h"
#include "segmentkind.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace fuzzcheck {

inline void require(bool ok)
{
    if (!ok)
        std::abort();
}

inline void requireBytes(double v)
{
    require(std::isfinite(v) && v >= 0);
}

/// Every segment finite and non-negative, read through the core's one segment list, and the total
/// their sum.
inline void checkSegments(const trainmem::Segments& g)
{
    double sum = 0;
    for (trainmem::SegmentKind k : trainmem::kAllSegmentKinds) {
        const double v = trainmem::segmentBytes(g, k);
        requireBytes(v);
        sum += v;
    }
    require(std::fabs(g.total() - sum) <= 1e-9 * std::max(1.0, sum));
}

} // namespace fuzzcheck
