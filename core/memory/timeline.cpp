#include "timeline.h"

#include "units.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace trainmem {
namespace {

double dbl(int64_t v)
{
    return static_cast<double>(v);
}

// Schematic durations, in forward passes of one layer: a backward pass costs about twice its forward
// (the gradients of the inputs and of the weights), full recomputation runs the forward once more
// (Chen et al. 2016; Korthikanti et al. 2022 §5). The communication and optimizer phases have no
// layer to measure them by; each is drawn as a fixed share of the passes so that it can be read.
constexpr double kForward = 1;
constexpr double kBackward = 2;
constexpr double kRecomputeForward = 1;
constexpr double kOtherPhaseShare = 0.12;
// The loss (or the serving head) is one layer's forward in compute, but it is where the logits live and often the
// peak: drawn at least this share of the passes so that it can be seen and named.
constexpr double kLossShare = 0.06;
// A deep stage is drawn a group of layers at a time past this many passes (each direction).
constexpr int64_t kMaxPasses = 400;

// The allocator's reserve is a share of the bytes in use (core/memory/terms.cpp, fragmentation): it follows
// the other terms at every moment.
void reserve(Segments& g, const Scenario& s, double cache)
{
    g.fragmentation = allocatorReserve(s, reservedBytes(g)) + cache;
}

// Model state and the framework live through the whole step: every term outside the working group (a new one
// included) but the reserve, which follows the rest. The working terms are placed in time below, each by name.
Segments standing(const Segments& bars)
{
    Segments g;
    for (SegmentKind k : kAllSegmentKinds) {
        const TermInfo& t = termInfo(k);
        if (t.group != TermGroup::Working && k != SegmentKind::Fragmentation)
            g.*t.field = bars.*t.field;
    }
    return g;
}

std::string layersText(int64_t first, int64_t last)
{
    return first == last ? "layer " + std::to_string(first)
                         : "layers " + std::to_string(first) + "–" + std::to_string(last);
}

std::string optimizerName(const Scenario& s)
{
    return toString(s.training.optimizer);
}

class Builder
{
public:
    Builder(StepTimeline& t, const Scenario& s) : m_t(t), m_s(s) {}
    /// What the allocator keeps cached from wrapping the model (flatWrapCache()): reserved all step long.
    void setCache(double cache) { m_cache = cache; }
    /// The gradients exist only as written (gradientsFreedEachStep()).
    void setGradientsFreed(bool freed) { m_freed = freed; }

    size_t phase(StepPhaseKind kind, std::string name, int64_t microBatch = 0)
    {
        if (!m_t.phases.empty() && m_t.phases.back().kind == kind && m_t.phases.back().microBatch == microBatch)
            return m_t.phases.size() - 1;
        TimelinePhase p;
        p.kind = kind;
        p.name = std::move(name);
        p.start = m_time;
        p.end = m_time;
        p.microBatch = microBatch;
        m_t.phases.push_back(std::move(p));
        return m_t.phases.size() - 1;
    }

    void sample(size_t phase, double width, TimelineSample x)
    {
        if (m_freed)
            x.bytes.gradients = x.gradientsWritten;
        reserve(x.bytes, m_s, m_cache);
        x.start = m_time;
        x.end = m_time + width;
        x.phase = phase;
        m_time = x.end;
        TimelinePhase& p = m_t.phases[phase];
        p.end = m_time;
        p.peakBytes = std::max(p.peakBytes, x.total());
        m_t.samples.push_back(x);
    }

    double time() const { return m_time; }

private:
    StepTimeline& m_t;
    const Scenario& m_s;
    double m_cache = 0;
    double m_time = 0;
    bool m_freed = false;
};

void serving(StepTimeline& t, const Scenario& s, const Segments& bars, int64_t n, int64_t group, int64_t offset)
{
    Builder b(t, s);
    const Segments base = standing(bars);
    const size_t prefill = b.phase(StepPhaseKind::Forward, "prefill (forward)");
    for (int64_t j0 = 1; j0 <= n; j0 += group) {
        const int64_t j1 = std::min(n, j0 + group - 1);
        TimelineSample x;
        x.bytes = base;
        x.bytes.kvCache = bars.kvCache * dbl(j1) / dbl(n);               // each layer appends its K and V
        x.bytes.recurrentState = bars.recurrentState * dbl(j1) / dbl(n); // or writes its state
        x.bytes.activations = bars.activations;                          // the layer's working set, freed after it
        x.bytes.workspace = bars.workspace;
        x.firstLayer = offset + j0;
        x.lastLayer = offset + j1;
        b.sample(prefill, kForward * dbl(j1 - j0 + 1), x);
    }
    if (bars.logits > 0) {
        TimelineSample x;
        x.bytes = base;
        x.bytes.kvCache = bars.kvCache;
        x.bytes.recurrentState = bars.recurrentState;
        x.bytes.logits = bars.logits;
        x.bytes.workspace = bars.workspace;
        b.sample(b.phase(StepPhaseKind::Loss, "output head"), std::max(kForward, kLossShare * dbl(n) * kForward), x);
    }
    t.duration = b.time();
}

void training(StepTimeline& t, const Scenario& s, const Breakdown& br, const TermContext& c, const TapeParts& tape,
              int64_t n, int64_t group, int64_t offset)
{
    const Segments& bars = br.perGpu;
    const int64_t K = t.microBatches;
    // The tapes of K micro-batches of n layers add up to the term's: one share per layer and micro-batch drawn.
    const double perLayer = tape.perLayer * c.inflight / dbl(K);
    const bool full = c.in.checkpointing == Checkpointing::Full;
    const double passes = dbl(K * n) * (kForward + kBackward + (full ? kRecomputeForward : 0)) + 1;

    const Segments base = standing(bars);
    Builder b(t, s);
    b.setCache(flatWrapCache(c));
    const bool several = K > 1;
    // Gradients: a buffer allocated for the step (Megatron-LM's and DDP's contiguous buffers, DeepSpeed's
    // partitions), written during the first backward pass drawn and accumulated into after it.
    double written = 0;

    // A framework that frees the gradients after each step (gradientsFreedEachStep) has none before the first
    // backward writes them: the band is what has been written.
    const bool freed = gradientsFreedEachStep(s);
    b.setGradientsFreed(freed);
    // Under such a framework the output head's gradient is written at the loss, before any layer's (its backward
    // runs first), and it stays until the step: a trained head's V·h (tied or not), within the gradients term.
    // Under FSDP2's root unit that gradient is the root's unsharded one, in the workspace (fsdp2RootGradient()).
    const double rootGradient = fsdp2RootGradient(c);
    const double headGradient =
        freed && c.holdsHead() && rootGradient <= 0 ? std::min(bars.gradients, headGradientBytes(c)) : 0.0;
    // The adapters' gradients, too, exist only once the backward pass writes them: before it (the forward passes
    // and the loss) the adapters term holds their weights, master copy and optimizer state only.
    const double adapterGradients = freed ? adapterGradientsHeld(c) : 0.0;

    for (int64_t u = 1; u <= K; ++u) {
        const size_t f = b.phase(StepPhaseKind::Forward, several ? "forward ×" + std::to_string(K) : "forward");
        for (int64_t j0 = 1; j0 <= n; j0 += group) {
            const int64_t j1 = std::min(n, j0 + group - 1);
            TimelineSample x;
            x.bytes = base;
            x.bytes.activations = (dbl((u - 1) * n) + dbl(j1)) * perLayer;
            x.bytes.workspace = bars.workspace;
            x.bytes.adapters -= adapterGradients;
            x.gradientsWritten = written;
            x.firstLayer = offset + j0;
            x.lastLayer = offset + j1;
            x.microBatch = several ? u : 0;
            b.sample(f, kForward * dbl(j1 - j0 + 1), x);
        }
    }
    if (c.holdsHead() && (bars.logits > 0 || tape.mtp > 0)) {
        // The output head, the multi-token-prediction modules and the loss, forward and backward: the logits
        // are freed once their gradient has gone back into the last layer.
        TimelineSample x;
        x.bytes = base;
        x.bytes.activations = dbl(K * n) * perLayer + tape.mtp;
        x.bytes.logits = bars.logits;
        // Under torchtune's order of frees the moment is as its code has it: no layer's matmul runs at the loss, whose
        // own transients are the logits term's (the chunked loss's, the eager loss's); what ZeRO-3 gathers stays. The
        // chapter's film keeps every term here, so that its peak is the bars' total where all are alive. What the
        // FSDP2 wrap keeps gathered beside the layers (its root unit) is there too.
        x.bytes.workspace = freed ? br.gatheredLayerBytes + fsdp2RootGathered(c) + rootGradient : bars.workspace;
        x.bytes.adapters -= adapterGradients;
        x.gradientsWritten = headGradient;
        x.microBatch = several ? K : 0;
        b.sample(b.phase(StepPhaseKind::Loss, "loss"), std::max(kForward, kLossShare * passes), x);
    }
    written = headGradient; // nothing is written before the loss
    // The layers' share of the gradients (all of them where no head gradient was written at the loss).
    const double gradientsPerLayer = std::max(0.0, bars.gradients - headGradient) / dbl(n);
    for (int64_t u = 1; u <= K; ++u) {
        const size_t bw = b.phase(StepPhaseKind::Backward, several ? "backward ×" + std::to_string(K) : "backward");
        for (int64_t j1 = n; j1 >= 1; j1 -= group) {
            const int64_t j0 = std::max<int64_t>(1, j1 - group + 1);
            TimelineSample x;
            x.bytes = base;
            // This micro-batch's tapes up to layer j1 and the later micro-batches' whole tapes, plus what the
            // backward pass rebuilds for the layer it is in.
            x.bytes.activations = (dbl((K - u) * n) + dbl(j1)) * perLayer + tape.recompute;
            x.recompute = tape.recompute;
            x.bytes.workspace = bars.workspace;
            x.gradientsWritten = written;
            x.firstLayer = offset + j0;
            x.lastLayer = offset + j1;
            x.microBatch = several ? u : 0;
            b.sample(bw, (kBackward + (full ? kRecomputeForward : 0)) * dbl(j1 - j0 + 1), x);
            if (u == 1)
                written = std::min(bars.gradients, written + gradientsPerLayer * dbl(j1 - j0 + 1));
        }
    }
    written = bars.gradients;

    const ParallelLayout& p = br.layout;
    const double other = std::max(1.0, kOtherPhaseShare * passes);
    auto still = [&](StepPhaseKind kind, const std::string& name) {
        TimelineSample x;
        x.bytes = base;
        x.gradientsWritten = written;
        b.sample(b.phase(kind, name), other, x);
    };
    const bool replicated = p.replicas() > 1 || (p.dpExpert > 1 && br.model.params.routedExperts > 0);
    if (replicated)
        still(StepPhaseKind::GradientSync, p.zero >= 1 ? "reduce-scatter gradients" : "all-reduce gradients");
    const bool offload = c.offload != Offload::None;
    if (offload)
        still(StepPhaseKind::OffloadOut, "gradients → host");
    std::string step = "optimizer (" + optimizerName(s) + (s.training.adapters() ? ", adapters" : "") + ")";
    if (offload)
        step = "optimizer on the CPU (" + optimizerName(s) + ")";
    still(StepPhaseKind::Optimizer, step);
    // Optimizer offload sends the updated 16-bit weights back; with the parameters offloaded they stay on the
    // host and are fetched layer by layer in the next forward.
    if (c.offload == Offload::Optimizer)
        still(StepPhaseKind::OffloadIn, "weights ← host");
    if (replicated && (p.zero == 1 || p.zero == 2))
        still(StepPhaseKind::WeightGather, "all-gather weights");
    t.duration = b.time();
}

std::string where(const StepTimeline& t, const TimelineSample& x)
{
    const TimelinePhase& ph = t.phases[x.phase];
    std::string w;
    switch (ph.kind) {
    case StepPhaseKind::Forward:
        w = (t.training ? "forward of " : "prefill of ") + layersText(x.firstLayer, x.lastLayer);
        break;
    case StepPhaseKind::Backward:
        w = "backward of " + layersText(x.firstLayer, x.lastLayer);
        break;
    case StepPhaseKind::Loss:
        w = t.training ? "the loss (logits)" : "the output head (logits)";
        break;
    default:
        w = ph.name;
    }
    if (x.microBatch > 0)
        w += ", micro-batch " + std::to_string(x.microBatch);
    return w;
}

void explain(StepTimeline& t, const Scenario& s, const Segments& bars, const TapeParts& tape)
{
    const TimelineSample& at = t.samples[t.peakSample];
    const StepPhaseKind kind = t.phases[at.phase].kind;
    const bool inBackward = kind == StepPhaseKind::Backward;
    const Checkpointing ck = s.training.checkpointing;
    for (SegmentKind k : kAllSegmentKinds) {
        const double barsBytes = bars.*termInfo(k).field;
        const double peak = at.bytes.*termInfo(k).field;
        if (std::abs(barsBytes - peak) <= 1e-9 * std::max({1.0, barsBytes, peak}))
            continue;
        std::string why;
        if (k == SegmentKind::Activations && !t.training) {
            why = "Serving frees each layer's working set before the output head runs, so it and the logits are "
                  "never there together; the bars add both.";
        } else if (k == SegmentKind::Activations) {
            if (!inBackward && tape.recomputeInBars > 0)
                why = std::string(ck == Checkpointing::PerOp
                                      ? "Per-op recomputation rebuilds the rest of one layer's tape ("
                                      : "Full recomputation rebuilds one layer's whole tape (") +
                      formatBytes(tape.recomputeInBars) + ") only during that layer's backward; at the peak (" +
                      t.peakWhere + ") it is not there. The bars add it to every other term.";
            else if (inBackward && tape.recompute > tape.recomputeInBars)
                why = (ck == Checkpointing::Selective
                           ? "Selective recomputation rebuilds what it dropped for one layer (" +
                                 formatBytes(tape.recompute) +
                                 ", the attention scores) while that layer's backward runs; Korthikanti's 34·sbh, "
                                 "Megatron-LM's estimate and the bars leave this transient out."
                           : std::string("The backward pass rebuilds part of a layer's tape while it runs.")) +
                      (tape.mtp > 0 ? " The multi-token-prediction tapes (" + formatBytes(tape.mtp) +
                                          ") are freed after the loss, before the layers' backward."
                                    : "");
            else
                why = "The multi-token-prediction modules' tapes (" + formatBytes(tape.mtp) +
                      ") are freed after the loss, before the layers' backward where the peak is.";
        } else if (k == SegmentKind::Logits) {
            why = t.training ? "The logits are freed once the loss's gradient has gone back into the last layer, "
                               "before the layers' backward (where the peak is); the bars add them to the tape."
                             : "The output head runs after the last layer's working set is freed.";
        } else if (k == SegmentKind::Gradients && gradientsFreedEachStep(s)) {
            why = "The recipe frees the gradients after each step (optimizer.zero_grad(set_to_none=True)), so at the "
                  "peak (" +
                  t.peakWhere + ") only those the backward has written so far exist; the bars add them all.";
        } else if (k == SegmentKind::Workspace && kind == StepPhaseKind::Loss) {
            why = "At the loss no layer's matmul runs, so a layer's workspace is not there; the loss's own transients "
                  "are the logits term. The bars add both.";
        } else if (k == SegmentKind::Adapters && gradientsFreedEachStep(s)) {
            why = "The recipe frees the adapters' gradients after each step (optimizer.zero_grad(set_to_none=True)): "
                  "at the peak (" +
                  t.peakWhere + ") the backward pass has not written them yet; the bars add them.";
        } else if (k == SegmentKind::Fragmentation) {
            why = "The allocator's reserve is a share of the bytes in use, so it follows the terms above.";
        } else {
            why = std::string(termInfo(k).name) + " is not alive at the peak.";
        }
        t.differences.push_back({k, barsBytes, peak, std::move(why)});
    }
}

} // namespace

const char* toString(StepPhaseKind k)
{
    switch (k) {
    case StepPhaseKind::Forward:
        return "forward";
    case StepPhaseKind::Loss:
        return "loss";
    case StepPhaseKind::Backward:
        return "backward";
    case StepPhaseKind::GradientSync:
        return "gradient_sync";
    case StepPhaseKind::Optimizer:
        return "optimizer";
    case StepPhaseKind::WeightGather:
        return "weight_gather";
    case StepPhaseKind::OffloadOut:
        return "offload_out";
    case StepPhaseKind::OffloadIn:
        return "offload_in";
    }
    return "forward";
}

StepTimeline stepTimeline(const ResolvedModel& m, const Scenario& s, const Breakdown& br)
{
    StepTimeline t;
    t.training = s.training.mode == Mode::Training;
    t.barsTotal = br.perGpu.total();
    t.capacity = br.gpuMemoryBytes;
    // The busiest stage's view, as account() made it; its layers, micro-batches in flight and tape parts.
    const TermContext c = termContext(m, s, br.layout);
    t.stage = c.stage;
    t.stageIndex = c.stageIndex;
    const int64_t L = std::max<int64_t>(m.arch.layers, 1);
    const int64_t n = std::clamp<int64_t>(std::llround(c.stageLayers), 1, L);
    t.layers = n;
    t.stepMicroBatches = std::max<int64_t>(s.training.gradAccum, 1);
    // Interleaved schedules keep a fractional count of micro-batches' tapes: draw the nearest whole number,
    // each with its share, so the tapes still add up to the term.
    t.microBatches = t.training ? std::clamp<int64_t>(std::llround(c.inflight), 1, kMaxPasses) : 1;
    const int64_t group = std::max<int64_t>(1, (n * t.microBatches + kMaxPasses - 1) / kMaxPasses);
    t.layersPerSample = group;
    // Model layers are numbered from 1; stage i holds layers i·n + 1 …, the last stage the last n.
    const int64_t offset = t.stage == PipelineStage::Last ? L - n : std::min(L - n, t.stageIndex * n);
    // The activation term in its parts, once: the passes place them and the differences name them.
    const TapeParts tape = t.training ? tapeParts(c) : TapeParts{};
    if (t.training)
        training(t, s, br, c, tape, n, group, offset);
    else
        serving(t, s, br.perGpu, n, group, offset);

    for (size_t i = 0; i < t.samples.size(); ++i)
        if (t.samples[i].total() > t.peakBytes) {
            t.peakBytes = t.samples[i].total();
            t.peakSample = i;
        }
    t.peakWhere = t.samples.empty() ? std::string() : where(t, t.samples[t.peakSample]);
    if (!t.samples.empty())
        explain(t, s, br.perGpu, tape);
    return t;
}

bool gradientsFreedEachStep(const Scenario& s)
{
    // torchtune's single-device recipes (recipes/full_finetune_single_device.py line 716,
    // lora_finetune_single_device.py line 719, at 1814feb17a9038e1a8053ce93111bd26774a8db6) call
    // optimizer.zero_grad(set_to_none=True) after each step, so no gradient exists from then until the next backward
    // writes it; Megatron-LM's, DDP's and DeepSpeed's buffers live all step.
    return s.training.mode == Mode::Training && s.framework == Framework::Torchtune;
}

StepTimeline stepTimeline(const Scenario& s, const GpuSpec& gpu)
{
    const ResolvedModel m = resolveModel(s.model);
    return stepTimeline(m, s, account(m, s, gpu));
}

ToolsView toolsView(const Scenario& s, const Breakdown& b, const StepTimeline* film)
{
    ToolsView v;
    v.bytes = b.perGpu;
    v.device = b.perGpu.total();
    if (!gradientsFreedEachStep(s))
        return v;
    std::optional<StepTimeline> made;
    const StepTimeline& f = film ? *film : made.emplace(stepTimeline(b.model, s, b));
    if (f.samples.empty())
        return v;
    v.bytes = f.samples[f.peakSample].bytes;
    v.device = std::max(v.device, v.bytes.total());
    v.fromFilm = true;
    v.where = f.peakWhere;
    return v;
}

size_t firstPhaseOf(const StepTimeline& t, StepPhaseKind k)
{
    for (size_t i = 0; i < t.phases.size(); ++i)
        if (t.phases[i].kind == k)
            return i;
    return t.phases.size();
}

} // namespace trainmem
