#pragma once
// The accounting: Scenario in, Breakdown out (docs/accounting.md). Pure functions, no I/O.

#include "activations.h"
#include "errors.h"
#include "gpu.h"
#include "params.h"
#include "recipe.h"
#include "scenario.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace trainmem {

/// \brief Memory of one GPU (or the whole model), by segment. Bytes. One field per memory term of
/// the table in core/memory/terms.cpp, which computes them and sums them by group.
struct Segments {
    double weights = 0;
    double gradients = 0;
    double master = 0;
    double optimizer = 0;
    double adapters = 0;       ///< LoRA/QLoRA adapters: their weights, gradients, master copy and optimizer state
    double activations = 0;    ///< the tape (training) or one layer's working set (inference)
    double kvCache = 0;        ///< inference only: the attention layers' keys and values
    double recurrentState = 0; ///< inference only: linear-attention layers' fixed-size states (issue 29 §2)
    double logits = 0;
    double workspace = 0;      ///< the largest transient matmul output and its gradient
    double framework = 0;      ///< CUDA context + framework
    double fragmentation = 0;  ///< allocator reserve
    double modelState() const; ///< the terms of group ModelState
    double overhead() const;   ///< the terms of group Overhead
    /// Every term, added in the table's order (terms.cpp checks that it gives what summing the table gives). Inline:
    /// the context chart's sweep compares some 600 totals per recompute.
    constexpr double total() const
    {
        return weights + gradients + master + optimizer + adapters + activations + kvCache + recurrentState + logits +
               workspace + framework + fragmentation;
    }
};
static_assert(sizeof(Segments) == 12 * sizeof(double), "Segments::total() adds every field: add a new one there");

/// \brief Bytes each GPU sends per optimizer step for each cut (ring collectives).
struct CommTax {
    double dataParallel = 0;     ///< gradient all-reduce, or ZeRO-3 all-gathers + reduce-scatter
    double tensorParallel = 0;   ///< 4 all-reduces of s·b·h per layer and micro-batch (Megatron)
    double pipelineParallel = 0; ///< activations forward, gradients backward at the stage boundary
    double expertParallel = 0;   ///< dispatch and combine all-to-alls, forward and backward
    double contextParallel = 0;  ///< ring attention's K/V blocks (forward, again in backward) and their gradients
    /// PCIe between the GPU and its host under offload (issue 9 §3): 16-bit gradients out and updated 16-bit weights
    /// back (optimizer), or the weights fetched for forward and backward (optimizer+params); both directions.
    double offload = 0;
    double total() const
    {
        return dataParallel + tensorParallel + pipelineParallel + expertParallel + contextParallel + offload;
    }
};

/// \brief Host (CPU) memory taken by offloaded model state (issue 9 §3), bytes: the offloadable terms only.
struct HostBytes {
    double weights = 0;   ///< the 16-bit weights' partition (optimizer+params)
    double gradients = 0; ///< fp32 gradients of the partition, for the CPU optimizer
    double master = 0;
    double optimizer = 0;
    double activations = 0; ///< the tape under activation offloading (issue 30 §2), but the layers in flight
    double adapters = 0;    ///< LoRA/QLoRA adapters' state under optimizer+params offload (FSDP CPUOffload)
    double total() const { return weights + gradients + master + optimizer + activations + adapters; }
};

/// \brief The parallel layout account() works with: the scenario's gpus/tp/pp/ep/ZeRO when
/// validateScenario() accepts them, else the nearest valid layout (withValidLayout()). Always
/// tp·pp·cp·dp = gpus and etp·ep·pp·dpExpert = gpus (Megatron-LM folds cp into the expert grid).
struct ParallelLayout {
    int64_t gpus = 1, tp = 1, pp = 1, ep = 1, dp = 1, dpExpert = 1;
    int64_t cp = 1; ///< context parallel
    /// Ranks that hold the same dense weights: data × context parallel. Gradients are reduced and ZeRO
    /// shards over them (Megatron-LM's data-parallel group with_context_parallel=True).
    int64_t replicas() const { return dp * cp; }
    int64_t vpp = 1; ///< virtual pipeline stages per GPU
    int64_t etp = 1; ///< expert tensor parallel (tp unless set)
    int zero = 0;
    PipelineSplit split; ///< uneven stages, where they fit this layout (else the even split)
    /// Transformer layers on pipeline stage i (layersOnStage of the split).
    int64_t stageLayers(int64_t layers, int64_t i) const { return layersOnStage(split, layers, pp, i); }
    /// The most layers any stage holds.
    int64_t maxStageLayers(int64_t layers) const;
};

/// \brief Which pipeline stage a view describes (issue 13): the first holds the input embedding
/// and the most micro-batches in flight, the last the output head and the logits, a middle stage
/// only layers; Only is the whole model (pp = 1). Middle stands for stages 1 … p−2 and is stage 1,
/// the busiest of them (it keeps the most micro-batches in flight).
enum class PipelineStage { Only, First, Middle, Last };
const char* toString(PipelineStage s);

/// \brief One pipeline stage's memory per GPU.
struct StageMemory {
    PipelineStage stage = PipelineStage::Only;
    int64_t index = 0; ///< 0-based stage number
    double layers = 0;
    double inflight = 1; ///< micro-batches in flight
    Segments bytes;
};
/// \brief One kind of rank of the layout (issue 13's per-rank grid): a pipeline stage, or a run of middle stages
/// whose GPUs hold the same bytes. Every rank of a stage holds the same share of every layer (tensor, context and
/// data parallel split it evenly, and each expert-parallel rank holds E/ep of every MoE layer's experts), so the
/// stage is what tells ranks apart.
struct RankKind {
    PipelineStage stage = PipelineStage::Only; ///< of firstStage
    int64_t firstStage = 0, lastStage = 0;     ///< 0-based, inclusive
    int64_t gpus = 1;                          ///< GPUs of this kind: stages × tp·cp·dp
    double layers = 0;                         ///< per stage
    double inflight = 1;                       ///< micro-batches whose tape firstStage holds
    Segments bytes;                            ///< one GPU of any stage of the run
    bool busiest = false;                      ///< the largest total: Breakdown::perGpu
    bool merged =
        false; ///< groupRankKinds() joined kinds whose bytes differ: these are firstStage's, the run's largest
};

/// \brief Everything the charts, the verdict and --json show.
struct Breakdown {
    ResolvedModel model;
    StateRecipe recipe;         ///< training recipe (inference: weights only)
    double bytesPerParam = 0;   ///< model state per parameter
    double modelStateBytes = 0; ///< whole model, unsharded
    Segments singleGpu;         ///< the same scenario on one GPU with no parallelism
    Segments perGpu;            ///< after sharding
    LayerActivations layer;     ///< one layer's tape (the largest layer kind), per GPU
    ParallelLayout layout;      ///< the layout used (--json's `parallel`)
    int64_t dataParallel = 1;
    int64_t layersPerStage = 0;
    bool lastStageIsPeak = true;     ///< perGpu is the last stage (or the only one)
    std::vector<StageMemory> stages; ///< each distinct pipeline stage (issue 13): perGpu is the busiest
    size_t busiestStage = 0;         ///< index into stages
    double gatheredLayerBytes = 0; ///< part of perGpu.workspace: the layer ZeRO-3 all-gathers whole (0 without ZeRO-3)
    double gpuMemoryBytes = 0;
    bool fits = false;
    int64_t minGpusForModelState = 1; ///< ⌈model state / one GPU⌉, the chapter's count
    int64_t minGpusToFit = 0;         ///< with ZeRO-3 at this tp/pp; 0 = never (activations alone exceed)
    CommTax tax;
    HostBytes perGpuHost;       ///< what one GPU's offloaded state takes in its host's memory (the busiest stage's)
    HostBytes perNodeHost;      ///< a node's host memory: perGpuHost × the GPUs on one node
    int64_t gpusOnNode = 1;     ///< min(gpus, gpus_per_node)
    double hostMemoryBytes = 0; ///< the catalog's host memory per node (0: unknown, not checked)
    bool hostFits = true;       ///< perNodeHost fits hostMemoryBytes (true when unknown)
    FieldErrors warnings;       ///< adjustments made to a layout validateScenario() refuses
};

ParallelLayout parallelLayout(const Scenario& s, const ResolvedModel& m, FieldErrors* warnings = nullptr);
/// \brief What the activation terms need from a scenario, on `tp` tensor-parallel and `cp` context-parallel ranks.
ActivationInputs activationInputs(const Scenario& s, double tp, double cp = 1);

/// \brief Bytes one GPU sends for one layer and micro-batch of ring attention under context parallel
/// `in.cp` (0 without): its K and V blocks c − 1 times forward, again backward, and their gradients.
double ringAttentionLayerBytes(const Architecture& a, const ActivationInputs& in, double tp);

/// \brief Every distinct rank kind of the scenario's layout, stage 0 first; exactly one is busiest, and its bytes
/// are account()'s perGpu. Evaluates every pipeline stage: for --json and the ranks chart, not the live path.
std::vector<RankKind> rankKinds(const ResolvedModel& m, const Scenario& s);

/// \brief `ranks` with runs of middle kinds joined until at most `maxKinds` remain (a chart's columns). A joined kind
/// keeps its first stage's bytes, the largest of its run (1F1B's tapes fall with the stage index); first, last and
/// the busiest stay visible.
std::vector<RankKind> groupRankKinds(const std::vector<RankKind>& ranks, size_t maxKinds);

/// \brief The full accounting of one scenario on one GPU type.
Breakdown account(const Scenario& s, const GpuSpec& gpu);
/// \brief The same with the model already resolved (the sweep's fast path).
Breakdown account(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu);

/// \brief Breakdown::minGpusToFit on its own, and why it is 0.
struct GpusToFit {
    int64_t gpus = 0; ///< Breakdown::minGpusToFit: 0 = never, or more than kMaxGpus
    /// Training: the working set alone (activations, logits, workspace, the gathered layer) exceeds one GPU,
    /// so no count fits. Serving: no split up to kMaxGpus fits.
    bool never = false;
};

/// \brief Breakdown::minGpusToFit of `s` with model `m`, from the same terms and search as account() but
/// without the one-GPU view, the stage list, the tax and the host view: the fit map's cell (core/memory/fitmap.h).
GpusToFit gpusToFit(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu);

/// \brief Memory per GPU against context length for every checkpointing mode.
struct ContextSweep {
    std::vector<double> seq;                              ///< 512 … 1M, `pointsPerOctave` per doubling
    std::array<std::vector<double>, 3> totalPerGpu;       ///< indexed by Checkpointing
    std::array<std::vector<double>, 3> activationsPerGpu; ///< tape + logits + KV
    /// The scenario's own curve when it checkpoints per op (torchtitan's SelectiveAC), which the three do not show:
    /// total and tape + logits + KV at every context; empty under the other modes.
    std::vector<double> perOpTotalPerGpu;
    std::vector<double> perOpActivationsPerGpu;
    double modelStatePerGpu = 0; ///< the floor
    double capacity = 0;
    /// Context where activations (tape + logits) pass model state, for the scenario's mode.
    std::optional<double> crossoverSeq;
    /// Smallest context at which the scenario's mode no longer fits.
    std::optional<double> diesFromSeq;
};

inline constexpr double kSweepMinSeq = 512;
inline constexpr double kSweepMaxSeq = 1048576;

/// \brief The curves of the sequence-length chart.
ContextSweep sweepContext(const Scenario& s, const GpuSpec& gpu, int pointsPerOctave = 4);

/// \brief Semantic checks after parsing and overrides: ranges and divisibility.
FieldErrors validateScenario(const Scenario& s, const std::string& where);
/// \brief What needs a host (issue 30 §2, "Bad input"): a paged optimizer and activation offloading, refused on a GPU
/// whose catalog entry gives no host memory, naming both.
FieldErrors validateHost(const Scenario& s, const GpuSpec& gpu, const std::string& where);

} // namespace trainmem
