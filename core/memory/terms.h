#pragma once
// The memory terms: one table (core/memory/terms.cpp), one row per term, read by account(), the formula
// drill-down, --json, --text, the legend, the chart colours and the ladder. Each row names ONE
// function that computes the term's bytes and, evaluated with TextExpr instead of NumExpr, prints
// its formula with the numbers substituted (core/memory/expr.h): the value drawn and the formula shown
// come from the same expression. CONTRIBUTING.md "How to add a memory term" lists the files.

#include "accounting.h"
#include "expr.h"
#include "lora.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainmem {

/// \brief One memory term (a segment of a Segments value), in the order the bars stack them.
/// The order is the table's (core/memory/terms.cpp); the fragmentation reserve, a share of all the
/// others, stays last.
enum class SegmentKind {
    Weights,
    Gradients,
    Master,
    Optimizer,
    Adapters,
    Activations,
    KvCache,
    RecurrentState,
    Logits,
    Workspace,
    Framework,
    Fragmentation
};
inline constexpr size_t kTermCount = static_cast<size_t>(SegmentKind::Fragmentation) + 1;

/// \brief Every term, bottom of the stack to top.
inline constexpr std::array<SegmentKind, kTermCount> kAllSegmentKinds = [] {
    std::array<SegmentKind, kTermCount> all{};
    for (size_t i = 0; i < kTermCount; ++i)
        all[i] = static_cast<SegmentKind>(i);
    return all;
}();

/// \brief Which subtotal a term belongs to.
enum class TermGroup {
    ModelState, ///< scales with parameters: Segments::modelState()
    Working,    ///< scales with the tokens in flight (activations, KV cache, logits, workspace)
    Overhead,   ///< fixed or proportional reserves: Segments::overhead()
};

/// \brief What every term function reads: one view (one GPU, or the peak GPU after sharding) of
/// one scenario, with the layout, recipe and per-layer tapes worked out once.
struct TermContext {
    const Scenario* scenario = nullptr;
    const ResolvedModel* model = nullptr;
    ParallelLayout layout; ///< all ones for the one-GPU view
    bool training = true;
    StateRecipe recipe;                 ///< training recipe, or the serving weights only (LoRA: the frozen base's)
    FineTune fineTune = FineTune::Full; ///< Full unless training with adapters
    StateRecipe adapterRecipe;          ///< the adapters' training recipe (LoRA, QLoRA)
    LinearCount adapterParams;          ///< trainable adapter parameters (LoRA, QLoRA)
    LinearCount quantized;              ///< base weights stored in NF4 (QLoRA), or in the serving format
    double quantConstantBytes = 0;      ///< serving: the quantised linears' per-row and per-tensor constants
    ActivationInputs in;                ///< at this view's tensor-parallel split
    double layers = 1;                  ///< L ≥ 1
    PipelineStage stage = PipelineStage::Only; ///< the stage this view describes (placeOnStage)
    int64_t stageIndex = 0;                    ///< 0, 1 or p−1
    double stageLayers = 1;                    ///< layers on a pipeline stage, ⌈L/p⌉ (L on one GPU)
    double inflight = 1;                       ///< micro-batches whose tape this stage holds (1F1B: p − index)
    double inputEmbedding = 0;                 ///< parameters of the token (+ position) embedding
    double outputHead = 0; ///< parameters of the output head (the tied embedding's copy with pp > 1)
    /// Multi-token prediction (full training only): its modules, their parameters (routed experts among
    /// them) and tapes, on the stage that holds the head.
    double mtpLayers = 0, mtpParams = 0, mtpRouted = 0;
    /// A multimodal wrapper's vision tower and projector (ParamCount::vision): weights in every mode, on the stage
    /// that holds the input embedding it feeds; the recipe decides the rest (frozen under LoRA/QLoRA).
    double vision = 0;
    int64_t mtpStage = -1; ///< the pipeline rank a layout puts the MTP layers on; -1: the head's (get_mtp_ranks)
    bool holdsMtp() const { return mtpLayers > 0 && (mtpStage < 0 ? holdsHead() : stageIndex == mtpStage); }
    bool holdsEmbedding() const { return stage == PipelineStage::Only || stage == PipelineStage::First; }
    bool holdsHead() const { return stage == PipelineStage::Only || stage == PipelineStage::Last; }
    double denseLayers = 0, moeLayers = 0;
    LayerActivations dense, moe;         ///< one layer's tape at the scenario's checkpointing
    LayerActivations denseNone, moeNone; ///< the same without checkpointing (full's recompute, serving)
    /// A model of several layer kinds (issue 29 §2; Architecture::kinds): the layers of each kind, indexed by
    /// LayerKind, and one layer's tape of each at the scenario's checkpointing, its FFN part the average over the
    /// model's dense and MoE layers. `dense`, `moe` and their `None` tapes are then the largest kind's layer.
    bool mixedKinds = false;
    std::array<double, kLayerKindCount> kindLayers{};
    std::array<LayerActivations, kLayerKindCount> kindTape{};
    /// Of the full and the sliding layers, those that reuse an earlier layer's K and V (LayerKinds::kvSharedFull,
    /// kvSharedSliding): no KV cache of their own.
    std::array<double, 2> kvShared{};
    Segments bytes; ///< terms evaluated so far, in table order (the reserve reads them)
    /// What this view offloads to host memory (issue 9 §3): the scenario's offload where its ZeRO stage allows
    /// it (optimizer from ZeRO-1, params at ZeRO-3), None for serving and the one-GPU view.
    Offload offload = Offload::None;
    /// The host view: the model-state terms give the bytes this GPU's host holds for it (hostTerms()).
    bool host = false;
    /// Issue 30 §2's recipes, as the scenario runs them (training only): the tape offloaded to host memory but the
    /// layers in flight; the optimizer state paged out to host memory.
    bool offloadActivations = false;
    bool pagedOptimizer = false;
    /// ZeRO-3 all-gathers the layer being computed: over more than one rank, or from host memory when the
    /// parameters are offloaded.
    bool gathersLayer() const;

    /// The layer kind whose tape is largest without checkpointing (what serving and full
    /// recomputation hold at once).
    const LayerActivations& largestNone() const;
    /// The layer the drill-down and --json show (Breakdown::layer).
    const LayerActivations& shownLayer() const;
};

/// \brief One row of the table.
struct TermInfo {
    SegmentKind id;
    const char* key;   ///< JSON key under per_gpu_bytes ("master_weights")
    const char* name;  ///< display name ("Master weights (fp32)"); ui/ translates it
    const char* label; ///< the --text line's label ("master weights")
    const char* hint;  ///< one sentence for hover text
    TermGroup group;
    uint32_t colour;   ///< 0xRRGGBB, the same on every bar, curve and slide
    bool textWhenZero; ///< --text prints the line even when it is 0 B
    double Segments::*field;
    NumExpr (*bytes)(const TermContext&, TermNotes<NumExpr>&);
    TextExpr (*explain)(const TermContext&, TermNotes<TextExpr>&);
    const char* frozenName = nullptr;  ///< the name when LoRA/QLoRA freezes what the term holds
    const char* frozenLabel = nullptr; ///< the --text label then
};

/// \brief The table row of `k`.
const TermInfo& termInfo(SegmentKind k);

/// \brief The display name of `k` in scenario `s` ("Base weights (frozen)" under LoRA).
const char* termName(SegmentKind k, const Scenario& s);
/// \brief The --text label of `k` in scenario `s`.
const char* termLabel(SegmentKind k, const Scenario& s);

/// \brief The context of one view: `layout` as parallelLayout() gives it, or ParallelLayout{} for one GPU.
TermContext termContext(const ResolvedModel& m, const Scenario& s, const ParallelLayout& layout);
/// \brief Evaluates every term of the table, numbers only, into `c.bytes`, and returns them.
const Segments& evaluateTerms(TermContext& c);

/// \brief What a view's terms read of the tokens: the activation inputs and the per-layer tapes. A scenario that
/// differs from the view's own only in context length, micro-batch or checkpointing has other tapes and the same
/// everything else (the context sweep's points).
struct Tapes {
    ActivationInputs in;
    bool offloadActivations = false;
    LayerActivations dense, moe, denseNone, moeNone;
    std::array<LayerActivations, kLayerKindCount> kindTape{};
    /// Of the full and the sliding layers, those that reuse an earlier layer's K and V (LayerKinds::kvSharedFull,
    /// kvSharedSliding): no KV cache of their own.
    std::array<double, 2> kvShared{};
};
/// \brief The tapes of scenario `s` in the view `c` (its layout, its layer counts and kinds).
Tapes tapesFor(const TermContext& c, const Scenario& s);
/// \brief Gives the view `s`'s tapes; `s` must outlive the view. c.bytes keeps what was evaluated before.
void useTapes(TermContext& c, const Tapes& t, const Scenario& s);
/// \brief Evaluates only the terms outside the model state (TermGroup::Working and Overhead) into `c.bytes`, keeping
/// the model-state terms from an earlier evaluateTerms(c): none of them reads the tapes, so after useTapes() this
/// gives what evaluateTerms() would.
const Segments& evaluateTokenTerms(TermContext& c);

/// \brief Tapes rank i of a p-stage pipeline holds at once, in micro-batches of its n layers, with
/// m micro-batches per step and v virtual stages (1F1B: min(p − i, m)).
double microBatchesInFlight(int64_t p, int64_t i, int64_t m, int64_t v);
/// \brief The same when rank i's v model chunks hold different layers (`chunks`: a pipeline layout, or an uneven
/// split with a virtual pipeline): the peak of the layers whose tapes Megatron-LM's interleaved schedule holds,
/// over the rank's layers.
double microBatchesInFlight(const std::vector<int64_t>& chunks, int64_t p, int64_t i, int64_t m);
/// \brief Moves the view to `stage` of its pipeline (Only when pp = 1).
void placeOnStage(TermContext& c, PipelineStage stage);
/// \brief Moves the view to stage `index` (0 … p−1) of its pipeline, with that stage's micro-batches in flight.
void placeOnStageIndex(TermContext& c, int64_t index);

/// \brief Every distinct stage of the view's pipeline, evaluated: Only for pp = 1; First and Last
/// for pp = 2; First, Middle and Last beyond.
std::vector<StageMemory> pipelineStages(const TermContext& c);
/// \brief The views pipelineStages() compares, each placed and evaluated, in its order: the only stage; or stage 0,
/// stage 1 (every middle rank 1 … p−2 when a layout gives each its own layers) and stage p−1.
std::vector<TermContext> stageViews(const TermContext& c);
/// \brief The stage with the largest total (the first of equals), the one the verdict is about.
size_t busiestStage(const std::vector<StageMemory>& stages);

/// \brief The bytes of the one layer ZeRO-3 all-gathers whole in this view (its weights, and in
/// backward its unsharded gradients), whether or not the view's layout uses ZeRO-3; the workspace
/// term adds it when it does.
double zero3GatheredLayer(const TermContext& c);
/// \brief The output head's weight gradient on view `c`, V·h·b_g/t, where full fine-tuning trains it; 0 otherwise.
double headGradientBytes(const TermContext& c);
/// \brief The part of view `c`'s adapters term that is their gradients (LoRA, QLoRA; 0 without adapters).
double adapterGradientsHeld(const TermContext& c);

/// \brief What the fragmentation reserve is a share of: every term but the framework and the reserve itself.
double reservedBytes(const Segments& g);

/// \brief PyTorch's caching allocator with expandable segments maps its segments in pages of 20 MiB (large pool)
/// and 2 MiB (small pool) (c10/cuda/CUDACachingAllocator.cpp at 001074d25084fdb87a799823e395a50f5ec044d3, Note
/// [Expandable Segments] and ExpandableSegment: "2MB for small pool, 20MB for large pool"): what it reserves beyond
/// what is allocated is at most the unused tail of the last page of each pool.
inline constexpr double kExpandableSegmentsReserve = 20.0 * 1048576 + 2.0 * 1048576;

/// \brief The allocator's reserve over `inUse` allocated bytes: at most kExpandableSegmentsReserve with
/// expandable segments (effectiveExpandableSegments()), else the fraction /hardware/fragmentation of them.
double allocatorReserve(const Scenario& s, double inUse);

/// \brief What wrapping a model loaded whole with FSDP1's flat parameters leaves in the caching allocator's cache
/// (/hardware/fsdp_flat_wrap, classic allocator; else 0): the blocks of one decoder layer's and of the root unit's
/// (embeddings and head) parameters and, when sharded (ZeRO ≥ 1 over more than one rank), of their flat
/// concatenation: 2·(U_layer + U_root) unsharded bytes, U_layer + U_root unsharded (NO_SHARD keeps the concatenation
/// as the parameter), less the root unit's gathered flat parameter that best fit serves from them
/// (fsdp1RootGathered()). Otherwise counted whole (the step reuses them where its requests fit: an upper bound).
/// Under optimizer+params offload (FSDP1's CPUOffload) the units are still flattened on the GPU first.
double flatWrapCache(const TermContext& c);
/// \brief FSDP1 (/hardware/fsdp_flat_wrap) under full sharding keeps the root unit (embeddings and output head)
/// gathered from forward to the end of backward: U_root = P_embedding·b_w/t, in the workspace; 0 otherwise.
double fsdp1RootGathered(const TermContext& c);
/// \brief What the FSDP2 wrap keeps gathered beside the layers at ZeRO-3 over more than one rank
/// (effectiveFsdpRoot()): the head and final norm, (V·h + h)·b_w/t, on the stage that holds the head; or the root
/// unit, the embeddings too, (P_embedding + h)·b_w/t (tied: the one matrix), each part on its stage. In the workspace;
/// 0 otherwise and under the FSDP1 flat wrap, whose root unit fsdp1RootGathered() counts.
double fsdp2RootGathered(const TermContext& c);
/// \brief Under the root unit (FsdpRoot::EmbeddingsAndHead) with a trained head, the head's unsharded gradient,
/// V·h·b_g/t, which waits from the loss to the root's reduce-scatter at the end of backward: in the workspace; 0
/// otherwise.
double fsdp2RootGradient(const TermContext& c);
/// \brief QLoRA's quantisation constants this GPU holds whatever the ZeRO stage or offload (bitsandbytes'
/// quant_state is not a parameter: nothing shards or offloads it): P_q·(8/64 + 32/(64·256))/8 B, split only by
/// tensor, pipeline and expert parallelism. 0 otherwise. The fit search counts them with the working set.
double qloraConstantsHeld(const TermContext& c);

/// \brief The activation term of view `c` split by when its bytes live (the step timeline, core/memory/timeline.h):
/// activations = perLayer · stageLayers · inflight + recomputeInBars + mtp, to the byte.
struct TapeParts {
    double perLayer = 0; ///< one layer's tape of one micro-batch (the stage's average layer), kept until its backward
    /// Full checkpointing: one layer's whole tape, rebuilt during that layer's backward (the term counts it).
    double recomputeInBars = 0;
    /// What the backward pass rebuilds for one layer while it runs: full, the whole tape (= recomputeInBars);
    /// selective, what selective recomputation dropped (the attention scores; MLA's up-projections and norms),
    /// a transient the term, like Korthikanti's 34·sbh, leaves out; none, 0.
    double recompute = 0;
    double mtp = 0;         ///< the multi-token-prediction modules' tapes, all micro-batches in flight
    double activations = 0; ///< the term itself
};
/// \brief `c`'s activation term in its parts, from the term function itself (training views only).
TapeParts tapeParts(const TermContext& c);

/// \brief The host memory one GPU's offloaded state takes (weights, gradients, master weights, optimizer; the rest
/// 0), for view `c`; all 0 without offload.
Segments hostTerms(const TermContext& c);

/// \brief One term evaluated with its texts.
struct TermText {
    TextExpr expr;
    TermNotes<TextExpr> notes;
};
/// \brief Term `k` with its formula; `c.bytes` must hold the evaluated terms (evaluateTerms).
TermText explainTerm(SegmentKind k, const TermContext& c);
/// \brief The host-memory side of an offloaded model-state term (weights, gradients, master, optimizer), with its
/// formula; value 0 for a term that stays on the GPU.
TermText explainHostTerm(SegmentKind k, const TermContext& c);

} // namespace trainmem
