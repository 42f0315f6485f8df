#include "scenario.h"

#include "params.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace trainmem {
namespace {

template <typename E, size_t N> using Names = std::array<std::pair<E, const char*>, N>;

constexpr Names<Mode, 2> kModes{{{Mode::Training, "training"}, {Mode::Inference, "inference"}}};
constexpr Names<Precision, 5> kPrecisions{{{Precision::FP32, "fp32"},
                                           {Precision::BF16Mixed, "bf16-mixed"},
                                           {Precision::FP16Mixed, "fp16-mixed"},
                                           {Precision::BF16, "bf16"},
                                           {Precision::FP8Mixed, "fp8-mixed"}}};
constexpr Names<Optimizer, 8> kOptimizers{{{Optimizer::AdamW, "adamw"},
                                           {Optimizer::Adam, "adam"},
                                           {Optimizer::SGD, "sgd"},
                                           {Optimizer::SGDMomentum, "sgd-momentum"},
                                           {Optimizer::Lion, "lion"},
                                           {Optimizer::Adafactor, "adafactor"},
                                           {Optimizer::Adam8bit, "adam8bit"},
                                           {Optimizer::Muon, "muon"}}};
constexpr Names<Checkpointing, 4> kCheckpointing{{{Checkpointing::None, "none"},
                                                  {Checkpointing::Selective, "selective"},
                                                  {Checkpointing::Full, "full"},
                                                  {Checkpointing::PerOp, "per-op"}}};
constexpr Names<InferenceWeights, 5> kInferenceWeights{{{InferenceWeights::BF16, "bf16"},
                                                        {InferenceWeights::INT8, "int8"},
                                                        {InferenceWeights::INT4, "int4"},
                                                        {InferenceWeights::MXFP4, "mxfp4"},
                                                        {InferenceWeights::NVFP4, "nvfp4"}}};
constexpr Names<QloraBase, 3> kQloraBases{
    {{QloraBase::NF4, "nf4"}, {QloraBase::MXFP4, "mxfp4"}, {QloraBase::NVFP4, "nvfp4"}}};
constexpr Names<FfnKind, 2> kFfnKinds{{{FfnKind::Gelu, "gelu"}, {FfnKind::SwiGLU, "swiglu"}}};
constexpr Names<NormKind, 2> kNormKinds{{{NormKind::LayerNorm, "layernorm"}, {NormKind::RMSNorm, "rmsnorm"}}};
constexpr Names<AttentionKind, 3> kAttentionKinds{
    {{AttentionKind::MHA, "mha"}, {AttentionKind::GQA, "gqa"}, {AttentionKind::MLA, "mla"}}};
constexpr Names<AttentionBias, 3> kAttentionBiases{
    {{AttentionBias::None, "none"}, {AttentionBias::Qkv, "qkv"}, {AttentionBias::All, "all"}}};
constexpr Names<FineTune, 3> kFineTunes{
    {{FineTune::Full, "full"}, {FineTune::Lora, "lora"}, {FineTune::QLora, "qlora"}}};
constexpr Names<LoraTargets, 2> kLoraTargets{{{LoraTargets::Attention, "attn"}, {LoraTargets::All, "all"}}};
constexpr Names<Offload, 3> kOffloads{
    {{Offload::None, "none"}, {Offload::Optimizer, "optimizer"}, {Offload::OptimizerParams, "optimizer+params"}}};
constexpr Names<LossKind, 7> kLossKinds{{{LossKind::Eager, "eager"},
                                         {LossKind::Chunked, "chunked"},
                                         {LossKind::Fused, "fused"},
                                         {LossKind::VocabParallel, "vocab-parallel"},
                                         {LossKind::Chunked16, "chunked-16bit"},
                                         {LossKind::LossParallel, "loss-parallel"},
                                         {LossKind::ChunkedBackward, "chunked-backward"}}};
constexpr Names<Framework, 6> kFrameworks{{{Framework::Megatron, "megatron"},
                                           {Framework::DeepSpeed, "deepspeed"},
                                           {Framework::Torchtitan, "torchtitan"},
                                           {Framework::Torchtune, "torchtune"},
                                           {Framework::HF, "hf"},
                                           {Framework::LitGPT, "litgpt"}}};
constexpr Names<FsdpRoot, 3> kFsdpRoots{
    {{FsdpRoot::None, "none"}, {FsdpRoot::Head, "head"}, {FsdpRoot::EmbeddingsAndHead, "embeddings+head"}}};
constexpr Names<QkNorm, 3> kQkNorms{{{QkNorm::None, "none"}, {QkNorm::PerHead, "head"}, {QkNorm::Full, "full"}}};

template <typename E, size_t N> const char* nameOf(const Names<E, N>& names, E v)
{
    for (const auto& [e, n] : names)
        if (e == v)
            return n;
    return "?";
}

template <typename E, size_t N> std::optional<E> valueOf(const Names<E, N>& names, const std::string& s)
{
    for (const auto& [e, n] : names)
        if (s == n)
            return e;
    return std::nullopt;
}

template <typename E, size_t N> std::string joined(const Names<E, N>& names)
{
    std::string out;
    for (const auto& [e, n] : names) {
        if (!out.empty())
            out += '|';
        out += n;
    }
    return out;
}

} // namespace

const char* toString(Mode v)
{
    return nameOf(kModes, v);
}
const char* toString(Precision v)
{
    return nameOf(kPrecisions, v);
}
const char* toString(Optimizer v)
{
    return nameOf(kOptimizers, v);
}
const char* toString(Checkpointing v)
{
    return nameOf(kCheckpointing, v);
}
const char* toString(InferenceWeights v)
{
    return nameOf(kInferenceWeights, v);
}
const char* toString(QloraBase v)
{
    return nameOf(kQloraBases, v);
}
const char* toString(FfnKind v)
{
    return nameOf(kFfnKinds, v);
}
const char* toString(NormKind v)
{
    return nameOf(kNormKinds, v);
}
const char* toString(AttentionKind v)
{
    return nameOf(kAttentionKinds, v);
}
const char* toString(AttentionBias v)
{
    return nameOf(kAttentionBiases, v);
}
const char* toString(QkNorm v)
{
    return nameOf(kQkNorms, v);
}
const char* toString(FineTune v)
{
    return nameOf(kFineTunes, v);
}
const char* toString(LoraTargets v)
{
    return nameOf(kLoraTargets, v);
}
const char* toString(Offload v)
{
    return nameOf(kOffloads, v);
}
const char* toString(LossKind v)
{
    return nameOf(kLossKinds, v);
}
const char* toString(Framework v)
{
    return nameOf(kFrameworks, v);
}
const char* toString(LayerKind v)
{
    switch (v) {
    case LayerKind::Full:
        return "full";
    case LayerKind::Sliding:
        return "sliding";
    case LayerKind::Chunked:
        return "chunked";
    case LayerKind::Linear:
        return "linear";
    case LayerKind::Mamba:
        return "mamba";
    case LayerKind::None:
        return "none";
    }
    return "";
}

std::optional<Mode> modeFromString(const std::string& s)
{
    return valueOf(kModes, s);
}
std::optional<Precision> precisionFromString(const std::string& s)
{
    return valueOf(kPrecisions, s);
}
std::optional<Optimizer> optimizerFromString(const std::string& s)
{
    return valueOf(kOptimizers, s);
}
std::optional<Checkpointing> checkpointingFromString(const std::string& s)
{
    return valueOf(kCheckpointing, s);
}
std::optional<InferenceWeights> inferenceWeightsFromString(const std::string& s)
{
    return valueOf(kInferenceWeights, s);
}
std::optional<QloraBase> qloraBaseFromString(const std::string& s)
{
    return valueOf(kQloraBases, s);
}
std::optional<FfnKind> ffnKindFromString(const std::string& s)
{
    return valueOf(kFfnKinds, s);
}
std::optional<NormKind> normKindFromString(const std::string& s)
{
    return valueOf(kNormKinds, s);
}
std::optional<AttentionKind> attentionKindFromString(const std::string& s)
{
    return valueOf(kAttentionKinds, s);
}
std::optional<AttentionBias> attentionBiasFromString(const std::string& s)
{
    return valueOf(kAttentionBiases, s);
}
std::optional<QkNorm> qkNormFromString(const std::string& s)
{
    return valueOf(kQkNorms, s);
}
std::optional<FineTune> fineTuneFromString(const std::string& s)
{
    return valueOf(kFineTunes, s);
}
std::optional<LoraTargets> loraTargetsFromString(const std::string& s)
{
    return valueOf(kLoraTargets, s);
}
std::optional<Offload> offloadFromString(const std::string& s)
{
    return valueOf(kOffloads, s);
}
const char* toString(FsdpRoot v)
{
    return nameOf(kFsdpRoots, v);
}

std::optional<FsdpRoot> fsdpRootFromString(const std::string& s)
{
    return valueOf(kFsdpRoots, s);
}

std::optional<LossKind> lossKindFromString(const std::string& s)
{
    return valueOf(kLossKinds, s);
}
std::optional<Framework> frameworkFromString(const std::string& s)
{
    return valueOf(kFrameworks, s);
}

// Each framework's defaults, read from its code (docs/accounting.md, "Framework profiles"):
//  - Megatron-LM at d98e8a64ddf34856e74b24714e3bedb2f5a39553: language_module.py compute_language_model_loss calls
//    the vocab-parallel cross-entropy (tensor_parallel/cross_entropy.py, or fusions/fused_cross_entropy.py with
//    --cross-entropy-loss-fusion); nothing in megatron/ sets PYTORCH_CUDA_ALLOC_CONF
//    (distributed_data_parallel_config.py only reads it to warn about expandable segments).
//  - DeepSpeed at edaa7221267243c7be7fb49c5d5f5c4fb97b4641: runtime/engine.py DeepSpeedEngine.forward calls
//    self.module(*inputs, **kwargs), so the loss is the wrapped model's own; nothing in deepspeed/ sets
//    PYTORCH_CUDA_ALLOC_CONF (it is only mentioned in comments).
//  - torchtitan at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a: models/llama3/config_registry.py's llama3_8b,
//    llama3_70b and llama3_405b set loss=ChunkedLossWrapper.Config(loss_fn=CrossEntropyLoss.Config(…)), num_chunks 8
//    (components/loss.py): each chunk of tokens goes through the head and components/loss.py cross_entropy_loss
//    (cross_entropy(pred.float(), …); under tensor parallelism _LossParallelCrossEntropy on the V/t slice) and its
//    backward before the next chunk; run_train.sh launches with PYTORCH_ALLOC_CONF="expandable_segments:True".
//  - torchtune at bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1: the recipes' configs (llama3_2/3B_full_single_device.yaml,
//    llama2/7B_lora_single_device.yaml) use modules/loss/cross_entropy_loss.py LinearCrossEntropyLoss, 8 chunks;
//    torchtune/__init__.py sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True unless it is set.
//  - Hugging Face transformers at d0fed636753eeb35d790126c4496d06847983d60: loss/loss_utils.py ForCausalLMLoss upcasts
//    with logits.float() and calls nn.functional.cross_entropy; the library sets no allocator option.
// The recipes' defaults (issue 30 §4), read from each framework's code:
//  - torchtune at bd2a0fc: recipes/full_finetune_single_device.py reads enable_activation_offloading with
//    cfg.get(…, False) and takes compile and optimizer_in_bwd from the config, whose files set compile: False (all but
//    three of 177) and optimizer_in_bwd: False (64 of 83; the single-device full fine-tunes, such as
//    llama3_2/3B_full_single_device.yaml, set True); FSDP2's fully_shard keeps its default reshard_after_forward=True.
//  - torchtitan at b5bcd76: config/configs.py CompileConfig.enable = False and fsdp_reshard_after_forward = "default",
//    which distributed/fsdp.py get_fsdp_reshard_after_forward_policy resolves to `not pp_enabled`: resharded after
//    forward, kept gathered under pipeline parallelism.
//  - Megatron-LM, DeepSpeed and Hugging Face: no torch.compile of the model, no optimizer step in backward, no
//    activation offloading unless asked.
static FrameworkDefaults frameworkLossDefaults(Framework f);

FrameworkDefaults frameworkDefaults(Framework f)
{
    FrameworkDefaults d = frameworkLossDefaults(f);
    if (f == Framework::Torchtune)
        d.recipeSource = "torchtune bd2a0fc: recipes/full_finetune_single_device.py (enable_activation_offloading "
                         "defaults to False) and recipes/configs (compile: False, optimizer_in_bwd: False in most)";
    else if (f == Framework::Torchtitan)
        d.recipeSource = "torchtitan b5bcd76: config/configs.py (CompileConfig.enable = False, "
                         "fsdp_reshard_after_forward = \"default\": distributed/fsdp.py reshards unless pipeline "
                         "parallel)";
    else if (f == Framework::LitGPT) {
        // LitGPT's finetune scripts on more than one device: Lightning Fabric's FSDPStrategy (FSDP1, one unit per
        // Block, the model built on the meta device and each unit materialised and sharded in turn) and every
        // micro-batch but the last inside fabric.no_backward_sync (docs/accounting.md, "Sharding and the tax").
        d.fsdpFlatWrap = true;
        d.fsdpNoSync = true;
        d.recipeSource =
            "LitGPT 41dece2 / 58c5b18 / 8641822: litgpt/finetune/full.py and finetune/lora.py (FSDPStrategy "
            "with auto_wrap_policy={Block}; fabric.no_backward_sync(model, enabled=is_accumulating)); "
            "no torch.compile, optimizer step in backward or activation offloading";
    } else {
        d.recipeSource = "none of torch.compile, optimizer step in backward or activation offloading by default";
    }
    return d;
}

static FrameworkDefaults frameworkLossDefaults(Framework f)
{
    switch (f) {
    case Framework::Megatron:
        return {LossKind::VocabParallel, false,
                "Megatron-LM d98e8a6: language_module.py compute_language_model_loss (vocab-parallel cross-entropy); "
                "no PYTORCH_CUDA_ALLOC_CONF set"};
    case Framework::DeepSpeed:
        return {std::nullopt, false,
                "DeepSpeed edaa722: runtime/engine.py forward calls self.module (the loss is the model's own); no "
                "PYTORCH_CUDA_ALLOC_CONF set"};
    case Framework::Torchtitan:
        return {LossKind::ChunkedBackward, true,
                "torchtitan b5bcd76: models/llama3/config_registry.py (llama3_8b, llama3_70b, llama3_405b: "
                "ChunkedLossWrapper, 8 chunks, around components/loss.py cross_entropy_loss); run_train.sh sets "
                "expandable_segments:True"};
    case Framework::Torchtune:
        return {LossKind::Chunked, true,
                "torchtune bd2a0fc: recipe configs use LinearCrossEntropyLoss (8 chunks); torchtune/__init__.py sets "
                "expandable_segments:True"};
    case Framework::HF:
        return {LossKind::Eager, false,
                "transformers d0fed63: loss/loss_utils.py ForCausalLMLoss (logits.float(), then cross_entropy); no "
                "PYTORCH_CUDA_ALLOC_CONF set"};
    case Framework::LitGPT:
        return {LossKind::Chunked16, false,
                "LitGPT 43c4432: litgpt/finetune/lora.py (model(input_ids, lm_head_chunk_size=128), then "
                "chunked_cross_entropy in 128-token chunks, no fp32 upcast); no PYTORCH_CUDA_ALLOC_CONF set"};
    }
    return {};
}

std::optional<LossKind> effectiveLoss(const Scenario& s)
{
    if (s.training.loss)
        return s.training.loss;
    if (s.framework)
        return frameworkDefaults(*s.framework).loss;
    return std::nullopt;
}

namespace {
// A recipe switch as the scenario runs it: its own setting, else its framework's default (false without one).
bool setOrProfile(const std::optional<bool>& set, const Scenario& s, bool FrameworkDefaults::*byDefault)
{
    if (set)
        return *set;
    return s.framework && frameworkDefaults(*s.framework).*byDefault;
}
} // namespace

bool effectiveExpandableSegments(const Scenario& s)
{
    return setOrProfile(s.hardware.expandableSegments, s, &FrameworkDefaults::expandableSegments);
}

bool effectiveCompile(const Scenario& s)
{
    return setOrProfile(s.training.compile, s, &FrameworkDefaults::compile);
}

bool effectiveCompileLoss(const Scenario& s, LossKind loss)
{
    if (s.training.compileLoss)
        return *s.training.compileLoss;
    if (!effectiveCompile(s))
        return false;
    // torchtitan b5bcd76 components/loss.py BaseLoss._maybe_compile: torch.compile(self.fn) when compile is on and
    // "loss" is in compile.components (config/configs.py: ["model", "loss"] by default); e7c0cae's
    // build_cross_entropy_loss the same. torchtune 1814feb / bd2a0fc training/_compile.py compile_loss patches the
    // chunked loss's compute_cross_entropy in place but returns a compiled copy of any other loss, which
    // recipes/full_finetune_single_device.py:292 discards: its eager loss runs eager. LitGPT, Megatron-LM and
    // DeepSpeed compile no loss of their own; the chunked loss without a framework is torchtune's.
    if (s.framework == Framework::Torchtitan)
        return loss == LossKind::Eager || loss == LossKind::Chunked || loss == LossKind::ChunkedBackward;
    return loss == LossKind::Chunked;
}

bool effectiveOptimizerInBackward(const Scenario& s)
{
    return setOrProfile(s.training.optimizerInBackward, s, &FrameworkDefaults::optimizerInBackward);
}

bool effectiveActivationOffload(const Scenario& s)
{
    return setOrProfile(s.training.activationOffload, s, &FrameworkDefaults::activationOffload);
}

bool effectiveReshardAfterForward(const Scenario& s)
{
    if (s.hardware.reshardAfterForward)
        return *s.hardware.reshardAfterForward;
    // torchtitan's "default" policy keeps the weights gathered under pipeline parallelism (see frameworkDefaults).
    if (s.framework == Framework::Torchtitan)
        return s.hardware.pp <= 1;
    return !s.framework || frameworkDefaults(*s.framework).reshardAfterForward;
}

bool effectiveFsdpFlatWrap(const Scenario& s)
{
    return setOrProfile(s.hardware.fsdpFlatWrap, s, &FrameworkDefaults::fsdpFlatWrap);
}

FsdpRoot effectiveFsdpRoot(const Scenario& s)
{
    if (s.hardware.fsdpRoot)
        return *s.hardware.fsdpRoot;
    // torchtitan at b5bcd76 (distributed/fsdp.py apply_fsdp): [norm, lm_head] (a tied model's embeddings with them)
    // is one unit with reshard_after_forward = (policy == "always"). torchtune at bd2a0fc
    // (torchtune/training/_distributed.py shard_model): the layers (and the config's custom_sharded_layers) are
    // units, and fully_shard(model, reshard_after_forward=False) makes the root of the rest: embeddings, norm, head.
    if (s.framework == Framework::Torchtitan)
        return s.hardware.reshardAfterForward.value_or(false) ? FsdpRoot::None : FsdpRoot::Head;
    if (s.framework == Framework::Torchtune)
        return FsdpRoot::EmbeddingsAndHead;
    return FsdpRoot::None;
}

bool effectiveFsdpNoSync(const Scenario& s)
{
    if (s.hardware.fsdpNoSync)
        return *s.hardware.fsdpNoSync;
    return s.framework && frameworkDefaults(*s.framework).fsdpNoSync && s.training.fineTune != FineTune::QLora &&
           s.hardware.offload == Offload::None;
}

Scenario withGpuCount(Scenario s, int64_t gpus)
{
    s.hardware.gpus = std::clamp<int64_t>(gpus, 1, kMaxGpus);
    return withValidLayout(std::move(s));
}

std::optional<int64_t> gradAccumForGlobalBatch(const Scenario& s, int64_t sequences, std::string* why)
{
    const HardwareSetup& hw = s.hardware;
    auto fail = [&](const std::string& msg) -> std::optional<int64_t> {
        if (why)
            *why = msg;
        return std::nullopt;
    };
    // Context-parallel ranks share a sequence, so they add no data-parallel replica (Megatron-LM:
    // data_parallel_size = world / (tp · pp · cp)). Each degree is clamped, and the product is formed only
    // while it stays within the GPU count: three degrees of 2^22 multiply to 2^66, which wraps to 0 in int64.
    const int64_t gpus = hw.gpus;
    const int64_t degrees[] = {std::clamp<int64_t>(hw.tp, 1, kMaxGpus), std::clamp<int64_t>(hw.pp, 1, kMaxGpus),
                               std::clamp<int64_t>(hw.cp, 1, kMaxGpus)};
    int64_t mp = 1;
    for (const int64_t d : degrees) {
        if (d > gpus / mp)
            return fail("needs gpus to be a multiple of tp·pp·cp = " + std::to_string(degrees[0]) + "·" +
                        std::to_string(degrees[1]) + "·" + std::to_string(degrees[2]) +
                        ", which exceeds the GPU count (" + std::to_string(gpus) + ")");
        mp *= d;
    }
    const int64_t dp = gpus >= 1 && gpus % mp == 0 ? gpus / mp : 0;
    const int64_t per = std::clamp<int64_t>(s.training.microBatch, 1, kMaxMicroBatch) * dp;
    if (dp == 0)
        return fail("needs gpus to be a multiple of tp·pp·cp (" + std::to_string(mp) + "), got " +
                    std::to_string(gpus));
    if (sequences < 1 || sequences % per != 0)
        return fail("must be a multiple of micro_batch × data parallel = " + std::to_string(s.training.microBatch) +
                    " × " + std::to_string(dp) + " = " + std::to_string(per) + ", got " + std::to_string(sequences));
    if (sequences / per > 1'000'000)
        return fail("gives " + std::to_string(sequences / per) + " micro-batches per step; at most 1000000");
    return sequences / per;
}

int64_t modelLayers(const ModelSpec& m)
{
    if (m.hasArchitecture)
        return std::clamp<int64_t>(m.architecture.layers, 1, kMaxLayers);
    const int64_t total = std::clamp<int64_t>(m.params, 1, kMaxParams);
    const int64_t active = m.activeParams > 0 ? std::min(m.activeParams, total) : total;
    return shapeForSize(active).layers;
}

namespace {

// What an uneven split leaves for the stages whose layers are not given (get_num_layers_to_build's
// layers_to_distribute and pipeline_stages_left).
struct UnevenRest {
    int64_t layers = 0;
    int64_t stages = 0;
};

UnevenRest unevenRest(const PipelineSplit& split, int64_t L, int64_t p)
{
    return {L - split.firstLayers - split.lastLayers,
            p - (split.firstLayers > 0 ? 1 : 0) - (split.lastLayers > 0 ? 1 : 0)};
}

// The layers a split with the embedding and/or the loss shares out: they count as one layer each.
int64_t layersToSplit(const PipelineSplit& split, int64_t L)
{
    return L + (split.embedding ? 1 : 0) + (split.loss ? 1 : 0);
}

} // namespace

std::string setPipelineLayout(PipelineSplit& split, std::string_view text)
{
    if (text.empty()) {
        split.layout.clear();
        split.stages.clear();
        return {};
    }
    LayoutParse parsed = parsePipelineLayout(text);
    if (!parsed.error.empty())
        return parsed.error;
    split.layout = std::string(text);
    split.stages = std::move(parsed.stages);
    return {};
}

int64_t layersOnStage(const PipelineSplit& split, int64_t L, int64_t p, int64_t i)
{
    L = std::max<int64_t>(L, 1);
    p = std::max<int64_t>(p, 1);
    if (layoutVirtualStages(split.stages, p) > 0) {
        // PipelineParallelLayerLayout: rank i builds the decoders of stages i, i + p, i + 2p, …
        const auto stages = static_cast<int64_t>(split.stages.size());
        int64_t layers = 0;
        for (int64_t k = std::clamp<int64_t>(i, 0, p - 1); k < stages; k += p)
            layers += split.stages[static_cast<size_t>(k)].decoders;
        return layers;
    }
    if (p == 1)
        return L;
    const bool first = i == 0, last = i == p - 1;
    if (split.uneven()) {
        // get_num_layers_to_build: the given first (last) stage takes its layers, the other stages share the rest.
        if (first && split.firstLayers > 0)
            return split.firstLayers;
        if (last && split.lastLayers > 0)
            return split.lastLayers;
        const UnevenRest rest = unevenRest(split, L, p);
        return rest.stages > 0 ? std::max<int64_t>(rest.layers, 0) / rest.stages : 0;
    }
    // The embedding (loss) counts as one more layer to split, then the first (last) stage builds one layer less.
    int64_t layers = (layersToSplit(split, L) + p - 1) / p;
    if (first && split.embedding)
        --layers;
    if (last && split.loss)
        --layers;
    return std::max<int64_t>(layers, 0);
}

std::vector<int64_t> chunkLayersOnStage(const PipelineSplit& split, int64_t L, int64_t p, int64_t vpp, int64_t i)
{
    L = std::max<int64_t>(L, 1);
    p = std::max<int64_t>(p, 1);
    vpp = std::max<int64_t>(vpp, 1);
    i = std::clamp<int64_t>(i, 0, p - 1);
    std::vector<int64_t> chunks(static_cast<size_t>(vpp), 0);
    if (layoutVirtualStages(split.stages, p) == vpp) {
        for (int64_t c = 0; c < vpp; ++c)
            chunks[static_cast<size_t>(c)] = split.stages[static_cast<size_t>(c * p + i)].decoders;
        return chunks;
    }
    // get_num_layers_to_build: the rank's layers (before the embedding's and loss's room is taken) over its vpp
    // chunks, then one less on the first rank's first chunk (embedding) and the last rank's last chunk (loss).
    const bool embeddingRoom = !split.uneven() && split.embedding && i == 0;
    const bool lossRoom = !split.uneven() && split.loss && i == p - 1 && p > 1;
    const int64_t rank = layersOnStage(split, L, p, i) + (embeddingRoom ? 1 : 0) + (lossRoom ? 1 : 0);
    for (auto& c : chunks)
        c = rank / vpp;
    if (embeddingRoom)
        chunks.front() = std::max<int64_t>(chunks.front() - 1, 0);
    if (lossRoom)
        chunks.back() = std::max<int64_t>(chunks.back() - 1, 0);
    return chunks;
}

std::string pipelineSplitProblem(const PipelineSplit& split, int64_t L, int64_t p, int64_t vpp, int64_t mtpLayers)
{
    if (split.isDefault())
        return {};
    if (split.hasLayout()) {
        // transformer_config.py at d98e8a6: "pipeline_model_parallel_layout cannot be set with other pipeline
        // layout arguments".
        if (split.uneven() || split.embedding || split.loss)
            return "a pipeline layout cannot be combined with first/last stage layers or the embedding or loss in "
                   "the split (transformer_config.py raises on it)";
        return pipelineLayoutProblem(split.stages, L, mtpLayers, p, vpp);
    }
    if (p <= 1)
        return "needs pipeline parallelism (pp above 1)";
    if (split.uneven() && (split.embedding || split.loss))
        return "the first/last stage layers cannot be combined with the embedding or loss in the split "
               "(Megatron-LM's get_num_layers_to_build asserts it)";
    if (split.uneven()) {
        const auto [rest, stagesLeft] = unevenRest(split, L, p);
        if (rest < 0 || (stagesLeft == 0 && rest != 0))
            return "first " + std::to_string(split.firstLayers) + " + last " + std::to_string(split.lastLayers) +
                   " layers must " + (stagesLeft == 0 ? "equal" : "not exceed") + " the model's " + std::to_string(L) +
                   " layers";
        if (stagesLeft > 0 && (rest % stagesLeft != 0 || rest / stagesLeft < 1))
            return "leaves " + std::to_string(rest) + " layers for the other " + std::to_string(stagesLeft) +
                   " stages, which must be a positive multiple of them (Megatron-LM asserts the left over layers "
                   "divide the left over stages)";
    } else if (const int64_t n = layersToSplit(split, L); n % p != 0)
        return std::to_string(L) + " layers" + (split.embedding ? " + the embedding" : "") +
               (split.loss ? " + the loss" : "") + " = " + std::to_string(n) + " must divide by pp " +
               std::to_string(p) + " (Megatron-LM's arguments.py asserts it)";
    if (vpp > 1) {
        // get_num_layers_to_build: "num_layers_per_pipeline_rank … should be divisible by vp_size", and the
        // embedding's (loss's) room must leave the first (last) chunk at least nothing.
        for (int64_t i : {int64_t{0}, std::min<int64_t>(1, p - 1), p - 1}) {
            const int64_t rank = split.uneven() ? layersOnStage(split, L, p, i) : layersToSplit(split, L) / p;
            if (rank % vpp != 0)
                return std::to_string(rank) + " layers on pipeline rank " + std::to_string(i) + " must divide by vpp " +
                       std::to_string(vpp) + " (get_num_layers_to_build asserts it)";
            if (!split.uneven() && rank / vpp < 1)
                return "leaves no room for the " + std::string(split.embedding ? "embedding" : "loss") +
                       " in a virtual stage of " + std::to_string(rank / vpp) + " layers";
        }
    }
    return {};
}

const char* pipelineSplitField(const PipelineSplit& split)
{
    return split.hasLayout() ? "/hardware/pipeline_layout"
           : split.uneven()  ? (split.firstLayers > 0 ? "/hardware/first_stage_layers" : "/hardware/last_stage_layers")
           : split.embedding ? "/hardware/embedding_in_pipeline_split"
                             : "/hardware/loss_in_pipeline_split";
}

int64_t modelHeads(const ModelSpec& m)
{
    return m.hasArchitecture ? std::max<int64_t>(m.architecture.heads, 0) : 0;
}

int64_t modelKvHeads(const ModelSpec& m)
{
    if (!m.hasArchitecture || m.architecture.attention == AttentionKind::MLA)
        return 0;
    const int64_t kv = m.architecture.kvHeadsOrDefault();
    return kv > 0 && kv != m.architecture.heads ? kv : 0;
}

int64_t modelMtpLayers(const ModelSpec& m)
{
    return m.hasArchitecture ? std::max<int64_t>(m.architecture.mtpLayers, 0) : 0;
}

int64_t modelExperts(const ModelSpec& m)
{
    return m.hasArchitecture && m.architecture.isMoe() ? m.architecture.moe.experts : 0;
}

namespace {

// The largest divisor of n that is at most `limit` (n ≥ 1, limit ≥ 1): divisors come in pairs
// (d, n/d) with d ≤ √n, so √n steps find it; n ≤ kMaxGpus keeps this under 3200 steps.
int64_t largestDivisorAtMost(int64_t n, int64_t limit)
{
    if (n <= limit)
        return n;
    int64_t best = 1;
    for (int64_t d = 1; d * d <= n; ++d) {
        if (n % d != 0)
            continue;
        if (d <= limit)
            best = std::max(best, d);
        if (n / d <= limit)
            best = std::max(best, n / d);
    }
    return best;
}

} // namespace

int64_t maxPipelineStages(const PipelineSplit& split, int64_t L)
{
    // A layout's stages divide by pp; the embedding (loss) in the split is one more stage's worth; otherwise every
    // stage holds at least one layer.
    if (split.hasLayout())
        return std::max<int64_t>(static_cast<int64_t>(split.stages.size()), 1);
    if (split.uneven())
        return L;
    return layersToSplit(split, L);
}

HardwareSetup layoutWithin(HardwareSetup hw, int64_t layers, int64_t experts, int64_t heads, int64_t kvHeads)
{
    hw.gpus = std::clamp<int64_t>(hw.gpus, 1, kMaxGpus);
    // gcd keeps a degree where it still divides (tp 8 on 64 GPUs stays 8) and otherwise takes its
    // largest divisor that does (tp 8 on 12 GPUs becomes 4). Tensor parallelism splits whole attention heads.
    hw.tp = std::gcd(std::clamp<int64_t>(hw.tp, 1, kMaxGpus), hw.gpus);
    if (heads > 0)
        hw.tp = std::gcd(hw.tp, heads);
    // And whole query groups, or copies of them: the largest divisor of tp that divides them or that they divide.
    if (kvHeads > 0)
        for (int64_t d = hw.tp; d >= 1; --d)
            if (hw.tp % d == 0 && (kvHeads % d == 0 || d % kvHeads == 0)) {
                hw.tp = d;
                break;
            }
    // A pipeline stage holds at least one layer: pp ≤ L, and pp divides gpus/tp.
    hw.pp = largestDivisorAtMost(std::gcd(std::clamp<int64_t>(hw.pp, 1, kMaxGpus), hw.gpus / hw.tp),
                                 maxPipelineStages(hw.split, std::max<int64_t>(layers, 1)));
    // Context parallel splits what a tp·pp replica leaves: cp divides gpus/(tp·pp).
    hw.cp = std::gcd(std::clamp<int64_t>(hw.cp, 1, kMaxGpus), hw.gpus / (hw.tp * hw.pp));
    // Expert parallelism places whole experts: ep divides the experts (Megatron-LM asserts
    // num_experts % expert_model_parallel_size == 0) and the expert grid etp·ep·pp divides the GPUs
    // (world_size % (etp·ep·pp) == 0). An unset etp (tp) stays unset: tp·pp already divides them.
    if (experts > 0) {
        if (hw.etp > 0)
            hw.etp = std::gcd(std::clamp<int64_t>(hw.etp, 1, kMaxGpus), hw.gpus / hw.pp);
        const int64_t etp = hw.etpOrDefault();
        hw.ep = std::gcd(std::gcd(std::clamp<int64_t>(hw.ep, 1, kMaxGpus), experts), hw.gpus / (etp * hw.pp));
    } else {
        hw.ep = 1;
        hw.etp = 0;
    }
    // A virtual stage holds at least one layer, and there is none without a pipeline.
    hw.vpp = hw.pp > 1 ? std::clamp<int64_t>(hw.vpp, 1, std::max<int64_t>(1, std::max<int64_t>(layers, 1) / hw.pp)) : 1;
    return hw;
}

Scenario withValidLayout(Scenario s)
{
    const int64_t layers = modelLayers(s.model);
    s.hardware = layoutWithin(s.hardware, layers, modelExperts(s.model), modelHeads(s.model), modelKvHeads(s.model));
    // Megatron-LM splits each sequence into 2·cp chunks for load balance (arguments.py at d98e8a6 asserts
    // seq_length % (2 · context_parallel_size) == 0): cp keeps its largest divisor that allows it.
    const int64_t seq = std::clamp<int64_t>(s.training.seqLen, 1, kMaxSeq);
    // 2·cp divides seq exactly when cp divides seq/2, so the largest such divisor of cp is gcd(cp, seq/2).
    s.hardware.cp = seq % 2 == 0 ? std::gcd(s.hardware.cp, seq / 2) : 1;
    // An uneven split laid for another pipeline size no longer adds up: the stages share the layers evenly.
    if (!pipelineSplitProblem(s.hardware.split, layers, s.hardware.pp, s.hardware.vpp, modelMtpLayers(s.model)).empty())
        s.hardware.split = {};
    return s;
}

Scenario withValidOffload(Scenario s, bool raiseZero)
{
    HardwareSetup& hw = s.hardware;
    if (s.training.mode != Mode::Training || hw.offload == Offload::None)
        return s;
    const int needs = hw.offload == Offload::OptimizerParams ? 3 : 1;
    if (hw.zeroStage >= needs && hw.zeroStage <= 3)
        return s;
    if (raiseZero)
        hw.zeroStage = needs;
    else if (hw.zeroStage >= 1 && hw.zeroStage <= 3)
        hw.offload = Offload::Optimizer;
    else
        hw.offload = Offload::None;
    return s;
}

std::string precisionNames()
{
    return joined(kPrecisions);
}
std::string optimizerNames()
{
    return joined(kOptimizers);
}
std::string checkpointingNames()
{
    return joined(kCheckpointing);
}
std::string modeNames()
{
    return joined(kModes);
}
std::string inferenceWeightsNames()
{
    return joined(kInferenceWeights);
}
std::string qloraBaseNames()
{
    return joined(kQloraBases);
}
std::string fineTuneNames()
{
    return joined(kFineTunes);
}
std::string loraTargetsNames()
{
    return joined(kLoraTargets);
}
std::string offloadNames()
{
    return joined(kOffloads);
}
std::string lossKindNames()
{
    return joined(kLossKinds);
}
std::string frameworkNames()
{
    return joined(kFrameworks);
}
std::string fsdpRootNames()
{
    return joined(kFsdpRoots);
}

} // namespace trainmem
