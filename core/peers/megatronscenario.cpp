// MegatronArgs <-> Scenario: the architecture, the batch and the layout a Megatron-LM launch uses,
// in TrainMem's terms (and back, so the peers can be shown for any architecture scenario).

#include "megatronargs.h"

#include <algorithm>

namespace trainmem {

Scenario scenarioFromMegatron(const MegatronArgs& m, const Scenario& base)
{
    Scenario s = base;
    s.id = "megatron";
    s.name = "Megatron-LM launch";
    s.description = "Read from Megatron-LM arguments";
    s.source = "--megatron-args";
    s.model = ModelSpec{};
    s.model.hasArchitecture = true;
    Architecture& a = s.model.architecture;
    a.layers = m.numLayers;
    a.hidden = m.hiddenSize;
    a.heads = m.numAttentionHeads;
    a.kvHeads = m.queryGroups();
    a.headDim = m.kvChannelsOrDefault();
    a.ffn = m.ffn();
    a.ffnKind = m.swiglu ? FfnKind::SwiGLU : FfnKind::Gelu;
    // The model Megatron builds has the padded vocabulary's rows.
    a.vocab = m.paddedVocab();
    a.tiedEmbeddings = !m.untieEmbeddingsAndOutputWeights;
    a.bias = m.addBiasLinear;
    a.norm = m.normalization == "RMSNorm" ? NormKind::RMSNorm : NormKind::LayerNorm;
    a.learnedPositions = m.positionEmbeddingType == "learned_absolute";
    a.maxPositions = a.learnedPositions ? m.maxPositionEmbeddings.value_or(m.seqLength) : 0;
    a.dropout = m.hiddenDropout > 0 || m.attentionDropout > 0;
    a.attention = m.multiLatentAttention                  ? AttentionKind::MLA
                  : m.queryGroups() < m.numAttentionHeads ? AttentionKind::GQA
                                                          : AttentionKind::MHA;
    if (m.multiLatentAttention) {
        a.mla.qLoraRank = m.qLoraRank.value_or(0);
        a.mla.kvLoraRank = m.kvLoraRank;
        a.mla.qkNopeHeadDim = m.qkHeadDim;
        a.mla.qkRopeHeadDim = m.qkPosEmbHeadDim;
        a.mla.vHeadDim = m.vHeadDim;
    }
    a.mtpLayers = m.mtpNumLayers.value_or(0);
    if (m.numExperts) {
        a.moe.experts = *m.numExperts;
        a.moe.activeExperts = m.moeRouterTopk;
        a.moe.expertFfn = m.moeFfn();
        // TrainMem counts shared experts in units of the routed expert's width.
        a.moe.sharedExperts =
            m.moeSharedExpertIntermediateSize
                ? std::max<int64_t>(1, (*m.moeSharedExpertIntermediateSize + a.moe.expertFfn / 2) / a.moe.expertFfn)
                : 0;
        // TrainMem's dense layers lead the stack; Megatron's pattern may place them anywhere
        // (peers.cpp reports the difference when it does).
        const std::vector<int> p = m.layerPattern();
        a.moe.denseLayers = std::count(p.begin(), p.end(), 0);
        a.moe.denseFfn = m.ffn();
    }

    TrainingSetup& t = s.training;
    t.mode = Mode::Training;
    t.precision = m.bf16 ? Precision::BF16Mixed : m.fp16 ? Precision::FP16Mixed : Precision::FP32;
    t.optimizer = Optimizer::AdamW;
    t.seqLen = m.seqLength;
    t.microBatch = m.microBatchSize;
    t.gradAccum = std::min<int64_t>(m.numMicrobatches(), 1'000'000); // validateScenario's range
    t.checkpointing = !m.recomputeGranularity             ? Checkpointing::None
                      : *m.recomputeGranularity == "full" ? Checkpointing::Full
                                                          : Checkpointing::Selective;
    t.sequenceParallel = m.sequenceParallelEffective();

    HardwareSetup& hw = s.hardware;
    hw.gpus = m.worldSize;
    hw.tp = m.tensorModelParallelSize;
    hw.pp = m.pipelineModelParallelSize;
    hw.cp = m.contextParallelSize; // --context-parallel-size: world = tp·pp·cp·dp, as in Megatron-LM
    hw.ep = m.numExperts ? m.expertModelParallelSize : 1;
    hw.vpp = m.virtualPipeline().value_or(1); // the interleaved schedule's virtual stages
    hw.split = m.pipelineSplit;               // uneven stages (issue 33)
    hw.etp = m.numExperts && m.expertTensorParallelSize ? *m.expertTensorParallelSize : 0;
    // The distributed optimizer shards the fp32 master weights and Adam moments over data
    // parallel ranks: ZeRO stage 1 (docs/user-guide/features/dist_optimizer.md).
    hw.zeroStage = m.useDistributedOptimizer ? 1 : 0;
    return s;
}

MegatronArgs megatronFromScenario(const Scenario& s, const Architecture& a)
{
    MegatronArgs m;
    m.numLayers = a.layers;
    m.hiddenSize = a.hidden;
    m.numAttentionHeads = a.heads;
    m.kvChannels = a.headDimOrDefault();
    m.groupQueryAttention = a.kvHeadsOrDefault() != a.heads;
    m.numQueryGroups = a.kvHeadsOrDefault();
    m.swiglu = a.ffnKind == FfnKind::SwiGLU;
    m.ffnHiddenSize =
        a.ffn > 0 ? a.ffn : (a.ffnKind == FfnKind::SwiGLU ? ((8 * a.hidden / 3 + 255) / 256) * 256 : 4 * a.hidden);
    m.normalization = a.norm == NormKind::RMSNorm ? "RMSNorm" : "LayerNorm";
    m.untieEmbeddingsAndOutputWeights = !a.tiedEmbeddings;
    m.vocabSize = a.vocab;
    m.addBiasLinear = a.bias;
    m.positionEmbeddingType = a.learnedPositions ? "learned_absolute" : "rope";
    if (a.learnedPositions && a.maxPositions > 0)
        m.maxPositionEmbeddings = a.maxPositions;
    m.hiddenDropout = m.attentionDropout = a.dropoutOrDefault() ? 0.1 : 0.0;
    if (a.attention == AttentionKind::MLA) {
        m.multiLatentAttention = true;
        m.groupQueryAttention = false;
        if (a.mla.qLoraRank > 0)
            m.qLoraRank = a.mla.qLoraRank;
        m.kvLoraRank = a.mla.kvLoraRank;
        m.qkHeadDim = a.mla.qkNopeHeadDim;
        m.qkPosEmbHeadDim = a.mla.qkRopeHeadDim;
        m.vHeadDim = a.mla.vHeadDim;
    }
    if (a.isMoe()) {
        m.numExperts = a.moe.experts;
        m.moeRouterTopk = std::max<int64_t>(1, a.moe.activeExperts);
        m.moeFfnHiddenSize = a.moe.expertFfn;
        if (a.moe.sharedExperts > 0)
            m.moeSharedExpertIntermediateSize = a.moe.sharedExperts * a.moe.expertFfn;
        const int64_t dense = std::clamp<int64_t>(a.moe.denseLayers, 0, a.layers);
        m.moeLayerPattern.assign(static_cast<size_t>(a.layers), 1);
        std::fill_n(m.moeLayerPattern.begin(), dense, 0);
        if (a.moe.denseFfn > 0)
            m.ffnHiddenSize = a.moe.denseFfn;
    }
    if (a.mtpLayers > 0 && s.training.mode == Mode::Training && !s.training.adapters())
        m.mtpNumLayers = a.mtpLayers;
    m.seqLength = s.training.seqLen;
    m.microBatchSize = s.training.microBatch;
    m.recomputeGranularity.reset();
    if (s.training.checkpointing == Checkpointing::Selective)
        m.recomputeGranularity = "selective";
    else if (s.training.checkpointing == Checkpointing::Full)
        m.recomputeGranularity = "full";
    m.bf16 = s.training.precision != Precision::FP16Mixed && s.training.precision != Precision::FP32;
    m.fp16 = s.training.precision == Precision::FP16Mixed;
    m.tensorModelParallelSize = std::max<int64_t>(1, s.hardware.tp);
    m.pipelineModelParallelSize = std::max<int64_t>(1, s.hardware.pp);
    m.contextParallelSize = std::max<int64_t>(1, s.hardware.cp);
    m.expertModelParallelSize = a.isMoe() ? std::max<int64_t>(1, s.hardware.ep) : 1;
    if (s.hardware.vpp > 1)
        m.virtualPipelineModelParallelSize = s.hardware.vpp;
    m.pipelineSplit = s.hardware.split;
    if (a.isMoe() && s.hardware.etp > 0)
        m.expertTensorParallelSize = s.hardware.etp;
    m.sequenceParallel = s.training.sequenceParallel && m.tensorModelParallelSize > 1;
    m.useDistributedOptimizer = s.hardware.zeroStage >= 1;
    m.worldSize = std::max<int64_t>(1, s.hardware.gpus);
    m.globalBatchSize = m.microBatchSize * m.dataParallel() * std::max<int64_t>(1, s.training.gradAccum);
    return m;
}

} // namespace trainmem
