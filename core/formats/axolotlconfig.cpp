// The axolotl config reader (trainconfig.h). Keys as axolotl documents them, axolotl-ai-cloud/axolotl at
// 067b021c8b87a9e5e380b9173c704cf7340e30f5: docs/config-reference.qmd and src/axolotl/utils/schemas/ (adapter
// lora/qlora, load_in_4bit/8bit, lora_r, lora_target_modules, lora_target_linear, sequence_len, micro_batch_size,
// gradient_accumulation_steps, gradient_checkpointing, flash_attention and attn_implementation, bf16/fp16 with
// "auto", optimizer as transformers' OptimizerNames, fsdp with fsdp_config, deepspeed as a JSON path).
#include "confignode.h"
#include "trainconfig.h"

#include <algorithm>
#include <map>

namespace trainmem {
namespace {

struct OptimizerName {
    Optimizer optimizer;
    const char* note;   ///< what TrainMem does not model of it, or nullptr
    bool paged = false; ///< bitsandbytes' paged optimizers (transformers' OptimizerNames paged_*)
};

// transformers' OptimizerNames (training_args.py) that TrainMem's optimizers express.
const std::map<std::string, OptimizerName>& axolotlOptimizers()
{
    static const std::map<std::string, OptimizerName> names{
        {"adamw_torch", {Optimizer::AdamW, nullptr}},
        {"adamw_torch_fused", {Optimizer::AdamW, nullptr}},
        {"adamw_hf", {Optimizer::AdamW, nullptr}},
        {"adamw_apex_fused", {Optimizer::AdamW, nullptr}},
        {"adamw_anyprecision", {Optimizer::AdamW, nullptr}},
        {"adamw_bnb_8bit", {Optimizer::Adam8bit, nullptr}},
        {"adamw_8bit", {Optimizer::Adam8bit, nullptr}},
        {"paged_adamw_8bit", {Optimizer::Adam8bit, nullptr, true}},
        {"paged_adamw_32bit", {Optimizer::AdamW, nullptr, true}},
        {"paged_adamw", {Optimizer::AdamW, nullptr, true}},
        {"adafactor", {Optimizer::Adafactor, nullptr}},
        {"sgd", {Optimizer::SGD, nullptr}},
        {"lion_32bit", {Optimizer::Lion, nullptr}},
        {"paged_lion_32bit", {Optimizer::Lion, nullptr, true}},
        {"lion_8bit", {Optimizer::Lion, "an 8-bit Lion state is read but not modelled: counted as 16-bit Lion"}},
        {"paged_lion_8bit",
         {Optimizer::Lion, "an 8-bit Lion state is read but not modelled: counted as 16-bit Lion", true}},
    };
    return names;
}

// PEFT's module names in Llama-family models, in torchtune's names (trainconfig.h's loraModules).
const std::map<std::string, std::string>& projectionNames()
{
    static const std::map<std::string, std::string> names{
        {"q_proj", "q_proj"}, {"k_proj", "k_proj"}, {"v_proj", "v_proj"}, {"o_proj", "output_proj"},
        {"gate_proj", "w1"},  {"down_proj", "w2"},  {"up_proj", "w3"},    {"lm_head", "output"},
    };
    return names;
}

void readAdapter(ConfigMap& top, TrainingConfig& c)
{
    const std::optional<std::string> adapter = top.text("adapter");
    const bool in4 = top.flag("load_in_4bit").value_or(false), in8 = top.flag("load_in_8bit").value_or(false);
    if (adapter && *adapter != "lora" && *adapter != "qlora") {
        top.error("adapter",
                  "names an adapter TrainMem cannot map: \"" + *adapter + "\" (TrainMem maps lora and qlora)");
        return;
    }
    const std::optional<int64_t> rank = top.integer("lora_r", 1, kMaxLoraRank);
    const std::optional<bool> linear = top.flag("lora_target_linear");
    std::optional<std::vector<std::string>> modules = top.strings("lora_target_modules");
    if (top.find("lora_modules_to_save"))
        c.notes.push_back("lora_modules_to_save is read but not modelled: those modules train in full beside the "
                          "adapters, and TrainMem counts only the adapters");
    if (!adapter) {
        c.fineTune = FineTune::Full;
        if (rank || linear || modules)
            c.notes.push_back("lora_r and lora_target_* without an adapter are read but not used: a full fine-tune");
        if (in4 || in8)
            c.notes.push_back(std::string(in4 ? "load_in_4bit" : "load_in_8bit") +
                              " without an adapter is read but not modelled: counted as a full fine-tune");
        return;
    }
    c.fineTune = *adapter == "qlora" || in4 ? FineTune::QLora : FineTune::Lora;
    if (*adapter == "lora" && in4)
        c.notes.push_back("load_in_4bit with adapter lora: counted as QLoRA (adapters on a 4-bit NF4 base)");
    if (in8 && !in4)
        c.notes.push_back("load_in_8bit is read but not modelled: TrainMem has no 8-bit base; counted as LoRA on a "
                          "16-bit base");
    c.loraRank = rank;
    if (linear.value_or(false) || (modules && modules->size() == 1 && modules->front() == "all-linear")) {
        // PEFT's all-linear: every linear of the blocks, not the head (lora.h).
        c.loraTargets = LoraTargets::All;
        c.loraModules = {"q_proj", "k_proj", "v_proj", "output_proj", "w1", "w2", "w3"};
        return;
    }
    if (!modules)
        return;
    for (const std::string& m : *modules) {
        const auto it = projectionNames().find(m);
        if (it == projectionNames().end()) {
            top.error("lora_target_modules", "names a module TrainMem cannot map: \"" + m +
                                                 "\" (TrainMem maps q_proj, k_proj, v_proj, o_proj, gate_proj, "
                                                 "up_proj, down_proj, lm_head and all-linear)");
            return;
        }
        c.loraModules.insert(it->second);
    }
    const bool mlp = c.loraModules.count("w1") || c.loraModules.count("w2") || c.loraModules.count("w3");
    c.loraTargets = mlp ? LoraTargets::All : LoraTargets::Attention;
}

void readAttention(ConfigMap& top, TrainingConfig& c)
{
    for (const char* key : {"flash_attention", "sdp_attention", "xformers_attention"})
        if (const std::optional<bool> on = top.flag(key); on && (*on || !c.flashAttention))
            c.flashAttention = *on;
    if (const std::optional<std::string> impl = top.text("attn_implementation")) {
        // Every kernel but eager keeps only the softmax statistics, not the s² scores (docs/accounting.md).
        if (*impl == "eager")
            c.flashAttention = false;
        else if (*impl == "flash_attention_2" || *impl == "flash_attention_3" || *impl == "sdpa" ||
                 *impl == "flex_attention")
            c.flashAttention = true;
        else
            c.notes.push_back("attn_implementation \"" + *impl +
                              "\" is not one TrainMem knows: flash attention is "
                              "left as set");
    }
}

void readPrecision(ConfigMap& top, TrainingConfig& c)
{
    // axolotl's bf16: auto turns bf16 on where the GPU has it, which every GPU of the catalog does.
    const ConfigNode* bfNode = top.find("bf16");
    const bool bfAuto = bfNode && bfNode->kind == ConfigNode::Kind::Scalar && bfNode->text == "auto";
    const std::optional<bool> bf = bfAuto ? std::optional<bool>(true) : top.flag("bf16");
    const std::optional<bool> fp = top.flag("fp16");
    if (bf.value_or(false) && fp.value_or(false))
        top.error("fp16", "must not be true together with bf16");
    else if (bf.value_or(false))
        c.precision = Precision::BF16Mixed;
    else if (fp.value_or(false))
        c.precision = Precision::FP16Mixed;
    else if (bf || fp)
        c.precision = Precision::FP32;
}

void readSharding(ConfigMap& top, ConfigMap& fsdpConfig, TrainingConfig& c)
{
    std::optional<std::vector<std::string>> fsdp = top.strings("fsdp");
    // fsdp: "full_shard auto_wrap" is one string of words in older files.
    std::vector<std::string> words;
    if (fsdp)
        for (const std::string& item : *fsdp) {
            size_t at = 0;
            while (at < item.size()) {
                const size_t end = std::min(item.find(' ', at), item.size());
                if (end > at)
                    words.push_back(item.substr(at, end - at));
                at = end + 1;
            }
        }
    auto has = [&](const char* w) { return std::find(words.begin(), words.end(), w) != words.end(); };
    if (has("full_shard") || has("hybrid_shard"))
        c.zeroStage = 3;
    else if (has("shard_grad_op"))
        c.zeroStage = 2;
    if (has("hybrid_shard"))
        c.notes.push_back("hybrid_shard is read but not modelled: counted as FSDP full shard over every GPU");
    bool offload = has("offload");
    if (fsdpConfig.isMap()) {
        c.zeroStage = c.zeroStage.value_or(3); // fsdp_config alone turns FSDP on (FSDP2's full shard)
        for (const char* key : {"fsdp_offload_params", "offload_params"})
            offload = fsdpConfig.flag(key).value_or(offload);
        for (const char* key : {"fsdp_sharding_strategy", "sharding_strategy"})
            if (const std::optional<std::string> strategy = fsdpConfig.text(key)) {
                if (*strategy == "FULL_SHARD" || *strategy == "HYBRID_SHARD")
                    c.zeroStage = 3;
                else if (*strategy == "SHARD_GRAD_OP")
                    c.zeroStage = 2;
                else if (*strategy == "NO_SHARD")
                    c.zeroStage = 0;
                else
                    fsdpConfig.error(key, "must be FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD or NO_SHARD, got \"" +
                                              *strategy + "\"");
            }
        if (const std::optional<bool> reshard = fsdpConfig.flag("reshard_after_forward"); reshard && !*reshard)
            c.zeroStage = 2; // FSDP2 keeps the gathered weights after forward: ZeRO-2's shape
    }
    if (offload && c.zeroStage.value_or(0) == 3) {
        // FSDP's CPU offload moves parameters, gradients and optimizer state: ZeRO-3 optimizer+params offload, a
        // QLoRA model's 4-bit base and adapters included (docs/accounting.md, "QLoRA with the base offloaded").
        c.offload = Offload::OptimizerParams;
        c.notes.push_back("FSDP's CPU offload is counted as ZeRO-3 optimizer+params offload");
    } else if (offload) {
        c.notes.push_back("FSDP's CPU offload without full sharding is read but not modelled");
    }
}

// The loss and the kernels of axolotl's plugins (src/axolotl/integrations at 067b021c8b87a9e5e380b9173c704cf7340e30f5):
// the Liger plugin's fused linear cross-entropy is --loss fused (docs/accounting.md, "The loss as computed"); without
// it transformers' ForCausalLMLoss upcasts the logits (the hf profile's eager loss). A plugin's keys are read only when
// `plugins` lists it, as axolotl's PluginManager registers their argument classes.
void readPlugins(ConfigMap& top, TrainingConfig& c)
{
    constexpr const char* kLiger = "axolotl.integrations.liger.LigerPlugin";
    bool liger = false;
    for (const std::string& p : top.strings("plugins").value_or(std::vector<std::string>{})) {
        if (p == kLiger)
            liger = true;
        else
            c.notes.push_back("plugin " + p + " is read but not modelled");
    }
    const std::optional<bool> flce = top.flag("liger_fused_linear_cross_entropy");
    const std::optional<bool> ce = top.flag("liger_cross_entropy");
    if (!liger) {
        if (flce.value_or(false) || ce.value_or(false))
            c.notes.push_back(std::string("liger_* keys without ") + kLiger + " in plugins are not used");
        return;
    }
    if (flce.value_or(false))
        c.loss = LossKind::Fused;
    else if (ce.value_or(false))
        c.notes.push_back("liger_cross_entropy is read but not modelled: counted as transformers' eager loss");
    std::string kernels;
    for (const char* k : {"liger_rope", "liger_rms_norm", "liger_glu_activation", "liger_layer_norm"})
        if (top.flag(k).value_or(false))
            kernels += (kernels.empty() ? "" : ", ") + std::string(k);
    if (!kernels.empty())
        c.notes.push_back(kernels +
                          " read but not modelled: their fused kernels' tape is counted as the eager layer's");
}

void readAxolotl(ConfigMap& top, TrainingConfig& c)
{
    // axolotl trains with transformers' Trainer (AxolotlTrainer, src/axolotl/core/trainers/base.py): the hf profile.
    // Its entry points call set_pytorch_cuda_alloc_conf() (src/axolotl/utils/__init__.py at 067b021, since 8ddc18ec8),
    // which sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True under torch 2.2 and later unless it is set.
    c.framework = Framework::HF;
    c.expandableSegments = true;
    readPlugins(top, c);
    c.baseModel = top.text("base_model").value_or("");
    c.deepspeedPath = top.text("deepspeed").value_or("");
    readAdapter(top, c);
    c.seqLen = top.integer("sequence_len", 1, kMaxSeq);
    c.microBatch = top.integer("micro_batch_size", 1, kMaxMicroBatch);
    c.gradAccum = top.integer("gradient_accumulation_steps", 1, 1'000'000);
    if (const ConfigNode* gc = top.find("gradient_checkpointing")) {
        // true, false, or "offload" (axolotl's activation offloading with checkpointing).
        if (gc->kind == ConfigNode::Kind::Scalar && (gc->text == "offload" || gc->text == "offload_disk")) {
            c.checkpointing = Checkpointing::Full;
            c.notes.push_back("gradient_checkpointing: " + gc->text +
                              " is counted as full checkpointing; moving the checkpoints off the GPU is read but not "
                              "modelled");
        } else if (const std::optional<bool> on = top.flag("gradient_checkpointing")) {
            // transformers' gradient checkpointing keeps each decoder layer's input and recomputes the layer.
            c.checkpointing = *on ? Checkpointing::Full : Checkpointing::None;
        }
    }
    readAttention(top, c);
    readPrecision(top, c);
    if (const std::optional<std::string> name = top.text("optimizer")) {
        const auto it = axolotlOptimizers().find(*name);
        if (it == axolotlOptimizers().end()) {
            std::string known;
            for (const auto& [n, _] : axolotlOptimizers())
                known += (known.empty() ? "" : ", ") + n;
            top.error("optimizer", "names an optimizer TrainMem cannot map: \"" + *name + "\" (known: " + known + ")");
        } else {
            c.optimizer = it->second.optimizer;
            // A paged optimizer keeps its state in CUDA unified memory (bitsandbytes' paged_* classes, which
            // transformers' OptimizerNames name): counted in host memory, as --optimizer paged-adamw counts it
            // (docs/accounting.md, Recipes).
            c.pagedOptimizer = it->second.paged;
            if (it->second.note)
                c.notes.push_back(std::string("optimizer ") + *name + ": " + it->second.note);
        }
    }
    ConfigMap fsdpConfig = top.map("fsdp_config");
    readSharding(top, fsdpConfig, c);
    top.ignored(c.ignored);
    fsdpConfig.ignored(c.ignored);
}

} // namespace

TrainingConfig parseAxolotlConfig(std::string_view text, const std::string& file)
{
    return readConfig(text, file, "--axolotl-config", false, readAxolotl);
}

} // namespace trainmem
