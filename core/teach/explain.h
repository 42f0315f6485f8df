#pragma once
// Formula drill-down: each memory segment and each sequence-length curve as its formula, the same
// formula with the scenario's numbers substituted, the result, its assumptions and its source.
// Each segment is its term's own function (core/memory/terms.cpp) evaluated with the text evaluator, so
// the formula shown is the expression account() evaluates (tests/core/teach/tst_explain.cpp checks the values).

#include "accounting.h"
#include "gpu.h"
#include "scenario.h"
#include "segmentkind.h"

#include <string>
#include <vector>

namespace trainmem {

/// \brief One formula, explained.
struct Explanation {
    std::string title;       ///< "Activations (no checkpointing)"
    std::string formula;     ///< symbolic: "s·b·h·(34 + 5·a·s/h) × L"
    std::string substituted; ///< the same with numbers: "2048·1·12288·(34 + 5·96·2048/12288) × 96"
    std::string result;      ///< formatted: "1.03 TB"
    double value = 0;        ///< bytes, evaluated from the formula above
    std::string assumptions; ///< what the formula takes for granted
    std::string source;      ///< paper, section, or file
};

/// \brief The curves of the sequence-length chart.
/// The sequence-length chart's curves and lines; PerOp is drawn only when the scenario checkpoints per op.
enum class CurveKind { NoCheckpointing, Selective, Full, ModelStateFloor, Capacity, PerOp };
/// \brief The checkpointing mode of a mode's curve (ModelStateFloor and Capacity have none: the scenario's own).
Checkpointing curveMode(CurveKind c, Checkpointing own);

/// \brief Explains one per-GPU segment of `b`, which must be account(s, gpu).
Explanation explainSegment(SegmentKind k, const Scenario& s, const Breakdown& b);
/// \brief Explains every segment, in kAllSegmentKinds order.
std::vector<Explanation> explainSegments(const Scenario& s, const Breakdown& b);
/// \brief Explains one curve of the sequence-length chart at the scenario's own context length.
Explanation explainCurve(CurveKind c, const Scenario& s, const GpuSpec& gpu);

/// \brief "2.00 GB" style result text for any explanation value.
std::string explainResult(double bytes);

} // namespace trainmem
