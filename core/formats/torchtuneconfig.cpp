// The torchtune recipe config reader (trainconfig.h). Keys as torchtune's recipes read them, pytorch/torchtune at
// bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1: recipes/full_finetune_single_device.py, lora_finetune_single_device.py
// and their distributed versions (batch_size, gradient_accumulation_steps, dtype, enable_activation_checkpointing,
// enable_activation_offloading, compile, optimizer_in_bwd, fsdp_cpu_offload, fsdp_reshard_after_forward,
// custom_sharded_layers, optimizer, loss, tokenizer).
#include "confignode.h"
#include "trainconfig.h"

#include <map>

namespace trainmem {
namespace {

// Llama shapes, each the arguments of its builder in torchtune @ bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1:
//   torchtune/models/llama2/_model_builders.py     llama2_7b, llama2_13b, llama2_70b (and lora_/qlora_ of them):
//     vocab_size 32_000; llama2_7b leaves intermediate_dim to llama2/_model_utils.py scale_hidden_dim_for_mlp(4096)
//     = 256·⌈4·int(2·4096/3)/256⌉ = 11008; 7b and 13b have num_kv_heads = num_heads (MHA)
//   torchtune/models/llama3/_model_builders.py     llama3_8b, llama3_70b (and lora_/qlora_ of them)
//   torchtune/models/llama3_1/_model_builders.py   llama3_1_8b, llama3_1_70b, llama3_1_405b (and lora_/qlora_)
//   torchtune/models/llama3_2/_model_builders.py   llama3_2_1b, llama3_2_3b (and lora_/qlora_), whose
//     tie_word_embeddings defaults to True (llama3_2/_component_builders.py: output_proj = TiedLinear(tok_embeddings))
// Llama 3's: vocab_size 128_256, num_kv_heads 8. Every one: bias-free linears, RMSNorm, SwiGLU (FeedForward
// w1/w2/w3), head_dim = embed_dim // num_heads, RoPE (no learned positions).
Architecture llama(int64_t layers, int64_t hidden, int64_t heads, int64_t kvHeads, int64_t ffn, int64_t vocab,
                   bool tied)
{
    Architecture a;
    a.layers = layers;
    a.hidden = hidden;
    a.heads = heads;
    a.kvHeads = kvHeads;
    a.ffn = ffn;
    a.ffnKind = FfnKind::SwiGLU;
    a.vocab = vocab;
    a.tiedEmbeddings = tied;
    a.norm = NormKind::RMSNorm;
    a.attention = kvHeads == heads ? AttentionKind::MHA : AttentionKind::GQA;
    return a;
}

Architecture llama3(int64_t layers, int64_t hidden, int64_t heads, int64_t ffn, bool tied)
{
    return llama(layers, hidden, heads, 8, ffn, 128256, tied);
}

// Qwen2.5, torchtune/models/qwen2_5/_model_builders.py at the same commit (lora_ of each, no qlora_): the
// qwen2() of qwen2/_component_builders.py, whose q_proj, k_proj and v_proj have a bias (q/k/v_proj_bias default
// True) and output_proj none; RMSNorm, SwiGLU, head_dim = embed_dim // num_heads; 0.5B to 3B tie the embeddings.
// The _base and _instruct builders of one size have the same shape.
Architecture qwen25(int64_t layers, int64_t hidden, int64_t heads, int64_t kvHeads, int64_t ffn, bool small)
{
    Architecture a = llama(layers, hidden, heads, kvHeads, ffn, small ? 151936 : 152064, small);
    a.attentionBias = AttentionBias::Qkv;
    return a;
}

struct Builder {
    Architecture arch;
    bool tieable = false; ///< takes tie_word_embeddings (Llama 3.2)
    bool qlora = true;    ///< has a qlora_ builder
};

// The base builders by name; lora_<name> and qlora_<name> take the same shape.
const std::map<std::string, Builder>& baseBuilders()
{
    static const std::map<std::string, Builder> b{
        {"torchtune.models.llama2.llama2_7b", {llama(32, 4096, 32, 32, 11008, 32000, false)}},
        {"torchtune.models.llama2.llama2_13b", {llama(40, 5120, 40, 40, 13824, 32000, false)}},
        {"torchtune.models.llama2.llama2_70b", {llama(80, 8192, 64, 8, 28672, 32000, false)}},
        {"torchtune.models.llama3.llama3_8b", {llama3(32, 4096, 32, 14336, false)}},
        {"torchtune.models.llama3.llama3_70b", {llama3(80, 8192, 64, 28672, false)}},
        {"torchtune.models.llama3_1.llama3_1_8b", {llama3(32, 4096, 32, 14336, false)}},
        {"torchtune.models.llama3_1.llama3_1_70b", {llama3(80, 8192, 64, 28672, false)}},
        {"torchtune.models.llama3_1.llama3_1_405b", {llama3(126, 16384, 128, 53248, false)}},
        {"torchtune.models.llama3_2.llama3_2_1b", {llama3(16, 2048, 32, 8192, true), true}},
        {"torchtune.models.llama3_2.llama3_2_3b", {llama3(28, 3072, 24, 8192, true), true}},
        {"torchtune.models.qwen2_5.qwen2_5_0_5b", {qwen25(24, 896, 14, 2, 4864, true), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_1_5b_base", {qwen25(28, 1536, 12, 2, 8960, true), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_1_5b_instruct", {qwen25(28, 1536, 12, 2, 8960, true), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_3b", {qwen25(36, 2048, 16, 2, 11008, true), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_7b_base", {qwen25(28, 3584, 28, 4, 18944, false), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_7b_instruct", {qwen25(28, 3584, 28, 4, 18944, false), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_14b_base", {qwen25(48, 5120, 40, 8, 13824, false), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_14b_instruct", {qwen25(48, 5120, 40, 8, 13824, false), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_32b_base", {qwen25(64, 5120, 40, 8, 27648, false), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_32b_instruct", {qwen25(64, 5120, 40, 8, 27648, false), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_72b_base", {qwen25(80, 8192, 64, 8, 29568, false), false, false}},
        {"torchtune.models.qwen2_5.qwen2_5_72b_instruct", {qwen25(80, 8192, 64, 8, 29568, false), false, false}},
    };
    return b;
}

struct Found {
    const Builder* builder = nullptr;
    FineTune fineTune = FineTune::Full;
};

// "torchtune.models.llama3_1.qlora_llama3_1_8b" -> the llama3_1_8b shape, QLoRA.
Found findBuilder(const std::string& component)
{
    const size_t dot = component.rfind('.');
    if (dot == std::string::npos)
        return {};
    const std::string module = component.substr(0, dot + 1), name = component.substr(dot + 1);
    for (const auto& [prefix, tune] : {std::pair{"qlora_", FineTune::QLora}, std::pair{"lora_", FineTune::Lora}})
        if (name.rfind(prefix, 0) == 0) {
            const auto it = baseBuilders().find(module + name.substr(std::string(prefix).size()));
            const bool exists = it != baseBuilders().end() && (tune == FineTune::Lora || it->second.qlora);
            return exists ? Found{&it->second, tune} : Found{};
        }
    const auto it = baseBuilders().find(component);
    return it == baseBuilders().end() ? Found{} : Found{&it->second, FineTune::Full};
}

void readModel(ConfigMap& model, TrainingConfig& c)
{
    const std::optional<std::string> component = model.text("_component_");
    if (!component) {
        model.error("_component_", "is required: the model builder, e.g. torchtune.models.llama3_1.llama3_1_8b");
        return;
    }
    const Found found = findBuilder(*component);
    if (!found.builder) {
        std::string known;
        for (const std::string& b : torchtuneBuilders())
            known += (known.empty() ? "" : ", ") + b;
        model.error("_component_",
                    "names a model builder TrainMem cannot map: \"" + *component + "\" (known: " + known + ")");
        return;
    }
    c.modelName = *component;
    c.architecture = found.builder->arch;
    if (found.builder->tieable)
        c.architecture->tiedEmbeddings = model.flag("tie_word_embeddings").value_or(true);
    c.fineTune = found.fineTune;
    if (found.fineTune == FineTune::Full)
        return;
    // The LoRA builders' arguments (lora_llama3_1_8b and the others): lora_rank defaults to 8,
    // apply_lora_to_mlp and apply_lora_to_output to False, quantize_base to False (True in qlora_).
    if (model.flag("quantize_base").value_or(false))
        c.fineTune = FineTune::QLora;
    c.loraRank = model.integer("lora_rank", 1, kMaxLoraRank).value_or(8);
    const std::optional<std::vector<std::string>> attn = model.strings("lora_attn_modules");
    if (!attn)
        model.error("lora_attn_modules",
                    "is required by " + *component + ": a list of q_proj, k_proj, v_proj and output_proj");
    for (const std::string& m : attn.value_or(std::vector<std::string>{})) {
        if (m != "q_proj" && m != "k_proj" && m != "v_proj" && m != "output_proj") {
            model.error("lora_attn_modules", "names a projection TrainMem cannot map: \"" + m +
                                                 "\" (torchtune's are q_proj, k_proj, v_proj and output_proj)");
            return;
        }
        c.loraModules.insert(m);
    }
    const bool mlp = model.flag("apply_lora_to_mlp").value_or(false);
    if (mlp)
        c.loraModules.insert({"w1", "w2", "w3"});
    if (model.flag("apply_lora_to_output").value_or(false)) {
        if (c.architecture->tiedEmbeddings)
            model.error("apply_lora_to_output", "must be False with tied embeddings (torchtune refuses it: the "
                                                "output projection is the embedding)");
        c.loraModules.insert("output");
    }
    c.loraTargets = mlp ? LoraTargets::All : LoraTargets::Attention;
    if (model.flag("use_dora").value_or(false))
        c.notes.push_back("use_dora is read but not modelled: DoRA's magnitude vectors and its extra activations are "
                          "not counted");
}

// optimizer._component_ values that TrainMem's optimizers express, with what is not modelled of them.
void readOptimizer(ConfigMap& optimizer, TrainingConfig& c)
{
    const std::optional<std::string> component = optimizer.text("_component_");
    if (!component)
        return;
    static const std::map<std::string, std::pair<Optimizer, const char*>> known{
        {"torch.optim.AdamW", {Optimizer::AdamW, nullptr}},
        {"torch.optim.Adam", {Optimizer::Adam, nullptr}},
        {"torch.optim.SGD", {Optimizer::SGD, nullptr}},
        {"bitsandbytes.optim.AdamW8bit", {Optimizer::Adam8bit, nullptr}},
        {"bitsandbytes.optim.PagedAdamW8bit", {Optimizer::Adam8bit, "paged"}},
        {"bitsandbytes.optim.PagedAdamW", {Optimizer::AdamW, "paged"}},
        {"torchao.optim.AdamW8bit", {Optimizer::Adam8bit, nullptr}},
    };
    const auto it = known.find(*component);
    if (it == known.end()) {
        std::string names;
        for (const auto& [n, _] : known)
            names += (names.empty() ? "" : ", ") + n;
        optimizer.error("_component_",
                        "names an optimizer TrainMem cannot map: \"" + *component + "\" (known: " + names + ")");
        return;
    }
    c.optimizer = it->second.first;
    if (c.optimizer == Optimizer::SGD)
        if (const ConfigNode* momentum = optimizer.find("momentum");
            momentum && momentum->text != "0" && momentum->text != "0.0")
            c.optimizer = Optimizer::SGDMomentum;
    // A paged optimizer keeps its state in CUDA unified memory, counted in host memory as --optimizer
    // paged-adamw8bit counts it (docs/accounting.md, Recipes).
    c.pagedOptimizer = it->second.second != nullptr;
}

void readLoss(ConfigMap& loss, TrainingConfig& c)
{
    const std::optional<std::string> component = loss.text("_component_");
    if (!component)
        return;
    // torch.nn.CrossEntropyLoss on the model's output, which TransformerDecoder.unembed upcasts
    // (`self.output(h).float()`, torchtune/modules/transformer.py at bd2a0fc): the eager loss on fp32 logits.
    if (*component == "torch.nn.CrossEntropyLoss") {
        c.loss = LossKind::Eager;
        return;
    }
    // torchtune/modules/loss at bd2a0fc: LinearCrossEntropyLoss projects and upcasts the hidden states chunk by chunk
    // (num_output_chunks=8); CEWithChunkedOutputLoss takes the model's 8 chunks of logits: the chunked loss.
    if (*component == "torchtune.modules.loss.LinearCrossEntropyLoss" ||
        *component == "torchtune.modules.loss.CEWithChunkedOutputLoss") {
        c.loss = LossKind::Chunked;
        return;
    }
    loss.error("_component_",
               "names a loss TrainMem cannot map: \"" + *component +
                   "\" (known: torch.nn.CrossEntropyLoss, torchtune.modules.loss.LinearCrossEntropyLoss, "
                   "torchtune.modules.loss.CEWithChunkedOutputLoss)");
}

} // namespace

const std::vector<std::string>& torchtuneBuilders()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& [name, builder] : baseBuilders()) {
            const size_t dot = name.rfind('.') + 1;
            for (const char* prefix : {"", "lora_", "qlora_"})
                if (builder.qlora || prefix != std::string("qlora_"))
                    v.push_back(name.substr(0, dot) + prefix + name.substr(dot));
        }
        return v;
    }();
    return names;
}

namespace {

void readTorchtune(ConfigMap& top, TrainingConfig& c)
{
    ConfigMap model = top.map("model"), optimizer = top.map("optimizer"), loss = top.map("loss");
    ConfigMap tokenizer = top.map("tokenizer");
    if (!model.isMap())
        top.error("model", "is required: the model builder under model._component_");
    readModel(model, c);
    readOptimizer(optimizer, c);
    readLoss(loss, c);
    // A recipe config is run by torchtune's recipes: its profile (expandable segments, the chunked loss where the file
    // names none, the order of frees its peaks follow).
    c.framework = Framework::Torchtune;
    c.microBatch = top.integer("batch_size", 1, kMaxMicroBatch);
    c.gradAccum = top.integer("gradient_accumulation_steps", 1, 1'000'000);
    if (const std::optional<std::string> dtype = top.text("dtype")) {
        // torchtune trains in the dtype it names, weights, gradients and optimizer state alike (no fp32 master).
        if (*dtype == "bf16")
            c.precision = Precision::BF16;
        else if (*dtype == "fp32")
            c.precision = Precision::FP32;
        else
            top.error("dtype", "must be bf16 or fp32 (torchtune's recipes refuse fp16), got \"" + *dtype + "\"");
    }
    if (const std::optional<bool> ac = top.flag("enable_activation_checkpointing"))
        c.checkpointing = *ac ? Checkpointing::Full : Checkpointing::None; // each layer recomputed whole
    // The recipe switches the recipes read (torchtune bd2a0fc recipes/full_finetune_single_device.py: cfg.compile,
    // cfg.optimizer_in_bwd, cfg.get("enable_activation_offloading", False)), each modelled as its command-line option
    // is (docs/accounting.md, "Recipes").
    c.compile = top.flag("compile");
    c.optimizerInBackward = top.flag("optimizer_in_bwd");
    c.activationOffload = top.flag("enable_activation_offloading");
    if (const std::optional<bool> offload = top.flag("fsdp_cpu_offload")) {
        // Only the distributed recipes read it, and they shard with FSDP2's fully_shard: ZeRO-3.
        c.zeroStage = 3;
        if (*offload) {
            // FSDP2's CPUOffloadPolicy keeps parameters, gradients and the optimizer step on the host, a QLoRA
            // model's 4-bit base and adapters included.
            c.offload = Offload::OptimizerParams;
            c.notes.push_back("fsdp_cpu_offload is counted as ZeRO-3 optimizer+params offload");
        }
    }
    // The distributed recipes' sharding (torchtune bd2a0fc recipes/full_finetune_distributed.py and
    // lora_finetune_distributed.py: cfg.get("fsdp_reshard_after_forward", True), cfg.get("custom_sharded_layers")),
    // both FSDP2 (ZeRO-3). training/_distributed.py shard_model makes a unit of every layer and of each module named
    // in custom_sharded_layers, then fully_shard(model, reshard_after_forward=False): the root holds the rest, kept
    // gathered from forward to the end of backward (--fsdp-root).
    if (const std::optional<bool> reshard = top.flag("fsdp_reshard_after_forward")) {
        c.zeroStage = 3;
        c.reshardAfterForward = reshard;
    }
    if (const std::optional<std::vector<std::string>> custom = top.strings("custom_sharded_layers")) {
        c.zeroStage = 3;
        auto named = [&](const std::string& module) {
            for (const std::string& n : *custom) // "tok_embeddings", or a wrapper's "decoder.tok_embeddings"
                if (n == module || (n.size() > module.size() &&
                                    n.compare(n.size() - module.size() - 1, std::string::npos, "." + module) == 0))
                    return true;
            return false;
        };
        const bool tied = c.architecture && c.architecture->tiedEmbeddings;
        const bool embeddings = named("tok_embeddings"), head = named("output");
        // A tied head reads tok_embeddings' weight: sharding the embeddings takes it out of the root.
        if ((embeddings && head) || (embeddings && tied))
            c.fsdpRoot = FsdpRoot::None;
        else if (embeddings || head) {
            c.fsdpRoot = FsdpRoot::Head;
            if (head)
                c.notes.push_back("custom_sharded_layers shards the output head alone: the root keeps the "
                                  "embeddings, counted as the head's V·h");
        } else {
            c.fsdpRoot = FsdpRoot::EmbeddingsAndHead;
        }
    }
    c.seqLen = tokenizer.integer("max_seq_len", 1, kMaxSeq);
    if (const std::optional<int64_t> top_seq = top.integer("max_seq_len", 1, kMaxSeq))
        c.seqLen = top_seq;
    if (!c.seqLen)
        c.notes.push_back("no max_seq_len: samples are as long as the data makes them; the sequence length is left "
                          "as set");
    for (const ConfigMap* m : {&top, &model, &optimizer, &loss, &tokenizer})
        m->ignored(c.ignored);
}

} // namespace

TrainingConfig parseTorchtuneConfig(std::string_view text, const std::string& file)
{
    return readConfig(text, file, "--torchtune-config", false, readTorchtune);
}

} // namespace trainmem
