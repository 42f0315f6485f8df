#include "ladder.h"

#include "units.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace trainmem {
namespace {

// What stays whole on every data-parallel rank (ZeRO paper §5: stage 1 partitions optimizer
// states, stage 2 also gradients, stage 3 also parameters). Activations, logits and workspace
// belong to each rank's own micro-batch and are never copies of one another.
std::vector<SegmentKind> replicatedSegments(const Breakdown& b, int zero)
{
    std::vector<SegmentKind> out;
    if (b.layout.replicas() <= 1) // data- and context-parallel ranks hold the same model state
        return out;
    if (zero < 3)
        out.push_back(SegmentKind::Weights);
    if (zero < 2)
        out.push_back(SegmentKind::Gradients);
    if (zero < 1) {
        out.push_back(SegmentKind::Master);
        out.push_back(SegmentKind::Optimizer);
    }
    return out;
}

std::string taxText(LadderCut c, const CommTax& now, const CommTax& before)
{
    switch (c) {
    case LadderCut::SingleGpu:
        return "One GPU sends nothing.";
    case LadderCut::Zero1:
        return "Gradient all-reduce over the data-parallel ranks: " + formatBytes(now.dataParallel) +
               " per GPU per step.";
    case LadderCut::Zero2:
        return "Reduce-scatter of gradients + all-gather of updated weights: the same volume as an all-reduce, " +
               formatBytes(now.dataParallel) + ".";
    case LadderCut::Zero3:
        return "Weights all-gathered for forward and again for backward, gradients reduce-scattered: " +
               formatBytes(now.dataParallel) + ", " + formatBytes(now.dataParallel - before.dataParallel) +
               " more than ZeRO-2.";
    case LadderCut::Tensor:
        return "Four all-reduces of the activations per layer and micro-batch (Megatron): " +
               formatBytes(now.tensorParallel) + ", on the fastest links.";
    case LadderCut::Sequence:
        return "The tensor-parallel all-reduces become all-gathers and reduce-scatters of the same volume "
               "(Korthikanti et al. 2022 §4.2.2): " +
               formatBytes(now.tensorParallel) + ", nothing more.";
    case LadderCut::Pipeline:
        return "Activations forward and gradients backward across each stage boundary: " +
               formatBytes(now.pipelineParallel) + ", plus the pipeline bubble.";
    case LadderCut::Context:
        return "Ring attention passes each GPU's K and V around the context-parallel ranks, again in backward with "
               "their gradients: " +
               formatBytes(now.contextParallel) + " per GPU per step.";
    case LadderCut::Expert:
        return "All-to-all dispatch and combine of tokens to their experts, forward and backward: " +
               formatBytes(now.expertParallel) + ".";
    }
    return {};
}

std::string description(LadderCut c, const LadderRung& r)
{
    const Scenario& s = r.scenario;
    switch (c) {
    case LadderCut::SingleGpu:
        return "Everything on one GPU.";
    case LadderCut::Zero1:
        return std::to_string(s.hardware.gpus) + " data-parallel copies; ZeRO-1 shards the master weights and "
                                                 "optimizer state across them.";
    case LadderCut::Zero2:
        // The recipes the rung runs with (issue 30 §2): with the optimizer step in backward only one layer's
        // gradients exist at a time, and ZeRO-2 shards that layer's (docs/accounting.md, Recipes).
        return effectiveOptimizerInBackward(s)
                   ? "ZeRO-2 also shards the gradients: with the optimizer step in backward each GPU holds its 1/" +
                         std::to_string(s.hardware.gpus) + " of one layer's at a time."
                   : "ZeRO-2 also shards the gradients.";
    case LadderCut::Zero3:
        return "ZeRO-3 (FSDP) also shards the weights: each GPU keeps 1/" + std::to_string(s.hardware.gpus) +
               " of the model state." +
               (effectiveReshardAfterForward(s) ? ""
                                                : " Reshard after forward off: every layer stays gathered from its "
                                                  "forward to its backward.");
    case LadderCut::Tensor:
        return "Tensor parallel ×" + std::to_string(s.hardware.tp) +
               " splits every matmul (and, with sequence "
               "parallelism, the activations).";
    case LadderCut::Sequence:
        return "Sequence parallel splits the norms, dropout masks and block inputs over the " +
               std::to_string(s.hardware.tp) + " tensor-parallel GPUs too: Korthikanti's 34·sbh/t.";
    case LadderCut::Context:
        return "Context parallel ×" + std::to_string(s.hardware.cp) + ": each GPU holds " +
               std::to_string(s.training.seqLen / std::max<int64_t>(s.hardware.cp, 1)) + " of the " +
               std::to_string(s.training.seqLen) + " tokens of every activation.";
    case LadderCut::Pipeline:
        return "Pipeline parallel ×" + std::to_string(s.hardware.pp) + " gives each stage " +
               std::to_string(r.breakdown.layersPerStage) +
               " layers; with 1F1B the first stage holds p micro-batches in flight.";
    case LadderCut::Expert:
        return "Expert parallel ×" + std::to_string(s.hardware.ep) + " places whole experts on different GPUs.";
    }
    return {};
}

} // namespace

std::string ladderCutName(LadderCut c)
{
    switch (c) {
    case LadderCut::SingleGpu:
        return "1 GPU";
    case LadderCut::Zero1:
        return "ZeRO-1";
    case LadderCut::Zero2:
        return "ZeRO-2";
    case LadderCut::Zero3:
        return "ZeRO-3";
    case LadderCut::Tensor:
        return "+ tensor parallel";
    case LadderCut::Sequence:
        return "+ sequence parallel";
    case LadderCut::Pipeline:
        return "+ pipeline parallel";
    case LadderCut::Context:
        return "+ context parallel";
    case LadderCut::Expert:
        return "+ expert parallel";
    }
    return {};
}

LadderOptions ladderOptionsFor(const Scenario& s, const GpuSpec& gpu, const LadderOptions& defaults)
{
    Scenario training = s;
    training.training.mode = Mode::Training;
    const ResolvedModel m = resolveModel(training.model);
    const ParallelLayout par = parallelLayout(training, m);
    LadderOptions o = defaults;
    if (par.gpus > 1) {
        o.dataParallel = par.dp;
        o.tensorParallel = par.tp;
        o.pipelineParallel = par.pp;
        o.contextParallel = par.cp;
        if (par.ep > 1)
            o.expertParallel = par.ep;
        return o;
    }
    // Long contexts: a context-parallel rung leaving each GPU 8k tokens, ×2 … ×16 (Llama 3 405B at 128k:
    // CP 16, 8,192 tokens a GPU; Dubey et al. 2024, Table 4).
    const int64_t seq = std::clamp<int64_t>(training.training.seqLen, 1, kMaxSeq);
    if (seq >= 32768 && o.contextParallel <= 1)
        o.contextParallel = std::bit_floor(static_cast<uint64_t>(std::clamp<int64_t>(seq / 8192, 2, 16)));
    const int64_t need = account(m, training, gpu).minGpusToFit;
    const int64_t modelParallel =
        std::max<int64_t>(1, o.tensorParallel * o.pipelineParallel * std::max<int64_t>(1, o.contextParallel));
    if (need > o.dataParallel * modelParallel)
        o.dataParallel = std::min(kMaxGpus / modelParallel, (need + modelParallel - 1) / modelParallel);
    return o;
}

std::vector<LadderRung> scaleOutLadder(const Scenario& s, const GpuSpec& gpu, const LadderOptions& options)
{
    const ResolvedModel m = resolveModel(s.model);
    const int64_t d = std::clamp<int64_t>(options.dataParallel, 1, kMaxGpus);
    const int64_t t = std::clamp<int64_t>(options.tensorParallel, 1, kMaxGpus / d);
    const int64_t p = std::clamp<int64_t>(options.pipelineParallel, 1,
                                          std::max<int64_t>(1, std::min(m.arch.layers, kMaxGpus / (d * t))));
    const int64_t c = std::clamp<int64_t>(options.contextParallel, 1, std::max<int64_t>(1, kMaxGpus / (d * t * p)));
    // ep divides the experts and the d ranks the expert grid leaves (issue 13: tp·ep·pp divides the GPUs).
    const int64_t e =
        m.arch.isMoe()
            ? std::gcd(std::gcd(std::clamp<int64_t>(options.expertParallel, 1, kMaxGpus), m.arch.moe.experts), d)
            : 1;

    struct Layout {
        LadderCut cut;
        int64_t gpus;
        int zero;
        int64_t tp, pp, ep;
        std::string label;
        bool sp = true;
        int64_t cp = 1;
    };
    // Sequence parallel is a rung of its own when the scenario has it off: the tensor rung without it,
    // then the same GPUs with it. Otherwise the tensor rung has it, as Megatron-LM runs are launched.
    const bool spRung = t > 1 && !s.training.sequenceParallel;
    std::vector<Layout> layouts{{LadderCut::SingleGpu, 1, 0, 1, 1, 1, "1 GPU"}};
    const std::string ds = std::to_string(d);
    if (d > 1) {
        layouts.push_back({LadderCut::Zero1, d, 1, 1, 1, 1, "ZeRO-1 ×" + ds});
        layouts.push_back({LadderCut::Zero2, d, 2, 1, 1, 1, "ZeRO-2 ×" + ds});
        layouts.push_back({LadderCut::Zero3, d, 3, 1, 1, 1, "ZeRO-3 ×" + ds});
    }
    if (t > 1)
        layouts.push_back({LadderCut::Tensor, d * t, 3, t, 1, 1, "+ TP ×" + std::to_string(t), !spRung});
    if (spRung)
        layouts.push_back({LadderCut::Sequence, d * t, 3, t, 1, 1, "+ SP"});
    if (p > 1)
        layouts.push_back({LadderCut::Pipeline, d * t * p, 3, t, p, 1, "+ PP ×" + std::to_string(p)});
    if (c > 1)
        layouts.push_back({LadderCut::Context, d * t * p * c, 3, t, p, 1, "+ CP ×" + std::to_string(c), true, c});
    if (e > 1)
        layouts.push_back({LadderCut::Expert, d * t * p * c, 3, t, p, e, "+ EP ×" + std::to_string(e), true, c});

    std::vector<LadderRung> rungs;
    for (const Layout& l : layouts) {
        LadderRung r;
        r.cut = l.cut;
        r.label = l.label;
        r.scenario = s;
        r.scenario.training.mode = Mode::Training;
        r.scenario.hardware.gpus = l.gpus;
        r.scenario.hardware.zeroStage = l.zero;
        r.scenario.hardware.tp = l.tp;
        r.scenario.hardware.pp = l.pp;
        r.scenario.hardware.ep = l.ep;
        r.scenario.hardware.cp = l.cp;
        r.scenario.training.sequenceParallel = l.sp;
        r.scenario = withValidLayout(std::move(r.scenario)); // the scenario's vpp and etp, kept where they still fit
        if (l.cut == LadderCut::Context)                     // withValidLayout keeps 2·cp dividing the sequence
            r.label = "+ CP ×" + std::to_string(r.scenario.hardware.cp);
        r.breakdown = account(m, r.scenario, gpu);
        r.perGpu = r.breakdown.perGpu;
        r.tax = r.breakdown.tax;
        r.gpus = l.gpus;
        r.fits = r.breakdown.fits;
        r.replicated = replicatedSegments(r.breakdown, l.zero);
        for (SegmentKind k : r.replicated)
            r.replicatedBytes += segmentBytes(r.perGpu, k);
        const CommTax before = rungs.empty() ? CommTax{} : rungs.back().tax;
        r.removed = rungs.empty() ? Segments{} : subtractSegments(rungs.back().perGpu, r.perGpu);
        r.addedTax = r.tax.total() - before.total();
        switch (l.cut) {
        case LadderCut::SingleGpu:
            r.cutTax = 0;
            break;
        case LadderCut::Zero1:
            r.cutTax = r.tax.dataParallel;
            break; // the data-parallel all-reduce itself
        case LadderCut::Zero2:
        case LadderCut::Zero3:
            r.cutTax = r.tax.dataParallel - before.dataParallel;
            break;
        case LadderCut::Tensor:
            r.cutTax = r.tax.tensorParallel;
            break;
        case LadderCut::Sequence:
            r.cutTax = 0; // the same volume as the all-reduces it replaces
            break;
        case LadderCut::Pipeline:
            r.cutTax = r.tax.pipelineParallel;
            break;
        case LadderCut::Context:
            r.cutTax = r.tax.contextParallel;
            break;
        case LadderCut::Expert:
            r.cutTax = r.tax.expertParallel;
            break;
        }
        r.taxText = taxText(l.cut, r.tax, before);
        r.description = description(l.cut, r);
        rungs.push_back(std::move(r));
    }
    return rungs;
}

} // namespace trainmem
