// The peers' estimators, line by line after their Python (see peers.h for files and commits).
// Integers stay int64 where Python keeps ints; a Python float becomes a double at the same step.

#include "peers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace trainmem {
namespace {

double dbl(int64_t v)
{
    return static_cast<double>(v);
}

// Python's int() of a non-negative float, saturated instead of undefined beyond int64.
int64_t pyInt(double v)
{
    if (!(v > 0))
        return 0;
    return v >= 9.2e18 ? INT64_C(9200000000000000000) : static_cast<int64_t>(v);
}

// Python's min(1, x) / max(a, b): the first argument wins a tie; values are what matter here.
double pyMin1(double x)
{
    return 1 <= x ? 1.0 : x;
}

} // namespace

MegatronEstimate megatronEstimate(const MegatronArgs& a)
{
    MegatronEstimate r;
    if (a.hybrid) {
        r.available = false;
        r.unavailableReason = "Theoretical memory footprints not yet supported for hybrid Mamba-Transformer models.";
        return r;
    }
    const int64_t h = a.hiddenSize, heads = a.numAttentionHeads, L = a.numLayers;
    const int64_t tp = a.tensorModelParallelSize, pp = a.pipelineModelParallelSize;
    const int64_t V = a.paddedVocab();

    // ---- compute_weight_and_optimizer_memory ----
    const int64_t queryProjectionSize = a.kvChannelsOrDefault() * heads;
    const double queryProjectionToHiddenRatio = dbl(queryProjectionSize) / dbl(h);
    const int64_t groups = a.queryGroups();
    const bool moe = a.numExperts.has_value();
    const int64_t numExperts = moe ? *a.numExperts : 1;
    const double gated = a.swiglu ? 1.5 : 1.0; // 3 / 2 if args.swiglu else 1
    const int64_t sharedFfn = a.moeSharedExpertIntermediateSize.value_or(0);

    const std::vector<int> pattern = a.layerPattern();
    int64_t numMoeLayers = 0;
    for (int v : pattern)
        numMoeLayers += v;
    const int64_t numDenseLayers = L - numMoeLayers;
    const int64_t moeFfn = moe ? a.moeFfn() : 0;
    int64_t mtpMoe = 0, mtpDense = 0;
    if (a.mtpNumLayers) {
        const int64_t lastIsMoe = pattern.empty() ? 0 : pattern.back();
        mtpMoe = lastIsMoe * *a.mtpNumLayers;
        mtpDense = (1 - lastIsMoe) * *a.mtpNumLayers;
    }
    const int64_t normSize = a.normalization == "RMSNorm" ? 1 : 2;

    double selfAttn = 0;
    if (a.multiLatentAttention) {
        const int64_t qk = a.qkHeadDim, pos = a.qkPosEmbHeadDim, v = a.vHeadDim;
        const int64_t qTerm = a.qLoraRank ? *a.qLoraRank * (h + heads * (qk + pos) + normSize) : h * heads * (qk + pos);
        selfAttn = dbl(qTerm + a.kvLoraRank * (h + heads * (qk + v) + normSize) + h * pos + (heads * v) * h);
    } else {
        selfAttn = 2 * dbl(h) * dbl(h) * ((1 + dbl(groups) / dbl(heads)) * queryProjectionToHiddenRatio);
    }
    const int64_t embeddingSize = h * V;
    const int64_t finalLayernorm = normSize * h;
    const int64_t embeddingLayers = a.untieEmbeddingsAndOutputWeights ? 2 * embeddingSize : embeddingSize;

    const double attention = selfAttn;
    const double denseMlp = 2 * dbl(h) * dbl(a.ffn()) * gated;
    const double sharedExpert = 2 * dbl(h) * dbl(sharedFfn) * gated;
    const int64_t routedHidden = a.moeLatentSize.value_or(h);
    const double routedExpert = 2 * dbl(routedHidden) * dbl(moeFfn) * dbl(numExperts) * gated;
    const double activeRouted = moe ? 2 * dbl(routedHidden) * dbl(moeFfn) * dbl(a.moeRouterTopk) * gated : 0.0;
    const double latentProjection = moe && a.moeLatentSize ? 2 * dbl(h) * dbl(*a.moeLatentSize) : 0.0;
    const double layernorm = dbl(2 * h * normSize);
    const double router = moe ? dbl(h * numExperts + (a.addBiasLinear ? numExperts : 0)) : 0.0;
    const double sharedGate = sharedFfn > 0 && a.moeSharedExpertGate ? dbl(h) : 0.0;

    const double layerDense = attention + denseMlp + layernorm;
    const double layerMoe =
        attention + sharedExpert + routedExpert + latentProjection + layernorm + router + sharedGate;
    const double layerMoeActive =
        attention + sharedExpert + activeRouted + latentProjection + layernorm + router + sharedGate;
    const double block = layerDense * dbl(numDenseLayers) + layerMoe * dbl(numMoeLayers) + dbl(finalLayernorm);
    const double blockActive =
        layerDense * dbl(numDenseLayers) + layerMoeActive * dbl(numMoeLayers) + dbl(finalLayernorm);
    const double mtpBlock = layerDense * dbl(mtpDense) + layerMoe * dbl(mtpMoe);
    r.totalParams = block + mtpBlock + dbl(embeddingLayers);
    r.activeParams = blockActive + mtpBlock + dbl(embeddingLayers);

    const int64_t etp = a.expertTensorParallel(), ep = a.expertModelParallelSize;
    const int64_t dp = a.dataParallel(), edp = a.expertDataParallel();

    const double tpBlock =
        (attention + denseMlp) * dbl(numDenseLayers) + (attention + sharedExpert) * dbl(numMoeLayers);
    const double replBlock = layernorm * dbl(numDenseLayers) +
                             (layernorm + latentProjection + router + sharedGate) * dbl(numMoeLayers) +
                             dbl(finalLayernorm);
    const double expertBlock = routedExpert * dbl(numMoeLayers);
    const double tpMtp = (attention + denseMlp) * dbl(mtpDense) + (attention + sharedExpert) * dbl(mtpMoe);
    const double replMtp =
        layernorm * dbl(mtpDense) + (layernorm + latentProjection + router + sharedGate) * dbl(mtpMoe);
    const double expertMtp = routedExpert * dbl(mtpMoe);

    // Most loaded shard: 1/pp of the layers, the MTP block and the embedding.
    double tpShard = ((tpBlock / dbl(pp)) + tpMtp + dbl(embeddingSize)) / dbl(tp);
    const double replShard = (replBlock / dbl(pp)) + replMtp;
    const double expertShard = ((expertBlock / dbl(pp)) + expertMtp) / dbl(etp * ep);
    double mostLoaded = tpShard + replShard + expertShard;
    if (a.untieEmbeddingsAndOutputWeights && pp == 1) {
        tpShard += dbl(embeddingSize) / dbl(tp);
        mostLoaded += dbl(embeddingSize) / dbl(tp);
    }
    r.mostLoadedShardParams = mostLoaded;
    r.denseShardParams = tpShard + replShard;
    r.expertShardParams = expertShard;
    auto bytesPerParameter = [&](int64_t dataParallel) {
        return !a.useDistributedOptimizer ? 18.0 : 6 + (12 / dbl(dataParallel));
    };
    r.bytesPerParam = bytesPerParameter(dp);
    r.bytesPerExpertParam = bytesPerParameter(edp);
    r.weightAndOptimizerBytes = (tpShard + replShard) * r.bytesPerParam + expertShard * r.bytesPerExpertParam;
    // The components of 18 = 2 + 4 + 4 + 8 (÷ dp for the last two with the distributed optimizer).
    const double stateDiv = a.useDistributedOptimizer ? dbl(dp) : 1,
                 expertDiv = a.useDistributedOptimizer ? dbl(edp) : 1;
    const double all = tpShard + replShard + expertShard;
    r.weights = 2 * all;
    r.gradients = 4 * all;
    r.master = 4 * ((tpShard + replShard) / stateDiv + expertShard / expertDiv);
    r.optimizer = 8 * ((tpShard + replShard) / stateDiv + expertShard / expertDiv);

    // ---- activations: report_theoretical_memory's branch ----
    const int64_t s = a.seqLength, b = a.microBatchSize;
    const int64_t nmb = a.numMicrobatches();
    r.numMicrobatches = nmb;
    const std::optional<int64_t> vpp = a.virtualPipeline();
    double penalty = 1, discount = 1;
    if (vpp)
        penalty = 1 + (dbl(pp - 1) / dbl(pp * *vpp));
    if (!vpp && pp > 1)
        discount = pyMin1(dbl(nmb) / dbl(pp));
    r.interleavePenalty = penalty;
    r.sequenceParallelBranch = a.sequenceParallelEffective() && a.recomputeGranularity == std::string("selective");

    double act = 0, layers = 0, embed = 0, output = 0;
    if (r.sequenceParallelBranch) {
        // compute_activation_memory: Korthikanti et al. 2022 Table 2, selective + sequence parallel.
        act = dbl(s) * dbl(b) * dbl(h) * (18 + (4 * (dbl(a.ffn()) / dbl(h))));
        act *= dbl(L);
        layers = act;
        act += 8 * dbl(s) * dbl(b) * dbl(pp);
        act += dbl(s) * dbl(b) * dbl(h) * dbl(pp);
        embed = act - layers;
        if (vpp)
            act *= penalty;
        if (!vpp && pp > 1)
            act *= discount;
        if (pp == 1) {
            output = dbl(s) * dbl(b) * dbl(h) * 4 * (1 + (dbl(V) / dbl(h)));
            act += output;
        }
        act = act / dbl(tp);
        const double f = penalty * discount / dbl(tp);
        layers *= f;
        embed *= f;
        output /= dbl(tp);
    } else {
        // compute_activation_memory_without_sp: 10 + 24/tp per layer, and the 1.05 factor.
        const double perLayer = dbl(s) * dbl(b) * dbl(h) * (10 + (24 / dbl(tp)));
        act = perLayer * dbl(L);
        layers = act;
        act += 8 * dbl(s) * dbl(b) * dbl(pp);
        act += dbl(s) * dbl(b) * dbl(h) * dbl(pp);
        embed = act - layers;
        if (vpp)
            act *= penalty;
        if (!vpp && pp > 1)
            act *= discount;
        if (pp == 1) {
            double logits = dbl(s) * dbl(b) * dbl(V);
            logits /= dbl(tp);
            const double finalLn = dbl(s) * dbl(b) * dbl(h);
            output = (logits + finalLn) * 2;
            act += output;
        }
        act *= 1.05;
        const double f = penalty * discount * 1.05;
        layers *= f;
        embed *= f;
        output *= 1.05;
    }
    r.activationBytes = act;
    r.activationLayers = layers;
    r.activationEmbedding = embed;
    r.activationOutput = output;

    constexpr double kMiB = 1024.0 * 1024.0;
    const double wMb = r.weightAndOptimizerBytes / kMiB, aMb = r.activationBytes / kMiB;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "Theoretical memory footprints: weight and optimizer=%.2f MB, activation=%.2f MB, total=%.2f MB", wMb,
                  aMb, wMb + aMb);
    r.printed = buf;
    return r;
}

DeepSpeedEstimate deepspeedZero2(int64_t P, int64_t gpusPerNode, int64_t nodes, bool cpuOffload, double buffer)
{
    DeepSpeedEstimate r;
    r.offloadOptimizer = cpuOffload;
    const int64_t totalGpus = nodes * gpusPerNode;
    double gpu = 0, cpu = 0;
    if (cpuOffload) {
        gpu = 2 * dbl(P);
        cpu = dbl(P) * dbl(std::max<int64_t>(4 * totalGpus, 16)) * buffer;
    } else {
        // 2 fp16 params + 18 = 2 fp16 grads + 4 fp32 grads + 4 fp32 params + 8 Adam, sharded.
        gpu = 2 * dbl(P) + dbl(pyInt(18 * dbl(P) / dbl(totalGpus)));
        cpu = dbl(P) * 4 * dbl(gpusPerNode) * buffer;
    }
    r.cpuBytes = pyInt(cpu);
    r.gpuBytes = pyInt(gpu);
    return r;
}

DeepSpeedEstimate deepspeedZero3(int64_t P, int64_t largest, int64_t gpusPerNode, int64_t nodes, bool cpuOffload,
                                 bool cpuOffloadParams, bool zeroInit, double buffer)
{
    DeepSpeedEstimate r;
    r.offloadOptimizer = cpuOffload;
    r.offloadParam = cpuOffload && cpuOffloadParams; // offload_param needs offload_optimizer there
    r.zeroInit = zeroInit;
    const int64_t totalGpus = nodes * gpusPerNode;
    const double gpusFactor = 1 / dbl(nodes);
    const double largestMemory = 4 * dbl(largest);
    // P * max(4 * gpn, k * gpus_factor): an int product when the int side wins, else a float one.
    auto timesMax = [&](double k) {
        const double m = k * gpusFactor;
        return 4 * dbl(gpusPerNode) >= m ? dbl(P) * (4 * dbl(gpusPerNode)) : dbl(P) * m;
    };
    double gpu = 0, cpu = 0;
    if (cpuOffload) {
        if (cpuOffloadParams) {
            gpu = largestMemory;
            cpu = zeroInit ? dbl(P) * 18 * gpusFactor * buffer : timesMax(18) * buffer;
        } else {
            gpu = largestMemory + dbl(pyInt(2 * dbl(P) / dbl(totalGpus)));
            cpu = zeroInit ? dbl(P) * 16 * gpusFactor * buffer : timesMax(16) * buffer;
        }
    } else {
        gpu = largestMemory + dbl(pyInt(18 * dbl(P) / dbl(totalGpus)));
        cpu = zeroInit ? dbl(largest) * 4 * dbl(gpusPerNode) * buffer : dbl(P) * 4 * dbl(gpusPerNode) * buffer;
    }
    r.cpuBytes = pyInt(cpu);
    r.gpuBytes = pyInt(gpu);
    r.largestLayerBytes = pyInt(largestMemory);
    return r;
}

int64_t megatronModelParams(const MegatronArgs& a)
{
    const MegatronEstimate e = megatronEstimate(a);
    int64_t n = pyInt(std::round(e.totalParams));
    const int64_t h = a.hiddenSize, kv = a.kvChannelsOrDefault(), heads = a.numAttentionHeads, g = a.queryGroups();
    const int64_t fc1 = a.swiglu ? 2 : 1;
    const std::vector<int> pattern = a.layerPattern();
    int64_t moeLayers = 0;
    for (int v : pattern)
        moeLayers += v;
    int64_t mtpMoe = 0, mtpDense = 0;
    if (a.mtpNumLayers) {
        const int64_t last = pattern.empty() ? 0 : pattern.back();
        mtpMoe = last * *a.mtpNumLayers;
        mtpDense = (1 - last) * *a.mtpNumLayers;
    }
    const int64_t moeAll = moeLayers + mtpMoe, denseAll = a.numLayers - moeLayers + mtpDense;
    if (a.addBiasLinear) {
        // Biases of linear_qkv/linear_proj (or MLA's projections), linear_fc1 and linear_fc2.
        int64_t attn = (heads + 2 * g) * kv + h;
        if (a.multiLatentAttention)
            attn = (a.qLoraRank ? *a.qLoraRank + heads * (a.qkHeadDim + a.qkPosEmbHeadDim)
                                : heads * (a.qkHeadDim + a.qkPosEmbHeadDim)) +
                   a.kvLoraRank + a.qkPosEmbHeadDim + heads * (a.qkHeadDim + a.vHeadDim) + h;
        const int64_t denseMlp = fc1 * a.ffn() + h;
        const int64_t expert = fc1 * a.moeFfn() + h;
        const int64_t shared = a.moeSharedExpertIntermediateSize ? fc1 * *a.moeSharedExpertIntermediateSize + h : 0;
        n += (denseAll + moeAll) * attn + denseAll * denseMlp + moeAll * (a.numExperts.value_or(0) * expert + shared);
    }
    if (a.positionEmbeddingType == "learned_absolute")
        n += a.maxPositionEmbeddings.value_or(a.seqLength) * h;
    return n;
}

int64_t megatronLargestTensor(const MegatronArgs& a)
{
    const int64_t h = a.hiddenSize, kv = a.kvChannelsOrDefault(), heads = a.numAttentionHeads, g = a.queryGroups();
    const int64_t fc1 = a.swiglu ? 2 : 1; // Megatron fuses gate and up into one linear_fc1
    int64_t m = std::max(a.paddedVocab() * h, a.ffn() * h * fc1);
    if (a.multiLatentAttention) {
        const int64_t qk = a.qkHeadDim + a.qkPosEmbHeadDim;
        m = std::max({m, a.qLoraRank ? *a.qLoraRank * h : h * heads * qk, a.qLoraRank.value_or(0) * heads * qk,
                      (a.kvLoraRank + a.qkPosEmbHeadDim) * h, a.kvLoraRank * heads * (a.qkHeadDim + a.vHeadDim),
                      heads * a.vHeadDim * h});
    } else {
        m = std::max({m, (heads + 2 * g) * kv * h, heads * kv * h}); // linear_qkv, linear_proj
    }
    if (a.numExperts) {
        const int64_t eh = a.moeLatentSize.value_or(h);
        m = std::max(
            {m, a.moeFfn() * eh * fc1, *a.numExperts * h, a.moeSharedExpertIntermediateSize.value_or(0) * h * fc1});
    }
    if (a.positionEmbeddingType == "learned_absolute")
        m = std::max(m, a.maxPositionEmbeddings.value_or(a.seqLength) * h);
    return m;
}

} // namespace trainmem
