#include "activations.h"

#include <algorithm>

namespace trainmem {
namespace {

// Inner tensors of one FFN of width f for one token set of size sb (the block input excluded).
double ffnInner(const Architecture& a, double sb, double f, double e, double lin)
{
    if (a.ffnKind == FfnKind::Gelu)
        return e * sb * f + lin * sb * f; // GeLU input + second linear input
    return e * sb * 2 * f + lin * sb * f; // fused gate‖up + down-projection input
}

// torch.compile's min-cut partitioner (torch/_functorch/partitioners.py, min_cut_rematerialization_partition) keeps
// what is costly to rebuild (matmul outputs, reductions) and recomputes pointwise results in the backward kernel. What
// this takes off the eager tape, an assumption stated in docs/accounting.md ("Recipes"): the FFN's product that feeds
// the down-projection (silu(gate)·up, or gelu(x)), lin·sb·f per FFN, rebuilt from the kept gate‖up (GeLU input);
// and the outputs of the two norms that feed the attention and FFN projections, lin·sb·h each, rebuilt from the norm's
// kept input and its fp32 1/rms (4·sb each, kept instead). The MoE layer's experts keep their own products (each
// expert is a separate grouped GEMM call) and are left as they are.
void compiledSavings(const Architecture& a, bool moeLayer, bool mlaRecompute, double sb, double lin,
                     LayerActivations& r)
{
    if (!(moeLayer && a.isMoe())) {
        const double f = static_cast<double>(a.moe.denseFfn <= 0 || moeLayer ? a.ffn : a.moe.denseFfn);
        r.mlp = std::max(0.0, r.mlp - lin * sb * f);
    }
    if (!mlaRecompute) {
        const double h = static_cast<double>(a.hidden);
        r.attention = std::max(0.0, r.attention - lin * sb * h);
        r.mlp = std::max(0.0, r.mlp - lin * sb * h);
        r.norms += 2 * 4 * sb;
    }
}

} // namespace

LayerActivations layerActivations(const Architecture& a, bool moeLayer, const ActivationInputs& in)
{
    // s is this rank's tokens (s/c under context parallel); `keys` the whole sequence its queries attend to.
    const double s = in.localSeq(), keys = in.seq, b = in.microBatch, sb = s * b;
    const double h = static_cast<double>(a.hidden);
    const double heads = static_cast<double>(a.heads);
    const double e = in.elementBytes;
    const double lin = in.fp8LinearInputs ? 1.0 : e;
    const bool dropout = a.dropoutOrDefault();

    double qDim, kDim, vDim, latents = 0;
    if (a.attention == AttentionKind::MLA) {
        const double qk = static_cast<double>(a.mla.qkNopeHeadDim + a.mla.qkRopeHeadDim);
        qDim = heads * qk;
        kDim = heads * qk;
        vDim = heads * static_cast<double>(a.mla.vHeadDim);
        latents = 2 * e * sb * static_cast<double>(a.mla.qLoraRank + a.mla.kvLoraRank);
    } else {
        const double hd = static_cast<double>(a.headDimOrDefault());
        qDim = heads * hd;
        kDim = static_cast<double>(a.kvHeadsOrDefault()) * hd;
        vDim = kDim;
    }
    const double attnOut = a.attention == AttentionKind::MLA ? vDim : qDim;

    LayerActivations r;
    // DeepSeek-V3 §3.2.3: with MLA, selective recomputation also reruns the cheap up-projections
    // (Q, K, V rebuilt from the kept latents) and every RMSNorm (the block inputs rebuilt from the
    // kept norm inputs), so neither is stored.
    const bool mlaRecompute = a.attention == AttentionKind::MLA && in.checkpointing == Checkpointing::Selective;
    const double attnInput = mlaRecompute ? 0.0 : lin * sb * h;
    const double qkv = mlaRecompute ? 0.0 : e * sb * (qDim + kDim) + e * sb * vDim;
    r.attention = attnInput + qkv + lin * sb * attnOut + latents;

    if (in.checkpointing == Checkpointing::None) {
        if (in.flashAttention)
            r.scores = 4 * heads * sb; // fp32 log-sum-exp per row (FlashAttention-2)
        else
            r.scores = (dropout ? (2 * e + 1) : e) * heads * s * keys * b;
    }

    const double mlpInput = mlaRecompute ? 0.0 : lin * sb * h;
    if (moeLayer && a.isMoe()) {
        const double f = static_cast<double>(a.moe.expertFfn);
        const double k = static_cast<double>(a.moe.activeExperts);
        const double shared = static_cast<double>(a.moe.sharedExperts);
        r.mlp = mlpInput + 4 * sb * static_cast<double>(a.moe.experts) +
                k * (lin * sb * h + ffnInner(a, sb, f, e, lin)) + shared * ffnInner(a, sb, f, e, lin);
    } else {
        const double f = static_cast<double>(moeLayer || a.moe.denseFfn <= 0 ? a.ffn : a.moe.denseFfn);
        r.mlp = mlpInput + ffnInner(a, sb, f, e, lin);
    }
    r.norms = 2 * e * sb * h;
    r.dropout = dropout ? 2 * sb * h : 0;
    if (in.compiled)
        compiledSavings(a, moeLayer, mlaRecompute, sb, lin, r);

    if (in.tp > 1) {
        if (in.sequenceParallel) {
            r.attention /= in.tp;
            r.scores /= in.tp;
            r.mlp /= in.tp;
            r.norms /= in.tp;
            r.dropout /= in.tp;
        } else {
            // Only the block inputs, norms and dropout masks stay whole on every rank.
            r.attention = attnInput + (r.attention - attnInput) / in.tp;
            r.mlp = mlpInput + (r.mlp - mlpInput) / in.tp;
            r.scores /= in.tp;
        }
    }
    return r;
}

double layerInputCheckpoint(const Architecture& a, const ActivationInputs& in)
{
    const double bytes = in.elementBytes * in.localSeq() * in.microBatch * static_cast<double>(a.hidden);
    return (in.tp > 1 && in.sequenceParallel) ? bytes / in.tp : bytes;
}

double korthikantiLayerBytes(double s, double b, double h, double a)
{
    return s * b * h * (34 + 5 * a * s / h);
}

} // namespace trainmem
