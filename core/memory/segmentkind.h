#pragma once
// The memory segments of a Segments value by name, so the teaching features (tour, drill-down,
// ladder, fixes) can talk about one segment at a time. Every answer is read from the table of
// terms (core/memory/terms.h), where SegmentKind and kAllSegmentKinds are defined.

#include "terms.h"

#include <string>

namespace trainmem {

/// \brief The bytes of one segment.
double segmentBytes(const Segments& g, SegmentKind k);
/// \brief Sets the bytes of one segment.
void setSegmentBytes(Segments& g, SegmentKind k, double bytes);
/// \brief English display name ("Optimizer state"); the UI translates its own.
std::string segmentKindName(SegmentKind k);
/// \brief Stable identifier ("optimizer"), as in the --json document.
std::string segmentKindId(SegmentKind k);
/// \brief Segment-wise a − b.
Segments subtractSegments(const Segments& a, const Segments& b);

} // namespace trainmem
