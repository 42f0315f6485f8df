#include "terms.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

namespace trainmem {
namespace {

double dbl(int64_t v)
{
    return static_cast<double>(v);
}

// K and V are cached in 16 bits (docs/accounting.md, Model state); the one place this size is written.
constexpr double kKvElementBytes = 2;

// ---------------------------------------------------------------------------------------------
// Shared pieces of the term functions. Each is a template over the expression type, so the
// numbers-only and the explained evaluation run the same arithmetic.

// One count with its divisors, for the adapters and QLoRA's quantised share: "N/(t·p·d)"; the experts'
// part is divided by t_e and e (and d_e). Unlike the model's own parameters (parametersHeld below) these
// are spread evenly over the pipeline stages.
template <class X>
X heldPart(const TermContext& c, bool byZero, const char* name, double count, bool experts, bool byPipeline = true)
{
    const ParallelLayout& p = c.layout;
    X div = 1;
    bool any = false;
    auto by = [&](const char* sym, int64_t n) {
        if (n > 1) {
            div = any ? div * X::sym(sym, dbl(n)) : X::sym(sym, dbl(n));
            any = true;
        }
    };
    // Routed experts are split by expert tensor parallel t_e (tp unless set), the rest by tp.
    if (experts && p.etp != p.tp)
        by("t_e", p.etp);
    else
        by("t", p.tp);
    if (byPipeline)
        by("p", p.pp);
    if (experts)
        by("e", p.ep);
    if (byZero && c.training) {
        by(experts ? "d_e" : "d", experts ? p.dpExpert : p.dp);
        if (!experts)
            by("c", p.cp); // the context-parallel ranks hold the same weights and shard them with ZeRO
    }
    const X n = X::sym(name, count);
    return any ? n / div : n;
}

// A count with its divisors: "P/(t·p·d)", or "(P_dense/(t·p·d) + P_experts/(t·p·e·d_e))" for MoE.
// `names` are the symbols of the whole, the dense part and the experts' part.
struct HeldNames {
    const char *whole, *dense, *experts;
};
// What the GPU keeps of a term offloaded to its host: nothing, and in the drill-down where `onHost` went.
template <class X> X offloadedFromGpu(const X& onHost)
{
    if constexpr (X::kText)
        return X::text(onHost.symbolic + " in host memory",
                       "0 B on the GPU (offloaded: " + onHost.substituted + " = " + formatBytes(onHost.value) +
                           " of this GPU's partition in the host's memory)",
                       0);
    else
        return X(0);
}

template <class X> X held(const TermContext& c, bool byZero, double total, double routed, HeldNames names)
{
    routed = std::clamp(routed, 0.0, total);
    if (routed > 0)
        return heldPart<X>(c, byZero, names.dense, total - routed, false) +
               heldPart<X>(c, byZero, names.experts, routed, true);
    return heldPart<X>(c, byZero, names.whole, total, false);
}

// "P" with its divisors: "P/(t·d)", or "(P_dense/(t·d) + P_experts/(t_e·e·d_e))" for MoE, with
// t_e = etp and d_e = gpus/(etp·ep·pp), the expert data-parallel group (issue 13). With a
// pipeline (issue 13) a stage holds n = ⌈L/p⌉ layers' share of the layer parameters and, on the
// first stage, the input embedding, on the last the output head: "(P_layers·n/L + P_in)/(t·d)".
// Megatron-LM builds the embedding on the first stage and the output layer on the last, and with
// tied embeddings and pp > 1 the last stage keeps its own copy of the word embeddings
// (megatron/core/models/common/language_module/language_module.py, setup_embeddings_and_output_layer,
// at d98e8a64ddf34856e74b24714e3bedb2f5a39553).
template <class X> X parametersHeld(const TermContext& c, bool byZero)
{
    const ResolvedModel& m = *c.model;
    const ParallelLayout& p = c.layout;
    const double total = dbl(m.params.total);
    const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
    const bool zero = byZero && c.training;
    auto part = [&](X n, bool experts) {
        X div = 1;
        bool any = false;
        auto by = [&](const char* sym, int64_t k) {
            if (k > 1) {
                div = any ? div * X::sym(sym, dbl(k)) : X::sym(sym, dbl(k));
                any = true;
            }
        };
        // Routed experts are split by expert tensor parallel t_e (tp unless set), the rest by tp.
        if (experts && p.etp != p.tp)
            by("t_e", p.etp);
        else
            by("t", p.tp);
        if (experts)
            by("e", p.ep);
        if (zero) {
            by(experts ? "d_e" : "d", experts ? p.dpExpert : p.dp);
            if (!experts)
                by("c", p.cp); // Megatron-LM's distributed optimizer shards over dp·cp (with_context_parallel)
        }
        return any ? n / div : n;
    };
    // The multi-token-prediction modules sit with the head: P_mtp, its routed experts split like the others.
    const bool mtp = c.holdsMtp();
    const double mtpRouted = mtp ? std::clamp(c.mtpRouted, 0.0, c.mtpParams) : 0;
    auto withMtp = [&](X dense) { return mtp ? dense + X::sym("P_mtp_dense", c.mtpParams - mtpRouted) : dense; };
    auto withMtpExperts = [&](X experts) {
        return mtpRouted > 0 ? experts + X::sym("P_mtp_experts", mtpRouted) : experts;
    };
    // A multimodal wrapper's vision tower and projector (P_vision, ParamCount::vision) sit with the input embedding
    // they feed.
    const double vision = c.holdsEmbedding() ? c.vision : 0;
    auto withVision = [&](X dense) { return vision > 0 ? dense + X::sym("P_vision", vision) : dense; };
    if (c.stage == PipelineStage::Only) {
        if (routed > 0 || mtpRouted > 0)
            return part(withVision(withMtp(X::sym("P_dense", total - routed))), false) +
                   part(withMtpExperts(X::sym("P_experts", routed)), true);
        return part(withVision(mtp ? X::sym("P", total) + X::sym("P_mtp", c.mtpParams) : X::sym("P", total)), false);
    }
    const X share = X::sym("n", c.stageLayers) / X::sym("L", c.layers);
    const double layerParams = std::max(0.0, total - routed - c.inputEmbedding - c.outputHead);
    X dense = X::sym(routed > 0 ? "P_dense_layers" : "P_layers", layerParams) * share;
    if (c.stage == PipelineStage::First)
        dense = withVision(dense + X::sym("P_in", c.inputEmbedding));
    else if (mtp)
        // The MTP modules embed their shifted tokens with a copy of the input embedding on their own stage, tied to
        // the first stage's (Megatron-LM at d98e8a6: gpt_model.py "if self.pre_process or self.mtp_process:
        // self.embedding = …"; language_module.py "we need to maintain a copy of embedding layer in the mtp process
        // stage").
        dense = dense + X::sym("P_in", c.inputEmbedding);
    if (c.stage == PipelineStage::Last && c.outputHead > 0)
        dense = dense + X::sym("P_out", c.outputHead);
    if (routed > 0)
        return part(withMtp(dense), false) + part(withMtpExperts(X::sym("P_experts", routed) * share), true);
    return part(withMtp(dense), false);
}

std::string recipeSource(const Scenario& s)
{
    std::string src =
        "Rajbhandari et al. 2019, ZeRO, §3.1 (16 B per parameter for mixed-precision Adam) and §5 (stages)";
    if (s.training.precision == Precision::FP8Mixed)
        src += "; DeepSeek-V3 technical report §3.3 (fp8 GEMMs, bf16 moments, fp32 master and gradients)";
    if (s.training.optimizer == Optimizer::Adam8bit)
        src += "; Dettmers et al. 2021, 8-bit Optimizers via Block-wise Quantization";
    if (s.training.optimizer == Optimizer::Adafactor)
        src += "; Shazeer & Stern 2018, Adafactor (factored second moments)";
    return src + "; core/model/recipe.cpp";
}

// "8 data-parallel ranks", or "4 data-parallel × 2 context-parallel ranks": both hold the same weights.
std::string ranksText(const ParallelLayout& p)
{
    if (p.cp > 1)
        return std::to_string(p.dp) + " data-parallel × " + std::to_string(p.cp) + " context-parallel ranks";
    return std::to_string(p.dp) + " data-parallel ranks";
}

std::string layoutAssumption(const ParallelLayout& p, int zeroThreshold, bool training)
{
    std::string a;
    if (!training)
        a = "Serving: one copy of the weights, divided only by model parallelism (tensor, pipeline, expert).";
    else if (p.replicas() > 1 && p.zero >= zeroThreshold)
        a = "Sharded by ZeRO-" + std::to_string(p.zero) + " over the " + ranksText(p) + ".";
    else if (p.replicas() > 1)
        a = "Replicated on all " + ranksText(p) + " (ZeRO-" + std::to_string(zeroThreshold) +
            " or higher would shard it).";
    else
        a = "One data-parallel rank: nothing to shard across.";
    if (p.tp > 1)
        a += " Tensor ×" + std::to_string(p.tp) + " divides every matrix (the embedding by vocabulary rows).";
    if (p.etp != p.tp)
        a += " The routed experts are split by expert tensor parallel ×" + std::to_string(p.etp) +
             " (t_e), not tp, and their "
             "sharded state over the d_e = gpus/(etp·ep·pp) = " +
             std::to_string(p.dpExpert) + " expert data-parallel ranks.";
    return a;
}

// Which stage the view is, in words (the drill-down's assumption text, --text, --json).
std::string stageSentence(const TermContext& c)
{
    if (c.stage == PipelineStage::Only)
        return {};
    const std::string n = formatNumber(c.stageLayers) + " of the " + formatNumber(c.layers) + " layers";
    const std::string p = std::to_string(c.layout.pp);
    switch (c.stage) {
    case PipelineStage::First:
        return " Pipeline ×" + p + ": the first stage (stage 0), " + n + " and the input embedding.";
    case PipelineStage::Middle:
        return " Pipeline ×" + p + ": a middle stage (stage " + std::to_string(c.stageIndex) + "), " + n +
               ", no embedding or head.";
    case PipelineStage::Last:
        return " Pipeline ×" + p + ": the last stage (stage " + std::to_string(c.layout.pp - 1) + "), " + n +
               (c.outputHead > 0 ? ", the output head" : "") + " and the logits.";
    case PipelineStage::Only:
        break;
    }
    return {};
}

// Where a model-state term lives under ZeRO-Offload (issue 9 §3): on the GPU, or in the host's memory.
struct HostCopy {
    bool offloaded = false; ///< this scenario moves the term to host memory
    const char* sym = "";   ///< its bytes per parameter on the host ("b_g,host")
    double perParam = 0;
    int zeroStage = 1; ///< the host copy is a ZeRO partition from this stage on
};

// The sentence the drill-down adds when a term is offloaded.
std::string offloadSentence(const TermContext& c)
{
    if (c.offload == Offload::None && c.pagedOptimizer)
        return " Paged optimizer (bitsandbytes): its state lives in CUDA unified memory, which the driver pages out "
               "to the host's memory when the GPU runs short; counted in host memory, where it goes under pressure.";
    if (c.offload == Offload::OptimizerParams)
        return " ZeRO-Infinity offload (optimizer+params): the fp32 master weights, the optimizer state, the fp32 "
               "gradients and the 16-bit weights live in the host's memory; each GPU keeps only its shard there, "
               "fetches one layer at a time over PCIe (the gathered layer, in the workspace term) and the CPU runs "
               "the optimizer step.";
    return " ZeRO-Offload (optimizer): the fp32 master weights, the optimizer state and the fp32 gradients of this "
           "GPU's ZeRO partition live in the host's memory and the CPU runs the optimizer step; the GPU keeps its "
           "16-bit weights, and its 16-bit gradients go to the host bucket by bucket as backward produces them.";
}

// One model-state term: bytes per parameter × the parameters this GPU holds; ZeRO shards it from
// stage `zeroStage` on (ZeRO §5: stage 1 master and optimizer, 2 gradients, 3 weights). Offloaded
// (ZeRO-Offload, Ren et al. 2021 §4; DeepSpeed's offload_optimizer/offload_param), the GPU holds 0 B of
// it and the host view (c.host) holds `host`'s bytes per parameter of this GPU's partition.
template <class X>
X modelState(const TermContext& c, TermNotes<X>& n, const char* title, const char* sym, double perParam, int zeroStage,
             std::string_view what, const HostCopy& host = {})
{
    if (c.host && !host.offloaded)
        return X(0);
    n.title([&] { return std::string(title) + (host.offloaded && c.host ? " per GPU, in host memory" : " per GPU"); });
    n.assume([&] {
        std::string why =
            c.training ? std::string(what) : std::string("Serving keeps no gradients, master copy or optimizer state.");
        if (c.fineTune != FineTune::Full)
            why = zeroStage == 3
                      ? "LoRA freezes the base model: forward and backward read it in the weight precision, nothing "
                        "updates it."
                      : "LoRA freezes the base model: no gradient, master copy or optimizer state for its parameters "
                        "(the adapters' own are in the adapters term).";
        return why + " " + layoutAssumption(c.layout, host.offloaded ? host.zeroStage : zeroStage, c.training) +
               stageSentence(c) + (host.offloaded ? offloadSentence(c) : std::string()) +
               " P counts every parameter, sleeping experts included: model state scales with total, not active, "
               "parameters." +
               (c.vision > 0 && c.holdsEmbedding()
                    ? std::string(" P_vision is the vision tower and its projector (vision_config), beside the "
                                  "language model: trained in full training, frozen under LoRA/QLoRA.")
                    : std::string());
    });
    n.source([&] {
        return recipeSource(*c.scenario) +
               (host.offloaded
                    ? "; Ren et al. 2021, ZeRO-Offload: Democratizing Billion-Scale Model Training, §4 (fp16 "
                      "parameters "
                      "on the GPU; fp32 parameters, gradients and optimizer states on the CPU, partitioned over the "
                      "data-parallel ranks); Rajbhandari et al. 2021, ZeRO-Infinity, §5 (parameters offloaded under "
                      "ZeRO-3); deepspeedai/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py and stage3.py @ "
                      "edaa7221 (estimate_zero{2,3}_model_states_mem_needs: 16 B per parameter on the CPU)"
                    : "");
    });
    if (!host.offloaded)
        return X::mul(X::bytes(sym, perParam), parametersHeld<X>(c, c.layout.zero >= zeroStage), " · ", " × ");
    const X onHost =
        X::mul(X::bytes(host.sym, host.perParam), parametersHeld<X>(c, c.layout.zero >= host.zeroStage), " · ", " × ");
    return c.host ? onHost : offloadedFromGpu(onHost);
}

std::string bytesList(const LayerActivations& l)
{
    return "(" + formatBytes(l.attention) + " + " + formatBytes(l.scores) + " + " + formatBytes(l.mlp) + " + " +
           formatBytes(l.norms) + " + " + formatBytes(l.dropout) + ")";
}

template <class X> X tape(const char* name, const LayerActivations& l)
{
    return X::text(
        name, [&] { return bytesList(l); }, l.total());
}

// Korthikanti's GPT configuration, for which the closed forms are exact (tests/core/memory/tst_activations.cpp).
// The tokens of one sequence on this GPU: "s", or "s/c" under context parallel.
template <class X> X tokens(const ActivationInputs& in)
{
    const X s = X::sym("s", in.seq);
    return in.cp > 1 ? s / X::sym("c", in.cp) : s;
}

bool korthikantiShaped(const Architecture& a, const ActivationInputs& in)
{
    return a.hidden > 0 && !a.isMoe() && !a.kinds.any() && !a.gatedAttention && a.ffnKind == FfnKind::Gelu &&
           a.dropoutOrDefault() && a.attention != AttentionKind::MLA && a.kvHeadsOrDefault() == a.heads &&
           a.headDimOrDefault() * a.heads == a.hidden && a.ffn == 4 * a.hidden && in.elementBytes == 2 &&
           !in.fp8LinearInputs && in.tp == 1 && in.cp == 1 && in.checkpointing != Checkpointing::PerOp;
}

// The widest intermediate of one layer, in elements per token, and what it is.
template <class X> X widestIntermediate(const Architecture& a)
{
    const double hd = dbl(a.headDimOrDefault());
    const double qkv = dbl(a.heads) * hd + 2 * dbl(a.kvHeadsOrDefault()) * hd;
    const double ffnMul = a.ffnKind == FfnKind::SwiGLU ? 2 : 1;
    double w = std::max(qkv, ffnMul * dbl(std::max(a.ffn, a.moe.denseFfn)));
    const char* why = w == qkv ? "the fused QKV projection, a·d + 2·kv·d"
                               : (ffnMul == 2 ? "the fused gate‖up projection, 2·f" : "the FFN's first projection, f");
    if (a.isMoe()) {
        const double moe = ffnMul * dbl(a.moe.expertFfn) * dbl(std::max<int64_t>(a.moe.activeExperts, 1));
        if (moe > w) {
            w = moe;
            why = "the k routed experts' inner tensors, k·(2·)f_e";
        }
    }
    return X::text(
        "w_max", [&] { return formatNumber(w) + " (" + why + ")"; }, w);
}

template <class X> X tensorSplit(const TermContext& c, X e)
{
    return c.layout.tp > 1 ? e / X::sym("t", dbl(c.layout.tp)) : e;
}

// ---------------------------------------------------------------------------------------------
// The term functions: one per row of the table, each its bytes and its explanation at once.

// A QLoRA base's unquantised rest (P − P_q: embeddings, output head, norms, biases, and whatever its format leaves) in
// the 16-bit weight precision. A multimodal wrapper's vision tower stays in 16 bits too, frozen (QLoRA recipes for
// these models leave it out of the 4-bit quantisation and the adapters), on the stage that holds the input embedding.
template <class X> X quantisedBaseRest(const TermContext& c, bool byZero, double rest, double restRouted)
{
    const X out = X::mul(X::bytes("b_w", c.recipe.weights),
                         held<X>(c, byZero, rest, restRouted, {"(P − P_q)", "(P − P_q)_dense", "(P − P_q)_experts"}),
                         " · ", " × ");
    if (c.vision <= 0 || !c.holdsEmbedding())
        return out;
    return out + X::mul(X::bytes("b_w", c.recipe.weights),
                        held<X>(c, byZero, c.vision, 0, {"P_vision", "P_vision", "P_vision"}), " · ", " × ");
}

// Bytes per quantised weight in a serving format `f` (core/model/recipe.h weightFormat()): its element and block
// constant bits, and the per-row and per-tensor constants (c.quantConstantBytes) shared over the P_q weights.
template <class X> X quantisedWeightBytes(const TermContext& c, const WeightFormat& f, double q)
{
    const X bits = X::sym("bits", f.elementBits) +
                   (f.blockSize > 0 ? X::sym("c_block", f.blockBits) / X::sym("B", f.blockSize) : X(0));
    X perWeight = bits / X(8);
    if (c.quantConstantBytes > 0 && q > 0)
        perWeight = perWeight + X::bytes("C_q", c.quantConstantBytes) / X::sym("P_q", q);
    return X::text(
        "b_q", [v = perWeight.value] { return formatNumber(v) + " B"; }, perWeight.value);
}

// QLoRA: the blocks' linear weights in NF4 with double-quantised constants, the rest (embeddings,
// output head, norms, biases) in 16 bits (Dettmers et al. 2023 §2–3; core/model/lora.h).
template <class X> X qloraBase(const TermContext& c, TermNotes<X>& n)
{
    n.title("Base weights (frozen, 4-bit NF4) per GPU");
    n.assume([&] {
        return "QLoRA stores the blocks' linear weights (P_q) as 4-bit NormalFloat in blocks of B₁ = 64 parameters, "
               "one "
               "absmax constant per block; double quantisation stores those constants in 8 bits, with one fp32 "
               "constant "
               "per B₂ = 256 blocks: 4 + 8/64 + 32/(64·256) = 4.127 bits per parameter. Embeddings, the output head, "
               "norms and biases (P − P_q) stay in the 16-bit weight precision. The base is frozen: no gradient, "
               "master "
               "copy or optimizer state. " +
               layoutAssumption(c.layout, 3, c.training);
    });
    n.source(
        "Dettmers et al. 2023, QLoRA: Efficient Finetuning of Quantized LLMs (arXiv 2305.14314), §2 (block-wise "
        "quantisation, blocks of 64) and §3 (NF4, double quantisation: 8-bit constants, second-level blocks of 256); "
        "core/model/lora.h");
    const X B1 = X::sym("B₁", kNf4BlockSize), B2 = X::sym("B₂", kNf4SecondBlockSize);
    // Without double quantisation (bitsandbytes' compress_statistics=False: LitGPT's bnb.nf4, Fabric's _NF4Linear)
    // each block keeps its absmax in fp32, 32/B₁ bits a weight (bitsandbytes 0.41.1 at 18e827d6,
    // functional.py quantize_4bit: absmax float32 per blocksize; double quantisation only when compress_statistics).
    const bool dq = c.scenario->training.qloraDoubleQuant;
    if (!dq && X::kText)
        n.assume([&] {
            return "QLoRA stores the blocks' linear weights (P_q) as 4-bit NormalFloat in blocks of B₁ = 64 "
                   "parameters, one fp32 absmax constant per block (no double quantisation): 4 + 32/64 = 4.5 bits per "
                   "parameter. Embeddings, the output head, norms and biases (P − P_q) stay in the 16-bit weight "
                   "precision. The base is frozen: no gradient, master copy or optimizer state. " +
                   layoutAssumption(c.layout, 3, c.training);
        });
    const X constantBits = dq ? X(kNf4ConstantBits) / B1 + X(kNf4SecondConstantBits) / (B1 * B2) : X(32) / B1;
    const bool byZero = c.layout.zero >= 3;
    const double total = dbl(c.model->params.total);
    const double q = std::min(dbl(c.quantized.total), total);
    const double routed = dbl(std::clamp<int64_t>(c.model->params.routedExperts, 0, c.model->params.total));
    const double qRouted = std::min(dbl(c.quantized.routedExperts), routed);
    const HeldNames names{"P_q", "P_q,dense", "P_q,experts"};
    // The 4-bit data is the parameter ZeRO-3/FSDP shards; the constants are bitsandbytes' Params4bit.quant_state,
    // not a parameter, so neither FSDP nor DeepSpeed partitions them: every data-parallel rank keeps the whole model's
    // (AnswerDotAI/fsdp_qlora train.py at 05ed9f2, load_and_quantize: "FSDP only syncs parameters and buffers, so the
    // quant_state isn't copied"). Without ZeRO-3 both are whole anyway.
    X quantised;
    if (byZero && c.layout.replicas() > 1) {
        if constexpr (X::kText)
            n.assumptions += " Under ZeRO-3 only the 4-bit data is sharded: the constants are bitsandbytes' "
                             "quant_state, not a parameter, and every data-parallel rank keeps the whole model's.";
        quantised = X::mul(X(kNf4Bits) / X(8), held<X>(c, true, q, qRouted, names), " · ", " × ") +
                    X::mul(constantBits / X(8), held<X>(c, false, q, qRouted, names), " · ", " × ");
    } else {
        const X bits = X(kNf4Bits) + constantBits;
        quantised = X::mul(bits / X(8), held<X>(c, byZero, q, qRouted, names), " · ", " × ");
    }
    return quantised + quantisedBaseRest<X>(c, byZero, total - q, routed - qRouted);
}

// QLoRA on a base published in MXFP4 or NVFP4 (/training/qlora_base; issue 29 §3), which the trainer keeps as the
// checkpoint has it rather than quantising a bf16 copy to NF4: invergent-ai/surogate docs/docs/guides/qlora.md at
// e7436516faffff1c4dcfd3801a86d33af62f5bb7 ("Pre-quantized models": ModelOpt NVFP4, FP4 E2M1 data with an FP8 block
// scale and an FP32 global scale per tensor, the embedding and head in BF16; and MXFP4 for GPT-OSS in the version of
// the page that lists it). transformers does not train through its MXFP4 quantizer (quantizer_mxfp4.py is_trainable:
// "MXFP4 quantization don't support training, please consider dequantizing the model first"): there the base is
// dequantised, a LoRA on a bf16 base. The format's bits as serving counts them (core/model/recipe.h weightFormat():
// MXFP4 4 + 8/32, only the routed experts on a MoE; NVFP4 4 + 8/16 and 4 B a tensor), the rest in the 16-bit weight
// precision; the block scales are tensors of the checkpoint, so ZeRO-3 shards them with the data.
template <class X> X qloraPublishedBase(const TermContext& c, TermNotes<X>& n)
{
    const QloraBase base = c.scenario->training.qloraBase;
    const WeightFormat f = weightFormat(qloraBaseFormat(base));
    const bool expertsOnly = f.expertsOnly && c.model->arch.isMoe();
    n.title([&] {
        return std::string("Base weights (frozen, ") + (base == QloraBase::MXFP4 ? "MXFP4" : "NVFP4") +
               " as published) per GPU";
    });
    n.assume([&] {
        return std::string("QLoRA on the checkpoint as published: ") +
               (base == QloraBase::MXFP4
                    ? "MXFP4 keeps each quantised weight as a 4-bit E2M1 float and one E8M0 scale per block of 32, "
                      "4 + 8/32 = 4.25 bits"
                    : "NVFP4 keeps each quantised weight as a 4-bit E2M1 float, one FP8 E4M3 scale per block of 16 "
                      "and one fp32 scale per tensor, 4 + 8/16 = 4.5 bits and 4 B a tensor") +
               ", for " +
               (expertsOnly ? std::string("the routed experts' linears (P_q), as gpt-oss ships them")
                            : std::string("the blocks' linear layers (P_q)")) +
               "; the embeddings, the output head, norms" + (expertsOnly ? ", attention" : "") +
               " and routers (P − P_q) stay in the 16-bit weight precision. The base is frozen: no gradient, master "
               "copy or optimizer state. " +
               layoutAssumption(c.layout, 3, c.training);
    });
    n.source("invergent-ai/surogate docs/docs/guides/qlora.md at e7436516 (pre-quantized ModelOpt NVFP4 and GPT-OSS "
             "MXFP4 bases under LoRA); OCP Microscaling Formats (MX) Specification v1.0, §5 Table 1; NVIDIA, "
             "Introducing NVFP4 (2025); transformers quantizers/quantizer_mxfp4.py (is_trainable: False, dequantize "
             "for training); core/model/recipe.h");
    const bool byZero = c.layout.zero >= 3;
    const double total = dbl(c.model->params.total);
    const double q = std::min(dbl(c.quantized.total), total);
    const double routed = dbl(std::clamp<int64_t>(c.model->params.routedExperts, 0, c.model->params.total));
    const double qRouted = std::min(dbl(c.quantized.routedExperts), routed);
    return X::mul(quantisedWeightBytes<X>(c, f, q), held<X>(c, byZero, q, qRouted, {"P_q", "P_q,dense", "P_q,experts"}),
                  " · ", " × ") +
           quantisedBaseRest<X>(c, byZero, total - q, routed - qRouted);
}

// QLoRA with the base offloaded (optimizer+params at ZeRO-3; issue 30 §2): FSDP's CPUOffload(offload_params=True)
// keeps every flat parameter's shard in host memory and copies a unit in and all-gathers it when it computes
// (torch/distributed/fsdp/_flat_param.py at 01caf79, FlatParamHandle.pre_unshard: "flat_param_to(self.device)"), so the
// NF4 data (4 bits a weight) and the 16-bit rest are on the host (their gathered layer is the workspace's). The
// quantisation constants are not parameters: bitsandbytes keeps them in Params4bit.quant_state (the double-quantised
// absmax, 8 bits per block of 64, and an fp32 constant per 256 blocks), which FSDP neither shards nor offloads —
// AnswerDotAI/fsdp_qlora train.py at 05ed9f2, load_and_quantize: each Params4bit is quantised with .cuda(device) and
// only its data is moved to the CPU or meta device ("FSDP only syncs parameters and buffers, so the quant_state isn't
// copied"). So every GPU keeps the whole model's constants, P_q·(8/64 + 32/(64·256))/8 B, split only by tensor and
// pipeline parallelism.
template <class X> X qloraOffloaded(const TermContext& c, TermNotes<X>& n)
{
    const double q = std::min(dbl(c.quantized.total), dbl(c.model->params.total));
    const double routed = dbl(std::clamp<int64_t>(c.model->params.routedExperts, 0, c.model->params.total));
    const double qRouted = std::min(dbl(c.quantized.routedExperts), routed);
    const double perConstant =
        (kNf4ConstantBits / kNf4BlockSize + kNf4SecondConstantBits / (kNf4BlockSize * kNf4SecondBlockSize)) / 8;
    const HeldNames names{"P_q", "P_q,dense", "P_q,experts"};
    if (c.host) {
        // The offloaded flat parameters: the NF4 base less the constants, this GPU's ZeRO-3 shard.
        const X base = qloraBase<X>(c, n);
        n.title("Base weights (frozen, 4-bit NF4) per GPU, in host memory");
        // The constants stay on the GPU whole (qloraBase keeps them unsharded under ZeRO-3).
        const X constants = X::mul(X::text(
                                       "c_q", [&] { return formatNumber(perConstant) + " B"; }, perConstant),
                                   held<X>(c, false, q, qRouted, names), " · ", " × ");
        return base - constants;
    }
    qloraBase<X>(c, n); // its title and assumptions, then what this view adds
    n.title("Base weights (frozen, 4-bit NF4) per GPU: the quantisation constants");
    if constexpr (X::kText) {
        n.assumptions += " Offloaded with the parameters (optimizer+params: FSDP's CPUOffload(offload_params=True)): "
                         "this GPU's shard of the NF4 data and of the 16-bit rest lives in the host's memory, and the "
                         "layer being computed is copied in and all-gathered (the workspace's gathered layer). The "
                         "quantisation constants are not parameters (bitsandbytes' Params4bit.quant_state): FSDP "
                         "neither shards nor offloads them, so every GPU keeps the whole model's, "
                         "c_q = (8/64 + 32/(64·256))/8 B per quantised weight.";
        n.sourceText += "; AnswerDotAI/fsdp_qlora train.py at 05ed9f2 (load_and_quantize: Params4bit quantised on the "
                        "GPU, only its data moved to the CPU; FSDP(cpu_offload=CPUOffload(offload_params=True))); "
                        "PyTorch torch/distributed/fsdp/api.py (CPUOffload)";
    }
    return X::mul(X::text(
                      "c_q", [&] { return formatNumber(perConstant) + " B"; }, perConstant),
                  held<X>(c, false, q, qRouted, names), " · ", " × ");
}

// Serving a quantised checkpoint (docs/accounting.md, "Serving formats"): the blocks' linears (P_q) in the format,
// b_q bytes each with their block constants and their share of the per-row and per-tensor ones; everything else
// (embeddings, output head, norms, biases, routers) in 16 bits. Both are split like the weights: tensor, pipeline
// (P_q lives in the layers, n/L of it on a stage) and expert parallelism.
template <class X> X servedWeights(const TermContext& c, TermNotes<X>& n)
{
    const InferenceWeights w = c.scenario->training.inferenceWeights;
    const WeightFormat f = weightFormat(w);
    n.title([&] { return std::string("Weights (") + toString(w) + ") per GPU"; });
    n.assume([&] {
        std::string what;
        switch (w) {
        case InferenceWeights::INT8:
            what = "int8 stores each quantised weight in 8 bits and one fp32 scale per output row of each matrix";
            break;
        case InferenceWeights::INT4:
            what = "int4 (GPTQ/AWQ) stores each quantised weight in 4 bits and, per group of 128 input weights of "
                   "each output column, an fp16 scale and a 4-bit zero point: 4 + 20/128 = 4.156 bits";
            break;
        case InferenceWeights::MXFP4:
            what = "MXFP4 stores each quantised weight as a 4-bit E2M1 float and one E8M0 scale per block of 32: "
                   "4 + 8/32 = 4.25 bits";
            break;
        case InferenceWeights::NVFP4:
            what = "NVFP4 stores each quantised weight as a 4-bit E2M1 float, one FP8 E4M3 scale per block of 16 and "
                   "one fp32 scale per tensor: 4 + 8/16 = 4.5 bits and 4 B a tensor";
            break;
        case InferenceWeights::BF16:
            break;
        }
        const bool expertsOnly = f.expertsOnly && c.model->arch.isMoe();
        return what + ". It quantises " +
               (expertsOnly ? std::string("the routed experts' linears (P_q), as gpt-oss ships its MoE weights")
                            : std::string("the blocks' linear layers (P_q)")) +
               "; the embeddings, the output head, norms, biases" + (expertsOnly ? ", attention" : "") +
               " and routers (P − P_q) stay in 16 bits. Serving keeps no gradients, master copy or optimizer state. " +
               layoutAssumption(c.layout, 3, false) + stageSentence(c);
    });
    n.source("OCP Microscaling Formats (MX) Specification v1.0 (2023), §5 Table 1 (MXFP4: E2M1, k = 32, E8M0 "
             "scale); NVIDIA, Introducing NVFP4 for Efficient and Accurate Low-Precision Inference (2025): E4M3 "
             "scale per 16 values, fp32 per-tensor scale; OpenAI, gpt-oss-120b & gpt-oss-20b Model Card (arXiv "
             "2508.10925) §2.1 (MoE weights in MXFP4, 4.25 bits per parameter); casper-hansen/AutoAWQ "
             "awq/modules/linear/gemm.py @ 030fe2a1 (int4: qweight, qzeros, fp16 scales per group of 128); "
             "Dettmers et al. 2022, LLM.int8() (arXiv 2208.07339) §3.1 (int8: a scale per row); "
             "core/model/recipe.h");
    const double total = dbl(c.model->params.total);
    const double q = std::min(dbl(c.quantized.total), total);
    const double qRouted = std::min(dbl(c.quantized.routedExperts), q);
    // The quantised linears this GPU holds: split by tensor (t_e for routed experts) and expert parallelism, and
    // on a pipeline stage n/L of them (below), not by p.
    auto part = [&](const char* name, double count, bool experts) {
        return heldPart<X>(c, false, name, count, experts, false);
    };
    X quantHeld = qRouted >= q  ? part("P_q", q, true)
                  : qRouted > 0 ? part("P_q,dense", q - qRouted, false) + part("P_q,experts", qRouted, true)
                                : part("P_q", q, false);
    if (c.stage != PipelineStage::Only)
        quantHeld = quantHeld * (X::sym("n", c.stageLayers) / X::sym("L", c.layers));
    return X::mul(quantisedWeightBytes<X>(c, f, q), quantHeld, " · ", " × ") +
           X::mul(X::bytes("b_16", 2), parametersHeld<X>(c, false) - quantHeld, " · ", " × ");
}

template <class X> X weights(const TermContext& c, TermNotes<X>& n)
{
    if (!c.training && c.quantized.total > 0)
        return servedWeights<X>(c, n);
    if (c.fineTune == FineTune::QLora && c.scenario->training.qloraBase != QloraBase::NF4)
        return c.host ? X(0) : qloraPublishedBase<X>(c, n);
    if (c.fineTune == FineTune::QLora) {
        if (c.offload != Offload::OptimizerParams)
            return c.host ? X(0) : qloraBase<X>(c, n);
        return qloraOffloaded<X>(c, n);
    }
    // optimizer+params (ZeRO-Infinity): the 16-bit weights' ZeRO-3 partition lives in host memory.
    const HostCopy host{c.offload == Offload::OptimizerParams, "b_w", c.recipe.weights, 3};
    return modelState<X>(c, n, c.fineTune == FineTune::Lora ? "Base weights (frozen)" : "Weights", "b_w",
                         c.recipe.weights, 3,
                         c.training ? "The working copy forward and backward read."
                                    : "Weights stored at the serving precision (bf16 2 B, int8 1 B, int4 0.5 B).",
                         host);
}

// The parameters of the largest unit whose gradients exist at once when the optimizer steps in backward: one layer
// (its routed experts split by ep) or the output head (V·h), split by tp.
double layerParams(const TermContext& c)
{
    const ResolvedModel& m = *c.model;
    const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
    const double dense = std::max(0.0, dbl(m.params.total) - routed - dbl(m.params.embedding));
    double layer = dense / std::max(c.layers, 1.0);
    if (c.moeLayers > 0)
        layer += routed / c.moeLayers / dbl(std::max<int64_t>(c.layout.ep, 1));
    return layer / dbl(std::max<int64_t>(c.layout.tp, 1));
}

// The same unit's gradients as this GPU keeps them when the optimizer steps in backward: from ZeRO-2 on (FSDP's full
// or grad-op sharding) the hook fires on the sharded parameter after the reduce-scatter (torchtune bd2a0fc
// recipes/full_finetune_distributed.py: _setup_optimizer calls training.register_optim_in_bwd_hooks on the
// parameters of the model _setup_model sharded with training.shard_model, FSDP2's DTensor shards), so only this rank's
// shard of the unit's gradients waits for its step: the dense part ÷ (d·c), the routed experts ÷ d_e. The unsharded
// gradients before the reduce-scatter are the gathered layer's (the workspace). ZeRO-0 and ZeRO-1 keep whole gradients.
double unitGradientParams(const TermContext& c)
{
    const ResolvedModel& m = *c.model;
    const ParallelLayout& p = c.layout;
    const bool sharded = p.zero >= 2;
    const double replicas = sharded ? dbl(std::max<int64_t>(p.replicas(), 1)) : 1;
    const double expertReplicas = sharded ? dbl(std::max<int64_t>(p.dpExpert, 1)) : 1;
    const double tp = dbl(std::max<int64_t>(p.tp, 1));
    const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
    const double dense = std::max(0.0, dbl(m.params.total) - routed - dbl(m.params.embedding));
    double layer = dense / std::max(c.layers, 1.0) / tp / replicas;
    if (c.moeLayers > 0)
        layer +=
            routed / c.moeLayers / dbl(std::max<int64_t>(p.ep, 1)) / dbl(std::max<int64_t>(p.etp, 1)) / expertReplicas;
    const double head = dbl(m.arch.vocab) * dbl(m.arch.hidden) / tp / replicas;
    return std::max(layer, head);
}

// Gradient accumulation inside FSDP1's no_sync() (/hardware/fsdp_no_sync): "FSDP will accumulate the full model
// gradients (instead of gradient shards) until the eventual sync" (PyTorch torch/distributed/fsdp/
// fully_sharded_data_parallel.py at 005df1d, no_sync), and prepare_gradient_for_backward "Expects `.grad` to be the
// unsharded gradient in `no_sync()`" (_flat_param.py at 01caf79). Lightning Fabric's no_backward_sync under its
// FSDPStrategy returns module.no_sync() (src/lightning/fabric/strategies/fsdp.py at 75553845 and 71aed751,
// _FSDPBackwardSyncControl), and LitGPT accumulates every micro-batch but the last inside it. It changes the
// gradients only where they would be sharded (ZeRO-2/3 over more than one rank) and only with accumulation; a
// quantised base and an offload are refused (validateScenario).
bool fsdpNoSyncHoldsWhole(const TermContext& c)
{
    const Scenario& s = *c.scenario;
    return effectiveFsdpNoSync(s) && c.training && c.offload == Offload::None && c.fineTune != FineTune::QLora &&
           c.layout.zero >= 2 && c.layout.replicas() > 1 && s.training.gradAccum > 1;
}

template <class X> X gradients(const TermContext& c, TermNotes<X>& n)
{
    if (fsdpNoSyncHoldsWhole(c) && !c.host) {
        n.title("Gradients per GPU (FSDP no_sync: unsharded)");
        n.source("PyTorch torch/distributed/fsdp/fully_sharded_data_parallel.py at 005df1d (no_sync: \"FSDP will "
                 "accumulate the full model gradients (instead of gradient shards) until the eventual sync\") and "
                 "_flat_param.py at 01caf79 (FlatParameter: a flat gradient for every original parameter, zeros "
                 "where one has none); Lightning Fabric src/lightning/fabric/strategies/fsdp.py at 75553845 "
                 "(no_backward_sync returns module.no_sync(); use_orig_params=True by default); docs/accounting.md, "
                 "Sharding and the tax");
        if (c.fineTune == FineTune::Full) {
            n.assume("Gradient accumulation inside FSDP1's no_sync(): every micro-batch but the last keeps each flat "
                     "parameter's gradient unsharded, so from the first micro-batch's backward to the last one's "
                     "reduce-scatter every GPU holds the whole model's gradients, not its shard.");
            return X::mul(X::bytes("b_g", c.recipe.gradients), parametersHeld<X>(c, false), " · ", " × ");
        }
        // LoRA: one FSDP unit per decoder layer holds the frozen base's linears and the adapters in one flat
        // parameter (use_orig_params=True permits mixed requires_grad: _flat_param.py _validate_tensors_to_flatten
        // makes the flat parameter require a gradient if any of its parameters does), and in forward the original
        // parameters are plain views of it (_use_unsharded_views(as_params=False)), so autograd writes a gradient
        // for the whole flat parameter, the frozen weights' part included. The root unit (embeddings, head, final
        // norm) is all frozen and has none. The adapters' own gradients stay in the adapters term (0.06% of a
        // layer).
        n.assume("Gradient accumulation inside FSDP1's no_sync() with one flat parameter per decoder layer holding "
                 "both the frozen base and the adapters (use_orig_params=True): the flat parameter needs a gradient, "
                 "so backward writes one for all of it, the frozen weights' zeros included, and no_sync keeps it "
                 "unsharded until the last micro-batch. P − P_emb counts the decoder layers' parameters; the "
                 "embeddings and head form a frozen unit of their own and have none.");
        const ResolvedModel& m = *c.model;
        const double total = dbl(m.params.total);
        const double layers = std::max(0.0, total - dbl(std::clamp<int64_t>(m.params.embedding, 0, m.params.total)));
        const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
        return X::mul(X::bytes("b_g", c.adapterRecipe.gradients),
                      held<X>(c, false, layers, routed, {"(P − P_emb)", "(P − P_emb)_dense", "P_experts"}), " · ",
                      " × ");
    }
    if (c.training && c.fineTune == FineTune::Full && c.offload == Offload::None && !c.host &&
        effectiveOptimizerInBackward(*c.scenario)) {
        // torchtune bd2a0fc torchtune/modules/optim.py OptimizerInBackward: one optimizer per parameter, stepped and
        // zero_grad()-ed (set_to_none) by a register_post_accumulate_grad_hook as soon as the parameter's gradient is
        // accumulated: the gradients alive at once are those of the unit the backward pass is in.
        n.title("Gradients per GPU (optimizer step in backward)");
        n.assume("The optimizer steps each parameter as soon as the backward pass has written its gradient and frees "
                 "the gradient: at most one layer's (or the output head's) gradients exist at once.");
        n.source("torchtune bd2a0fc torchtune/modules/optim.py OptimizerInBackward (register_post_accumulate_grad_hook "
                 "steps and frees each parameter's gradient); docs/accounting.md, Recipes");
        const bool sharded = c.layout.zero >= 2 && c.layout.replicas() > 1;
        if constexpr (X::kText)
            if (sharded)
                n.assumptions += " ZeRO-" + std::to_string(c.layout.zero) +
                                 " shards the gradients: the step hook fires on this rank's shard after the "
                                 "reduce-scatter, so one unit's gradients are held ÷ d (routed experts ÷ d_e).";
        return X::mul(X::bytes("b_g", c.recipe.gradients),
                      X::sym(sharded ? "max(P_layer, V·h)/(t·d)" : "max(P_layer, V·h)/t", unitGradientParams(c)), " · ",
                      " × ");
    }
    // Offloaded, the CPU optimizer reads fp32 gradients: DeepSpeed copies each 16-bit gradient bucket into an
    // fp32 buffer of this rank's partition in pinned host memory (stage_1_and_2.py's
    // single_partition_of_fp32_groups' .grad, 4 B of its estimator's 16 B per parameter on the CPU), from ZeRO-1 on.
    const HostCopy host{c.offload != Offload::None, "b_g,host",
                        c.recipe.gradients > 0 ? std::max(c.recipe.gradients, 4.0) : 0.0, 1};
    return modelState<X>(c, n, "Gradients", "b_g", c.recipe.gradients, 2,
                         "One gradient per parameter, kept until the optimizer step.", host);
}

template <class X> X master(const TermContext& c, TermNotes<X>& n)
{
    const HostCopy host{c.offload != Offload::None, "b_m", c.recipe.master, 1};
    return modelState<X>(c, n, "Master weights", "b_m", c.recipe.master, 1,
                         "Mixed precision updates an fp32 copy so that small updates are not rounded away in 16 bits.",
                         host);
}

template <class X> X optimizer(const TermContext& c, TermNotes<X>& n)
{
    std::string what;
    if constexpr (X::kText)
        what = std::to_string(c.recipe.slotCount) + " slot(s) of " + formatNumber(c.recipe.slotBytes) +
               " B per parameter for " + toString(c.scenario->training.optimizer) +
               " (Adam keeps the running mean m and variance v).";
    const HostCopy host{c.offload != Offload::None || c.pagedOptimizer, "b_o", c.recipe.optimizer, 1};
    return modelState<X>(c, n, "Optimizer state", "b_o", c.recipe.optimizer, 1, what, host);
}

// LoRA adapters (Hu et al. 2021): r·(d_in + d_out) trainable parameters per adapted linear
// (core/model/lora.h), each with a weight, a gradient, a master copy and optimizer state in the precision
// recipe. One segment, not four: at 0.1–1% of the parameters the four would be slivers no bar can
// show; the formula keeps them apart. Tensor and pipeline parallelism split them with their
// linears, expert parallelism the experts' ones, and ZeRO shards each part from its stage on.
template <class X> X adaptersHeld(const TermContext& c, TermNotes<X>& n)
{
    n.title("LoRA adapters per GPU");
    n.source([&] {
        return "Hu et al. 2021, LoRA: Low-Rank Adaptation of Large Language Models, §4.1; huggingface/peft "
               "src/peft/tuners/lora/layer.py @ b28a09c4 (lora_A = Linear(d_in, r), lora_B = Linear(r, d_out), no "
               "bias) and "
               "src/peft/tuners/tuners_utils.py @ 831fd03e (all-linear leaves out the output head); " +
               recipeSource(*c.scenario);
    });
    if (c.fineTune == FineTune::Full) {
        n.assume(c.training ? "Full fine-tuning trains every parameter: there are no adapters."
                            : "Serving reads merged weights: there are no separate adapters.");
        return X::text("0", "0", 0);
    }
    const Scenario& s = *c.scenario;
    n.assume([&] {
        const double share = c.model->params.total > 0 ? dbl(c.adapterParams.total) / dbl(c.model->params.total) : 0;
        return "Rank r = " + std::to_string(s.training.loraRank) + " on " +
               (s.training.loraModules != 0 ? loraModulesList(s.training.loraModules)
                : s.training.loraTargets == LoraTargets::All
                    ? std::string("every linear of attention and MLP (experts included)")
                    : std::string("the attention projections (q, k, v, o)")) +
               ": each adapted d_in → d_out linear gains A (r × d_in) and B (d_out × r), r·(d_in + d_out) parameters. "
               "N_A = " +
               formatCountPrecise(dbl(c.adapterParams.total)) + " trainable parameters, " + formatPercent(share) +
               " of the model. They alone carry weights (b_w), gradients (b_g), the fp32 master copy (b_m) and "
               "optimizer "
               "state (b_o). " +
               layoutAssumption(c.layout, 1, c.training);
    });
    const StateRecipe& r = c.adapterRecipe;
    const ParallelLayout& p = c.layout;
    auto perParam = [&](int64_t ranks, const char* d) {
        const bool dense = std::string(d) == "d";
        auto part = [&](const char* sym, double v, int stage) {
            const X b = X::bytes(sym, v);
            if (p.zero < stage)
                return b;
            if (dense && p.cp > 1)
                return ranks > 1 ? b / (X::sym(d, dbl(ranks)) * X::sym("c", dbl(p.cp))) : b / X::sym("c", dbl(p.cp));
            return ranks > 1 ? b / X::sym(d, dbl(ranks)) : b;
        };
        return part("b_w", r.weights, 3) + part("b_g", r.gradients, 2) + part("b_m", r.master, 1) +
               part("b_o", r.optimizer, 1);
    };
    const double total = dbl(c.adapterParams.total);
    const double routed = std::min(dbl(c.adapterParams.routedExperts), total);
    if (routed > 0)
        return times(heldPart<X>(c, false, "N_A,dense", total - routed, false), perParam(p.dp, "d")) +
               times(heldPart<X>(c, false, "N_A,experts", routed, true), perParam(p.dpExpert, "d_e"));
    return times(heldPart<X>(c, false, "N_A", total, false), perParam(p.dp, "d"));
}

// The adapters under optimizer+params offload (ZeRO-3): every flat parameter's shard, its gradient and the optimizer
// step live on the host. PyTorch's FSDP CPUOffload(offload_params=True) "offloads gradients to CPU as well, meaning
// that the optimizer step runs on CPU" (torch/distributed/fsdp/api.py, CPUOffload), and Answer.AI's fsdp_qlora wraps
// each trainable LoRA linear as its own FSDP unit (train.py at 05ed9f2, get_wrapping_policy's lambda_policy_fn), so
// the adapters are offloaded with the base; DeepSpeed's offload_param with offload_optimizer does the same. The layer's
// adapters being computed are gathered with it (r·(d_in + d_out) a linear, under 2% of the layer: not counted).
template <class X> X adapters(const TermContext& c, TermNotes<X>& n)
{
    const bool offloaded = c.offload == Offload::OptimizerParams && c.fineTune != FineTune::Full;
    if (c.host && !offloaded)
        return X(0);
    const X held = adaptersHeld<X>(c, n);
    if (!offloaded)
        return held;
    if constexpr (X::kText)
        n.assumptions += " Offloaded with the parameters (FSDP's CPUOffload(offload_params=True), DeepSpeed's "
                         "offload_param and offload_optimizer): the adapters' shard, their gradients and optimizer "
                         "state live in the host's memory and the CPU runs their optimizer step.";
    if (c.host) {
        n.title("LoRA adapters per GPU, in host memory");
        return held;
    }
    return offloadedFromGpu(held);
}

// The kinds of layer a model mixes (issue 29 §2), for the drill-down: what each kind's queries meet (tape) or
// what each keeps while generating (cache). Only kinds the model has are named.
const char* kindName(LayerKind k)
{
    switch (k) {
    case LayerKind::Full:
        return "full-attention";
    case LayerKind::Sliding:
        return "sliding-window";
    case LayerKind::Chunked:
        return "chunked-attention";
    case LayerKind::Linear:
        return "linear-attention (Gated DeltaNet)";
    case LayerKind::Mamba:
        return "Mamba-2";
    case LayerKind::None:
        return "FFN-only";
    }
    return "";
}

std::string kindsSentence(const TermContext& c, bool cache)
{
    const Architecture& a = c.model->arch;
    std::string out;
    for (size_t i = 0; i < kLayerKindCount; ++i) {
        const LayerKind k = static_cast<LayerKind>(i);
        // In the cache's sentence the layers that reuse an earlier layer's K and V are left to their own sentence.
        const double shared = !cache                    ? 0
                              : k == LayerKind::Full    ? c.kvShared[0]
                              : k == LayerKind::Sliding ? c.kvShared[1]
                                                        : 0;
        const double n = c.kindLayers[i] - shared;
        if (n <= 0)
            continue;
        std::string what;
        switch (k) {
        case LayerKind::Full:
            what = cache ? "keep every token" : "meet all s keys";
            break;
        case LayerKind::Sliding:
            what = (cache ? "keep the last " : "meet at most ") + formatNumber(dbl(a.kinds.window)) +
                   (cache ? " tokens" : " keys per query (their window)");
            break;
        case LayerKind::Chunked:
            what = (cache ? "keep at most " : "meet at most ") + formatNumber(dbl(a.kinds.chunk)) +
                   (cache ? " tokens (their chunk)" : " keys per query (their chunk)");
            break;
        case LayerKind::Linear:
        case LayerKind::Mamba:
            what = cache ? "keep no keys or values: a fixed-size recurrent state instead (the recurrent-state term)"
                         : "keep no s² scores: their recurrence is linear in s";
            break;
        case LayerKind::None:
            what = cache ? "keep nothing (no token mixer)" : "have no token mixer, only their FFN";
            break;
        }
        out += (out.empty() ? "" : "; ") + formatNumber(n) + " " + kindName(k) + " layer" + (n == 1 ? "" : "s") + " " +
               what;
    }
    return out.empty() ? out : " Layer kinds: " + out + ".";
}

// Korthikanti et al. 2022 §4.1 (per-layer terms), §5 (selective and full recomputation); the
// terms themselves are core/memory/activations.h's. 1F1B keeps p micro-batches on the first stage
// (Narayanan et al. 2021).
template <class X> X layerTapes(const TermContext& c, TermNotes<X>& n)
{
    const Architecture& a = c.model->arch;
    const ActivationInputs& in = c.in;
    const ParallelLayout& p = c.layout;
    // A literal, not a std::string: the numbers-only pass must not allocate (bench, core recompute).
    constexpr const char* src =
        "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, §4.1 "
        "(per-layer terms), §5 (selective and full recomputation); core/memory/activations.h";
    if (!c.training) {
        n.title("Activations (inference: one layer's working set)");
        if (c.mixedKinds)
            n.assume([&] {
                return "Serving frees each layer's tensors after use; only the largest layer is resident at once." +
                       kindsSentence(c, false);
            });
        else
            n.assume("Serving frees each layer's tensors after use; only the largest layer is resident at once.");
        n.source(src);
        return tape<X>("max over layer kinds of (attention + scores + mlp + norms + dropout), no tape kept",
                       c.largestNone());
    }
    X layers = p.pp > 1 ? X::sym("n", c.stageLayers) : X::sym("L", c.stageLayers);
    if (p.pp > 1)
        layers = times(layers, X::sym("micro-batches in flight", c.inflight));
    // Activation offloading (torchtune bd2a0fc training/_activation_offloading.py OffloadActivations): each saved
    // tensor is copied to the host as forward saves it and brought back before its backward, so the GPU holds the
    // layer being computed and the next one in flight (its copy or its prefetch); the rest is hostTerms()'.
    if (c.offloadActivations)
        layers = X::sym("layers in flight (the rest in host memory)", std::min(c.stageLayers * c.inflight, 2.0));
    auto notes = [&] {
        std::string s;
        if (p.tp > 1)
            s += in.sequenceParallel
                     ? " Tensor parallel ×" + std::to_string(p.tp) + " with sequence parallelism divides every term."
                     : " Tensor parallel ×" + std::to_string(p.tp) +
                           " without sequence parallelism: norms, dropout masks and block inputs stay whole.";
        if (p.cp > 1)
            s += " Context parallel ×" + std::to_string(p.cp) +
                 ": this GPU holds s/c = " + formatNumber(in.localSeq()) + " of the " + formatNumber(in.seq) +
                 " tokens of every tensor; its queries still meet all s keys (the unfused scores are a·(s/c)·s·b), "
                 "and the other chunks' K and V pass through in a ring without being kept.";
        if (p.pp > 1)
            s += stageSentence(c) +
                 (p.vpp > 1 ? " Interleaved 1F1B with " + std::to_string(p.vpp) +
                                  " virtual stages: stage i holds min(2·(p − i − 1) + (v − 1)·p + 1, m·v)/v "
                                  "micro-batches' tapes"
                            : std::string(" With 1F1B stage i holds the tapes of min(p − i, m) micro-batches")) +
                 " (m = " + std::to_string(std::max<int64_t>(c.scenario->training.gradAccum, 1)) +
                 " per step): " + formatNumber(c.inflight) +
                 " here (Narayanan et al. 2021 §2.2; Megatron-LM schedules.py).";
        return s;
    };
    const X S = tokens<X>(in), B = X::sym("b", in.microBatch), H = X::sym("h", dbl(a.hidden));

    if (in.checkpointing == Checkpointing::Full) {
        // Only each layer's input is kept (layerInputCheckpoint), plus one layer's tape in its backward.
        n.title("Activations (full checkpointing)");
        n.assume([&] {
            return "Only each layer's input is stored; the backward pass reruns the layer's forward (about one "
                   "extra forward, +33% compute) and holds that one layer's tape meanwhile." +
                   notes();
        });
        n.source(
            [&] { return std::string(src) + "; Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost"; });
        X input = X::sym("e", in.elementBytes) * S * B * H;
        if (p.tp > 1 && in.sequenceParallel)
            input = input / X::sym("t", in.tp);
        return times(input, layers) + X::total("one layer's full tape during its backward", c.largestNone().total());
    }

    const bool selective = in.checkpointing == Checkpointing::Selective;
    const bool perOp = in.checkpointing == Checkpointing::PerOp;
    n.title(perOp       ? "Activations (per-op selective checkpointing)"
            : selective ? "Activations (selective checkpointing)"
                        : "Activations (no checkpointing)");
    n.source([&] {
        return std::string(src) +
               (perOp ? "; torchtitan torchtitan/distributed/activation_checkpoint.py at b5bcd76 (SelectiveAC: save "
                        "compute and communication ops' outputs \"except every second mm/linear\")"
                      : "");
    });
    if (korthikantiShaped(a, in)) {
        n.assume([&] {
            return std::string("GPT block with 16-bit activations, dropout and a 4h GeLU MLP: attention 11·sbh, MLP "
                               "19·sbh, norms 4·sbh") +
                   (selective ? "; selective recomputation drops the 5·a·s²·b of scores, softmax and dropout."
                    : in.flashAttention
                        ? "; fused (flash) attention keeps only fp32 softmax statistics, 4·a·s·b, instead of 5·a·s²·b."
                        : "; the 5·a·s²·b term is the attention scores, softmax output and dropout mask.") +
                   notes();
        });
        const X A = X::sym("a", dbl(a.heads));
        if (selective)
            return times(34 * S * B * H, layers);
        if (in.flashAttention)
            return times(S * B * H * 34 + 4 * A * S * B, layers);
        return times(S * B * H * (34 + 5 * A * S / H), layers);
    }
    if (perOp)
        n.assume([&] {
            return std::string("Per-op selective checkpointing (torchtitan's SelectiveAC): each layer keeps its input, "
                               "the outputs of the 1st, 3rd, 5th … matmul in call order (q, k, v, o, then gate, up, "
                               "down: q, v, gate and down) and the attention kernel's output with its fp32 "
                               "log-sum-exp; norms, RoPE, activations and residual adds are recomputed, and in its "
                               "backward one layer rebuilds the rest of its tape.") +
                   notes();
        });
    else
        n.assume([&] {
            return "Korthikanti's terms generalised: " +
                   std::string(a.ffnKind == FfnKind::SwiGLU ? "SwiGLU keeps gate‖up and the down-projection input"
                                                            : "GeLU MLP") +
                   (a.kvHeadsOrDefault() != a.heads ? ", grouped-query K and V" : "") +
                   (a.dropoutOrDefault() ? ", dropout masks" : ", no dropout") +
                   (a.isMoe() ? ", MoE keeps each of the k routed experts' inputs and the fp32 router logits" : "") +
                   (a.isMoe() && a.moe.latent > 0
                        ? " (a latent MoE's experts read " + formatNumber(dbl(a.moe.latent)) +
                              " channels, not h: each copy is that wide, and fc2_latent_proj keeps their sum)"
                        : std::string()) +
                   (in.fp8LinearInputs ? ", linear-layer inputs cached in fp8" : "") +
                   "; tape = attention + scores + mlp + norms + dropout; " +
                   (selective ? "selective recomputation drops the attention scores."
                    : in.flashAttention
                        ? "flash attention keeps 4·a·s·b of softmax statistics instead of the s² scores."
                        : "the attention scores grow with s².") +
                   notes();
        });
    // Per-op checkpointing rebuilds, during one layer's backward, what that layer did not keep: the largest layer's
    // tape without checkpointing less its per-op tape, beside the kept tapes (as full recomputation holds one whole
    // layer's).
    auto perOpRebuilt = [&](X kept) {
        if (!perOp)
            return kept;
        const LayerActivations& keptLayer = c.moeLayers > 0 && c.moe.total() >= c.dense.total() ? c.moe : c.dense;
        return kept + X::total("the rest of one layer's tape, rebuilt during its backward",
                               std::max(0.0, c.largestNone().total() - keptLayer.total()));
    };
    if (c.mixedKinds) {
        // One tape per layer kind (issue 29 §2), each with the model's average FFN: the stage's layers hold each
        // kind in the model's proportion.
        if constexpr (X::kText)
            n.assumptions += kindsSentence(c, false);
        static constexpr std::array<const char*, kLayerKindCount> kindSym{"L_full",   "L_sliding", "L_chunked",
                                                                          "L_linear", "L_mamba",   "L_ffn-only"};
        static constexpr std::array<const char*, kLayerKindCount> tapeSym{
            "tape_full", "tape_sliding", "tape_chunked", "tape_linear", "tape_mamba", "tape_ffn-only"};
        X sum = X(0);
        bool first = true;
        for (size_t i = 0; i < kLayerKindCount; ++i) {
            if (c.kindLayers[i] <= 0)
                continue;
            const X one = X::sym(kindSym[i], c.kindLayers[i]) * tape<X>(tapeSym[i], c.kindTape[i]);
            sum = first ? one : sum + one;
            first = false;
        }
        return perOpRebuilt(times(sum / X::sym("L", c.layers), layers));
    }
    if (c.denseLayers > 0 && c.moeLayers > 0) {
        const X perLayer = (X::sym("L_dense", c.denseLayers) * tape<X>("tape_dense", c.dense) +
                            X::sym("L_moe", c.moeLayers) * tape<X>("tape_moe", c.moe)) /
                           X::sym("L", c.layers);
        return perOpRebuilt(times(perLayer, layers));
    }
    return perOpRebuilt(
        times(tape<X>("(attention + scores + mlp + norms + dropout)", c.moeLayers > 0 ? c.moe : c.dense), layers));
}

// The transformer's tapes, then the multi-token-prediction modules' on the stage that holds them (DeepSeek-V3
// §2.2; Megatron-LM megatron/core/transformer/multi_token_prediction.py): per module and micro-batch in flight
// one block of the last layer's kind at the scenario's checkpointing, plus what feeds it, the two normed
// inputs (the main model's last hidden state, the next tokens' embedding) and their 2h concatenation into
// the projection M_k, 4·e·sbh; full checkpointing keeps the two inputs only, 2·e·sbh.
template <class X> X logits(const TermContext& c, TermNotes<X>& n);
template <class X> X workspace(const TermContext& c, TermNotes<X>& n);

// LitGPT's QLoRA through bitsandbytes before 0.43.2 peaks at the end of the next micro-batch's forward, not at the loss
// (docs/accounting.md, "The micro-batch before"): MatMul4Bit.forward keeps its input as a plain attribute,
// ctx.tensors = (A, B) (bitsandbytes 0.42.0, the version LitGPT 43c4432 pins, autograd/_functions.py; 0.41.1 the
// same; bitsandbytes 9e753741, first in 0.43.2, keeps (None, B)), which PyTorch's PyNode::release_variables() does not
// free after backward (it clears saved_variables only), and finetune/lora.py keeps the graph through `logits` until the
// next forward rebinds it. So while micro-batch k + 1 builds its tape, micro-batch k's 4-bit inputs and its fp32
// logits are still held, and the head's forward runs its dequantised copies beside the chunks' 16-bit logits. The bars
// add what that moment holds beyond the loss's logits and workspace (never less than nothing): the bar's total is the
// larger of the two peaks. The micro-batch before is as long as this one (TrainMem's fixed-length data) unless
// /training/litgpt_held_batch is off: LitGPT's first iteration runs the longest sample (lora.py: longest_seq_ix when
// iter_num == 1), and where the others are shorter that step, which has none before it, is the peak.
template <class X> X heldBatch(const TermContext& c)
{
    if (!c.training || !c.in.bnb4bit || !c.in.litgptTape || !c.scenario->training.litgptHeldBatch)
        return X(0);
    const Architecture& a = c.model->arch;
    const double e = c.in.elementBytes, b = dbl(c.in.microBatch), s = c.in.seq / std::max(c.in.cp, 1.0);
    const double h = dbl(a.hidden), V = dbl(a.vocab), f = dbl(a.ffn);
    const double ad = dbl(a.heads) * dbl(a.headDimOf(LayerKind::Full));
    // Each layer's MatMul4Bit inputs: qkv's and the MLP's (fc_1 and fc_2 share one) normed inputs, proj's, the
    // product (the first layer's qkv keeps None and the head chunks keep ln_f's output: they cancel).
    const double inputs = c.stageLayers * e * b * s * (2 * h + ad + f);
    const double oldLogits = 4 * b * s * V; // Fabric's fp32 copy, still in `logits`
    const double chunks = std::ceil(s / 128);
    const double copy = c.scenario->training.precision == Precision::FP16Mixed ? 0 : e;
    const double head = std::max(2 * b * s * V * (chunks - 1) / std::max(chunks, 1.0) + (2 + copy) * V * h,
                                 6 * b * s * V); // the head's forward: dequantised copies beside the chunks
    TermNotes<NumExpr> none;
    const double atLoss = logits<NumExpr>(c, none).value + workspace<NumExpr>(c, none).value;
    const double extra = std::max(0.0, inputs + oldLogits + head - atLoss);
    return X::text(
        "held from the micro-batch before", [extra] { return formatNumber(extra) + " B"; }, extra);
}

template <class X> X activations(const TermContext& c, TermNotes<X>& n)
{
    X main = layerTapes<X>(c, n);
    if (const X held = heldBatch<X>(c); held.value > 0) {
        if constexpr (X::kText) {
            n.assumptions += " LitGPT's QLoRA through bitsandbytes before 0.43.2: MatMul4Bit keeps each 4-bit "
                             "linear's input on ctx past backward, and LitGPT keeps the graph in `logits` until the "
                             "next forward, so the step peaks at the end of the next micro-batch's forward with the "
                             "one before's 4-bit inputs and fp32 logits still held; 'held from the micro-batch "
                             "before' is what that moment holds beyond the loss's logits and workspace.";
            n.sourceText += "; bitsandbytes 0.42.0 autograd/_functions.py MatMul4Bit (ctx.tensors = (A, B)), fixed by "
                            "9e753741 (0.43.2); PyTorch python_function.cpp PyNode::release_variables; LitGPT 43c4432 "
                            "litgpt/finetune/lora.py (logits = model(...), kept until the next forward)";
        }
        main = main + held;
    }
    if (!c.training || !c.holdsMtp())
        return main;
    const ActivationInputs& in = c.in;
    const bool full = in.checkpointing == Checkpointing::Full;
    X feed = X::sym(full ? "2" : "4", full ? 2.0 : 4.0) * X::sym("e", in.elementBytes) * tokens<X>(in) *
             X::sym("b", in.microBatch) * X::sym("h", dbl(c.model->arch.hidden));
    if (c.layout.tp > 1 && in.sequenceParallel)
        feed = feed / X::sym("t", in.tp);
    X module = full ? feed : tape<X>("tape_mtp", c.moeLayers > 0 ? c.moe : c.dense) + feed;
    X modules = X::sym("D", c.mtpLayers);
    if (c.layout.pp > 1)
        modules = times(modules, X::sym("micro-batches in flight", c.inflight));
    if constexpr (std::is_same_v<X, TextExpr>)
        n.assumptions += " Multi-token prediction: " + formatNumber(c.mtpLayers) +
                         " module(s) on this stage, each one more block of the last layer's kind" +
                         (full ? " (its two inputs kept, 2·e·sbh)"
                               : " with its two normed inputs and their 2h concatenation (4·e·sbh)") +
                         ", and its own logits.";
    return main + times(modules, module);
}

// The KV cache of a model of several layer kinds (issue 29 §2): a full-attention layer keeps K and V of every token,
// a sliding-window layer of its last `window` tokens (Mistral 7B's rolling buffer cache; transformers'
// DynamicSlidingWindowLayer keeps [b, heads, min(s, window), head_dim]), a chunked layer of at most its chunk; a
// linear-attention layer none (the recurrent-state term). Tokens are the s of the scenario (s/c under context
// parallel); a pipeline stage holds n/L of each kind.
template <class X> X kvCacheByKind(const TermContext& c, TermNotes<X>& n)
{
    const Architecture& a = c.model->arch;
    n.assume([&] {
        const double shared = c.kvShared[0] + c.kvShared[1];
        return "K and V in 16 bits for the tokens each attention layer attends to; grouped-query attention shares "
               "them across heads." +
               kindsSentence(c, true) +
               (shared > 0 ? " " + formatNumber(shared) +
                                 " more layers attend with an earlier layer's K and V and keep no cache of their own."
                           : std::string());
    });
    n.source("Pope et al. 2022, Efficiently Scaling Transformer Inference §2 (KV cache); Ainslie et al. 2023 (GQA); "
             "Jiang et al. 2023, Mistral 7B (arXiv 2310.06825), Rolling Buffer Cache (a sliding-window layer's cache "
             "has a fixed size of W); docs/accounting.md, Layer kinds");
    const X s = tokens<X>(c.in);
    const double seq = c.in.localSeq();
    X layerTokens = X(0);
    bool first = true;
    auto add = [&](X term) {
        layerTokens = first ? term : layerTokens + term;
        first = false;
    };
    // Layers that reuse an earlier layer's K and V keep no cache of their own (Gemma4TextAttention.forward: no
    // past_key_values.update where is_kv_shared_layer; Gemma 4 E2B, E4B).
    const double full = std::max(0.0, c.kindLayers[static_cast<size_t>(LayerKind::Full)] - c.kvShared[0]);
    const double sliding = std::max(0.0, c.kindLayers[static_cast<size_t>(LayerKind::Sliding)] - c.kvShared[1]);
    const double chunked = c.kindLayers[static_cast<size_t>(LayerKind::Chunked)];
    // Full-attention layers of their own shape (Gemma 4: global_head_dim, num_global_key_value_heads) cache K and V
    // of that shape; k = v layers still cache both (Gemma4TextAttention.forward: past_key_values.update(key_states,
    // value_states), the values normed apart from the keys).
    const bool fullShape = a.kinds.fullShape() && full > 0;
    const X heads = dot(X::sym("kv_heads", dbl(a.kvHeadsOrDefault())), X::sym("d_head", dbl(a.headDimOrDefault())));
    X fullTokens = X(0);
    if (full > 0) {
        if (fullShape)
            fullTokens =
                dot(dot(X::sym("L_full", full), s), dot(X::sym("kv_heads_full", dbl(a.kvHeadsOf(LayerKind::Full))),
                                                        X::sym("d_head_full", dbl(a.headDimOf(LayerKind::Full)))));
        else
            add(dot(X::sym("L_full", full), s));
    }
    if (sliding > 0)
        add(dot(X::sym("L_sliding", sliding), X::sym("min(w, s)", std::min(seq, dbl(a.kinds.window)))));
    if (chunked > 0)
        add(dot(X::sym("L_chunked", chunked), X::sym("min(chunk, s)", std::min(seq, dbl(a.kinds.chunk)))));
    if (first && !fullShape)
        return X::text("0 (no attention layers)", "0", 0);
    const X bytes = dot(X::sym("b", c.in.microBatch), X::bytes("2 B", kKvElementBytes));
    X kv = X(0);
    if (fullShape) {
        // Every layer's K and V values per sequence: Σ layers · tokens · kv_heads · d_head, each kind its own.
        X values = first ? fullTokens : fullTokens + dot(layerTokens, heads);
        if (c.layout.pp > 1)
            values = dot(X::sym("n/L", c.stageLayers / c.layers), values);
        kv = dot(dot(X(2), values), bytes);
    } else {
        if (c.layout.pp > 1)
            layerTokens = dot(X::sym("n/L", c.stageLayers / c.layers), layerTokens);
        kv = dot(dot(dot(X(2), layerTokens), heads), bytes);
    }
    return c.layout.tp > 1 ? over(kv, X::sym("t", dbl(c.layout.tp))) : kv;
}

// Mamba-2 layers' state while generating: per layer and sequence the SSM state, heads × head_dim × state in
// mamba_ssm_cache_dtype (NemotronHConfig's default float32, configuration_nemotron_h.py @
// cfeb552ef0cb77b59ff08da07698ecaad5f7b5ba; GraniteMoeHybrid's HybridMambaAttentionDynamicCache makes its ssm_states in
// the model's dtype, modeling_granitemoehybrid.py @ 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e: Mamba2Config::
// ssmStateBytes), and the conv state, conv_dim × K in the model's 16 bits
// (NemotronHHybridDynamicCache in modeling_nemotron_h.py @ 897753a012bfa6dac8c0ae3281f23a2fc1e72db6: conv_states
// [b, d_inner + 2·groups·state, conv_kernel], ssm_states [b, heads, head_dim, state]).
constexpr const char* kElementLabels[] = {"0 B", "1 B", "2 B", "3 B", "4 B", "5 B", "6 B", "7 B", "8 B"};

template <class X> X mambaStateBytes(const TermContext& c)
{
    const Mamba2Config& m = c.model->arch.kinds.mamba2;
    const X ssm =
        dot(dot(dot(X::sym("heads", dbl(m.heads)), X::sym("d_head", dbl(m.headDim))), X::sym("N", dbl(m.stateSize))),
            X::bytes(kElementLabels[std::clamp<int64_t>(m.ssmStateBytes, 1, 8)], dbl(m.ssmStateBytes)));
    const X conv = dot(dot(X::sym("conv_dim", dbl(m.convDim())), X::sym("K", dbl(m.convKernel))),
                       X::bytes("2 B", kKvElementBytes));
    X layers = X::sym("L_mamba", c.kindLayers[static_cast<size_t>(LayerKind::Mamba)]);
    if (c.layout.pp > 1)
        layers = dot(X::sym("n/L", c.stageLayers / c.layers), layers);
    return dot(dot(layers, X::sym("b", c.in.microBatch)), ssm + conv);
}

template <class X> X mambaState(const TermContext& c, TermNotes<X>& n)
{
    n.assume([&] {
        return formatNumber(c.kindLayers[static_cast<size_t>(LayerKind::Mamba)]) +
               " Mamba-2 layers keep, per sequence, an SSM state of heads × head_dim × N in fp32 and the causal "
               "convolution's last K inputs in 16 bits, whatever the context: they replace the KV cache of those "
               "layers." +
               std::string(c.layout.pp > 1 ? " A pipeline stage holds n/L of them." : "");
    });
    n.source("Dao & Gu 2024, Transformers are SSMs (Mamba-2, arXiv 2405.21060) §7; huggingface/transformers "
             "src/transformers/models/nemotron_h/modeling_nemotron_h.py @ 897753a0 (NemotronHHybridDynamicCache) and "
             "configuration_nemotron_h.py @ cfeb552e (mamba_ssm_cache_dtype float32); docs/accounting.md, Layer kinds");
    const X total = mambaStateBytes<X>(c);
    return c.layout.tp > 1 ? over(total, X::sym("t", dbl(c.layout.tp))) : total;
}

// Linear-attention layers' state while generating (issue 29 §2): per layer and sequence, Gated DeltaNet's
// recurrent state, one d_k × d_v matrix per value head in fp32, and the causal conv's last K inputs of its conv_dim
// channels in the weights' 16 bits (huggingface/transformers src/transformers/models/qwen3_next/
// modeling_qwen3_next.py at 7515843b617551b008901620ca58f1208bbc330d: torch_chunk_gated_delta_rule returns
// last_recurrent_state [b, nv, d_k, d_v] in float32; conv_states = F.pad(mixed_qkv, (K − s, 0)) holds
// [b, conv_dim, K]). Its size does not depend on the context. Tensor parallel splits the heads.
template <class X> X recurrentState(const TermContext& c, TermNotes<X>& n)
{
    n.title("Recurrent state");
    const Architecture& a = c.model->arch;
    const double linear = c.kindLayers[static_cast<size_t>(LayerKind::Linear)];
    const double mamba = c.kindLayers[static_cast<size_t>(LayerKind::Mamba)];
    if (!c.training && linear <= 0 && mamba > 0)
        return mambaState<X>(c, n);
    if (c.training || linear <= 0) {
        n.assume(c.training ? "Training keeps no recurrent state between steps: the linear-attention layers' tape is "
                              "in the activations term."
                            : "No linear-attention layers: every layer keeps a KV cache instead.");
        n.source("docs/accounting.md, Layer kinds");
        return X::text("0", "0", 0);
    }
    n.assume([&] {
        return formatNumber(linear) +
               " linear-attention (Gated DeltaNet) layers keep, per sequence, one d_k × d_v state per value head in "
               "fp32 and the causal convolution's last K inputs in 16 bits, whatever the context: they replace the "
               "KV cache of those layers." +
               std::string(c.layout.pp > 1 ? " A pipeline stage holds n/L of them." : "");
    });
    n.source("Yang, Kautz & Hatamizadeh 2024, Gated Delta Networks (arXiv 2412.06464) §3; huggingface/transformers "
             "src/transformers/models/qwen3_next/modeling_qwen3_next.py @ 7515843b (Qwen3NextDynamicCache: "
             "recurrent_states, conv_states); docs/accounting.md, Layer kinds");
    const LinearAttentionConfig& g = a.kinds.linearAttention;
    const X state = dot(
        dot(dot(X::sym("nv", dbl(g.valueHeads)), X::sym("d_k", dbl(g.keyHeadDim))), X::sym("d_v", dbl(g.valueHeadDim))),
        X::bytes("4 B", 4));
    const X conv = dot(dot(X::sym("conv_dim", dbl(g.convDim())), X::sym("K", dbl(g.convKernel))),
                       X::bytes("2 B", kKvElementBytes));
    X layers = X::sym("L_linear", linear);
    if (c.layout.pp > 1)
        layers = dot(X::sym("n/L", c.stageLayers / c.layers), layers);
    X total = dot(dot(layers, X::sym("b", c.in.microBatch)), state + conv);
    if (mamba > 0) // a model with both kinds
        total = total + mambaStateBytes<X>(c);
    return c.layout.tp > 1 ? over(total, X::sym("t", dbl(c.layout.tp))) : total;
}

template <class X> X kvCache(const TermContext& c, TermNotes<X>& n)
{
    n.title("KV cache");
    if (c.training) {
        n.assume("Training keeps no KV cache: keys and values are part of the activation tape.");
        n.source("docs/accounting.md, Model state (KV cache)");
        return X::text("0", "0", 0);
    }
    const Architecture& a = c.model->arch;
    const X L = X::sym(c.layout.pp > 1 ? "L/p" : "L", c.stageLayers);
    const X sb = dot(tokens<X>(c.in), X::sym("b", c.in.microBatch));
    const X e = X::bytes("2 B", kKvElementBytes);
    if (a.attention == AttentionKind::MLA) {
        // DeepSeek-V2 §2.1: the compressed latent plus the shared rope key, the same on every tp rank.
        n.assume("Multi-head latent attention caches the compressed KV latent and the shared rope key, not per-head K "
                 "and V.");
        n.source("DeepSeek-V2 technical report §2.1; docs/accounting.md, Model state (KV cache)");
        const X width = X::sym("r_kv", dbl(a.mla.kvLoraRank)) + X::sym("d_rope", dbl(a.mla.qkRopeHeadDim));
        const X latent = dot(dot(dot(L, width), sb), e);
        if (a.mla.indexHeads <= 0)
            return latent;
        // DeepSeek-V3.2's indexer keeps its own key of every token: d_I values in fp8 and one fp32 scale per 128
        // (inference/model.py Indexer: k_cache float8_e4m3fn [b, s, d_I], k_scale_cache float32 [b, s, d_I/128],
        // block_size 128).
        if constexpr (X::kText)
            n.assumptions += " DeepSeek-V3.2's sparse-attention indexer also caches one key of d_I = " +
                             formatNumber(dbl(a.mla.indexHeadDim)) +
                             " values per token and layer, in fp8 with an fp32 scale per 128: the attention reads "
                             "only the top " +
                             formatNumber(dbl(a.mla.indexTopk)) + " tokens, but every token stays cached.";
        n.source("DeepSeek-V2 technical report §2.1; DeepSeek-V3.2 (DSA): huggingface/transformers "
                 "src/transformers/models/deepseek_v32/deepseek_files/inference/model.py @ 220c122b (Indexer "
                 "k_cache, k_scale_cache); docs/accounting.md, Layer kinds");
        const X index = X::sym("d_I", dbl(a.mla.indexHeadDim)) * X::bytes("1 B", 1) +
                        X::sym("d_I/128", dbl(a.mla.indexHeadDim) / 128) * X::bytes("4 B", 4);
        return latent + dot(dot(L, index), sb);
    }
    if (c.mixedKinds)
        return kvCacheByKind<X>(c, n);
    n.assume(
        "K and V for every past token of every layer in 16 bits; grouped-query attention shares them across heads.");
    n.source("Pope et al. 2022, Efficiently Scaling Transformer Inference §2 (KV cache); Ainslie et al. 2023 (GQA)");
    const X heads = dot(X::sym("kv_heads", dbl(a.kvHeadsOrDefault())), X::sym("d_head", dbl(a.headDimOrDefault())));
    const X kv = dot(dot(dot(X(2), L), heads), dot(sb, e));
    return c.layout.tp > 1 ? over(kv, X::sym("t", dbl(c.layout.tp))) : kv;
}

// torchtune's chunked loss projects each of its 8 chunks through the output head on its own (TransformerDecoder's
// chunked_output at 1814feb17a9038e1a8053ce93111bd26774a8db6, `[self.output(chunk) for chunk in h.chunk(...)]`), so
// in backward each chunk writes a whole V·h gradient for the head's weight, and autograd sums them into the first
// before the weight's AccumulateGrad runs (PyTorch torch/csrc/autograd/input_buffer.cpp, InputBuffer::add: the
// buffer and the new gradient, then one). While a trained head's gradient is summed, a second V·h exists beside the
// one the gradients term counts: part of the loss's working set. A frozen head (LoRA, QLoRA) has no gradient.
// The output head's weight gradient, V·h·b_g/t, where the head is trained (full fine-tuning) on this GPU's view.
template <class X> X headGradient(const TermContext& c)
{
    if (c.fineTune != FineTune::Full || c.recipe.gradients <= 0 || c.host)
        return X(0);
    const X vh = dot(X::sym("V", dbl(c.model->arch.vocab)), X::sym("h", dbl(c.model->arch.hidden)));
    return tensorSplit<X>(c, dot(vh, X::bytes("b_g", c.recipe.gradients)));
}

template <class X> X chunkedHeadGradient(const TermContext& c, TermNotes<X>& n)
{
    const X g = headGradient<X>(c);
    if constexpr (X::kText)
        if (g.value > 0)
            n.assumptions += " The head is applied to each chunk on its own, so backward writes a V·h gradient of the "
                             "head's weight per chunk and sums it into the first (PyTorch's InputBuffer::add): one "
                             "more V·h in the gradients' precision while the loss's backward runs.";
    return g;
}

template <class X> X logits(const TermContext& c, TermNotes<X>& n)
{
    n.title("Logits");
    n.source("docs/accounting.md, Activations (logits); Megatron-LM megatron/training/theoretical_memory_usage.py "
             "(output layer)");
    const X V = X::sym("V", dbl(c.model->arch.vocab));
    const X b = X::sym("b", c.in.microBatch);
    if (!c.training) {
        n.assume("Generation scores only the last position, in fp32.");
        return tensorSplit<X>(c, dot(dot(b, V), X::bytes("4 B", 4)));
    }
    if (!c.holdsHead()) {
        n.assume("The logits live on the last pipeline stage; this view is another stage.");
        return X::text("s · b · V · (e + 4 B) on the last stage", "0 on this pipeline stage", 0);
    }
    const X e = X::bytes("e", c.in.elementBytes);
    const X sbV = dot(dot(tokens<X>(c.in), b), V);
    X one = X(0);
    // The loss as computed (issue 30 §2): the bytes per logit at the loss's peak, read from each implementation.
    const std::optional<LossKind> loss = effectiveLoss(*c.scenario);
    switch (loss.value_or(LossKind::VocabParallel)) {
    case LossKind::VocabParallel:
        // Megatron-LM d98e8a6 tensor_parallel/cross_entropy.py: the logits are upcast with .float() and the softmax
        // is computed in place on that copy (torch.exp(…, out=…), exp_logits.div_), which is saved and turned into
        // the gradient in place in backward: the 16-bit logits and one fp32 copy, split by tp. The chapter's
        // accounting (theoretical_memory_usage.py) charges the same when no loss is named.
        if (c.scenario->training.loss || c.scenario->framework)
            n.assume("Megatron-LM's vocab-parallel cross-entropy: the 16-bit logits and one fp32 copy in which the "
                     "softmax and then its gradient are computed in place, split by tp.");
        else
            n.assume("One score per vocabulary entry per token in 16 bits, plus an fp32 copy for the softmax "
                     "cross-entropy. At long context and large vocabularies this rivals the weights.");
        one = tensorSplit<X>(c, dot(sbV, e + X::bytes("4 B", 4)));
        break;
    case LossKind::Eager:
        // transformers d0fed63 loss/loss_utils.py ForCausalLMLoss and torchtitan b5bcd76 components/loss.py call
        // cross_entropy(logits.float(), …). PyTorch's cross_entropy is log_softmax then nll_loss; log_softmax saves
        // its fp32 output for backward. Forward holds the 16-bit logits, the fp32 copy and the fp32 log-probabilities
        // (e + 8 B); backward, once the trainer has dropped the logits (torchtitan's `del pred`, the Trainer's
        // outputs going out of scope), holds the saved log-probabilities, nll_loss's dense fp32 gradient and
        // log_softmax's fp32 input gradient: 12 B, the larger for e ≤ 4 B.
        if (effectiveCompileLoss(*c.scenario, LossKind::Eager)) {
            // Compiled (torchtitan compiles its loss with the model: BaseLoss._maybe_compile at b5bcd76,
            // build_cross_entropy_loss at e7c0cae), AOTAutograd's min-cut partitioner keeps the 16-bit logits and
            // two fp32 values per token, never the fp32 copy nor the log-probabilities, and the backward kernel
            // rebuilds the softmax and writes the 16-bit gradient: 2e per logit (the chunked case's reasoning, over
            // the whole logits).
            n.assume("Cross-entropy on fp32-upcast logits, compiled with the model: torch.compile's partitioner "
                     "keeps the 16-bit logits and recomputes the upcast and the softmax inside the backward kernel, "
                     "which writes a 16-bit gradient: 2e per logit.");
            n.source("torchtitan components/loss.py BaseLoss._maybe_compile at b5bcd76; torch/_functorch/"
                     "partitioners.py at 00c07b9 (min_cut_rematerialization_partition); docs/accounting.md, The loss "
                     "as computed");
            one = tensorSplit<X>(c, dot(sbV, dot(X(2), e)));
            break;
        }
        n.assume("Eager cross-entropy on fp32-upcast logits (transformers' ForCausalLMLoss, torchtitan): in "
                 "backward the saved fp32 log-probabilities, their gradient and the logits' fp32 gradient, 12 B per "
                 "logit, more than forward's e + 8 B.");
        one = tensorSplit<X>(c, dot(sbV, X::bytes("12 B", 12)));
        break;
    case LossKind::Chunked: {
        // Under tensor parallelism bd2a0fc's apply_compile_strategy skips the compile ("not supported with both
        // masking and tensor parallelism enabled", mask_ignored_tokens defaulting to True): the eager bound below.
        if (effectiveCompileLoss(*c.scenario, LossKind::Chunked) && c.layout.tp <= 1) {
            // torchtune compiles the chunk's cross-entropy when the run is compiled: compile_loss (training/_compile.py
            // at 1814feb17a9038e1a8053ce93111bd26774a8db6, the README's measured commit) wraps
            // CEWithChunkedOutputLoss.compute_cross_entropy, F.cross_entropy(logits.float(), …), in torch.compile,
            // the model giving 8 chunks of 16-bit logits (chunked_output) that _loss_step `del`s before backward; at
            // bd2a0fc LinearCrossEntropyLoss.apply_compile_strategy compiles compute_cross_entropy, the projection
            // included. AOTAutograd's min-cut partitioner (torch/_functorch/partitioners.py at
            // 00c07b93c9e8145d374299154218e747d1d20fb0, min_cut_rematerialization_partition) weighs each saved tensor
            // by its bytes, never recomputes a matmul (compute_intensive_ops) nor a reduction whose output is 4×
            // smaller than its input (amax, the sum of exp: per row), and recomputes the fp32 upcast and the
            // pointwise log-softmax: each chunk keeps its 16-bit logits (e per logit; a primal at 1814feb, the mm
            // output at bd2a0fc) and two fp32 values per token, not the fp32 copy nor the log-probabilities. The
            // backward kernel rebuilds them fused and writes the chunk's gradient in 16 bits: at its peak every
            // chunk's 16-bit logits and one chunk's gradient, e·(1 + 1/8).
            n.assume("Chunked cross-entropy compiled (torchtune's compile_loss, 8 chunks): torch.compile's partitioner "
                     "keeps each chunk's 16-bit logits and recomputes the fp32 upcast and the log-softmax inside "
                     "the backward kernel, which writes one chunk's 16-bit gradient at a time.");
            n.source("torchtune torchtune/training/_compile.py compile_loss and recipes/full_finetune_single_device.py "
                     "_loss_step at 1814feb; torch/_functorch/partitioners.py at 00c07b9 "
                     "(min_cut_rematerialization_partition); docs/accounting.md, The loss as computed");
            one = tensorSplit<X>(c, dot(sbV, e + over(e, X::sym("n_chunks", 8))));
            one = one + chunkedHeadGradient<X>(c, n);
            break;
        }
        // torchtune bd2a0fc modules/loss/cross_entropy_loss.py LinearCrossEntropyLoss (num_output_chunks=8): each
        // chunk of tokens is projected and upcast on its own, cross_entropy(logits.float(), …); what stays is
        // every chunk's saved fp32 log-probabilities (4 B per logit) and, in flight, one chunk's 16-bit logits, fp32
        // copy and fp32 gradient (e + 8 B over 8 chunks): the eager bound. Compiled, above.
        n.assume("Chunked cross-entropy (torchtune, 8 chunks): every chunk's saved fp32 log-probabilities, plus one "
                 "chunk at a time upcast: its 16-bit logits, fp32 copy and gradient.");
        const X chunk = over(e + X::bytes("8 B", 8), X::sym("n_chunks", 8));
        one = tensorSplit<X>(c, dot(sbV, X::bytes("4 B", 4) + chunk));
        one = one + chunkedHeadGradient<X>(c, n);
        break;
    }
    case LossKind::Chunked16: {
        // LitGPT 2685705 litgpt/utils.py chunked_cross_entropy (chunk_size=128): cross_entropy(…, reduction="none")
        // on each chunk of the logits in their own dtype, no .float(); log_softmax saves its e-byte output. The
        // training loop keeps `logits` until the next step, through fabric.backward.
        //  - finetune/lora.py (and adapter.py): model(input_ids, lm_head_chunk_size=128) projects each 128-token
        //    chunk on its own. At the loss every chunk's logits and saved log-probabilities are held (2e); backward
        //    runs every chunk's nll_loss and log_softmax backward before the head's (higher sequence numbers), so
        //    each chunk's log-probabilities give way to its logits' gradient (still 2e), with one chunk's nll_loss
        //    gradient and log_softmax input gradient in flight (2e over b·min(128, s) tokens).
        //  - finetune/full.py: model(input_ids) returns the whole logits, split into 128-token chunks; backward
        //    holds every chunk's gradient until split's backward concatenates them (a new tensor), then slicing
        //    logits[..., :-1, :] back to full size makes another: the logits, the concatenated and the full-size
        //    gradient, 3e.
        const X twoE = dot(X(2), e);
        if (c.fineTune == FineTune::Full) {
            n.assume("LitGPT's chunked cross-entropy in the logits' own 16-bit dtype (finetune/full.py): the logits, "
                     "kept through backward, and their gradient twice (split's concatenation, then the slice's "
                     "full-size copy), 3e per logit.");
            one = tensorSplit<X>(c, dot(sbV, dot(X(3), e)));
        } else if (c.in.litgptTape) {
            // Under --framework litgpt the run goes through Fabric, whose module wrapper converts the output to the
            // default dtype, fp32 outside its forward (lightning/fabric/wrappers.py _FabricModule.forward,
            // precision.convert_output; plugins/precision/half.py and bitsandbytes.py convert_output to
            // torch.get_default_dtype(), at 438f29f07a803309b2c83801cda1625d3bc8eb64, the lightning
            // 2.3.0.dev20240328 LitGPT 43c4432 pins): every 128-token chunk becomes an fp32 copy, the bf16 chunk is
            // freed, and the cross-entropy runs in fp32: 4 + 4 B per logit, one chunk's two fp32 gradients in flight.
            n.assume("LitGPT's chunked cross-entropy on Fabric's fp32 copy of the logits (its wrapper converts the "
                     "output to fp32), the output layer in 128-token chunks (finetune/lora.py): every chunk's fp32 "
                     "logits and saved log-probabilities (or their gradient), 8 B per logit, and one chunk's two "
                     "gradients in flight.");
            n.source("lightning src/lightning/fabric/wrappers.py _FabricModule.forward and "
                     "plugins/precision/half.py convert_output at 438f29f; LitGPT finetune/lora.py at 43c4432");
            const X eight = X::bytes("8 B", 8);
            const X chunk = dot(dot(X::sym("c_128", std::min(128.0, c.in.seq / std::max(c.in.cp, 1.0))), b), V);
            one = tensorSplit<X>(c, dot(sbV, eight) + dot(chunk, eight));
        } else {
            n.assume("LitGPT's chunked cross-entropy in the logits' own 16-bit dtype, the output layer in 128-token "
                     "chunks (finetune/lora.py): every chunk's logits and saved log-probabilities (or their "
                     "gradient), 2e per logit, and one chunk's two gradients in flight.");
            const X chunk = dot(dot(X::sym("c_128", std::min(128.0, c.in.seq / std::max(c.in.cp, 1.0))), b), V);
            one = tensorSplit<X>(c, dot(sbV, twoE) + dot(chunk, twoE));
        }
        break;
    }
    case LossKind::LossParallel:
        // PyTorch's loss_parallel() (torch/distributed/tensor/parallel/loss.py: _log_softmax and
        // _nll_loss_and_log_softmax_backward; torchtitan 9dec370 enters it in train.py's context when tp > 1) and
        // torchtitan b5bcd76 components/loss.py _LossParallelCrossEntropy compute the same on each rank's V/t slice of
        // the fp32-upcast logits. Forward: the fp32 copy, shifted = x − max and exp(shifted) beside the 16-bit logits
        // (e + 12 B), the log-probabilities kept. Backward, the logits dropped: beside the saved log-probabilities
        // zeros_like(log_probs), exp(log_probs) and their sum, then its product with the gradient: 16 B, the larger
        // for e ≤ 4 B.
        n.assume("PyTorch's loss_parallel() on each rank's V/t slice of the fp32-upcast logits (torchtitan under "
                 "tensor parallelism): in backward the saved log-probabilities, a zero tensor, their exponential and "
                 "the sum before the product with the gradient, 16 B per logit.");
        n.source("PyTorch torch/distributed/tensor/parallel/loss.py (_log_softmax, "
                 "_nll_loss_and_log_softmax_backward); torchtitan components/loss.py _LossParallelCrossEntropy at "
                 "b5bcd76; docs/accounting.md, The loss as computed");
        one = tensorSplit<X>(c, dot(sbV, X::bytes("16 B", 16)));
        break;
    case LossKind::ChunkedBackward: {
        // torchtitan b5bcd76 components/loss.py ChunkedLossWrapper (num_chunks 8): the decoder stops before the head
        // (_skip_lm_head), its output is split into 8 chunks of tokens, and each chunk goes through the head and
        // cross_entropy_loss and runs its own backward before the next: one chunk's logits at a time, the 16-bit ones
        // kept by the loop beside the eager loss's 12 B (loss-parallel's 16 B under tensor parallelism, the chunk's
        // V/t slice). Each chunk's gradient for the hidden states is summed into an fp32 GradAccumulator over all
        // the tokens (s·b·h·4 B, replicated over tp: the final norm's output is gathered before chunking).
        const bool parallel = c.layout.tp > 1;
        // Compiled (--compile on: torchtitan's compile components default to ["model", "loss"], and
        // BaseLoss._maybe_compile wraps cross_entropy_loss in torch.compile) at tp = 1, the partitioner keeps the
        // chunk's 16-bit logits and the backward kernel writes its 16-bit gradient, as for torchtune's compiled chunks
        // (case Chunked): 2e per logit of the chunk. Under tensor parallelism the autograd Function's own saved fp32
        // log-probabilities stay: the bound above.
        const bool compiled = effectiveCompileLoss(*c.scenario, LossKind::ChunkedBackward) && !parallel;
        n.assume([&] {
            return std::string("torchtitan's ChunkedLossWrapper: the head and the cross-entropy one chunk of the "
                               "tokens at a time (8 chunks), each chunk's backward right after its forward, so only "
                               "one chunk's logits exist: its 16-bit logits and the ") +
                   (compiled   ? "compiled cross-entropy's 16-bit gradient"
                    : parallel ? "loss-parallel cross-entropy's 16 B on the V/t slice"
                               : "eager cross-entropy's 12 B") +
                   ", plus an fp32 sum of the hidden states' gradient over all the tokens.";
        });
        n.source("torchtitan torchtitan/components/loss.py (ChunkedLossWrapper, GradAccumulator) and "
                 "models/llama3/config_registry.py at b5bcd76; docs/accounting.md, The loss as computed");
        const X nChunks = X::sym("n_chunks", 8);
        const X perLogit = compiled ? dot(X(2), e) : e + (parallel ? X::bytes("16 B", 16) : X::bytes("12 B", 12));
        const X sbh = dot(dot(tokens<X>(c.in), b), X::sym("h", dbl(c.model->arch.hidden)));
        one = tensorSplit<X>(c, dot(over(sbV, nChunks), perLogit)) + dot(sbh, X::bytes("4 B", 4) + over(e, nChunks));
        // The head's weight gradient, written by every chunk. Under FSDP2 with the head its own unit (torchtitan's
        // [norm, lm_head]) the wrapper turns its gradient sync off until the last chunk, so FSDP2 upcasts the first
        // chunk's unsharded gradient to an fp32 accumulator and adds each later one to it
        // (torch/distributed/fsdp/_fully_shard/_fsdp_param.py, to_accumulated_grad_if_needed and
        // accumulate_unsharded_grad_if_needed; torchtitan's reduce dtype float32): V·h·(4 B + b_w)/t. Otherwise
        // each chunk's gradient is summed into the one already there: one more V·h beside it.
        if (headGradientBytes(c) > 0 && c.gathersLayer() && fsdp2RootGradient(c) <= 0) {
            if constexpr (X::kText)
                n.assumptions += " Under FSDP2 the head's gradient is kept unsharded across the chunks in an fp32 "
                                 "accumulator, each chunk's 16-bit gradient added to it.";
            const X vh = dot(X::sym("V", dbl(c.model->arch.vocab)), X::sym("h", dbl(c.model->arch.hidden)));
            one = one + tensorSplit<X>(c, dot(vh, X::bytes("4 B", 4) + X::bytes("b_w", c.recipe.weights)));
        } else {
            one = one + chunkedHeadGradient<X>(c, n);
        }
        break;
    }
    case LossKind::Fused: {
        // Liger-Kernel 00eba63 ops/fused_linear_cross_entropy.py fused_linear_cross_entropy_forward: the tokens BT
        // are cut into chunks of next_power_of_2(⌈BT / ⌈V/H⌉⌉) (at most BT) so that a chunk's logits are about BT·H
        // elements in the input's dtype; the kernel writes the logits' gradient in place over them, and grad_input
        // (BT·H, the input's dtype) is computed in forward and kept for backward. The head's weight gradient is the
        // gradients term's.
        const double bt = c.in.seq / std::max(c.in.cp, 1.0) * c.in.microBatch;
        const double h = dbl(c.model->arch.hidden);
        const double vocab = dbl(c.model->arch.vocab);
        const double inc = h > 0 ? std::ceil(vocab / h) : 1;
        double chunkTokens = 1;
        while (chunkTokens < std::ceil(bt / std::max(inc, 1.0)))
            chunkTokens *= 2;
        chunkTokens = std::min(chunkTokens, std::max(bt, 1.0));
        n.assume("Fused linear cross-entropy (Liger): the logits exist one chunk of tokens at a time, about s·b·h "
                 "elements, and the hidden states' gradient (s·b·h) is computed in forward and kept.");
        const X chunkLogits = dot(X::sym("c_tokens", chunkTokens), V);
        const X gradInput = dot(dot(tokens<X>(c.in), b), X::sym("h", h));
        one = dot(chunkLogits + gradInput, e);
        break;
    }
    }
    // The head's input. nn.Linear saves it for its weight's gradient, and under torchtitan's tensor-parallel plan the
    // output head is ColwiseParallel(input_layouts=Shard(1)) after the SequenceParallel final norm
    // (torchtitan/parallelisms/parallelize_llama.py apply_tp at 9dec370ad26b5f8e9a7333a0e36165018262644b, the commit
    // of its measured tensor-parallel runs): DTensor all-gathers the norm's sequence shards first, so every rank
    // keeps s·b·h·e whole where the tape keeps 1/t of each layer's input. Megatron-LM's
    // ColumnParallelLinear under sequence parallelism keeps its shard and gathers again in backward. At t = 1 the
    // head's input is one more layer input, left out with the textbook tape under every framework; chunked-backward
    // holds one chunk of it (above), and Liger's fused loss computes the weight's gradient in forward.
    if (c.scenario->framework == Framework::Torchtitan && c.layout.tp > 1 &&
        (loss == LossKind::Eager || loss == LossKind::LossParallel)) {
        if constexpr (X::kText)
            n.assumptions += " The output head keeps its input for its weight's gradient, all-gathered over the "
                             "sequence by PyTorch's ColwiseParallel: s·b·h·e whole on every tensor-parallel rank.";
        one = one + dot(dot(dot(tokens<X>(c.in), b), X::sym("h", dbl(c.model->arch.hidden))), e);
    }
    if (!c.holdsMtp())
        return one;
    // Each multi-token-prediction module scores the vocabulary again through the shared head, for its own loss.
    if constexpr (std::is_same_v<X, TextExpr>)
        n.assumptions += " Each of the " + formatNumber(c.mtpLayers) +
                         " multi-token-prediction module(s) has its own logits and loss, through the shared head.";
    return times(X::sym("(1 + D)", 1 + c.mtpLayers), one);
}

// ZeRO-3 keeps only a shard of each layer, so the layer being computed is all-gathered whole: its
// weights in forward, weights and unsharded gradients in backward before the reduce-scatter (ZeRO
// paper, Rajbhandari et al. 2020, §5.3; PyTorch FSDP, Zhao et al. 2023: peak memory holds the
// largest unsharded unit; DeepSpeed's estimate_zero3_model_states_mem_needs charges 4 B × the
// largest layer). Experts are gathered only over the ranks that share them, so ep shrinks it.
template <class X> X gatheredLayer(const TermContext& c)
{
    const ResolvedModel& m = *c.model;
    const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
    const double dense = std::max(0.0, dbl(m.params.total) - routed - dbl(m.params.embedding));
    X perLayer = tensorSplit<X>(c, X::sym("P_layer", dense / c.layers));
    if (c.moeLayers > 0) {
        X experts = X::sym("E_layer", routed / c.moeLayers);
        const char* te = c.layout.etp != c.layout.tp ? "t_e" : "t";
        if (c.layout.etp > 1 && c.layout.ep > 1)
            experts = experts / (X::sym(te, dbl(c.layout.etp)) * X::sym("e", dbl(c.layout.ep)));
        else if (c.layout.etp > 1)
            experts = experts / X::sym(te, dbl(c.layout.etp));
        else if (c.layout.ep > 1)
            experts = experts / X::sym("e", dbl(c.layout.ep));
        perLayer = perLayer + experts;
    }
    return dot(perLayer, X::bytes("b_w", c.recipe.weights) + X::bytes("b_g", c.recipe.gradients));
}

template <class X> X workspace(const TermContext& c, TermNotes<X>& n)
{
    n.title("Workspace");
    n.source("docs/accounting.md, Workspace and overhead; core/memory/terms.cpp (widestIntermediate)");
    n.assume([&] {
        return std::string("The largest transient matmul output, w_max elements per token.") +
               (c.training ? " Training also holds its gradient." : "");
    });
    X w = dot(dot(dot(X::bytes("e", c.in.elementBytes), tokens<X>(c.in)), X::sym("b", c.in.microBatch)),
              widestIntermediate<X>(c.model->arch));
    if (c.training)
        w = dot(X(2), w);
    w = tensorSplit<X>(c, w);
    if (c.training && c.in.bnb4bit) {
        // bitsandbytes' MatMul4Bit dequantises its weight in forward and again in backward (bitsandbytes 0.41.1 at
        // 18e827d6, bitsandbytes/autograd/_functions.py: F.dequantize_4bit(B, quant_state).to(A.dtype)): the
        // dequantised copy is in the dtype the weight was quantised from, fp16 (Fabric's _Linear4bit quantises
        // weight.to(dtype=torch.half), lightning bitsandbytes.py at 3775340), and .to(A.dtype) makes a second one in
        // the activations' dtype while the first is alive. The largest is the output head's (QLoRA through LitGPT
        // quantises it), whose backward starts while the whole tape is held.
        const Architecture& a = c.model->arch;
        const double hd = dbl(a.headDimOrDefault());
        const double qkv = (dbl(a.heads) * hd + 2 * dbl(a.kvHeadsOrDefault()) * hd) * dbl(a.hidden);
        const double largest =
            std::max({a.tiedEmbeddings ? 0.0 : dbl(a.vocab) * dbl(a.hidden), qkv, dbl(a.ffn) * dbl(a.hidden)});
        const double copy = c.scenario->training.precision == Precision::FP16Mixed ? 0 : c.in.elementBytes;
        if constexpr (X::kText) {
            n.assumptions += " QLoRA through bitsandbytes: the largest 4-bit matrix, M_max, is dequantised to fp16 "
                             "and cast to the activations' dtype for its matmul, two transient copies.";
            n.sourceText += "; bitsandbytes 0.41.1 (18e827d6) autograd/_functions.py MatMul4Bit; lightning 3775340 "
                            "fabric/plugins/precision/bitsandbytes.py _Linear4bit (quantised from fp16)";
        }
        w = w + dot(X::bytes("(2 B + e)", 2 + copy), X::sym("M_max", largest));
    }
    if (c.gathersLayer()) {
        n.assume([&] {
            return std::string(
                       "The largest transient matmul output, w_max elements per token; training also holds its "
                       "gradient. ZeRO-3 keeps a shard of each layer, so the layer being computed is all-gathered "
                       "whole: its weights, and in backward its unsharded gradients before the reduce-scatter "
                       "(P_layer dense, E_layer expert parameters of one layer; experts are gathered only over "
                       "the ranks that share them).") +
                   (c.offload == Offload::OptimizerParams
                        ? " With the parameters offloaded (ZeRO-Infinity) this layer is all that holds weights on the "
                          "GPU: each rank fetches its shard from host memory over PCIe and the ranks all-gather it, in "
                          "forward and again in backward (DeepSpeed's estimate_zero3_model_states_mem_needs keeps "
                          "only 4 B × the largest layer on the GPU then)."
                        : "");
        });
        n.source("docs/accounting.md, Workspace and overhead; core/memory/terms.cpp (widestIntermediate); ZeRO paper "
                 "(Rajbhandari et al. 2020) §5.3; "
                 "PyTorch FSDP (Zhao et al. 2023)");
        w = w + gatheredLayer<X>(c);
        if (const double root = fsdp1RootGathered(c); root > 0) {
            if constexpr (X::kText)
                n.assumptions += " FSDP1 (the flat wrap) does not reshard the root unit after forward: its embeddings "
                                 "and output head stay gathered whole, U_root, from forward to the end of backward "
                                 "(torch/distributed/fsdp/_runtime_utils.py at 01caf79, _post_forward_reshard).";
            w = w + X::text(
                        "U_root", [&] { return formatNumber(root) + " B"; }, root);
        }
        if (const double root = fsdp2RootGathered(c); root > 0) {
            const bool headOnly = effectiveFsdpRoot(*c.scenario) == FsdpRoot::Head;
            if constexpr (X::kText)
                n.assumptions += headOnly
                                     ? " The FSDP2 wrap keeps the final norm and output head gathered, U_head = (V·h + "
                                       "h)·b_w/t, from their forward through the loss to their backward (torchtitan's "
                                       "[norm, lm_head] unit, distributed/fsdp.py at b5bcd76)."
                                     : " The FSDP2 wrap keeps its root unit, the embeddings, final norm and output "
                                       "head, gathered from forward to the end of backward, U_root = (P_embedding + "
                                       "h)·b_w/t (FSDP2 does not reshard the root after forward; torchtune's "
                                       "shard_model at bd2a0fc).";
            w = w + X::text(
                        headOnly ? "U_head" : "U_root", [&] { return formatNumber(root) + " B"; }, root);
            if (const double g = fsdp2RootGradient(c); g > 0) {
                if constexpr (X::kText)
                    n.assumptions += " The root's gradients are reduce-scattered at the end of backward, so the "
                                     "head's, written at the loss, waits there unsharded: V·h·b_g/t.";
                w = w + X::text(
                            "V·h·b_g/t", [&] { return formatNumber(g) + " B"; }, g);
            }
        }
        if (c.training && c.stageLayers > 1 && !effectiveReshardAfterForward(*c.scenario)) {
            // FSDP2 fully_shard(reshard_after_forward=False) (torch/distributed/fsdp/_fully_shard/_fully_shard.py):
            // a layer's all-gathered weights are not freed after its forward, so when backward begins every layer
            // of the stage holds its gathered weights; the layer computed is already in the gathered term.
            if constexpr (X::kText)
                n.assumptions += " Reshard after forward off (FSDP2's reshard_after_forward=False, torchtitan's "
                                 "default under pipeline parallelism): the other n − 1 layers keep their gathered "
                                 "weights from their forward to their backward.";
            w = w + times(X::sym("(n − 1)", c.stageLayers - 1),
                          X::mul(X::sym("P_layer/t", layerParams(c)), X::bytes("b_w", c.recipe.weights), " · ", " × "));
        }
    }
    return w;
}

template <class X> X framework(const TermContext& c, TermNotes<X>& n)
{
    n.title("Framework");
    n.assume("CUDA context, cuBLAS/NCCL handles and PyTorch's own resident memory; 0.5–1 GB in practice.");
    n.source("docs/accounting.md, Workspace and overhead (/hardware/framework_bytes)");
    const double v = std::clamp(c.scenario->hardware.frameworkBytes, 0.0, 1e12);
    return X::text(
        "framework bytes (configured)", [&] { return formatNumber(v) + " B"; }, v);
}

template <class X> X fragmentation(const TermContext& c, TermNotes<X>& n)
{
    n.title("Fragmentation reserve");
    if (effectiveExpandableSegments(*c.scenario)) {
        // c10/cuda/CUDACachingAllocator.cpp at 001074d: with expandable_segments:True one segment per stream and
        // pool grows by pages of 2 MiB (small pool) and 20 MiB (large pool); only the last page of each is part-used.
        n.assume("Expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True): the allocator maps pages of "
                 "20 MiB (large pool) and 2 MiB (small pool) as it grows, so at most one part-used page of each is "
                 "reserved beyond what is allocated.");
        n.source("PyTorch c10/cuda/CUDACachingAllocator.cpp at 001074d25084fdb87a799823e395a50f5ec044d3 (Note "
                 "[Expandable Segments]); docs/accounting.md, Workspace and overhead");
        return X::text(
            "min(in use, 20 MiB + 2 MiB)",
            [&] { return formatNumber(allocatorReserve(*c.scenario, reservedBytes(c.bytes))) + " B"; },
            allocatorReserve(*c.scenario, reservedBytes(c.bytes)));
    }
    n.assume("The caching allocator cannot use every byte it reserves; a fixed fraction is set aside.");
    n.source(
        "docs/accounting.md, Workspace and overhead (/hardware/fragmentation); PyTorch CUDA caching allocator notes");
    const X share = times(X::sym("f", std::clamp(c.scenario->hardware.fragmentation, 0.0, 1.0)),
                          X::total("(everything but the framework)", reservedBytes(c.bytes)));
    const double cache = flatWrapCache(c);
    if (cache <= 0)
        return share;
    n.assume("The caching allocator cannot use every byte it reserves; a fixed fraction is set aside. FSDP1 wrapped "
             "the model as loaded (use_orig_params=False): each unit was materialised unsharded on the GPU and "
             "concatenated into its flat parameter before the shard was kept, and the allocator keeps those blocks "
             "(one decoder layer's and the root unit's, its embeddings and head, twice each) through the run: "
             "reset_peak_memory_stats() does not release them. Counted whole, an upper bound: the step reuses them "
             "where its requests fit.");
    n.source("PyTorch c10/cuda/CUDACachingAllocator.cpp at 001074d25084fdb87a799823e395a50f5ec044d3 (freed blocks "
             "stay cached; a request reuses a free block only if it fits, best fit; blocks of different segments never "
             "merge); PyTorch torch/distributed/fsdp/_flat_param.py at 01caf79 (FlatParameter: the unit's "
             "parameters \"flattened and concatenated\", \"initialized as unsharded and then sharded in-place\"; "
             "NO_SHARD keeps the unsharded flat parameter); AnswerDotAI/fsdp_qlora train.py at "
             "4cd6923 (FSDP(use_orig_params=False, sync_module_states), reset_peak_memory_stats without "
             "empty_cache); docs/accounting.md, Workspace and overhead");
    return share + X::text(
                       "2·(U_layer + U_root)", [&] { return formatNumber(cache) + " B"; }, cache);
}

// ---------------------------------------------------------------------------------------------
// The table. Colours: Tableau 10, distinguishable for most colour-vision deficiencies and on projectors.

using G = TermGroup;
using K = SegmentKind;
constexpr std::array<TermInfo, kTermCount> kTerms{{
    {K::Weights, "weights", "Weights", "weights", "The parameters themselves, in the working precision.", G::ModelState,
     0x4e79a7, true, &Segments::weights, weights<NumExpr>, weights<TextExpr>, "Base weights (frozen)", "base (frozen)"},
    {K::Gradients, "gradients", "Gradients", "gradients", "One gradient per weight, written by the backward pass.",
     G::ModelState, 0xf28e2b, true, &Segments::gradients, gradients<NumExpr>, gradients<TextExpr>},
    {K::Master, "master_weights", "Master weights (fp32)", "master weights",
     "The fp32 copy mixed precision updates, so small steps are not rounded away.", G::ModelState, 0x76b7b2, true,
     &Segments::master, master<NumExpr>, master<TextExpr>},
    {K::Optimizer, "optimizer", "Optimizer state", "optimizer",
     "The optimizer's running averages per weight (Adam keeps two).", G::ModelState, 0xe15759, true,
     &Segments::optimizer, optimizer<NumExpr>, optimizer<TextExpr>},
    {K::Adapters, "adapters", "LoRA adapters", "adapters",
     "The trainable low-rank adapters with their gradients, master copy and optimizer state.", G::ModelState, 0x9c755f,
     false, &Segments::adapters, adapters<NumExpr>, adapters<TextExpr>},
    {K::Activations, "activations", "Activations", "activations",
     "The tape of forward results kept for the backward pass.", G::Working, 0x59a14f, true, &Segments::activations,
     activations<NumExpr>, activations<TextExpr>},
    {K::KvCache, "kv_cache", "KV cache", "KV cache", "Keys and values of every past token, kept while generating.",
     G::Working, 0xedc948, false, &Segments::kvCache, kvCache<NumExpr>, kvCache<TextExpr>},
    {K::RecurrentState, "recurrent_state", "Recurrent state", "recurrent state",
     "Linear-attention layers' fixed-size state per sequence, kept while generating instead of a KV cache.", G::Working,
     0xb6992d, false, &Segments::recurrentState, recurrentState<NumExpr>, recurrentState<TextExpr>},
    {K::Logits, "logits", "Logits", "logits", "One score per vocabulary entry per token, plus fp32 for the loss.",
     G::Working, 0xb07aa1, true, &Segments::logits, logits<NumExpr>, logits<TextExpr>},
    {K::Workspace, "workspace", "Workspace", "workspace", "The largest temporary matmul buffer and its gradient.",
     G::Working, 0xff9da7, true, &Segments::workspace, workspace<NumExpr>, workspace<TextExpr>},
    {K::Framework, "framework", "Framework", "framework",
     "CUDA context, library handles and the framework's own memory.", G::Overhead, 0x9c9c9c, true, &Segments::framework,
     framework<NumExpr>, framework<TextExpr>},
    {K::Fragmentation, "fragmentation", "Fragmentation", "fragmentation",
     "What the caching allocator reserves but cannot use.", G::Overhead, 0xbab0ac, true, &Segments::fragmentation,
     fragmentation<NumExpr>, fragmentation<TextExpr>},
}};

constexpr bool tableInOrder()
{
    for (size_t i = 0; i < kTerms.size(); ++i)
        if (static_cast<size_t>(kTerms[i].id) != i)
            return false;
    return kTerms.back().id == SegmentKind::Fragmentation; // the reserve reads every other term
}
static_assert(tableInOrder(), "kTerms rows must follow SegmentKind, the fragmentation reserve last");

template <class X> X evaluate(const TermInfo& t, const TermContext& c, TermNotes<X>& n)
{
    if constexpr (X::kText)
        return t.explain(c, n);
    else
        return t.bytes(c, n);
}

} // namespace

const TermInfo& termInfo(SegmentKind k)
{
    return kTerms[static_cast<size_t>(k)];
}

const char* termName(SegmentKind k, const Scenario& s)
{
    const TermInfo& t = termInfo(k);
    return s.training.adapters() && t.frozenName ? t.frozenName : t.name;
}

const char* termLabel(SegmentKind k, const Scenario& s)
{
    const TermInfo& t = termInfo(k);
    return s.training.adapters() && t.frozenLabel ? t.frozenLabel : t.label;
}

const LayerActivations& TermContext::largestNone() const
{
    const bool moeLargest = moeLayers > 0 && (denseLayers <= 0 || moeNone.total() >= denseNone.total());
    return moeLargest ? moeNone : denseNone;
}

const LayerActivations& TermContext::shownLayer() const
{
    if (!training || in.checkpointing == Checkpointing::Full)
        return moeLayers > 0 ? moeNone : denseNone;
    return moeLayers > 0 ? moe : dense;
}

bool TermContext::gathersLayer() const
{
    return training && layout.zero >= 3 && (layout.replicas() > 1 || offload == Offload::OptimizerParams);
}

Tapes tapesFor(const TermContext& c, const Scenario& s)
{
    const Architecture& a = c.model->arch;
    Tapes t;
    t.in = activationInputs(s, dbl(c.layout.tp), dbl(c.layout.cp));
    t.offloadActivations = c.training && effectiveActivationOffload(s);
    ActivationInputs none = t.in;
    none.checkpointing = Checkpointing::None;
    if (c.training) {
        t.dense = layerActivations(a, false, t.in);
        t.moe = a.isMoe() ? layerActivations(a, true, t.in) : t.dense;
    }
    if (!c.training || t.in.checkpointing == Checkpointing::Full || t.in.checkpointing == Checkpointing::PerOp) {
        t.denseNone = layerActivations(a, false, none);
        t.moeNone = a.isMoe() ? layerActivations(a, true, none) : t.denseNone;
    } else if (t.in.checkpointing == Checkpointing::None) {
        t.denseNone = t.dense;
        t.moeNone = t.moe;
    }

    // Layer kinds (issue 29 §2): each kind's tape once per view (a handful of layerActivations calls, not one per
    // layer).
    if (c.mixedKinds) {
        // One layerActivations call per kind other than full attention and per input set: a layer's FFN part does
        // not depend on its token mixer, so every kind takes the full-attention layer's dense and MoE FFN parts
        // (t.dense and t.moe, t.denseNone and t.moeNone, computed above). Each kind's tape gets the average FFN
        // over all L layers (mixer-only blocks, Nemotron-H's M and *, have none); the largest kind's layer with the
        // dense (MoE) FFN is what serving holds at once and full recomputation rebuilds.
        auto kinds = [&](const ActivationInputs& in, const LayerActivations& fullDense, const LayerActivations& fullMoe,
                         LayerActivations& largestDense, LayerActivations& largestMoe, bool average) {
            double mlp = (c.denseLayers * fullDense.mlp + c.moeLayers * fullMoe.mlp) / c.layers;
            // Gemma 4's KV-sharing layers under use_double_wide_mlp: an MLP of kvSharedFfn (dense models only).
            double wideMlp = 0;
            const double shared = c.kvShared[0] + c.kvShared[1];
            if (a.kinds.kvSharedFfn > 0 && shared > 0 && !a.isMoe()) {
                Architecture wide = a;
                wide.ffn = a.kinds.kvSharedFfn;
                wideMlp = layerActivations(wide, false, in).mlp;
                mlp += shared * (wideMlp - fullDense.mlp) / c.layers;
            }
            bool any = false;
            for (size_t i = 0; i < kLayerKindCount; ++i) {
                if (c.kindLayers[i] <= 0)
                    continue;
                const LayerKind k = static_cast<LayerKind>(i);
                LayerActivations one = k == LayerKind::Full ? fullDense : layerActivations(a, false, in, k);
                if (wideMlp > one.mlp && a.kinds.kvSharedOf(k) > 0)
                    one.mlp = wideMlp; // the largest layer of this kind is a wide one
                LayerActivations tm = one;
                tm.mlp = fullMoe.mlp;
                if (!any || one.total() > largestDense.total())
                    largestDense = one;
                if (!any || tm.total() > largestMoe.total())
                    largestMoe = tm;
                any = true;
                if (average) {
                    one.mlp = mlp;
                    t.kindTape[i] = one;
                }
            }
        };
        if (c.training) {
            LayerActivations dense, moe;
            kinds(t.in, t.dense, t.moe, dense, moe, true);
            if (t.in.checkpointing == Checkpointing::None) {
                t.denseNone = dense;
                t.moeNone = a.isMoe() ? moe : dense;
            }
            t.dense = dense;
            t.moe = a.isMoe() ? moe : dense;
        }
        if (!c.training || t.in.checkpointing == Checkpointing::Full || t.in.checkpointing == Checkpointing::PerOp) {
            LayerActivations dense, moe;
            kinds(none, t.denseNone, t.moeNone, dense, moe, false);
            t.denseNone = dense;
            t.moeNone = a.isMoe() ? moe : dense;
        }
    }
    return t;
}

void useTapes(TermContext& c, const Tapes& t, const Scenario& s)
{
    c.scenario = &s;
    c.in = t.in;
    c.offloadActivations = t.offloadActivations;
    c.dense = t.dense;
    c.moe = t.moe;
    c.denseNone = t.denseNone;
    c.moeNone = t.moeNone;
    c.kindTape = t.kindTape;
}

// A quantised checkpoint's linears (served, or a QLoRA base kept as published): the blocks' linears in format `f`
// with their per-row and per-tensor constants, the rest in 16 bits. A size-only model's shape is made up: everything
// but the embeddings counts as linear (as for QLoRA's NF4), its constants in the made-up shape's proportion.
static void setQuantisedLinears(TermContext& c, const ResolvedModel& m, const WeightFormat& f)
{
    const Architecture& a = m.arch;
    const QuantisedLinears q = servedQuantisedLinears(a, f.expertsOnly);
    const double constants = f.rowBits / 8 * q.rows + f.tensorBytes * q.tensors;
    if (m.fromSize) {
        const int64_t linear = std::max<int64_t>(0, m.params.total - m.params.embedding);
        c.quantized = {linear, f.expertsOnly ? std::min(linear, m.params.routedExperts) : 0};
        if (f.expertsOnly && a.isMoe())
            c.quantized.total = c.quantized.routedExperts;
        c.quantConstantBytes = q.weights.total > 0 ? constants * dbl(c.quantized.total) / dbl(q.weights.total) : 0;
    } else {
        c.quantized = q.weights;
        c.quantConstantBytes = constants;
    }
}

TermContext termContext(const ResolvedModel& m, const Scenario& s, const ParallelLayout& layout)
{
    TermContext c;
    c.scenario = &s;
    c.model = &m;
    c.layout = layout;
    c.training = s.training.mode == Mode::Training;
    // Offload (issue 9 §3) is a training choice that needs ZeRO (DeepSpeed: offload_optimizer from stage 1,
    // offload_param only at stage 3); the one-GPU view (ZeRO-0) and serving keep everything on the GPU.
    if (c.training && layout.zero >= 1 && s.hardware.offloadsOptimizer())
        c.offload = s.hardware.offloadsParams() && layout.zero >= 3 ? Offload::OptimizerParams : Offload::Optimizer;
    const Architecture& a = m.arch;
    if (c.training && s.training.adapters()) {
        // LoRA/QLoRA: the base keeps only its weights (bf16 in the mixed recipes); the adapters get
        // the whole recipe. Adafactor's factored statistics of an r × d adapter matrix are about
        // (r + d)/(r·d) ≈ 1/r per parameter, the recipe's 2/h at h = 2r.
        const StateRecipe full = trainingRecipe(s.training.precision, s.training.optimizer, dbl(a.hidden));
        c.fineTune = s.training.fineTune;
        c.recipe = {};
        c.recipe.weights = full.weights;
        const int64_t rank = std::clamp<int64_t>(s.training.loraRank, 1, kMaxLoraRank);
        c.adapterRecipe = trainingRecipe(s.training.precision, s.training.optimizer, 2 * dbl(rank));
        c.adapterParams = loraParams(a, s.training);
        if (c.fineTune == FineTune::QLora && s.training.qloraBase != QloraBase::NF4) {
            // A base published in MXFP4 or NVFP4 and trained as it is: the linears that checkpoint quantises, as
            // serving counts them (gpt-oss's MXFP4 only its routed experts), with their per-tensor constants.
            setQuantisedLinears(c, m, weightFormat(qloraBaseFormat(s.training.qloraBase)));
        } else if (c.fineTune == FineTune::QLora) {
            // A size-only model's shape is made up: everything but the embeddings counts as linear.
            c.quantized = m.fromSize ? LinearCount{std::max<int64_t>(0, m.params.total - m.params.embedding),
                                                   m.params.routedExperts}
                                     : linearWeights(a);
            // LitGPT's QLoRA quantises every torch.nn.Linear, the output head too (its GPT builds lm_head as a
            // LoRALinear around torch.nn.Linear, litgpt/lora.py at 43c4432, and Fabric's BitsandbytesPrecision
            // replaces torch.nn.Linear with its Linear4bit class while the model is built: lightning
            // src/lightning/fabric/plugins/precision/bitsandbytes.py at 3775340 module_init_context,
            // _ClassReplacementContextManager({"torch.nn.Linear": self._linear_cls})).
            if (s.framework == Framework::LitGPT && !m.fromSize && !a.tiedEmbeddings)
                c.quantized.total += a.vocab * a.hidden;
        }
    } else if (c.training) {
        c.recipe = trainingRecipe(s.training.precision, s.training.optimizer, dbl(a.hidden));
        if (s.training.optimizer == Optimizer::Muon && m.params.total > 0) {
            // Muon steps the hidden matrices with one momentum buffer; the embeddings, the output head and the norms
            // (every parameter that is not a hidden matrix) keep AdamW's two moments (Moonlight, arXiv 2502.16982,
            // §2.2; MoonshotAI/Moonlight examples/toy_train.py at abaa96e: muon_params are the ≥ 2-D parameters but
            // embed_tokens and lm_head, each with a momentum_buffer; the rest get moment1 and moment2). One slot per
            // parameter, one more for that share: b_o = b_slot·(1 + P_AdamW/P).
            const double norms = dbl(a.layers) * dbl(a.normsPerLayer) * dbl(a.hidden) + dbl(a.hidden);
            const double adamw = std::min(dbl(m.params.embedding) + norms, dbl(m.params.total));
            c.recipe.optimizer = c.recipe.slotBytes * (1 + adamw / dbl(m.params.total));
        }
    } else {
        c.recipe = {};
        c.recipe.weights = inferenceWeightBytes(s.training.inferenceWeights);
        const WeightFormat f = weightFormat(s.training.inferenceWeights);
        if (f.quantised())
            setQuantisedLinears(c, m, f);
    }
    c.pagedOptimizer = c.training && s.training.pagedOptimizer && !s.training.adapters();
    const int64_t L = std::max<int64_t>(a.layers, 1);
    c.layers = dbl(L);
    c.stageLayers = dbl(layout.maxStageLayers(L));
    // Mixer-only blocks (Nemotron-H's M and *) have no FFN: neither dense nor MoE.
    c.denseLayers = dbl(a.isMoe() ? std::min(a.moe.denseLayers, a.layers) : a.ffnLayers());
    c.moeLayers = a.isMoe() ? std::max(0.0, dbl(a.ffnLayers()) - c.denseLayers) : 0.0;
    c.vision = dbl(heldVisionParams(m));
    if (c.training && trainedMtpParams(m, s) > 0) {
        c.mtpLayers = dbl(a.mtpLayers);
        c.mtpParams = dbl(m.params.mtp);
        c.mtpRouted = dbl(m.params.mtpRoutedExperts);
        if (layout.split.hasLayout())
            c.mtpStage = layoutMtpRank(layout.split.stages, std::max<int64_t>(layout.pp, 1));
    }

    if (a.kinds.any()) { // an architecture's, or a fit-map column's shares of them (fitMapKinds)
        c.mixedKinds = true;
        for (size_t i = 0; i < kLayerKindCount; ++i)
            c.kindLayers[i] = dbl(std::min(a.layersOfKind(static_cast<LayerKind>(i)), L));
        c.kvShared = {dbl(a.kinds.kvSharedFull), dbl(a.kinds.kvSharedSliding)};
    }
    useTapes(c, tapesFor(c, s), s);

    // The embedding's parameters, split between the first stage (token + position embedding) and
    // the last (the output head; with pp > 1 a tied embedding's copy, see parametersHeld). A
    // size-only model's made-up embedding is half input, half head (the size rule is untied).
    const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
    const double embedding = std::clamp(dbl(m.params.embedding), 0.0, dbl(m.params.total) - routed);
    if (m.fromSize) {
        c.inputEmbedding = embedding / 2;
        c.outputHead = embedding / 2;
    } else {
        const double head = std::min(embedding, dbl(a.vocab) * dbl(a.hidden));
        c.outputHead = a.tiedEmbeddings ? 0 : head;
        c.inputEmbedding = embedding - c.outputHead;
        if (a.tiedEmbeddings && layout.pp > 1)
            c.outputHead = head; // the last stage's copy of the shared word embeddings
    }

    // The view is the busiest stage (issue 13): each stage kind evaluated, the largest total kept.
    if (layout.pp > 1) {
        const std::vector<StageMemory> stages = pipelineStages(c);
        const StageMemory& busiest = stages[busiestStage(stages)];
        placeOnStage(c, busiest.stage);
        c.bytes = busiest.bytes; // what evaluateTerms(c) gives on this stage (pipelineStages evaluated it)
    }
    return c;
}

const Segments& evaluateTerms(TermContext& c)
{
    TermNotes<NumExpr> none;
    for (const TermInfo& t : kTerms)
        c.bytes.*t.field = t.bytes(c, none).value;
    return c.bytes;
}

const Segments& evaluateTokenTerms(TermContext& c)
{
    TermNotes<NumExpr> none;
    for (const TermInfo& t : kTerms)
        if (t.group != TermGroup::ModelState)
            c.bytes.*t.field = t.bytes(c, none).value;
    return c.bytes;
}

Segments hostTerms(const TermContext& c)
{
    Segments out;
    if (c.offload == Offload::None && !c.pagedOptimizer && !c.offloadActivations)
        return out; // before the copy: account() calls this on every step
    TermContext h = c;
    h.host = true;
    TermNotes<NumExpr> none;
    out.weights = weights<NumExpr>(h, none).value;
    out.gradients = gradients<NumExpr>(h, none).value;
    out.master = master<NumExpr>(h, none).value;
    out.optimizer = optimizer<NumExpr>(h, none).value;
    out.adapters = adapters<NumExpr>(h, none).value;
    if (c.offloadActivations) {
        // The tape but the layers in flight (layerTapes): all of it without offloading, less what the GPU keeps.
        TermContext all = c;
        all.offloadActivations = false;
        out.activations = std::max(0.0, activations<NumExpr>(all, none).value - activations<NumExpr>(c, none).value);
    }
    return out;
}

TermText explainHostTerm(SegmentKind k, const TermContext& c)
{
    TermContext h = c;
    h.host = true;
    TermText t;
    switch (k) {
    case SegmentKind::Weights:
        t.expr = weights<TextExpr>(h, t.notes);
        break;
    case SegmentKind::Gradients:
        t.expr = gradients<TextExpr>(h, t.notes);
        break;
    case SegmentKind::Master:
        t.expr = master<TextExpr>(h, t.notes);
        break;
    case SegmentKind::Optimizer:
        t.expr = optimizer<TextExpr>(h, t.notes);
        break;
    case SegmentKind::Adapters:
        t.expr = adapters<TextExpr>(h, t.notes);
        break;
    default:
        break;
    }
    return t;
}

double allocatorReserve(const Scenario& s, double inUse)
{
    inUse = std::max(inUse, 0.0);
    if (effectiveExpandableSegments(s))
        return std::min(inUse, kExpandableSegmentsReserve);
    return std::clamp(s.hardware.fragmentation, 0.0, 1.0) * inUse;
}

double flatWrapCache(const TermContext& c)
{
    const Scenario& s = *c.scenario;
    // FSDP1 has no optimizer-only offload; with CPUOffload(offload_params=True) (optimizer+params) each unit is still
    // materialised and flattened on the GPU before its shard goes to the host (torch/distributed/fsdp/
    // _init_utils.py at 01caf79, _init_param_handle_from_params: "handle.flat_param_to(cpu_device)" after the shard).
    if (!effectiveFsdpFlatWrap(s) || !c.training || effectiveExpandableSegments(s) || c.offload == Offload::Optimizer)
        return 0;
    // Sharded (ZeRO-1 to 3 over more than one rank: FULL_SHARD, SHARD_GRAD_OP) the flat parameter is freed once its
    // shard is cloned, so the unit's parameters and their concatenation stay cached; unsharded (NO_SHARD, fsdp_qlora's
    // "ddp") the concatenation is kept as the parameter and only the parameters as loaded are.
    const double copies = c.layout.zero >= 1 && c.layout.replicas() > 1 ? 2 : 1;
    // U_layer: one decoder layer's parameters as its flat parameter holds them unsharded (QLoRA: its quantised
    // linears at the NF4 bits per parameter, the rest in 16 bits); U_root: the embeddings and head in 16 bits.
    const ResolvedModel& m = *c.model;
    const double layer = layerParams(c);
    double layerBytes = layer * c.recipe.weights;
    if (c.fineTune == FineTune::QLora) {
        const double q =
            std::min(layer, dbl(c.quantized.total) / std::max(c.layers, 1.0) / dbl(std::max<int64_t>(c.layout.tp, 1)));
        layerBytes = q * nf4BytesPerParam() + (layer - q) * c.recipe.weights;
    }
    const double root = dbl(std::clamp<int64_t>(m.params.embedding, 0, m.params.total)) * c.recipe.weights /
                        dbl(std::max<int64_t>(c.layout.tp, 1));
    // The root unit's gathered flat parameter (fsdp1RootGathered, in the workspace) has the padded size of the root's
    // concatenation at the wrap, so best fit serves it from that cached block: what stays cached beside the step is
    // the rest.
    return std::max(0.0, copies * (layerBytes + root) - fsdp1RootGathered(c));
}

double qloraConstantsHeld(const TermContext& c)
{
    if (!c.training || c.fineTune != FineTune::QLora)
        return 0;
    const double q = std::min(dbl(c.quantized.total), dbl(c.model->params.total));
    const double routed = dbl(std::clamp<int64_t>(c.model->params.routedExperts, 0, c.model->params.total));
    const double qRouted = std::min(dbl(c.quantized.routedExperts), routed);
    const double perConstant =
        (kNf4ConstantBits / kNf4BlockSize + kNf4SecondConstantBits / (kNf4BlockSize * kNf4SecondBlockSize)) / 8;
    return perConstant * held<NumExpr>(c, false, q, qRouted, {"P_q", "P_q,dense", "P_q,experts"}).value;
}

double fsdp1RootGathered(const TermContext& c)
{
    // FSDP1 does not reshard the root unit after forward under FULL_SHARD: "Do not free the root's parameters in the
    // post-forward for `FULL_SHARD` with the intention that they are immediately used for backward computation"
    // (torch/distributed/fsdp/_runtime_utils.py at 01caf79, _post_forward_reshard). Its unsharded flat parameter (the
    // embeddings and the output head, U_root) stays on the GPU from forward to the end of backward, beside the shard.
    if (!effectiveFsdpFlatWrap(*c.scenario) || !c.gathersLayer() || c.stage != PipelineStage::Only)
        return 0;
    const ResolvedModel& m = *c.model;
    return dbl(std::clamp<int64_t>(m.params.embedding, 0, m.params.total)) * c.recipe.weights /
           dbl(std::max<int64_t>(c.layout.tp, 1));
}

double fsdp2RootGathered(const TermContext& c)
{
    // FSDP2 all-gathers a unit's parameters in param_dtype for its forward and frees them after it unless the unit is
    // not resharded after forward (torch/distributed/_composable/fsdp/_fsdp_state.py at
    // 005da465b93443cc40d9e66d679637ada577f097: `_lazy_init` sets the root's post_forward_mesh_info to None, "For the
    // root, do not reshard after forward"). What stays gathered beside the layers (effectiveFsdpRoot()):
    //  - the head: torchtitan's [norm, lm_head] unit (distributed/fsdp.py at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a,
    //    apply_fsdp: reshard_after_forward = policy == "always"), from its forward through the loss to its backward;
    //    a tied model's embeddings are in that unit, the same matrix;
    //  - the root unit: embeddings, final norm and head (torchtune bd2a0fc shard_model's fully_shard(model,
    //    reshard_after_forward=False)), from forward to the end of backward, each part on the stage that holds it.
    // The FSDP1 flat wrap's root unit is fsdp1RootGathered()'s.
    const Scenario& s = *c.scenario;
    const FsdpRoot root = effectiveFsdpRoot(s);
    if (root == FsdpRoot::None || effectiveFsdpFlatWrap(s) || !c.gathersLayer())
        return 0;
    const Architecture& a = c.model->arch;
    const double t = dbl(std::max<int64_t>(c.layout.tp, 1));
    const double head = c.holdsHead() ? dbl(a.vocab) * dbl(a.hidden) + dbl(a.hidden) : 0; // the head and final norm
    double held = head;
    if (root == FsdpRoot::EmbeddingsAndHead) {
        // The embeddings and head as counted (tied: once), less the head already in `held`.
        const double both = dbl(std::clamp<int64_t>(c.model->params.embedding, 0, c.model->params.total));
        const double embeddings =
            a.tiedEmbeddings ? (c.holdsHead() ? 0 : both) : std::max(0.0, both - head + dbl(a.hidden));
        held += c.holdsEmbedding() ? embeddings : 0;
    }
    return held * c.recipe.weights / t;
}

double fsdp2RootGradient(const TermContext& c)
{
    // The root unit's post-backward, which reduce-scatters its gradients, runs at the end of backward (FSDP2's root
    // has no forward input that needs a gradient: _fsdp_state.py _root_post_backward_final_callback at 005da465), so
    // a trained head's unsharded gradient, written at the loss, waits there whole until then. The untied embeddings'
    // is written last, when the tapes are gone.
    if (effectiveFsdpRoot(*c.scenario) != FsdpRoot::EmbeddingsAndHead || fsdp2RootGathered(c) <= 0)
        return 0;
    return c.holdsHead() ? headGradientBytes(c) : 0;
}

double reservedBytes(const Segments& g)
{
    double rest = 0;
    for (SegmentKind k : kAllSegmentKinds)
        if (k != SegmentKind::Framework && k != SegmentKind::Fragmentation)
            rest += g.*termInfo(k).field;
    return rest;
}

TapeParts tapeParts(const TermContext& c)
{
    // Evaluated through activations() on copies of the view, so the parts add up to the term by construction:
    // with no stage layers only the full-recompute layer remains; without MTP modules, the main tapes.
    TapeParts t;
    TermNotes<NumExpr> none;
    t.activations = activations<NumExpr>(c, none).value;
    if (!c.training)
        return t;
    TermContext main = c;
    main.mtpLayers = 0;
    const double tapes = activations<NumExpr>(main, none).value;
    t.mtp = std::max(0.0, t.activations - tapes);
    TermContext empty = main;
    empty.stageLayers = 0;
    t.recomputeInBars = activations<NumExpr>(empty, none).value;
    const double layers = c.stageLayers * c.inflight;
    t.perLayer = layers > 0 ? std::max(0.0, tapes - t.recomputeInBars) / layers : 0;
    if (c.in.checkpointing == Checkpointing::Full || c.in.checkpointing == Checkpointing::PerOp) {
        t.recompute = t.recomputeInBars;
    } else if (c.in.checkpointing == Checkpointing::Selective) {
        ActivationInputs all = c.in;
        all.checkpointing = Checkpointing::None;
        const Architecture& a = c.model->arch;
        auto dropped = [&](bool moeLayer) {
            return layerActivations(a, moeLayer, all).total() - layerActivations(a, moeLayer, c.in).total();
        };
        t.recompute = std::max(0.0, c.denseLayers > 0 ? dropped(false) : 0.0);
        if (c.moeLayers > 0)
            t.recompute = std::max(t.recompute, dropped(true));
    }
    return t;
}

double headGradientBytes(const TermContext& c)
{
    return headGradient<NumExpr>(c).value;
}

double adapterGradientsHeld(const TermContext& c)
{
    // The adapters term itself, on a copy whose adapters keep only their gradients: the same split over tensor,
    // pipeline, expert and data-parallel ranks, and the same offload.
    TermContext g = c;
    g.adapterRecipe.weights = g.adapterRecipe.master = g.adapterRecipe.optimizer = 0;
    TermNotes<NumExpr> none;
    return adapters<NumExpr>(g, none).value;
}

double zero3GatheredLayer(const TermContext& c)
{
    return c.training ? gatheredLayer<NumExpr>(c).value : 0;
}

TermText explainTerm(SegmentKind k, const TermContext& c)
{
    TermText t;
    t.expr = evaluate<TextExpr>(termInfo(k), c, t.notes);
    return t;
}

double Segments::modelState() const
{
    double sum = 0;
    for (const TermInfo& t : kTerms)
        if (t.group == TermGroup::ModelState)
            sum += this->*t.field;
    return sum;
}

double Segments::overhead() const
{
    double sum = 0;
    for (const TermInfo& t : kTerms)
        if (t.group == TermGroup::Overhead)
            sum += this->*t.field;
    return sum;
}

// Segments::total() (accounting.h) adds the fields by name, in the table's order: the same sum, in the same order.
static_assert(kTermCount * sizeof(double) == sizeof(Segments));
static_assert([] {
    for (size_t i = 0; i < kTerms.size(); ++i) {
        Segments g;
        g.*kTerms[i].field = static_cast<double>(i + 1);
        if (g.total() != static_cast<double>(i + 1))
            return false;
    }
    return true;
}());

} // namespace trainmem
