#include "explain.h"

#include "recipe.h"
#include "terms.h"
#include "units.h"

#include <algorithm>
#include <cmath>

namespace trainmem {
namespace {

double dbl(int64_t v)
{
    return static_cast<double>(v);
}
std::string num(double v)
{
    return formatNumber(v);
}

// The model-state floor cites what the model-state terms cite.
std::string recipeSource(const Scenario& s, const Breakdown& b)
{
    const TermContext c = termContext(b.model, s, parallelLayout(s, b.model));
    return explainTerm(SegmentKind::Weights, c).notes.sourceText;
}

} // namespace

std::string explainResult(double bytes)
{
    return formatBytes(bytes);
}

Explanation explainSegment(SegmentKind k, const Scenario& s, const Breakdown& b)
{
    // The term's own function with the text evaluator (core/memory/terms.cpp): the value is the one
    // account() computed, the formula is the expression that computed it.
    TermContext c = termContext(b.model, s, parallelLayout(s, b.model));
    evaluateTerms(c);
    TermText t = explainTerm(k, c);
    Explanation e;
    e.title = std::move(t.notes.titleText);
    e.formula = std::move(t.expr.symbolic);
    e.substituted = std::move(t.expr.substituted);
    e.value = t.expr.value;
    e.result = explainResult(e.value);
    e.assumptions = std::move(t.notes.assumptions);
    e.source = std::move(t.notes.sourceText);
    return e;
}

std::vector<Explanation> explainSegments(const Scenario& s, const Breakdown& b)
{
    std::vector<Explanation> out;
    for (SegmentKind k : kAllSegmentKinds)
        out.push_back(explainSegment(k, s, b));
    return out;
}

Checkpointing curveMode(CurveKind c, Checkpointing own)
{
    switch (c) {
    case CurveKind::NoCheckpointing:
        return Checkpointing::None;
    case CurveKind::Selective:
        return Checkpointing::Selective;
    case CurveKind::Full:
        return Checkpointing::Full;
    case CurveKind::PerOp:
        return Checkpointing::PerOp;
    case CurveKind::ModelStateFloor:
    case CurveKind::Capacity:
        break;
    }
    return own;
}

Explanation explainCurve(CurveKind c, const Scenario& s, const GpuSpec& gpu)
{
    Explanation e;
    const std::string at = "s = " + num(dbl(std::clamp<int64_t>(s.training.seqLen, 1, kMaxSeq)));
    if (c == CurveKind::Capacity) {
        e.title = "Capacity of one " + gpu.id;
        e.formula = "GPU memory";
        e.value = gpu.memoryBytes;
        e.substituted = num(gpu.memoryBytes) + " B";
        e.result = explainResult(e.value);
        e.assumptions = "Marketed capacity in decimal bytes; everything above this line does not fit.";
        e.source = gpu.source.empty() ? "presets/gpus.json" : gpu.source;
        return e;
    }
    Scenario x = s;
    x.training.checkpointing = curveMode(c, s.training.checkpointing);
    const Breakdown b = account(x, gpu);
    std::string subs;
    double sum = 0;
    for (SegmentKind k : kAllSegmentKinds) {
        const bool state = termInfo(k).group == TermGroup::ModelState;
        if (c == CurveKind::ModelStateFloor && !state)
            continue;
        const Explanation part = explainSegment(k, x, b);
        sum += part.value;
        if (part.value != 0)
            subs += (subs.empty() ? "" : " + ") + part.result;
    }
    if (c == CurveKind::ModelStateFloor) {
        e.title = "Model-state floor";
        e.formula = "weights + gradients + master + optimizer (per GPU; independent of s)";
        e.assumptions = "No context length gets below this: the model state does not depend on the sequence.";
        e.source = recipeSource(s, b);
    } else {
        const char* names[] = {"no checkpointing", "selective checkpointing", "full checkpointing",
                               "per-op checkpointing"};
        e.title = std::string("Memory per GPU, ") + names[static_cast<int>(x.training.checkpointing)];
        e.formula = "M(s) = model state";
        for (SegmentKind k : kAllSegmentKinds)
            if (termInfo(k).group != TermGroup::ModelState)
                e.formula +=
                    std::string(" + ") + termInfo(k).label + (termInfo(k).group == TermGroup::Working ? "(s)" : "");
        e.assumptions =
            "Each term at " + at +
            (x.training.checkpointing == Checkpointing::PerOp
                 ? "; the activations follow torchtitan's per-op policy (every other matmul's output kept). "
                 : "; the activations follow Korthikanti's terms for this checkpointing mode. ") +
            explainSegment(SegmentKind::Activations, x, b).assumptions;
        e.source = "Korthikanti et al. 2022 §4–5; docs/accounting.md, Activations and Workspace and overhead; "
                   "core/memory/accounting.cpp (sweepContext)";
    }
    e.substituted = subs.empty() ? "0" : subs + " at " + at;
    e.value = sum;
    e.result = explainResult(sum);
    return e;
}

} // namespace trainmem
