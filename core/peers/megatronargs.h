#pragma once
// A Megatron-LM launch command read into the values Megatron itself would use.
//
// Defaults and derived values follow Megatron-LM at commit d98e8a64ddf34856e74b24714e3bedb2f5a39553:
// megatron/training/arguments.py (ffn_hidden_size, kv_channels, recompute_activations, world size /
// data-parallel size, virtual pipeline size, sequence parallelism off at tp 1, expert tensor
// parallel = tp, global batch = micro-batch · dp), megatron/core/transformer/transformer_config.py and
// megatron/core/model_parallel_config.py (field defaults), megatron/core/tokenizers/utils/
// build_tokenizer.py vocab_size_with_padding (padded vocabulary).

#include "errors.h"
#include "scenario.h"
#include "shellwords.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainmem {

/// \brief The flags TrainMem reads, with Megatron's argparse defaults (std::nullopt = Megatron's None).
struct MegatronArgs {
    // Network size.
    int64_t numLayers = 0;
    int64_t hiddenSize = 0;
    int64_t numAttentionHeads = 0;
    std::optional<int64_t> ffnHiddenSize;
    std::optional<int64_t> kvChannels;
    bool groupQueryAttention = false;
    int64_t numQueryGroups = 1; ///< argparse default 1; used only with --group-query-attention
    bool swiglu = false;
    std::string normalization = "LayerNorm";
    bool untieEmbeddingsAndOutputWeights = false;
    std::optional<int64_t> vocabSize;
    std::optional<int64_t> paddedVocabSize;
    int64_t makeVocabSizeDivisibleBy = 128;
    bool addBiasLinear = true; ///< --disable-bias-linear turns it off
    std::string positionEmbeddingType = "learned_absolute";
    std::optional<int64_t> maxPositionEmbeddings;
    double hiddenDropout = 0.1;
    double attentionDropout = 0.1;
    // Mixture of experts.
    std::optional<int64_t> numExperts;
    std::optional<int64_t> moeFfnHiddenSize;
    int64_t moeRouterTopk = 2;
    int64_t moeLayerFreq = 1;         ///< used when moeLayerPattern is empty
    std::vector<int> moeLayerPattern; ///< --moe-layer-freq given as a list expression
    std::optional<int64_t> moeSharedExpertIntermediateSize;
    bool moeSharedExpertGate = false;
    std::optional<int64_t> moeLatentSize;
    // Multi-latent attention (defaults of _add_mla_args).
    bool multiLatentAttention = false;
    std::optional<int64_t> qLoraRank;
    int64_t kvLoraRank = 32;
    int64_t qkHeadDim = 128;
    int64_t qkPosEmbHeadDim = 64;
    int64_t vHeadDim = 128;
    std::optional<int64_t> mtpNumLayers;
    // Training.
    int64_t seqLength = 0;
    int64_t microBatchSize = 1;
    std::optional<int64_t> globalBatchSize;
    std::optional<std::string> recomputeGranularity; ///< "selective" or "full"
    bool useDistributedOptimizer = false;
    bool bf16 = false;
    bool fp16 = false;
    // Parallelism.
    int64_t tensorModelParallelSize = 1;
    int64_t pipelineModelParallelSize = 1;
    int64_t contextParallelSize = 1;
    std::optional<int64_t> virtualPipelineModelParallelSize;
    std::optional<int64_t> numLayersPerVirtualPipelineStage;
    int64_t expertModelParallelSize = 1;
    std::optional<int64_t> expertTensorParallelSize;
    bool sequenceParallel = false;
    /// --decoder-first/last-pipeline-num-layers (0 = None) and --account-for-embedding/loss-in-pipeline-split: the
    /// layers of each stage (TrainMem's PipelineSplit, Megatron-LM's get_num_layers_to_build).
    PipelineSplit pipelineSplit;
    bool hybrid = false; ///< --hybrid-layer-pattern / --hybrid-override-pattern (Mamba): no estimate
    // The launch.
    int64_t worldSize = 0;   ///< GPUs; 0 = not given
    int64_t gpusPerNode = 0; ///< torchrun --nproc_per_node; 0 = not given
    int64_t nodes = 0;       ///< torchrun --nnodes; 0 = not given

    // Derived exactly as arguments.py derives them.
    int64_t ffn() const;                 ///< 4h, or int(4h·2/3 / 64)·64 with --swiglu
    int64_t kvChannelsOrDefault() const; ///< h / heads
    int64_t queryGroups() const;         ///< heads unless --group-query-attention
    int64_t paddedVocab() const;         ///< ⌈V / (divisible-by · tp)⌉ · divisible-by · tp
    int64_t expertTensorParallel() const;
    std::optional<int64_t> virtualPipeline() const; ///< None when 1, as arguments.py sets it
    int64_t dataParallel() const;                   ///< world / (tp · pp · cp)
    int64_t expertDataParallel() const;             ///< world / (etp · ep · pp)
    int64_t numMicrobatches() const;                ///< global / (micro · dp)
    int64_t moeFfn() const;                         ///< moe-ffn-hidden-size, else ffn
    bool sequenceParallelEffective() const { return sequenceParallel && tensorModelParallelSize > 1; }
    /// 1 for an MoE layer, 0 for dense, per layer (the estimator's moe_layer_pattern).
    std::vector<int> layerPattern() const;
};

/// \brief The result of reading a command line.
struct MegatronParse {
    MegatronArgs args;
    std::vector<std::string> ignored; ///< flags TrainMem does not read, as given ("--lr 3e-4")
    std::vector<std::string> notes;   ///< assumptions made (e.g. the GPU count)
    FieldErrors errors;               ///< path = the flag ("--num-layers")
    bool ok() const { return errors.empty(); }
};

/// \brief Reads Megatron-LM flags, a whole `torchrun … pretrain_gpt.py …` line or a shell script.
/// `gpus` (> 0) is the GPU count when the text does not give one; otherwise torchrun's
/// --nproc_per_node × --nnodes, else one model replica (tp · pp · cp).
MegatronParse parseMegatronArgs(const std::string& text, int64_t gpus = 0,
                                const std::string& source = "--megatron-args");

/// \brief The scenario these flags describe, starting from `base` (GPU type, overhead, cost).
/// The layout (virtual pipeline, expert tensor parallel, context parallel) and the MTP modules become
/// the scenario's own; what Megatron's estimate treats differently, peers.h reports as a difference.
Scenario scenarioFromMegatron(const MegatronArgs& m, const Scenario& base);

/// \brief The flags Megatron would need for an architecture scenario (used when nothing was
/// pasted, so the dock compares the current scenario). Size-only models use their made-up shape.
MegatronArgs megatronFromScenario(const Scenario& s, const Architecture& arch);

} // namespace trainmem
