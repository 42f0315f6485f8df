// The pipeline's stages (issue 13): which stage a view of the terms describes, how many
// micro-batches' tapes it holds, and the busiest of them. The terms themselves read TermContext's
// stage fields (core/terms.cpp); this file only places a view on a stage and compares them.
#include "terms.h"

#include <algorithm>
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

void placeOnStage(TermContext& c, PipelineStage stage)
{
    const int64_t p = c.layout.pp;
    if (p <= 1)
        stage = PipelineStage::Only;
    else if (stage == PipelineStage::Only || (stage == PipelineStage::Middle && p < 3))
        stage = PipelineStage::First;
    c.stage = stage;
    c.stageIndex = stage == PipelineStage::Last ? p - 1 : stage == PipelineStage::Middle ? 1 : 0;
    c.inflight =
        c.training && p > 1
            ? microBatchesInFlight(p, c.stageIndex, std::max<int64_t>(c.scenario->training.gradAccum, 1), c.layout.vpp)
            : 1;
    c.bytes = {};
}

std::vector<StageMemory> pipelineStages(const TermContext& base)
{
    static constexpr PipelineStage kOnly[] = {PipelineStage::Only};
    static constexpr PipelineStage kTwo[] = {PipelineStage::First, PipelineStage::Last};
    static constexpr PipelineStage kMore[] = {PipelineStage::First, PipelineStage::Middle, PipelineStage::Last};
    const int64_t p = base.layout.pp;
    using Kinds = std::span<const PipelineStage>;
    const Kinds kinds = p <= 1 ? Kinds(kOnly) : p == 2 ? Kinds(kTwo) : Kinds(kMore);
    std::vector<StageMemory> out;
    out.reserve(kinds.size());
    for (PipelineStage k : kinds) {
        TermContext c = base;
        placeOnStage(c, k);
        out.push_back({c.stage, c.stageIndex, c.stageLayers, c.inflight, evaluateTerms(c)});
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
