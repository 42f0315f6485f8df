#pragma once
// "Cheapest change to fit": for a scenario that dies, every single change that makes it fit,
// each verified with account(), with what it costs, sorted cheapest first.
//
// The ordering (documented here because it is a judgement, not a measurement):
//   1. tier — what kind of price is paid, in this order:
//        MemoryLayout  nothing about the model or the maths changes; at most ~3% compute or extra
//                      communication on the same GPUs (sequence parallel, selective checkpointing, a
//                      higher ZeRO stage, context parallel in place of some data parallel, the loss chunked,
//                      torch.compile)
//        Throughput    the same maths, done slower (full checkpointing +33%, per-op checkpointing (every
//                      second matmul recomputed), a smaller micro-batch, activations offloaded over PCIe)
//        Numerics      the numbers get coarser and accuracy is at risk (8-bit Adam, pure bf16, fp8,
//                      int8/int4 weights)
//        Capability    the model learns or serves something less (a shorter context; the optimizer
//                      step in backward, which gives up gradient accumulation and global gradient clipping)
//        Hardware      more GPUs: money and the communication tax
//   2. within a tier: less extra compute first, then less extra communication, then fewer GPUs,
//      then more memory to spare.

#include "accounting.h"
#include "gpu.h"
#include "scenario.h"

#include <string>
#include <vector>

namespace trainmem {

/// \brief The single changes considered.
enum class FixKind {
    SequenceParallel,
    ContextParallel,
    SelectiveCheckpointing,
    FullCheckpointing,
    HigherZeroStage,
    ChunkedLoss,         ///< issue 30 §2's recipes: the loss computed in chunks (torchtune)
    Compile,             ///< torch.compile's fused activations
    ActivationOffload,   ///< the tape in host memory but the layers in flight
    OptimizerInBackward, ///< one layer's gradients at a time
    PerOpCheckpointing,  ///< torchtitan's per-op selective AC
    ShardRootUnit,       ///< FSDP2: the embeddings and head sharded like the layers, not kept gathered
    SmallerMicroBatch,
    EightBitOptimizer,
    PureBf16,
    Fp8Mixed,
    Int8Weights,
    Int4Weights,
    ShorterContext,
    MoreGpus
};

/// \brief What kind of price a change pays (see the ordering above).
enum class FixTier { MemoryLayout, Throughput, Numerics, Capability, Hardware };

/// \brief One verified change.
struct Fix {
    FixKind kind = FixKind::SelectiveCheckpointing;
    FixTier tier = FixTier::MemoryLayout;
    std::string title;          ///< "Selective checkpointing"
    std::string change;         ///< "checkpointing none → selective"
    std::string cost;           ///< what it costs, in words and numbers
    Scenario scenario;          ///< the changed scenario (apply it to the window as is)
    Breakdown after;            ///< account(scenario, gpu); after.fits is always true
    double perGpuBefore = 0;    ///< bytes per GPU of the original
    double freedBytes = 0;      ///< per GPU, original − changed
    double computeOverhead = 0; ///< extra compute as a fraction (0.33 = +33%)
    double extraTaxBytes = 0;   ///< more bytes sent per GPU per step
    int64_t extraGpus = 0;
};

/// \brief Every single change that makes `s` fit on `gpu`, cheapest first. Empty when it
/// already fits, or when nothing single helps.
/// The share of a layer's forward matmul FLOPs that per-op checkpointing recomputes (the 2nd, 4th, … matmul, each
/// attention kind in its own shape, weighted by its layers); its compute overhead is a third of it.
double perOpRecomputeShare(const Architecture& arch);

std::vector<Fix> cheapestFixes(const Scenario& s, const GpuSpec& gpu);
/// \brief The same, given the breakdown of `s` on `gpu` the caller already has (`before.model` is reused).
std::vector<Fix> cheapestFixes(const Scenario& s, const GpuSpec& gpu, const Breakdown& before);

/// \brief "memory layout", "throughput" …
std::string fixTierName(FixTier t);

} // namespace trainmem
