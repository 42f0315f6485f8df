#pragma once
// The peers' own memory estimates, reproduced from their code, and what separates them from
// TrainMem's (issue 10; docs/accounting.md §Peers).
//
// Megatron-LM: megatron/training/theoretical_memory_usage.py at commit
//   d98e8a64ddf34856e74b24714e3bedb2f5a39553 (compute_weight_and_optimizer_memory,
//   compute_activation_memory, compute_activation_memory_without_sp, report_theoretical_memory).
// DeepSpeed: deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs and
//   deepspeed/runtime/zero/stage3.py estimate_zero3_model_states_mem_needs at commit
//   edaa7221267243c7be7fb49c5d5f5c4fb97b4641.
// Both are written here in C++ with Python's order of operations, so the doubles come out the
// same as the Python floats.

#include "accounting.h"
#include "megatronargs.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace trainmem {

/// \brief What report_theoretical_memory computes, in bytes (it prints them ÷ 2^20 as "MB").
struct MegatronEstimate {
    bool available = true;
    std::string unavailableReason;      ///< hybrid Mamba models: Megatron prints no estimate
    double weightAndOptimizerBytes = 0; ///< compute_weight_and_optimizer_memory
    double activationBytes = 0;         ///< the branch report_theoretical_memory picks
    double totalBytes() const { return weightAndOptimizerBytes + activationBytes; }
    bool sequenceParallelBranch = false; ///< sequence parallel and selective recompute
    // Parameter counts as Megatron computes them (floats in Python).
    double totalParams = 0;
    double activeParams = 0;
    double mostLoadedShardParams = 0;
    double denseShardParams = 0;     ///< tp-sharded + replicated on the most loaded shard
    double expertShardParams = 0;    ///< expert-sharded on the most loaded shard
    double bytesPerParam = 18;       ///< 18, or 6 + 12/dp with the distributed optimizer
    double bytesPerExpertParam = 18; ///< the same with the expert data-parallel size
    // Its model-state bytes by component: bf16 weights 2, fp32 main gradients 4, fp32 main
    // weights 4 and Adam 8 (÷ dp with the distributed optimizer), per the estimator's comment.
    double weights = 0, gradients = 0, master = 0, optimizer = 0;
    // Its activation bytes by part (the factors of the chosen branch applied to each).
    double activationLayers = 0;    ///< transformer layers
    double activationEmbedding = 0; ///< embedding input and dropout, pp micro-batches
    double activationOutput = 0;    ///< output layer and loss inputs (pp = 1 only)
    double interleavePenalty = 1;   ///< 1 + (pp − 1)/(pp · vpp) with a virtual pipeline
    int64_t numMicrobatches = 1;
    std::string printed; ///< the line Megatron prints
};

/// \brief The estimate report_theoretical_memory(args, num_microbatches) makes for these flags.
MegatronEstimate megatronEstimate(const MegatronArgs& m);

/// \brief One of DeepSpeed's estimates: bytes per GPU and per CPU (host).
struct DeepSpeedEstimate {
    int64_t gpuBytes = 0;
    int64_t cpuBytes = 0;
    int64_t largestLayerBytes = 0; ///< ZeRO-3: 4 × largest layer parameters
    bool offloadOptimizer = false;
    bool offloadParam = false; ///< ZeRO-3 only
    bool zeroInit = true;      ///< ZeRO-3 only
};

/// \brief estimate_zero2_model_states_mem_needs (cpu_offload = offloadOptimizer).
DeepSpeedEstimate deepspeedZero2(int64_t totalParams, int64_t gpusPerNode, int64_t nodes, bool offloadOptimizer,
                                 double additionalBufferFactor = 1.5);
/// \brief estimate_zero3_model_states_mem_needs (cpu_offload = offloadOptimizer, cpu_offload_params = offloadParam).
DeepSpeedEstimate deepspeedZero3(int64_t totalParams, int64_t largestLayerParams, int64_t gpusPerNode, int64_t nodes,
                                 bool offloadOptimizer, bool offloadParam, bool zeroInit,
                                 double additionalBufferFactor = 1.5);

/// \brief The parameters of the model the flags build, as model.parameters() would list them
/// (Megatron's count plus linear biases and learned position embeddings, which its estimator leaves out).
int64_t megatronModelParams(const MegatronArgs& m);
/// \brief The largest single parameter tensor of that model (DeepSpeed's "largest layer").
int64_t megatronLargestTensor(const MegatronArgs& m);

/// \brief One term of the gap between TrainMem and a peer, per GPU.
struct PeerDifference {
    std::string peer; ///< "megatron", "deepspeed_zero2", "deepspeed_zero3"
    std::string term; ///< a term's JSON key ("weights", …, "fragmentation"), or "gathered_layer"
    double trainmemBytes = 0;
    double peerBytes = 0;
    std::string reason;
};

/// \brief TrainMem's per-GPU total beside each peer's, and the terms that make up the gap.
struct PeerComparison {
    MegatronArgs args;
    MegatronEstimate megatron;
    int64_t gpusPerNode = 1, nodes = 1; ///< DeepSpeed's hardware description
    int64_t deepspeedParams = 0, deepspeedLargestLayer = 0;
    DeepSpeedEstimate zero2, zero3;                              ///< with the scenario's offload (issue 9 §3)
    std::vector<DeepSpeedEstimate> zero2Variants, zero3Variants; ///< what DeepSpeed's *_all_cold print
    Segments trainmem;      ///< TrainMem, this launch: what every peer is compared with
    HostBytes trainmemHost; ///< TrainMem's host memory per node (offload), beside DeepSpeed's cpuBytes
    std::vector<PeerDifference> differences;
    std::vector<std::string> notes; ///< what TrainMem does not model for these flags
};

/// \brief Compares the peers with TrainMem on `s` (the scenario the flags convert to). Every
/// difference is against TrainMem's per-GPU breakdown of `s`, so each peer's terms add up to the gap
/// between its figure and TrainMem's total.
PeerComparison comparePeers(const MegatronArgs& m, const Scenario& s, const GpuSpec& gpu);

/// \brief Megatron's figure as segments: its model-state components, its activation parts
/// (transformer layers + embedding as activations, the output layer as logits).
Segments megatronSegments(const MegatronEstimate& m);
/// \brief DeepSpeed's ZeRO-`stage` GPU figure as segments. ZeRO-2's 18 B per sharded parameter is
/// its comment's 2 fp16 + 4 fp32 gradients, 4 fp32 weights, 8 Adam (the fp16 weights apart, whole);
/// ZeRO-3's 18 is 2 fp16 weights + the 16 its offload branch moves to the CPU, read as 4 gradients,
/// 4 fp32 weights, 8 Adam; ZeRO-3's 4 × largest layer is the gathered layer (as workspace).
Segments deepspeedSegments(const PeerComparison& c, int stage);

/// \brief The `peers` object of --json.
nlohmann::json peersToJson(const PeerComparison& c);

} // namespace trainmem
