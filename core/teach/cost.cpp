#include "cost.h"

#include "activations.h"

#include <algorithm>
#include <cmath>

namespace trainmem {

CostReceipt computeCost(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu)
{
    CostReceipt r;
    const Architecture& a = m.arch;
    // Attention score and value FLOPs per token, forward: L · s · heads · (qk_dim + v_dim)
    // (Kaplan's 2·n_layer·n_ctx·d_attn for MHA); training is 3× forward.
    // With layer kinds each kind attends over its own span with its own head size: a sliding layer over its window,
    // a chunked one over its chunk (keysPerQuery); linear-attention and Mamba-2 layers have no scores (their state
    // updates, O(1) in the context, are not counted).
    const double seq = static_cast<double>(std::max<int64_t>(s.training.seqLen, 1));
    double attention = 0;
    for (const LayerKind kind : {LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked}) {
        double qk, v;
        if (a.attention == AttentionKind::MLA) {
            qk = static_cast<double>(a.mla.qkNopeHeadDim + a.mla.qkRopeHeadDim);
            v = static_cast<double>(a.mla.vHeadDim);
        } else {
            qk = v = static_cast<double>(a.headDimOf(kind));
        }
        attention += static_cast<double>(a.layersOfKind(kind)) * keysPerQuery(a, kind, seq) *
                     static_cast<double>(a.heads) * (qk + v);
    }
    r.flopsPerToken = 6 * static_cast<double>(m.params.active) + 3 * attention;
    const double tokens = std::clamp(s.cost.tokens, 0.0, 1e18);
    r.totalFlops = r.flopsPerToken * tokens;

    switch (s.training.precision) {
    case Precision::FP8Mixed:
        r.peakFlopsPerGpu = (gpu.fp8Tflops > 0 ? gpu.fp8Tflops : gpu.bf16Tflops) * 1e12;
        break;
    case Precision::FP32:
        r.peakFlopsPerGpu = gpu.bf16Tflops * 1e12 / 2; // TF32 tensor cores run at half the bf16 rate
        break;
    default:
        r.peakFlopsPerGpu = gpu.bf16Tflops * 1e12;
    }
    r.mfu = std::clamp(s.cost.mfu, 1e-6, 1.0);
    const double achieved = std::max(r.peakFlopsPerGpu * r.mfu, 1.0);
    r.pretrainingGpuHours = r.totalFlops / achieved / 3600.0;
    // A report's other phases (context extension, post-training) are added as it gives them: their
    // tokens and contexts are not the pre-training's, so they are not recomputed (issue 13).
    r.gpuHours = r.pretrainingGpuHours;
    for (const CostPhase& p : s.cost.otherPhases) {
        if (r.phases.size() >= kMaxCostPhases)
            break;
        r.phases.push_back({p.name, std::clamp(p.gpuHours, 0.0, 1e12)});
        r.gpuHours += r.phases.back().gpuHours;
    }
    const std::optional<double> price =
        s.cost.pricePerGpuHour > 0 ? std::optional<double>(s.cost.pricePerGpuHour) : gpu.pricePerHour;
    r.priceKnown = price.has_value();
    r.pricePerGpuHour = price.value_or(0);
    r.costUsd = r.gpuHours * r.pricePerGpuHour;
    r.wallClockDays = r.gpuHours / static_cast<double>(std::max<int64_t>(s.hardware.gpus, 1)) / 24.0;
    return r;
}

} // namespace trainmem
