// TrainMem beside the peers: the difference terms (each with its reason) and the `peers` JSON.
// The terms are per-GPU segments, so for every peer the terms add up to the whole gap between
// TrainMem's total and the peer's figure.

#include "peers.h"

#include "units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace trainmem {
namespace {

constexpr const char* kMegatronSource =
    "NVIDIA/Megatron-LM megatron/training/theoretical_memory_usage.py @ d98e8a64ddf34856e74b24714e3bedb2f5a39553";
constexpr const char* kDeepSpeedSource = "deepspeedai/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py and stage3.py "
                                         "@ edaa7221267243c7be7fb49c5d5f5c4fb97b4641";

double dbl(int64_t v)
{
    return static_cast<double>(v);
}
std::string n(double count)
{
    return formatCount(count);
}
std::string by(double bytes)
{
    return formatBytes(bytes);
}
std::string num(double v)
{
    return formatNumber(v);
}
std::string precisionWord(const StateRecipe& r)
{
    return r.weights >= 4 ? "fp32" : "16-bit";
}

// What one GPU holds in TrainMem's accounting, in parameters.
double paramsOnGpu(const Breakdown& b)
{
    return b.recipe.weights > 0 ? b.perGpu.weights / b.recipe.weights : 0;
}

void addMegatronTerms(PeerComparison& c, const Breakdown& b, const Scenario& s)
{
    const MegatronArgs& a = c.args;
    const MegatronEstimate& m = c.megatron;
    const Segments& t = b.perGpu;
    const int zero = s.hardware.zeroStage;
    auto add = [&](const char* term, double tm, double peer, std::string reason) {
        c.differences.push_back({"megatron", term, tm, peer, std::move(reason)});
    };
    std::string shard = "1/" + std::to_string(a.pipelineModelParallelSize) + " of the layers ÷ tp " +
                        std::to_string(a.tensorModelParallelSize) + " plus the whole input embedding ÷ tp";
    if (a.untieEmbeddingsAndOutputWeights && a.pipelineModelParallelSize == 1)
        shard += " and the output layer ÷ tp";
    if (a.mtpNumLayers && *a.mtpNumLayers > 0)
        shard += ", all " + std::to_string(*a.mtpNumLayers) + " MTP layer(s)";
    if (a.numExperts)
        shard += ", routed experts ÷ etp·ep = " + std::to_string(a.expertTensorParallel() * a.expertModelParallelSize);
    const std::string counts = "TrainMem holds " + n(paramsOnGpu(b)) + " parameters on this GPU (the model of " +
                               n(dbl(b.model.params.total)) + " split evenly over tp·pp, experts also ÷ ep" +
                               (zero >= 3 ? ", then ÷ dp by ZeRO-3" : "") + "); Megatron's most-loaded shard holds " +
                               n(m.mostLoadedShardParams) + " (" + shard + "; its count of " + n(m.totalParams) +
                               " leaves out linear biases and position embeddings).";
    add("weights", t.weights, m.weights,
        "Both keep a " + precisionWord(b.recipe) + " working copy (" + num(b.recipe.weights) +
            " B vs 2 B per parameter). " + counts);
    add("gradients", t.gradients, m.gradients,
        "TrainMem: " + num(b.recipe.gradients) +
            " B per parameter (gradients in the training precision, the ZeRO paper's 16 B recipe" +
            (zero >= 2 ? ", sharded by ZeRO-" + std::to_string(zero) : "") +
            "); Megatron: 4 B fp32 main gradients "
            "(its gradient-accumulation buffer), not sharded even by the distributed optimizer.");
    const std::string sharding =
        a.useDistributedOptimizer ? "the distributed optimizer shards them ÷ dp " + std::to_string(a.dataParallel()) +
                                        " in Megatron, ZeRO-" + std::to_string(zero) + " in TrainMem"
                                  : "neither shards them (no --use-distributed-optimizer)";
    add("master_weights", t.master, m.master,
        "Both keep a 4 B fp32 master copy per parameter; " + sharding +
            ". The rest of the gap is the parameter count.");
    add("optimizer", t.optimizer, m.optimizer,
        "Both keep Adam's two fp32 moments (8 B per parameter); " + sharding + ".");

    std::string act;
    if (m.sequenceParallelBranch)
        act = "Megatron (sequence parallel + selective recompute): Korthikanti et al. Table 2, s·b·h·(18 + 4·ffn/h) "
              "per layer "
              "for all " +
              std::to_string(a.numLayers) +
              " layers (the first stage keeps pp micro-batches of L/pp layers) ÷ tp, "
              "with no correction for GQA, SwiGLU's third matrix, MoE's top-k experts or MLA (its own TODO).";
    else
        act =
            "Megatron (its other branch, used whenever not both sequence parallel and selective recompute, so also for "
            "full or no recompute): s·b·h·(10 + 24/tp) per layer for all " +
            std::to_string(a.numLayers) +
            " layers, × 1.05 for temporaries; it does not change with the recompute setting.";
    if (m.interleavePenalty != 1)
        act += " It multiplies by the interleaved-schedule penalty " + num(m.interleavePenalty) +
               "; TrainMem holds the interleaved schedule's tapes stage by stage (Megatron-LM schedules.py).";
    act += " TrainMem: its own tape for " + std::string(toString(s.training.checkpointing)) + " checkpointing" +
           (s.training.flashAttention ? " with flash attention" : " with the s² attention scores") +
           ", at the real widths (GQA, SwiGLU, k routed experts, MLA), dropout masks only when dropout is on" +
           (a.pipelineModelParallelSize > 1
                ? std::string(", on its busiest stage (") + toString(b.stages[b.busiestStage].stage) + ")"
                : std::string()) +
           ".";
    add("activations", t.activations, m.activationLayers + m.activationEmbedding, act);
    add("logits", t.logits, m.activationOutput,
        a.pipelineModelParallelSize > 1
            ? "Megatron reports the first pipeline stage, which has no output layer; TrainMem counts the logits on the "
              "last "
              "stage when that stage is the peak (s·b·V in 16-bit plus fp32 for the loss, ÷ tp)."
            : std::string("TrainMem: s·b·V logits in 16-bit plus fp32 for the loss, ÷ tp; Megatron: ") +
                  (m.sequenceParallelBranch
                       ? "s·b·h·4·(1 + V/h) ÷ tp for the output layer's input and the loss"
                       : "(s·b·V/tp + s·b·h) · 2 · 1.05, the 16-bit logits and final norm output"));
    add("workspace", t.workspace, 0,
        "Megatron's estimate has no transient matmul workspace; TrainMem keeps the widest "
        "intermediate and its gradient (÷ tp).");
    add("framework", t.framework, 0,
        "Megatron's estimate has no CUDA/PyTorch context; TrainMem adds " + by(t.framework) + ".");
    add("fragmentation", t.fragmentation, 0,
        "Megatron's estimate has no allocator reserve; TrainMem reserves " + num(100 * s.hardware.fragmentation) +
            "% of the rest.");
}

void addDeepSpeedTerms(PeerComparison& c, const char* peer, const Breakdown& b, const Scenario& s, bool stage3)
{
    const Segments& t = b.perGpu;
    const Segments ds = deepspeedSegments(c, stage3 ? 3 : 2);
    const double P = dbl(c.deepspeedParams), N = dbl(c.gpusPerNode * c.nodes);
    const DeepSpeedEstimate& est = stage3 ? c.zero3 : c.zero2;
    auto add = [&](const char* term, double tm, double ds, std::string reason) {
        // Offloaded (issue 9 §3), both keep the term in host memory: 0 on the GPU on both sides.
        const std::string key = term;
        const bool offloaded = est.offloadOptimizer && (key == "gradients" || key == "master_weights" ||
                                                        key == "optimizer" || (key == "weights" && est.offloadParam));
        if (offloaded)
            reason = std::string("Offloaded to host memory (DeepSpeed's ") +
                     (key == "weights" ? "cpu_offload_params" : "cpu_offload") + "; TrainMem's --offload " +
                     toString(s.hardware.offload) + "): DeepSpeed keeps none of it on the GPU" +
                     (tm > 0 ? ", TrainMem " + formatBytes(tm) + " (its offload needs ZeRO-" +
                                   (key == "weights" ? "3" : "1") + " or higher)."
                             : ", nor does TrainMem.");
        c.differences.push_back({peer, term, tm, ds, std::move(reason)});
    };
    const int zero = s.hardware.zeroStage;
    const std::string layout =
        "TrainMem, this launch: " + n(paramsOnGpu(b)) + " parameters on this GPU (tp " + std::to_string(s.hardware.tp) +
        " · pp " + std::to_string(s.hardware.pp) +
        (b.model.arch.isMoe() ? ", experts ÷ ep " + std::to_string(s.hardware.ep) : std::string()) + ", ZeRO-" +
        std::to_string(zero) + " over dp " + std::to_string(b.dataParallel) + ")";
    const std::string dsLayout = std::string("DeepSpeed's estimator knows only ZeRO-") + (stage3 ? "3" : "2") +
                                 " data parallelism over " + num(N) +
                                 " GPUs (no tensor or pipeline split) and is given " + n(P) +
                                 " parameters (the parameters() of the model these flags build; TrainMem counts " +
                                 n(dbl(b.model.params.total)) + ").";
    if (stage3)
        add("weights", t.weights, ds.weights,
            "DeepSpeed: 2 B fp16 weights ÷ " + num(N) + ". " + layout + ", " + num(b.recipe.weights) + " B each. " +
                dsLayout);
    else
        add("weights", t.weights, ds.weights,
            "DeepSpeed: 2 B fp16 weights, all of them on every GPU. " + layout + ", " + num(b.recipe.weights) +
                " B each. " + dsLayout);
    add("gradients", t.gradients, ds.gradients,
        std::string(
            stage3 ? "DeepSpeed's ZeRO-3 18 B per parameter leaves 4 B for gradients (2 B fp16 weights + the 16 B its "
                     "offload branch moves: gradients, fp32 weights, Adam)"
                   : "DeepSpeed's ZeRO-2 18 B per sharded parameter counts 2 B fp16 and 4 B fp32 gradients") +
            ", ÷ " + num(N) + "; TrainMem keeps " + num(b.recipe.gradients) +
            " B (gradients in the training precision)" +
            (zero >= 2 ? ", ÷ dp" : ", not sharded at ZeRO-" + std::to_string(zero)) + ". " + layout + ".");
    add("master_weights", t.master, ds.master,
        "Both keep a 4 B fp32 master copy: DeepSpeed ÷ " + num(N) + "; " + layout +
            (zero >= 1 ? ", ÷ dp." : ", not sharded."));
    add("optimizer", t.optimizer, ds.optimizer,
        "Both keep Adam's 8 B of fp32 moments: DeepSpeed ÷ " + num(N) + "; " + layout +
            (zero >= 1 ? ", ÷ dp." : ", not sharded."));
    if (stage3)
        add("gathered_layer", b.gatheredLayerBytes, ds.workspace,
            "DeepSpeed adds 4 B × the largest layer (" + n(dbl(c.deepspeedLargestLayer)) +
                " parameters, the largest single tensor): the gathered 16-bit weight and gradient of the layer being "
                "computed. " +
                (b.gatheredLayerBytes > 0
                     ? "TrainMem gathers one whole transformer layer (its dense and, ÷ ep, expert parameters ÷ tp) in "
                       "the weight and gradient precisions."
                     : "TrainMem counts ZeRO-3's gathered layer only when this launch shards with ZeRO-3 over more "
                       "than one rank."));
    const std::string modelStatesOnly =
        "DeepSpeed's estimator covers model states only (params, gradients, optimizer).";
    add("activations", t.activations, 0, modelStatesOnly + " TrainMem's tape for this launch.");
    add("logits", t.logits, 0, modelStatesOnly);
    add("workspace", t.workspace - (stage3 ? b.gatheredLayerBytes : 0), 0, modelStatesOnly);
    add("framework", t.framework, 0, modelStatesOnly + " TrainMem adds the CUDA context.");
    add("fragmentation", t.fragmentation, 0, modelStatesOnly + " TrainMem adds the allocator's reserve.");
}

} // namespace

Segments megatronSegments(const MegatronEstimate& m)
{
    Segments s;
    s.weights = m.weights;
    s.gradients = m.gradients;
    s.master = m.master;
    s.optimizer = m.optimizer;
    s.activations = m.activationLayers + m.activationEmbedding;
    s.logits = m.activationOutput;
    return s;
}

Segments deepspeedSegments(const PeerComparison& c, int stage)
{
    const DeepSpeedEstimate& d = stage == 3 ? c.zero3 : c.zero2;
    Segments s;
    s.workspace = dbl(d.largestLayerBytes);
    if (stage == 3) {
        const double sharded = dbl(d.gpuBytes - d.largestLayerBytes); // 18 B per parameter ÷ GPUs
        if (d.offloadParam) {
            // cpu_offload_params: gpu_mem = largest_layer_memory, nothing per parameter stays on the GPU.
        } else if (d.offloadOptimizer) {
            s.weights = sharded; // largest_layer_memory + 2 · P / total_gpus: the fp16 weights' shard only
        } else {
            s.weights = sharded * 2 / 18;
            s.gradients = sharded * 4 / 18;
            s.master = sharded * 4 / 18;
            s.optimizer = sharded * 8 / 18;
        }
    } else if (d.offloadOptimizer) {
        s.weights = dbl(d.gpuBytes); // cpu_offload: gpu_mem = 2 · P, the fp16 weights, whole
    } else {
        const double whole = 2 * dbl(c.deepspeedParams);
        const double sharded = dbl(d.gpuBytes) - whole;
        s.weights = whole;
        s.gradients = sharded * 6 / 18;
        s.master = sharded * 4 / 18;
        s.optimizer = sharded * 8 / 18;
    }
    return s;
}

PeerComparison comparePeers(const MegatronArgs& m, const Scenario& s, const GpuSpec& gpu)
{
    PeerComparison c;
    c.args = m;
    c.megatron = megatronEstimate(m);
    // DeepSpeed describes hardware as nodes × GPUs per node: torchrun's, else 8 per node.
    const int64_t world = std::max<int64_t>(1, m.worldSize);
    if (m.gpusPerNode > 0 && m.gpusPerNode * std::max<int64_t>(1, m.nodes) == world) {
        c.gpusPerNode = m.gpusPerNode;
        c.nodes = std::max<int64_t>(1, m.nodes);
    } else if (world > 8 && world % 8 == 0) {
        c.gpusPerNode = 8;
        c.nodes = world / 8;
    } else {
        c.gpusPerNode = world;
        c.nodes = 1;
    }
    // DeepSpeed's estimators take model.parameters(): for a launch or an architecture, the model the flags build;
    // for a size-only scenario, the size given (--params N), not the Megatron count of the shape made up for it
    // (that missed DeepSpeed's own figure by 0.8–6.6%, issue 33).
    c.deepspeedParams = s.model.hasArchitecture ? megatronModelParams(m) : resolveModel(s.model).params.total;
    c.deepspeedLargestLayer = megatronLargestTensor(m);
    // The scenario's offload (issue 9 §3) is DeepSpeed's cpu_offload (offload_optimizer) and cpu_offload_params
    // (offload_param); its ZeRO-2 estimator has no parameter offload, so ZeRO-2 takes the optimizer part only.
    const bool training = s.training.mode == Mode::Training;
    const bool offloadOptimizer = training && s.hardware.offloadsOptimizer();
    const bool offloadParams = training && s.hardware.offloadsParams();
    c.zero2 = deepspeedZero2(c.deepspeedParams, c.gpusPerNode, c.nodes, offloadOptimizer);
    c.zero3 = deepspeedZero3(c.deepspeedParams, c.deepspeedLargestLayer, c.gpusPerNode, c.nodes, offloadOptimizer,
                             offloadParams, true);
    for (bool offload : {true, false})
        c.zero2Variants.push_back(deepspeedZero2(c.deepspeedParams, c.gpusPerNode, c.nodes, offload));
    // The order estimate_zero3_model_states_mem_needs_all_cold prints.
    for (bool offload : {true, false})
        for (bool offloadParams : {true, false}) {
            if (!offload && offloadParams)
                continue;
            for (bool zeroInit : {true, false})
                c.zero3Variants.push_back(deepspeedZero3(c.deepspeedParams, c.deepspeedLargestLayer, c.gpusPerNode,
                                                         c.nodes, offload, offloadParams, zeroInit));
        }

    const Breakdown launch = account(s, gpu);
    c.trainmem = launch.perGpu;
    c.trainmemHost = launch.perNodeHost;
    if (offloadOptimizer) {
        // Host memory: DeepSpeed's cpu_mem beside TrainMem's per-node host bytes (docs/accounting.md, Offload).
        const DeepSpeedEstimate& ds = launch.layout.zero >= 3 ? c.zero3 : c.zero2;
        c.notes.push_back(
            std::string("host memory per node: DeepSpeed's ZeRO-") + (launch.layout.zero >= 3 ? "3" : "2") +
            " estimator " + formatBytes(dbl(ds.cpuBytes)) +
            " (its 16 or 18 B per parameter, or 4 B × every GPU's fp32 copy while the model loads, × the 1.5 "
            "additional_buffer_factor), TrainMem " +
            formatBytes(launch.perNodeHost.total()) +
            " (the fp32 master, optimizer state and fp32 gradients of the node's partitions, and the 16-bit weights' "
            "with optimizer+params, with no buffer factor)");
    }
    if (c.megatron.available)
        addMegatronTerms(c, launch, s);
    addDeepSpeedTerms(c, "deepspeed_zero2", launch, s, false);
    addDeepSpeedTerms(c, "deepspeed_zero3", launch, s, true);

    // What these flags use that TrainMem's scenario does not hold.
    // (Issue 13: the virtual pipeline and expert tensor parallel are now the scenario's own
    // hardware.vpp and expert_tensor_parallel, so they need no note.)
    if (m.mtpNumLayers && *m.mtpNumLayers > 0)
        c.notes.push_back(
            std::to_string(*m.mtpNumLayers) +
            " MTP layer(s): Megatron counts each as one more transformer layer on every shard; TrainMem "
            "also counts its projection M_k (2h·h) and three norms, on " +
            (m.pipelineSplit.hasLayout() && m.pipelineModelParallelSize > 1
                 ? "pipeline stage " +
                       std::to_string(layoutMtpRank(m.pipelineSplit.stages, m.pipelineModelParallelSize)) +
                       " only (the layout's m)"
                 : std::string("the last pipeline stage only")) +
            ", with its tape and its own logits");
    if (m.contextParallelSize > 1)
        c.notes.push_back("context parallel " + std::to_string(m.contextParallelSize) +
                          ": Megatron's estimate does not divide its activations by cp (theoretical_memory_usage.py "
                          "has no cp term); TrainMem holds s/cp tokens per GPU");
    if (m.numExperts) {
        const std::vector<int> p = m.layerPattern();
        const auto firstMoe = std::find(p.begin(), p.end(), 1);
        if (std::find(firstMoe, p.end(), 0) != p.end())
            c.notes.push_back(
                "dense layers not only at the front of --moe-layer-freq: TrainMem counts them as leading");
        if (m.moeSharedExpertIntermediateSize && *m.moeSharedExpertIntermediateSize % m.moeFfn() != 0)
            c.notes.push_back("shared expert width is not a multiple of the expert width: TrainMem rounds it");
    }
    if (!m.bf16)
        c.notes.push_back("Megatron's estimator assumes bf16 (18 B per parameter) whatever --bf16/--fp16 say");
    return c;
}

nlohmann::json peersToJson(const PeerComparison& c)
{
    using nlohmann::json;
    const MegatronArgs& a = c.args;
    const MegatronEstimate& m = c.megatron;
    auto dsJson = [](const DeepSpeedEstimate& d, bool stage3) {
        json j = {{"gpu_bytes", d.gpuBytes},
                  {"cpu_bytes", d.cpuBytes},
                  {"offload_optimizer", d.offloadOptimizer ? "cpu" : "none"}};
        if (stage3) {
            j["offload_param"] = d.offloadParam ? "cpu" : "none";
            j["zero_init"] = d.zeroInit;
            j["largest_layer_bytes"] = d.largestLayerBytes;
        }
        return j;
    };
    json megatron = {{"available", m.available}, {"source", kMegatronSource}};
    if (m.available) {
        megatron.update(
            {{"weight_and_optimizer_bytes", m.weightAndOptimizerBytes},
             {"activation_bytes", m.activationBytes},
             {"total_bytes", m.totalBytes()},
             {"printed", m.printed},
             {"activation_branch", m.sequenceParallelBranch
                                       ? "compute_activation_memory (sequence parallel + selective)"
                                       : "compute_activation_memory_without_sp"},
             {"num_microbatches", m.numMicrobatches},
             {"interleave_penalty", m.interleavePenalty},
             {"bytes_per_param", m.bytesPerParam},
             {"bytes_per_expert_param", m.bytesPerExpertParam},
             {"params",
              {{"total", m.totalParams}, {"active", m.activeParams}, {"most_loaded_shard", m.mostLoadedShardParams}}},
             {"parts",
              {{"weights", m.weights},
               {"gradients", m.gradients},
               {"master_weights", m.master},
               {"optimizer", m.optimizer},
               {"activation_layers", m.activationLayers},
               {"activation_embedding", m.activationEmbedding},
               {"output_layer", m.activationOutput}}}});
    } else {
        megatron["reason"] = m.unavailableReason;
    }
    json z2v = json::array(), z3v = json::array();
    for (const DeepSpeedEstimate& d : c.zero2Variants)
        z2v.push_back(dsJson(d, false));
    for (const DeepSpeedEstimate& d : c.zero3Variants)
        z3v.push_back(dsJson(d, true));
    json deepspeed = {{"source", kDeepSpeedSource},
                      {"total_params", c.deepspeedParams},
                      {"largest_layer_params", c.deepspeedLargestLayer},
                      {"num_gpus_per_node", c.gpusPerNode},
                      {"num_nodes", c.nodes},
                      {"additional_buffer_factor", 1.5},
                      {"zero2", dsJson(c.zero2, false)},
                      {"zero3", dsJson(c.zero3, true)},
                      {"zero2_variants", z2v},
                      {"zero3_variants", z3v},
                      {"cpu_note", "cpu_bytes are DeepSpeed's own figures (P·max(4·gpus_per_node, 16)·1.5 and the "
                                   "like); TrainMem's host memory is per_node_host_bytes."}};
    json diffs = json::array();
    json gap = json::object();
    for (const PeerDifference& d : c.differences) {
        diffs.push_back({{"peer", d.peer},
                         {"term", d.term},
                         {"trainmem_bytes", d.trainmemBytes},
                         {"peer_bytes", d.peerBytes},
                         {"difference_bytes", d.trainmemBytes - d.peerBytes},
                         {"reason", d.reason}});
        if (!gap.contains(d.peer))
            gap[d.peer] = {{"trainmem_bytes", 0.0}, {"peer_bytes", 0.0}};
        json& g = gap[d.peer];
        g["trainmem_bytes"] = g["trainmem_bytes"].get<double>() + d.trainmemBytes;
        g["peer_bytes"] = g["peer_bytes"].get<double>() + d.peerBytes;
    }
    json args = {{"num_layers", a.numLayers},
                 {"hidden_size", a.hiddenSize},
                 {"ffn_hidden_size", a.ffn()},
                 {"num_attention_heads", a.numAttentionHeads},
                 {"kv_channels", a.kvChannelsOrDefault()},
                 {"num_query_groups", a.queryGroups()},
                 {"padded_vocab_size", a.paddedVocab()},
                 {"seq_length", a.seqLength},
                 {"micro_batch_size", a.microBatchSize},
                 {"world_size", a.worldSize},
                 {"tensor_model_parallel_size", a.tensorModelParallelSize},
                 {"pipeline_model_parallel_size", a.pipelineModelParallelSize},
                 {"data_parallel_size", a.dataParallel()},
                 {"expert_model_parallel_size", a.expertModelParallelSize},
                 {"expert_tensor_parallel_size", a.expertTensorParallel()},
                 {"expert_data_parallel_size", a.expertDataParallel()},
                 {"sequence_parallel", a.sequenceParallelEffective()},
                 {"recompute_granularity", a.recomputeGranularity ? json(*a.recomputeGranularity) : json(nullptr)},
                 {"use_distributed_optimizer", a.useDistributedOptimizer}};
    if (const auto vpp = a.virtualPipeline())
        args["virtual_pipeline_model_parallel_size"] = *vpp;
    if (a.numExperts)
        args.update({{"num_experts", *a.numExperts},
                     {"moe_ffn_hidden_size", a.moeFfn()},
                     {"moe_router_topk", a.moeRouterTopk}});
    if (a.mtpNumLayers)
        args["mtp_num_layers"] = *a.mtpNumLayers;
    auto seg = [](const Segments& s) {
        return json{{"weights", s.weights},     {"gradients", s.gradients},     {"master_weights", s.master},
                    {"optimizer", s.optimizer}, {"activations", s.activations}, {"logits", s.logits},
                    {"workspace", s.workspace}, {"overhead", s.overhead()},     {"total", s.total()}};
    };
    return {{"args", args},         {"megatron", megatron}, {"deepspeed", deepspeed}, {"trainmem", seg(c.trainmem)},
            {"differences", diffs}, {"gap", gap},           {"notes", c.notes}};
}

} // namespace trainmem
