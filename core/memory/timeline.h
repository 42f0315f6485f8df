#pragma once
// One training step as a film (issue 11 §1): the busiest GPU's memory over time, segment by segment,
// through the forward pass layer by layer, the loss, the backward pass (freeing the tape, writing the
// gradients, rebuilding what checkpointing dropped), the gradient collective and the optimizer step.
// Built from the same terms as the bars (core/memory/terms.cpp): each moment holds the terms that are alive
// then, so the film's peak is the bars' total wherever every term is alive at once, and below or above
// it by named terms otherwise (docs/accounting.md, "One training step").

#include "accounting.h"
#include "terms.h"

#include <string>
#include <vector>

namespace trainmem {

/// \brief What happens in a phase of the step.
enum class StepPhaseKind {
    Forward,      ///< layers' forward passes (prefill when serving)
    Loss,         ///< the output head, the logits and the loss (with its backward)
    Backward,     ///< layers' backward passes, freeing their tapes and writing gradients
    GradientSync, ///< all-reduce or reduce-scatter of the gradients over the data-parallel ranks
    Optimizer,    ///< the optimizer step: master weights and optimizer state read and written
    WeightGather, ///< ZeRO-1/2: the updated weights all-gathered
    OffloadOut,   ///< ZeRO-Offload: gradients to host memory over PCIe
    OffloadIn,    ///< ZeRO-Offload: updated weights back from host memory
};
const char* toString(StepPhaseKind k);

/// \brief A stretch of time with constant memory.
struct TimelineSample {
    double start = 0, end = 0;             ///< in forward-passes-of-one-layer (the x axis is schematic)
    size_t phase = 0;                      ///< index into StepTimeline::phases
    Segments bytes;                        ///< every term alive now; activations include `recompute`
    double recompute = 0;                  ///< the part of bytes.activations that the backward pass rebuilt
    double gradientsWritten = 0;           ///< the part of bytes.gradients already written this step (the rest waits)
    int64_t firstLayer = 0, lastLayer = 0; ///< 1-based model layers computed here (0: none)
    int64_t microBatch = 0;                ///< 1-based, 0 outside the passes
    double total() const { return bytes.total(); }
};

/// \brief A named phase: "forward", "backward", "optimizer step (AdamW)".
struct TimelinePhase {
    StepPhaseKind kind = StepPhaseKind::Forward;
    std::string name;
    double start = 0, end = 0;
    double peakBytes = 0;
    int64_t microBatch = 0; ///< 1-based under a pipeline's 1F1B schedule; 0 for one micro-batch or none
};

/// \brief A term whose bytes at the film's peak are not the bars' (the bars add each term at its largest).
struct TimelineDifference {
    SegmentKind term = SegmentKind::Activations;
    double barsBytes = 0;
    double atPeakBytes = 0;
    std::string reason;
};

/// \brief The film of one step on the busiest GPU (Breakdown::perGpu's stage).
struct StepTimeline {
    bool training = true;
    PipelineStage stage = PipelineStage::Only;
    int64_t stageIndex = 0;
    int64_t layers = 0;           ///< layers on this stage
    int64_t microBatches = 1;     ///< micro-batches drawn: those whose tapes the stage holds at once
    int64_t stepMicroBatches = 1; ///< the scenario's micro-batches per step (gradient accumulation)
    int64_t layersPerSample = 1;  ///< > 1 when a deep stage is drawn a group of layers at a time
    std::vector<TimelinePhase> phases;
    std::vector<TimelineSample> samples;
    double duration = 0;
    size_t peakSample = 0; ///< the first sample with the largest total
    double peakBytes = 0;
    std::string peakWhere; ///< "backward of layer 32", "the loss (logits)"
    double barsTotal = 0;  ///< Breakdown::perGpu.total()
    double capacity = 0;   ///< the GPU's memory
    std::vector<TimelineDifference> differences;
};

/// \brief The film of scenario `s` with model `m` and its breakdown `b` (account(m, s, gpu)).
StepTimeline stepTimeline(const ResolvedModel& m, const Scenario& s, const Breakdown& b);
/// \brief The same, accounting the scenario first.
StepTimeline stepTimeline(const Scenario& s, const GpuSpec& gpu);

/// \brief Whether the run's framework frees the gradients after each optimizer step (torchtune's recipes:
/// zero_grad(set_to_none=True)), so that the film draws them only as the backward writes them.
bool gradientsFreedEachStep(const Scenario& s);

/// \brief The bytes behind the figures PyTorch's tools report (issue 30 §1), which are peaks over the step. Under a
/// framework whose order of frees the film follows from its code (torchtune: del logits before backward,
/// zero_grad(set_to_none=True)), the film's peak moment; otherwise the bars, each term at its largest, which no moment
/// exceeds.
/// The device's view (nvidia-smi) stays the bars' total, never below the moment's.
struct ToolsView {
    Segments bytes;        ///< the moment's terms (the bars when !fromFilm)
    double device = 0;     ///< the device's view: the bars' total, or the moment's where it is larger
    bool fromFilm = false; ///< the film's peak moment
    std::string where;     ///< the film's peak, "the loss (logits)" (empty for the bars)
};
/// \brief The view of `s` with breakdown `b`; `film`, when given, is stepTimeline(b.model, s, b) already made.
ToolsView toolsView(const Scenario& s, const Breakdown& b, const StepTimeline* film = nullptr);

/// \brief The phase whose name a tour step plays: the first of kind `k`, or phases.size().
size_t firstPhaseOf(const StepTimeline& t, StepPhaseKind k);

} // namespace trainmem
