#include "report.h"

#include "lora.h"
#include "measured.h"
#include "scenarioio.h"
#include "terms.h"
#include "timeline.h"
#include "units.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

namespace trainmem {
namespace {

// Ratios and shares as core/base/units.h formats them everywhere.
std::string times(double ratio)
{
    return formatRatio(ratio);
}
std::string percent(double f)
{
    return formatPercent(f);
}

std::string count(int64_t n)
{
    return std::to_string(n);
}

// One key per term of the table (core/memory/terms.cpp), then the subtotals.
nlohmann::json segmentsJson(const Segments& g)
{
    nlohmann::json j = nlohmann::json::object();
    for (SegmentKind k : kAllSegmentKinds)
        j[termInfo(k).key] = g.*termInfo(k).field;
    j["overhead"] = g.overhead();
    j["model_state"] = g.modelState();
    j["total"] = g.total();
    return j;
}

// Each distinct pipeline stage (issue 13): the busiest is per_gpu_bytes.
nlohmann::json stagesJson(const Breakdown& b)
{
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < b.stages.size(); ++i) {
        const StageMemory& st = b.stages[i];
        out.push_back({{"stage", toString(st.stage)},
                       {"index", st.index},
                       {"layers", st.layers},
                       {"micro_batches_in_flight", st.inflight},
                       {"busiest", i == b.busiestStage},
                       {"total", st.bytes.total()},
                       {"bytes", segmentsJson(st.bytes)}});
    }
    return out;
}

// The per-rank grid (issue 13): every distinct rank kind of the layout, stage 0 first.
nlohmann::json ranksJson(const std::vector<RankKind>& ranks)
{
    nlohmann::json out = nlohmann::json::array();
    for (const RankKind& r : ranks)
        out.push_back({{"stage", toString(r.stage)},
                       {"first_stage", r.firstStage},
                       {"last_stage", r.lastStage},
                       {"gpus", r.gpus},
                       {"layers", r.layers},
                       {"micro_batches_in_flight", r.inflight},
                       {"busiest", r.busiest},
                       {"total", r.bytes.total()},
                       {"bytes", segmentsJson(r.bytes)}});
    return out;
}

// The receipt's lines (issue 13): pre-training as computed, then each published phase as given.
// The step as a film (issue 11 §1): its phases with their start, end and peak, where the peak is, and each
// term whose bytes at the peak are not the bars' with the reason (core/memory/timeline.h).
nlohmann::json timelineJson(const StepTimeline& t)
{
    nlohmann::json phases = nlohmann::json::array();
    for (const TimelinePhase& p : t.phases)
        phases.push_back({{"name", p.name},
                          {"kind", toString(p.kind)},
                          {"start", p.start},
                          {"end", p.end},
                          {"peak_bytes", p.peakBytes}});
    nlohmann::json differences = nlohmann::json::array();
    for (const TimelineDifference& d : t.differences)
        differences.push_back({{"term", termInfo(d.term).key},
                               {"bars_bytes", d.barsBytes},
                               {"at_peak_bytes", d.atPeakBytes},
                               {"reason", d.reason}});
    nlohmann::json atPeak;
    if (!t.samples.empty())
        atPeak = segmentsJson(t.samples[t.peakSample].bytes);
    return {{"time_unit", "forward pass of one layer"},
            {"stage", toString(t.stage)},
            {"layers", t.layers},
            {"micro_batches_drawn", t.microBatches},
            {"micro_batches_per_step", t.stepMicroBatches},
            {"duration", t.duration},
            {"peak_bytes", t.peakBytes},
            {"peak_at", t.peakWhere},
            {"peak_time", t.samples.empty() ? 0.0 : t.samples[t.peakSample].start},
            {"at_peak_bytes", atPeak},
            {"bars_total_bytes", t.barsTotal},
            {"phases", phases},
            {"differences", differences}};
}

nlohmann::json phasesJson(const CostReceipt& c, const Scenario& s)
{
    nlohmann::json out = nlohmann::json::array();
    out.push_back({{"name", "pre-training"},
                   {"tokens", s.cost.tokens},
                   {"gpu_hours", c.pretrainingGpuHours},
                   {"cost_usd", c.priceKnown ? nlohmann::json(c.pretrainingGpuHours * c.pricePerGpuHour) : nullptr},
                   {"computed", true}});
    for (const CostPhase& p : c.phases)
        out.push_back({{"name", p.name},
                       {"gpu_hours", p.gpuHours},
                       {"cost_usd", c.priceKnown ? nlohmann::json(p.gpuHours * c.pricePerGpuHour) : nullptr},
                       {"computed", false}});
    return out;
}

// "first (stage 0 of 8: 4 layers, 8 micro-batches in flight)".
std::string stageText(const StageMemory& st, int64_t pp)
{
    return std::string(toString(st.stage)) + " (stage " + std::to_string(st.index) + " of " + std::to_string(pp) +
           ": " + formatNumber(st.layers) + " layers, " + formatNumber(st.inflight) + " micro-batch" +
           (st.inflight == 1 ? "" : "es") + " in flight)";
}

// The host side of an offloaded scenario (issue 9 §3): "; host memory per node 112 GB of 2.00 TB".
std::string hostClause(const Breakdown& b)
{
    if (b.perNodeHost.total() <= 0)
        return {};
    std::string out = " Offloaded to host memory: " + formatBytes(b.perNodeHost.total()) + " per node (" +
                      std::to_string(b.gpusOnNode) + " GPU" + (b.gpusOnNode == 1 ? "" : "s") + " × " +
                      formatBytes(b.perGpuHost.total()) + ")";
    if (b.hostMemoryBytes > 0)
        out += " of " + formatBytes(b.hostMemoryBytes) + " (" +
               formatPercent(b.perNodeHost.total() / b.hostMemoryBytes) + ")";
    return out + ".";
}

/// What "alone exceeds one GPU" when sharding cannot help: the tape, the logits or both, with their size.
std::string workingAlone(const Breakdown& b)
{
    const Segments& g = b.perGpu;
    if (g.logits > g.activations)
        return "the logits (" + formatBytes(g.logits) + ") and activations (" + formatBytes(g.activations) + ")";
    return "the activations (" + formatBytes(g.activations) + ") and logits (" + formatBytes(g.logits) + ")";
}

/// The ways back from a tape larger than a GPU that the scenario does not use yet (issue 31 §1: the tour's
/// checkpointing step, already fully recomputing at 128k, was told to "checkpoint"): full recomputation unless
/// on, a chunked or fused loss where the logits are at least half the tape and the loss is eager or the chapter's,
/// then the context, the micro-batch and the model-parallel splits.
std::string workingRemedies(const Breakdown& b, const Scenario& s)
{
    const Segments& g = b.perGpu;
    std::vector<std::string> ways;
    if (s.training.checkpointing != Checkpointing::Full)
        ways.push_back(s.training.checkpointing == Checkpointing::None ? "checkpoint" : "recompute fully");
    const std::optional<LossKind> loss = effectiveLoss(s);
    if (g.logits >= 0.5 * g.activations && (!loss || *loss == LossKind::Eager || *loss == LossKind::LossParallel))
        ways.push_back("use a chunked or fused loss (--loss)");
    ways.push_back(s.training.microBatch > 1 ? "shorten the context or the micro-batch" : "shorten the context");
    ways.push_back(s.training.seqLen >= 32768 ? "add tensor, pipeline or context parallelism"
                                              : "add tensor/pipeline parallelism");
    std::string out;
    for (size_t i = 0; i < ways.size(); ++i)
        out += (i == 0 ? "" : i + 1 < ways.size() ? ", " : ways.size() > 2 ? ", or " : " or ") + ways[i];
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out;
}

} // namespace

std::string soFarVerdict(double bytes, const GpuSpec& gpu)
{
    const double cap = gpu.memoryBytes;
    const std::string where = "one " + gpu.id + " (" + formatBytes(cap);
    if (bytes <= cap)
        return "So far it fits: " + formatBytes(bytes) + " on " + where + ", " + percent(bytes / std::max(cap, 1.0)) +
               " used).";
    return "So far it already dies: " + formatBytes(bytes) + " is " + times(bytes / std::max(cap, 1.0)) + " " + where +
           ").";
}

std::string verdict(const Breakdown& b, const Scenario& s, const GpuSpec& gpu)
{
    const double cap = gpu.memoryBytes;
    const std::string capText = formatBytes(cap);
    const Segments& g = b.perGpu;
    const int64_t gpus = std::max<int64_t>(s.hardware.gpus, 1);
    const std::string where = gpus == 1 ? "one " + gpu.id : count(gpus) + " × " + gpu.id;

    if (s.training.mode == Mode::Inference) {
        const std::string w = formatBytes(g.weights) + " of " + toString(s.training.inferenceWeights) + " weights";
        // Linear-attention layers keep a recurrent state instead of a KV cache (issue 29 §2): named when present.
        const std::string state =
            g.recurrentState > 0 ? " + " + formatBytes(g.recurrentState) + " of recurrent state" : std::string();
        if (b.fits)
            return "Fits: " + w + " + " + formatBytes(g.kvCache) + " of KV cache" + state + ", " +
                   formatBytes(g.total()) + " in all on " + where + " (" + capText + " each, " +
                   percent(g.total() / cap) + " used).";
        std::string out = "Dies: " + formatBytes(g.total()) + " per GPU (" + w + ", " + formatBytes(g.kvCache) +
                          " of KV cache" + state + ") is " + times(g.total() / cap) + " " +
                          (gpus == 1 ? "one " + gpu.id : "each " + gpu.id) + " (" + capText + ")";
        if (b.minGpusToFit > 0)
            out += "; sharding the weights, it needs " + count(b.minGpusToFit) + " GPUs.";
        else
            out += "; the KV cache and activations alone exceed one GPU: shorten the context or the batch.";
        return out;
    }

    // Offloaded model state is named where it went (issue 31 §1: "model state (0 B) fits" read as none at all).
    const bool offloaded = b.perGpuHost.total() > 0;
    if (b.fits) {
        return "Fits: " + formatBytes(g.total()) + " of " + capText + " on " +
               (gpus == 1 ? where : "each of " + where) + " (" + percent(g.total() / cap) + "), " +
               formatBytes(cap - g.total()) + " to spare. Model state " +
               (!offloaded           ? formatBytes(g.modelState())
                : g.modelState() > 0 ? "on the GPU " + formatBytes(g.modelState()) + " (the rest in host memory)"
                                     : "all in host memory") +
               ", activations and logits " + formatBytes(g.activations + g.logits) + "." + hostClause(b);
    }
    // Offload (issue 9 §3): the GPUs fit, the host that holds their offloaded state does not.
    if (!b.hostFits && g.total() <= cap) {
        return "Dies: host memory per node " + formatBytes(b.perNodeHost.total()) + " > " +
               formatBytes(b.hostMemoryBytes) + " (" + times(b.perNodeHost.total() / b.hostMemoryBytes) +
               " the node's host memory): the offloaded state of " + std::to_string(b.gpusOnNode) + " GPU" +
               (b.gpusOnNode == 1 ? "" : "s") + " × " + formatBytes(b.perGpuHost.total()) + " each. Each " + gpu.id +
               " holds " + formatBytes(g.total()) + " of " + capText + ". Shard it over more GPUs (ZeRO over more " +
               "nodes), fewer GPUs per node, or offload less.";
    }

    const double state = gpus == 1 ? b.modelStateBytes : g.modelState();
    std::string out;
    if (state > cap) {
        out = "Dies: " + formatBytes(state) + " of model state" + (gpus == 1 ? "" : " per GPU") + " is " +
              times(state / cap) + " " + (gpus == 1 ? "one " : "one ") + gpu.id + " (" + capText + ")";
    } else {
        out = "Dies: model state (" +
              (!offloaded  ? formatBytes(state)
               : state > 0 ? formatBytes(state) + " on the GPU, the rest offloaded to host memory"
                           : "all offloaded to host memory") +
              ") fits, but activations and logits add " + formatBytes(g.activations + g.logits) + ": " +
              formatBytes(g.total()) + " per GPU is " + times(g.total() / cap) + " one " + gpu.id + " (" + capText +
              ")";
    }
    if (b.minGpusToFit > 0) {
        if (state > cap && b.minGpusForModelState == b.minGpusToFit)
            out += "; it needs " + count(b.minGpusToFit) + " GPUs with ZeRO-3.";
        else if (state > cap)
            out += "; it needs " + count(b.minGpusForModelState) + " GPUs with ZeRO-3 for the model state, " +
                   count(b.minGpusToFit) + " with activations and overhead.";
        else
            out += "; with ZeRO-3 it needs " + count(b.minGpusToFit) +
                   " GPUs, or less activation memory "
                   "(checkpointing, a shorter context or a smaller micro-batch).";
    } else {
        out += "; more GPUs cannot fix it by sharding the model state: " + workingAlone(b) + " exceed one GPU. " +
               workingRemedies(b, s) + ".";
    }
    if (!b.hostFits)
        out += " The host does not fit either: " + formatBytes(b.perNodeHost.total()) + " per node > " +
               formatBytes(b.hostMemoryBytes) + ".";
    else
        out += hostClause(b);
    return out;
}

nlohmann::json breakdownToJson(const Breakdown& b, const Scenario& s, const GpuSpec& gpu, const CostReceipt& cost)
{
    using nlohmann::json;
    const Architecture& a = b.model.arch;
    const StepTimeline film = stepTimeline(b.model, s, b);
    const ToolsView view = toolsView(s, b, &film);
    const std::optional<LossKind> loss = effectiveLoss(s);
    json params = {{"total", b.model.params.total},
                   {"active", b.model.params.active},
                   {"embedding", b.model.params.embedding},
                   {"routed_experts", b.model.params.routedExperts},
                   {"from_size", b.model.fromSize}};
    if (a.mtpLayers > 0 && !b.model.fromSize) {
        params["mtp_layers"] = a.mtpLayers;
        params["mtp"] = b.model.params.mtp; // outside total; trained only in full training
    }
    // What the optimizer updates: the adapters under LoRA/QLoRA (PEFT's print_trainable_parameters), else everything
    // (with the multi-token-prediction modules).
    // A multimodal wrapper's vision tower and projector: outside total and active, held in every mode, trained only
    // in full training (frozen under LoRA/QLoRA).
    if (const int64_t towers = heldVisionParams(b.model); towers > 0) {
        params["vision"] = b.model.params.vision;
        if (b.model.params.audio > 0) // Gemma 4 E2B/E4B's audio tower and projector, held and trained as the vision's
            params["audio"] = b.model.params.audio;
        params["vision_trained"] = trainedVisionParams(b.model, s) > 0;
    }
    params["trainable"] = s.training.adapters()
                              ? loraParams(a, s.training).total
                              : b.model.params.total + trainedMtpParams(b.model, s) + trainedVisionParams(b.model, s);
    if (s.model.publishedTotal)
        params["published_total"] = *s.model.publishedTotal;
    if (s.model.publishedActive)
        params["published_active"] = *s.model.publishedActive;
    params["shape"] = {{"layers", a.layers},
                       {"hidden", a.hidden},
                       {"heads", a.heads},
                       {"kv_heads", a.kvHeadsOrDefault()},
                       {"head_dim", a.headDimOrDefault()},
                       {"ffn", a.ffn},
                       {"vocab", a.vocab}};
    if (a.kinds.fullShape()) // the full-attention layers' own shape (Gemma 4's global_head_dim, …)
        params["shape"]["full_attention"] = {{"layers", a.layersOfKind(LayerKind::Full)},
                                             {"kv_heads", a.kvHeadsOf(LayerKind::Full)},
                                             {"head_dim", a.headDimOf(LayerKind::Full)},
                                             {"k_eq_v", a.keyIsValueIn(LayerKind::Full)}};
    json warnings = json::array();
    for (const FieldError& w : b.warnings)
        warnings.push_back(w.path + ": " + w.message);
    const LayerActivations& l = b.layer;
    return {
        {"trainmem", "breakdown@1"},
        {"verdict", verdict(b, s, gpu)},
        {"params", params},
        {"bytes_per_param", b.bytesPerParam},
        {"bytes_per_param_detail",
         {{"weights", b.recipe.weights},
          {"gradients", b.recipe.gradients},
          {"master_weights", b.recipe.master},
          {"optimizer", b.recipe.optimizer},
          {"optimizer_slots", b.recipe.slotCount}}},
        {"model_state_bytes", b.modelStateBytes},
        {"per_gpu_bytes", segmentsJson(b.perGpu)},
        // Issue 30 §1: the three figures as the tools name them, for the busiest GPU: what
        // torch.cuda.max_memory_allocated() and max_memory_reserved() report, and the device's view (nvidia-smi),
        // which is per_gpu_bytes.total and what the verdict checks. Under --framework torchtune the first two are the
        // film's peak moment (toolsView(), core/memory/timeline.h); the device's view stays the bars' sum.
        {"peak_allocated_bytes", predictedStatistic(view, MemoryStatistic::PeakAllocated)},
        {"peak_reserved_bytes", predictedStatistic(view, MemoryStatistic::PeakReserved)},
        {"device_bytes", predictedStatistic(view, MemoryStatistic::DeviceUsed)},
        // Issue 30 §2–§3: the recipe the figures assume, after the framework profile filled what was unset.
        {"recipe",
         {{"loss", loss ? toString(*loss) : "default"},
          {"loss_set_by", s.training.loss         ? "scenario"
                          : (s.framework && loss) ? "framework"
                                                  : "default"},
          {"expandable_segments", effectiveExpandableSegments(s)},
          {"framework", s.framework ? toString(*s.framework) : "none"},
          {"framework_source", s.framework ? frameworkDefaults(*s.framework).source : ""},
          {"lora_targets", !s.training.adapters()        ? std::string()
                           : s.training.loraModules != 0 ? loraModulesList(s.training.loraModules)
                                                         : std::string(toString(s.training.loraTargets))},
          // The recipes as run (issue 30 §2): each the scenario's, else the framework's default.
          {"compile", effectiveCompile(s)},
          {"compile_loss", loss && effectiveCompileLoss(s, *loss)},
          {"optimizer_in_backward", effectiveOptimizerInBackward(s)},
          {"activation_offload", effectiveActivationOffload(s)},
          {"paged_optimizer", s.training.pagedOptimizer},
          {"reshard_after_forward", effectiveReshardAfterForward(s)},
          {"fsdp_flat_wrap", effectiveFsdpFlatWrap(s)},
          {"fsdp_no_sync", effectiveFsdpNoSync(s)},
          {"fsdp_root", toString(effectiveFsdpRoot(s))},
          {"recipe_defaults_source", s.framework ? frameworkDefaults(*s.framework).recipeSource : ""}}},
        {"single_gpu_bytes", segmentsJson(b.singleGpu)},
        {"per_node_host_bytes",
         {{"weights", b.perNodeHost.weights},
          {"gradients", b.perNodeHost.gradients},
          {"master_weights", b.perNodeHost.master},
          {"optimizer", b.perNodeHost.optimizer},
          {"activations", b.perNodeHost.activations},
          {"adapters", b.perNodeHost.adapters},
          {"total", b.perNodeHost.total()}}},
        {"activation_layer_bytes",
         {{"attention", l.attention},
          {"scores", l.scores},
          {"mlp", l.mlp},
          {"norms", l.norms},
          {"dropout", l.dropout},
          {"total", l.total()}}},
        {"gpu",
         {{"id", gpu.id},
          {"name", gpu.name},
          {"memory_bytes", gpu.memoryBytes},
          {"bf16_tflops", gpu.bf16Tflops},
          {"fp8_tflops", gpu.fp8Tflops},
          {"price_per_hour", gpu.pricePerHour ? nlohmann::json(*gpu.pricePerHour) : nullptr},
          {"host_memory_bytes", gpu.hostMemoryBytes}}},
        {"fits", b.fits},
        {"host_fits", b.hostFits},
        {"min_gpus_for_model_state", b.minGpusForModelState},
        {"min_gpus_to_fit", b.minGpusToFit},
        {"parallel",
         {{"gpus", b.layout.gpus},
          {"data_parallel", b.layout.dp},
          {"tp", b.layout.tp},
          {"pp", b.layout.pp},
          {"cp", b.layout.cp},
          {"sequence_parallel", s.training.sequenceParallelEffective(b.layout.tp)},
          {"ep", b.layout.ep},
          {"expert_data_parallel", b.layout.dpExpert},
          {"vpp", b.layout.vpp},
          {"etp", b.layout.etp},
          {"micro_batches_per_step", std::max<int64_t>(s.training.gradAccum, 1)},
          {"zero_stage", b.layout.zero},
          {"offload", toString(s.hardware.offload)},
          {"gpus_per_node", s.hardware.gpusPerNode},
          {"gpus_on_node", b.gpusOnNode},
          {"layers_per_stage", b.layersPerStage},
          {"busiest_stage", toString(b.stages[b.busiestStage].stage)},
          {"peak_stage", toString(b.stages[b.busiestStage].stage)},
          {"stages", stagesJson(b)}}},
        {"ranks", ranksJson(rankKinds(b.model, s))},
        {"timeline", timelineJson(film)},
        {"communication_bytes_per_step",
         {{"data_parallel", b.tax.dataParallel},
          {"tensor_parallel", b.tax.tensorParallel},
          {"pipeline_parallel", b.tax.pipelineParallel},
          {"expert_parallel", b.tax.expertParallel},
          {"context_parallel", b.tax.contextParallel},
          {"offload_pcie", b.tax.offload},
          {"total", b.tax.total()}}},
        {"cost",
         {{"tokens", s.cost.tokens},
          {"flops_per_token", cost.flopsPerToken},
          {"total_flops", cost.totalFlops},
          {"peak_flops_per_gpu", cost.peakFlopsPerGpu},
          {"mfu", cost.mfu},
          {"gpu_hours", cost.gpuHours},
          // Unknown (no scenario price, none in the catalog): null, never a $0 cost.
          {"price_per_gpu_hour", cost.priceKnown ? nlohmann::json(cost.pricePerGpuHour) : nullptr},
          {"cost_usd", cost.priceKnown ? nlohmann::json(cost.costUsd) : nullptr},
          {"pretraining_gpu_hours", cost.pretrainingGpuHours},
          {"phases", phasesJson(cost, s)},
          {"wall_clock_days", cost.wallClockDays}}},
        {"warnings", warnings},
        {"scenario", scenarioToJson(s)},
    };
}

std::string breakdownToText(const Breakdown& b, const Scenario& s, const GpuSpec& gpu)
{
    std::string out;
    auto line = [&](const char* label, double bytes) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "  %-16s %12s\n", label, formatBytes(bytes).c_str());
        out += buf;
    };
    out += (s.name.empty() ? std::string("Scenario") : s.name) + ": " +
           formatCount(static_cast<double>(b.model.params.total)) + " parameters";
    if (b.model.params.active != b.model.params.total)
        out += " (" + formatCount(static_cast<double>(b.model.params.active)) + " active)";
    if (const int64_t mtp = trainedMtpParams(b.model, s); mtp > 0)
        out += " + " + formatCount(static_cast<double>(mtp)) + " in " + std::to_string(b.model.arch.mtpLayers) +
               " multi-token-prediction module" + (b.model.arch.mtpLayers == 1 ? "" : "s");
    if (const int64_t vision = heldVisionParams(b.model); vision > 0)
        out += " + " + formatCount(static_cast<double>(vision)) +
               (b.model.params.audio > 0 ? " in the vision and audio towers" : " in the vision tower") +
               (s.training.adapters() ? " (frozen)" : "");
    out += ", " + std::string(toString(s.training.mode)) + ", " + toString(s.training.precision) + " + " +
           toString(s.training.optimizer) + ", context " + formatContext(s.training.seqLen) + ", micro-batch " +
           std::to_string(s.training.microBatch) + "\n";
    char buf[160];
    std::snprintf(buf, sizeof buf, "Model state: %s (%.4g bytes per parameter, whole model)\n",
                  formatBytes(b.modelStateBytes).c_str(), b.bytesPerParam);
    out += buf;
    const ParallelLayout& p = b.layout;
    out += "Per GPU (" + std::to_string(p.gpus) + " × " + gpu.id + ", ZeRO-" + std::to_string(p.zero) + ", tp " +
           std::to_string(p.tp) + (s.training.sequenceParallelEffective(p.tp) ? " + sp" : "") + ", pp " +
           std::to_string(p.pp) + (p.cp > 1 ? ", cp " + std::to_string(p.cp) : "") +
           (p.ep > 1 ? ", ep " + std::to_string(p.ep) : "") + (p.etp != p.tp ? ", etp " + std::to_string(p.etp) : "") +
           (p.vpp > 1 ? ", vpp " + std::to_string(p.vpp) : "") + ", dp " + std::to_string(p.dp) + "):\n";
    if (b.stages.size() > 1) {
        const StageMemory& busiest = b.stages[b.busiestStage];
        out += "Busiest pipeline stage: " + stageText(busiest, p.pp) + "; totals";
        for (const StageMemory& st : b.stages)
            out += std::string(" ") + toString(st.stage) + " " + formatBytes(st.bytes.total()) +
                   (&st == &b.stages.back() ? "" : ",");
        out += "\n";
    }
    const Segments& g = b.perGpu;
    for (SegmentKind k : kAllSegmentKinds) {
        const TermInfo& t = termInfo(k);
        if (t.textWhenZero || g.*t.field > 0)
            line(termLabel(k, s), g.*t.field);
    }
    line("total", g.total());
    line("GPU memory", gpu.memoryBytes);
    const ToolsView view = toolsView(s, b);
    out += "As the tools report it: peak allocated " +
           formatBytes(predictedStatistic(view, MemoryStatistic::PeakAllocated)) +
           " (torch.cuda.max_memory_allocated), peak reserved " +
           formatBytes(predictedStatistic(view, MemoryStatistic::PeakReserved)) + " (max_memory_reserved)" +
           (view.fromFilm ? ", both at the step's peak, " + view.where + ", as torchtune frees" : std::string()) +
           "; on the device " + formatBytes(predictedStatistic(view, MemoryStatistic::DeviceUsed)) +
           " (nvidia-smi; the verdict's figure" + (view.fromFilm ? ", the terms above, each at its largest" : "") +
           ")\n";
    if (s.hardware.offloadsOptimizer() && s.training.mode == Mode::Training) {
        const HostBytes& h = b.perNodeHost;
        out += "Host memory per node (" + std::to_string(b.gpusOnNode) + " GPU" + (b.gpusOnNode == 1 ? "" : "s") +
               ", offload " + toString(s.hardware.offload) + "):\n";
        line("weights", h.weights);
        line("gradients", h.gradients);
        line("master weights", h.master);
        line("optimizer", h.optimizer);
        if (h.adapters > 0) // LoRA/QLoRA under optimizer+params: the adapters and their optimizer on the host
            line("LoRA adapters", h.adapters);
        if (h.activations > 0)
            line("activations", h.activations);
        line("host total", h.total());
        if (b.hostMemoryBytes > 0)
            line("host memory", b.hostMemoryBytes);
    }
    out += verdict(b, s, gpu) + "\n";
    return out;
}

namespace {

// The setup in one line, as the text report's first line says it.
std::string setupLine(const Breakdown& b, const Scenario& s, const GpuSpec& gpu)
{
    const ParallelLayout& p = b.layout;
    std::string t = formatCount(static_cast<double>(b.model.params.total)) + " parameters";
    if (b.model.params.active != b.model.params.total)
        t += " (" + formatCount(static_cast<double>(b.model.params.active)) + " active)";
    t += ", " + std::string(toString(s.training.mode)) + ", " + toString(s.training.precision) + " + " +
         toString(s.training.optimizer) + ", context " + formatContext(s.training.seqLen) + ", micro-batch " +
         std::to_string(s.training.microBatch) + "; " + std::to_string(p.gpus) + " × " + gpu.id + ", ZeRO-" +
         std::to_string(p.zero) + ", tp " + std::to_string(p.tp) + ", pp " + std::to_string(p.pp) + ", dp " +
         std::to_string(p.dp);
    return t;
}

std::string wholeBytes(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", std::isfinite(v) ? v : 0.0);
    return buf;
}

// A CSV field: quoted when it holds a comma, a quote or a line break, quotes doubled (RFC 4180).
std::string csvField(const std::string& v)
{
    if (v.find_first_of(",\"\r\n") == std::string::npos)
        return v;
    std::string out = "\"";
    for (char c : v)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// A Markdown table cell: a "|" would end it.
std::string mdCell(std::string v)
{
    for (size_t i = v.find('|'); i != std::string::npos; i = v.find('|', i + 2))
        v.replace(i, 1, "\\|");
    return v;
}

} // namespace

std::string breakdownToMarkdown(const Breakdown& b, const Scenario& s, const GpuSpec& gpu)
{
    const Segments& g = b.perGpu;
    const double total = g.total();
    std::string out = "**" + mdCell(s.name.empty() ? std::string("Scenario") : s.name) +
                      "**: " + mdCell(setupLine(b, s, gpu)) + "\n\n";
    out += std::string("| Term | ") + (b.stages.size() > 1 ? "Per GPU (busiest stage)" : "Per GPU") +
           " | Share |\n|---|---:|---:|\n";
    for (SegmentKind k : kAllSegmentKinds) {
        const TermInfo& t = termInfo(k);
        const double v = g.*t.field;
        if (t.textWhenZero || v > 0)
            out += "| " + mdCell(termLabel(k, s)) + " | " + formatBytes(v) + " | " +
                   (total > 0 ? formatPercent(v / total) : std::string("—")) + " |\n";
    }
    out += "| **Total** | **" + formatBytes(total) + "** | 100% |\n";
    out += "| GPU memory (" + mdCell(gpu.id) + ") | " + formatBytes(gpu.memoryBytes) + " | |\n\n";
    out += mdCell(verdict(b, s, gpu)) + "\n";
    return out;
}

std::string breakdownToCsv(const Breakdown& b, const Scenario& s, const GpuSpec& gpu)
{
    const Segments& g = b.perGpu;
    const double total = g.total();
    std::string out = "term,label,bytes,share\r\n";
    auto row = [&](const std::string& id, const std::string& label, double v, bool share) {
        char pct[32] = "";
        if (share && total > 0)
            std::snprintf(pct, sizeof pct, "%.4f", v / total);
        out += csvField(id) + "," + csvField(label) + "," + wholeBytes(v) + "," + pct + "\r\n";
    };
    for (SegmentKind k : kAllSegmentKinds) {
        const TermInfo& t = termInfo(k);
        row(t.key, termLabel(k, s), g.*t.field, true);
    }
    row("total", "Total", total, true);
    row("gpu_memory", "GPU memory (" + gpu.id + ")", gpu.memoryBytes, false);
    return out;
}

} // namespace trainmem
