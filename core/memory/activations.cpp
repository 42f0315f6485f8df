#include "activations.h"

#include "lora.h"

#include <algorithm>
#include <vector>

namespace trainmem {
namespace {

// Inner tensors of one FFN of width f for one token set of size sb (the block input excluded).
double ffnInner(const Architecture& a, double sb, double f, double e, double lin)
{
    if (a.ffnKind == FfnKind::Gelu)
        return e * sb * f + lin * sb * f; // GeLU input + second linear input
    return e * sb * 2 * f + lin * sb * f; // fused gate‖up + down-projection input
}

// One Gated DeltaNet layer's tape (issue 29 §2), the tensors Qwen3NextGatedDeltaNet.forward creates and autograd
// keeps (huggingface/transformers src/transformers/models/qwen3_next/modeling_qwen3_next.py at
// 7515843b617551b008901620ca58f1208bbc330d), Korthikanti's way (each tensor a matmul, the conv or the kernel reads,
// kept once): the block input to in_proj_qkvz/in_proj_ba (lin·sbh); q, k, v before the conv (e·sb·conv_dim) and
// after it and its SiLU, q and k repeated to the value heads (e·sb·(2·nv·dk + nv·dv)); the gate z (e·sb·v_dim);
// b and a (e·sb·2·nv) and the decay g, computed in fp32 (4·sb·nv); the kernel's output, the gated norm's input
// (e·sb·v_dim); and out_proj's input (lin·sb·v_dim). No s² term: the recurrence replaces the scores.
double linearAttentionTape(const Architecture& a, double sb, double e, double lin)
{
    const LinearAttentionConfig& g = a.kinds.linearAttention;
    const double h = static_cast<double>(a.hidden);
    const double nv = static_cast<double>(g.valueHeads), dk = static_cast<double>(g.keyHeadDim);
    const double vDim = static_cast<double>(g.valueDim()), conv = static_cast<double>(g.convDim());
    return lin * sb * h + e * sb * conv + e * sb * (2 * nv * dk + vDim) + e * sb * vDim + e * sb * 2 * nv +
           4 * sb * nv + e * sb * vDim + lin * sb * vDim;
}

// One Mamba-2 layer's tape (issue 29 §2): Mamba-2's fused training path, state-spaces/mamba
// mamba_ssm/ops/triton/ssd_combined.py MambaSplitConv1dScanCombinedFn.forward at
// d757aef189a5215ab3568516825a145e49f7b7ed, saves for backward only in_proj's output zxbcdt (z, x, B, C and dt:
// e·sb·(d_inner + conv_dim + heads)), the scan's output before the gated norm out_x (e·sb·d_inner) and the norm's
// fp32 rstd per group (4·sb·groups), recomputing the conv, the scan and out_proj's input in backward; in_proj's own
// input is kept by the linear (lin·sbh). Linear in s.
double mambaTape(const Architecture& a, double sb, double e, double lin)
{
    const Mamba2Config& m = a.kinds.mamba2;
    const double h = static_cast<double>(a.hidden);
    const double inner = static_cast<double>(m.innerDim());
    const double proj = inner + static_cast<double>(m.convDim()) + static_cast<double>(m.heads);
    return lin * sb * h + e * sb * proj + e * sb * inner + 4 * sb * static_cast<double>(m.groups);
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
    } else if (a.moe.denseBeside > 0) {
        r.mlp = std::max(0.0, r.mlp - lin * sb * static_cast<double>(a.moe.denseBeside)); // Gemma 4's dense FFN
    }
    if (!mlaRecompute) {
        const double h = static_cast<double>(a.hidden);
        r.attention = std::max(0.0, r.attention - lin * sb * h);
        r.mlp = std::max(0.0, r.mlp - lin * sb * h);
        r.norms += 2 * 4 * sb;
    }
}

// torchtitan's per-op selective activation checkpointing (torchtitan/distributed/activation_checkpoint.py at
// b5bcd76c66d0acb1a08b176d9639425bc55e0b2a, SelectiveAC._wrap_block): inside each checkpointed block the policy
// MUST_SAVEs the outputs of the compute-intensive ops (torch._functorch.partitioners get_default_op_list's
// compute_intensive_ops, aten.linear, the SDPA variants, aten.max) and of the collectives (reduce_scatter_tensor,
// all_to_all_single), "except every second mm/linear" (a per-block counter: the 2nd, 4th, … matmul is recomputed), and
// recomputes every other op (norms, RoPE, activations, residual adds). So a layer keeps its input (the checkpoint's
// input, from which the rest is rebuilt), the outputs of the 1st, 3rd, 5th, … matmul in call order, and the attention
// kernel's output with its fp32 log-sum-exp. Matmuls in torchtitan's call order: q, k, v, o (MLA: q_a, q_b, kv_a,
// kv_b, o), then gate, up, down (GeLU: fc1, fc2); the MoE router is forced to recompute
// (force_recompute_mm_shapes_by_fqns = ["moe.router.gate"]); routed and shared experts are counted like the dense FFN's
// matmuls with k·f_e and s·f_e widths (an assumption: the experts' grouped GEMMs are not in the save list's mm ops).
LayerActivations perOpTape(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind)
{
    const double s = in.localSeq(), keys = keysPerQuery(a, kind, in.seq), b = in.microBatch, sb = s * b;
    const double h = static_cast<double>(a.hidden), heads = static_cast<double>(a.heads), e = in.elementBytes;
    const double lin = in.fp8LinearInputs ? 1.0 : e;
    std::vector<double> attn, ffn; // matmul output widths, in call order
    double attnOut;
    if (a.attention == AttentionKind::MLA) {
        const double qk = static_cast<double>(a.mla.qkNopeHeadDim + a.mla.qkRopeHeadDim);
        if (a.mla.qLoraRank > 0)
            attn.push_back(static_cast<double>(a.mla.qLoraRank));
        attn.push_back(heads * qk);
        attn.push_back(static_cast<double>(a.mla.kvLoraRank + a.mla.qkRopeHeadDim));
        attn.push_back(heads * static_cast<double>(a.mla.qkNopeHeadDim + a.mla.vHeadDim));
        attnOut = heads * static_cast<double>(a.mla.vHeadDim);
    } else {
        const double hd = static_cast<double>(a.headDimOf(kind));
        const double q = heads * hd * (a.gatedAttention ? 2 : 1), kv = static_cast<double>(a.kvHeadsOf(kind)) * hd;
        attn = {q, kv};
        if (!a.keyIsValueIn(kind)) // Gemma 4's k = v layers have no v_proj
            attn.push_back(kv);
        attnOut = heads * hd;
    }
    attn.push_back(h); // the output projection
    // `copies` FFNs of width f whose down projection writes `out` channels (h; a latent MoE's experts: the latent).
    auto ffnOf = [&](double f, double copies, double out) {
        for (double i = 0; i < copies; ++i) {
            if (a.ffnKind == FfnKind::SwiGLU)
                ffn.insert(ffn.end(), {f, f, out});
            else
                ffn.insert(ffn.end(), {f, out});
        }
    };
    if (moeLayer && a.isMoe()) {
        const double fe = static_cast<double>(a.moe.expertFfn);
        if (a.moe.denseBeside > 0) // Gemma 4's decoder layer runs its dense mlp before the router and experts
            ffnOf(static_cast<double>(a.moe.denseBeside), 1, h);
        const double k = static_cast<double>(a.moe.activeExperts);
        if (a.moe.latent > 0) { // NemotronHMoE: fc1_latent_proj, the experts on the latent width, fc2_latent_proj
            const double latent = static_cast<double>(a.moe.latent);
            ffn.push_back(latent);
            ffnOf(fe * k, 1, latent);
            ffn.push_back(h);
        } else {
            ffnOf(fe * k, 1, h);
        }
        ffnOf(fe, static_cast<double>(a.moe.sharedExperts), h);
    } else {
        ffnOf(static_cast<double>(moeLayer || a.moe.denseFfn <= 0 ? a.ffn : a.moe.denseFfn), 1, h);
    }
    int count = 0;
    auto kept = [&](const std::vector<double>& widths) {
        double sum = 0;
        for (const double w : widths)
            if (++count % 2 == 1)
                sum += e * sb * w;
        return sum;
    };
    LayerActivations r;
    const double input = lin * sb * h; // the block input
    r.attention = input;
    if (kind != LayerKind::None) {
        r.attention += kept(attn) + e * sb * attnOut; // every other projection, the attention kernel's output
        // The flash kernel's fp32 log-sum-exp; the math kernel's saved attention weights otherwise.
        r.scores = in.flashAttention ? 4 * heads * sb : e * heads * s * keys * b;
    }
    r.mlp = kept(ffn);
    if (in.tp > 1) {
        // With sequence parallelism every tensor is split; without it the block input stays whole.
        r.attention = in.sequenceParallel ? r.attention / in.tp : input + (r.attention - input) / in.tp;
        r.scores /= in.tp;
        r.mlp /= in.tp;
    }
    return r;
}

// torchtune's Llama layer as autograd keeps it, per token (torchtune at 1814feb17a9038e1a8053ce93111bd26774a8db6, the
// commit of its README's measured table; h hidden, a query heads, d head_dim, f the FFN width, e the activation bytes).
// PyTorch's generated autograd saves an input of a product only when the other input needs its gradient (guard_for in
// tools/autograd/gen_variable_type.py at 9e69e8210c01ff23aff82df3806f7dbe0ec106d2), so a product by a buffer (RoPE's
// cache) saves no activation. Eager:
//   each RMSNorm (modules/rms_norm.py): x.float() saves nothing; pow(2) and the product by rsqrt keep the fp32
//     input (4h B: a copy in 16-bit training, the input itself in fp32), rsqrt keeps its fp32 result (4 B); `*
//     self.scale` keeps the normalised value (e·h) and the projections that read the scaled output keep it (e·h);
//   attention (modules/attention.py): q, k and v projections' outputs are turned by RoPE
//     (models/llama3_1/_position_embeddings.py: in fp32 times the cache, keeping only the cache) into new 16-bit
//     tensors; k and v are copied to every query head (`expand(...).flatten(1, 2)`, lines 287–290); SDPA's fused
//     kernels (flash, memory-efficient; flex attention for packed batches, attention_utils.py) keep their inputs
//     q, k, v (3·e·a·d), their output (e·a·d), which `transpose(1, 2).contiguous()` hands to the output
//     projection without a copy (flash writes it in q's [b, s, a, d] layout:
//     aten/src/ATen/native/transformers/cuda/flash_attn/flash_api.cpp mha_fwd, out = at::empty_like(q_padded), at
//     03b7c19dbe228c9febd503755f723240945f8067), and the fp32 log-sum-exp (4a);
//   SwiGLU (modules/feed_forward.py): silu keeps the gate projection's output, the product keeps silu's output
//     and the up projection's, the down projection keeps the product: 4·e·f.
// Compiled (training/_compile.py compile_model compiles each layer; PyTorch's min-cut partitioner,
// torch/_functorch/partitioners.py and config.py at 00c07b93c9e8145d374299154218e747d1d20fb0): a matmul output is never
// recomputed, nor a reduction 4× smaller than its input (the mean of squares), nor
// (ban_recompute_materialized_backward, on by default) a value that a non-fusible op of the backward reads: the scaled
// norm outputs and the SwiGLU product, which the weight gradients' matmuls read, and the attention kernel's inputs and
// output. The rest is rebuilt from the cheapest kept values: each norm keeps its 16-bit input (e·h) and fp32 1/rms (4
// B) and its output (e·h); attention as eager; the FFN its gate and up outputs and their product, 3·e·f.
LayerActivations torchtuneTape(const Architecture& a, const ActivationInputs& in)
{
    const double sb = in.localSeq() * in.microBatch, e = in.elementBytes;
    const double h = static_cast<double>(a.hidden), heads = static_cast<double>(a.heads);
    const double ad = heads * static_cast<double>(a.headDimOf(LayerKind::Full)), f = static_cast<double>(a.ffn);
    LayerActivations r;
    // The scaled norm outputs are counted where Korthikanti counts them, as the attention's and the FFN's inputs.
    r.attention = e * sb * h + 4 * e * sb * ad; // the norm output; q, k and v at every head, the kernel's output
    r.scores = 4 * heads * sb;                  // the kernel's fp32 log-sum-exp
    if (in.compiled) {
        r.norms = 2 * (e * sb * h + 4 * sb); // each norm's 16-bit input and fp32 1/rms
        r.mlp = e * sb * h + 3 * e * sb * f; // the norm output; gate, up and their product
    } else {
        r.norms = 2 * (4 * sb * h + 4 * sb + e * sb * h); // fp32 input, 1/rms, normalised value
        r.mlp = e * sb * h + 4 * e * sb * f;              // the norm output; gate, silu, up, product
    }
    return r;
}

// LitGPT's Llama layer with a frozen base (LoRA or QLoRA), as its eager autograd keeps it, per token (LitGPT at
// 43c44323b9b7fb6e3b567c800e6668c3a9b1ecee, the commit of the config hub's Llama 2 and Mistral figures: litgpt/model.py
// Block, CausalSelfAttention, LLaMAMLP, RMSNorm; litgpt/lora.py LoRALinear, LoRAQKVLinear; the same at 00af8b0).
// PyTorch saves an input of a product only when the other input needs its gradient (guard_for in
// tools/autograd/gen_variable_type.py, the rule torchtuneTape cites), so a frozen nn.Linear, and the norms' products
// by their frozen weights, keep nothing of the activations:
//   each RMSNorm: x.float() is multiplied by itself and by rsqrt(mean + eps), which keep the fp32 input (4h B) and
//     the fp32 1/rms (4 B); the product by the frozen weight keeps nothing;
//   attention: q, k and v are copied to every query head (k.expand(...) then reshape, in training) and turned by
//     RoPE into new tensors; SDPA's fused kernels keep q, k, v (3·e·a·d), their output (e·a·d) and the fp32
//     log-sum-exp (4a);
//   with one query per key (MHA: Llama 2 7B and 13B), q, k and v are views of the fused qkv output (view, permute,
//     split; the expand is a no-op and reshape keeps the view), RoPE and torch.cat make q and k anew, and v goes to
//     SDPA as it is: the saved v keeps the whole qkv storage alive, q's and k's parts too (2·e·a·d). With GQA the
//     reshape of the expanded v copies it and the qkv output is freed (model.py CausalSelfAttention.forward, the
//     same at 8641822);
//   LoRAQKVLinear.zero_pad, where LoRA takes some but not all of q, k and v (the config hub's q and v), writes the
//     update into the zeros with result.index_copy(1, lora_ind, x.reshape(...)): PyTorch's index_copy backward,
//     grad.index_select(dim, index).expand_as(source), saves its source, e B for each adapted output (a·d for q,
//     kv·d for k and for v: lora.py zero_pad; derivatives.yaml index_copy). All three adapted: zero_pad returns x;
//   LLaMAMLP: silu keeps fc_1's output, the product keeps silu's output and fc_2's: 3·e·f;
//   LoRA: each adapted LoRALinear runs lora_dropout(x) @ lora_A (LoRAQKVLinear: one for the fused q, k, v), so
//     native_dropout keeps its bool mask (1 B) and lora_A's matmul the dropout's output (e B), per element of that
//     linear's input: (1 + e)·h for the fused qkv and for fc_1 and fc_2 each, (1 + e)·a·d for proj, (1 + e)·f for
//     the MLP's proj (lora_dropout 0.05, finetune/lora.py's default and the config hub's);
//   bitsandbytes 4-bit (QLoRA: Fabric's BitsandbytesPrecision makes every torch.nn.Linear a Linear4bit):
//     MatMul4Bit.forward keeps its input whenever any input needs a gradient (bitsandbytes 0.41.1 at
//     18e827d6, bitsandbytes/autograd/_functions.py: `if any(ctx.needs_input_grad[:2]): ctx.tensors = (A, B)`),
//     frozen weight or not: the norms' 16-bit outputs (e·h each; fc_1 and fc_2 share theirs), proj's input (e·a·d:
//     `y.reshape(B, T, C)` copies the kernel's output, which flash attention writes in q's (B, a, T, d) layout:
//     flash_api.cpp mha_fwd, out = empty_like(q_padded), at 03b7c19) and the MLP proj's input, the product (e·f).
// The first layer's norm and qkv keep nothing (its input, the frozen embedding's output, needs no gradient): not
// taken off.
LayerActivations litgptTape(const Architecture& a, const ActivationInputs& in)
{
    const double sb = in.localSeq() * in.microBatch, e = in.elementBytes;
    const double h = static_cast<double>(a.hidden), heads = static_cast<double>(a.heads);
    const double ad = heads * static_cast<double>(a.headDimOf(LayerKind::Full)), f = static_cast<double>(a.ffn);
    const uint32_t m = in.loraModules;
    LayerActivations r;
    // Each norm's fp32 input and 1/rms; before 6178c7c (LitGPT 8641822, lit_gpt/rmsnorm.py: x * x, then
    // x * torch.rsqrt(norm_x + eps), with no upcast) its 16-bit input and 1/rms.
    r.norms = in.litgptFp32Norm ? 2 * (4 * sb * h + 4 * sb) : 2 * (e * sb * h + e * sb);
    r.attention = 4 * e * sb * ad; // q, k and v at every head, the kernel's output
    const double kvd = static_cast<double>(a.kvHeadsOf(LayerKind::Full) * a.headDimOf(LayerKind::Full));
    if (a.kvHeadsOf(LayerKind::Full) == a.heads)
        r.attention += 2 * e * sb * ad; // v's view keeps the fused qkv output: q's and k's parts
    const bool loraQ = (m & kLoraQ) != 0, loraK = (m & kLoraK) != 0, loraV = (m & kLoraV) != 0;
    if ((loraQ || loraK || loraV) && !(loraQ && loraK && loraV)) // zero_pad's index_copy keeps its source
        r.attention += e * sb * ((loraQ ? ad : 0) + (loraK ? kvd : 0) + (loraV ? kvd : 0));
    r.scores = 4 * heads * sb; // the kernel's fp32 log-sum-exp
    r.mlp = 3 * e * sb * f;    // fc_1's output, silu's, fc_2's
    const double kept = 1 + e; // the dropout's mask and output, per input element
    if (m & (kLoraQ | kLoraK | kLoraV))
        r.dropout += kept * sb * h;
    if (m & kLoraO)
        r.dropout += kept * sb * ad;
    if (m & kLoraGate)
        r.dropout += kept * sb * h;
    if (m & kLoraUp)
        r.dropout += kept * sb * h;
    if (m & kLoraDown)
        r.dropout += kept * sb * f;
    if (in.bnb4bit) {
        r.attention += e * sb * h + e * sb * ad; // qkv's input, proj's input
        r.mlp += e * sb * h + e * sb * f;        // fc_1's and fc_2's input, proj's input
    }
    return r;
}

} // namespace

bool torchTapeApplies(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind)
{
    return in.torchtuneTape && kind == LayerKind::Full && !(moeLayer && a.isMoe()) && a.moe.denseFfn <= 0 &&
           a.attention != AttentionKind::MLA && a.ffnKind == FfnKind::SwiGLU && a.norm == NormKind::RMSNorm &&
           a.normsPerLayer == 2 && a.qkNorm == QkNorm::None && !a.gatedAttention && !a.dropoutOrDefault() &&
           !a.attentionSinks && (in.elementBytes == 2 || in.elementBytes == 4) && !in.fp8LinearInputs && in.tp == 1 &&
           in.cp == 1 && in.flashAttention &&
           (in.checkpointing == Checkpointing::None || in.checkpointing == Checkpointing::Full);
}

bool litgptTapeApplies(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind)
{
    return in.litgptTape && kind == LayerKind::Full && !(moeLayer && a.isMoe()) && a.moe.denseFfn <= 0 &&
           a.attention != AttentionKind::MLA && a.ffnKind == FfnKind::SwiGLU && a.norm == NormKind::RMSNorm &&
           a.normsPerLayer == 2 && a.qkNorm == QkNorm::None && !a.gatedAttention && !a.dropoutOrDefault() &&
           !a.attentionSinks && (in.elementBytes == 2 || in.elementBytes == 4) && !in.fp8LinearInputs && in.tp == 1 &&
           in.cp == 1 && in.flashAttention && in.checkpointing == Checkpointing::None;
}

double linearAttentionChunkTape(const Architecture& a, double sb)
{
    // The chunked form (torch_chunk_gated_delta_rule, chunk_size = 64, in fp32) turns each chunk of 64 tokens into
    // a 64 × 64 matrix per value head: 64 fp32 numbers per token and head, 4·64·sb·nv, in place of the s² scores.
    return 4 * kLinearAttentionChunk * sb * static_cast<double>(a.kinds.linearAttention.valueHeads);
}

LayerActivations layerActivations(const Architecture& a, bool moeLayer, const ActivationInputs& in)
{
    return layerActivations(a, moeLayer, in, LayerKind::Full);
}

double keysPerQuery(const Architecture& a, LayerKind kind, double seq)
{
    // A sliding-window query meets the last `window` keys (itself included); a chunked query the keys of its chunk,
    // at most `chunk` (Llama 4's attention_chunk_size).
    if (kind == LayerKind::Sliding && a.kinds.window > 0)
        return std::min(seq, static_cast<double>(a.kinds.window));
    if (kind == LayerKind::Chunked && a.kinds.chunk > 0)
        return std::min(seq, static_cast<double>(a.kinds.chunk));
    return seq;
}

namespace {
LayerActivations blockTape(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind);
} // namespace

LayerActivations layerActivations(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind)
{
    LayerActivations r = blockTape(a, moeLayer, in, kind);
    // Gemma 4's per-layer input (Gemma4TextDecoderLayer, E2B and E4B): per_layer_input_gate saves its input (h) for
    // its weight's gradient, the GELU its input (p), the product its two factors (the GELU's output and the layer's p
    // of per_layer_inputs), per_layer_projection its input (p) and its norm its input (h): e·sb·(2h + 4p). The model's
    // per_layer_inputs (Gemma4TextModel.project_per_layer_inputs: the projection's output, its norm's input and the
    // sum, L·p each) add 2p a layer beside that layer's slice: e·sb·(2h + 6p) a layer, counted with the FFN part.
    if (a.perLayerInput > 0 && kind != LayerKind::None) {
        const double e = in.elementBytes, sb = in.localSeq() * in.microBatch;
        const double p = static_cast<double>(a.perLayerInput), h = static_cast<double>(a.hidden);
        r.mlp += e * sb * (2 * h + 6 * p) / (in.tp > 1 && in.sequenceParallel ? in.tp : 1.0);
    }
    return r;
}

namespace {
LayerActivations blockTape(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind)
{
    if (in.checkpointing == Checkpointing::PerOp) {
        // Linear-attention and Mamba-2 layers run their own fused kernels, whose saves the per-op policy sees as
        // opaque ops: counted as selective recomputation counts them (an assumption, docs/accounting.md).
        if (kind != LayerKind::Linear && kind != LayerKind::Mamba)
            return perOpTape(a, moeLayer, in, kind);
        ActivationInputs selective = in;
        selective.checkpointing = Checkpointing::Selective;
        return blockTape(a, moeLayer, selective, kind);
    }
    if (torchTapeApplies(a, moeLayer, in, kind))
        return torchtuneTape(a, in);
    if (litgptTapeApplies(a, moeLayer, in, kind))
        return litgptTape(a, in);
    // s is this rank's tokens (s/c under context parallel); `keys` the keys each of its queries attends to: the
    // whole sequence, or a sliding window or chunk of it (issue 29 §2).
    const double s = in.localSeq(), keys = keysPerQuery(a, kind, in.seq), b = in.microBatch, sb = s * b;
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
        // A kind's own shape (Gemma 4's full-attention layers: global_head_dim, num_global_key_value_heads). Where
        // keys double as values the attention still reads a V of K's width (normed apart from K).
        const double hd = static_cast<double>(a.headDimOf(kind));
        qDim = heads * hd;
        kDim = static_cast<double>(a.kvHeadsOf(kind)) * hd;
        vDim = kDim;
    }
    const double attnOut = a.attention == AttentionKind::MLA ? vDim : qDim;
    // Gated attention keeps the output gate (heads·head_dim) for the sigmoid's backward.
    const double gate = a.gatedAttention && a.attention != AttentionKind::MLA ? e * sb * qDim : 0;

    LayerActivations r;
    // DeepSeek-V3 §3.2.3: with MLA, selective recomputation also reruns the cheap up-projections
    // (Q, K, V rebuilt from the kept latents) and every RMSNorm (the block inputs rebuilt from the
    // kept norm inputs), so neither is stored.
    const bool mlaRecompute = a.attention == AttentionKind::MLA && in.checkpointing == Checkpointing::Selective;
    const double attnInput = mlaRecompute ? 0.0 : lin * sb * h;
    const double qkv = mlaRecompute ? 0.0 : e * sb * (qDim + kDim) + e * sb * vDim;
    r.attention = attnInput + qkv + lin * sb * attnOut + latents + gate;

    if (in.checkpointing == Checkpointing::None) {
        if (in.flashAttention)
            r.scores = 4 * heads * sb; // fp32 log-sum-exp per row (FlashAttention-2)
        else
            r.scores = (dropout ? (2 * e + 1) : e) * heads * s * keys * b;
    }
    if (kind == LayerKind::Mamba) {
        r.attention = mambaTape(a, sb, e, lin);
        r.scores = 0; // the scan keeps no per-token matrix: the fused kernel recomputes its chunk states in backward
    } else if (kind == LayerKind::None) {
        r.attention = 0; // an FFN-only block (Nemotron-H's - and E)
        r.scores = 0;
    }
    if (kind == LayerKind::Linear) {
        r.attention = linearAttentionTape(a, sb, e, lin);
        // The chunked kernel's per-chunk matrices in place of the scores: no s² term, however long the context.
        r.scores = in.checkpointing == Checkpointing::None ? linearAttentionChunkTape(a, sb) : 0;
    }

    const double mlpInput = mlaRecompute ? 0.0 : lin * sb * h;
    if (moeLayer && a.isMoe()) {
        const double f = static_cast<double>(a.moe.expertFfn);
        const double k = static_cast<double>(a.moe.activeExperts);
        const double shared = static_cast<double>(a.moe.sharedExperts);
        // Each routed copy keeps its input for its expert's weight gradient: h wide, or a latent MoE's latent width,
        // whose fc2_latent_proj keeps its own input too (the experts' summed latent output, latent wide); the
        // fc1_latent_proj reads the normed input kept above.
        const double io = static_cast<double>(a.moe.expertIo(a.hidden));
        const double latentOut = a.moe.latent > 0 ? lin * sb * static_cast<double>(a.moe.latent) : 0;
        r.mlp = mlpInput + 4 * sb * static_cast<double>(a.moe.experts) +
                k * (lin * sb * io + ffnInner(a, sb, f, e, lin)) + latentOut + shared * ffnInner(a, sb, f, e, lin);
        // Gemma 4's dense FFN beside the experts reads the same normed layer input.
        if (a.moe.denseBeside > 0)
            r.mlp += ffnInner(a, sb, static_cast<double>(a.moe.denseBeside), e, lin);
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

} // namespace

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
