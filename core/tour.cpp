#include "tour.h"

#include "units.h"

#include <cmath>
#include <cstdio>

namespace trainmem {
namespace {

const std::vector<SegmentKind> kEverything(kAllSegmentKinds.begin(), kAllSegmentKinds.end());

std::string ratio(double x) { return formatRatio(x); }  // core/units.h

double revealedBytes(const Segments& g, const std::vector<SegmentKind>& kinds)
{
    double sum = 0;
    for (SegmentKind k : kinds)
        sum += segmentBytes(g, k);
    return sum;
}

void sized(Scenario& s, int64_t params, int64_t active)
{
    s.model = ModelSpec{};
    s.model.hasArchitecture = false;
    s.model.params = params;
    s.model.activeParams = active;
}

// The programmer picture (the chapter's closing paragraph): the same 7B training run, one more
// kind of memory at a time.
TourStep pictureStep(std::string id, std::string title, std::vector<SegmentKind> revealed, std::string added)
{
    TourStep st;
    st.id = std::move(id);
    st.title = std::move(title);
    st.presetId = "chapter-7b";
    st.revealed = revealed;
    st.highlight = [revealed, added](const Scenario&, const Breakdown& b, const GpuSpec& gpu) {
        TourHighlight h;
        h.bytes = revealedBytes(b.perGpu, revealed);
        h.label = "So far";
        for (SegmentKind k : revealed)
            h.figures.push_back({segmentKindName(k), segmentBytes(b.perGpu, k)});
        h.figures.insert(h.figures.begin(), TourFigure{"So far", h.bytes});
        h.text = added + " So far " + formatBytes(h.bytes) + " on one " + gpu.id + " (" + formatBytes(gpu.memoryBytes)
                 + ")" + (h.bytes > gpu.memoryBytes ? ": already past the GPU." : ".");
        return h;
    };
    return st;
}

std::vector<TourStep> makeTour()
{
    std::vector<TourStep> t;

    TourStep inf;
    inf.id = "7b-inference";
    inf.title = "7B inference fits";
    inf.configure = [](Scenario& s) {
        sized(s, 7'000'000'000, 0);
        s.training.mode = Mode::Inference;
        s.training.inferenceWeights = InferenceWeights::BF16;
        s.hardware = HardwareSetup{};
        s.hardware.gpu = "H100";
    };
    inf.revealed = kEverything;
    inf.highlight = [](const Scenario&, const Breakdown& b, const GpuSpec& gpu) {
        TourHighlight h;
        h.label = "bf16 weights";
        h.bytes = b.perGpu.weights;
        h.figures = {{"Weights", b.perGpu.weights}, {"Everything", b.perGpu.total()}, {gpu.id, gpu.memoryBytes}};
        h.text = "Inference needs the weights: 7B parameters × 2 bytes = " + formatBytes(b.perGpu.weights)
                 + ". With the KV cache and overhead it is " + formatBytes(b.perGpu.total()) + ", which fits on one "
                 + gpu.id + " (" + formatBytes(gpu.memoryBytes) + ").";
        return h;
    };
    t.push_back(inf);

    TourStep train;
    train.id = "7b-training";
    train.title = "7B training dies on one H100";
    train.presetId = "chapter-7b";
    train.revealed = kEverything;
    train.highlight = [](const Scenario&, const Breakdown& b, const GpuSpec& gpu) {
        TourHighlight h;
        h.label = "Model state (16 B per parameter)";
        h.bytes = b.modelStateBytes;
        h.figures = {{"Model state", b.modelStateBytes}, {gpu.id, gpu.memoryBytes}};
        h.text = "Training in mixed precision keeps, per parameter, 2 (bf16 weights) + 2 (gradients) + 4 (fp32 master) + "
                 "4 + 4 (Adam m and v) = " + formatCount(b.bytesPerParam) + " bytes. 7B × "
                 + formatCount(b.bytesPerParam) + " B = " + formatBytes(b.modelStateBytes) + ", "
                 + ratio(b.modelStateBytes / gpu.memoryBytes) + " one " + gpu.id + " before a single activation: it dies.";
        return h;
    };
    t.push_back(train);

    TourStep big;
    big.id = "70b-training";
    big.title = "70B is about 1.1 TB";
    big.presetId = "chapter-70b";
    big.revealed = kEverything;
    big.highlight = [](const Scenario&, const Breakdown& b, const GpuSpec& gpu) {
        TourHighlight h;
        h.label = "Model state";
        h.bytes = b.modelStateBytes;
        h.figures = {{"Model state", b.modelStateBytes}, {gpu.id, gpu.memoryBytes}};
        h.text = "70B × 16 B = " + formatBytes(b.modelStateBytes) + ": " + std::to_string(b.minGpusForModelState)
                 + " " + gpu.id + "s just to hold the model state, before activations.";
        return h;
    };
    t.push_back(big);

    TourStep moe;
    moe.id = "2.4t-moe";
    moe.title = "The 2.4T MoE: sparsity does not shrink the optimizer";
    moe.presetId = "qwen3.8-book";
    moe.revealed = kEverything;
    moe.highlight = [](const Scenario&, const Breakdown& b, const GpuSpec& gpu) {
        TourHighlight h;
        const double activeState = static_cast<double>(b.model.params.active) * b.bytesPerParam;
        h.label = "Model state from total parameters";
        h.bytes = b.modelStateBytes;
        h.figures = {{"Model state (total " + formatCount(static_cast<double>(b.model.params.total)) + ")", b.modelStateBytes},
                     {"If only active counted (" + formatCount(static_cast<double>(b.model.params.active)) + ")", activeState}};
        h.text = "Every expert has weights, gradients and Adam slots even while it sleeps. Model state scales with the "
                 + formatCount(static_cast<double>(b.model.params.total)) + " total parameters: "
                 + formatBytes(b.modelStateBytes) + ", not the " + formatBytes(activeState) + " the "
                 + formatCount(static_cast<double>(b.model.params.active)) + " active ones would suggest ("
                 + std::to_string(b.minGpusForModelState) + " " + gpu.id + "s). Sparsity buys FLOPs, not memory.";
        return h;
    };
    t.push_back(moe);

    TourStep ds;
    ds.id = "deepseek-v3";
    ds.title = "DeepSeek-V3: 671B total, 37B active";
    ds.presetId = "deepseek-v3";
    ds.revealed = kEverything;
    ds.highlight = [](const Scenario& s, const Breakdown& b, const GpuSpec& gpu) {
        TourHighlight h;
        const double activeState = static_cast<double>(b.model.params.active) * b.bytesPerParam;
        h.label = "Model state from 671B total";
        h.bytes = b.modelStateBytes;
        h.figures = {{"Model state (total)", b.modelStateBytes},
                     {"If only active counted", activeState},
                     {"Per GPU on " + std::to_string(s.hardware.gpus) + " " + gpu.id, b.perGpu.total()}};
        h.text = "DeepSeek-V3 has " + formatCount(static_cast<double>(b.model.params.total)) + " parameters, "
                 + formatCount(static_cast<double>(b.model.params.active)) + " active per token. Trained in fp8 mixed precision ("
                 + formatCount(b.bytesPerParam) + " B per parameter), its model state is " + formatBytes(b.modelStateBytes)
                 + ". On " + std::to_string(s.hardware.gpus) + " " + gpu.id + "s with pipeline ×" + std::to_string(s.hardware.pp)
                 + " and expert parallel ×" + std::to_string(s.hardware.ep) + " each GPU holds " + formatBytes(b.perGpu.total())
                 + (b.fits ? ", which fits." : ", which does not fit.");
        return h;
    };
    t.push_back(ds);

    TourStep ctx;
    ctx.id = "context-8k-128k";
    ctx.title = "Activations at 8k vs 128k context";
    ctx.presetId = "llama3-8b";
    ctx.configure = [](Scenario& s) {
        s.training.seqLen = 131072;
        s.training.checkpointing = Checkpointing::None;
        s.hardware.gpus = 1;
        s.hardware.zeroStage = 0;
    };
    ctx.revealed = kEverything;
    ctx.highlight = [](const Scenario& s, const Breakdown& b, const GpuSpec& gpu) {
        Scenario short8k = s;
        short8k.training.seqLen = 8192;
        const Breakdown at8k = account(short8k, gpu);
        TourHighlight h;
        h.label = "Activations + logits at 128k";
        h.bytes = b.perGpu.activations + b.perGpu.logits;
        h.figures = {{"Activations + logits at 128k", h.bytes},
                     {"Activations + logits at 8k", at8k.perGpu.activations + at8k.perGpu.logits},
                     {"Weights", b.perGpu.weights}};
        h.text = "The tape for backward grows with the context. Llama 3 8B keeps "
                 + formatBytes(at8k.perGpu.activations + at8k.perGpu.logits) + " of activations and logits at 8k tokens and "
                 + formatBytes(h.bytes) + " at 128k: " + ratio(h.bytes / b.perGpu.weights) + " its "
                 + formatBytes(b.perGpu.weights) + " of weights. The logits alone (s × vocabulary) are "
                 + formatBytes(b.perGpu.logits) + ".";
        return h;
    };
    t.push_back(ctx);

    TourStep ckpt;
    ckpt.id = "checkpointing";
    ckpt.title = "Checkpointing buys the memory back";
    ckpt.presetId = "llama3-8b";
    ckpt.configure = [](Scenario& s) {
        s.training.seqLen = 131072;
        s.training.checkpointing = Checkpointing::Full;
        s.hardware.gpus = 1;
        s.hardware.zeroStage = 0;
    };
    ckpt.revealed = kEverything;
    ckpt.highlight = [](const Scenario& s, const Breakdown& b, const GpuSpec& gpu) {
        Scenario none = s;
        none.training.checkpointing = Checkpointing::None;
        Scenario sel = s;
        sel.training.checkpointing = Checkpointing::Selective;
        const double aNone = account(none, gpu).perGpu.activations;
        const double aSel = account(sel, gpu).perGpu.activations;
        TourHighlight h;
        h.label = "Activations saved by full checkpointing";
        h.bytes = aNone - b.perGpu.activations;
        h.figures = {{"Saved", h.bytes},
                     {"No checkpointing", aNone},
                     {"Selective", aSel},
                     {"Full", b.perGpu.activations}};
        h.text = "Recompute on backward instead of storing: at 128k, Llama 3 8B's tape is " + formatBytes(aNone)
                 + " with nothing recomputed, " + formatBytes(aSel) + " with selective recomputation and "
                 + formatBytes(b.perGpu.activations) + " when only each layer's input is kept. Full checkpointing saves "
                 + formatBytes(h.bytes) + " for about one extra forward pass (+33% compute).";
        return h;
    };
    t.push_back(ckpt);

    using K = SegmentKind;
    t.push_back(pictureStep("picture-weights", "Programmer picture: the weights", {K::Weights},
                            "Inference needs only the weights."));
    t.push_back(pictureStep("picture-gradients", "+ a gradient per weight", {K::Weights, K::Gradients},
                            "Backward writes one gradient for every weight."));
    t.push_back(pictureStep("picture-adam", "+ Adam's two running averages", {K::Weights, K::Gradients, K::Master, K::Optimizer},
                            "Adam keeps two running averages per weight (m and v), and mixed precision an fp32 master copy."));
    t.push_back(pictureStep("picture-activations", "+ the tape of activations",
                            {K::Weights, K::Gradients, K::Master, K::Optimizer, K::Activations, K::Logits},
                            "Backward needs almost every activation of the forward pass, the logits included."));
    t.push_back(pictureStep("picture-workspace", "+ a workspace for the current matmul", kEverything,
                            "Finally the current matmul's workspace, the CUDA context and the allocator's reserve."));
    return t;
}

}  // namespace

const std::vector<TourStep>& chapterTour()
{
    static const std::vector<TourStep> tour = makeTour();
    return tour;
}

std::optional<size_t> tourStepIndex(const std::string& id)
{
    const auto& t = chapterTour();
    for (size_t i = 0; i < t.size(); ++i)
        if (t[i].id == id)
            return i;
    return std::nullopt;
}

std::optional<Scenario> tourScenario(const TourStep& step, const PresetLookup& presets)
{
    Scenario s;
    if (!step.presetId.empty()) {
        std::optional<Scenario> p = presets ? presets(step.presetId) : std::nullopt;
        if (!p)
            return std::nullopt;
        s = *p;
    }
    if (step.configure)
        step.configure(s);
    return s;
}

std::optional<TourStage> evaluateTourStep(const TourStep& step, const PresetLookup& presets, const GpuLookup& gpus)
{
    std::optional<Scenario> s = tourScenario(step, presets);
    if (!s)
        return std::nullopt;
    std::optional<GpuSpec> gpu = gpus ? gpus(s->hardware.gpu) : std::nullopt;
    if (!gpu)
        return std::nullopt;
    TourStage st;
    st.step = &step;
    st.scenario = *s;
    st.gpu = *gpu;
    st.breakdown = account(st.scenario, st.gpu);
    if (step.highlight)
        st.highlight = step.highlight(st.scenario, st.breakdown, st.gpu);
    return st;
}

}  // namespace trainmem
