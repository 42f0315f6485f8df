#include "accounting.h"

#include "terms.h"

#include <algorithm>
#include <cmath>

namespace trainmem {
namespace {

double dbl(int64_t v) { return static_cast<double>(v); }

}  // namespace

ActivationInputs activationInputs(const Scenario& s, double tp)
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
    return in;
}

ParallelLayout parallelLayout(const Scenario& s, const ResolvedModel& m, FieldErrors* warnings)
{
    ParallelLayout p;
    const HardwareSetup& hw = s.hardware;
    p.gpus = std::clamp<int64_t>(hw.gpus, 1, kMaxGpus);
    p.tp = std::clamp<int64_t>(hw.tp, 1, p.gpus);
    // Serving on several GPUs with no layout given means splitting the weights across them
    // (tensor parallel), not replicating them.
    if (s.training.mode == Mode::Inference && hw.tp <= 1 && hw.pp <= 1)
        p.tp = p.gpus;
    p.pp = std::clamp<int64_t>(hw.pp, 1, std::max<int64_t>(1, std::min(p.gpus / p.tp, m.arch.layers)));
    p.zero = std::clamp(hw.zeroStage, 0, 3);
    p.dp = std::max<int64_t>(1, p.gpus / (p.tp * p.pp));
    if (p.dp * p.tp * p.pp != p.gpus && warnings)
        warnings->push_back({"", "/hardware/gpus",
                            "not a multiple of tp·pp; " + std::to_string(p.dp * p.tp * p.pp)
                                + " GPUs are used"});
    const int64_t experts = m.arch.isMoe() ? m.arch.moe.experts : 1;
    p.ep = std::clamp<int64_t>(hw.ep, 1, std::max<int64_t>(1, std::min(p.dp, experts)));
    if (p.ep != hw.ep && hw.ep > 1 && warnings)
        warnings->push_back({"", "/hardware/ep", "limited to " + std::to_string(p.ep)
                                                    + " (the data-parallel ranks and the experts)"});
    p.dpExpert = std::max<int64_t>(1, p.dp / p.ep);
    return p;
}

Breakdown account(const Scenario& s, const GpuSpec& gpu)
{
    return account(resolveModel(s.model), s, gpu);
}

namespace {

Breakdown accountImpl(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu, bool searchMinimum);

// Inference: the smallest tensor-parallel count that fits, by doubling then bisection (memory per
// GPU falls monotonically with the split). 0 when even kMaxGpus does not fit.
int64_t minInferenceGpus(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu)
{
    Scenario x = s;
    x.hardware.tp = x.hardware.pp = x.hardware.ep = 1;
    auto fits = [&](int64_t n) {
        x.hardware.gpus = n;
        return accountImpl(m, x, gpu, false).fits;
    };
    int64_t hi = 1;
    while (!fits(hi)) {
        if (hi >= kMaxGpus)
            return 0;
        hi = std::min(hi * 2, kMaxGpus);
    }
    int64_t lo = hi / 2;  // does not fit (or 0)
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? hi : lo) = mid;
    }
    return hi;
}

}  // namespace

Breakdown account(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu)
{
    return accountImpl(m, s, gpu, true);
}

namespace {

Breakdown accountImpl(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu, bool searchMinimum)
{
    Breakdown r;
    r.model = m;
    const Architecture& a = m.arch;
    const ParallelLayout par = parallelLayout(s, m, &r.warnings);
    r.dataParallel = par.dp;
    r.gpuMemoryBytes = gpu.memoryBytes;

    const double total = dbl(m.params.total);
    const double routed = dbl(std::clamp<int64_t>(m.params.routedExperts, 0, m.params.total));
    const double dense = total - routed;
    const double mp = dbl(par.tp * par.pp);
    const double denseShare = dense / mp;                    // per model-parallel rank
    const double expertShare = routed / (mp * dbl(par.ep));
    const double L = dbl(std::max<int64_t>(a.layers, 1));
    const int64_t layersPerStage = (std::max<int64_t>(a.layers, 1) + par.pp - 1) / par.pp;
    r.layersPerStage = layersPerStage;

    const ActivationInputs in = activationInputs(s, dbl(par.tp));
    const double sb = in.seq * in.microBatch;
    const bool training = s.training.mode == Mode::Training;
    const double h = dbl(a.hidden);
    const int64_t denseLayers = a.isMoe() ? std::min(a.moe.denseLayers, a.layers) : a.layers;
    const double nMoe = L - dbl(denseLayers);

    // Every segment, of both views, from the table of terms (core/terms.cpp).
    double zero3Gather = 0;  // the layer ZeRO-3 gathers whole (in the workspace term), for the fit search
    StateRecipe adapterRecipe;  // LoRA/QLoRA: the adapters' recipe and count, for the tax
    LinearCount adapterParams;
    {
        TermContext one = termContext(m, s, ParallelLayout{});
        r.singleGpu = evaluateTerms(one);
        TermContext peak = termContext(m, s, par);
        r.perGpu = evaluateTerms(peak);
        r.recipe = peak.recipe;
        r.lastStageIsPeak = peak.lastStageIsPeak;
        r.layer = peak.shownLayer();
        zero3Gather = zero3GatheredLayer(peak);
        adapterRecipe = peak.adapterRecipe;
        adapterParams = peak.adapterParams;
    }
    r.bytesPerParam = r.recipe.total();
    r.modelStateBytes = total * r.bytesPerParam;
    if (s.training.adapters()) {
        // LoRA/QLoRA: the frozen (or NF4) base and the adapters' state, per parameter of the model.
        r.modelStateBytes = r.singleGpu.modelState();
        r.bytesPerParam = total > 0 ? r.modelStateBytes / total : 0;
    }

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
        if (par.dp > 1) {
            const bool frozen = s.training.adapters();
            auto ring = [](int64_t n) { return n > 1 ? dbl(n - 1) / dbl(n) : 0.0; };
            auto volume = [&](const StateRecipe& rc, bool updated, double denseCount, double expertCount) {
                const double g = rc.gradients, w = rc.weights;
                const double perElement = par.zero >= 3 ? g + 2 * w : par.zero >= 1 ? g + (updated ? w : 0) : 2 * g;
                return perElement * (denseCount * ring(par.dp) + expertCount * ring(par.dpExpert));
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
        if (par.ep > 1 && a.isMoe())
            r.tax.expertParallel = micro * (nMoe / dbl(par.pp)) * 4 * dbl(par.ep - 1) / dbl(par.ep) * e * sb
                                   * dbl(a.moe.activeExperts) * h;
    } else if (par.tp > 1) {
        r.tax.tensorParallel = dbl(layersPerStage) * 2 * 2 * (t - 1) / t * in.elementBytes * sb * h;
    }

    const double frag = std::clamp(s.hardware.fragmentation, 0.0, 1.0);
    const double framework = std::clamp(s.hardware.frameworkBytes, 0.0, 1e12);
    r.fits = r.perGpu.total() <= gpu.memoryBytes;

    const double cap = std::max(gpu.memoryBytes, 1.0);
    r.minGpusForModelState = static_cast<int64_t>(std::max(1.0, std::ceil(r.modelStateBytes / cap)));

    // Smallest GPU count that fits with ZeRO-3 (training) or weight sharding (inference) at this tp/pp.
    const double usable = (cap - framework) / (1 + frag);
    const Segments& pg = r.perGpu;
    // The search assumes ZeRO-3, so it counts the gathered layer even when this layout has none.
    const double rest = pg.activations + pg.logits + pg.workspace + (par.zero >= 3 && par.dp > 1 ? 0 : zero3Gather);
    const double shardable = (denseShare + expertShare * dbl(par.ep)) * r.bytesPerParam;
    if (!training) {
        if (searchMinimum)
            r.minGpusToFit = minInferenceGpus(m, s, gpu);
    } else if (usable > rest) {
        const double ranks = std::max(1.0, std::ceil(shardable / (usable - rest)));
        const double gpus = ranks * mp;
        r.minGpusToFit = gpus <= static_cast<double>(kMaxGpus) ? static_cast<int64_t>(gpus) : 0;
    }
    return r;
}

}  // namespace

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
    auto tapeOf = [](const Segments& g) { return g.activations + g.logits + g.kvCache; };
    for (int i = 0; i < n; ++i) {
        const double seq = std::round(kSweepMinSeq * std::exp2(static_cast<double>(i) / pointsPerOctave));
        out.seq.push_back(seq);
        x.training.seqLen = static_cast<int64_t>(seq);
        for (int mode = 0; mode < 3; ++mode) {
            x.training.checkpointing = static_cast<Checkpointing>(mode);
            const Breakdown b = account(m, x, gpu);
            out.totalPerGpu[static_cast<size_t>(mode)].push_back(b.perGpu.total());
            out.activationsPerGpu[static_cast<size_t>(mode)].push_back(tapeOf(b.perGpu));
            if (i == 0 && mode == 0)
                out.modelStatePerGpu = b.perGpu.modelState();
        }
    }
    out.capacity = gpu.memoryBytes;

    // Crossover and dies-from for the scenario's own mode, by bisection on log2(seq): both
    // quantities grow monotonically with the context.
    x.training.checkpointing = s.training.checkpointing;
    auto at = [&](double seq) {
        x.training.seqLen = static_cast<int64_t>(std::round(seq));
        return account(m, x, gpu);
    };
    auto firstWhere = [&](auto pred) -> std::optional<double> {
        double lo = std::log2(kSweepMinSeq), hi = std::log2(kSweepMaxSeq);
        if (pred(at(kSweepMinSeq)))
            return kSweepMinSeq;
        if (!pred(at(kSweepMaxSeq)))
            return std::nullopt;
        for (int it = 0; it < 24; ++it) {
            const double mid = 0.5 * (lo + hi);
            (pred(at(std::exp2(mid))) ? hi : lo) = mid;
        }
        return std::round(std::exp2(hi));
    };
    out.crossoverSeq = firstWhere([&](const Breakdown& b) { return tapeOf(b.perGpu) >= b.perGpu.modelState(); });
    out.diesFromSeq = firstWhere([&](const Breakdown& b) { return b.perGpu.total() > gpu.memoryBytes; });
    return out;
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
            bad("/model/active_params", "must be between 0 and params (" + std::to_string(s.model.params)
                                            + "), got " + std::to_string(s.model.activeParams));
    }
    if (t.seqLen < 1 || t.seqLen > kMaxSeq)
        bad("/training/seq_len", "must be between 1 and 16777216, got " + std::to_string(t.seqLen));
    if (t.microBatch < 1 || t.microBatch > kMaxMicroBatch)
        bad("/training/micro_batch", "must be between 1 and 65536, got " + std::to_string(t.microBatch));
    if (t.gradAccum < 1 || t.gradAccum > 1'000'000)
        bad("/training/grad_accum", "must be between 1 and 1000000, got " + std::to_string(t.gradAccum));
    if (t.loraRank < 1 || t.loraRank > kMaxLoraRank)
        bad("/training/lora_rank", "must be between 1 and " + std::to_string(kMaxLoraRank) + ", got "
                                       + std::to_string(t.loraRank));
    if (hw.gpus < 1 || hw.gpus > kMaxGpus)
        bad("/hardware/gpus", "must be between 1 and 10000000, got " + std::to_string(hw.gpus));
    if (hw.zeroStage < 0 || hw.zeroStage > 3)
        bad("/hardware/zero_stage", "must be 0, 1, 2 or 3, got " + std::to_string(hw.zeroStage));
    for (auto [path, v] : {std::pair{"/hardware/tp", hw.tp}, {"/hardware/pp", hw.pp}, {"/hardware/ep", hw.ep}})
        if (v < 1 || v > hw.gpus)
            bad(path, "must be between 1 and the GPU count (" + std::to_string(hw.gpus) + "), got "
                          + std::to_string(v));
    if (hw.tp >= 1 && hw.pp >= 1 && hw.gpus >= 1 && hw.gpus % (hw.tp * hw.pp) != 0)
        bad("/hardware/gpus", "must be a multiple of tp·pp (" + std::to_string(hw.tp * hw.pp) + "), got "
                                  + std::to_string(hw.gpus));
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

}  // namespace trainmem
