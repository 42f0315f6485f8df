// The pipeline's stages (issue 13): which stage a view of the terms describes, how many
// micro-batches' tapes it holds, and the busiest of them. The terms themselves read TermContext's
// stage fields (core/memory/terms.cpp); this file only places a view on a stage and compares them.
#include "terms.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace trainmem {
namespace {

double dbl(int64_t v)
{
    return static_cast<double>(v);
}

} // namespace

double microBatchesInFlight(int64_t p, int64_t i, int64_t m, int64_t v)
{
    // Megatron-LM megatron/core/pipeline_parallel/schedules.py (get_pp_rank_microbatches, at
    // d98e8a64ddf34856e74b24714e3bedb2f5a39553): rank i of p runs p − i − 1 warm-up forwards
    // (1F1B), or 2·(p − i − 1) + (v − 1)·p model-chunk forwards with v virtual stages
    // (interleaved; the group size per virtual stage defaults to p), capped at the m·v chunks of
    // the step; the first backward comes after one more forward. Each chunk holds n/v of the
    // stage's n layers, so the tapes held are min(warm-up + 1, m·v) / v stage micro-batches.
    // Stage 0 with m ≥ p: p with 1F1B, p·(1 + (p − 1)/(p·v)) interleaved, the factor
    // theoretical_memory_usage.py applies (Narayanan et al. 2021 §2.2).
    if (p <= 1)
        return 1;
    const double P = dbl(p), I = dbl(std::clamp<int64_t>(i, 0, p - 1)), M = dbl(std::max<int64_t>(m, 1));
    const double V = dbl(std::max<int64_t>(v, 1));
    const double warmup = V > 1 ? 2 * (P - I - 1) + (V - 1) * P : P - I - 1;
    return std::min(warmup + 1, M * V) / V;
}

double microBatchesInFlight(const std::vector<int64_t>& chunks, int64_t p, int64_t i, int64_t m)
{
    // Megatron-LM schedules.py at d98e8a64ddf34856e74b24714e3bedb2f5a39553: get_schedule_table orders the virtual
    // micro-batches in groups of p micro-batches (microbatch_group_size_per_vp_stage's default), chunk by chunk,
    // the last group taking what is left; backward k runs chunk v − 1 − chunk(k) (get_model_chunk_id). Rank i runs
    // the warm-up forwards of get_pp_rank_microbatches, then one forward and one backward at a time: the tapes
    // held peak after a forward. The pattern repeats every group, so four groups and the last one show the peak.
    const auto v = static_cast<int64_t>(chunks.size());
    int64_t stage = 0;
    for (int64_t n : chunks)
        stage += std::max<int64_t>(n, 0);
    if (p <= 1 || v <= 1 || stage <= 0)
        return microBatchesInFlight(p, i, m, v);
    m = std::max<int64_t>(m, 1);
    i = std::clamp<int64_t>(i, 0, p - 1);
    const int64_t micro = std::min(m, 4 * p + m % p);
    const int64_t total = micro * v;
    const int64_t lastGroupStart = (micro - 1) / p * p; // the group that takes what is left
    const int64_t lastGroupSize = micro - lastGroupStart;
    auto chunkOf = [&](int64_t k) {
        if (k < lastGroupStart * v)
            return (k % (p * v)) / p;
        return (k - lastGroupStart * v) / lastGroupSize;
    };
    auto layers = [&](int64_t chunk) { return dbl(std::max<int64_t>(chunks[static_cast<size_t>(chunk)], 0)); };
    const int64_t warmup = std::min(2 * (p - i - 1) + (v - 1) * p, total);
    double held = 0;
    for (int64_t k = 0; k < warmup; ++k)
        held += layers(chunkOf(k));
    double peak = held;
    for (int64_t r = 0; warmup + r < total; ++r) {
        held += layers(chunkOf(warmup + r));
        peak = std::max(peak, held);
        held -= layers(v - 1 - chunkOf(r));
    }
    return peak / dbl(stage);
}

void placeOnStage(TermContext& c, PipelineStage stage)
{
    const int64_t p = c.layout.pp;
    if (p <= 1)
        stage = PipelineStage::Only;
    else if (stage == PipelineStage::Only || (stage == PipelineStage::Middle && p < 3))
        stage = PipelineStage::First;
    placeOnStageIndex(c, stage == PipelineStage::Last ? p - 1 : stage == PipelineStage::Middle ? 1 : 0);
}

void placeOnStageIndex(TermContext& c, int64_t index)
{
    const int64_t p = std::max<int64_t>(c.layout.pp, 1);
    const int64_t i = std::clamp<int64_t>(index, 0, p - 1);
    c.stage = p == 1       ? PipelineStage::Only
              : i == 0     ? PipelineStage::First
              : i == p - 1 ? PipelineStage::Last
                           : PipelineStage::Middle;
    c.stageIndex = i;
    const int64_t L = std::max<int64_t>(std::llround(c.layers), 1);
    c.stageLayers = static_cast<double>(c.layout.stageLayers(L, i));
    const int64_t m = std::max<int64_t>(c.scenario->training.gradAccum, 1);
    if (!c.training || p <= 1)
        c.inflight = 1;
    else if (c.layout.vpp > 1 && !c.layout.split.isDefault())
        c.inflight = microBatchesInFlight(chunkLayersOnStage(c.layout.split, L, p, c.layout.vpp, i), p, i, m);
    else
        c.inflight = microBatchesInFlight(p, i, m, c.layout.vpp);
    c.bytes = {};
}

std::vector<TermContext> stageViews(const TermContext& base)
{
    static constexpr PipelineStage kOnly[] = {PipelineStage::Only};
    static constexpr PipelineStage kTwo[] = {PipelineStage::First, PipelineStage::Last};
    static constexpr PipelineStage kMore[] = {PipelineStage::First, PipelineStage::Middle, PipelineStage::Last};
    const int64_t p = base.layout.pp;
    using Kinds = std::span<const PipelineStage>;
    const Kinds kinds = p <= 1 ? Kinds(kOnly) : p == 2 ? Kinds(kTwo) : Kinds(kMore);
    std::vector<TermContext> out;
    // Room for every view at once: a TermContext is large (its layout holds a pipeline layout's stage list), and
    // account() runs this on every recompute, so the vector never grows by copying views.
    out.reserve(kinds.size() + (base.layout.split.hasLayout() ? static_cast<size_t>(std::max<int64_t>(p - 3, 0)) : 0));
    for (PipelineStage k : kinds) {
        out.push_back(base);
        placeOnStage(out.back(), k);
        evaluateTerms(out.back());
        // A layout gives each middle rank its own layers (and one of them may hold the MTP layers): every middle
        // rank is a view of its own.
        if (k != PipelineStage::Middle || !base.layout.split.hasLayout())
            continue;
        for (int64_t i = 2; i < p - 1; ++i) {
            out.push_back(base);
            placeOnStageIndex(out.back(), i);
            evaluateTerms(out.back());
        }
    }
    return out;
}

std::vector<StageMemory> pipelineStages(const TermContext& base)
{
    // The middle entry is the busiest middle rank (the first of equals), not stage 1's.
    std::vector<StageMemory> out;
    for (const TermContext& c : stageViews(base)) {
        const StageMemory stage{c.stage, c.stageIndex, c.stageLayers, c.inflight, c.bytes};
        if (c.stage == PipelineStage::Middle && !out.empty() && out.back().stage == PipelineStage::Middle) {
            if (stage.bytes.total() > out.back().bytes.total())
                out.back() = stage;
        } else {
            out.push_back(stage);
        }
    }
    return out;
}

size_t busiestStage(const std::vector<StageMemory>& stages)
{
    size_t best = 0;
    for (size_t i = 1; i < stages.size(); ++i)
        if (stages[i].bytes.total() > stages[best].bytes.total())
            best = i;
    return best;
}

std::vector<RankKind> rankKinds(const ResolvedModel& m, const Scenario& s)
{
    // Every stage index evaluated, then runs of middle stages with the same bytes merged: without
    // enough micro-batches to fill the pipeline (m < p) the first p − m + 1 stages hold the same m
    // tapes, and serving holds one tape everywhere. First and last stay their own kinds (they hold
    // the embedding and the head).
    const ParallelLayout layout = parallelLayout(s, m);
    TermContext base = termContext(m, s, layout);
    const int64_t p = std::max<int64_t>(layout.pp, 1);
    const int64_t perStage = std::max<int64_t>(layout.gpus / p, 1);
    std::vector<RankKind> out;
    for (int64_t i = 0; i < p; ++i) {
        TermContext c = base;
        placeOnStageIndex(c, i);
        const Segments& bytes = evaluateTerms(c);
        if (!out.empty() && c.stage == PipelineStage::Middle && out.back().stage == PipelineStage::Middle &&
            std::fabs(out.back().bytes.total() - bytes.total()) <= 1e-9 * std::max(1.0, bytes.total())) {
            out.back().lastStage = i;
            out.back().gpus += perStage;
            continue;
        }
        out.push_back({c.stage, i, i, perStage, c.stageLayers, c.inflight, bytes, false});
    }
    size_t best = 0;
    for (size_t k = 1; k < out.size(); ++k)
        if (out[k].bytes.total() > out[best].bytes.total())
            best = k;
    out[best].busiest = true;
    return out;
}

std::vector<RankKind> groupRankKinds(const std::vector<RankKind>& ranks, size_t maxKinds)
{
    std::vector<RankKind> middle, out;
    for (const RankKind& r : ranks)
        if (r.stage == PipelineStage::Middle)
            middle.push_back(r);
    const size_t ends = ranks.size() - middle.size();
    const size_t slots = maxKinds > ends ? std::max<size_t>(maxKinds - ends, 1) : 1;
    if (middle.size() <= slots)
        return ranks;
    for (const RankKind& r : ranks) {
        if (r.stage != PipelineStage::Middle)
            out.push_back(r);
        if (&r != &ranks.front() || middle.empty())
            continue;
        // After the first stage: the middle kinds in `slots` runs of near-equal length, each shown by its first.
        for (size_t g = 0; g < slots; ++g) {
            const size_t from = g * middle.size() / slots, to = (g + 1) * middle.size() / slots;
            RankKind k = middle[from];
            for (size_t i = from + 1; i < to; ++i) {
                k.lastStage = middle[i].lastStage;
                k.gpus += middle[i].gpus;
                k.busiest = k.busiest || middle[i].busiest;
                k.merged = true;
            }
            out.push_back(k);
        }
    }
    return out;
}

const char* toString(PipelineStage s)
{
    switch (s) {
    case PipelineStage::Only:
        return "only";
    case PipelineStage::First:
        return "first";
    case PipelineStage::Middle:
        return "middle";
    case PipelineStage::Last:
        return "last";
    }
    return "?";
}

} // namespace trainmem
