#pragma once
// Parameter counts from an architecture, and the shape rule that turns a bare size into one.

#include "scenario.h"

#include <algorithm>
#include <cstdint>

namespace trainmem {

/// \brief Parameters of a model, split the way sharding needs them.
struct ParamCount {
    int64_t total = 0;
    int64_t active = 0;        ///< touched per token (routed experts counted k of E)
    int64_t embedding = 0;     ///< token (+position) embedding and the output head
    int64_t routedExperts = 0; ///< the part expert parallelism divides
    /// The multi-token-prediction modules (Architecture::mtpLayers), not in total or active: the published
    /// counts (and transformers) leave them out; full training adds them on the last pipeline stage.
    int64_t mtp = 0;
    int64_t mtpRoutedExperts = 0; ///< their routed experts, divided by expert parallelism like the others
    /// A multimodal wrapper's vision tower and projector (Architecture::visionParams), not in total or active:
    /// weights in every mode, trained only in full training (frozen under LoRA/QLoRA).
    int64_t vision = 0;
    int64_t audio = 0; ///< the audio tower and projector (Architecture::audioParams), held and trained as `vision`
};

/// \brief A model ready for accounting: counts plus a shape for activations.
struct ResolvedModel {
    Architecture arch; ///< the preset's, or one made by shapeForSize()
    ParamCount params;
    bool fromSize = false;
};

/// Counting limits: beyond these the accounting would stop being meaningful (or exact in double).
inline constexpr int64_t kMaxParams = 1'000'000'000'000'000; // 10^15
inline constexpr int64_t kMaxLayers = 10'000;
inline constexpr int64_t kMaxHidden = 1'000'000;

/// \brief Counts parameters of an architecture (fields already validated and positive).
/// Conventions follow Hugging Face configs: embeddings included, tied embeddings counted once,
/// norms' weights (and biases for LayerNorm) included, router weights included.
ParamCount countParams(const Architecture& a);

/// \brief The documented shape rule for a size-only model (docs/accounting.md §Shape rule):
/// a Llama-style dense block with head_dim 128, h = 128·L, SwiGLU with f = 8h/3 rounded up to a
/// multiple of 128, vocab 32000, untied; L is the integer with 12·L·h² + 2·V·h closest to the
/// active parameter count. For 7B this gives L = 32, h = 4096, Llama 2 7B's shape.
Architecture shapeForSize(int64_t activeParams);

/// \brief The multi-token-prediction parameters scenario `s` trains: ParamCount::mtp in full training of an
/// architecture, else 0 (serving and LoRA/QLoRA drop the modules, as transformers does).
inline int64_t trainedMtpParams(const ResolvedModel& m, const Scenario& s)
{
    const bool full = s.training.mode == Mode::Training && !s.training.adapters();
    return full && !m.fromSize && m.arch.mtpLayers > 0 ? m.params.mtp : 0;
}

/// \brief The encoders' parameters scenario `s` holds weights for: the vision and audio towers of an architecture
/// (ParamCount::vision + audio; in every mode: serving reads them, LoRA/QLoRA keep them frozen), 0 for a size-only
/// model.
inline int64_t heldVisionParams(const ResolvedModel& m)
{
    return m.fromSize ? 0 : std::max<int64_t>(m.params.vision, 0) + std::max<int64_t>(m.params.audio, 0);
}

/// \brief The vision parameters scenario `s` trains (gradients, master copy, optimizer state): all of them in full
/// training, none under LoRA/QLoRA (the tower stays frozen, as PEFT's recipes for these models leave it) or serving.
inline int64_t trainedVisionParams(const ResolvedModel& m, const Scenario& s)
{
    const bool full = s.training.mode == Mode::Training && !s.training.adapters();
    return full ? heldVisionParams(m) : 0;
}

/// \brief Resolves counts and shape. Size-only models keep their given totals exactly; the shape
/// only drives activations, logits and workspace.
ResolvedModel resolveModel(const ModelSpec& m);

} // namespace trainmem
