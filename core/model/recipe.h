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

/// \brief Bytes per weight when serving: bf16 2, int8 1, int4 0.5.
double inferenceWeightBytes(InferenceWeights w);

/// \brief Bytes of one activation element kept for backward (16-bit, fp32 for fp32 training).
double activationElementBytes(Precision p);

} // namespace trainmem
