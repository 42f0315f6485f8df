#include "lora.h"

#include <algorithm>
#include <cmath>

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
struct Linears {
    double rank = 0;
    bool adaptMlp = false;
    bool lora = true; // accumulate r·(d_in + d_out), or d_in·d_out
    double total = 0, routed = 0;

    void add(double in, double out, double count, bool adapted, bool routedExpert = false)
    {
        if (lora && !adapted)
            return;
        const double v = count * (lora ? rank * (in + out) : in * out);
        total += v;
        if (routedExpert)
            routed += v;
    }

    void ffn(const Architecture& a, double f, double count, bool routedExpert = false)
    {
        const double h = dbl(a.hidden);
        if (a.ffnKind == FfnKind::SwiGLU)
            add(h, f, count, adaptMlp, routedExpert); // gate
        add(h, f, count, adaptMlp, routedExpert);     // up
        add(f, h, count, adaptMlp, routedExpert);     // down
    }

    void walk(const Architecture& a)
    {
        const double h = dbl(a.hidden);
        const double L = dbl(a.layers);
        const double heads = dbl(a.heads);
        if (a.attention == AttentionKind::MLA) {
            // DeepSeek-V2/V3 modeling code: q_a_proj → q_b_proj (or q_proj), kv_a_proj_with_mqa →
            // kv_b_proj, o_proj.
            const MlaConfig& m = a.mla;
            const double qk = dbl(m.qkNopeHeadDim + m.qkRopeHeadDim);
            if (m.qLoraRank > 0) {
                add(h, dbl(m.qLoraRank), L, true);
                add(dbl(m.qLoraRank), heads * qk, L, true);
            } else {
                add(h, heads * qk, L, true);
            }
            add(h, dbl(m.kvLoraRank + m.qkRopeHeadDim), L, true);
            add(dbl(m.kvLoraRank), heads * dbl(m.qkNopeHeadDim + m.vHeadDim), L, true);
            add(heads * dbl(m.vHeadDim), h, L, true);
        } else {
            const double hd = dbl(a.headDimOrDefault());
            const double q = heads * hd, kv = dbl(a.kvHeadsOrDefault()) * hd;
            add(h, q, L, true);  // q_proj
            add(h, kv, L, true); // k_proj
            add(h, kv, L, true); // v_proj
            add(q, h, L, true);  // o_proj
        }
        if (!a.isMoe()) {
            ffn(a, dbl(a.ffn), L);
            return;
        }
        const MoeConfig& m = a.moe;
        const double dense = dbl(std::min(m.denseLayers, a.layers));
        const double moe = L - dense;
        ffn(a, dbl(m.denseFfn > 0 ? m.denseFfn : a.ffn), dense);
        ffn(a, dbl(m.expertFfn), moe * dbl(m.experts), true);
        ffn(a, dbl(m.expertFfn), moe * dbl(m.sharedExperts));
        // The router (and Qwen2-MoE's shared-expert gate) are linears too: quantised, not adapted.
        add(h, dbl(m.experts), moe, false);
        if (m.sharedExpertGate)
            add(h, 1, moe, false);
    }
};

} // namespace

LinearCount loraParams(const Architecture& a, int64_t rank, LoraTargets targets)
{
    Linears l;
    l.rank = dbl(std::clamp<int64_t>(rank, 1, kMaxLoraRank));
    l.adaptMlp = targets == LoraTargets::All;
    l.walk(a);
    return {toCount(l.total), toCount(l.routed)};
}

LinearCount linearWeights(const Architecture& a)
{
    Linears l;
    l.lora = false;
    l.walk(a);
    return {toCount(l.total), toCount(l.routed)};
}

} // namespace trainmem
