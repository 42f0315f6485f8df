#pragma once
// Parameter-efficient fine-tuning: the trainable LoRA adapter parameters of an architecture and
// the linear weights QLoRA stores in 4-bit NF4 (docs/accounting.md, "Fine-tuning").

#include "scenario.h"

#include <cstdint>
#include <optional>
#include <string>

namespace trainmem {

/// \brief A count split the way sharding needs it: expert parallelism divides the routed experts' part.
struct LinearCount {
    int64_t total = 0;
    int64_t routedExperts = 0; ///< the part on routed experts' linears
};

/// \brief Trainable parameters LoRA adds: r·(d_in + d_out) for each adapted linear d_in → d_out
/// (Hu et al. 2021 §4.1: W + B·A with A r×d_in and B d_out×r; PEFT's lora_A = Linear(d_in, r,
/// bias=False), lora_B = Linear(r, d_out, bias=False), huggingface/peft
/// src/peft/tuners/lora/layer.py @ b28a09c4 LoraLayer.update_layer).
///  - attn: the attention projections, q, k, v and o (for MLA every projection: q_a, q_b or q,
///    kv_a_proj_with_mqa, kv_b, o).
///  - all: those and every MLP linear, gate, up and down of dense, shared and routed experts
///    (PEFT's "all-linear", which leaves out the output head: tuners_utils.py @ 831fd03e
///    _maybe_include_all_linear_layers). The MoE router stays untouched (h·E, under 0.1%).
/// q, k and v count as separate projections, as in Llama; a model that fuses them (GPT-2's c_attn)
/// has one adapter of r·(h + q + 2·kv) instead.
LinearCount loraParams(const Architecture& a, int64_t rank, LoraTargets targets);

/// \brief The projections LoRA can adapt, named as PEFT's target_modules names them on Llama-style models and
/// DeepSeek's MLA (issue 30 §2, --lora-targets q_proj,v_proj), as bits of TrainingSetup::loraModules. gate_proj,
/// up_proj and down_proj cover dense, shared and routed experts alike; a gelu MLP has up_proj and down_proj only.
enum LoraModule : uint32_t {
    kLoraQ = 1u << 0, ///< q_proj (MLA without a query rank too)
    kLoraK = 1u << 1,
    kLoraV = 1u << 2,
    kLoraO = 1u << 3,
    kLoraGate = 1u << 4,
    kLoraUp = 1u << 5,
    kLoraDown = 1u << 6,
    kLoraQA = 1u << 7,   ///< q_a_proj (MLA)
    kLoraQB = 1u << 8,   ///< q_b_proj (MLA)
    kLoraKvA = 1u << 9,  ///< kv_a_proj_with_mqa (MLA)
    kLoraKvB = 1u << 10, ///< kv_b_proj (MLA)
    /// Gated DeltaNet's projections (Qwen3-Next's linear-attention layers, modeling_qwen3_next.py): in all-linear,
    /// not in attn (PEFT's attention set is q, k, v, o).
    kLoraInProjQkvz = 1u << 11,
    kLoraInProjBa = 1u << 12,
    kLoraOutProj = 1u << 13, ///< Gated DeltaNet's and Mamba-2's out_proj
    kLoraInProj = 1u << 14,  ///< Mamba-2's in_proj (Nemotron-H)
    /// A latent MoE's projections into and out of the experts' latent width (Nemotron 3 Super's NemotronHMoE), plain
    /// nn.Linear modules that PEFT's all-linear adapts.
    kLoraFc1Latent = 1u << 15,
    kLoraFc2Latent = 1u << 16
};
/// \brief The modules of attn (every attention projection) and all (those and the MLP's).
uint32_t loraModulesOf(LoraTargets t);
/// \brief Reads "q_proj,v_proj" (commas, spaces allowed around them); nullopt with `why` naming the first unknown
/// module or an empty list.
std::optional<uint32_t> loraModulesFromList(const std::string& list, std::string* why);
/// \brief The modules as a list in the order of LoraModule: "q_proj,v_proj".
std::string loraModulesList(uint32_t modules);
/// \brief The accepted module names, "q_proj|k_proj|…", for messages.
std::string loraModuleNames();
/// \brief loraParams() of exactly the given modules: r·(d_in + d_out) for each adapted matrix.
LinearCount loraParams(const Architecture& a, int64_t rank, uint32_t modules);
/// \brief The adapter parameters of a training setup: its module list when it has one, else its loraTargets.
LinearCount loraParams(const Architecture& a, const TrainingSetup& t);

/// \brief The weights of every linear layer of the transformer blocks (routers included): what
/// QLoRA quantises to NF4. Embeddings, the output head, norms and biases stay in 16 bits
/// (transformers' bitsandbytes integration replaces nn.Linear modules and keeps the output head).
LinearCount linearWeights(const Architecture& a);

/// \brief The linears a quantised serving checkpoint stores in its 4- or 8-bit format, with what their constants
/// scale with: every linear of the blocks except the routers (and Qwen2-MoE's shared-expert gate), which GPTQ/AWQ,
/// NVIDIA's ModelOpt and gpt-oss keep in 16 bits like the embeddings, head, norms and biases; with `expertsOnly`
/// only the routed experts' (gpt-oss's MXFP4). `rows` sums each matrix's output rows, `tensors` counts the matrices
/// (one per expert).
struct QuantisedLinears {
    LinearCount weights;
    double rows = 0;
    double tensors = 0;
};
QuantisedLinears servedQuantisedLinears(const Architecture& a, bool expertsOnly);

/// QLoRA's storage (Dettmers et al. 2023, arXiv 2305.14314, §2 "Block-wise k-bit Quantization" and
/// §3 "4-bit NormalFloat", "Double Quantization"): 4-bit NF4 values in blocks of 64, one absmax
/// constant per block; double quantisation stores those constants in 8 bits with one fp32
/// constant per 256 of them, 8/64 + 32/(64·256) = 0.127 bit per parameter instead of 32/64 = 0.5.
inline constexpr double kNf4Bits = 4;
inline constexpr double kNf4BlockSize = 64;          ///< parameters per first-level block
inline constexpr double kNf4ConstantBits = 8;        ///< the double-quantised absmax
inline constexpr double kNf4SecondBlockSize = 256;   ///< first-level constants per second-level block
inline constexpr double kNf4SecondConstantBits = 32; ///< the fp32 second-level constant

/// \brief Bytes per NF4 parameter with double quantisation: (4 + 8/64 + 32/(64·256)) / 8 = 0.515869140625.
constexpr double nf4BytesPerParam()
{
    return (kNf4Bits + kNf4ConstantBits / kNf4BlockSize +
            kNf4SecondConstantBits / (kNf4BlockSize * kNf4SecondBlockSize)) /
           8;
}

} // namespace trainmem
