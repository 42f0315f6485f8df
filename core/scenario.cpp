#include "scenario.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace trainmem {
namespace {

template <typename E, size_t N>
using Names = std::array<std::pair<E, const char*>, N>;

constexpr Names<Mode, 2> kModes{{{Mode::Training, "training"}, {Mode::Inference, "inference"}}};
constexpr Names<Precision, 5> kPrecisions{{{Precision::FP32, "fp32"},
                                           {Precision::BF16Mixed, "bf16-mixed"},
                                           {Precision::FP16Mixed, "fp16-mixed"},
                                           {Precision::BF16, "bf16"},
                                           {Precision::FP8Mixed, "fp8-mixed"}}};
constexpr Names<Optimizer, 7> kOptimizers{{{Optimizer::AdamW, "adamw"},
                                           {Optimizer::Adam, "adam"},
                                           {Optimizer::SGD, "sgd"},
                                           {Optimizer::SGDMomentum, "sgd-momentum"},
                                           {Optimizer::Lion, "lion"},
                                           {Optimizer::Adafactor, "adafactor"},
                                           {Optimizer::Adam8bit, "adam8bit"}}};
constexpr Names<Checkpointing, 3> kCheckpointing{{{Checkpointing::None, "none"},
                                                  {Checkpointing::Selective, "selective"},
                                                  {Checkpointing::Full, "full"}}};
constexpr Names<InferenceWeights, 3> kInferenceWeights{{{InferenceWeights::BF16, "bf16"},
                                                        {InferenceWeights::INT8, "int8"},
                                                        {InferenceWeights::INT4, "int4"}}};
constexpr Names<FfnKind, 2> kFfnKinds{{{FfnKind::Gelu, "gelu"}, {FfnKind::SwiGLU, "swiglu"}}};
constexpr Names<NormKind, 2> kNormKinds{{{NormKind::LayerNorm, "layernorm"}, {NormKind::RMSNorm, "rmsnorm"}}};
constexpr Names<AttentionKind, 3> kAttentionKinds{
    {{AttentionKind::MHA, "mha"}, {AttentionKind::GQA, "gqa"}, {AttentionKind::MLA, "mla"}}};
constexpr Names<AttentionBias, 3> kAttentionBiases{
    {{AttentionBias::None, "none"}, {AttentionBias::Qkv, "qkv"}, {AttentionBias::All, "all"}}};
constexpr Names<FineTune, 3> kFineTunes{{{FineTune::Full, "full"}, {FineTune::Lora, "lora"}, {FineTune::QLora, "qlora"}}};
constexpr Names<LoraTargets, 2> kLoraTargets{{{LoraTargets::Attention, "attn"}, {LoraTargets::All, "all"}}};
constexpr Names<QkNorm, 3> kQkNorms{{{QkNorm::None, "none"}, {QkNorm::PerHead, "head"}, {QkNorm::Full, "full"}}};

template <typename E, size_t N>
const char* nameOf(const Names<E, N>& names, E v)
{
    for (const auto& [e, n] : names)
        if (e == v)
            return n;
    return "?";
}

template <typename E, size_t N>
std::optional<E> valueOf(const Names<E, N>& names, const std::string& s)
{
    for (const auto& [e, n] : names)
        if (s == n)
            return e;
    return std::nullopt;
}

template <typename E, size_t N>
std::string joined(const Names<E, N>& names)
{
    std::string out;
    for (const auto& [e, n] : names) {
        if (!out.empty())
            out += '|';
        out += n;
    }
    return out;
}

}  // namespace

const char* toString(Mode v) { return nameOf(kModes, v); }
const char* toString(Precision v) { return nameOf(kPrecisions, v); }
const char* toString(Optimizer v) { return nameOf(kOptimizers, v); }
const char* toString(Checkpointing v) { return nameOf(kCheckpointing, v); }
const char* toString(InferenceWeights v) { return nameOf(kInferenceWeights, v); }
const char* toString(FfnKind v) { return nameOf(kFfnKinds, v); }
const char* toString(NormKind v) { return nameOf(kNormKinds, v); }
const char* toString(AttentionKind v) { return nameOf(kAttentionKinds, v); }
const char* toString(AttentionBias v) { return nameOf(kAttentionBiases, v); }
const char* toString(QkNorm v) { return nameOf(kQkNorms, v); }
const char* toString(FineTune v) { return nameOf(kFineTunes, v); }
const char* toString(LoraTargets v) { return nameOf(kLoraTargets, v); }

std::optional<Mode> modeFromString(const std::string& s) { return valueOf(kModes, s); }
std::optional<Precision> precisionFromString(const std::string& s) { return valueOf(kPrecisions, s); }
std::optional<Optimizer> optimizerFromString(const std::string& s) { return valueOf(kOptimizers, s); }
std::optional<Checkpointing> checkpointingFromString(const std::string& s) { return valueOf(kCheckpointing, s); }
std::optional<InferenceWeights> inferenceWeightsFromString(const std::string& s) { return valueOf(kInferenceWeights, s); }
std::optional<FfnKind> ffnKindFromString(const std::string& s) { return valueOf(kFfnKinds, s); }
std::optional<NormKind> normKindFromString(const std::string& s) { return valueOf(kNormKinds, s); }
std::optional<AttentionKind> attentionKindFromString(const std::string& s) { return valueOf(kAttentionKinds, s); }
std::optional<AttentionBias> attentionBiasFromString(const std::string& s) { return valueOf(kAttentionBiases, s); }
std::optional<QkNorm> qkNormFromString(const std::string& s) { return valueOf(kQkNorms, s); }
std::optional<FineTune> fineTuneFromString(const std::string& s) { return valueOf(kFineTunes, s); }
std::optional<LoraTargets> loraTargetsFromString(const std::string& s) { return valueOf(kLoraTargets, s); }

Scenario withGpuCount(Scenario s, int64_t gpus)
{
    HardwareSetup& hw = s.hardware;
    hw.gpus = std::clamp<int64_t>(gpus, 1, kMaxGpus);
    // gcd keeps a degree where it still divides the count (tp 8 on 64 GPUs stays 8) and otherwise
    // takes its largest divisor that does (tp 8 on 12 GPUs becomes 4), so gpus % (tp·pp) == 0 holds.
    hw.tp = std::gcd(std::clamp<int64_t>(hw.tp, 1, kMaxGpus), hw.gpus);
    hw.pp = std::gcd(std::clamp<int64_t>(hw.pp, 1, kMaxGpus), hw.gpus / hw.tp);
    hw.ep = std::clamp<int64_t>(hw.ep, 1, hw.gpus);
    return s;
}

std::string precisionNames() { return joined(kPrecisions); }
std::string optimizerNames() { return joined(kOptimizers); }
std::string checkpointingNames() { return joined(kCheckpointing); }
std::string modeNames() { return joined(kModes); }
std::string inferenceWeightsNames() { return joined(kInferenceWeights); }
std::string fineTuneNames() { return joined(kFineTunes); }
std::string loraTargetsNames() { return joined(kLoraTargets); }

}  // namespace trainmem
