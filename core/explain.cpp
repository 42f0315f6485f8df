#include "explain.h"

#include "activations.h"
#include "recipe.h"
#include "units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace trainmem {
namespace {

double dbl(int64_t v) { return static_cast<double>(v); }

// Numbers as they read in a formula: small integers plainly, large ones grouped by thousands,
// fractions with four significant digits.
std::string num(double v)
{
    char buf[64];
    if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e18) {
        const long long n = static_cast<long long>(std::llround(v));
        if (std::llabs(n) < 1'000'000) {
            std::snprintf(buf, sizeof buf, "%lld", n);
            return buf;
        }
        std::string digits = std::to_string(std::llabs(n));
        std::string out;
        for (size_t i = 0; i < digits.size(); ++i) {
            if (i > 0 && (digits.size() - i) % 3 == 0)
                out += ',';
            out += digits[i];
        }
        return (n < 0 ? "-" : "") + out;
    }
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string bytesUnit(double perElement) { return num(perElement) + " B"; }

// The layout and activation inputs are account()'s own (core/accounting.h), so the explained
// numbers cannot drift from the Breakdown's.
using Layout = ParallelLayout;
Layout layoutOf(const Scenario& s, const ResolvedModel& m) { return parallelLayout(s, m); }
ActivationInputs inputsOf(const Scenario& s, double tp) { return activationInputs(s, tp); }

// The widest intermediate per token (core/accounting.cpp, widestIntermediate).
double widest(const Architecture& a, std::string* why)
{
    const double hd = dbl(a.headDimOrDefault());
    const double qkv = dbl(a.heads) * hd + 2 * dbl(a.kvHeadsOrDefault()) * hd;
    const double ffnMul = a.ffnKind == FfnKind::SwiGLU ? 2 : 1;
    const double ffn = ffnMul * dbl(std::max(a.ffn, a.moe.denseFfn));
    double w = std::max(qkv, ffn);
    *why = w == qkv ? "the fused QKV projection, a·d + 2·kv·d" : (ffnMul == 2 ? "the fused gate‖up projection, 2·f" : "the FFN's first projection, f");
    if (a.isMoe()) {
        const double moe = ffnMul * dbl(a.moe.expertFfn) * dbl(std::max<int64_t>(a.moe.activeExperts, 1));
        if (moe > w) {
            w = moe;
            *why = "the k routed experts' inner tensors, k·(2·)f_e";
        }
    }
    return w;
}

// "P" with its divisors, for model state: "P_dense/(t·p·d) + P_experts/(t·p·e·d_e)".
struct StateTerm {
    std::string symbolic, numbers;
    double params = 0;  // parameters held per GPU
};

StateTerm stateTerm(const ResolvedModel& m, const Layout& p, bool byZero, bool inference)
{
    const double total = dbl(m.params.total);
    const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
    const double dense = total - routed;
    const bool zero = byZero && !inference;
    auto part = [&](const char* name, double count, bool experts) {
        std::vector<std::pair<std::string, int64_t>> div;
        if (p.tp > 1) div.push_back({"t", p.tp});
        if (p.pp > 1) div.push_back({"p", p.pp});
        if (experts && p.ep > 1) div.push_back({"e", p.ep});
        const int64_t zd = experts ? p.dpExpert : p.dp;
        if (zero && zd > 1) div.push_back({experts ? "d_e" : "d", zd});
        std::string sym = name, nums = num(count);
        double v = count;
        if (!div.empty()) {
            std::string ds, dn;
            double prod = 1;
            for (size_t i = 0; i < div.size(); ++i) {
                ds += (i ? "·" : "") + div[i].first;
                dn += (i ? "·" : "") + num(dbl(div[i].second));
                prod *= dbl(div[i].second);
            }
            sym += div.size() > 1 ? "/(" + ds + ")" : "/" + ds;
            nums += div.size() > 1 ? "/(" + dn + ")" : "/" + dn;
            v = count / prod;
        }
        return std::tuple<std::string, std::string, double>{sym, nums, v};
    };
    StateTerm t;
    if (routed > 0) {
        auto [ds, dn, dv] = part("P_dense", dense, false);
        auto [es, en, ev] = part("P_experts", routed, true);
        t.symbolic = "(" + ds + " + " + es + ")";
        t.numbers = "(" + dn + " + " + en + ")";
        t.params = dv + ev;
    } else {
        auto [ds, dn, dv] = part("P", total, false);
        t.symbolic = ds;
        t.numbers = dn;
        t.params = dv;
    }
    return t;
}

std::string recipeSource(const Scenario& s)
{
    std::string src = "Rajbhandari et al. 2019, ZeRO, §3.1 (16 B per parameter for mixed-precision Adam) and §5 (stages)";
    if (s.training.precision == Precision::FP8Mixed)
        src += "; DeepSeek-V3 technical report §3.3 (fp8 GEMMs, bf16 moments, fp32 master and gradients)";
    if (s.training.optimizer == Optimizer::Adam8bit)
        src += "; Dettmers et al. 2021, 8-bit Optimizers via Block-wise Quantization";
    if (s.training.optimizer == Optimizer::Adafactor)
        src += "; Shazeer & Stern 2018, Adafactor (factored second moments)";
    return src + "; core/recipe.cpp";
}

std::string layoutAssumption(const Layout& p, int zeroThreshold, bool inference)
{
    std::string a;
    if (inference)
        a = "Serving: one copy of the weights, divided only by model parallelism (tensor, pipeline, expert).";
    else if (p.dp > 1 && p.zero >= zeroThreshold)
        a = "Sharded by ZeRO-" + std::to_string(p.zero) + " over the " + std::to_string(p.dp) + " data-parallel ranks.";
    else if (p.dp > 1)
        a = "Replicated on all " + std::to_string(p.dp) + " data-parallel ranks (ZeRO-" + std::to_string(zeroThreshold)
            + " or higher would shard it).";
    else
        a = "One data-parallel rank: nothing to shard across.";
    if (p.tp > 1 || p.pp > 1)
        a += " Tensor ×" + std::to_string(p.tp) + " and pipeline ×" + std::to_string(p.pp) + " divide the layers' parameters.";
    return a;
}

Explanation modelStateSegment(SegmentKind k, const Scenario& s, const Breakdown& b)
{
    const Layout p = layoutOf(s, b.model);
    const bool inference = s.training.mode == Mode::Inference;
    struct Row { const char* title; const char* sym; double bytes; int zero; const char* what; };
    const StateRecipe& r = b.recipe;
    Row row{};
    switch (k) {
    case SegmentKind::Weights:
        row = {"Weights", "b_w", r.weights, 3,
               inference ? "Weights stored at the serving precision (bf16 2 B, int8 1 B, int4 0.5 B)."
                         : "The working copy forward and backward read."};
        break;
    case SegmentKind::Gradients:
        row = {"Gradients", "b_g", r.gradients, 2, "One gradient per parameter, kept until the optimizer step."};
        break;
    case SegmentKind::Master:
        row = {"Master weights", "b_m", r.master, 1,
               "Mixed precision updates an fp32 copy so that small updates are not rounded away in 16 bits."};
        break;
    default:
        row = {"Optimizer state", "b_o", r.optimizer, 1, ""};
        break;
    }
    Explanation e;
    e.title = std::string(row.title) + " per GPU";
    const StateTerm t = stateTerm(b.model, p, p.zero >= row.zero, inference);
    e.formula = std::string(row.sym) + " · " + t.symbolic;
    e.substituted = bytesUnit(row.bytes) + " × " + t.numbers;
    e.value = row.bytes * t.params;
    std::string what = row.what;
    if (k == SegmentKind::Optimizer)
        what = std::to_string(r.slotCount) + " slot(s) of " + num(r.slotBytes) + " B per parameter for "
               + toString(s.training.optimizer) + " (Adam keeps the running mean m and variance v).";
    if (inference && k != SegmentKind::Weights)
        what = "Serving keeps no gradients, master copy or optimizer state.";
    e.assumptions = what + " " + layoutAssumption(p, row.zero, inference)
                    + " P counts every parameter, sleeping experts included: model state scales with total, not active, parameters.";
    e.source = recipeSource(s);
    return e;
}

bool korthikantiShaped(const Architecture& a, const ActivationInputs& in)
{
    return !a.isMoe() && a.ffnKind == FfnKind::Gelu && a.dropoutOrDefault() && a.attention != AttentionKind::MLA
           && a.kvHeadsOrDefault() == a.heads && a.headDimOrDefault() * a.heads == a.hidden && a.ffn == 4 * a.hidden
           && in.elementBytes == 2 && !in.fp8LinearInputs && in.tp == 1;
}

std::string bytesList(const LayerActivations& l)
{
    return "(" + formatBytes(l.attention) + " + " + formatBytes(l.scores) + " + " + formatBytes(l.mlp) + " + "
           + formatBytes(l.norms) + " + " + formatBytes(l.dropout) + ")";
}

Explanation activationSegment(const Scenario& s, const Breakdown& b)
{
    Explanation e;
    const Architecture& a = b.model.arch;
    const Layout p = layoutOf(s, b.model);
    const ActivationInputs in = inputsOf(s, dbl(p.tp));
    const double S = in.seq, B = in.microBatch, H = dbl(a.hidden), A = dbl(a.heads);
    const double L = dbl(std::max<int64_t>(a.layers, 1));
    const int64_t denseLayers = a.isMoe() ? std::min(a.moe.denseLayers, a.layers) : a.layers;
    const double nDense = dbl(denseLayers), nMoe = L - nDense;
    const bool inference = s.training.mode == Mode::Inference;

    ActivationInputs none = in;
    none.checkpointing = Checkpointing::None;
    const LayerActivations dNone = layerActivations(a, false, none);
    const LayerActivations eNone = a.isMoe() ? layerActivations(a, true, none) : dNone;
    const double largest = std::max(nDense > 0 ? dNone.total() : 0.0, nMoe > 0 ? eNone.total() : 0.0);
    const std::string src = "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, §4.1 "
                            "(per-layer terms), §5 (selective and full recomputation); core/activations.h";

    if (inference) {
        e.title = "Activations (inference: one layer's working set)";
        e.formula = "max over layer kinds of (attention + scores + mlp + norms + dropout), no tape kept";
        e.substituted = bytesList(nMoe > 0 && eNone.total() >= dNone.total() ? eNone : dNone);
        e.value = largest;
        e.assumptions = "Serving frees each layer's tensors after use; only the largest layer is resident at once.";
        e.source = src;
        return e;
    }

    const double stage = dbl(b.layersPerStage);
    const double inflight = b.lastStageIsPeak ? 1 : dbl(p.pp);
    std::string layersSym = p.pp > 1 ? "L/p" : "L", layersNum = p.pp > 1 ? num(stage) : num(L);
    if (!b.lastStageIsPeak) {
        layersSym += " × p in flight";
        layersNum += " × " + num(inflight);
    }
    const std::string tpNote = p.tp > 1 ? (in.sequenceParallel ? " Tensor parallel ×" + std::to_string(p.tp) + " with sequence parallelism divides every term."
                                                               : " Tensor parallel ×" + std::to_string(p.tp) + " without sequence parallelism: norms, dropout masks and block inputs stay whole.")
                                        : "";
    const std::string ppNote = p.pp > 1 ? (b.lastStageIsPeak ? " Pipeline ×" + std::to_string(p.pp) + ": the last stage (with the logits) is the peak."
                                                             : " Pipeline ×" + std::to_string(p.pp) + " with 1F1B: the first stage keeps p micro-batches in flight (Narayanan et al. 2021).")
                                        : "";

    if (in.checkpointing == Checkpointing::Full) {
        e.title = "Activations (full checkpointing)";
        e.formula = "e·s·b·h" + std::string(p.tp > 1 && in.sequenceParallel ? "/t" : "") + " × " + layersSym
                    + " + one layer's full tape during its backward";
        const double ckpt = layerInputCheckpoint(a, in);
        e.substituted = num(in.elementBytes) + "·" + num(S) + "·" + num(B) + "·" + num(H)
                        + (p.tp > 1 && in.sequenceParallel ? "/" + num(dbl(p.tp)) : "") + " × " + layersNum + " + "
                        + formatBytes(largest);
        e.value = ckpt * stage * inflight + largest;
        e.assumptions = "Only each layer's input is stored; the backward pass reruns the layer's forward (about one "
                        "extra forward, +33% compute) and holds that one layer's tape meanwhile." + tpNote + ppNote;
        e.source = src + "; Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost";
        return e;
    }

    const bool selective = in.checkpointing == Checkpointing::Selective;
    e.title = selective ? "Activations (selective checkpointing)" : "Activations (no checkpointing)";
    const LayerActivations dl = layerActivations(a, false, in);
    const LayerActivations el = a.isMoe() ? layerActivations(a, true, in) : dl;
    const std::string sbh = num(S) + "·" + num(B) + "·" + num(H);
    if (korthikantiShaped(a, in)) {
        // Korthikanti's GPT configuration: the closed form is exact (tests/tst_activations.cpp).
        double perLayer;
        if (selective) {
            e.formula = "34·s·b·h × " + layersSym;
            e.substituted = "34·" + sbh + " × " + layersNum;
            perLayer = 34 * S * B * H;
        } else if (in.flashAttention) {
            e.formula = "(s·b·h·34 + 4·a·s·b) × " + layersSym;
            e.substituted = "(" + sbh + "·34 + 4·" + num(A) + "·" + num(S) + "·" + num(B) + ") × " + layersNum;
            perLayer = S * B * H * 34 + 4 * A * S * B;
        } else {
            e.formula = "s·b·h·(34 + 5·a·s/h) × " + layersSym;
            e.substituted = sbh + "·(34 + 5·" + num(A) + "·" + num(S) + "/" + num(H) + ") × " + layersNum;
            perLayer = korthikantiLayerBytes(S, B, H, A);
        }
        e.value = perLayer * stage * inflight;
        e.assumptions = std::string("GPT block with 16-bit activations, dropout and a 4h GeLU MLP: attention 11·sbh, MLP "
                                    "19·sbh, norms 4·sbh")
                        + (selective ? "; selective recomputation drops the 5·a·s²·b of scores, softmax and dropout."
                                     : in.flashAttention ? "; fused (flash) attention keeps only fp32 softmax statistics, 4·a·s·b, instead of 5·a·s²·b."
                                                         : "; the 5·a·s²·b term is the attention scores, softmax output and dropout mask.")
                        + ppNote;
        e.source = src;
        return e;
    }

    // General architectures: the same terms, written for this model's widths.
    if (a.isMoe() && nDense > 0 && nMoe > 0) {
        e.formula = "(L_dense·tape_dense + L_moe·tape_moe)/L × " + layersSym
                    + ", tape = attention + scores + mlp + norms + dropout";
        e.substituted = "(" + num(nDense) + "·" + bytesList(dl) + " + " + num(nMoe) + "·" + bytesList(el) + ")/" + num(L)
                        + " × " + layersNum;
    } else {
        const LayerActivations& one = a.isMoe() ? el : dl;
        e.formula = "(attention + scores + mlp + norms + dropout) × " + layersSym;
        e.substituted = bytesList(one) + " × " + layersNum;
    }
    e.value = (nDense * dl.total() + nMoe * el.total()) / L * stage * inflight;
    std::string as = "Korthikanti's terms generalised: " + std::string(a.ffnKind == FfnKind::SwiGLU ? "SwiGLU keeps gate‖up and the down-projection input" : "GeLU MLP")
                     + (a.kvHeadsOrDefault() != a.heads ? ", grouped-query K and V" : "")
                     + (a.dropoutOrDefault() ? ", dropout masks" : ", no dropout")
                     + (a.isMoe() ? ", MoE keeps each of the k routed experts' inputs and the fp32 router logits" : "")
                     + (in.fp8LinearInputs ? ", linear-layer inputs cached in fp8" : "") + "; "
                     + (selective ? "selective recomputation drops the attention scores."
                                  : in.flashAttention ? "flash attention keeps 4·a·s·b of softmax statistics instead of the s² scores."
                                                      : "the attention scores grow with s².");
    e.assumptions = as + tpNote + ppNote;
    e.source = src;
    return e;
}

Explanation kvSegment(const Scenario& s, const Breakdown& b)
{
    Explanation e;
    e.title = "KV cache";
    const Architecture& a = b.model.arch;
    const Layout p = layoutOf(s, b.model);
    const double S = dbl(std::clamp<int64_t>(s.training.seqLen, 1, kMaxSeq));
    const double B = dbl(std::clamp<int64_t>(s.training.microBatch, 1, kMaxMicroBatch));
    const double Ls = dbl(b.layersPerStage);
    if (s.training.mode == Mode::Training) {
        e.formula = "0";
        e.substituted = "0";
        e.value = 0;
        e.assumptions = "Training keeps no KV cache: keys and values are part of the activation tape.";
        e.source = "DESIGN.md §2.2";
        return e;
    }
    const std::string L = p.pp > 1 ? "L/p" : "L";
    if (a.attention == AttentionKind::MLA) {
        e.formula = L + " · (r_kv + d_rope) · s · b · 2 B";
        e.substituted = num(Ls) + " · (" + num(dbl(a.mla.kvLoraRank)) + " + " + num(dbl(a.mla.qkRopeHeadDim)) + ") · "
                        + num(S) + " · " + num(B) + " · 2 B";
        e.value = Ls * dbl(a.mla.kvLoraRank + a.mla.qkRopeHeadDim) * S * B * 2;
        e.assumptions = "Multi-head latent attention caches the compressed KV latent and the shared rope key, not per-head K and V.";
        e.source = "DeepSeek-V2 technical report §2.1; DESIGN.md §2.2";
        return e;
    }
    const std::string t = p.tp > 1 ? " / t" : "";
    e.formula = "2 · " + L + " · kv_heads · d_head · s · b · 2 B" + t;
    e.substituted = "2 · " + num(Ls) + " · " + num(dbl(a.kvHeadsOrDefault())) + " · " + num(dbl(a.headDimOrDefault())) + " · "
                    + num(S) + " · " + num(B) + " · 2 B" + (p.tp > 1 ? " / " + num(dbl(p.tp)) : "");
    e.value = 2 * Ls * dbl(a.kvHeadsOrDefault()) * dbl(a.headDimOrDefault()) * S * B * 2 / dbl(p.tp);
    e.assumptions = "K and V for every past token of every layer in 16 bits; grouped-query attention shares them across heads.";
    e.source = "DESIGN.md §2.2; Ainslie et al. 2023 (GQA)";
    return e;
}

Explanation logitsSegment(const Scenario& s, const Breakdown& b)
{
    Explanation e;
    e.title = "Logits";
    const Layout p = layoutOf(s, b.model);
    const ActivationInputs in = inputsOf(s, dbl(p.tp));
    const double V = dbl(b.model.arch.vocab);
    const std::string t = p.tp > 1 ? " / t" : "", tn = p.tp > 1 ? " / " + num(dbl(p.tp)) : "";
    if (s.training.mode == Mode::Inference) {
        e.formula = "b · V · 4 B" + t;
        e.substituted = num(in.microBatch) + " · " + num(V) + " · 4 B" + tn;
        e.value = in.microBatch * V * 4 / dbl(p.tp);
        e.assumptions = "Generation scores only the last position, in fp32.";
        e.source = "DESIGN.md §2.3";
        return e;
    }
    e.formula = "s · b · V · (e + 4 B)" + t;
    if (!b.lastStageIsPeak) {
        e.substituted = "0 on the first pipeline stage";
        e.value = 0;
        e.assumptions = "The logits live on the last pipeline stage; the first stage, with p micro-batches in flight, is the peak.";
    } else {
        e.substituted = num(in.seq) + " · " + num(in.microBatch) + " · " + num(V) + " · (" + num(in.elementBytes) + " + 4) B" + tn;
        e.value = in.seq * in.microBatch * V * (in.elementBytes + 4) / dbl(p.tp);
        e.assumptions = "One score per vocabulary entry per token in 16 bits, plus an fp32 copy for the softmax cross-entropy. "
                        "At long context and large vocabularies this rivals the weights.";
    }
    e.source = "DESIGN.md §2.3; Megatron-LM theoretical_memory_usage.py (output layer)";
    return e;
}

Explanation workspaceSegment(const Scenario& s, const Breakdown& b)
{
    Explanation e;
    e.title = "Workspace";
    const Layout p = layoutOf(s, b.model);
    const ActivationInputs in = inputsOf(s, dbl(p.tp));
    std::string why;
    const double w = widest(b.model.arch, &why);
    const bool training = s.training.mode == Mode::Training;
    const std::string t = p.tp > 1 ? " / t" : "", tn = p.tp > 1 ? " / " + num(dbl(p.tp)) : "";
    e.formula = std::string(training ? "2 · " : "") + "e · s · b · w_max" + t;
    e.substituted = std::string(training ? "2 · " : "") + num(in.elementBytes) + " · " + num(in.seq) + " · "
                    + num(in.microBatch) + " · " + num(w) + tn;
    e.value = (training ? 2 : 1) * in.elementBytes * in.seq * in.microBatch * w / dbl(p.tp);
    e.assumptions = "The largest transient matmul output: w_max = " + num(w) + " per token, " + why + "."
                    + (training ? " Training also holds its gradient." : "");
    e.source = "DESIGN.md §2.4; core/accounting.cpp (widestIntermediate)";
    if (training && p.zero >= 3 && p.dp > 1) {
        // ZeRO-3 gathers the layer being computed whole (ZeRO paper §5.3; PyTorch FSDP, Zhao et al. 2023).
        const Architecture& a = b.model.arch;
        const double L = dbl(std::max<int64_t>(a.layers, 1));
        const double routed = dbl(b.model.params.routedExperts);
        const double nMoe = a.isMoe() ? L - dbl(std::min(a.moe.denseLayers, a.layers)) : 0;
        const double layerDense = std::max(0.0, dbl(b.model.params.total) - routed - dbl(b.model.params.embedding)) / L;
        const double layerExperts = nMoe > 0 ? routed / nMoe : 0;
        const double bytes = b.recipe.weights + b.recipe.gradients;
        const double gather = (layerDense / dbl(p.tp) + layerExperts / (dbl(p.tp) * dbl(p.ep))) * bytes;
        const std::string ep = p.ep > 1 ? " / ep" : "";
        e.formula += " + (P_layer" + t + " + E_layer" + t + ep + ") · (b_w + b_g)";
        e.substituted += " + (" + num(layerDense) + tn + " + " + num(layerExperts) + tn
                         + (p.ep > 1 ? " / " + num(dbl(p.ep)) : "") + ") · " + num(bytes);
        e.value += gather;
        e.assumptions += " ZeRO-3 keeps a shard of each layer, so the layer being computed is all-gathered whole: its "
                         "weights, and in backward its unsharded gradients before the reduce-scatter (P_layer dense, "
                         "E_layer expert parameters of one layer; experts are gathered only over the ranks that share them).";
        e.source += "; ZeRO paper (Rajbhandari et al. 2020) §5.3; PyTorch FSDP (Zhao et al. 2023)";
    }
    return e;
}

}  // namespace

std::string explainResult(double bytes) { return formatBytes(bytes); }

Explanation explainSegment(SegmentKind k, const Scenario& s, const Breakdown& b)
{
    Explanation e;
    switch (k) {
    case SegmentKind::Weights:
    case SegmentKind::Gradients:
    case SegmentKind::Master:
    case SegmentKind::Optimizer: e = modelStateSegment(k, s, b); break;
    case SegmentKind::Activations: e = activationSegment(s, b); break;
    case SegmentKind::KvCache: e = kvSegment(s, b); break;
    case SegmentKind::Logits: e = logitsSegment(s, b); break;
    case SegmentKind::Workspace: e = workspaceSegment(s, b); break;
    case SegmentKind::Framework:
        e.title = "Framework";
        e.formula = "framework bytes (configured)";
        e.value = std::clamp(s.hardware.frameworkBytes, 0.0, 1e12);
        e.substituted = num(e.value) + " B";
        e.assumptions = "CUDA context, cuBLAS/NCCL handles and PyTorch's own resident memory; 0.5–1 GB in practice.";
        e.source = "DESIGN.md §2.4";
        break;
    case SegmentKind::Fragmentation: {
        e.title = "Fragmentation reserve";
        const double f = std::clamp(s.hardware.fragmentation, 0.0, 1.0);
        double rest = 0;
        for (SegmentKind o : kAllSegmentKinds)
            if (o != SegmentKind::Framework && o != SegmentKind::Fragmentation)
                rest += explainSegment(o, s, b).value;
        e.formula = "f × (everything but the framework)";
        e.substituted = num(f) + " × " + formatBytes(rest);
        e.value = f * rest;
        e.assumptions = "The caching allocator cannot use every byte it reserves; a fixed fraction is set aside.";
        e.source = "DESIGN.md §2.4; PyTorch CUDA caching allocator notes";
        break;
    }
    }
    e.result = explainResult(e.value);
    return e;
}

std::vector<Explanation> explainSegments(const Scenario& s, const Breakdown& b)
{
    std::vector<Explanation> out;
    for (SegmentKind k : kAllSegmentKinds)
        out.push_back(explainSegment(k, s, b));
    return out;
}

Explanation explainCurve(CurveKind c, const Scenario& s, const GpuSpec& gpu)
{
    Explanation e;
    const std::string at = "s = " + num(dbl(std::clamp<int64_t>(s.training.seqLen, 1, kMaxSeq)));
    if (c == CurveKind::Capacity) {
        e.title = "Capacity of one " + gpu.id;
        e.formula = "GPU memory";
        e.value = gpu.memoryBytes;
        e.substituted = num(gpu.memoryBytes) + " B";
        e.result = explainResult(e.value);
        e.assumptions = "Marketed capacity in decimal bytes; everything above this line does not fit.";
        e.source = gpu.source.empty() ? "presets/gpus.json" : gpu.source;
        return e;
    }
    Scenario x = s;
    if (c != CurveKind::ModelStateFloor)
        x.training.checkpointing = static_cast<Checkpointing>(static_cast<int>(c));
    const Breakdown b = account(x, gpu);
    std::string subs;
    double sum = 0;
    for (SegmentKind k : kAllSegmentKinds) {
        const bool state = k == SegmentKind::Weights || k == SegmentKind::Gradients || k == SegmentKind::Master
                           || k == SegmentKind::Optimizer;
        if (c == CurveKind::ModelStateFloor && !state)
            continue;
        const Explanation part = explainSegment(k, x, b);
        sum += part.value;
        if (part.value != 0)
            subs += (subs.empty() ? "" : " + ") + part.result;
    }
    if (c == CurveKind::ModelStateFloor) {
        e.title = "Model-state floor";
        e.formula = "weights + gradients + master + optimizer (per GPU; independent of s)";
        e.assumptions = "No context length gets below this: the model state does not depend on the sequence.";
        e.source = recipeSource(s);
    } else {
        const char* names[] = {"no checkpointing", "selective checkpointing", "full checkpointing"};
        e.title = std::string("Memory per GPU, ") + names[static_cast<int>(c)];
        e.formula = "M(s) = model state + activations(s) + KV(s) + logits(s) + workspace(s) + framework + fragmentation";
        e.assumptions = "Each term at " + at + "; the activations follow Korthikanti's terms for this checkpointing mode. "
                        + explainSegment(SegmentKind::Activations, x, b).assumptions;
        e.source = "Korthikanti et al. 2022 §4–5; DESIGN.md §2.3–2.4; core/accounting.cpp (sweepContext)";
    }
    e.substituted = subs.empty() ? "0" : subs + " at " + at;
    e.value = sum;
    e.result = explainResult(sum);
    return e;
}

}  // namespace trainmem
