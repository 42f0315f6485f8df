#include "megatronargs.h"

#include "accounting.h"
#include "params.h"
#include "peers.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <map>

namespace trainmem {

// ---------------------------------------------------------------------------------------------
// Derived values (arguments.py at d98e8a64).

int64_t MegatronArgs::ffn() const
{
    if (ffnHiddenSize)
        return *ffnHiddenSize;
    // arguments.py: int((4 * hidden_size * 2 / 3) / 64) * 64 with --swiglu, else 4 * hidden_size.
    if (swiglu)
        return static_cast<int64_t>((4.0 * static_cast<double>(hiddenSize) * 2 / 3) / 64) * 64;
    return 4 * hiddenSize;
}

int64_t MegatronArgs::kvChannelsOrDefault() const
{
    if (kvChannels)
        return *kvChannels;
    return numAttentionHeads > 0 ? hiddenSize / numAttentionHeads : 0;
}

int64_t MegatronArgs::queryGroups() const
{
    return groupQueryAttention ? numQueryGroups : numAttentionHeads;
}

int64_t MegatronArgs::paddedVocab() const
{
    if (paddedVocabSize)
        return *paddedVocabSize;
    const int64_t multiple = std::max<int64_t>(1, makeVocabSizeDivisibleBy * tensorModelParallelSize);
    const int64_t v = vocabSize.value_or(0);
    return (v + multiple - 1) / multiple * multiple;
}

int64_t MegatronArgs::expertTensorParallel() const
{
    return expertTensorParallelSize.value_or(tensorModelParallelSize);
}

std::optional<int64_t> MegatronArgs::virtualPipeline() const
{
    std::optional<int64_t> v;
    if (const int64_t stages = layoutVirtualStages(pipelineSplit.stages, pipelineModelParallelSize); stages > 0)
        v = stages; // arguments.py: the layout's stages over pp
    else if (numLayersPerVirtualPipelineStage && *numLayersPerVirtualPipelineStage > 0 && pipelineModelParallelSize > 0)
        v = numLayers / pipelineModelParallelSize / *numLayersPerVirtualPipelineStage;
    else if (virtualPipelineModelParallelSize)
        v = virtualPipelineModelParallelSize;
    if (v && *v == 1)
        v.reset(); // arguments.py: "if args.virtual_pipeline_model_parallel_size == 1: ... = None"
    return v;
}

int64_t MegatronArgs::dataParallel() const
{
    const int64_t mp = tensorModelParallelSize * pipelineModelParallelSize * contextParallelSize;
    return mp > 0 ? std::max<int64_t>(1, worldSize / mp) : 1;
}

int64_t MegatronArgs::expertDataParallel() const
{
    const int64_t mp = expertTensorParallel() * expertModelParallelSize * pipelineModelParallelSize;
    return mp > 0 ? std::max<int64_t>(1, worldSize / mp) : 1;
}

int64_t MegatronArgs::numMicrobatches() const
{
    const int64_t per = microBatchSize * dataParallel();
    if (!globalBatchSize || per <= 0)
        return 1;
    return std::max<int64_t>(1, *globalBatchSize / per);
}

int64_t MegatronArgs::moeFfn() const
{
    return moeFfnHiddenSize.value_or(ffn());
}

std::vector<int> MegatronArgs::layerPattern() const
{
    std::vector<int> p(static_cast<size_t>(std::max<int64_t>(numLayers, 0)), 0);
    if (!numExperts)
        return p;
    if (!moeLayerPattern.empty())
        return moeLayerPattern;
    // theoretical_memory_usage.py: 1 if (i % moe_layer_freq == 0) else 0.
    for (size_t i = 0; i < p.size(); ++i)
        p[i] = moeLayerFreq > 0 && static_cast<int64_t>(i) % moeLayerFreq == 0 ? 1 : 0;
    return p;
}

// ---------------------------------------------------------------------------------------------
// Flags.

namespace {

std::optional<int64_t> parseInt(const std::string& v)
{
    int64_t n = 0;
    const char* end = v.data() + v.size();
    const auto [ptr, ec] = std::from_chars(v.data(), end, n);
    if (ec != std::errc() || ptr != end || v.empty())
        return std::nullopt;
    return n;
}

std::optional<double> parseFloat(const std::string& v)
{
    try {
        size_t used = 0;
        const double d = std::stod(v, &used);
        if (used != v.size() || !std::isfinite(d))
            return std::nullopt;
        return d;
    } catch (...) {
        return std::nullopt;
    }
}

std::string shown(const std::string& v)
{
    std::string out = "\"" + v + "\"";
    if (v.find('$') != std::string::npos)
        out += " (a shell variable the pasted text does not set)";
    return out;
}

class FlagReader
{
public:
    FlagReader(MegatronParse& out, std::string source) : m_out(out), m_source(std::move(source))
    {
        MegatronArgs& a = m_out.args;
        // Integers, with the smallest value Megatron accepts and a ceiling that keeps the
        // arithmetic exact in double.
        intFlag("--num-layers", 1, kMaxLayers, [&a](int64_t n) { a.numLayers = n; });
        intFlag("--hidden-size", 1, kMaxHidden, [&a](int64_t n) { a.hiddenSize = n; });
        intFlag("--ffn-hidden-size", 1, 64 * kMaxHidden, [&a](int64_t n) { a.ffnHiddenSize = n; });
        intFlag("--num-attention-heads", 1, kMaxHidden, [&a](int64_t n) { a.numAttentionHeads = n; });
        intFlag("--kv-channels", 1, kMaxHidden, [&a](int64_t n) { a.kvChannels = n; });
        intFlag("--num-query-groups", 1, kMaxHidden, [&a](int64_t n) { a.numQueryGroups = n; });
        intFlag("--vocab-size", 1, 100'000'000, [&a](int64_t n) { a.vocabSize = n; });
        intFlag("--padded-vocab-size", 1, 100'000'000, [&a](int64_t n) { a.paddedVocabSize = n; });
        intFlag("--make-vocab-size-divisible-by", 1, 1'000'000, [&a](int64_t n) { a.makeVocabSizeDivisibleBy = n; });
        intFlag("--max-position-embeddings", 1, kMaxSeq, [&a](int64_t n) { a.maxPositionEmbeddings = n; });
        intFlag("--num-experts", 1, 100'000, [&a](int64_t n) { a.numExperts = n; });
        intFlag("--moe-ffn-hidden-size", 1, 64 * kMaxHidden, [&a](int64_t n) { a.moeFfnHiddenSize = n; });
        intFlag("--moe-router-topk", 1, 100'000, [&a](int64_t n) { a.moeRouterTopk = n; });
        intFlag("--moe-shared-expert-intermediate-size", 1, 64 * kMaxHidden,
                [&a](int64_t n) { a.moeSharedExpertIntermediateSize = n; });
        intFlag("--moe-latent-size", 1, kMaxHidden, [&a](int64_t n) { a.moeLatentSize = n; });
        intFlag("--q-lora-rank", 1, kMaxHidden, [&a](int64_t n) { a.qLoraRank = n; });
        intFlag("--kv-lora-rank", 1, kMaxHidden, [&a](int64_t n) { a.kvLoraRank = n; });
        intFlag("--qk-head-dim", 1, kMaxHidden, [&a](int64_t n) { a.qkHeadDim = n; });
        intFlag("--qk-pos-emb-head-dim", 0, kMaxHidden, [&a](int64_t n) { a.qkPosEmbHeadDim = n; });
        intFlag("--v-head-dim", 1, kMaxHidden, [&a](int64_t n) { a.vHeadDim = n; });
        intFlag("--mtp-num-layers", 0, kMaxLayers, [&a](int64_t n) { a.mtpNumLayers = n; });
        intFlag("--seq-length", 1, kMaxSeq, [&a](int64_t n) { a.seqLength = n; });
        intFlag("--micro-batch-size", 1, kMaxMicroBatch, [&a](int64_t n) { a.microBatchSize = n; });
        intFlag("--global-batch-size", 1, 1'000'000'000, [&a](int64_t n) { a.globalBatchSize = n; });
        intFlag("--tensor-model-parallel-size", 1, kMaxGpus, [&a](int64_t n) { a.tensorModelParallelSize = n; });
        intFlag("--pipeline-model-parallel-size", 1, kMaxGpus, [&a](int64_t n) { a.pipelineModelParallelSize = n; });
        intFlag("--context-parallel-size", 1, kMaxGpus, [&a](int64_t n) { a.contextParallelSize = n; });
        intFlag("--virtual-pipeline-model-parallel-size", 1, kMaxLayers, [this, &a](int64_t n) {
            a.virtualPipelineModelParallelSize = n;
            m_virtualFlag = "--virtual-pipeline-model-parallel-size";
        });
        intFlag("--num-virtual-stages-per-pipeline-rank", 1, kMaxLayers, [this, &a](int64_t n) {
            a.virtualPipelineModelParallelSize = n;
            m_virtualFlag = "--num-virtual-stages-per-pipeline-rank";
        });
        intFlag("--num-layers-per-virtual-pipeline-stage", 1, kMaxLayers,
                [&a](int64_t n) { a.numLayersPerVirtualPipelineStage = n; });
        intFlag("--decoder-first-pipeline-num-layers", 1, kMaxLayers,
                [&a](int64_t n) { a.pipelineSplit.firstLayers = n; });
        intFlag("--decoder-last-pipeline-num-layers", 1, kMaxLayers,
                [&a](int64_t n) { a.pipelineSplit.lastLayers = n; });
        intFlag("--expert-model-parallel-size", 1, kMaxGpus, [&a](int64_t n) { a.expertModelParallelSize = n; });
        intFlag("--expert-tensor-parallel-size", 1, kMaxGpus, [&a](int64_t n) { a.expertTensorParallelSize = n; });
        // torchrun's own flags (both spellings), and TrainMem's GPU count inside pasted text.
        for (const char* f : {"--nproc_per_node", "--nproc-per-node"})
            intFlag(f, 1, kMaxGpus, [&a](int64_t n) { a.gpusPerNode = n; });
        intFlag("--nnodes", 1, kMaxGpus, [&a](int64_t n) { a.nodes = n; });
        intFlag("--gpus", 1, kMaxGpus, [&a](int64_t n) { a.worldSize = n; });

        floatFlag("--hidden-dropout", [&a](double d) { a.hiddenDropout = d; });
        floatFlag("--attention-dropout", [&a](double d) { a.attentionDropout = d; });

        boolFlag("--group-query-attention", [&a] { a.groupQueryAttention = true; });
        boolFlag("--swiglu", [&a] { a.swiglu = true; });
        boolFlag("--account-for-embedding-in-pipeline-split", [&a] { a.pipelineSplit.embedding = true; });
        boolFlag("--account-for-loss-in-pipeline-split", [&a] { a.pipelineSplit.loss = true; });
        boolFlag("--untie-embeddings-and-output-weights", [&a] { a.untieEmbeddingsAndOutputWeights = true; });
        boolFlag("--disable-bias-linear", [&a] { a.addBiasLinear = false; });
        boolFlag("--no-bias-linear", [&a] { a.addBiasLinear = false; });
        boolFlag("--add-bias-linear", [&a] { a.addBiasLinear = true; }); // older releases; the default
        boolFlag("--moe-shared-expert-gate", [&a] { a.moeSharedExpertGate = true; });
        boolFlag("--multi-latent-attention", [&a] { a.multiLatentAttention = true; });
        boolFlag("--sequence-parallel", [&a] { a.sequenceParallel = true; });
        boolFlag("--recompute-activations", [&a] { a.recomputeGranularity = "selective"; });
        boolFlag("--use-distributed-optimizer", [&a] { a.useDistributedOptimizer = true; });
        boolFlag("--bf16", [&a] { a.bf16 = true; });
        boolFlag("--fp16", [&a] { a.fp16 = true; });

        m_value["--normalization"] = [this, &a](const std::string& f, const std::string& v) {
            if (v != "LayerNorm" && v != "RMSNorm")
                return error(f, "must be LayerNorm or RMSNorm, got " + shown(v));
            a.normalization = v;
        };
        m_value["--recompute-granularity"] = [this, &a](const std::string& f, const std::string& v) {
            if (v != "selective" && v != "full")
                return error(f, "must be selective or full, got " + shown(v));
            a.recomputeGranularity = v;
        };
        m_value["--position-embedding-type"] = [this, &a](const std::string& f, const std::string& v) {
            static const char* kinds[] = {"learned_absolute", "rope", "yarn", "mrope", "relative", "none"};
            if (std::none_of(std::begin(kinds), std::end(kinds), [&](const char* k) { return v == k; }))
                return error(f, "must be learned_absolute, rope, yarn, mrope, relative or none, got " + shown(v));
            a.positionEmbeddingType = v;
        };
        m_value["--moe-layer-freq"] = [this, &a](const std::string& f, const std::string& v) {
            // arguments.py moe_freq_type: a list expression when it contains '[', else an int.
            if (v.find('[') != std::string::npos) {
                PatternResult r = evalLayerPattern(v);
                if (!r.error.empty())
                    return error(f, r.error + " in " + shown(v));
                // An empty list would leave the pattern unset, which reads as every layer MoE (issue 33).
                if (r.values.empty())
                    return error(f, "lists no layers, expected one 0 or 1 per layer (--num-layers of them), got " +
                                        shown(v));
                a.moeLayerPattern = std::move(r.values);
                return;
            }
            const auto n = parseInt(v);
            if (!n || *n < 1)
                return error(f, "must be a positive integer or a list expression such as \"([0]*3+[1]*58)\", got " +
                                    shown(v));
            a.moeLayerFreq = *n;
            a.moeLayerPattern.clear();
        };
        m_value["--pipeline-model-parallel-layout"] = [this, &a](const std::string& f, const std::string& v) {
            // An empty text would clear the layout (setPipelineLayout's "none"); the parser's own words refuse it.
            if (v.empty())
                return error(f, parsePipelineLayout(v).error);
            if (const std::string why = setPipelineLayout(a.pipelineSplit, v); !why.empty())
                error(f, shown(v) + " " + why);
        };
        for (const char* f : {"--hybrid-layer-pattern", "--hybrid-override-pattern"})
            m_value[f] = [&a](const std::string&, const std::string&) { a.hybrid = true; };
    }

    void read(const std::vector<std::string>& words)
    {
        for (size_t i = 0; i < words.size(); ++i) {
            const std::string& w = words[i];
            if (w.size() < 3 || w.compare(0, 2, "--") != 0)
                continue; // the launcher, the script, variable assignments
            std::string flag = w, value;
            bool inlineValue = false;
            if (const size_t eq = w.find('='); eq != std::string::npos) {
                flag = w.substr(0, eq);
                value = w.substr(eq + 1);
                inlineValue = true;
            }
            auto takesNext = [&] {
                if (i + 1 >= words.size())
                    return false;
                const std::string& n = words[i + 1];
                return n.empty() || n[0] != '-' ||
                       (n.size() > 1 && (std::isdigit(static_cast<unsigned char>(n[1])) || n[1] == '.'));
            };
            if (const auto b = m_bool.find(flag); b != m_bool.end()) {
                if (inlineValue)
                    error(flag, "takes no value, got " + shown(value));
                else
                    b->second();
                continue;
            }
            if (const auto v = m_value.find(flag); v != m_value.end()) {
                if (!inlineValue) {
                    if (!takesNext()) {
                        error(flag, "needs a value");
                        continue;
                    }
                    value = words[++i];
                }
                v->second(flag, value);
                continue;
            }
            // Not read: listed, with its value when one follows, never silently dropped.
            std::string ignored = w;
            if (!inlineValue && takesNext())
                ignored += " " + words[++i];
            m_out.ignored.push_back(ignored);
        }
    }

    void error(const std::string& flag, const std::string& message)
    {
        m_out.errors.push_back({m_source, flag, message});
    }
    /// The flag that gave the virtual stages, to name in an error about them.
    const std::string& virtualFlag() const { return m_virtualFlag; }

private:
    void intFlag(const char* name, int64_t min, int64_t max, std::function<void(int64_t)> set)
    {
        m_value[name] = [this, min, max, set](const std::string& f, const std::string& v) {
            const auto n = parseInt(v);
            if (!n)
                return error(f, "must be an integer, got " + shown(v));
            if (*n < min || *n > max)
                return error(f, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                                    std::to_string(*n));
            set(*n);
        };
    }
    void floatFlag(const char* name, std::function<void(double)> set)
    {
        m_value[name] = [this, set](const std::string& f, const std::string& v) {
            const auto d = parseFloat(v);
            if (!d || *d < 0 || *d > 1)
                return error(f, "must be a probability between 0 and 1, got " + shown(v));
            set(*d);
        };
    }
    void boolFlag(const char* name, std::function<void()> set) { m_bool[name] = std::move(set); }

    MegatronParse& m_out;
    std::string m_source;
    std::string m_virtualFlag = "--num-virtual-stages-per-pipeline-rank";
    std::map<std::string, std::function<void(const std::string&, const std::string&)>> m_value;
    std::map<std::string, std::function<void()>> m_bool;
};

double dblLimit()
{
    return static_cast<double>(kMaxParams);
}

// Megatron's own assertions (arguments.py, theoretical_memory_usage.py), each naming its flag.
void checkArgs(MegatronParse& out, FlagReader& r, int64_t gpus)
{
    MegatronArgs& a = out.args;
    for (auto [flag, v] : {std::pair{"--num-layers", a.numLayers},
                           {"--hidden-size", a.hiddenSize},
                           {"--num-attention-heads", a.numAttentionHeads},
                           {"--seq-length", a.seqLength}})
        if (v <= 0)
            r.error(flag, "missing: Megatron-LM needs it");
    if (!a.vocabSize && !a.paddedVocabSize)
        r.error("--vocab-size", "missing: Megatron-LM reads it from the tokenizer; add --vocab-size N "
                                "(e.g. 128256 for Llama 3, 32000 for Llama 2)");
    if (!out.ok())
        return;
    if (!a.kvChannels && a.hiddenSize % a.numAttentionHeads != 0)
        r.error("--num-attention-heads", "must divide --hidden-size (" + std::to_string(a.hiddenSize) +
                                             ") when --kv-channels is not given, got " +
                                             std::to_string(a.numAttentionHeads));
    if (a.groupQueryAttention && a.numAttentionHeads % a.numQueryGroups != 0)
        r.error("--num-query-groups", "must divide --num-attention-heads (" + std::to_string(a.numAttentionHeads) +
                                          "), got " + std::to_string(a.numQueryGroups));
    if (a.multiLatentAttention && a.groupQueryAttention)
        r.error("--multi-latent-attention", "cannot be combined with --group-query-attention");
    if (a.bf16 && a.fp16)
        r.error("--fp16", "cannot be combined with --bf16");
    if (a.swiglu && !a.ffnHiddenSize && a.ffn() <= 0)
        r.error("--hidden-size", "is too small for --swiglu's default FFN width; give --ffn-hidden-size");

    // Each degree may be up to kMaxGpus, so tp·pp·cp and etp·ep·pp could pass 2^63 (10^21). A grid
    // larger than kMaxGpus can never divide the world size: refuse it before multiplying in int64.
    const auto grid = [](std::initializer_list<int64_t> degrees, std::string& shown) {
        double product = 1;
        for (const int64_t d : degrees) {
            product *= static_cast<double>(d);
            shown += (shown.empty() ? "" : "·") + std::to_string(d);
        }
        return product;
    };
    std::string replicaShown, expertShown;
    if (grid({a.tensorModelParallelSize, a.pipelineModelParallelSize, a.contextParallelSize}, replicaShown) >
        static_cast<double>(kMaxGpus))
        return r.error("--tensor-model-parallel-size",
                       "tp·pp·cp = " + replicaShown + " is more than " + std::to_string(kMaxGpus) + " GPUs");
    if (grid({a.expertTensorParallel(), a.expertModelParallelSize, a.pipelineModelParallelSize}, expertShown) >
        static_cast<double>(kMaxGpus))
        return r.error("--expert-model-parallel-size",
                       "etp·ep·pp = " + expertShown + " is more than " + std::to_string(kMaxGpus) + " GPUs");

    // The GPU count: --gpus, else torchrun's nproc_per_node × nnodes, else the caller's, else one replica.
    const int64_t replica = a.tensorModelParallelSize * a.pipelineModelParallelSize * a.contextParallelSize;
    std::string gpuFlag = "--gpus";
    if (a.worldSize == 0 && (a.gpusPerNode > 0 || a.nodes > 0)) {
        a.worldSize = std::max<int64_t>(a.gpusPerNode, 1) * std::max<int64_t>(a.nodes, 1);
        gpuFlag = "--nproc_per_node";
        out.notes.push_back("GPUs: --nproc_per_node × --nnodes = " + std::to_string(a.worldSize));
    } else if (a.worldSize == 0 && gpus > 0 && gpus % replica == 0) {
        a.worldSize = gpus;
        out.notes.push_back("GPUs: " + std::to_string(gpus) + " (the text gives no GPU count)");
    } else if (a.worldSize == 0) {
        a.worldSize = replica;
        out.notes.push_back("GPUs: one model replica, tp·pp·cp = " + std::to_string(replica) +
                            " (the text gives no GPU count; add --gpus N)");
    }
    if (a.worldSize > kMaxGpus)
        return r.error(gpuFlag, "gives more than " + std::to_string(kMaxGpus) + " GPUs");
    if (a.worldSize % replica != 0)
        return r.error(gpuFlag, std::to_string(a.worldSize) + " GPUs are not divisible by tp·pp·cp = " +
                                    std::to_string(replica) + " (arguments.py asserts it)");
    // transformer_config.py __post_init__ at d98e8a6 raises on both (issue 33 §5).
    if (a.numAttentionHeads % a.tensorModelParallelSize != 0)
        r.error("--tensor-model-parallel-size", "must divide --num-attention-heads (" +
                                                    std::to_string(a.numAttentionHeads) + "), got " +
                                                    std::to_string(a.tensorModelParallelSize));
    else if (a.queryGroups() % a.tensorModelParallelSize != 0 && a.tensorModelParallelSize % a.queryGroups() != 0)
        r.error("--tensor-model-parallel-size", "must be a multiple or divisor of the query groups (" +
                                                    std::to_string(a.queryGroups()) + "), got " +
                                                    std::to_string(a.tensorModelParallelSize));
    if (a.pipelineSplit.hasLayout() && (a.virtualPipelineModelParallelSize || a.numLayersPerVirtualPipelineStage))
        // arguments.py at d98e8a6: "No more than one of the following arguments can be set at the same time".
        r.error("--pipeline-model-parallel-layout",
                std::string("cannot be combined with ") +
                    (a.numLayersPerVirtualPipelineStage ? "--num-layers-per-virtual-pipeline-stage"
                                                        : "--num-virtual-stages-per-pipeline-rank") +
                    ": the layout gives the virtual stages (arguments.py asserts it)");
    else if (a.pipelineSplit.uneven() && a.numLayersPerVirtualPipelineStage)
        r.error("--num-layers-per-virtual-pipeline-stage",
                "cannot be combined with an uneven first/last stage: use --num-virtual-stages-per-pipeline-rank "
                "(arguments.py asserts it)");
    else if (!a.pipelineSplit.isDefault()) {
        // get_num_layers_to_build (transformer_block.py), PipelineParallelLayerLayout and arguments.py at d98e8a6.
        if (const std::string why = pipelineSplitProblem(a.pipelineSplit, a.numLayers, a.pipelineModelParallelSize,
                                                         a.virtualPipeline().value_or(1), a.mtpNumLayers.value_or(0));
            !why.empty())
            r.error(a.pipelineSplit.hasLayout() ? "--pipeline-model-parallel-layout"
                    : a.pipelineSplit.uneven()
                        ? (a.pipelineSplit.firstLayers > 0 ? "--decoder-first-pipeline-num-layers"
                                                           : "--decoder-last-pipeline-num-layers")
                    : a.pipelineSplit.embedding ? "--account-for-embedding-in-pipeline-split"
                                                : "--account-for-loss-in-pipeline-split",
                    why);
    } else if (a.numLayers % a.pipelineModelParallelSize != 0)
        r.error("--pipeline-model-parallel-size", "must divide --num-layers (" + std::to_string(a.numLayers) +
                                                      "), got " + std::to_string(a.pipelineModelParallelSize));
    else if (a.numLayersPerVirtualPipelineStage &&
             (a.numLayers / a.pipelineModelParallelSize) % *a.numLayersPerVirtualPipelineStage != 0)
        r.error("--num-layers-per-virtual-pipeline-stage",
                "must divide the layers per pipeline stage (" +
                    std::to_string(a.numLayers / a.pipelineModelParallelSize) + ")");
    else if (!a.numLayersPerVirtualPipelineStage && a.virtualPipeline() &&
             (a.numLayers / a.pipelineModelParallelSize) % *a.virtualPipeline() != 0)
        // get_num_layers_to_build (transformer_block.py at d98e8a6): "num_layers_per_pipeline_rank … should be
        // divisible by vp_size". The fuzzer found 8 layers on pp 8 with 2 virtual stages each converted to an
        // invalid scenario (half a layer per virtual stage).
        r.error(r.virtualFlag(), "must divide the layers per pipeline stage (" +
                                     std::to_string(a.numLayers / a.pipelineModelParallelSize) + "), got " +
                                     std::to_string(*a.virtualPipeline()));
    // arguments.py (d98e8a6): "seq-length should be a multiple of 2 * context-parallel-size".
    if (a.contextParallelSize > 1 && a.seqLength % (2 * a.contextParallelSize) != 0)
        r.error("--context-parallel-size",
                "--seq-length (" + std::to_string(a.seqLength) +
                    ") must be a multiple of 2 × context-parallel-size = " + std::to_string(2 * a.contextParallelSize) +
                    " (arguments.py asserts it)");
    if (a.virtualPipeline() && a.pipelineModelParallelSize == 1)
        r.error("--virtual-pipeline-model-parallel-size", "needs --pipeline-model-parallel-size above 1");
    if (a.globalBatchSize && *a.globalBatchSize % (a.microBatchSize * a.dataParallel()) != 0)
        r.error("--global-batch-size", "must be a multiple of micro-batch × data-parallel size (" +
                                           std::to_string(a.microBatchSize * a.dataParallel()) + "), got " +
                                           std::to_string(*a.globalBatchSize));
    // TrainMem's counting limit (params.h): beyond it the arithmetic stops being exact in double.
    if (out.ok() && !a.hybrid && !(megatronEstimate(a).totalParams <= dblLimit()))
        r.error("--num-layers", "the model these flags describe has more than 10^15 parameters");
    if (a.numExperts) {
        if (!a.moeLayerPattern.empty() && static_cast<int64_t>(a.moeLayerPattern.size()) != a.numLayers)
            r.error("--moe-layer-freq", "lists " + std::to_string(a.moeLayerPattern.size()) +
                                            " layers, expected --num-layers = " + std::to_string(a.numLayers));
        if (a.moeRouterTopk > *a.numExperts)
            r.error("--moe-router-topk", "must not exceed --num-experts (" + std::to_string(*a.numExperts) + "), got " +
                                             std::to_string(a.moeRouterTopk));
        const int64_t expertGrid = a.expertTensorParallel() * a.expertModelParallelSize * a.pipelineModelParallelSize;
        if (a.worldSize % expertGrid != 0)
            r.error("--expert-model-parallel-size",
                    std::to_string(a.worldSize) +
                        " GPUs are not divisible by etp·ep·pp = " + std::to_string(expertGrid));
        if (*a.numExperts % a.expertModelParallelSize != 0)
            r.error("--expert-model-parallel-size", "must divide --num-experts (" + std::to_string(*a.numExperts) +
                                                        "), got " + std::to_string(a.expertModelParallelSize));
    }
}

} // namespace

MegatronParse parseMegatronArgs(const std::string& text, int64_t gpus, const std::string& source)
{
    MegatronParse out;
    FlagReader reader(out, source);
    std::string shellError;
    reader.read(shellWords(text, &shellError));
    if (!shellError.empty())
        out.errors.push_back({source, "", shellError});
    if (out.ok())
        checkArgs(out, reader, gpus);
    if (out.ok() && out.args.hybrid)
        out.notes.push_back("hybrid Mamba-Transformer model: Megatron prints no theoretical memory for it");
    if (out.ok() && out.args.pipelineSplit.hasLayout())
        for (const std::string& row :
             describePipelineLayout(out.args.pipelineSplit.stages, out.args.pipelineModelParallelSize))
            out.notes.push_back("pipeline layout, " + row);
    return out;
}

} // namespace trainmem
