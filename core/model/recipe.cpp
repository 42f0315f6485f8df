#include "recipe.h"

#include <algorithm>

namespace trainmem {

StateRecipe trainingRecipe(Precision p, Optimizer o, double hidden)
{
    StateRecipe r;
    switch (p) {
    case Precision::FP32:
        r.weights = 4;
        r.gradients = 4;
        r.master = 0;
        r.slotBytes = 4;
        break;
    case Precision::BF16Mixed:
    case Precision::FP16Mixed:
        r.weights = 2;
        r.gradients = 2;
        r.master = 4;
        r.slotBytes = 4;
        break;
    case Precision::BF16:
        r.weights = 2;
        r.gradients = 2;
        r.master = 0;
        r.slotBytes = 2;
        break;
    case Precision::FP8Mixed:
        r.weights = 2;
        r.gradients = 4;
        r.master = 4;
        r.slotBytes = 2;
        break;
    }
    switch (o) {
    case Optimizer::AdamW:
    case Optimizer::Adam:
        r.slotCount = 2;
        r.optimizer = 2 * r.slotBytes;
        break;
    case Optimizer::Lion:
    case Optimizer::SGDMomentum:
        r.slotCount = 1;
        r.optimizer = r.slotBytes;
        break;
    case Optimizer::SGD:
        r.slotCount = 0;
        r.optimizer = 0;
        break;
    case Optimizer::Adafactor:
        // Row + column statistics of an h×n matrix: (h + n) values for h·n weights ≈ 2/h per weight.
        r.slotCount = 0;
        r.optimizer = r.slotBytes * 2.0 / std::max(1.0, hidden);
        break;
    case Optimizer::Muon:
        // One momentum buffer per hidden matrix parameter (Moonlight, arXiv 2502.16982, Algorithm 1); the
        // embeddings, norms and head keep AdamW's two, which termContext() adds for the model's share of them.
        r.slotCount = 1;
        r.optimizer = r.slotBytes;
        break;
    case Optimizer::Adam8bit:
        r.slotCount = 2;
        r.slotBytes = 1;
        r.optimizer = 2;
        break;
    }
    return r;
}

InferenceWeights qloraBaseFormat(QloraBase b)
{
    switch (b) {
    case QloraBase::MXFP4:
        return InferenceWeights::MXFP4;
    case QloraBase::NVFP4:
        return InferenceWeights::NVFP4;
    case QloraBase::NF4:
        break;
    }
    return InferenceWeights::BF16;
}

WeightFormat weightFormat(InferenceWeights w)
{
    WeightFormat f;
    switch (w) {
    case InferenceWeights::BF16:
        break;
    case InferenceWeights::INT8:
        f.elementBits = 8;
        f.rowBits = 32;
        break;
    case InferenceWeights::INT4:
        f.elementBits = 4;
        f.blockSize = 128;
        f.blockBits = 16 + 4;
        break;
    case InferenceWeights::MXFP4:
        f.elementBits = 4;
        f.blockSize = 32;
        f.blockBits = 8;
        f.expertsOnly = true;
        break;
    case InferenceWeights::NVFP4:
        f.elementBits = 4;
        f.blockSize = 16;
        f.blockBits = 8;
        f.tensorBytes = 4;
        break;
    }
    return f;
}

double inferenceWeightBytes(InferenceWeights w)
{
    return weightFormat(w).bitsPerWeight() / 8;
}

double activationElementBytes(Precision p)
{
    return p == Precision::FP32 ? 4 : 2;
}

} // namespace trainmem
