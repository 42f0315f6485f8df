#include "lora.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace trainmem {
namespace {

double dbl(int64_t v)
{
    return static_cast<double>(v);
}

int64_t toCount(double v)
{
    if (!std::isfinite(v) || v < 0)
        return 0;
    return static_cast<int64_t>(std::min(v, 9.0e18));
}

// The linear layers of the whole model, d_in → d_out, `count` of each, grouped the way the two
// target sets and expert parallelism need them. The shapes are the Hugging Face modules' (the
// same ones core/model/params.cpp counts).
constexpr std::array<std::pair<uint32_t, const char*>, 17> kModuleNames{{{kLoraQ, "q_proj"},
                                                                         {kLoraK, "k_proj"},
                                                                         {kLoraV, "v_proj"},
                                                                         {kLoraO, "o_proj"},
                                                                         {kLoraGate, "gate_proj"},
                                                                         {kLoraUp, "up_proj"},
                                                                         {kLoraDown, "down_proj"},
                                                                         {kLoraQA, "q_a_proj"},
                                                                         {kLoraQB, "q_b_proj"},
                                                                         {kLoraKvA, "kv_a_proj_with_mqa"},
                                                                         {kLoraKvB, "kv_b_proj"},
                                                                         {kLoraInProjQkvz, "in_proj_qkvz"},
                                                                         {kLoraInProjBa, "in_proj_ba"},
                                                                         {kLoraOutProj, "out_proj"},
                                                                         {kLoraInProj, "in_proj"},
                                                                         {kLoraFc1Latent, "fc1_latent_proj"},
                                                                         {kLoraFc2Latent, "fc2_latent_proj"}}};

std::string trimmed(const std::string& s)
{
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

struct Linears {
    double rank = 0;
    uint32_t modules = 0; // the adapted LoraModule bits
    bool lora = true;     // accumulate r·(d_in + d_out), or d_in·d_out
    double total = 0, routed = 0;
    bool routers = true;      // count the routers (module 0) when !lora
    bool expertsOnly = false; // count only routed experts' linears
    double rows = 0, tensors = 0;

    // `module` is the linear's LoraModule bit, 0 for one LoRA never adapts (the router).
    void add(double in, double out, double count, uint32_t module, bool routedExpert = false)
    {
        if (lora && (modules & module) == 0)
            return;
        if (!lora && ((!routers && module == 0) || (expertsOnly && !routedExpert)))
            return;
        rows += count * out;
        tensors += count;
        const double v = count * (lora ? rank * (in + out) : in * out);
        total += v;
        if (routedExpert)
            routed += v;
    }

    // `io` is the width the FFN reads and writes: the model's, or a latent MoE's latent width for its routed experts.
    void ffn(const Architecture& a, double f, double count, bool routedExpert = false, double io = 0)
    {
        const double h = io > 0 ? io : dbl(a.hidden);
        if (a.ffnKind == FfnKind::SwiGLU)
            add(h, f, count, kLoraGate, routedExpert); // gate
        add(h, f, count, kLoraUp, routedExpert);       // up
        add(f, h, count, kLoraDown, routedExpert);     // down
    }

    // Gated DeltaNet layers (issue 29 §2; modeling_qwen3_next.py Qwen3NextGatedDeltaNet at
    // 7515843b617551b008901620ca58f1208bbc330d): in_proj_qkvz, in_proj_ba and out_proj; the conv1d is not a linear.
    void linearAttention(const Architecture& a, double count)
    {
        const LinearAttentionConfig& g = a.kinds.linearAttention;
        const double h = dbl(a.hidden);
        add(h, dbl(2 * g.keyDim() + 2 * g.valueDim()), count, kLoraInProjQkvz);
        add(h, dbl(2 * g.valueHeads), count, kLoraInProjBa);
        add(dbl(g.valueDim()), h, count, kLoraOutProj);
    }

    void walk(const Architecture& a)
    {
        const double h = dbl(a.hidden);
        // The attention projections sit in the attention layers only; linear-attention layers have their own.
        const double L = dbl(a.attentionLayers());
        if (a.kinds.linear > 0)
            linearAttention(a, dbl(std::min(a.kinds.linear, a.layers)));
        if (a.kinds.mamba > 0) {
            // Mamba-2 (modeling_nemotron_h.py NemotronHMamba2Mixer @ 897753a012bfa6dac8c0ae3281f23a2fc1e72db6):
            // in_proj h -> d_inner + conv_dim + heads, out_proj d_inner -> h.
            const Mamba2Config& m = a.kinds.mamba2;
            const double count = dbl(std::min(a.kinds.mamba, a.layers));
            add(h, dbl(m.innerDim() + m.convDim() + m.heads), count, kLoraInProj);
            add(dbl(m.innerDim()), h, count, kLoraOutProj);
        }
        const double heads = dbl(a.heads);
        if (a.attention == AttentionKind::MLA) {
            // DeepSeek-V2/V3 modeling code: q_a_proj → q_b_proj (or q_proj), kv_a_proj_with_mqa →
            // kv_b_proj, o_proj.
            const MlaConfig& m = a.mla;
            const double qk = dbl(m.qkNopeHeadDim + m.qkRopeHeadDim);
            if (m.qLoraRank > 0) {
                add(h, dbl(m.qLoraRank), L, kLoraQA);
                add(dbl(m.qLoraRank), heads * qk, L, kLoraQB);
            } else {
                add(h, heads * qk, L, kLoraQ);
            }
            add(h, dbl(m.kvLoraRank + m.qkRopeHeadDim), L, kLoraKvA);
            add(dbl(m.kvLoraRank), heads * dbl(m.qkNopeHeadDim + m.vHeadDim), L, kLoraKvB);
            add(heads * dbl(m.vHeadDim), h, L, kLoraO);
            if (m.indexHeads > 0) {
                // DeepSeek-V3.2's indexer (params.cpp): wq_b, wk, weights_proj, linears LoRA leaves alone.
                add(dbl(m.qLoraRank > 0 ? m.qLoraRank : a.hidden), dbl(m.indexHeads * m.indexHeadDim), L, 0);
                add(h, dbl(m.indexHeadDim), L, 0);
                add(h, dbl(m.indexHeads), L, 0);
            }
        } else {
            // Full-attention layers of their own shape (Gemma 4) apart from the others; its k = v layers have no
            // v_proj to adapt.
            const double full = a.kinds.fullShape() ? dbl(std::min(a.layersOfKind(LayerKind::Full), a.layers)) : 0;
            auto projections = [&](LayerKind kind, double count) {
                if (count <= 0)
                    return;
                const double hd = dbl(a.headDimOf(kind));
                const double q = heads * hd, kv = dbl(a.kvHeadsOf(kind)) * hd;
                add(h, a.gatedAttention ? 2 * q : q, count, kLoraQ); // q_proj (and the output gate's rows)
                add(h, kv, count, kLoraK);                           // k_proj
                if (!a.keyIsValueIn(kind))
                    add(h, kv, count, kLoraV); // v_proj
                add(q, h, count, kLoraO);      // o_proj
            };
            projections(LayerKind::Full, full);
            projections(LayerKind::Sliding, L - full); // every other attention layer has the model's shape
        }
        const double layers = dbl(a.ffnLayers()); // Nemotron-H's M and * blocks have no FFN
        if (!a.isMoe()) {
            ffn(a, dbl(a.ffn), layers);
            return;
        }
        const MoeConfig& m = a.moe;
        const double dense = dbl(std::min(m.denseLayers, a.layers));
        const double moe = layers - dense;
        ffn(a, dbl(m.denseFfn > 0 ? m.denseFfn : a.ffn), dense);
        ffn(a, dbl(m.expertFfn), moe * dbl(m.experts), true, dbl(m.expertIo(a.hidden)));
        if (m.latent > 0) { // NemotronHMoE's fc1_latent_proj and fc2_latent_proj, on every token's path
            add(h, dbl(m.latent), moe, kLoraFc1Latent);
            add(dbl(m.latent), h, moe, kLoraFc2Latent);
        }
        ffn(a, dbl(m.expertFfn), moe * dbl(m.sharedExperts));
        if (m.denseBeside > 0) // Gemma 4's dense mlp beside the experts
            ffn(a, dbl(m.denseBeside), moe);
        // The router (and Qwen2-MoE's shared-expert gate) are linears too: quantised, not adapted.
        add(h, dbl(m.experts), moe, 0);
        if (m.sharedExpertGate)
            add(h, 1, moe, 0);
    }
};

} // namespace

LinearCount loraParams(const Architecture& a, int64_t rank, LoraTargets targets)
{
    return loraParams(a, rank, loraModulesOf(targets));
}

LinearCount loraParams(const Architecture& a, int64_t rank, uint32_t modules)
{
    Linears l;
    l.rank = dbl(std::clamp<int64_t>(rank, 1, kMaxLoraRank));
    l.modules = modules;
    l.walk(a);
    return {toCount(l.total), toCount(l.routed)};
}

LinearCount loraParams(const Architecture& a, const TrainingSetup& t)
{
    return loraParams(a, t.loraRank, t.loraModules != 0 ? t.loraModules : loraModulesOf(t.loraTargets));
}

uint32_t loraModulesOf(LoraTargets t)
{
    const uint32_t attn = kLoraQ | kLoraK | kLoraV | kLoraO | kLoraQA | kLoraQB | kLoraKvA | kLoraKvB;
    return t == LoraTargets::All ? attn | kLoraGate | kLoraUp | kLoraDown | kLoraInProjQkvz | kLoraInProjBa |
                                       kLoraOutProj | kLoraInProj | kLoraFc1Latent | kLoraFc2Latent
                                 : attn;
}

std::optional<uint32_t> loraModulesFromList(const std::string& list, std::string* why)
{
    uint32_t modules = 0;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string name = trimmed(list.substr(start, comma - start));
        uint32_t bit = 0;
        for (const auto& [b, n] : kModuleNames)
            if (name == n)
                bit = b;
        if (bit == 0) {
            if (why)
                *why = name.empty() ? "an empty module name in \"" + list + "\""
                                    : "unknown module \"" + name + "\" (known: " + loraModuleNames() + ")";
            return std::nullopt;
        }
        modules |= bit;
        start = comma + 1;
    }
    return modules;
}

std::string loraModulesList(uint32_t modules)
{
    std::string out;
    for (const auto& [b, n] : kModuleNames)
        if (modules & b)
            out += (out.empty() ? "" : ",") + std::string(n);
    return out;
}

std::string loraModuleNames()
{
    std::string out;
    for (const auto& [b, n] : kModuleNames)
        out += (out.empty() ? "" : "|") + std::string(n);
    return out;
}

LinearCount linearWeights(const Architecture& a)
{
    Linears l;
    l.lora = false;
    l.walk(a);
    return {toCount(l.total), toCount(l.routed)};
}

QuantisedLinears servedQuantisedLinears(const Architecture& a, bool expertsOnly)
{
    Linears l;
    l.lora = false;
    l.routers = false;
    l.expertsOnly = expertsOnly && a.isMoe();
    l.walk(a);
    return {{toCount(l.total), toCount(l.routed)}, l.rows, l.tensors};
}

} // namespace trainmem
