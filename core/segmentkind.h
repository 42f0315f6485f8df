#pragma once
// The ten memory segments of a Segments value, named, so the teaching features (tour, drill-down,
// ladder, fixes) can talk about one segment at a time.

#include "accounting.h"

#include <array>
#include <string>

namespace trainmem {

/// \brief One segment of a Segments value, in the order the bars stack them.
enum class SegmentKind {
    Weights, Gradients, Master, Optimizer, Activations, KvCache, Logits, Workspace, Framework, Fragmentation
};

/// \brief Every segment, bottom to top.
inline constexpr std::array<SegmentKind, 10> kAllSegmentKinds{
    SegmentKind::Weights,     SegmentKind::Gradients, SegmentKind::Master, SegmentKind::Optimizer,
    SegmentKind::Activations, SegmentKind::KvCache,   SegmentKind::Logits, SegmentKind::Workspace,
    SegmentKind::Framework,   SegmentKind::Fragmentation};

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

}  // namespace trainmem
