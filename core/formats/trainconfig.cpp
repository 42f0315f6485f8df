#include "trainconfig.h"

#include "confignode.h"
#include "lora.h"
#include "units.h"

#include <algorithm>
#include <type_traits>

namespace trainmem {
namespace {

// A field both files set: the YAML's wins; a different value is named in a note.
template <typename T, typename Show>
void mergeField(std::optional<T>& into, const std::optional<T>& ds, const char* what, const std::string& dsFile,
                std::vector<std::string>& notes, Show show)
{
    if (!ds)
        return;
    if (!into) {
        into = ds;
        return;
    }
    if (*into != *ds)
        notes.push_back(std::string(what) + ": the YAML's " + show(*into) + " is used, not " + dsFile + "'s " +
                        show(*ds));
}

std::string number(int64_t n)
{
    return groupDigits(static_cast<size_t>(n));
}

// TrainMem's two target sets in torchtune's projection names (lora.h: attn is q, k, v, o; all adds the MLP).
std::set<std::string> modelledModules(LoraTargets t)
{
    std::set<std::string> m{"q_proj", "k_proj", "v_proj", "output_proj"};
    if (t == LoraTargets::All)
        m.insert({"w1", "w2", "w3"});
    return m;
}

std::string joined(const std::set<std::string>& names)
{
    std::string out;
    for (const std::string& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

} // namespace

TrainingConfig readConfig(std::string_view text, const std::string& file, const char* format, bool json,
                          void (*read)(ConfigMap& top, TrainingConfig& c))
{
    TrainingConfig c;
    c.format = format;
    c.file = file;
    ConfigNode root;
    if (std::optional<FieldError> e = json ? loadJsonConfig(text, file, root) : loadYamlConfig(text, file, root)) {
        c.errors.push_back(std::move(*e));
        return c;
    }
    ConfigMap top(&root, "", file, c.errors);
    read(top, c);
    return c;
}

void mergeDeepSpeed(TrainingConfig& into, const TrainingConfig& ds)
{
    const std::string& f = ds.file;
    auto show = [](auto v) { return std::string(toString(v)); };
    auto showCount = [](int64_t v) { return number(v); };
    mergeField(into.precision, ds.precision, "precision", f, into.notes, show);
    mergeField(into.optimizer, ds.optimizer, "optimizer", f, into.notes, show);
    mergeField(into.microBatch, ds.microBatch, "micro-batch", f, into.notes, showCount);
    mergeField(into.gradAccum, ds.gradAccum, "gradient accumulation", f, into.notes, showCount);
    mergeField(into.globalBatch, ds.globalBatch, "train batch", f, into.notes, showCount);
    mergeField(into.zeroStage, ds.zeroStage, "ZeRO stage", f, into.notes, [](int v) { return std::to_string(v); });
    mergeField(into.offload, ds.offload, "offload", f, into.notes, show);
    for (const std::string& i : ds.ignored)
        into.ignored.push_back(f + ": " + i);
    for (const std::string& n : ds.notes)
        into.notes.push_back(f + ": " + n);
    into.errors.insert(into.errors.end(), ds.errors.begin(), ds.errors.end());
}

Scenario applyTrainingConfig(const Scenario& base, const TrainingConfig& c, bool keepModel)
{
    Scenario s = base;
    if (c.architecture && !keepModel) {
        s.model = ModelSpec{};
        s.model.hasArchitecture = true;
        s.model.architecture = *c.architecture;
    }
    const auto slash = c.file.find_last_of('/');
    s.id = "training-config";
    s.name = slash == std::string::npos ? c.file : c.file.substr(slash + 1);
    s.description = "Read from " + c.format + " " + c.file;
    s.source = c.file;
    TrainingSetup& t = s.training;
    t.mode = Mode::Training;
    t.precision = c.precision.value_or(t.precision);
    t.optimizer = c.optimizer.value_or(t.optimizer);
    t.seqLen = c.seqLen.value_or(t.seqLen);
    t.microBatch = c.microBatch.value_or(t.microBatch);
    t.gradAccum = c.gradAccum.value_or(t.gradAccum);
    t.checkpointing = c.checkpointing.value_or(t.checkpointing);
    t.flashAttention = c.flashAttention.value_or(t.flashAttention);
    t.fineTune = c.fineTune.value_or(t.fineTune);
    t.loraRank = c.loraRank.value_or(t.loraRank);
    t.loraTargets = c.loraTargets.value_or(t.loraTargets);
    t.loraModules = exactLoraModules(c).value_or(0);
    s.hardware.zeroStage = c.zeroStage.value_or(s.hardware.zeroStage);
    s.hardware.offload = c.offload.value_or(s.hardware.offload);
    if (c.compile)
        t.compile = c.compile;
    if (c.optimizerInBackward)
        t.optimizerInBackward = c.optimizerInBackward;
    if (c.activationOffload)
        t.activationOffload = c.activationOffload;
    if (c.pagedOptimizer)
        t.pagedOptimizer = true;
    if (c.loss)
        t.loss = c.loss;
    if (c.framework)
        s.framework = c.framework;
    if (c.expandableSegments)
        s.hardware.expandableSegments = c.expandableSegments;
    if (c.reshardAfterForward)
        s.hardware.reshardAfterForward = c.reshardAfterForward;
    if (c.fsdpRoot)
        s.hardware.fsdpRoot = c.fsdpRoot;
    // A new model may not take the old layout (experts, heads, layers): keep what still divides.
    return c.architecture && !keepModel ? withValidLayout(std::move(s)) : s;
}

std::optional<uint32_t> exactLoraModules(const TrainingConfig& c)
{
    // The file's projections in PEFT's names (lora.h) when they are not TrainMem's attn or all set: torchtune's
    // output_proj is o_proj, w1 gate_proj, w3 up_proj, w2 down_proj (torchtune models/llama3/_component_builders.py).
    // The output head ("output") has no PEFT module here: such a file keeps the nearest set and the note.
    if (c.loraModules.empty() || c.loraModules.count("output"))
        return std::nullopt;
    static const std::pair<const char*, const char*> kPeft[] = {
        {"q_proj", "q_proj"}, {"k_proj", "k_proj"}, {"v_proj", "v_proj"}, {"output_proj", "o_proj"},
        {"w1", "gate_proj"},  {"w3", "up_proj"},    {"w2", "down_proj"}};
    std::string list;
    for (const std::string& m : c.loraModules) {
        const auto it = std::find_if(std::begin(kPeft), std::end(kPeft), [&m](const auto& p) { return m == p.first; });
        if (it == std::end(kPeft))
            return std::nullopt;
        list += (list.empty() ? "" : ",") + std::string(it->second);
    }
    const std::optional<uint32_t> modules = loraModulesFromList(list, nullptr);
    if (!modules || *modules == loraModulesOf(LoraTargets::Attention) || *modules == loraModulesOf(LoraTargets::All))
        return std::nullopt; // the named set itself: nothing to say
    return modules;
}

std::optional<int64_t> fileLoraParams(const Architecture& a, int64_t rank, const std::set<std::string>& modules)
{
    if (modules.empty() || a.isMoe() || a.attention == AttentionKind::MLA || a.ffn <= 0 || a.layers <= 0)
        return std::nullopt;
    const int64_t h = a.hidden;
    // r·(d_in + d_out) per adapted linear (lora.h): torchtune's q_proj h→q, k_proj and v_proj h→kv,
    // output_proj q→h in each attention layer, in its kind's shape (a full layer of its own head size has its own
    // widths, and none where keys double as values has v_proj); w1 (gate) and w3 (up) h→f, w2 (down) f→h in each
    // layer with an FFN; the head h→V once.
    int64_t total = 0;
    for (const LayerKind kind : {LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked}) {
        const int64_t d = a.headDimOf(kind), q = a.heads * d, kv = a.kvHeadsOf(kind) * d;
        const std::pair<const char*, int64_t> attention[] = {{"q_proj", h + q},
                                                             {"k_proj", h + kv},
                                                             {"v_proj", a.keyIsValueIn(kind) ? 0 : h + kv},
                                                             {"output_proj", q + h}};
        for (const auto& [name, width] : attention)
            if (modules.count(name))
                total += a.layersOfKind(kind) * rank * width;
    }
    const std::pair<const char*, int64_t> mlp[] = {{"w1", h + a.ffn}, {"w2", a.ffn + h}, {"w3", h + a.ffn}};
    for (const auto& [name, width] : mlp)
        if (modules.count(name))
            total += a.ffnLayers() * rank * width;
    return total + (modules.count("output") ? rank * (h + a.vocab) : 0);
}

std::string loraTargetsNote(const Architecture& a, const TrainingConfig& c, const TrainingSetup& used)
{
    if (c.loraModules.empty() || !used.adapters() || used.loraModules != 0) // counted exactly (issue 30)
        return {};
    const std::set<std::string> modelled = modelledModules(used.loraTargets);
    if (modelled == c.loraModules)
        return {};
    std::string note = "LoRA on " + joined(c.loraModules) + " is read but not modelled: TrainMem adapts " +
                       (used.loraTargets == LoraTargets::All ? "q, k, v, o and the MLP" : "q, k, v and o");
    const std::optional<int64_t> file = fileLoraParams(a, used.loraRank, c.loraModules);
    if (file)
        note += " (" + number(loraParams(a, used.loraRank, used.loraTargets).total) + " trainable parameters at rank " +
                std::to_string(used.loraRank) + "; the file's projections have " + number(*file) + ")";
    return note;
}

std::vector<std::string> describeTrainingConfig(const TrainingConfig& c)
{
    std::vector<std::string> out;
    auto count = [](int64_t n) { return std::to_string(n); };
    if (!c.modelName.empty())
        out.push_back("model " + c.modelName);
    else if (!c.baseModel.empty())
        out.push_back("base model " + c.baseModel);
    if (c.precision)
        out.push_back(std::string("precision ") + toString(*c.precision));
    if (c.optimizer)
        out.push_back(std::string("optimizer ") + (c.pagedOptimizer ? "paged " : "") + toString(*c.optimizer));
    if (c.seqLen)
        out.push_back("sequence " + count(*c.seqLen));
    if (c.microBatch)
        out.push_back("micro-batch " + count(*c.microBatch));
    if (c.gradAccum)
        out.push_back("gradient accumulation " + count(*c.gradAccum));
    if (c.globalBatch)
        out.push_back("train batch " + count(*c.globalBatch));
    if (c.checkpointing)
        out.push_back(std::string("checkpointing ") + toString(*c.checkpointing));
    if (c.flashAttention)
        out.push_back(std::string("flash attention ") + (*c.flashAttention ? "on" : "off"));
    if (c.fineTune)
        out.push_back(std::string("fine-tune ") + toString(*c.fineTune));
    if (c.loraRank || !c.loraModules.empty()) {
        std::string t = "LoRA";
        if (c.loraRank)
            t += " rank " + count(*c.loraRank);
        if (!c.loraModules.empty()) {
            t += " on ";
            bool first = true;
            for (const std::string& m : c.loraModules) {
                t += (first ? "" : ", ") + m;
                first = false;
            }
        } else if (c.loraTargets) {
            t += std::string(" on ") + toString(*c.loraTargets);
        }
        out.push_back(t);
    }
    if (c.zeroStage)
        out.push_back("ZeRO stage " + std::to_string(*c.zeroStage));
    // A setting the file made: "label on|off" for a switch, "label name" for an enumeration.
    auto said = [&out](const char* label, const auto& v) {
        if (!v)
            return;
        if constexpr (std::is_same_v<std::decay_t<decltype(*v)>, bool>)
            out.push_back(std::string(label) + (*v ? " on" : " off"));
        else
            out.push_back(std::string(label) + " " + toString(*v));
    };
    said("offload", c.offload);
    said("torch.compile", c.compile);
    said("optimizer step in backward", c.optimizerInBackward);
    said("activation offloading", c.activationOffload);
    said("loss", c.loss);
    said("framework", c.framework);
    said("expandable segments", c.expandableSegments);
    said("reshard after forward", c.reshardAfterForward);
    said("FSDP root gathered", c.fsdpRoot);
    return out;
}

} // namespace trainmem
