#include "fitmap.h"

#include <algorithm>
#include <cmath>

namespace trainmem {

FitBand fitBand(int64_t gpus, bool never)
{
    if (never)
        return FitBand::Never;
    if (gpus <= 0) // minGpusToFit 0 while the working set fits: more than kMaxGpus
        return FitBand::More;
    for (size_t i = 0; i < kFitBandTop.size(); ++i)
        if (gpus <= kFitBandTop[i])
            return static_cast<FitBand>(i);
    return FitBand::More;
}

FitMapAxes fitMapAxes(int64_t cp, int perDecade, int perOctave)
{
    FitMapAxes a;
    perDecade = std::clamp(perDecade, 1, 100);
    perOctave = std::clamp(perOctave, 1, 64);
    const int decades = static_cast<int>(std::lround(std::log10(kFitMapMaxParams / kFitMapMinParams)));
    for (int i = 0; i <= decades * perDecade; ++i)
        a.params.push_back(
            static_cast<int64_t>(std::llround(kFitMapMinParams * std::pow(10.0, static_cast<double>(i) / perDecade))));
    // Every context a multiple of 2·cp (sweepContext's rule), so that no row falls back to a smaller cp.
    const int64_t chunk = 2 * std::clamp<int64_t>(cp, 1, kMaxGpus);
    const int octaves = static_cast<int>(std::lround(std::log2(kSweepMaxSeq / kSweepMinSeq)));
    for (int i = 0; i <= octaves * perOctave; ++i) {
        const double seq = kSweepMinSeq * std::exp2(static_cast<double>(i) / perOctave);
        int64_t tokens = std::llround(seq);
        if (chunk > 2)
            tokens = std::max<int64_t>(chunk, std::llround(seq / static_cast<double>(chunk)) * chunk);
        a.seq.push_back(tokens); // kept when rounding repeats a context: row i stays at 512·2^(i/perOctave)
    }
    return a;
}

ModelSpec fitMapModel(const ResolvedModel& current, int64_t totalParams)
{
    ModelSpec m;
    m.hasArchitecture = false;
    m.params = std::clamp<int64_t>(totalParams, 1, kMaxParams);
    m.activeParams = 0; // dense
    const double total = static_cast<double>(current.params.total);
    const double active = static_cast<double>(std::clamp<int64_t>(current.params.active, 0, current.params.total));
    if (total > 0 && active < total) {
        const double share = active / total;
        m.activeParams = std::clamp<int64_t>(std::llround(static_cast<double>(m.params) * share), 1, m.params);
    }
    return m;
}

LayerKinds fitMapKinds(const ResolvedModel& current, int64_t layers)
{
    LayerKinds k;
    const LayerKinds& c = current.arch.kinds;
    const int64_t mixers = current.arch.layers - c.ffnOnly; // Nemotron-H's FFN-only blocks have no mixer to share
    if (current.fromSize || !c.any() || mixers <= 0 || layers <= 0)
        return k;
    auto share = [&](int64_t n) {
        return std::clamp<int64_t>(
            std::llround(static_cast<double>(n) * static_cast<double>(layers) / static_cast<double>(mixers)), 0,
            layers);
    };
    k = c;
    k.ffnOnly = 0; // the made-up shape's layers all hold attention (or its replacement) and an FFN
    k.mixerOnly = 0;
    // The made-up shape has one head size: the full-attention layers' own (Gemma 4's) is not carried over.
    k.fullHeadDim = 0;
    k.fullKvHeads = 0;
    k.fullKeyIsValue = false;
    k.sliding = share(c.sliding);
    k.chunked = std::min(share(c.chunked), layers - k.sliding);
    k.linear = std::min(share(c.linear), layers - k.sliding - k.chunked);
    k.mamba = std::min(share(c.mamba), layers - k.sliding - k.chunked - k.linear);
    // KV sharing keeps its share of each kind (the cache it saves); the made-up shape has one MLP width.
    const int64_t full = layers - k.sliding - k.chunked - k.linear - k.mamba;
    k.kvSharedSliding = std::min(share(c.kvSharedSliding), std::max<int64_t>(k.sliding - 1, 0));
    k.kvSharedFull = std::min(share(c.kvSharedFull), std::max<int64_t>(full - 1, 0));
    k.kvSharedFfn = 0;
    return k;
}

Scenario fitMapScenario(const Scenario& s, int64_t totalParams, int64_t seq)
{
    Scenario x = s;
    x.model = fitMapModel(resolveModel(s.model), totalParams);
    x.training.seqLen = seq;
    return x;
}

FitMap fitMap(const Scenario& s, const GpuSpec& gpu, const FitMapAxes& axes)
{
    FitMap out;
    out.axes = axes;
    const size_t rows = axes.seq.size();
    out.gpus.resize(axes.params.size() * rows);
    out.bands.resize(out.gpus.size());
    out.oneGpuRows.assign(axes.params.size(), 0);
    const ResolvedModel current = resolveModel(s.model);
    Scenario x = s;
    for (size_t c = 0; c < axes.params.size(); ++c) {
        x.model = fitMapModel(current, axes.params[c]);
        ResolvedModel m = resolveModel(x.model);
        // A hybrid model's column keeps its layer kinds (issue 29 §2), in the same shares.
        m.arch.kinds = fitMapKinds(current, m.arch.layers);
        bool below = true; // every row so far fits on one GPU
        for (size_t r = 0; r < rows; ++r) {
            x.training.seqLen = axes.seq[r];
            const GpusToFit n = gpusToFit(m, x, gpu);
            const size_t i = c * rows + r;
            out.gpus[i] = n.gpus;
            out.bands[i] = fitBand(n.gpus, n.never);
            below = below && out.bands[i] == FitBand::One;
            if (below)
                out.oneGpuRows[c] = r + 1;
        }
    }
    return out;
}

FitMap fitMap(const Scenario& s, const GpuSpec& gpu)
{
    return fitMap(s, gpu, fitMapAxes(s.hardware.cp));
}

} // namespace trainmem
