#pragma once
// The inputs of one what-if: a model, how it is trained (or served) and on what hardware.
// Plain values only; every default here is the documented default of the scenario file format
// (docs/scenario-format.md).

#include "pipelinelayout.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

/// Value ranges the UI, the command line and the validator share.
inline constexpr int64_t kMaxSeq = 1 << 24; // 16M tokens
inline constexpr int64_t kMaxMicroBatch = 65536;
inline constexpr int64_t kMaxGpus = 10'000'000;
/// LoRA ranks used in practice are 4 … 256; beyond 4096 an adapter is no longer low-rank for any model's linears.
inline constexpr int64_t kMaxLoraRank = 4096;
inline constexpr int64_t kDefaultLoraRank = 16;   // PEFT's examples and the QLoRA paper's 7B runs use 16 or 64
inline constexpr int64_t kDefaultGpusPerNode = 8; // a DGX/HGX node
inline constexpr int64_t kMaxGpusPerNode = 1024;

enum class Mode { Training, Inference };
enum class Precision { FP32, BF16Mixed, FP16Mixed, BF16, FP8Mixed };
/// Muon (Jordan et al. 2024; as Moonlight, arXiv 2502.16982, trains with it): one momentum buffer for the hidden
/// matrices, AdamW's two moments for the embeddings, norms and output head (issue 30 §2).
enum class Optimizer { AdamW, Adam, SGD, SGDMomentum, Lion, Adafactor, Adam8bit, Muon };
/// Activation checkpointing: none; selective (Korthikanti et al. 2022: the attention scores recomputed); full (each
/// layer's input kept, the layer recomputed); per-op (torchtitan's per-op selective AC: the outputs of every other
/// matmul, of attention and of collectives kept, everything else recomputed; docs/accounting.md, "Recipes").
enum class Checkpointing { None, Selective, Full, PerOp };
/// How served weights are stored (core/model/recipe.h weightFormat(), docs/accounting.md "Serving formats"): bf16;
/// int8 with a per-row scale (LLM.int8()); int4 with a 16-bit scale and a 4-bit zero per group of 128 (GPTQ/AWQ);
/// MXFP4 (OCP MX v1.0: E2M1 + an E8M0 scale per 32; on a MoE model only the routed experts, as gpt-oss ships);
/// NVFP4 (E2M1 + an E4M3 scale per 16 + an fp32 scale per tensor). Quantised checkpoints keep embeddings, the
/// output head, norms, biases and routers in 16 bits.
enum class InferenceWeights { BF16, INT8, INT4, MXFP4, NVFP4 };
/// The frozen base's format under QLoRA: bitsandbytes' NF4 (QLoRA's own), or a checkpoint published in MXFP4 (gpt-oss)
/// or NVFP4 (ModelOpt) that the trainer keeps as it is (docs/accounting.md, "QLoRA on an MXFP4 or NVFP4 base").
enum class QloraBase { NF4, MXFP4, NVFP4 };
/// How training changes the weights: every parameter (full), low-rank adapters on a frozen base
/// (LoRA, Hu et al. 2021), or adapters on a 4-bit NF4 base (QLoRA, Dettmers et al. 2023).
enum class FineTune { Full, Lora, QLora };
/// Which linear layers carry LoRA adapters: q, k, v, o (attention) or every linear of attention
/// and MLP, experts included (PEFT's target_modules="all-linear", without the output head).
enum class LoraTargets { Attention, All };
/// What DeepSpeed moves to host (CPU) memory (ZeRO-Offload, Ren et al. 2021; ZeRO-Infinity, Rajbhandari et al.
/// 2021): nothing; the optimizer (fp32 master weights, optimizer state and fp32 gradients, DeepSpeed's
/// zero_optimization.offload_optimizer); or that and the 16-bit weights too (offload_param, ZeRO-3 only).
enum class Offload { None, Optimizer, OptimizerParams };
/// How the loss's cross-entropy is computed over the logits (issue 30 §2; docs/accounting.md, "The loss as
/// computed"): eager PyTorch on fp32-upcast logits (transformers' ForCausalLMLoss, torchtitan's cross_entropy_loss),
/// chunked over the tokens with one chunk upcast at a time (torchtune's LinearCrossEntropyLoss and
/// CEWithChunkedOutputLoss, 8 chunks), fused with the output projection so the logits exist one chunk at a time
/// (Liger's LigerFusedLinearCrossEntropy), Megatron-LM's vocab-parallel cross-entropy (logits split by tp,
/// softmax computed in place), or LitGPT's chunked_cross_entropy: 128-token chunks in the logits' own 16-bit dtype,
/// no fp32 upcast, the logits kept through backward (the output layer itself chunked under adapters); PyTorch's
/// loss_parallel() on each rank's V/t slice of the fp32-upcast logits (torchtitan under tensor parallelism); or
/// torchtitan's ChunkedLossWrapper: the head and the cross-entropy chunk by chunk, each chunk's backward right after
/// its forward (8 chunks, its llama3 configs' default).
enum class LossKind { Eager, Chunked, Fused, VocabParallel, Chunked16, LossParallel, ChunkedBackward };
/// A training framework whose defaults a scenario takes where it sets nothing itself (issue 30 §2, --framework).
enum class Framework { Megatron, DeepSpeed, Torchtitan, Torchtune, HF, LitGPT };
/// What an FSDP2 wrap keeps gathered beside the decoder layers (--fsdp-root): nothing; the output head and final
/// norm from their forward to their backward (torchtitan's [norm, lm_head] unit); or the root unit, embeddings, final
/// norm and head, from forward to the end of backward (FSDP2 never reshards its root after forward: torchtune's
/// shard_model, torchtitan before its separate units).
enum class FsdpRoot { None, Head, EmbeddingsAndHead };
enum class FfnKind { Gelu, SwiGLU };
enum class NormKind { LayerNorm, RMSNorm };
enum class AttentionKind { MHA, GQA, MLA };
/// Which attention projections carry a bias: none, only q/k/v (Qwen2), or q/k/v and the output (GPT-2).
enum class AttentionBias { None, Qkv, All };
/// Normalisation of queries and keys: none, per head over head_dim (Qwen3, Gemma 3), or over the
/// full projection width heads·head_dim and kv_heads·head_dim (OLMo 2).
enum class QkNorm { None, PerHead, Full };

/// \brief Multi-head latent attention ranks (DeepSeek-V2/V3).
struct MlaConfig {
    int64_t qLoraRank = 0; ///< 0 means queries are projected directly from h
    int64_t kvLoraRank = 512;
    int64_t qkRopeHeadDim = 64;
    int64_t qkNopeHeadDim = 128;
    int64_t vHeadDim = 128;
    /// DeepSeek-V3.2's sparse-attention indexer (DSA, its lightning indexer; 0 heads = none): index_n_heads heads of
    /// index_head_dim scoring every cached token, the attention then reads the index_topk best.
    int64_t indexHeads = 0;
    int64_t indexHeadDim = 128;
    int64_t indexTopk = 2048;

    bool operator==(const MlaConfig&) const = default;
};

/// \brief Mixture-of-experts block. experts == 0 means a dense model.
struct MoeConfig {
    int64_t experts = 0;
    int64_t activeExperts = 0;
    int64_t sharedExperts = 0;
    int64_t expertFfn = 0;
    int64_t denseLayers = 0;          ///< layers with a dense FFN (DeepSeek's leading ones, Qwen's mlp_only_layers)
    int64_t denseFfn = 0;             ///< their FFN width; 0 means the architecture's ffn
    bool scoreCorrectionBias = false; ///< the router's per-expert bias (DeepSeek-V3's e_score_correction_bias)
    bool sharedExpertGate = false;    ///< a sigmoid gate h -> 1 on the shared experts (Qwen2-MoE)
    /// A dense FFN of this width beside the experts in every MoE layer, on every token (Gemma 4's mlp of
    /// intermediate_size next to its experts); 0: none.
    int64_t denseBeside = 0;
    /// The router's own scales, one per input channel and one per expert (Gemma 4's Gemma4TextRouter scale [h] and
    /// per_expert_scale [E]).
    bool routerScales = false;
    /// The experts' latent width (NVIDIA's LatentMoE, Nemotron 3 Super's moe_latent_size; modeling_nemotron_h.py
    /// NemotronHMoE at 008d9e9577b0eb0149aa6bb0c44da582b10e0b6e): fc1_latent_proj Linear(h, latent) before the routed
    /// experts and fc2_latent_proj Linear(latent, h) after them, on every token's path; the routed experts read and
    /// write `latent` channels instead of h. The router and the shared experts stay on h. 0: none.
    int64_t latent = 0;
    /// The width the routed experts read and write: the latent one when there is one, else the model's.
    int64_t expertIo(int64_t hidden) const { return latent > 0 ? latent : hidden; }

    bool operator==(const MoeConfig&) const = default;
};

/// \brief A layer's token mixer (issue 29 §2). Full attention keeps every token's K and V; a sliding-window layer
/// (Gemma 2/3, gpt-oss, Mistral) attends to the last `window` tokens and a chunked layer (Llama 4) to the tokens of
/// its own chunk, so their caches and unfused scores are bounded; a linear-attention layer (Gated DeltaNet,
/// Qwen3-Next) keeps a fixed-size recurrent state instead of a KV cache.
/// A Mamba-2 layer (Nemotron-H's M blocks) keeps an SSM state and a conv state the same way; a block with no token
/// mixer at all (Nemotron-H's MLP and MoE blocks) has only its FFN.
enum class LayerKind { Full, Sliding, Chunked, Linear, Mamba, None };
inline constexpr size_t kLayerKindCount = 6;

/// \brief Gated DeltaNet (Yang, Kautz & Hatamizadeh 2024, arXiv 2412.06464) as Qwen3-Next builds it
/// (modeling_qwen3_next.py Qwen3NextGatedDeltaNet): linear_num_key_heads × linear_key_head_dim for q and k,
/// linear_num_value_heads × linear_value_head_dim for v, a depthwise causal conv1d of linear_conv_kernel_dim.
struct LinearAttentionConfig {
    int64_t keyHeads = 16;
    int64_t keyHeadDim = 128;
    int64_t valueHeads = 32;
    int64_t valueHeadDim = 128;
    int64_t convKernel = 4;
    int64_t keyDim() const { return keyHeads * keyHeadDim; }
    int64_t valueDim() const { return valueHeads * valueHeadDim; }
    int64_t convDim() const { return 2 * keyDim() + valueDim(); } ///< q, k and v go through the conv

    bool operator==(const LinearAttentionConfig&) const = default;
};

/// \brief Mamba-2 (Dao & Gu 2024, Transformers are SSMs, arXiv 2405.21060) as Nemotron-H builds it
/// (modeling_nemotron_h.py NemotronHMamba2Mixer at 897753a012bfa6dac8c0ae3281f23a2fc1e72db6): d_inner =
/// heads·head_dim, conv_dim = d_inner + 2·groups·state; in_proj h -> d_inner + conv_dim + heads.
struct Mamba2Config {
    int64_t heads = 128;
    int64_t headDim = 64;
    int64_t stateSize = 128;
    int64_t groups = 8;
    int64_t convKernel = 4;
    bool convBias = true;  ///< use_conv_bias
    bool projBias = false; ///< use_bias: in_proj and out_proj
    /// Bytes of one SSM state element while generating: NemotronH's mamba_ssm_cache_dtype (float32 by default), or
    /// the model's own 16 bits where the cache takes the model's dtype (GraniteMoeHybrid).
    int64_t ssmStateBytes = 4;
    int64_t innerDim() const { return heads * headDim; }
    int64_t convDim() const { return innerDim() + 2 * groups * stateSize; }

    bool operator==(const Mamba2Config&) const = default;
};

/// \brief How many layers of each kind other than full attention a model has (issue 29 §2). Counts, not a list:
/// memory depends on how many layers of a kind there are, not on where they sit, and a count costs nothing to
/// evaluate at every slider step. The layers not counted here are full attention.
struct LayerKinds {
    int64_t sliding = 0; ///< sliding-window attention layers
    int64_t window = 0;  ///< their window, tokens (gpt-oss 128, Gemma 3 1B 512)
    int64_t chunked = 0; ///< chunked attention layers (Llama 4's attention_chunk_size)
    int64_t chunk = 0;   ///< their chunk, tokens
    int64_t linear = 0;  ///< Gated DeltaNet layers
    LinearAttentionConfig linearAttention;
    int64_t mamba = 0; ///< Mamba-2 layers
    Mamba2Config mamba2;
    /// Blocks that hold only an FFN, no token mixer (Nemotron-H's - and E blocks), and blocks that hold only a token
    /// mixer, no FFN (its M and * blocks). A transformer layer has both: 0 and 0.
    int64_t ffnOnly = 0;
    int64_t mixerOnly = 0;
    /// The full-attention layers' own attention shape where it is not the other layers' (Gemma 4:
    /// global_head_dim, num_global_key_value_heads and attention_k_eq_v, modeling_gemma4.py Gemma4TextAttention):
    /// their head size and K/V heads (0: the architecture's head_dim and kv_heads), and whether their keys double
    /// as values (no v_proj; the cache still holds K and V, normed apart).
    int64_t fullHeadDim = 0;
    int64_t fullKvHeads = 0;
    bool fullKeyIsValue = false;
    bool fullShape() const { return fullHeadDim > 0 || fullKvHeads > 0 || fullKeyIsValue; }
    /// Layers that attend with an earlier layer's keys and values (Gemma 4's last num_kv_shared_layers, E2B and E4B;
    /// modeling_gemma4.py Gemma4TextAttention.is_kv_shared_layer): no k_proj, v_proj or k_norm of their own and no
    /// KV cache; of the sliding and the full-attention layers. Their MLP is kvSharedFfn wide (use_double_wide_mlp:
    /// twice intermediate_size; 0: the model's).
    int64_t kvSharedSliding = 0;
    int64_t kvSharedFull = 0;
    int64_t kvSharedFfn = 0;
    int64_t kvShared() const { return kvSharedSliding + kvSharedFull; }
    int64_t kvSharedOf(LayerKind k) const
    {
        return k == LayerKind::Sliding ? kvSharedSliding : k == LayerKind::Full ? kvSharedFull : 0;
    }

    bool any() const
    {
        return sliding > 0 || chunked > 0 || linear > 0 || mamba > 0 || ffnOnly > 0 || mixerOnly > 0 || fullShape() ||
               kvShared() > 0;
    }
    bool operator==(const LayerKinds&) const = default;
};

/// \brief A transformer's shape, with the field names of presets/models.json.
struct Architecture {
    int64_t layers = 0;
    int64_t hidden = 0;
    int64_t heads = 0;
    int64_t kvHeads = 0; ///< 0 means heads (MHA)
    int64_t headDim = 0; ///< 0 means hidden / heads
    int64_t ffn = 0;     ///< 0 means 4·hidden for gelu, 8/3·hidden rounded to 256 for swiglu
    FfnKind ffnKind = FfnKind::SwiGLU;
    int64_t vocab = 32000;
    int64_t maxPositions = 0;
    bool learnedPositions = false;
    bool tiedEmbeddings = false;
    bool bias = false; ///< biases in every linear layer (GPT-2, GPT-NeoX); refined by the two below
    std::optional<AttentionBias> attentionBias; ///< unset: All with bias, None without
    std::optional<bool> mlpBias;                ///< unset: bias
    NormKind norm = NormKind::RMSNorm;
    int64_t normsPerLayer = 2; ///< Gemma 2/3 have four (pre and post attention and FFN)
    QkNorm qkNorm = QkNorm::None;
    /// A learned logit per attention head that every query's softmax also weighs (gpt-oss's `sinks`,
    /// modeling_gpt_oss.py GptOssAttention): heads parameters a layer.
    bool attentionSinks = false;
    /// A bias on the output head (lm_head Linear(h, V, bias=True): Phi, modeling_phi.py PhiForCausalLM).
    bool headBias = false;
    AttentionKind attention = AttentionKind::GQA;
    MlaConfig mla;
    MoeConfig moe;
    /// Dropout after attention and MLP (GPT-2/3 and Korthikanti's configuration). Modern
    /// pretraining runs turn it off; the default is on for gelu models and off otherwise.
    std::optional<bool> dropout;
    /// Multi-token-prediction modules (DeepSeek-V3 §2.2: one, D = 1): each an embedding-and-hidden projection
    /// 2h -> h, two norms, one block of the last layer's kind and a final norm, sharing the embedding and the
    /// output head. Trained only in full training (serving and LoRA/QLoRA drop them, as transformers does);
    /// not in the published totals (ParamCount::mtp).
    int64_t mtpLayers = 0;
    /// The vision tower and its projector of a multimodal wrapper (a config.json's vision_config beside its
    /// text_config: Llama 4, Qwen3-VL, Gemma 3, …), counted at import from the family's modeling file; not in the
    /// language model's total or active counts (ParamCount::vision). Held as weights in every mode; LoRA/QLoRA keep it
    /// frozen (16-bit weights only), full training trains it (gradients, master copy, optimizer state).
    int64_t visionParams = 0;
    /// The audio tower and its projector (Gemma 4 E2B and E4B: Gemma4AudioModel and embed_audio), counted and held
    /// as the vision tower is.
    int64_t audioParams = 0;
    /// Gemma 4's per-layer embeddings (E2B, E4B; modeling_gemma4.py Gemma4TextModel): a second token table of
    /// perLayerVocab × layers·perLayerInput (hidden_size_per_layer_input, vocab_size_per_layer_input), a projection
    /// h -> layers·perLayerInput and in every layer a gate h -> perLayerInput, a projection back and a norm. 0: none.
    int64_t perLayerInput = 0;
    int64_t perLayerVocab = 0;
    /// Layers whose token mixer is not full attention (issue 29 §2); none by default.
    LayerKinds kinds;
    /// Gated attention (Qwen3-Next, Qwen3.5: attn_output_gate): q_proj also yields a per-channel gate, heads·head_dim
    /// more outputs, and the attention output is multiplied by its sigmoid before o_proj (modeling_qwen3_next.py
    /// Qwen3NextAttention at 7515843b617551b008901620ca58f1208bbc330d).
    bool gatedAttention = false;

    /// Layers of kind `k`; the full-attention ones are what the other kinds leave.
    int64_t layersOfKind(LayerKind k) const
    {
        switch (k) {
        case LayerKind::Sliding:
            return kinds.sliding;
        case LayerKind::Chunked:
            return kinds.chunked;
        case LayerKind::Linear:
            return kinds.linear;
        case LayerKind::Mamba:
            return kinds.mamba;
        case LayerKind::None:
            return kinds.ffnOnly;
        case LayerKind::Full:
            break;
        }
        return std::max<int64_t>(0,
                                 layers - kinds.sliding - kinds.chunked - kinds.linear - kinds.mamba - kinds.ffnOnly);
    }
    /// Layers with softmax attention (and so attention weights and a KV cache): every kind but linear attention,
    /// Mamba-2 and the FFN-only blocks.
    int64_t attentionLayers() const
    {
        return std::max<int64_t>(0, layers - kinds.linear - kinds.mamba - kinds.ffnOnly);
    }
    /// Layers with an FFN (dense or MoE): all but the mixer-only blocks.
    int64_t ffnLayers() const { return std::max<int64_t>(0, layers - kinds.mixerOnly); }

    int64_t kvHeadsOrDefault() const { return kvHeads > 0 ? kvHeads : heads; }
    int64_t headDimOrDefault() const { return headDim > 0 ? headDim : (heads > 0 ? hidden / heads : 0); }
    /// A layer kind's attention shape: the full-attention layers' own (LayerKinds::fullHeadDim, …) or the model's.
    int64_t headDimOf(LayerKind k) const
    {
        return k == LayerKind::Full && kinds.fullHeadDim > 0 ? kinds.fullHeadDim : headDimOrDefault();
    }
    int64_t kvHeadsOf(LayerKind k) const
    {
        return k == LayerKind::Full && kinds.fullKvHeads > 0 ? kinds.fullKvHeads : kvHeadsOrDefault();
    }
    bool keyIsValueIn(LayerKind k) const { return k == LayerKind::Full && kinds.fullKeyIsValue; }
    bool dropoutOrDefault() const { return dropout.value_or(ffnKind == FfnKind::Gelu); }
    bool isMoe() const { return moe.experts > 0; }
    AttentionBias attentionBiasOrDefault() const
    {
        return attentionBias.value_or(bias ? AttentionBias::All : AttentionBias::None);
    }
    bool mlpBiasOrDefault() const { return mlpBias.value_or(bias); }

    bool operator==(const Architecture&) const = default;
};

/// \brief A model is either an architecture (presets) or a size (sliders).
struct ModelSpec {
    bool hasArchitecture = false;
    Architecture architecture;             ///< used when hasArchitecture
    int64_t params = 7'000'000'000;        ///< size-only: total parameters
    int64_t activeParams = 0;              ///< size-only: active per token; 0 means params (dense)
    std::optional<int64_t> publishedTotal; ///< for the record and the tests
    std::optional<int64_t> publishedActive;

    bool operator==(const ModelSpec&) const = default;
};

struct TrainingSetup {
    Mode mode = Mode::Training;
    Precision precision = Precision::BF16Mixed;
    Optimizer optimizer = Optimizer::AdamW;
    int64_t seqLen = 4096;
    int64_t microBatch = 1;
    int64_t gradAccum = 1; ///< micro-batches per optimizer step m: the tax, and the pipeline's tapes in flight
    Checkpointing checkpointing = Checkpointing::None;
    bool flashAttention = true;
    /// Megatron sequence parallelism: with tp > 1 the norms' and dropout's activations are split by tp too
    /// (Korthikanti et al. 2022 §4.2.2). Like Megatron-LM's --sequence-parallel it has no effect at tp 1
    /// (arguments.py turns it off there); the command line's --sp on refuses tp 1 instead.
    bool sequenceParallel = true;
    bool sequenceParallelEffective(int64_t tp) const { return sequenceParallel && tp > 1; }
    InferenceWeights inferenceWeights = InferenceWeights::BF16;
    FineTune fineTune = FineTune::Full;  ///< training only: serving ignores it (adapters merge into the weights)
    int64_t loraRank = kDefaultLoraRank; ///< r, 1 … kMaxLoraRank
    LoraTargets loraTargets = LoraTargets::Attention;
    /// Adapted modules named as PEFT's target_modules (issue 30 §2, --lora-targets q_proj,v_proj): a set of
    /// LoraModule bits (core/model/lora.h). 0 means loraTargets decides; otherwise it replaces loraTargets.
    uint32_t loraModules = 0;
    /// How the cross-entropy is computed; unset: the framework profile's, and without one the chapter's e + 4 B
    /// per logit (Megatron-LM's theoretical_memory_usage.py, the same bytes as VocabParallel).
    std::optional<LossKind> loss;
    /// torch.compile of each layer (issue 30 §2, --compile): the fused kernels recompute the pointwise results their
    /// backward needs instead of keeping them (docs/accounting.md, "Recipes"). Unset: the framework's (off).
    std::optional<bool> compile;
    /// The cross-entropy compiled with the model (--compile-loss): its 16-bit logits kept and the fp32 work fused into
    /// the backward kernel. Unset: as the framework's code does under --compile (effectiveCompileLoss).
    std::optional<bool> compileLoss;
    /// The optimizer steps each parameter as soon as its gradient is ready and frees the gradient (torchtune's
    /// optimizer_in_bwd, --optimizer-in-backward): gradients of one layer at a time. Unset: the framework's (off).
    std::optional<bool> optimizerInBackward;
    /// The tape kept in host memory (torchtune's OffloadActivations, --activation-offload): the GPU holds the layers
    /// in flight only. Unset: the framework's (off).
    std::optional<bool> activationOffload;
    /// The optimizer state in CUDA unified memory that pages out to the host under pressure (bitsandbytes' paged
    /// optimizers, --optimizer paged-adamw8bit): counted in host memory, needs a host.
    bool pagedOptimizer = false;
    /// QLoRA's absmax constants double-quantised (8 bits per block of 64, an fp32 constant per 256 blocks: QLoRA's
    /// recipe, bitsandbytes' compress_statistics=True), or kept in fp32 per block (LitGPT's bnb.nf4).
    bool qloraDoubleQuant = true;
    /// Under --framework litgpt: LitGPT's RMSNorm upcasts its input to fp32 (from 6178c7c, "Half precision fixes",
    /// 2023-10-24), or computes in the activations' 16 bits (LitGPT before it: 8641822, the resource tables' runs).
    bool litgptFp32Norm = true;
    /// Under --framework litgpt with QLoRA: the micro-batch before the peak was as long as this one, so its 4-bit
    /// inputs and logits, still held, meet this one's forward (TrainMem's fixed-length data), or the peak step had none
    /// before it (LitGPT's first iteration runs the longest sample: data of mixed lengths).
    bool litgptHeldBatch = true;
    /// Under QLoRA: the frozen base's format (NF4 unless the checkpoint is trained as published in MXFP4 or NVFP4).
    QloraBase qloraBase = QloraBase::NF4;

    /// Training with adapters on a frozen base (LoRA or QLoRA).
    bool adapters() const { return mode == Mode::Training && fineTune != FineTune::Full; }

    bool operator==(const TrainingSetup&) const = default;
};

/// \brief How the transformer layers are laid on pipeline stages when not evenly (issue 33): Megatron-LM's
/// --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers (0 = not set: the other stages share
/// what is left), or one stage's worth of room for the embedding on the first stage and for the loss on the last
/// (--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split), or a whole layout
/// (--pipeline-model-parallel-layout: every virtual stage's layers, pipelinelayout.h). Megatron-LM
/// megatron/core/transformer/transformer_block.py get_num_layers_to_build at
/// d98e8a64ddf34856e74b24714e3bedb2f5a39553.
struct PipelineSplit {
    int64_t firstLayers = 0;
    int64_t lastLayers = 0;
    bool embedding = false;
    bool loss = false;
    std::string layout;              ///< the layout as written ("" = none)
    std::vector<LayoutStage> stages; ///< what parsePipelineLayout read from it
    bool uneven() const { return firstLayers > 0 || lastLayers > 0; }
    bool hasLayout() const { return !stages.empty(); }
    bool isDefault() const { return !uneven() && !embedding && !loss && !hasLayout(); }
    bool operator==(const PipelineSplit&) const = default;
};

/// \brief Sets `split`'s layout from Megatron-LM's layout text; an empty text clears it. Returns why the text cannot
/// be read (the split is then unchanged), or an empty string.
std::string setPipelineLayout(PipelineSplit& split, std::string_view text);

/// \brief The transformer layers on pipeline stage `i` of `p` for a model of `L` layers. Without a split it is
/// ⌈L/p⌉ on every stage (the last may then hold fewer in a real run; TrainMem takes the busiest shape).
int64_t layersOnStage(const PipelineSplit& split, int64_t L, int64_t p, int64_t i);
/// \brief The layers of each of the `vpp` model chunks of pipeline stage `i` (get_num_layers_to_build per
/// vp_stage): the layout's, or the stage's layers shared evenly, less the embedding's (loss's) room on the first
/// (last) chunk.
std::vector<int64_t> chunkLayersOnStage(const PipelineSplit& split, int64_t L, int64_t p, int64_t vpp, int64_t i);
/// \brief Why `split` cannot lay `L` layers (and `mtpLayers` MTP layers) on `p` stages with `vpp` virtual stages, as
/// Megatron-LM's arguments.py, transformer_config.py and get_num_layers_to_build assert it, or an empty string.
std::string pipelineSplitProblem(const PipelineSplit& split, int64_t L, int64_t p, int64_t vpp, int64_t mtpLayers);
/// \brief The most pipeline stages `split` can lay `L` layers on: L, one more for each of the embedding and the
/// loss in the split, or a layout's stages.
int64_t maxPipelineStages(const PipelineSplit& split, int64_t L);
/// \brief The scenario field a split problem belongs to ("/hardware/pipeline_layout", …).
const char* pipelineSplitField(const PipelineSplit& split);

struct HardwareSetup {
    std::string gpu = "H100";
    int64_t gpus = 1;
    int zeroStage = 0;
    int64_t tp = 1;
    int64_t pp = 1;
    int64_t ep = 1;
    int64_t vpp = 1; ///< virtual pipeline stages per GPU (Megatron's interleaved 1F1B); 1 = plain 1F1B
    /// Expert tensor parallel: the routed experts' matrices are split etp ways; 0 means tp, Megatron-LM's
    /// default (megatron/training/arguments.py at d98e8a64ddf34856e74b24714e3bedb2f5a39553: "if
    /// args.expert_tensor_parallel_size is None: args.expert_tensor_parallel_size = args.tensor_model_parallel_size").
    int64_t etp = 0;
    int64_t etpOrDefault() const { return etp > 0 ? etp : tp; }
    /// Context parallel: the sequence of every activation is split cp ways, each GPU holding s/cp tokens
    /// and passing its K and V blocks around a ring for attention (Megatron-LM's --context-parallel-size,
    /// docs/user-guide/features/context_parallel.md at d98e8a64ddf34856e74b24714e3bedb2f5a39553). The GPUs are
    /// tp·pp·cp·dp; the weights are replicated over the cp ranks like over the data-parallel ones.
    int64_t cp = 1;
    /// ZeRO-Offload / ZeRO-Infinity (issue 9 §3): what lives in the host's memory instead of the GPU's.
    Offload offload = Offload::None;
    /// GPUs that share one host (a node): its host memory holds their offloaded shards. DGX/HGX nodes have 8.
    int64_t gpusPerNode = kDefaultGpusPerNode;
    bool offloadsOptimizer() const { return offload != Offload::None; }
    bool offloadsParams() const { return offload == Offload::OptimizerParams; }
    PipelineSplit split;            ///< uneven pipeline stages (issue 33); the default is ⌈L/p⌉ layers on each
    double frameworkBytes = 0.75e9; ///< CUDA context + framework (PyTorch) resident memory
    double fragmentation = 0.05;    ///< allocator reserve as a fraction of everything else
    /// PyTorch's caching allocator with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (issue 30 §3): segments
    /// grow by 2 MiB (small pool) and 20 MiB (large pool) pages, so the reserve is at most one page of each pool
    /// and `fragmentation` does not apply. Unset: the framework profile's, and without one PyTorch's default (off).
    std::optional<bool> expandableSegments;
    /// FSDP2's fully_shard(reshard_after_forward=…) (issue 30 §2, --reshard-after-forward): off keeps every layer's
    /// gathered weights from its forward to its backward. ZeRO-3 over more than one rank only. Unset: on (the
    /// framework's default).
    std::optional<bool> reshardAfterForward;
    /// FSDP1's flat parameters built from a model loaded whole (torch.distributed.fsdp FullyShardedDataParallel with
    /// use_orig_params=False, as Answer.AI's fsdp_qlora train.py wraps it; --fsdp-flat-wrap): each unit is
    /// materialised unsharded on the GPU and concatenated before its shard is kept, and the caching allocator keeps
    /// those blocks through the run (issue 30 §1; docs/accounting.md, "Workspace and overhead"). Unset: the
    /// framework's default (on under --framework litgpt, off otherwise).
    std::optional<bool> fsdpFlatWrap;
    /// Gradient accumulation inside FSDP1's no_sync() (--fsdp-no-sync; Lightning Fabric's no_backward_sync, as
    /// LitGPT's finetune scripts accumulate): every micro-batch but the last keeps each flat parameter's gradient
    /// unsharded, so with ZeRO-2/3 over more than one rank and grad_accum > 1 the gradients are held whole. A flat
    /// parameter that mixes frozen and trainable parameters (use_orig_params=True, one unit per layer: LoRA under
    /// Lightning's FSDPStrategy) has a gradient for all of it, so under LoRA every decoder layer's parameters carry
    /// one (docs/accounting.md, "Sharding and the tax"). Unset: the framework's default (on under --framework litgpt
    /// where it applies: not with QLoRA or an offload; off otherwise).
    std::optional<bool> fsdpNoSync;
    /// What the FSDP2 wrap keeps gathered beside the layers at ZeRO-3 over more than one rank (--fsdp-root;
    /// docs/accounting.md, "Workspace and overhead"). Unset: the framework's (effectiveFsdpRoot()).
    std::optional<FsdpRoot> fsdpRoot;

    bool operator==(const HardwareSetup&) const = default;
};

/// \brief A phase of a published run besides pre-training, with the GPU-hours its report gives
/// (DeepSeek-V3 technical report, Table 1: context extension 119K, post-training 5K H800-hours).
struct CostPhase {
    std::string name;
    double gpuHours = 0;

    bool operator==(const CostPhase&) const = default;
};
inline constexpr size_t kMaxCostPhases = 16;

struct CostSetup {
    double tokens = 1e12;               ///< pre-training tokens (the receipt computes their GPU-hours)
    double mfu = 0.40;                  ///< fraction of the GPU's peak for the chosen precision
    double pricePerGpuHour = 2.0;       ///< USD; 0 means the GPU catalog's typical price
    std::vector<CostPhase> otherPhases; ///< published phases after pre-training, added to the receipt as given

    bool operator==(const CostSetup&) const = default;
};

struct Scenario {
    std::string id;
    std::string name;
    std::string description;
    std::string source;
    ModelSpec model;
    TrainingSetup training;
    HardwareSetup hardware;
    CostSetup cost;
    /// The framework whose defaults fill what the scenario leaves unset (loss, allocator); never what it sets.
    std::optional<Framework> framework;

    bool operator==(const Scenario&) const = default;
};

/// \brief What a framework does unless told otherwise (issue 30 §2): each default cited from its code at a commit in
/// core/model/scenario.cpp and docs/accounting.md, "Framework profiles".
struct FrameworkDefaults {
    std::optional<LossKind> loss; ///< unset: the framework leaves the loss to the model it wraps
    bool expandableSegments = false;
    const char* source = "";
    // The recipes' defaults (issue 30 §2, §4): each off unless the framework's code turns it on by default.
    bool compile = false;
    bool optimizerInBackward = false;
    bool activationOffload = false;
    bool reshardAfterForward = true;
    bool fsdpFlatWrap = false; ///< FSDP1 over a model built whole or on the meta device, its root unit kept gathered
    bool fsdpNoSync = false;   ///< gradient accumulation inside FSDP1's no_sync()
    const char* recipeSource = ""; ///< where the six above are read, at a commit
};
FrameworkDefaults frameworkDefaults(Framework f);
/// \brief The loss the scenario computes: its own, else its framework's, else unset (the chapter's accounting).
std::optional<LossKind> effectiveLoss(const Scenario& s);
/// \brief Whether the caching allocator uses expandable segments: the scenario's setting, else its framework's.
bool effectiveExpandableSegments(const Scenario& s);
/// \brief The recipes as the scenario runs them: its own setting, else its framework's default (issue 30 §2: a
/// profile never overrides what the scenario sets).
bool effectiveCompile(const Scenario& s);
/// \brief Whether the cross-entropy `loss` is compiled: the scenario's compile_loss, else under torch.compile as the
/// framework compiles it (torchtitan: eager, chunked and chunked-backward, BaseLoss._maybe_compile; torchtune and no
/// framework: the chunked loss only, which compile_loss patches in place). The kinds whose compiled memory is not
/// modelled (loss-parallel, fused, vocab-parallel, chunked-16bit) answer false unless compile_loss is set.
bool effectiveCompileLoss(const Scenario& s, LossKind loss);
bool effectiveOptimizerInBackward(const Scenario& s);
bool effectiveActivationOffload(const Scenario& s);
bool effectiveReshardAfterForward(const Scenario& s);
bool effectiveFsdpFlatWrap(const Scenario& s);
/// \brief What the FSDP2 wrap keeps gathered: the scenario's setting, else its framework's (torchtitan: the head,
/// none under its "always" policy, --reshard-after-forward on; torchtune: the root unit), else none.
FsdpRoot effectiveFsdpRoot(const Scenario& s);
/// \brief Accumulation inside FSDP1's no_sync(): the scenario's setting, else its framework's where it applies (LitGPT
/// refuses a quantised base on more than one device, and inside no_sync() the gradients stay on the GPU, so the
/// default never turns it on under QLoRA or an offload, which the setting itself is refused with).
bool effectiveFsdpNoSync(const Scenario& s);

/// \brief The scenario on `gpus` GPUs, its tensor/pipeline/expert degrees kept as far as they still
/// divide it: the scenario format (docs/scenario-format.md) requires gpus to be a multiple of tp·pp and
/// tp, pp, ep ≤ gpus. Every editor of the GPU count (the window's controls, the docks, the tour, the
/// command line's --gpus without --tp/--pp) goes through this, so none can make a scenario that
/// validateScenario() refuses. `gpus` is clamped to 1 … kMaxGpus.
Scenario withGpuCount(Scenario s, int64_t gpus);

/// \brief The scenario with its tensor/pipeline/context/expert degrees kept as far as the model and the GPU
/// count allow (issue 13): tp divides gpus, pp divides gpus/tp and is at most the model's layers,
/// cp divides gpus/(tp·pp) and 2·cp divides the sequence (Megatron-LM's load-balanced chunks),
/// tp divides the attention heads (Megatron-LM and vLLM split whole heads; issue 33 §5),
/// etp divides gpus/pp, ep divides the experts and gpus/(etp·pp) (1 on a dense model, etp unset), vpp is 1 without a
/// pipeline and pp·vpp is at most the layers. Each degree keeps its largest divisor that satisfies these, so a valid
/// layout is returned unchanged. withGpuCount() ends with it; the window's controls apply it after every edit, so they
/// never make a layout validateScenario() refuses.
Scenario withValidLayout(Scenario s);
/// \brief The same rules on the hardware alone, for a model of `layers` layers, `experts` routed experts (0: dense)
/// and `heads` attention heads (0: no rule). The sequence rule of cp is withValidLayout()'s (it needs the training
/// setup).
HardwareSetup layoutWithin(HardwareSetup hw, int64_t layers, int64_t experts, int64_t heads = 0, int64_t kvHeads = 0);

/// \brief The scenario with an offload its ZeRO stage allows (DeepSpeed: offload_optimizer from ZeRO-1, offload_param
/// only at ZeRO-3). With `raiseZero` the ZeRO stage is raised to what the
/// offload needs (the window's offload control was just chosen), else the offload is lowered to what the stage allows.
/// Serving is left as it is (validateScenario() ignores offload there).
Scenario withValidOffload(Scenario s, bool raiseZero);

/// Sequences per optimizer step the command line and scenario files accept (--global-batch).
inline constexpr int64_t kMaxGlobalBatch = 1'000'000'000'000;
/// \brief Micro-batches per step m for a global batch of `sequences`: global = micro_batch · dp · m
/// with dp = gpus/(tp·pp·cp) (Megatron-LM's --global-batch-size rule). nullopt with `why` set when it
/// does not divide or m would leave 1 … 1000000.
std::optional<int64_t> gradAccumForGlobalBatch(const Scenario& s, int64_t sequences, std::string* why);

/// \brief The transformer layers of the model (the size rule's for a size-only model), at least 1.
int64_t modelLayers(const ModelSpec& m);
/// \brief The routed experts of a mixture-of-experts architecture; 0 for a dense or size-only model.
int64_t modelExperts(const ModelSpec& m);
/// \brief The attention heads tensor parallelism splits; 0 for a size-only model (its shape is the size rule's guess,
/// not a constraint the user gave).
int64_t modelHeads(const ModelSpec& m);
/// \brief The key/value heads (query groups) of a grouped-query architecture, which tensor parallelism must split
/// whole or replicate (tp a multiple or a divisor of them); 0 when there are as many as heads, for MLA and for a
/// size-only model.
int64_t modelKvHeads(const ModelSpec& m);
/// \brief The architecture's multi-token-prediction layers; 0 for a size-only model.
int64_t modelMtpLayers(const ModelSpec& m);

// Value names as they appear in files and on the command line (docs/scenario-format.md).
const char* toString(Mode v);
const char* toString(Precision v);
const char* toString(Optimizer v);
const char* toString(Checkpointing v);
const char* toString(InferenceWeights v);
const char* toString(QloraBase v);
const char* toString(FfnKind v);
const char* toString(NormKind v);
const char* toString(AttentionKind v);
const char* toString(AttentionBias v);
const char* toString(QkNorm v);
const char* toString(FineTune v);
const char* toString(LoraTargets v);
const char* toString(Offload v);
const char* toString(LossKind v);
const char* toString(Framework v);
const char* toString(FsdpRoot v);
const char* toString(LayerKind v);

std::optional<Mode> modeFromString(const std::string& s);
std::optional<Precision> precisionFromString(const std::string& s);
std::optional<Optimizer> optimizerFromString(const std::string& s);
std::optional<Checkpointing> checkpointingFromString(const std::string& s);
std::optional<InferenceWeights> inferenceWeightsFromString(const std::string& s);
std::optional<QloraBase> qloraBaseFromString(const std::string& s);
std::optional<FfnKind> ffnKindFromString(const std::string& s);
std::optional<NormKind> normKindFromString(const std::string& s);
std::optional<AttentionKind> attentionKindFromString(const std::string& s);
std::optional<AttentionBias> attentionBiasFromString(const std::string& s);
std::optional<QkNorm> qkNormFromString(const std::string& s);
std::optional<FineTune> fineTuneFromString(const std::string& s);
std::optional<LoraTargets> loraTargetsFromString(const std::string& s);
std::optional<Offload> offloadFromString(const std::string& s);
std::optional<LossKind> lossKindFromString(const std::string& s);
std::optional<Framework> frameworkFromString(const std::string& s);
std::optional<FsdpRoot> fsdpRootFromString(const std::string& s);

/// The accepted names of each enumeration, "a|b|c", for messages and --help.
std::string precisionNames();
std::string optimizerNames();
std::string checkpointingNames();
std::string modeNames();
std::string qloraBaseNames();
std::string inferenceWeightsNames();
std::string fineTuneNames();
std::string loraTargetsNames();
std::string offloadNames();
std::string lossKindNames();
std::string frameworkNames();
std::string fsdpRootNames();

} // namespace trainmem
