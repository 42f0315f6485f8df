#include "params.h"

#include <algorithm>
#include <cmath>

namespace trainmem {
namespace {

double normParams(const Architecture& a, double width)
{
    return a.norm == NormKind::LayerNorm ? 2 * width : width;
}

// One FFN (dense, shared or routed expert) of width f between h channels (a latent MoE's routed experts: its latent
// width). GELU: up and down; SwiGLU (and Gemma's GeGLU): gate, up, down. Phi-3 fuses gate and up into one
// gate_up_proj of 2f rows: the same count.
double ffnParamsIn(const Architecture& a, double f, double h)
{
    const bool bias = a.mlpBiasOrDefault();
    if (a.ffnKind == FfnKind::Gelu)
        return 2 * h * f + (bias ? f + h : 0);
    return 3 * h * f + (bias ? 2 * f + h : 0);
}

// The same between the model's width.
double ffnParams(const Architecture& a, double f)
{
    return ffnParamsIn(a, f, static_cast<double>(a.hidden));
}

// One attention layer of kind `kind`: the full-attention layers may have their own head size, K/V heads and no
// v_proj (LayerKinds::fullHeadDim, Gemma 4); every other kind has the model's.
double attentionParamsOf(const Architecture& a, LayerKind kind)
{
    const double h = static_cast<double>(a.hidden);
    const double heads = static_cast<double>(a.heads);
    if (a.attention == AttentionKind::MLA) {
        // DeepSeek-V2/V3 modeling code: q_a_proj (+q_a_layernorm) -> q_b_proj; kv_a_proj_with_mqa
        // (+kv_a_layernorm) -> kv_b_proj; o_proj. No biases.
        const MlaConfig& m = a.mla;
        const double qk = static_cast<double>(m.qkNopeHeadDim + m.qkRopeHeadDim);
        double p = 0;
        if (m.qLoraRank > 0)
            p += h * m.qLoraRank + normParams(a, m.qLoraRank) + m.qLoraRank * heads * qk;
        else
            p += h * heads * qk;
        p += h * static_cast<double>(m.kvLoraRank + m.qkRopeHeadDim) + normParams(a, m.kvLoraRank);
        p += m.kvLoraRank * heads * static_cast<double>(m.qkNopeHeadDim + m.vHeadDim);
        p += heads * m.vHeadDim * h;
        // DeepSeek-V3.2's indexer (its inference/model.py Indexer, vendored in huggingface/transformers
        // src/transformers/models/deepseek_v32/deepseek_files/inference/model.py @
        // 220c122bc324fc4b3a5018929c4c61ee456885d7): wq_b Linear(q_lora_rank, heads_I·d_I), wk Linear(h, d_I),
        // k_norm LayerNorm(d_I) with weight and bias, weights_proj Linear(h, heads_I); no biases on the linears.
        if (m.indexHeads > 0) {
            const double d = static_cast<double>(m.indexHeadDim), n = static_cast<double>(m.indexHeads);
            p += static_cast<double>(m.qLoraRank > 0 ? m.qLoraRank : a.hidden) * n * d + h * d + 2 * d + h * n;
        }
        return p;
    }
    const double hd = static_cast<double>(a.headDimOf(kind));
    const double q = heads * hd;
    const double kv = static_cast<double>(a.kvHeadsOf(kind)) * hd;
    // Keys that double as values (Gemma 4's attention_k_eq_v full-attention layers) have no v_proj.
    const double kvProjections = a.keyIsValueIn(kind) ? 1 : 2;
    // q, k, v and o projections (Phi-3's fused qkv_proj has the same rows).
    double p = h * q + kvProjections * h * kv + q * h;
    // Gated attention: q_proj also yields the output gate, Linear(h, 2·heads·head_dim) (Qwen3NextAttention).
    if (a.gatedAttention)
        p += h * q + (a.attentionBiasOrDefault() != AttentionBias::None ? q : 0);
    switch (a.attentionBiasOrDefault()) {
    case AttentionBias::All:
        p += h; // the output projection's bias, then q/k/v's
        [[fallthrough]];
    case AttentionBias::Qkv:
        p += q + kvProjections * kv; // Qwen2: q_proj, k_proj, v_proj with bias, o_proj without
        break;
    case AttentionBias::None:
        break;
    }
    // Query/key norms: Qwen3 and Gemma 3 normalise each head (weight of head_dim, shared by the heads);
    // OLMo 2 normalises the whole projection (modeling_qwen3.py, modeling_gemma3.py, modeling_olmo2.py).
    if (a.attentionSinks)
        p += heads;
    if (a.qkNorm == QkNorm::PerHead)
        p += 2 * normParams(a, hd);
    else if (a.qkNorm == QkNorm::Full)
        p += normParams(a, q) + normParams(a, kv);
    return p;
}

// What a layer that reuses an earlier layer's keys and values does not hold (Gemma4TextAttention: "Layers sharing kv
// states don't need any weight matrices": no k_proj, v_proj, k_norm; v_norm has no weight anyway).
double kvProjectionParams(const Architecture& a, LayerKind kind)
{
    if (a.attention == AttentionKind::MLA)
        return 0;
    const double h = static_cast<double>(a.hidden);
    const double hd = static_cast<double>(a.headDimOf(kind));
    const double kv = static_cast<double>(a.kvHeadsOf(kind)) * hd;
    const double projections = a.keyIsValueIn(kind) ? 1 : 2;
    double p = projections * h * kv;
    if (a.attentionBiasOrDefault() != AttentionBias::None)
        p += projections * kv;
    if (a.qkNorm == QkNorm::PerHead)
        p += normParams(a, hd);
    else if (a.qkNorm == QkNorm::Full)
        p += normParams(a, kv);
    return p;
}

// The model's attention layer (every kind's but the full-attention layers' own shape).
double attentionParams(const Architecture& a)
{
    return attentionParamsOf(a, LayerKind::Sliding);
}

// The router (gate) of a MoE layer: h·E without bias; DeepSeek-V3 adds a per-expert score-correction bias, Qwen2-MoE
// a sigmoid gate h -> 1 in front of its shared expert, Gemma 4 a scale per input channel and one per expert.
double routerParams(const Architecture& a)
{
    const MoeConfig& m = a.moe;
    const double h = static_cast<double>(a.hidden), experts = static_cast<double>(m.experts);
    return h * experts + (m.scoreCorrectionBias ? experts : 0) + (m.sharedExpertGate ? h : 0) +
           (m.routerScales ? h + experts : 0);
}

// What every MoE layer holds besides its routed experts, all of it on every token's path: the shared experts, the
// dense FFN beside the experts (Gemma 4), the router and a latent MoE's two projections (NemotronHMoE:
// fc1_latent_proj Linear(h, latent) and fc2_latent_proj Linear(latent, h), bias=mlp_bias).
double sharedAndRouterParams(const Architecture& a)
{
    const MoeConfig& m = a.moe;
    const double h = static_cast<double>(a.hidden), latent = static_cast<double>(m.latent);
    const double latentProjections = m.latent > 0 ? 2 * h * latent + (a.mlpBiasOrDefault() ? latent + h : 0) : 0;
    return static_cast<double>(m.sharedExperts) * ffnParams(a, static_cast<double>(m.expertFfn)) +
           (m.denseBeside > 0 ? ffnParams(a, static_cast<double>(m.denseBeside)) : 0) + routerParams(a) +
           latentProjections;
}

// One routed expert: an FFN of expert_ffn between the model's width, or a latent MoE's latent width.
double routedExpertParams(const Architecture& a)
{
    return ffnParamsIn(a, static_cast<double>(a.moe.expertFfn), static_cast<double>(a.moe.expertIo(a.hidden)));
}

// One Gated DeltaNet layer's token mixer, as huggingface/transformers
// src/transformers/models/qwen3_next/modeling_qwen3_next.py Qwen3NextGatedDeltaNet builds it at
// 7515843b617551b008901620ca58f1208bbc330d: in_proj_qkvz Linear(h, 2·key_dim + 2·value_dim) and in_proj_ba
// Linear(h, 2·value_heads), no bias; a depthwise conv1d over q, k and v (conv_dim channels, kernel K, groups =
// conv_dim, no bias: conv_dim·K weights); dt_bias and A_log, one per value head; the gated RMSNorm of
// value_head_dim; out_proj Linear(value_dim, h), no bias.
double linearAttentionParams(const Architecture& a)
{
    const LinearAttentionConfig& g = a.kinds.linearAttention;
    const double h = static_cast<double>(a.hidden);
    const double kDim = static_cast<double>(g.keyDim()), vDim = static_cast<double>(g.valueDim());
    const double vHeads = static_cast<double>(g.valueHeads);
    return h * (2 * kDim + 2 * vDim) + h * 2 * vHeads + static_cast<double>(g.convDim() * g.convKernel) + 2 * vHeads +
           static_cast<double>(g.valueHeadDim) + vDim * h;
}

// One Mamba-2 mixer as transformers' modeling_nemotron_h.py NemotronHMamba2Mixer builds it at
// 897753a012bfa6dac8c0ae3281f23a2fc1e72db6: in_proj Linear(h, d_inner + conv_dim + heads, bias=use_bias); a depthwise
// conv1d of conv_dim channels and conv_kernel taps with a bias (use_conv_bias); dt_bias, A_log and D, one per head;
// the gated RMSNorm of d_inner (Zamba2RMSNormGated); out_proj Linear(d_inner, h, bias=use_bias).
double mambaParams(const Architecture& a)
{
    const Mamba2Config& m = a.kinds.mamba2;
    const double h = static_cast<double>(a.hidden);
    const double inner = static_cast<double>(m.innerDim()), conv = static_cast<double>(m.convDim());
    const double heads = static_cast<double>(m.heads);
    const double proj = inner + conv + heads;
    return h * proj + (m.projBias ? proj : 0) + conv * static_cast<double>(m.convKernel) + (m.convBias ? conv : 0) +
           3 * heads + inner + inner * h + (m.projBias ? h : 0);
}

int64_t toCount(double v)
{
    if (!std::isfinite(v) || v < 0)
        return 0;
    return static_cast<int64_t>(std::min(v, 9.0e18));
}

} // namespace

ParamCount countParams(const Architecture& a)
{
    const double h = static_cast<double>(a.hidden);
    const double L = static_cast<double>(a.layers);
    const double V = static_cast<double>(a.vocab);

    double embedding = V * h;
    if (a.learnedPositions)
        embedding += static_cast<double>(a.maxPositions) * h;
    if (!a.tiedEmbeddings)
        embedding += V * h; // separate output head
    if (a.headBias)
        embedding += V;
    const double finalNorm = normParams(a, h);

    const double perLayerCommon = attentionParams(a) + static_cast<double>(a.normsPerLayer) * normParams(a, h);
    const double denseFfn = ffnParams(a, static_cast<double>(a.ffn));

    double total = embedding + finalNorm + L * perLayerCommon;
    // Full-attention layers of their own shape (Gemma 4's global_head_dim, num_global_key_value_heads, k = v).
    if (a.kinds.fullShape()) {
        const double full = static_cast<double>(std::min(a.layersOfKind(LayerKind::Full), a.layers));
        total += full * (attentionParamsOf(a, LayerKind::Full) - attentionParams(a));
    }
    // Linear-attention layers (issue 29 §2) hold a Gated DeltaNet where the others hold attention.
    if (a.kinds.linear > 0) {
        const double linear = static_cast<double>(std::min(a.kinds.linear, a.layers));
        total += linear * (linearAttentionParams(a) - attentionParams(a));
    }
    // Mamba-2 layers likewise; FFN-only blocks (Nemotron-H's - and E) have no token mixer at all.
    if (a.kinds.mamba > 0)
        total += static_cast<double>(std::min(a.kinds.mamba, a.layers)) * (mambaParams(a) - attentionParams(a));
    if (a.kinds.ffnOnly > 0)
        total -= static_cast<double>(std::min(a.kinds.ffnOnly, a.layers)) * attentionParams(a);
    // Layers that take an earlier layer's K and V hold no K/V projections (Gemma 4 E2B, E4B), and under
    // use_double_wide_mlp an MLP twice as wide (Gemma4TextMLP: intermediate_size * 2 where is_kv_shared_layer).
    double sharedWiden = 0;
    for (const LayerKind k : {LayerKind::Sliding, LayerKind::Full})
        total -= static_cast<double>(a.kinds.kvSharedOf(k)) * kvProjectionParams(a, k);
    if (a.kinds.kvSharedFfn > 0 && !a.isMoe())
        sharedWiden = static_cast<double>(a.kinds.kvShared()) *
                      (ffnParams(a, static_cast<double>(a.kinds.kvSharedFfn)) - denseFfn);
    total += sharedWiden;
    // Per-layer embeddings (Gemma4TextModel, Gemma4TextDecoderLayer): per_layer_model_projection Linear(h, L·p) and
    // per_layer_projection_norm RMSNorm(p); in each layer per_layer_input_gate Linear(h, p), per_layer_projection
    // Linear(p, h), post_per_layer_input_norm RMSNorm(h), none with a bias. The table embed_tokens_per_layer
    // [V_p, L·p] is a lookup: counted with the embeddings, in the total but not the active count (Google's
    // "effective" parameters leave it out too).
    double perLayerTable = 0;
    if (a.perLayerInput > 0) {
        const double p = static_cast<double>(a.perLayerInput);
        total += h * L * p + normParams(a, p) + L * (2 * h * p + normParams(a, h));
        perLayerTable = static_cast<double>(a.perLayerVocab) * L * p;
    }
    // Mixer-only blocks (its M and *) have no FFN: the FFN counts below run over the FFN layers.
    const double ffnLayers = static_cast<double>(a.ffnLayers());
    double active = total;
    double routed = 0;
    if (a.isMoe()) {
        const MoeConfig& m = a.moe;
        const double denseLayers = static_cast<double>(std::min(m.denseLayers, a.layers));
        const double moeLayers = std::max(0.0, ffnLayers - denseLayers);
        const double leadFfn = ffnParams(a, static_cast<double>(m.denseFfn > 0 ? m.denseFfn : a.ffn));
        const double expert = routedExpertParams(a);
        routed = moeLayers * static_cast<double>(m.experts) * expert;
        const double sharedAndRouter = moeLayers * sharedAndRouterParams(a);
        total += denseLayers * leadFfn + routed + sharedAndRouter;
        active += denseLayers * leadFfn + sharedAndRouter + moeLayers * static_cast<double>(m.activeExperts) * expert;
    } else {
        total += ffnLayers * denseFfn;
        active += ffnLayers * denseFfn;
    }
    // Multi-token prediction (DeepSeek-V3 §2.2, Megatron-LM multi_token_prediction.py): per module the
    // projection M_k of [RMSNorm(h); RMSNorm(Emb)] (2h -> h, no bias), enorm and hnorm, one block of the last
    // layer's kind (MoE when the dense layers do not reach the end) and the shared head's final norm.
    double mtp = 0, mtpRouted = 0;
    if (a.mtpLayers > 0) {
        const double D = static_cast<double>(a.mtpLayers);
        double block = perLayerCommon + 2 * h * h + 3 * finalNorm;
        if (a.isMoe() && a.moe.denseLayers < a.layers) {
            const MoeConfig& m = a.moe;
            const double expert = routedExpertParams(a);
            mtpRouted = D * static_cast<double>(m.experts) * expert;
            block += sharedAndRouterParams(a);
        } else {
            block +=
                a.isMoe() ? ffnParams(a, static_cast<double>(a.moe.denseFfn > 0 ? a.moe.denseFfn : a.ffn)) : denseFfn;
        }
        mtp = D * block + mtpRouted;
    }
    total += perLayerTable;
    embedding += perLayerTable;
    ParamCount c{toCount(total),  toCount(active), toCount(embedding),
                 toCount(routed), toCount(mtp),    toCount(mtpRouted)};
    c.vision = std::max<int64_t>(a.visionParams, 0); // counted at import (hfconfig.cpp), outside total and active
    c.audio = std::max<int64_t>(a.audioParams, 0);
    return c;
}

Architecture shapeForSize(int64_t activeParams)
{
    Architecture a;
    a.vocab = 32000;
    a.ffnKind = FfnKind::SwiGLU;
    a.norm = NormKind::RMSNorm;
    a.attention = AttentionKind::MHA;
    a.tiedEmbeddings = false;
    a.bias = false;
    const double target = static_cast<double>(std::max<int64_t>(activeParams, 1));
    auto paramsFor = [&](double L) {
        const double h = 128 * L;
        return 12 * L * h * h + 2 * a.vocab * h;
    };
    // 12·L·(128L)² grows as L³: start from the cube root and pick the closer neighbour.
    double L = std::max(1.0, std::floor(std::cbrt(target / (12.0 * 128 * 128))));
    L = std::min(L, static_cast<double>(kMaxLayers));
    while (L > 1 && paramsFor(L) > target)
        L -= 1;
    if (L < kMaxLayers && std::fabs(paramsFor(L + 1) - target) < std::fabs(paramsFor(L) - target))
        L += 1;
    a.layers = static_cast<int64_t>(L);
    a.hidden = 128 * a.layers;
    a.heads = a.layers; // head_dim 128
    a.kvHeads = a.heads;
    a.headDim = 128;
    const int64_t f = (8 * a.hidden + 2) / 3;
    a.ffn = ((f + 127) / 128) * 128;
    return a;
}

ResolvedModel resolveModel(const ModelSpec& m)
{
    ResolvedModel r;
    if (m.hasArchitecture) {
        r.arch = m.architecture;
        r.params = countParams(r.arch);
        return r;
    }
    r.fromSize = true;
    const int64_t total = std::clamp<int64_t>(m.params, 1, kMaxParams);
    const int64_t active = m.activeParams > 0 ? std::min(m.activeParams, total) : total;
    r.arch = shapeForSize(active);
    r.params.total = total;
    r.params.active = active;
    // Embeddings of the made-up shape, capped so tiny models stay consistent.
    r.params.embedding = std::min<int64_t>(active, 2 * r.arch.vocab * r.arch.hidden);
    // Everything that is not on the active path sits in routed experts (what EP divides).
    r.params.routedExperts = total - active;
    return r;
}

} // namespace trainmem
