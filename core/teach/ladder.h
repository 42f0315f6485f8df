#pragma once
// The scale-out ladder: one model, cut up one way more at each rung (docs/accounting.md, "Sharding and the tax": "every
// cut has a tax"): 1 GPU → data parallel with ZeRO-1 → ZeRO-2 → ZeRO-3 → + tensor parallel →
// (+ sequence parallel) → + pipeline parallel → (+ context parallel) → + expert parallel (MoE). Each rung is account()
// of a scenario, so the ladder shows exactly what the main chart would show for that layout.

#include "accounting.h"
#include "gpu.h"
#include "scenario.h"
#include "segmentkind.h"

#include <string>
#include <vector>

namespace trainmem {

/// \brief The degrees of each cut. Rung GPU counts are dataParallel, then ×tensorParallel,
/// then ×pipelineParallel; expert parallelism uses the data-parallel ranks (no new GPUs).
struct LadderOptions {
    int64_t dataParallel = 8;
    int64_t tensorParallel = 8;
    int64_t pipelineParallel = 4;
    int64_t expertParallel = 8;  ///< capped by the data-parallel degree and the expert count
    int64_t contextParallel = 1; ///< > 1 adds a "+ CP" rung after the pipeline one (GPUs × cp)
};

/// \brief The cuts, in ladder order.
/// Sequence (sequence parallel on the tensor-parallel GPUs) appears only when the scenario has it off,
/// Context only when LadderOptions::contextParallel > 1.
enum class LadderCut { SingleGpu, Zero1, Zero2, Zero3, Tensor, Sequence, Pipeline, Context, Expert };

/// \brief One rung: a layout, its memory per GPU, what the cut removed and what it costs.
struct LadderRung {
    LadderCut cut = LadderCut::SingleGpu;
    std::string label;       ///< "ZeRO-3 ×8"
    std::string description; ///< what this cut divides, in words
    Scenario scenario;       ///< the layout, ready for the main window
    Breakdown breakdown;
    Segments perGpu;                     ///< = breakdown.perGpu
    Segments removed;                    ///< previous rung's perGpu − this rung's, by segment (negative = grew)
    std::vector<SegmentKind> replicated; ///< segments every GPU of a data-parallel group holds whole
    double replicatedBytes = 0;          ///< their sum
    CommTax tax;                         ///< bytes each GPU sends per optimizer step
    double addedTax = 0; ///< tax.total() − previous rung's (can fall: a cut also shrinks what others send)
    double cutTax = 0;   ///< what this cut's own collective sends per GPU per step
    std::string taxText; ///< which collective this cut adds
    int64_t gpus = 1;
    bool fits = false;
};

/// \brief The ladder for the scenario's model and training setup on `gpu`.
/// The scenario's own hardware layout is ignored; each rung sets its own. The ladder is about
/// training, so an inference scenario is laddered in training mode.
std::vector<LadderRung> scaleOutLadder(const Scenario& s, const GpuSpec& gpu, const LadderOptions& options = {});

/// \brief The degrees for this scenario, so the ladder ends at the GPU count the verdict uses:
/// a multi-GPU training layout is laddered with its own dp, tp, pp, cp and ep (DeepSeek-V3: 128 × PP16 ×
/// EP64 on 2048); a single-GPU one with `defaults`, widened in data parallel until the last rung
/// has at least the GPUs the verdict says it needs (Breakdown::minGpusToFit). From 32k tokens a
/// single-GPU scenario also gets a context-parallel rung that leaves each GPU 8k tokens (at most ×16):
/// Llama 3 405B's 128k-context stage ran CP 16 (Dubey et al. 2024, Table 4).
LadderOptions ladderOptionsFor(const Scenario& s, const GpuSpec& gpu, const LadderOptions& defaults = {});

/// \brief "ZeRO-1", "+ tensor parallel" …
std::string ladderCutName(LadderCut c);

} // namespace trainmem
