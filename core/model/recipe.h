#pragma once
// Bytes of model state per parameter: precision recipe × optimizer (docs/accounting.md, "Model state"; Rajbhandari et
// al. 2020, §3).

#include "scenario.h"

namespace trainmem {

/// \brief Bytes per parameter of each model-state component.
struct StateRecipe {
    double weights = 0; ///< working copy used by forward/backward
    double gradients = 0;
    double master = 0;    ///< fp32 master copy kept by mixed precision
    double optimizer = 0; ///< all optimizer slots together
    int slotCount =
        0; ///< optimizer state tensors per parameter (Adafactor: 0, it is factored); not "slots", Qt's keyword macro
    double slotBytes = 0; ///< bytes of one slot element
    double total() const { return weights + gradients + master + optimizer; }
};

/// \brief Model-state bytes per parameter for training.
///  - bf16/fp16 mixed with Adam: 2 + 2 + 4 + 4 + 4 = 16 B (Rajbhandari et al. 2019, ZeRO, §3.1).
///  - fp8 mixed (DeepSeek-V3 report §3.3): bf16 working copy 2, fp32 gradients 4, fp32 master 4,
///    AdamW moments in bf16 (2 each).
///  - Adafactor (Shazeer & Stern 2018) keeps factored row/column statistics, about 2/h of a slot
///    per parameter for h×n matrices; `hidden` sets that fraction.
///  - 8-bit Adam (Dettmers et al. 2021) keeps each moment in 1 byte.
StateRecipe trainingRecipe(Precision p, Optimizer o, double hidden);

/// \brief How a served checkpoint stores the weights it quantises (docs/accounting.md, "Serving formats"). What it
/// does not quantise (embeddings, output head, norms, biases, routers) stays in 16 bits.
struct WeightFormat {
    double elementBits = 16;  ///< one stored weight
    double blockSize = 0;     ///< weights sharing one block's constants; 0: no blocks
    double blockBits = 0;     ///< the constants of one block (scale, and zero point)
    double rowBits = 0;       ///< a constant per output row of each matrix (LLM.int8()'s fp32 row scale)
    double tensorBytes = 0;   ///< a constant per quantised tensor (NVFP4's fp32 second-level scale)
    bool expertsOnly = false; ///< on a MoE model only the routed experts are quantised (gpt-oss's MXFP4)
    bool quantised() const { return elementBits < 16; }
    /// Bits per quantised weight, element and block constants: int4 4 + 20/128, MXFP4 4 + 8/32, NVFP4 4 + 8/16.
    double bitsPerWeight() const { return elementBits + (blockSize > 0 ? blockBits / blockSize : 0); }
};

/// \brief The storage of each serving format:
///  - bf16: 16 bits, nothing quantised.
///  - int8: 8 bits and one fp32 scale per output row (Dettmers et al. 2022, LLM.int8(), arXiv 2208.07339, §3.1
///    vector-wise quantisation; bitsandbytes' int8_vectorwise_quant returns int8 data and float32 row statistics).
///  - int4: 4 bits, and per group of 128 input weights of each output column an fp16 scale and a 4-bit zero point
///    (GPTQ/AWQ checkpoints: casper-hansen/AutoAWQ awq/modules/linear/gemm.py @
///    030fe2a15b959425d278de8121f03ed895e3b10c, WQLinear_GEMM's qweight int32 (in, out/8), qzeros int32 (in/g, out/8),
///    scales float16 (in/g, out)): 4 + (16 + 4)/128 = 4.15625 bits.
///  - MXFP4: E2M1 elements and one E8M0 scale per block of 32 (OCP Microscaling Formats (MX) Specification v1.0,
///    Sept. 2023, §5 and Table 1: MXFP4, k = 32, scale E8M0): 4 + 8/32 = 4.25 bits. On a MoE model only the routed
///    experts, as gpt-oss ships them (OpenAI, gpt-oss-120b & gpt-oss-20b Model Card, arXiv 2508.10925, §2.1:
///    "quantization of the MoE weights to MXFP4 format, where weights are quantized to 4.25 bits per parameter"; the
///    rest in bf16).
///  - NVFP4: E2M1 elements, one FP8 E4M3 scale per block of 16 and one fp32 scale per tensor (NVIDIA, "Introducing
///    NVFP4 for Efficient and Accurate Low-Precision Inference", NVIDIA Technical Blog, June 2025): 4 + 8/16 = 4.5
///    bits and 4 B a tensor.
WeightFormat weightFormat(InferenceWeights w);

/// \brief The serving format a QLoRA base is stored in (MXFP4, NVFP4; NF4 is bitsandbytes' own, not a serving format:
/// BF16 is returned for it and never used).
InferenceWeights qloraBaseFormat(QloraBase b);

/// \brief Bytes per quantised weight when serving, element and block constants: bf16 2, int8 1, int4 0.51953125,
/// mxfp4 0.53125, nvfp4 0.5625 (weightFormat(); per-row and per-tensor constants are counted by the weights term).
double inferenceWeightBytes(InferenceWeights w);

/// \brief Bytes of one activation element kept for backward (16-bit, fp32 for fp32 training).
double activationElementBytes(Precision p);

} // namespace trainmem
