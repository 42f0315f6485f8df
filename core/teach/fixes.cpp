#include "fixes.h"

#include "units.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <tuple>
#include <vector>

namespace trainmem {
namespace {

// Korthikanti et al. 2022, Table 4: selective recomputation costs 2–4% of the step (2.7% on
// their GPT-3 175B run); full recomputation reruns the forward pass, a third of a step's FLOPs
// (Chen et al. 2016; Korthikanti §5: "about 33%").
constexpr double kSelectiveOverhead = 0.027;
constexpr double kFullOverhead = 0.33;

// Changes and factors as core/base/units.h formats them everywhere.
std::string pct(double f)
{
    return formatPercentChange(f);
}
std::string times(double x)
{
    return formatFactor(x);
}

// Largest integer in [lo, hi] for which `fits` holds, assuming it holds for small values and
// fails past some point (memory grows monotonically with context and micro-batch).
std::optional<int64_t> largestFitting(int64_t lo, int64_t hi, const std::function<bool(int64_t)>& fits)
{
    if (hi < lo || !fits(lo))
        return std::nullopt;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

} // namespace

std::string fixTierName(FixTier t)
{
    switch (t) {
    case FixTier::MemoryLayout:
        return "memory layout";
    case FixTier::Throughput:
        return "throughput";
    case FixTier::Numerics:
        return "numerics";
    case FixTier::Capability:
        return "capability";
    case FixTier::Hardware:
        return "hardware";
    }
    return {};
}

double perOpRecomputeShare(const Architecture& arch)
{
    const double h = static_cast<double>(arch.hidden);
    const double f =
        static_cast<double>(arch.isMoe() ? arch.moe.expertFfn * std::max<int64_t>(arch.moe.activeExperts, 1)
                                         : std::max(arch.ffn, arch.moe.denseFfn));
    const bool swiglu = arch.ffnKind == FfnKind::SwiGLU;
    // FLOPs per token are proportional to d_in·d_out: q, k, v, o, then gate, up, down (fc1, fc2), each
    // attention kind in its own shape (Gemma 4's full layers: wider heads, no v_proj), weighted by its layers.
    double all = 0, recomputed = 0;
    for (const LayerKind kind : {LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked}) {
        const double layers = static_cast<double>(arch.layersOfKind(kind));
        if (layers <= 0)
            continue;
        const double q = static_cast<double>(arch.heads * arch.headDimOf(kind));
        const double kv = static_cast<double>(arch.kvHeadsOf(kind) * arch.headDimOf(kind));
        std::vector<double> flops{h * q, h * kv};
        if (!arch.keyIsValueIn(kind))
            flops.push_back(h * kv);
        flops.push_back(q * h);
        flops.insert(flops.end(), {h * f, h * f});
        if (swiglu)
            flops.push_back(f * h);
        for (size_t i = 0; i < flops.size(); ++i) {
            all += layers * flops[i];
            if (i % 2 == 1) // the 2nd, 4th, … matmul is recomputed
                recomputed += layers * flops[i];
        }
    }
    return all > 0 ? recomputed / all : 0;
}

std::vector<Fix> cheapestFixes(const Scenario& s, const GpuSpec& gpu)
{
    return cheapestFixes(s, gpu, account(s, gpu));
}

std::vector<Fix> cheapestFixes(const Scenario& s, const GpuSpec& gpu, const Breakdown& before)
{
    std::vector<Fix> out;
    const ResolvedModel& m = before.model;
    if (before.fits)
        return out;
    const bool training = s.training.mode == Mode::Training;
    const std::optional<double> price =
        s.cost.pricePerGpuHour > 0 ? std::optional<double>(s.cost.pricePerGpuHour) : gpu.pricePerHour;

    // Every candidate goes through here: it is kept only if account() says it fits.
    auto consider = [&](FixKind kind, FixTier tier, std::string title, std::string change, const Scenario& x,
                        double overhead, const std::function<std::string(const Breakdown&)>& cost) {
        const Breakdown after = account(m, x, gpu);
        if (!after.fits)
            return;
        Fix f;
        f.kind = kind;
        f.tier = tier;
        f.title = std::move(title);
        f.change = std::move(change);
        f.scenario = x;
        f.after = after;
        f.perGpuBefore = before.perGpu.total();
        f.freedBytes = before.perGpu.total() - after.perGpu.total();
        f.computeOverhead = overhead;
        f.extraTaxBytes = after.tax.total() - before.tax.total();
        f.extraGpus = std::max<int64_t>(0, x.hardware.gpus - s.hardware.gpus);
        f.cost = cost(after);
        out.push_back(std::move(f));
    };
    const std::string perGpu = formatBytes(before.perGpu.total());
    auto to = [&](const Breakdown& a) { return perGpu + " → " + formatBytes(a.perGpu.total()) + " per GPU"; };

    const int64_t gpus = std::max<int64_t>(s.hardware.gpus, 1);
    const int64_t seq = std::max<int64_t>(s.training.seqLen, 1);
    const int64_t batch = std::max<int64_t>(s.training.microBatch, 1);

    if (training) {
        // Sequence parallelism splits the norms' and dropout's activations (and the block inputs) that tensor
        // parallelism leaves whole, for no extra compute and no extra traffic: its all-gathers and
        // reduce-scatters replace the all-reduces with the same volume (Korthikanti et al. 2022 §4.2.2).
        // At long context it is usually the cheapest fix of all.
        if (before.layout.tp > 1 && !s.training.sequenceParallel) {
            Scenario x = s;
            x.training.sequenceParallel = true;
            consider(FixKind::SequenceParallel, FixTier::MemoryLayout, "Sequence parallel",
                     "sequence parallel off → on (tp " + std::to_string(before.layout.tp) + ")", x, 0,
                     [&](const Breakdown& a) {
                         return to(a) + ". The norms, dropout masks and block inputs are split over the " +
                                std::to_string(before.layout.tp) +
                                " tensor-parallel ranks too; the all-reduces become all-gathers and "
                                "reduce-scatters of the same volume (Korthikanti et al. 2022 §4.2.2): no extra "
                                "compute or traffic.";
                     });
        }
        // Context parallel in place of some data parallel, on the same GPUs: the ZeRO shards are unchanged
        // (they span dp·cp) and every GPU holds s/cp tokens; the price is ring attention's K/V traffic.
        // The smallest cp that fits; cp above 64 is not tried (no published run uses more).
        if (before.layout.dp > 1) {
            for (int64_t c = 2; c <= std::min<int64_t>(before.layout.dp, 64); ++c) {
                if (before.layout.dp % c != 0 || seq % (2 * c * before.layout.cp) != 0)
                    continue;
                Scenario x = s;
                x.hardware.cp = before.layout.cp * c;
                if (!validateScenario(x, "").empty() || !account(m, x, gpu).fits)
                    continue;
                consider(FixKind::ContextParallel, FixTier::MemoryLayout, "Context parallel",
                         "context parallel " + std::to_string(before.layout.cp) + " → " +
                             std::to_string(x.hardware.cp) + " on the same " + std::to_string(gpus) + " GPUs",
                         x, 0, [&](const Breakdown& a) {
                             return to(a) + ". Each GPU holds " + std::to_string(seq / x.hardware.cp) + " of the " +
                                    std::to_string(seq) + " tokens; ring attention passes K and V around " +
                                    std::to_string(x.hardware.cp) + " GPUs: " + formatBytes(a.tax.contextParallel) +
                                    " per GPU per step (Megatron-LM context parallel; Liu et al. 2023).";
                         });
                break;
            }
        }
        if (s.training.checkpointing == Checkpointing::None) {
            Scenario x = s;
            x.training.checkpointing = Checkpointing::Selective;
            consider(FixKind::SelectiveCheckpointing, FixTier::MemoryLayout, "Selective checkpointing",
                     "checkpointing none → selective", x, kSelectiveOverhead, [&](const Breakdown& a) {
                         return to(a) + ". Recomputes the attention scores in backward: about " +
                                pct(kSelectiveOverhead) + " compute (Korthikanti et al. 2022, Table 4).";
                     });
        }
        // torchtitan's per-op selective AC recomputes the 2nd, 4th, … matmul of each layer (k, o and up for a SwiGLU
        // layer, fc2 for GeLU) and the cheap ops around them: the extra compute is those matmuls' share of the forward
        // FLOPs, a third of a step's (docs/accounting.md, Recipes). Multi-head latent attention is left out.
        const Architecture& arch = m.arch;
        if ((s.training.checkpointing == Checkpointing::None || s.training.checkpointing == Checkpointing::Selective) &&
            arch.attention != AttentionKind::MLA && arch.hidden > 0) {
            const double overhead = perOpRecomputeShare(arch) / 3;
            Scenario x = s;
            x.training.checkpointing = Checkpointing::PerOp;
            consider(FixKind::PerOpCheckpointing, FixTier::Throughput, "Per-op checkpointing",
                     std::string("checkpointing ") + toString(s.training.checkpointing) + " → per-op", x, overhead,
                     [&](const Breakdown& a) {
                         return to(a) +
                                ". Keeps every other matmul's output and recomputes the rest in backward "
                                "(torchtitan's selective AC): about " +
                                pct(overhead) + " compute.";
                     });
        }
        if (s.training.checkpointing != Checkpointing::Full) {
            Scenario x = s;
            x.training.checkpointing = Checkpointing::Full;
            consider(FixKind::FullCheckpointing, FixTier::Throughput, "Full checkpointing",
                     std::string("checkpointing ") + toString(s.training.checkpointing) + " → full", x, kFullOverhead,
                     [&](const Breakdown& a) {
                         return to(a) + ". Reruns every layer's forward in backward: about " + pct(kFullOverhead) +
                                " compute (Chen et al. 2016; Korthikanti et al. 2022 §5).";
                     });
        }
        if (before.layout.replicas() > 1 && s.hardware.zeroStage < 3) { // ZeRO shards over dp·cp
            for (int z = std::max(0, s.hardware.zeroStage) + 1; z <= 3; ++z) {
                Scenario x = s;
                x.hardware.zeroStage = z;
                if (!account(m, x, gpu).fits)
                    continue;
                consider(FixKind::HigherZeroStage, FixTier::MemoryLayout, "ZeRO-" + std::to_string(z),
                         "ZeRO stage " + std::to_string(s.hardware.zeroStage) + " → " + std::to_string(z) +
                             " on the same " + std::to_string(gpus) + " GPUs",
                         x, 0, [&](const Breakdown& a) {
                             const double extra = a.tax.total() - before.tax.total();
                             return to(a) + ". Data-parallel traffic " + formatBytes(before.tax.dataParallel) + " → " +
                                    formatBytes(a.tax.dataParallel) + " per GPU per step" +
                                    (extra > 0 ? " (+" + formatBytes(extra) + ": weights are all-gathered twice)."
                                               : " (the same volume).");
                         });
                break; // the lowest stage that fits is the cheapest
            }
        }
    }

    const FsdpRoot root = effectiveFsdpRoot(s);
    if (training && before.layout.zero >= 3 && before.layout.replicas() > 1 && root != FsdpRoot::None &&
        !effectiveFsdpFlatWrap(s)) {
        // What an FSDP2 wrap keeps gathered beside the layers (docs/accounting.md, "Workspace and overhead"): sharded
        // as units of their own, the embeddings and head are gathered only for their forward and backward. torchtune:
        // custom_sharded_layers ['tok_embeddings', 'output'] (8 of its full fine-tune configs at bd2a0fc set it);
        // torchtitan: the "always" reshard policy, which reshards its [norm, lm_head] unit after forward too.
        const bool titan = s.framework == Framework::Torchtitan && !s.hardware.fsdpRoot;
        Scenario x = s;
        if (titan)
            x.hardware.reshardAfterForward = true;
        else
            x.hardware.fsdpRoot = FsdpRoot::None;
        const double gathered = before.perGpu.workspace;
        const bool headOnly = root == FsdpRoot::Head;
        consider(FixKind::ShardRootUnit, FixTier::Throughput, "Shard the embeddings and head on their own",
                 std::string("fsdp root ") + toString(root) + " → none", x, 0, [&](const Breakdown& a) {
                     return to(a) + ". The " +
                            (headOnly ? "output head is all-gathered for its"
                                      : "embeddings and head are all-gathered for their") +
                            " forward and again for backward instead of staying gathered (" +
                            formatBytes(gathered - a.perGpu.workspace) + " less workspace): " +
                            (titan ? "torchtitan's --parallelism.fsdp_reshard_after_forward always"
                                   : "torchtune's custom_sharded_layers: ['tok_embeddings', 'output']") +
                            ", one more all-gather of them per step.";
                 });
    }

    if (training) {
        // Issue 30 §2's recipes, each proposed only where the run does not use it yet (its own setting, else its
        // framework's default: effective*) and where the changed scenario is one the command line accepts.
        auto valid = [&](const Scenario& x) {
            return validateScenario(x, "").empty() && validateHost(x, gpu, "").empty();
        };
        const std::optional<LossKind> loss = effectiveLoss(s);
        if (loss == LossKind::Eager || loss == LossKind::LossParallel) {
            // A chunked cross-entropy (docs/accounting.md, "The loss as computed"): the same sums in 8 chunks, one
            // chunk's fp32 logits at a time; under torchtitan its own ChunkedLossWrapper (the loss-parallel one at
            // tp > 1), elsewhere torchtune's.
            const bool titan = s.framework == Framework::Torchtitan;
            Scenario x = s;
            x.training.loss = titan ? LossKind::ChunkedBackward : LossKind::Chunked;
            if (valid(x))
                consider(FixKind::ChunkedLoss, FixTier::MemoryLayout, "Chunked cross-entropy",
                         std::string("loss ") + toString(*loss) + " → " + toString(*x.training.loss), x, 0,
                         [&](const Breakdown& a) {
                             return to(a) +
                                    (titan ? ". The same cross-entropy over 8 chunks of the tokens, each chunk's "
                                             "backward right after its forward (torchtitan's ChunkedLossWrapper, its "
                                             "llama3 configs' default): no extra compute."
                                           : ". The same cross-entropy over 8 chunks of the tokens, one chunk's fp32 "
                                             "logits at a time (torchtune's CEWithChunkedOutputLoss): no extra "
                                             "compute.");
                         });
        }
        if (!effectiveCompile(s)) {
            Scenario x = s;
            x.training.compile = true;
            if (valid(x))
                consider(FixKind::Compile, FixTier::MemoryLayout, "torch.compile", "torch.compile off → on", x, 0,
                         [&](const Breakdown& a) {
                             return to(a) + ". The compiled backward rebuilds the pointwise results (the SwiGLU "
                                            "product, the norms' outputs) inside its kernels instead of keeping them "
                                            "(docs/accounting.md, Recipes); it costs compile time, usually not step "
                                            "time.";
                         });
        }
        if (!effectiveActivationOffload(s) && gpu.hostMemoryBytes > 0) {
            Scenario x = s;
            x.training.activationOffload = true;
            if (valid(x))
                consider(FixKind::ActivationOffload, FixTier::Throughput, "Activation offloading",
                         "activation offloading off → on", x, 0, [&](const Breakdown& a) {
                             return to(a) +
                                    ". Every saved tensor goes to host memory as forward saves it and comes "
                                    "back before its backward (torchtune's OffloadActivations): " +
                                    formatBytes(a.perNodeHost.activations) +
                                    " of host memory per node, and PCIe copies that slow the step where compute "
                                    "does not hide them.";
                         });
        }
        if (!effectiveOptimizerInBackward(s) && s.training.fineTune == FineTune::Full) {
            Scenario x = s;
            x.training.optimizerInBackward = true;
            if (valid(x))
                consider(FixKind::OptimizerInBackward, FixTier::Capability, "Optimizer step in backward",
                         "optimizer step in backward off → on", x, 0, [&](const Breakdown& a) {
                             return to(a) + ". Each parameter is stepped and its gradient freed as soon as backward "
                                            "writes it (torchtune's OptimizerInBackward): no gradient accumulation "
                                            "and no clipping by the global gradient norm (torchtune refuses both "
                                            "with it).";
                         });
        }
    }

    if (batch > 1) {
        Scenario x = s;
        const auto b = largestFitting(1, batch - 1, [&](int64_t v) {
            x.training.microBatch = v;
            return account(m, x, gpu).fits;
        });
        if (b) {
            x.training.microBatch = *b;
            consider(FixKind::SmallerMicroBatch, FixTier::Throughput, "Smaller micro-batch",
                     "micro-batch " + std::to_string(batch) + " → " + std::to_string(*b), x, 0,
                     [&](const Breakdown& a) {
                         return to(a) + ". Keep the global batch with " +
                                times(static_cast<double>(batch) / static_cast<double>(*b)) +
                                " gradient-accumulation steps; smaller matmuls use the GPU less efficiently.";
                     });
        }
    }

    if (training) {
        if (s.training.optimizer == Optimizer::Adam || s.training.optimizer == Optimizer::AdamW) {
            Scenario x = s;
            x.training.optimizer = Optimizer::Adam8bit;
            consider(FixKind::EightBitOptimizer, FixTier::Numerics, "8-bit Adam",
                     std::string("optimizer ") + toString(s.training.optimizer) + " → adam8bit", x, 0,
                     [&](const Breakdown& a) {
                         return to(a) + ". Adam's moments quantised block-wise to 1 byte each (Dettmers et al. 2021): "
                                        "close to 32-bit Adam on their benchmarks, but a risk for unusual runs.";
                     });
        }
        if (s.training.precision == Precision::BF16Mixed || s.training.precision == Precision::FP16Mixed ||
            s.training.precision == Precision::FP32) {
            Scenario x = s;
            x.training.precision = Precision::BF16;
            consider(FixKind::PureBf16, FixTier::Numerics, "Pure bf16 (no fp32 master)",
                     std::string("precision ") + toString(s.training.precision) + " → bf16", x, 0,
                     [&](const Breakdown& a) {
                         return to(a) + ". Without an fp32 master copy, updates smaller than bf16's 8-bit mantissa are "
                                        "rounded away; needs stochastic rounding or Kahan summation to train well.";
                     });
            if (gpu.fp8Tflops > 0 && s.training.precision != Precision::FP32) {
                Scenario y = s;
                y.training.precision = Precision::FP8Mixed;
                consider(FixKind::Fp8Mixed, FixTier::Numerics, "fp8 mixed precision",
                         std::string("precision ") + toString(s.training.precision) + " → fp8-mixed", y, 0,
                         [&](const Breakdown& a) {
                             return to(a) +
                                    ". fp8 GEMMs with fine-grained scaling (DeepSeek-V3 §3.3); needs fp8 tensor "
                                    "cores and careful scaling to keep the loss on track.";
                         });
            }
        }
    } else {
        for (auto [w, kind, name] : {std::tuple{InferenceWeights::INT8, FixKind::Int8Weights, "int8"},
                                     std::tuple{InferenceWeights::INT4, FixKind::Int4Weights, "int4"}}) {
            if (inferenceWeightBytes(w) >= inferenceWeightBytes(s.training.inferenceWeights))
                continue;
            Scenario x = s;
            x.training.inferenceWeights = w;
            consider(kind, FixTier::Numerics, std::string(name) + " weights",
                     std::string("weights ") + toString(s.training.inferenceWeights) + " → " + name, x, 0,
                     [&](const Breakdown& a) {
                         return to(a) + ". Quantised weights lose some accuracy, more at 4 bits than at 8 "
                                        "(Dettmers et al. 2022, LLM.int8(); Frantar et al. 2023, GPTQ).";
                     });
        }
    }

    if (seq > 1) {
        Scenario x = s;
        auto fitsAt = [&](int64_t v) {
            x.training.seqLen = v;
            return account(m, x, gpu).fits;
        };
        std::optional<int64_t> c = largestFitting(1, seq - 1, fitsAt);
        if (c) {
            // Contexts are quoted in round numbers: take the largest multiple of 256 that fits, if any.
            if (*c >= 256)
                c = *c / 256 * 256;
            x.training.seqLen = *c;
            consider(FixKind::ShorterContext, FixTier::Capability, "Shorter context",
                     "context " + std::to_string(seq) + " → " + std::to_string(*c) + " tokens", x, 0,
                     [&](const Breakdown& a) {
                         return to(a) + ". The model no longer " + (training ? "learns" : "sees") +
                                " dependencies longer than " + std::to_string(*c) + " tokens" +
                                (training ? "; keeping the tokens per step needs " +
                                                times(static_cast<double>(seq) / static_cast<double>(*c)) +
                                                " more micro-batches."
                                          : ".");
                     });
        }
    }

    // When ZeRO-3 on the GPUs it already has would do, the ZeRO fix above says so; more GPUs
    // are only proposed when they are really needed.
    if (training && before.minGpusToFit > gpus) {
        Scenario x = s;
        x.hardware.zeroStage = 3;
        const int64_t mp = before.layout.tp * before.layout.pp * before.layout.cp; // GPUs come in tp·pp·cp
        int64_t n = before.minGpusToFit;
        n = (n + mp - 1) / mp * mp;
        // The core's estimate is exact for ZeRO-3; the loop is only a guard against rounding.
        for (int tries = 0; tries < 4 && n <= kMaxGpus; ++tries, n += mp) {
            x.hardware.gpus = n;
            if (account(m, x, gpu).fits)
                break;
        }
        consider(FixKind::MoreGpus, FixTier::Hardware, "More GPUs (ZeRO-3)",
                 std::to_string(gpus) + " → " + std::to_string(x.hardware.gpus) + " " + gpu.id + " with ZeRO-3", x, 0,
                 [&](const Breakdown& a) {
                     char usd[64];
                     if (price)
                         std::snprintf(usd, sizeof usd, "$%.2f more per hour",
                                       static_cast<double>(x.hardware.gpus - gpus) * *price);
                     else // no public price for this GPU: never a $0
                         std::snprintf(usd, sizeof usd, "price unknown: set your own");
                     return to(a) + ". " + std::to_string(x.hardware.gpus - gpus) + " more GPUs (" + usd +
                            ") and the communication tax: " + formatBytes(a.tax.total()) +
                            " sent per GPU per step (was " + formatBytes(before.tax.total()) + ").";
                 });
    } else if (!training && before.minGpusToFit > gpus) {
        // Serving splits the weights by tensor parallelism over the GPUs (core/memory/accounting.cpp);
        // the core finds the smallest count that fits.
        Scenario x = s;
        x.hardware.gpus = before.minGpusToFit;
        x.hardware.tp = x.hardware.pp = x.hardware.ep = 1;
        consider(FixKind::MoreGpus, FixTier::Hardware, "More GPUs (tensor parallel)",
                 std::to_string(gpus) + " → " + std::to_string(x.hardware.gpus) + " " + gpu.id +
                     ", weights split across them",
                 x, 0, [&](const Breakdown& a) {
                     return to(a) + ". " + std::to_string(x.hardware.gpus - gpus) + " more GPUs and " +
                            formatBytes(a.tax.tensorParallel) + " of all-reduces per GPU per forward pass.";
                 });
    }

    std::stable_sort(out.begin(), out.end(), [](const Fix& a, const Fix& b) {
        return std::tuple{static_cast<int>(a.tier), a.computeOverhead, a.extraTaxBytes, a.extraGpus, -a.freedBytes} <
               std::tuple{static_cast<int>(b.tier), b.computeOverhead, b.extraTaxBytes, b.extraGpus, -b.freedBytes};
    });
    return out;
}

} // namespace trainmem
