#include "accounting.h"

#include "lora.h"
#include "terms.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace trainmem {
namespace {

double dbl(int64_t v)
{
    return static_cast<double>(v);
}

} // namespace

double ringAttentionLayerBytes(const Architecture& a, const ActivationInputs& in, double tp)
{
    if (in.cp <= 1)
        return 0;
    // The widths of K and V attention sees: grouped-query heads share them (Megatron's docs note GQA
    // shrinks the exchange); MLA attends over up-projected per-head keys (nope + rope) and values.
    // With layer kinds the width is each kind's own (Gemma 4's full layers: global_head_dim ×
    // num_global_key_value_heads), averaged over the model's layers: linear-attention and Mamba-2 layers have no K
    // and V to pass (their recurrent state crosses ranks instead, not counted).
    double kv = 0;
    if (a.attention == AttentionKind::MLA) {
        kv = static_cast<double>(a.heads) *
             static_cast<double>(a.mla.qkNopeHeadDim + a.mla.qkRopeHeadDim + a.mla.vHeadDim);
    } else {
        for (const LayerKind k : {LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked})
            kv += static_cast<double>(a.layersOfKind(k)) * 2 * static_cast<double>(a.kvHeadsOf(k)) *
                  static_cast<double>(a.headDimOf(k));
        kv /= static_cast<double>(std::max<int64_t>(a.layers, 1));
    }
    // Each rank's K and V block of s/c tokens, its heads split by tensor parallel, passed c − 1 times around
    // the ring in forward; in backward K and V go round again and their gradients are reduce-scattered the same
    // way (Megatron-LM docs/user-guide/features/context_parallel.md at d98e8a6: "each GPU stores only the KV of
    // a sequence chunk in forward and gathers KV again in backward"; Liu et al. 2023, Ring Attention, §3).
    const double block = in.elementBytes * in.localSeq() * in.microBatch * kv / std::max(tp, 1.0);
    return 3 * (in.cp - 1) * block;
}

ActivationInputs activationInputs(const Scenario& s, double tp, double cp)
{
    ActivationInputs in;
    in.seq = dbl(std::clamp<int64_t>(s.training.seqLen, 1, kMaxSeq));
    in.microBatch = dbl(std::clamp<int64_t>(s.training.microBatch, 1, kMaxMicroBatch));
    in.checkpointing = s.training.checkpointing;
    in.flashAttention = s.training.flashAttention;
    in.fp8LinearInputs = s.training.precision == Precision::FP8Mixed;
    in.elementBytes = activationElementBytes(s.training.precision);
    in.tp = tp;
    in.sequenceParallel = s.training.sequenceParallel;
    in.cp = std::max(cp, 1.0);
    in.compiled = s.training.mode == Mode::Training && effectiveCompile(s);
    // torchtune's layers as its autograd keeps them (docs/accounting.md, "Framework profiles"): the profile names
    // the code the run executes, so the tape follows it.
    in.torchtuneTape = s.training.mode == Mode::Training && s.framework == Framework::Torchtune;
    // LitGPT's layer with a frozen base, and with QLoRA bitsandbytes' 4-bit linears (docs/accounting.md, "Framework
    // profiles"): under adapters only; a full fine-tune keeps the default tape.
    in.litgptTape = s.training.mode == Mode::Training && s.framework == Framework::LitGPT && s.training.adapters();
    in.bnb4bit = in.litgptTape && s.training.fineTune == FineTune::QLora;
    in.litgptFp32Norm = s.training.litgptFp32Norm;
    in.loraModules = s.training.loraModules != 0 ? s.training.loraModules : loraModulesOf(s.training.loraTargets);
    return in;
}

ParallelLayout parallelLayout(const Scenario& s, const ResolvedModel& m, FieldErrors* warnings)
{
    // The layout used is the scenario's when validateScenario() accepts it (the command line and
    // scenario files refuse the others, the window keeps its edits valid by withValidLayout()); a
    // scenario made some other way gets the nearest valid layout, with a warning naming each change.
    ParallelLayout p;
    const HardwareSetup& hw = s.hardware;
    HardwareSetup asked = hw;
    asked.cp = std::clamp<int64_t>(hw.cp, 1, kMaxGpus);
    // Serving on several GPUs with no layout given means splitting the weights across them
    // (tensor parallel), not replicating them.
    // (A context-parallel degree keeps its GPUs: the rest split the weights.)
    if (s.training.mode == Mode::Inference && hw.tp <= 1 && hw.pp <= 1)
        asked.tp = std::clamp<int64_t>(hw.gpus % asked.cp == 0 ? hw.gpus / asked.cp : hw.gpus, 1, kMaxGpus);
    // The resolved model's layers and experts (the size rule's shape for a size-only model).
    HardwareSetup used = layoutWithin(asked, m.arch.layers, m.arch.isMoe() ? m.arch.moe.experts : 0,
                                      modelHeads(s.model), modelKvHeads(s.model));
    // Megatron-LM's 2·cp chunks of a sequence (withValidLayout's rule): cp divides seq/2.
    const int64_t seq = std::clamp<int64_t>(s.training.seqLen, 1, kMaxSeq);
    used.cp = seq % 2 == 0 ? std::gcd(used.cp, seq / 2) : 1;
    p.gpus = used.gpus;
    p.tp = used.tp;
    p.pp = used.pp;
    p.ep = used.ep;
    p.vpp = used.vpp;
    p.etp = used.etpOrDefault();
    p.zero = std::clamp(hw.zeroStage, 0, 3);
    p.cp = used.cp;
    p.dp = p.gpus / (p.tp * p.pp * p.cp);
    // The expert data-parallel group EDP = gpus/(etp·ep·pp) shares each expert's weights; ZeRO
    // shards expert state over it (Megatron-LM: expert_data_parallel_size, the distributed
    // optimizer's expert buffers; theoretical_memory_usage.py's 6 + 12/edp per expert parameter).
    p.dpExpert = p.gpus / (p.etp * p.ep * p.pp);
    if (pipelineSplitProblem(hw.split, std::max<int64_t>(m.arch.layers, 1), p.pp, p.vpp,
                             std::max<int64_t>(m.arch.mtpLayers, 0))
            .empty())
        p.split = hw.split;
    if (warnings) {
        auto changed = [&](const char* path, const char* what, int64_t from, int64_t to) {
            if (from != to)
                warnings->push_back({"", path,
                                     std::string(what) + " " + std::to_string(from) + " is not a valid layout here; " +
                                         std::to_string(to) + " is used"});
        };
        changed("/hardware/gpus", "gpus", hw.gpus, p.gpus);
        changed("/hardware/tp", "tp", asked.tp, p.tp);
        changed("/hardware/pp", "pp", hw.pp, p.pp);
        changed("/hardware/ep", "ep", hw.ep, p.ep);
        changed("/hardware/vpp", "vpp", hw.vpp, p.vpp);
        changed("/hardware/context_parallel", "cp", asked.cp, p.cp);
        changed("/hardware/expert_tensor_parallel", "etp", asked.etpOrDefault(), p.etp);
    }
    return p;
}

Breakdown account(const Scenario& s, const GpuSpec& gpu)
{
    return account(resolveModel(s.model), s, gpu);
}

namespace {

// The busiest GPU's segments at `layout`: Breakdown::perGpu, without the rest of account().
Segments busiestGpu(const ResolvedModel& m, const Scenario& s, const ParallelLayout& layout, TermContext& peak)
{
    peak = termContext(m, s, layout);
    return peak.layout.pp > 1 ? peak.bytes : evaluateTerms(peak); // termContext evaluated the stages
}

// Inference: the smallest tensor-parallel count that fits, by doubling then bisection (memory per
// GPU falls monotonically with the split). 0 when even kMaxGpus does not fit. Each count is tested
// as account() would: the busiest GPU's total against the GPU's memory (serving offloads nothing, so
// the host always fits).
int64_t minInferenceGpus(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu)
{
    Scenario x = s;
    x.hardware.tp = x.hardware.pp = x.hardware.ep = 1;
    TermContext peak;
    auto fits = [&](int64_t n) {
        x.hardware.gpus = n;
        return busiestGpu(m, x, parallelLayout(x, m), peak).total() <= gpu.memoryBytes;
    };
    int64_t hi = 1;
    while (!fits(hi)) {
        if (hi >= kMaxGpus)
            return 0;
        hi = std::min(hi * 2, kMaxGpus);
    }
    int64_t lo = hi / 2; // does not fit (or 0)
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? hi : lo) = mid;
    }
    return hi;
}

// Training: the smallest GPU count that fits with ZeRO-3 at the layout's tp/pp (Breakdown::minGpusToFit).
// The busiest GPU's working set (activations, logits, workspace and the layer ZeRO-3 gathers) does not
// shrink with more data-parallel ranks; the model state does, as 1/ranks. So the ranks needed are
// The parameters a scenario keeps state for: the model's, and in full training its multi-token-prediction
// modules' (ParamCount::mtp, outside the published total), routed experts among them.
struct TrainedParams {
    double total = 0, routed = 0;
};
TrainedParams trainedParams(const ResolvedModel& m, const Scenario& s)
{
    const int64_t mtp = trainedMtpParams(m, s);
    // A multimodal wrapper's vision tower is held in every mode (its state follows the recipe: frozen under
    // LoRA/QLoRA), like the language model's dense parameters.
    return {dbl(m.params.total) + dbl(mtp) + dbl(heldVisionParams(m)),
            dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total)) +
                (mtp > 0 ? dbl(std::clamp<int64_t>(m.params.mtpRoutedExperts, 0, mtp)) : 0)};
}

// ⌈shardable / (usable − working)⌉, in whole context-parallel groups, times tp·pp.
struct Zero3Fit {
    int64_t gpus = 0;            ///< 0: never (see workingExceeds) or more than kMaxGpus
    bool workingExceeds = false; ///< the working set alone exceeds one GPU's usable memory
};

Zero3Fit zero3Fit(const ResolvedModel& m, const ParallelLayout& par, const Segments& pg, double gatheredLayerBytes,
                  double zero3Gather, double bytesPerParam, const Scenario& s, const GpuSpec& gpu,
                  double unshardedState)
{
    const TrainedParams p = trainedParams(m, s);
    const double mp = dbl(par.tp * par.pp);
    const double denseShare = (p.total - p.routed) / mp;                         // per model-parallel rank
    const double expertShare = p.routed / (dbl(par.etp * par.pp) * dbl(par.ep)); // experts split etp ways, not tp
    const double frag = std::clamp(s.hardware.fragmentation, 0.0, 1.0);
    const double framework = std::clamp(s.hardware.frameworkBytes, 0.0, 1e12);
    const double cap = std::max(gpu.memoryBytes, 1.0);
    // The reserve with expandable segments is at most kExpandableSegmentsReserve, else a fraction of the rest.
    const double usable =
        effectiveExpandableSegments(s) ? cap - framework - kExpandableSegmentsReserve : (cap - framework) / (1 + frag);
    // The search assumes ZeRO-3, so it counts the gathered layer even when this layout has none.
    // QLoRA's quantisation constants stay whole on every rank (qloraConstantsHeld): with the working set, not the
    // shardable state.
    const double rest =
        pg.activations + pg.logits + pg.workspace + (gatheredLayerBytes > 0 ? 0 : zero3Gather) + unshardedState;
    const double shardable = std::max(0.0, (denseShare + expertShare * dbl(par.ep)) * bytesPerParam -
                                               (bytesPerParam > 0 ? unshardedState : 0));
    Zero3Fit f;
    if (!(usable > rest)) { // NaN too
        f.workingExceeds = true;
        return f;
    }
    // ZeRO ranks come in whole context-parallel groups: gpus = tp·pp·cp·dp.
    const double cpRanks = dbl(par.cp);
    const double ranks = std::ceil(std::max(1.0, std::ceil(shardable / (usable - rest))) / cpRanks) * cpRanks;
    const double gpus = ranks * mp;
    f.gpus = gpus <= static_cast<double>(kMaxGpus) ? static_cast<int64_t>(gpus) : 0;
    return f;
}

// Breakdown::bytesPerParam: the recipe's, or under LoRA/QLoRA and quantised serving (whose 16-bit embeddings, head and
// norms sit beside the quantised linears) the one-GPU model state per parameter.
double bytesPerParamOf(const ResolvedModel& m, const Scenario& s, const StateRecipe& recipe, const Segments& singleGpu)
{
    const bool quantisedServing =
        s.training.mode == Mode::Inference && weightFormat(s.training.inferenceWeights).quantised();
    if (!s.training.adapters() && !quantisedServing)
        return recipe.total();
    const double total = dbl(m.params.total) + dbl(heldVisionParams(m));
    return total > 0 ? singleGpu.modelState() / total : 0;
}

// What one parameter keeps on the GPU under the ZeRO-3 the fit search assumes, with the scenario's offload (issue 31
// §1: the search honours the recipe the verdict does). ZeRO-Offload moves the fp32 gradients, the master weights and
// the optimizer state to host memory, leaving the 16-bit weights; ZeRO-Infinity (optimizer+params) moves those too
// (the one gathered layer stays, in the working set). LoRA's adapters stay on the GPU under optimizer offload and go
// to the host with the parameters (core/memory/terms.cpp, adapters).
double residentBytesPerParam(const ResolvedModel& m, const Scenario& s, const StateRecipe& recipe,
                             const Segments& singleGpu)
{
    const Offload offload = s.hardware.offload;
    if (offload == Offload::None || s.training.mode == Mode::Inference) // serving offloads nothing (termContext)
        return bytesPerParamOf(m, s, recipe, singleGpu);
    if (!s.training.adapters())
        return offload == Offload::OptimizerParams ? 0.0 : recipe.weights;
    const double total = dbl(m.params.total) + dbl(heldVisionParams(m));
    if (offload == Offload::OptimizerParams)
        return 0.0;
    return total > 0 ? singleGpu.modelState() / total : 0;
}

Breakdown accountImpl(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu);

} // namespace

Breakdown account(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu)
{
    return accountImpl(m, s, gpu);
}

GpusToFit gpusToFit(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu)
{
    GpusToFit out;
    if (s.training.mode != Mode::Training) {
        out.gpus = minInferenceGpus(m, s, gpu);
        out.never = out.gpus == 0;
        return out;
    }
    // What account() computes for the same terms, in the same order (tst_fitmap compares every cell).
    const ParallelLayout par = parallelLayout(s, m);
    TermContext peak;
    const Segments pg = busiestGpu(m, s, par, peak);
    const double zero3Gather = zero3GatheredLayer(peak);
    Segments one;
    if (s.training.adapters()) {
        TermContext single = termContext(m, s, ParallelLayout{});
        one = evaluateTerms(single);
    }
    const Zero3Fit f = zero3Fit(m, par, pg, peak.gathersLayer() ? zero3Gather : 0, zero3Gather,
                                residentBytesPerParam(m, s, peak.recipe, one), s, gpu, qloraConstantsHeld(peak));
    out.gpus = f.gpus;
    out.never = f.workingExceeds;
    return out;
}

namespace {

Breakdown accountImpl(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu)
{
    Breakdown r;
    r.model = m;
    const Architecture& a = m.arch;
    const ParallelLayout par = parallelLayout(s, m, &r.warnings);
    r.layout = par;
    r.dataParallel = par.dp;
    r.gpuMemoryBytes = gpu.memoryBytes;

    // Full training also trains the multi-token-prediction modules (ParamCount::mtp), outside the published total.
    const TrainedParams trained = trainedParams(m, s);
    const double total = trained.total;
    const double routed = trained.routed;
    const double dense = total - routed;
    const double mp = dbl(par.tp * par.pp);
    const double denseShare = dense / mp;                                      // per model-parallel rank
    const double expertShare = routed / (dbl(par.etp * par.pp) * dbl(par.ep)); // experts split etp ways, not tp
    const double L = dbl(std::max<int64_t>(a.layers, 1));
    const int64_t layersPerStage = par.maxStageLayers(a.layers);
    r.layersPerStage = layersPerStage;

    const ActivationInputs in = activationInputs(s, dbl(par.tp), dbl(par.cp));
    const double sb = in.localSeq() * in.microBatch; // this rank's tokens (s/cp under context parallel)
    const bool training = s.training.mode == Mode::Training;
    const double h = dbl(a.hidden);
    const int64_t denseLayers = a.isMoe() ? std::min(a.moe.denseLayers, a.layers) : a.layers;
    const double nMoe = L - dbl(denseLayers);

    // Every segment, of both views, from the table of terms (core/memory/terms.cpp).
    double zero3Gather = 0;          // the layer ZeRO-3 gathers whole (in the workspace term), for the fit search
    double quantConstants = 0;       // QLoRA's quant_state, whole on every rank, for the fit search
    Offload offload = Offload::None; // what this layout offloads to host memory
    StateRecipe adapterRecipe;       // LoRA/QLoRA: the adapters' recipe and count, for the tax
    LinearCount adapterParams;
    {
        TermContext one = termContext(m, s, ParallelLayout{});
        r.singleGpu = evaluateTerms(one);
        TermContext peak = termContext(m, s, par);                        // the busiest pipeline stage
        r.perGpu = peak.layout.pp > 1 ? peak.bytes : evaluateTerms(peak); // termContext evaluated the stages
        r.recipe = peak.recipe;
        r.stages = pipelineStages(peak);
        r.busiestStage = busiestStage(r.stages);
        r.lastStageIsPeak = peak.holdsHead();
        r.layer = peak.shownLayer();
        zero3Gather = zero3GatheredLayer(peak);
        quantConstants = qloraConstantsHeld(peak);
        if (peak.gathersLayer())
            r.gatheredLayerBytes = zero3Gather;
        adapterRecipe = peak.adapterRecipe;
        adapterParams = peak.adapterParams;
        // Offload (issue 9 §3): the host view of the same GPU, and a node's worth of them.
        const Segments host = hostTerms(peak);
        r.perGpuHost = {host.weights, host.gradients, host.master, host.optimizer, host.activations, host.adapters};
        offload = peak.offload;
    }
    r.gpusOnNode = std::clamp<int64_t>(std::min(par.gpus, s.hardware.gpusPerNode), 1, kMaxGpusPerNode);
    {
        const double n = dbl(r.gpusOnNode);
        r.perNodeHost = {r.perGpuHost.weights * n,   r.perGpuHost.gradients * n,   r.perGpuHost.master * n,
                         r.perGpuHost.optimizer * n, r.perGpuHost.activations * n, r.perGpuHost.adapters * n};
    }
    r.hostMemoryBytes = gpu.hostMemoryBytes;
    r.hostFits = gpu.hostMemoryBytes <= 0 || r.perNodeHost.total() <= gpu.hostMemoryBytes;
    // LoRA/QLoRA: the frozen (or NF4) base and the adapters' state, per parameter of the model.
    r.bytesPerParam = bytesPerParamOf(m, s, r.recipe, r.singleGpu);
    r.modelStateBytes = s.training.adapters() ? r.singleGpu.modelState() : total * r.bytesPerParam;

    // The tax (bytes sent per GPU per optimizer step).
    const double t = dbl(par.tp);
    if (training) {
        const double stageLayers = dbl(layersPerStage);
        const double micro = dbl(std::max<int64_t>(s.training.gradAccum, 1));
        const double e = in.elementBytes;
        // After the ZeRO paper §7 in bytes: plain data parallel all-reduces the gradients
        // (reduce-scatter + all-gather, 2Ψ); ZeRO-1/2 reduce-scatter the gradients and all-gather the
        // updated weights (the same 2Ψ); ZeRO-3 all-gathers the weights in forward and again in
        // backward and reduce-scatters the gradients (3Ψ, 1.5×). Each collective moves its own
        // precision (fp8-mixed: fp32 gradients, bf16 weights). Dense weights use the dp ranks,
        // experts the dp/ep ranks that share them.
        // LoRA freezes the base: it has no gradients to reduce and no update to all-gather (ZeRO-3
        // still gathers it for forward and backward); its adapters are reduced like any parameters.
        // Context-parallel ranks hold the same weights, so the dense collectives run over dp·cp ranks
        // (Megatron-LM reduces gradients over the data-parallel group with_context_parallel=True).
        if (par.replicas() > 1) {
            const bool frozen = s.training.adapters();
            auto ring = [](int64_t n) { return n > 1 ? dbl(n - 1) / dbl(n) : 0.0; };
            auto volume = [&](const StateRecipe& rc, bool updated, double denseCount, double expertCount) {
                const double g = rc.gradients, w = rc.weights;
                const double perElement = par.zero >= 3 ? g + 2 * w : par.zero >= 1 ? g + (updated ? w : 0) : 2 * g;
                return perElement * (denseCount * ring(par.replicas()) + expertCount * ring(par.dpExpert));
            };
            r.tax.dataParallel = volume(r.recipe, !frozen, denseShare, expertShare);
            if (frozen) {
                const double aRouted = dbl(std::min(adapterParams.routedExperts, adapterParams.total));
                r.tax.dataParallel += volume(adapterRecipe, true, (dbl(adapterParams.total) - aRouted) / mp,
                                             aRouted / (mp * dbl(par.ep)));
            }
        }
        if (par.tp > 1)
            r.tax.tensorParallel = micro * stageLayers * 4 * 2 * (t - 1) / t * e * sb * h;
        if (par.pp > 1)
            r.tax.pipelineParallel = micro * 2 * e * sb * h;
        // A latent MoE dispatches its tokens in the latent width, after fc1_latent_proj (the point of NVIDIA's
        // LatentMoE: the all-to-all shrinks by h / latent).
        if (par.ep > 1 && a.isMoe())
            r.tax.expertParallel = micro * (nMoe / dbl(par.pp)) * 4 * dbl(par.ep - 1) / dbl(par.ep) * e * sb *
                                   dbl(a.moe.activeExperts) * dbl(a.moe.expertIo(a.hidden));
        if (par.cp > 1)
            r.tax.contextParallel = micro * stageLayers * ringAttentionLayerBytes(a, in, dbl(par.tp));
        // Offload's PCIe traffic between this GPU and its host, per step, over this rank's ZeRO partition S
        // (Ren et al. 2021, ZeRO-Offload §4.1: the optimal offload strategy moves 4M per step, 2M of fp16 gradients
        // to the CPU and 2M of updated fp16 parameters back; §4.2: with data parallelism each rank moves its
        // partition only). The gradients go out every micro-batch (DeepSpeed accumulates them in the host's fp32
        // buffer: stage_1_and_2.py's async_accumulate_grad_in_cpu_via_gpu at edaa722). With the parameters offloaded
        // too (ZeRO-Infinity, Rajbhandari et al. 2021 §5), each rank fetches its shard of every layer from host
        // memory for forward and again for backward, every micro-batch, and the updated weights stay on the host.
        if (offload != Offload::None) {
            const double shard = denseShare / dbl(par.zero >= 1 ? par.replicas() : 1) + expertShare / dbl(par.dpExpert);
            const double bw = r.recipe.weights;
            const double gradsOut = r.recipe.gradients > 0 ? micro * bw * shard : 0; // 16-bit, as backward makes them
            if (offload == Offload::OptimizerParams)
                r.tax.offload = gradsOut + micro * 2 * bw * shard;
            else
                r.tax.offload = gradsOut + (r.recipe.gradients > 0 ? bw * shard : 0);
        }
    } else {
        if (par.tp > 1)
            r.tax.tensorParallel = dbl(layersPerStage) * 2 * 2 * (t - 1) / t * in.elementBytes * sb * h;
        if (par.cp > 1) // a context-parallel prefill passes K and V around the ring once, forward only
            r.tax.contextParallel = dbl(layersPerStage) * ringAttentionLayerBytes(a, in, dbl(par.tp)) / 3;
    }

    r.fits = r.perGpu.total() <= gpu.memoryBytes && r.hostFits;

    const double cap = std::max(gpu.memoryBytes, 1.0);
    r.minGpusForModelState = static_cast<int64_t>(std::max(1.0, std::ceil(r.modelStateBytes / cap)));

    // Smallest GPU count that fits with ZeRO-3 (training) or weight sharding (inference) at this tp/pp.
    if (!training)
        r.minGpusToFit = minInferenceGpus(m, s, gpu);
    else
        r.minGpusToFit = zero3Fit(m, par, r.perGpu, r.gatheredLayerBytes, zero3Gather,
                                  residentBytesPerParam(m, s, r.recipe, r.singleGpu), s, gpu, quantConstants)
                             .gpus;
    return r;
}

} // namespace

ContextSweep sweepContext(const Scenario& s, const GpuSpec& gpu, int pointsPerOctave)
{
    ContextSweep out;
    pointsPerOctave = std::clamp(pointsPerOctave, 1, 64);
    const ResolvedModel m = resolveModel(s.model);
    const double octaves = std::log2(kSweepMaxSeq / kSweepMinSeq);
    const int n = static_cast<int>(octaves) * pointsPerOctave + 1;
    out.seq.reserve(static_cast<size_t>(n));
    for (auto& v : out.totalPerGpu)
        v.reserve(static_cast<size_t>(n));
    for (auto& v : out.activationsPerGpu)
        v.reserve(static_cast<size_t>(n));

    Scenario x = s;
    auto tapeOf = [](const Segments& g) { return g.activations + g.logits + g.kvCache + g.recurrentState; };
    // Under context parallel every context of the sweep is a multiple of 2·cp (Megatron-LM's chunks), so
    // that each point keeps the scenario's cp instead of falling back to a smaller one between them.
    const int64_t chunk = 2 * std::clamp<int64_t>(s.hardware.cp, 1, kMaxGpus);
    auto sweepSeq = [chunk](double seq) {
        if (chunk <= 2)
            return static_cast<int64_t>(std::round(seq));
        return std::max<int64_t>(chunk, static_cast<int64_t>(std::round(seq / static_cast<double>(chunk))) * chunk);
    };
    // Each point needs only the busiest GPU's segments: the same layout and terms account() uses for
    // Breakdown::perGpu, without the one-GPU view, the stage list, the tax and the fit search.
    // The layout depends on the context only through cp's 2·cp chunks (parallelLayout), and every
    // context of the sweep is a multiple of 2·cp (sweepSeq): one layout serves every point.
    x.training.seqLen = sweepSeq(kSweepMinSeq);
    const ParallelLayout layout = parallelLayout(x, m);
    // A point differs from another only in its context and checkpointing, that is in its tapes: the views the
    // busiest stage is chosen from (stageViews, as termContext does) are placed and their model state evaluated
    // once, and each point gives them its tapes and evaluates the rest (evaluateTokenTerms). The busiest view is the
    // first of the largest totals, as pipelineStages() and busiestStage() choose it.
    const TermContext base = termContext(m, x, layout);
    std::vector<TermContext> views = layout.pp > 1 ? stageViews(base) : std::vector<TermContext>{base};
    if (layout.pp <= 1)
        evaluateTerms(views.front());
    auto perGpuAt = [&views](const Scenario& sc) {
        const Tapes tapes = tapesFor(views.front(), sc);
        size_t busiest = 0;
        double most = 0;
        for (size_t i = 0; i < views.size(); ++i) {
            useTapes(views[i], tapes, sc);
            const double total = evaluateTokenTerms(views[i]).total();
            if (i == 0 || total > most) {
                busiest = i;
                most = total;
            }
        }
        return views[busiest].bytes;
    };
    // The scenario's own mode at every point, for the crossover and dies-from searches below.
    std::vector<Segments> own;
    own.reserve(static_cast<size_t>(n));
    const int ownMode = static_cast<int>(s.training.checkpointing);
    for (int i = 0; i < n; ++i) {
        const double seq = std::round(kSweepMinSeq * std::exp2(static_cast<double>(i) / pointsPerOctave));
        x.training.seqLen = sweepSeq(seq);
        out.seq.push_back(static_cast<double>(x.training.seqLen));
        for (int mode = 0; mode < 3; ++mode) {
            x.training.checkpointing = static_cast<Checkpointing>(mode);
            const Segments g = perGpuAt(x);
            out.totalPerGpu[static_cast<size_t>(mode)].push_back(g.total());
            out.activationsPerGpu[static_cast<size_t>(mode)].push_back(tapeOf(g));
            if (i == 0 && mode == 0)
                out.modelStatePerGpu = g.modelState();
            if (mode == ownMode)
                own.push_back(g);
        }
    }
    out.capacity = gpu.memoryBytes;

    // Crossover and dies-from for the scenario's own mode: both grow monotonically with the context, so the
    // sweep's points bracket the first context where each holds, and a bisection over the whole tokens (whole 2·cp
    // chunks) between them finds it: about 12 evaluations each instead of a bisection over all 11 octaves.
    x.training.checkpointing = s.training.checkpointing;
    if (own.size() != out.seq.size()) { // a mode the three curves do not show: its own curve
        own.clear();
        out.perOpTotalPerGpu.reserve(out.seq.size());
        out.perOpActivationsPerGpu.reserve(out.seq.size());
        for (double seq : out.seq) {
            x.training.seqLen = static_cast<int64_t>(seq);
            own.push_back(perGpuAt(x));
            out.perOpTotalPerGpu.push_back(own.back().total());
            out.perOpActivationsPerGpu.push_back(tapeOf(own.back()));
        }
    }
    const int64_t unit = chunk <= 2 ? 1 : chunk;
    auto firstWhere = [&](auto pred) -> std::optional<double> {
        if (pred(own.front()))
            return kSweepMinSeq;
        size_t k = 1;
        while (k < own.size() && !pred(own[k]))
            ++k;
        if (k == own.size())
            return std::nullopt;
        int64_t lo = static_cast<int64_t>(out.seq[k - 1]) / unit, hi = static_cast<int64_t>(out.seq[k]) / unit;
        while (hi - lo > 1) {
            const int64_t mid = lo + (hi - lo) / 2;
            x.training.seqLen = mid * unit;
            (pred(perGpuAt(x)) ? hi : lo) = mid;
        }
        return static_cast<double>(hi * unit);
    };
    out.crossoverSeq = firstWhere([&](const Segments& g) { return tapeOf(g) >= g.modelState(); });
    out.diesFromSeq = firstWhere([&](const Segments& g) { return g.total() > gpu.memoryBytes; });
    return out;
}

int64_t ParallelLayout::maxStageLayers(int64_t layers) const
{
    if (pp <= 1 || split.isDefault())
        return layersOnStage(split, layers, pp, 0);
    if (split.hasLayout()) {
        int64_t most = 0;
        for (int64_t i = 0; i < pp; ++i)
            most = std::max(most, stageLayers(layers, i));
        return most;
    }
    // Uneven: the first, a middle and the last stage are the only shapes there are.
    return std::max({stageLayers(layers, 0), stageLayers(layers, pp > 2 ? 1 : 0), stageLayers(layers, pp - 1)});
}

FieldErrors validateScenario(const Scenario& s, const std::string& where)
{
    FieldErrors errs;
    auto bad = [&](const char* path, const std::string& msg) { errs.push_back({where, path, msg}); };
    const auto& t = s.training;
    const auto& hw = s.hardware;
    if (!s.model.hasArchitecture) {
        if (s.model.params < 1 || s.model.params > kMaxParams)
            bad("/model/params", "must be between 1 and 10^15, got " + std::to_string(s.model.params));
        if (s.model.activeParams < 0 || s.model.activeParams > s.model.params)
            bad("/model/active_params", "must be between 0 and params (" + std::to_string(s.model.params) + "), got " +
                                            std::to_string(s.model.activeParams));
    }
    if (t.seqLen < 1 || t.seqLen > kMaxSeq)
        bad("/training/seq_len", "must be between 1 and 16777216, got " + std::to_string(t.seqLen));
    if (t.microBatch < 1 || t.microBatch > kMaxMicroBatch)
        bad("/training/micro_batch", "must be between 1 and 65536, got " + std::to_string(t.microBatch));
    if (t.gradAccum < 1 || t.gradAccum > 1'000'000)
        bad("/training/grad_accum", "must be between 1 and 1000000, got " + std::to_string(t.gradAccum));
    if (t.loraRank < 1 || t.loraRank > kMaxLoraRank)
        bad("/training/lora_rank",
            "must be between 1 and " + std::to_string(kMaxLoraRank) + ", got " + std::to_string(t.loraRank));
    if (hw.gpus < 1 || hw.gpus > kMaxGpus)
        bad("/hardware/gpus", "must be between 1 and 10000000, got " + std::to_string(hw.gpus));
    if (hw.zeroStage < 0 || hw.zeroStage > 3)
        bad("/hardware/zero_stage", "must be 0, 1, 2 or 3, got " + std::to_string(hw.zeroStage));
    for (auto [path, v] : {std::pair{"/hardware/tp", hw.tp}, {"/hardware/pp", hw.pp}, {"/hardware/ep", hw.ep}})
        if (v < 1 || v > hw.gpus)
            bad(path,
                "must be between 1 and the GPU count (" + std::to_string(hw.gpus) + "), got " + std::to_string(v));
    const bool degreesInRange = hw.gpus >= 1 && hw.gpus <= kMaxGpus && hw.tp >= 1 && hw.tp <= hw.gpus && hw.pp >= 1 &&
                                hw.pp <= hw.gpus && hw.ep >= 1 && hw.ep <= hw.gpus;
    // Megatron-LM (megatron/core/transformer/attention.py divides num_attention_heads by the tensor-parallel size)
    // and vLLM split whole attention heads: 10^7-way tp of a 32-head model "fitted" in fractions of a head.
    if (const int64_t heads = modelHeads(s.model); degreesInRange && heads > 0 && heads % hw.tp != 0)
        bad("/hardware/tp", "must divide the model's " + std::to_string(heads) +
                                " attention heads (Megatron-LM and vLLM split whole heads), got " +
                                std::to_string(hw.tp));
    // transformer_config.py at d98e8a6: "num_query_groups … must be a multiple or divisor of
    // tensor_model_parallel_size"; vLLM replicates key/value heads only when tp is a multiple of them.
    else if (const int64_t kv = modelKvHeads(s.model); degreesInRange && kv > 0 && kv % hw.tp != 0 && hw.tp % kv != 0)
        bad("/hardware/tp", "must be a multiple or a divisor of the model's " + std::to_string(kv) +
                                " key/value heads (query groups: Megatron-LM and vLLM split them whole or copy them), "
                                "got " +
                                std::to_string(hw.tp));
    if (degreesInRange && hw.gpus % (hw.tp * hw.pp) != 0)
        bad("/hardware/gpus",
            "must be a multiple of tp·pp (" + std::to_string(hw.tp * hw.pp) + "), got " + std::to_string(hw.gpus));
    // Context parallel (issue 9 §4): the GPUs are tp·pp·cp·dp, and Megatron-LM cuts each sequence into 2·cp
    // load-balanced chunks (megatron/training/arguments.py at d98e8a6 asserts seq_length % (2·cp) == 0).
    if (hw.cp < 1 || hw.cp > std::max<int64_t>(hw.gpus, 1))
        bad("/hardware/context_parallel",
            "must be between 1 and the GPU count (" + std::to_string(hw.gpus) + "), got " + std::to_string(hw.cp));
    else if (degreesInRange && hw.gpus % (hw.tp * hw.pp) == 0 && (hw.gpus / (hw.tp * hw.pp)) % hw.cp != 0)
        bad("/hardware/context_parallel", "must divide gpus/(tp·pp) = " + std::to_string(hw.gpus) + "/" +
                                              std::to_string(hw.tp * hw.pp) + " = " +
                                              std::to_string(hw.gpus / (hw.tp * hw.pp)) +
                                              " (the GPUs are tp·pp·cp·dp), got " + std::to_string(hw.cp));
    else if (hw.cp > 1 && t.seqLen >= 1 && t.seqLen % (2 * hw.cp) != 0)
        bad("/hardware/context_parallel",
            "2·cp = " + std::to_string(2 * hw.cp) + " must divide the sequence length " + std::to_string(t.seqLen) +
                " (Megatron-LM cuts each sequence into 2·cp load-balanced chunks), got " + std::to_string(hw.cp));
    // The layout must be one a framework can run, so that what is reported is what was asked
    // (issue 13): a pipeline stage holds at least one layer, and expert parallelism places whole
    // experts (Megatron-LM's arguments.py asserts num_experts % expert_model_parallel_size == 0 and
    // world_size % (expert_tensor_parallel_size · ep · pp) == 0; expert tensor parallel is tp here).
    const bool modelCounted = s.model.hasArchitecture
                                  ? s.model.architecture.layers >= 1 && s.model.architecture.layers <= kMaxLayers
                                  : s.model.params >= 1 && s.model.params <= kMaxParams;
    if (hw.vpp < 1 || hw.vpp > kMaxLayers)
        bad("/hardware/vpp", "must be between 1 and 10000, got " + std::to_string(hw.vpp));
    else if (hw.vpp > 1 && hw.pp == 1)
        bad("/hardware/vpp", "must be 1 without pipeline parallelism (pp 1): the interleaved schedule splits pipeline "
                             "stages, got " +
                                 std::to_string(hw.vpp));
    if (degreesInRange && modelCounted) {
        const int64_t layers = modelLayers(s.model);
        if (const std::string why = pipelineSplitProblem(hw.split, layers, hw.pp, hw.vpp, modelMtpLayers(s.model));
            !why.empty())
            bad(pipelineSplitField(hw.split), why);
        // A split's own rules say what each stage holds (the embedding or the loss in the split, or a layout, may
        // leave a stage no transformer layer, as Megatron-LM allows); the even split gives each at least one.
        const bool even = hw.split.isDefault();
        if (even && hw.pp > layers)
            bad("/hardware/pp", "must not exceed the model's " + std::to_string(layers) +
                                    " layers (a pipeline stage holds at least one), got " + std::to_string(hw.pp));
        else if (even && hw.vpp > 1 && hw.vpp <= kMaxLayers && hw.pp * hw.vpp > layers)
            bad("/hardware/vpp", "pp·vpp = " + std::to_string(hw.pp) + "·" + std::to_string(hw.vpp) + " = " +
                                     std::to_string(hw.pp * hw.vpp) + " must not exceed the model's " +
                                     std::to_string(layers) + " layers (a virtual stage holds at least one), got " +
                                     std::to_string(hw.vpp));
        const int64_t experts = modelExperts(s.model);
        const int64_t etp = hw.etpOrDefault();
        if (experts == 0 && hw.etp > 0)
            bad("/hardware/expert_tensor_parallel",
                "must not be set: the model has no mixture-of-experts layers, got " + std::to_string(hw.etp));
        else if (experts > 0 && hw.etp > 0 &&
                 (hw.etp > hw.gpus || (hw.gpus / hw.pp) % hw.etp != 0 || hw.gpus % hw.pp != 0))
            bad("/hardware/expert_tensor_parallel",
                "must divide gpus/pp = " + std::to_string(hw.gpus) + "/" + std::to_string(hw.pp) + " = " +
                    std::to_string(hw.gpus / hw.pp) + ", got " + std::to_string(hw.etp));
        else if (experts == 0 && hw.ep > 1)
            bad("/hardware/ep",
                "must be 1: the model has no mixture-of-experts layers to split, got " + std::to_string(hw.ep));
        else if (experts > 0 && experts % hw.ep != 0)
            bad("/hardware/ep",
                "must divide the model's " + std::to_string(experts) + " experts, got " + std::to_string(hw.ep));
        else if (experts > 0 && hw.gpus % (etp * hw.pp) == 0 && (hw.gpus / (etp * hw.pp)) % hw.ep != 0)
            bad("/hardware/ep", "must divide gpus/(etp·pp) = " + std::to_string(hw.gpus) + "/" +
                                    std::to_string(etp * hw.pp) + " = " + std::to_string(hw.gpus / (etp * hw.pp)) +
                                    " (the expert grid etp·ep·pp = " + std::to_string(etp * hw.ep * hw.pp) +
                                    " must divide the GPUs; etp is tp unless set), got " + std::to_string(hw.ep));
    }
    // Offload (issue 9 §3) follows DeepSpeed's rules (deepspeed/runtime/zero/config.py, DeepSpeedZeroConfig's
    // docstrings): offload_optimizer is "Valid for ZeRO stage 1, 2, 3", offload_param "Valid only with stage 3".
    // Serving ignores it, like the ZeRO stage.
    if (hw.gpusPerNode < 1 || hw.gpusPerNode > kMaxGpusPerNode)
        bad("/hardware/gpus_per_node",
            "must be between 1 and " + std::to_string(kMaxGpusPerNode) + ", got " + std::to_string(hw.gpusPerNode));
    if (t.mode == Mode::Training && hw.zeroStage >= 0 && hw.zeroStage <= 3) {
        if (hw.offload == Offload::OptimizerParams && hw.zeroStage != 3)
            bad("/hardware/offload", "optimizer+params needs ZeRO stage 3 (DeepSpeed offloads parameters only with "
                                     "stage 3), got zero_stage " +
                                         std::to_string(hw.zeroStage));
        else if (hw.offload == Offload::Optimizer && hw.zeroStage < 1)
            bad("/hardware/offload",
                "optimizer needs ZeRO stage 1, 2 or 3 (DeepSpeed's optimizer offload partitions the optimizer "
                "state over the data-parallel ranks), got zero_stage 0");
    }
    // The optimizer step in backward (issue 30 §2, "Bad input"): each parameter is stepped as soon as its gradient is
    // ready and the gradient freed, so there is nothing to accumulate over micro-batches (torchtune bd2a0fc
    // recipes/full_finetune_single_device.py: "Gradient accumulation is not supported with optimizer_in_bwd: True").
    if (t.mode == Mode::Training && effectiveOptimizerInBackward(s) && t.gradAccum > 1)
        bad("/training/optimizer_in_backward",
            "cannot be on with grad_accum " + std::to_string(t.gradAccum) +
                ": the optimizer steps each parameter as soon as its gradient is ready and frees the gradient, so "
                "nothing accumulates over micro-batches (torchtune refuses the same); set grad_accum to 1 or turn the "
                "optimizer step in backward off");
    // FSDP1's no_sync() (/hardware/fsdp_no_sync) is modelled for a bf16 base in flat parameters on the GPU. Not for a
    // quantised base (LitGPT 8641822 finetune/lora.py refuses quantization with devices > 1, so no measured run says
    // what its flat parameters hold) nor with FSDP1's CPUOffload, whose gradients "will not be offloaded to CPU when
    // inside the context manager" (fully_sharded_data_parallel.py at 005df1d, no_sync): refused rather than guessed.
    if (t.mode == Mode::Training && hw.fsdpNoSync.value_or(false) && t.fineTune == FineTune::QLora)
        bad("/hardware/fsdp_no_sync",
            "cannot be on with finetune qlora: what FSDP1's flat parameters of a quantised base accumulate is not "
            "modelled (LitGPT refuses quantization on more than one device); turn fsdp_no_sync off or use lora");
    else if (t.mode == Mode::Training && hw.fsdpNoSync.value_or(false) && hw.offload != Offload::None)
        bad("/hardware/fsdp_no_sync",
            std::string("cannot be on with offload ") + toString(hw.offload) +
                ": inside no_sync() FSDP1 keeps the gradients on the GPU until the sync, which TrainMem does not "
                "model; turn fsdp_no_sync or the offload off");
    // What an FSDP2 wrap keeps gathered (/hardware/fsdp_root) and FSDP1's flat wrap, whose root unit is counted
    // (fsdp1RootGathered), describe two different wraps of one model.
    if (t.mode == Mode::Training && hw.fsdpRoot.value_or(FsdpRoot::None) != FsdpRoot::None && effectiveFsdpFlatWrap(s))
        bad("/hardware/fsdp_root",
            std::string("cannot be ") + toString(*hw.fsdpRoot) +
                " with fsdp_flat_wrap on: fsdp_root is what an FSDP2 (fully_shard) wrap keeps gathered, fsdp_flat_wrap "
                "is FSDP1's, whose root unit is already counted; set fsdp_root to none or fsdp_flat_wrap off");
    // A base published in MXFP4 or NVFP4 (/training/qlora_base) is QLoRA's only: its own constants, not bitsandbytes'
    // (no double quantisation to switch), and not through fsdp_qlora's offload of bitsandbytes' Params4bit, nor
    // through LitGPT, whose QLoRA is bitsandbytes'.
    if (t.qloraBase != QloraBase::NF4) {
        const std::string base = toString(t.qloraBase);
        if (t.fineTune != FineTune::QLora)
            bad("/training/qlora_base", "is " + base + ": a QLoRA base's format applies only with finetune qlora");
        else if (!t.qloraDoubleQuant)
            bad("/training/qlora_double_quant",
                "cannot be false with qlora_base " + base +
                    ": double quantisation is bitsandbytes' NF4's; the base's scales are its format's");
        else if (hw.offload == Offload::OptimizerParams)
            bad("/training/qlora_base", "cannot be " + base +
                                            " with offload optimizer+params: the offloaded QLoRA base is modelled "
                                            "for bitsandbytes' NF4 (fsdp_qlora's Params4bit); use nf4 or offload "
                                            "optimizer");
        else if (s.framework == Framework::LitGPT)
            bad("/training/qlora_base", "cannot be " + base +
                                            " with framework litgpt: LitGPT's QLoRA is "
                                            "bitsandbytes' (nf4); use nf4 or no framework");
    }
    if (!(hw.fragmentation >= 0 && hw.fragmentation <= 1))
        bad("/hardware/fragmentation", "must be a fraction between 0 and 1");
    if (!(hw.frameworkBytes >= 0 && hw.frameworkBytes <= 1e12))
        bad("/hardware/framework_bytes", "must be between 0 and 1e12 bytes");
    if (!(s.cost.mfu > 0 && s.cost.mfu <= 1))
        bad("/cost/mfu", "must be a fraction in (0, 1]");
    if (!(s.cost.tokens >= 0 && s.cost.tokens <= 1e18))
        bad("/cost/tokens", "must be between 0 and 1e18");
    if (!(s.cost.pricePerGpuHour >= 0 && s.cost.pricePerGpuHour <= 1e6))
        bad("/cost/price_per_gpu_hour", "must be between 0 and 1e6 USD");
    return errs;
}

FieldErrors validateHost(const Scenario& s, const GpuSpec& gpu, const std::string& where)
{
    FieldErrors errs;
    if (s.training.mode != Mode::Training || gpu.hostMemoryBytes > 0)
        return errs;
    const std::string none = "the GPU catalog gives the " + gpu.id + " no host memory (host_memory_gb)";
    if (s.training.pagedOptimizer)
        errs.push_back(
            {where, "/training/paged_optimizer",
             "a paged optimizer keeps its state in unified memory that pages out to the host's memory, and " + none +
                 "; choose a GPU with a host or an optimizer that is not paged"});
    if (effectiveActivationOffload(s))
        errs.push_back({where, "/training/activation_offload",
                        "activation offloading keeps the tape in the host's memory, and " + none +
                            "; choose a GPU with a host or turn activation offloading off"});
    return errs;
}

} // namespace trainmem
