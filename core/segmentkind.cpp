#include "segmentkind.h"

namespace trainmem {

double segmentBytes(const Segments& g, SegmentKind k)
{
    switch (k) {
    case SegmentKind::Weights: return g.weights;
    case SegmentKind::Gradients: return g.gradients;
    case SegmentKind::Master: return g.master;
    case SegmentKind::Optimizer: return g.optimizer;
    case SegmentKind::Activations: return g.activations;
    case SegmentKind::KvCache: return g.kvCache;
    case SegmentKind::Logits: return g.logits;
    case SegmentKind::Workspace: return g.workspace;
    case SegmentKind::Framework: return g.framework;
    case SegmentKind::Fragmentation: return g.fragmentation;
    }
    return 0;
}

void setSegmentBytes(Segments& g, SegmentKind k, double bytes)
{
    switch (k) {
    case SegmentKind::Weights: g.weights = bytes; break;
    case SegmentKind::Gradients: g.gradients = bytes; break;
    case SegmentKind::Master: g.master = bytes; break;
    case SegmentKind::Optimizer: g.optimizer = bytes; break;
    case SegmentKind::Activations: g.activations = bytes; break;
    case SegmentKind::KvCache: g.kvCache = bytes; break;
    case SegmentKind::Logits: g.logits = bytes; break;
    case SegmentKind::Workspace: g.workspace = bytes; break;
    case SegmentKind::Framework: g.framework = bytes; break;
    case SegmentKind::Fragmentation: g.fragmentation = bytes; break;
    }
}

std::string segmentKindName(SegmentKind k)
{
    switch (k) {
    case SegmentKind::Weights: return "Weights";
    case SegmentKind::Gradients: return "Gradients";
    case SegmentKind::Master: return "Master weights (fp32)";
    case SegmentKind::Optimizer: return "Optimizer state";
    case SegmentKind::Activations: return "Activations";
    case SegmentKind::KvCache: return "KV cache";
    case SegmentKind::Logits: return "Logits";
    case SegmentKind::Workspace: return "Workspace";
    case SegmentKind::Framework: return "Framework";
    case SegmentKind::Fragmentation: return "Fragmentation";
    }
    return {};
}

std::string segmentKindId(SegmentKind k)
{
    switch (k) {
    case SegmentKind::Weights: return "weights";
    case SegmentKind::Gradients: return "gradients";
    case SegmentKind::Master: return "master_weights";
    case SegmentKind::Optimizer: return "optimizer";
    case SegmentKind::Activations: return "activations";
    case SegmentKind::KvCache: return "kv_cache";
    case SegmentKind::Logits: return "logits";
    case SegmentKind::Workspace: return "workspace";
    case SegmentKind::Framework: return "framework";
    case SegmentKind::Fragmentation: return "fragmentation";
    }
    return {};
}

Segments subtractSegments(const Segments& a, const Segments& b)
{
    Segments d;
    for (SegmentKind k : kAllSegmentKinds)
        setSegmentBytes(d, k, segmentBytes(a, k) - segmentBytes(b, k));
    return d;
}

}  // namespace trainmem
