#pragma once
// The activation tape kept for backward, per transformer layer and micro-batch (Korthikanti et al. 2022;
// docs/accounting.md, "Activations").
//
// Anchor: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
// Models", §4.1: a GPT layer with 16-bit activations, dropout and a 4h GeLU MLP keeps
//   attention 11·sbh + 5·a·s²·b, MLP 19·sbh, two LayerNorms 4·sbh  =  s·b·h·(34 + 5·a·s/h) bytes.
// Every term below is that paper's term written for general widths, so the GPT configuration
// reproduces the formula exactly (tests/core/memory/tst_activations.cpp checks it):
//   attention  QKV input e·sbh (linear input) + Q and K e·sb·(q+k) + V e·sb·v + out-proj input e·sb·v
//   scores     softmax output e·as²b (+ dropout mask as²b + dropout output e·as²b with dropout);
//              fused/flash attention keeps only the fp32 log-sum-exp, 4·a·s·b;
//              selective recompute keeps neither (recomputed in backward)
//   mlp        GeLU: input e·sbh + GeLU input e·sbf + second-linear input e·sbf
//              SwiGLU (fused, Megatron's bias_swiglu): input e·sbh + gate‖up e·2sbf + down input e·sbf
//              MoE: shared input e·sbh + router logits 4·sbE (fp32) + for each of the k routed experts
//              its dispatched input e·sbh and inner tensors, + the shared experts' inner tensors
//   norms      each norm keeps its input: 2·e·sbh
//   dropout    one byte masks after attention and MLP: 2·sbh (none for models trained without dropout)
//   MLA        adds the q and kv latents, each kept twice (latent-norm input, up-projection input);
//              selective recomputation with MLA follows DeepSeek-V3 §3.2.3: the up-projected Q, K, V
//              and the RMSNorm outputs (the block inputs) are recomputed, not kept
// e is 2 bytes (4 for fp32 training); with fp8-cached activations (DeepSeek-V3 §3.3) the inputs of
// linear layers are kept in 1 byte.
// Tensor parallel t (Korthikanti §4.2): with sequence parallelism every term is divided by t;
// without it the norms, dropout masks and the two block inputs (10·sbh for GPT) stay replicated.
// Korthikanti Table 2 per layer: none sbh(34 + 5as/h); TP sbh(10 + 24/t + 5as/(ht)); TP+SP sbh/t·(34 + 5as/h);
// TP+selective sbh(10 + 24/t); TP+SP+selective 34·sbh/t (tests/core/memory/tst_seqpar.cpp).
// Context parallel c (Megatron-LM docs/user-guide/features/context_parallel.md at d98e8a6): every tensor
// holds the rank's s/c tokens; the queries of those tokens still meet all s keys, so the unfused scores are
// a·(s/c)·s·b (flash attention keeps only the local rows' statistics). K and V of the other chunks pass
// through in a ring and are not kept (the tax counts them: core/memory/accounting.cpp).

#include "scenario.h"

namespace trainmem {

/// \brief What the tape depends on besides the architecture.
struct ActivationInputs {
    double seq = 4096;
    double microBatch = 1;
    Checkpointing checkpointing = Checkpointing::None;
    bool flashAttention = true;
    bool fp8LinearInputs = false;
    double elementBytes = 2;
    double tp = 1;
    bool sequenceParallel = true;
    double cp = 1; ///< context parallel: this GPU holds seq/cp tokens of every activation
    /// torch.compile (issue 30 §2): the pointwise results the backward can rebuild from what it keeps are not kept:
    /// the SwiGLU product (GeLU output) that feeds the down-projection, and each norm's output that feeds a linear
    /// (rebuilt from the norm's input and its fp32 1/rms per token). docs/accounting.md, "Recipes".
    bool compiled = false;
    /// torchtune's layer as its eager autograd (or, compiled, AOTAutograd's partitioner) keeps it, in place of
    /// Korthikanti's terms: `--framework torchtune` (docs/accounting.md, "Framework profiles"). Only for the layers it
    /// describes (torchTapeApplies()); the others keep the default tape.
    bool torchtuneTape = false;
    /// LitGPT's layer with a frozen base, as its eager autograd keeps it (LoRA or QLoRA under `--framework litgpt`;
    /// docs/accounting.md, "Framework profiles"), for the layers litgptTapeApplies() describes.
    bool litgptTape = false;
    /// With litgptTape: RMSNorm upcasts to fp32 (LitGPT from 6178c7c on), else computes in 16 bits (8641822).
    bool litgptFp32Norm = true;
    /// With litgptTape: the base's linears are bitsandbytes 4-bit layers (QLoRA through Lightning Fabric's
    /// BitsandbytesPrecision), whose MatMul4Bit keeps its input although the weight is frozen.
    bool bnb4bit = false;
    /// With litgptTape: the adapted projections (LoraModule bits, core/model/lora.h), each of which keeps its input's
    /// dropout mask and output.
    uint32_t loraModules = 0;
    /// Tokens of one sequence on this GPU.
    double localSeq() const { return seq / cp; }
};

/// \brief Bytes one layer keeps for one micro-batch on one GPU, by term.
struct LayerActivations {
    double attention = 0; ///< sbh-type attention tensors (Q, K, V, projections' inputs)
    double scores = 0;    ///< the s² attention scores, or flash softmax statistics
    double mlp = 0;       ///< FFN or MoE tensors, router logits included
    double norms = 0;
    double dropout = 0; ///< dropout masks
    double total() const { return attention + scores + mlp + norms + dropout; }
};

/// \brief The tape of one layer. `moeLayer` picks the MoE FFN for MoE models.
/// `in.checkpointing` decides the scores term (none keeps them; selective and full drop them).
LayerActivations layerActivations(const Architecture& a, bool moeLayer, const ActivationInputs& in);

/// \brief The tape of one layer whose token mixer is of kind `kind` (issue 29 §2): a sliding-window or chunked
/// layer's unfused scores meet at most window (chunk) keys per query instead of s; a Gated DeltaNet layer keeps
/// its projections and the chunked kernel's per-chunk matrices, a Mamba-2 layer what its fused kernel saves, both
/// linear in s; a block without a token mixer keeps none. The FFN part is `moeLayer`'s.
LayerActivations layerActivations(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind);

/// \brief The keys one query of a layer of kind `kind` attends to in a sequence of `seq` tokens: seq, or
/// min(seq, window) for a sliding-window layer, min(seq, chunk) for a chunked one.
double keysPerQuery(const Architecture& a, LayerKind kind, double seq);

/// The chunk of Gated DeltaNet's chunked kernel (torch_chunk_gated_delta_rule's chunk_size, fla's chunk ops).
inline constexpr double kLinearAttentionChunk = 64;
/// \brief Gated DeltaNet's per-chunk fp32 matrices for `sb` tokens: 4·64·sb·value_heads bytes.
double linearAttentionChunkTape(const Architecture& a, double sb);

/// \brief Whether torchtune's tape (ActivationInputs::torchtuneTape) describes this layer: a dense Llama layer
/// (RMSNorm, SwiGLU, full attention with q, k, v and o projections, no q/k norms, gate or dropout), 16- or 32-bit
/// activations, one GPU's whole sequence (tp = cp = 1), a fused attention kernel, no or full checkpointing.
bool torchTapeApplies(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind);

/// \brief Whether LitGPT's tape (ActivationInputs::litgptTape) describes this layer: a dense Llama layer as for
/// torchTapeApplies(), 16- or 32-bit activations, tp = cp = 1, a fused attention kernel, no checkpointing.
bool litgptTapeApplies(const Architecture& a, bool moeLayer, const ActivationInputs& in, LayerKind kind);

/// \brief A full-recompute checkpoint: the layer input only, e·sbh (÷t with sequence parallel, s/c tokens).
double layerInputCheckpoint(const Architecture& a, const ActivationInputs& in);

/// \brief Korthikanti's closed form, s·b·h·(34 + 5·a·s/h), for checking and for the drill-down.
double korthikantiLayerBytes(double s, double b, double h, double a);

} // namespace trainmem
