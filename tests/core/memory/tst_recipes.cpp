// The recipes of issue 30 §2 (docs/accounting.md, "Recipes"): torch.compile, the optimizer step in backward,
// activation offloading, paged optimizers, Muon, FSDP2's reshard-after-forward; the contradictions refused with both
// named (§3) and framework profiles that never override what the scenario sets (§4). Every expected number is worked
// by hand in the comments.
//
// Llama 2 7B (presets/llama2-7b.json): L = 32, h = 4096, 32 heads of 128, f = 11008 (SwiGLU), V = 32000, untied, no
// dropout; 6,738,415,616 parameters, of which the embedding and head are 2·32000·4096 = 262,144,000. At s = 4096,
// b = 1, bf16 (e = 2 B), flash attention, no checkpointing, sb = 4096 and one layer's eager tape is
//   attention 2·sb·(h + (q + k) + v + q) = 2·4096·(4096 + 8192 + 4096 + 4096) = 167,772,160
//   scores    4·a·sb = 4·32·4096                                         =     524,288
//   mlp       2·sb·(h + 2f + f) = 2·4096·(4096 + 33,024)                  = 304,087,040
//   norms     2·2·sb·h                                                    =  67,108,864
//   total                                                                 = 539,492,352 B.
#include "testdata.h"

#include "report.h"
#include "scenarioio.h"
#include "terms.h"
#include "timeline.h"

#include <QtTest>

using namespace trainmem;

namespace {

constexpr double kLayerTape = 539492352.0;
constexpr double kParams = 6738415616.0;

Scenario llama2()
{
    Scenario s = testdata::preset("llama2-7b");
    s.training.mode = Mode::Training;
    s.training.precision = Precision::BF16Mixed;
    s.training.seqLen = 4096;
    s.training.microBatch = 1;
    s.training.gradAccum = 1;
    s.training.checkpointing = Checkpointing::None;
    s.hardware.gpus = 1;
    s.hardware.zeroStage = 0;
    return s;
}

// LitGPT's full fine-tune of it (bf16-true: 2 B gradients) on 4 GPUs, ZeRO-3, 4 micro-batches a step.
Scenario litgptFullOnFour()
{
    Scenario s = llama2();
    s.training.precision = Precision::BF16;
    s.training.gradAccum = 4;
    s.hardware.gpus = 4;
    s.hardware.zeroStage = 3;
    return s;
}

// Llama 2 7B on `gpus` GPUs at ZeRO-3, sharded as FSDP shards it.
Scenario shardedOn(int64_t gpus)
{
    Scenario s = llama2();
    s.hardware.gpus = gpus;
    s.hardware.zeroStage = 3;
    return s;
}

Breakdown on(const Scenario& s)
{
    return account(s, testdata::gpu("H100"));
}

} // namespace

class TestRecipes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void compileDropsTheRebuiltResults()
    {
        // torch.compile: −lin·sb·f (the SwiGLU product), −2·lin·sb·h (the two norms' outputs), +2·4·sb (their 1/rms):
        // 2·4096·11008 + 2·2·4096·4096 − 8·4096 = 90,177,536 + 67,108,864 − 32,768 = 157,253,632 B a layer, so a
        // compiled layer keeps 539,492,352 − 157,253,632 = 382,238,720 B.
        Scenario s = llama2();
        const ActivationInputs eager = activationInputs(s, 1);
        QCOMPARE(layerActivations(s.model.architecture, false, eager).total(), kLayerTape);
        s.training.compile = true;
        const ActivationInputs compiled = activationInputs(s, 1);
        QCOMPARE(layerActivations(s.model.architecture, false, compiled).total(), 382238720.0);
        // The activations term: 32 layers, 32 · 157,253,632 = 5,032,116,224 B less.
        Scenario off = llama2();
        QCOMPARE(on(off).perGpu.activations - on(s).perGpu.activations, 5032116224.0);
    }

    void optimizerInBackwardKeepsOneLayersGradients()
    {
        // One layer: (6,738,415,616 − 262,144,000)/32 = 202,383,488 parameters (the final norm's 4096 shared out),
        // more than the head's V·h = 131,072,000; b_g = 2 B: 404,766,976 B instead of 2 · 6,738,415,616.
        Scenario s = llama2();
        QCOMPARE(on(s).perGpu.gradients, 2 * kParams);
        s.training.optimizerInBackward = true;
        QCOMPARE(on(s).perGpu.gradients, 404766976.0);
    }

    void optimizerInBackwardHonoursZeroSharding()
    {
        // On 4 data-parallel GPUs the step hook fires on each rank's gradient shard after the reduce-scatter (FSDP2's
        // sharded parameters) from ZeRO-2 on: one layer's 202,383,488 parameters ÷ 4 = 50,595,872 at 2 B =
        // 101,191,744 B (the head's 131,072,000 ÷ 4 is smaller). ZeRO-1 shards no gradients: the whole layer's,
        // 404,766,976 B, as on one GPU.
        Scenario s = llama2();
        s.training.optimizerInBackward = true;
        s.hardware.gpus = 4;
        for (const int zero : {2, 3}) {
            s.hardware.zeroStage = zero;
            QVERIFY(validateScenario(s, "").empty());
            QCOMPARE(on(s).perGpu.gradients, 101191744.0);
        }
        s.hardware.zeroStage = 1;
        QCOMPARE(on(s).perGpu.gradients, 404766976.0);
        // Without the step in backward ZeRO-2 holds every parameter's shard: 2 · 6,738,415,616 / 4 = 3,369,207,808 B.
        s.hardware.zeroStage = 2;
        s.training.optimizerInBackward = false;
        QCOMPARE(on(s).perGpu.gradients, 3369207808.0);
    }

    void optimizerInBackwardRefusesAccumulation()
    {
        Scenario s = llama2();
        s.training.optimizerInBackward = true;
        s.training.gradAccum = 4;
        const FieldErrors e = validateScenario(s, "");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(e.front().path, std::string("/training/optimizer_in_backward"));
        QVERIFY(e.front().message.find("grad_accum 4") != std::string::npos);
        s.training.gradAccum = 1;
        QVERIFY(validateScenario(s, "").empty());
    }

    void activationOffloadKeepsTwoLayers()
    {
        // No checkpointing: the GPU keeps 2 layers' tapes, 1,078,984,704 B; the host the other 30, 16,184,770,560 B.
        Scenario s = llama2();
        s.training.activationOffload = true;
        Breakdown b = on(s);
        QCOMPARE(b.perGpu.activations, 2 * kLayerTape);
        QCOMPARE(b.perGpuHost.activations, 30 * kLayerTape);
        // Full checkpointing: 2 layer inputs of e·sbh = 33,554,432 B and the layer rebuilt in backward (the whole
        // tape): 67,108,864 + 539,492,352 = 606,601,216 B; the host 30 inputs, 1,006,632,960 B.
        s.training.checkpointing = Checkpointing::Full;
        b = on(s);
        QCOMPARE(b.perGpu.activations, 606601216.0);
        QCOMPARE(b.perGpuHost.activations, 1006632960.0);
    }

    void pagedOptimizerLivesOnTheHost()
    {
        // Paged 8-bit AdamW: 2 B per parameter, 13,476,831,232 B, in host memory; none of it on the GPU.
        Scenario s = llama2();
        s.training.optimizer = Optimizer::Adam8bit;
        QCOMPARE(on(s).perGpu.optimizer, 2 * kParams);
        s.training.pagedOptimizer = true;
        const Breakdown b = on(s);
        QCOMPARE(b.perGpu.optimizer, 0.0);
        QCOMPARE(b.perGpuHost.optimizer, 2 * kParams);
    }

    void hostNeededIsRefusedWithBothNamed()
    {
        Scenario s = llama2();
        s.training.pagedOptimizer = true;
        s.training.activationOffload = true;
        GpuSpec noHost = testdata::gpu("H100");
        noHost.id = "NOHOST";
        noHost.hostMemoryBytes = 0;
        const FieldErrors e = validateHost(s, noHost, "");
        QCOMPARE(e.size(), size_t(2));
        QCOMPARE(e[0].path, std::string("/training/paged_optimizer"));
        QVERIFY(e[0].message.find("NOHOST") != std::string::npos);
        QCOMPARE(e[1].path, std::string("/training/activation_offload"));
        QVERIFY(validateHost(s, testdata::gpu("H100"), "").empty()); // a DGX H100 node has 2 TB
    }

    void muonKeepsOneSlotForMatrices()
    {
        // AdamW's second moment for the embeddings, head and norms: 262,144,000 + 32·2·4096 + 4096 = 262,410,240
        // parameters; fp32 slots: 4 · (6,738,415,616 + 262,410,240) = 28,003,303,424 B (AdamW: 8 · P).
        Scenario s = llama2();
        s.training.optimizer = Optimizer::Muon;
        QCOMPARE(on(s).perGpu.optimizer, 28003303424.0);
        QCOMPARE(optimizerFromString("muon"), std::optional<Optimizer>(Optimizer::Muon));
    }

    void reshardAfterForwardOffKeepsTheLayersGathered()
    {
        // ZeRO-3 on 8 GPUs: off keeps the other 31 layers' gathered bf16 weights, 31 · 202,383,488 · 2 =
        // 12,547,776,256 B more workspace.
        Scenario s = llama2();
        s.hardware.gpus = 8;
        s.hardware.zeroStage = 3;
        const double resharded = on(s).perGpu.workspace;
        s.hardware.reshardAfterForward = false;
        QCOMPARE(on(s).perGpu.workspace - resharded, 12547776256.0);
        // torchtitan's default policy keeps them gathered only under pipeline parallelism.
        s.hardware.reshardAfterForward.reset();
        s.framework = Framework::Torchtitan;
        QVERIFY(effectiveReshardAfterForward(s));
        s.hardware.pp = 2;
        QVERIFY(!effectiveReshardAfterForward(s));
    }

    void torchtitanKeepsTheHeadGathered()
    {
        // torchtitan wraps [norm, lm_head] as one FSDP2 unit not resharded after forward (distributed/fsdp.py at
        // b5bcd76): on 8 GPUs, ZeRO-3, the head and final norm stay gathered in bf16, (V·h + h)·2 =
        // (32000·4096 + 4096)·2 = 262,152,192 B more workspace, on the peak's GPU and in the film's loss.
        Scenario s = shardedOn(8);
        const double plain = on(s).perGpu.workspace;
        s.framework = Framework::Torchtitan;
        QCOMPARE(on(s).perGpu.workspace - plain, 262152192.0);
        // The "always" policy (--reshard-after-forward on) reshards it too.
        s.hardware.reshardAfterForward = true;
        QCOMPARE(on(s).perGpu.workspace, plain);
        s.hardware.reshardAfterForward.reset();
        // Under the FSDP1 flat wrap the root unit (embeddings and head, 524,288,000 B) is counted instead, not both.
        s.hardware.fsdpFlatWrap = true;
        QCOMPARE(on(s).perGpu.workspace - plain, 524288000.0);
        s.hardware.fsdpFlatWrap.reset();
        // Nothing is gathered on one GPU.
        s.hardware.gpus = 1;
        const double single = on(s).perGpu.workspace;
        s.framework.reset();
        QCOMPARE(on(s).perGpu.workspace, single);
        // A tied model's one matrix is the head: Llama 3.2 3B (V = 128,256, h = 3072) as torchtune's helper reads it,
        // on 4 GPUs: (128,256·3072 + 3072)·2 = 788,011,008 B.
        Scenario t = testdata::torchtuneLlama32_3B();
        t.hardware.gpus = 4;
        t.hardware.zeroStage = 3;
        const double without = on(t).perGpu.workspace;
        t.framework = Framework::Torchtitan;
        QCOMPARE(on(t).perGpu.workspace - without, 788011008.0);
        // The film's moment at the loss holds it.
        const StepTimeline film = stepTimeline(t, testdata::gpu("H100"));
        QCOMPARE(film.samples[film.peakSample].bytes.workspace, on(t).perGpu.workspace);
        QCOMPARE(film.peakWhere, std::string("the loss (logits)"));
    }

    void torchtuneKeepsItsRootGathered()
    {
        // torchtune's shard_model wraps the root (embeddings, final norm, head) with reshard_after_forward=False: on 2
        // GPUs, ZeRO-3, (P_embedding + h)·2 = (262,144,000 + 4096)·2 = 524,296,192 B more workspace. The root's
        // gradients are reduce-scattered at the end of backward, so the full fine-tune's head gradient, written at
        // the loss, waits unsharded: V·h·2 = 262,144,000 B more, 786,440,192 B in all.
        Scenario s = shardedOn(2);
        const double plain = on(s).perGpu.workspace;
        s.framework = Framework::Torchtune;
        QCOMPARE(effectiveFsdpRoot(s), FsdpRoot::EmbeddingsAndHead);
        QCOMPARE(on(s).perGpu.workspace - plain, 786440192.0);
        // The film's moment at the loss, under torchtune's order of frees, keeps both beside the gathered layer, and
        // the head's gradient is that unsharded one, not a share of the gradients term.
        const Breakdown b = on(s);
        const StepTimeline film = stepTimeline(s, testdata::gpu("H100"));
        QCOMPARE(film.peakWhere, std::string("the loss (logits)"));
        QCOMPARE(film.samples[film.peakSample].bytes.workspace, b.gatheredLayerBytes + 786440192.0);
        QCOMPARE(film.samples[film.peakSample].gradientsWritten, 0.0);
        // Under LoRA the head is frozen: its weights only.
        Scenario lora = s;
        lora.training.fineTune = FineTune::Lora;
        Scenario loraPlain = lora;
        loraPlain.framework.reset();
        QCOMPARE(on(lora).perGpu.workspace - on(loraPlain).perGpu.workspace, 524296192.0);
        // What the scenario sets wins over the profile (a config whose custom_sharded_layers names both modules).
        s.hardware.fsdpRoot = FsdpRoot::None;
        QCOMPARE(on(s).perGpu.workspace, plain);
        // Set without a framework: the head alone is (V·h + h)·2 = 262,152,192 B.
        s.framework.reset();
        s.hardware.fsdpRoot = FsdpRoot::Head;
        QCOMPARE(on(s).perGpu.workspace - plain, 262152192.0);
        // With FSDP1's flat wrap it contradicts the wrap: refused, both named.
        s.hardware.fsdpFlatWrap = true;
        const FieldErrors both = validateScenario(s, "test");
        QVERIFY(!both.empty());
        QCOMPARE(both.front().path, std::string("/hardware/fsdp_root"));
        QVERIFY(both.front().message.find("fsdp_flat_wrap") != std::string::npos);
        s.hardware.fsdpRoot = FsdpRoot::None;
        QVERIFY(validateScenario(s, "test").empty());
        // Named as files and the command line write it.
        QCOMPARE(std::string(toString(FsdpRoot::EmbeddingsAndHead)), std::string("embeddings+head"));
        QCOMPARE(fsdpRootFromString("head"), std::optional<FsdpRoot>(FsdpRoot::Head));
        QCOMPARE(fsdpRootFromString("root"), std::optional<FsdpRoot>());
    }

    void flatWrapCacheStaysReserved()
    {
        // FSDP1 wrapping the loaded model (fsdp_qlora's train.py) on 2 GPUs, ZeRO-3, bf16: one layer's parameters
        // and their flat concatenation, 2 · 202,383,488 · 2 B, and the root's embeddings and head, 2 · 262,144,000 ·
        // 2 B: 2 · (404,766,976 + 524,288,000) = 1,858,109,952 B cached. FSDP1 keeps the root unit gathered from
        // forward to backward (U_root = 524,288,000 B more allocated, in the workspace), served by best fit from the
        // root's cached concatenation of the same size: the cache beside the step is 1,858,109,952 − 524,288,000 =
        // 1,333,821,952 B, and the 5% share grows by 5% of U_root, 26,214,400 B: 1,360,036,352 B more reserve.
        Scenario s = llama2();
        s.hardware.gpus = 2;
        s.hardware.zeroStage = 3;
        const Breakdown plain = on(s);
        s.hardware.fsdpFlatWrap = true;
        const Breakdown wrapped = on(s);
        QCOMPARE(wrapped.perGpu.fragmentation - plain.perGpu.fragmentation, 1360036352.0);
        QCOMPARE(wrapped.perGpu.workspace - plain.perGpu.workspace, 524288000.0);
        QCOMPARE(wrapped.perGpu.total() - wrapped.perGpu.fragmentation,
                 plain.perGpu.total() - plain.perGpu.fragmentation + 524288000.0);
        // The film reserves it all step long: its peak is the bars' again.
        const StepTimeline t = stepTimeline(s, testdata::gpu("H100"));
        QVERIFY(t.peakBytes >= 1858109952.0);
        // Expandable segments map their own pages: no cache.
        s.hardware.expandableSegments = true;
        const ResolvedModel m = resolveModel(s.model);
        QCOMPARE(flatWrapCache(termContext(m, s, parallelLayout(s, m))), 0.0);
        s.hardware.expandableSegments = false;
        QVERIFY(flatWrapCache(termContext(m, s, parallelLayout(s, m))) > 0);
        // Unsharded (NO_SHARD) the concatenation is the parameter and nothing is gathered: U_layer + U_root =
        // 929,054,976 B.
        s.hardware.zeroStage = 0;
        QCOMPARE(flatWrapCache(termContext(m, s, parallelLayout(s, m))), 929054976.0);
        s.hardware.fsdpFlatWrap = false;
        QCOMPARE(flatWrapCache(termContext(m, s, parallelLayout(s, m))), 0.0);
    }

    void fsdpNoSyncHoldsTheGradientsWhole()
    {
        // LitGPT's full fine-tune (bf16-true: 2 B gradients) on 4 GPUs, ZeRO-3, 4 micro-batches a step. Sharded, each
        // GPU holds 2 · 6,738,415,616 / 4 = 3,369,207,808 B of gradients; inside FSDP1's no_sync() the first three
        // micro-batches keep them unsharded: 2 · 6,738,415,616 = 13,476,831,232 B.
        Scenario s = litgptFullOnFour();
        QCOMPARE(on(s).perGpu.gradients, 3369207808.0);
        s.hardware.fsdpNoSync = true;
        QVERIFY(validateScenario(s, "").empty());
        QCOMPARE(on(s).perGpu.gradients, 13476831232.0);
        // Nothing to accumulate with one micro-batch a step: every backward syncs.
        s.training.gradAccum = 1;
        QCOMPARE(on(s).perGpu.gradients, 3369207808.0);
        // ZeRO-1 never shards the gradients: unchanged.
        s.training.gradAccum = 4;
        s.hardware.zeroStage = 1;
        QCOMPARE(on(s).perGpu.gradients, 13476831232.0);
        s.hardware.fsdpNoSync = false;
        QCOMPARE(on(s).perGpu.gradients, 13476831232.0);
    }

    // --framework litgpt accumulates inside no_sync() and wraps FSDP1 as LitGPT's finetune scripts do (full.py at
    // 41dece2, lora.py at 8641822): the same 13,476,831,232 B of whole gradients as above without setting either
    // switch; a scenario that sets them keeps its own; under QLoRA (LitGPT refuses a quantised base on more than one
    // device) or an offload the profile's default does not apply, and nothing is refused.
    void litgptProfileAccumulatesInsideNoSync()
    {
        Scenario s = litgptFullOnFour();
        s.framework = Framework::LitGPT;
        QVERIFY(effectiveFsdpNoSync(s) && effectiveFsdpFlatWrap(s));
        QCOMPARE(on(s).perGpu.gradients, 13476831232.0);
        s.hardware.fsdpNoSync = false; // set by the scenario: kept
        QCOMPARE(on(s).perGpu.gradients, 3369207808.0);
        s.hardware.fsdpNoSync.reset();
        s.hardware.offload = Offload::Optimizer;
        QVERIFY(!effectiveFsdpNoSync(s));
        QVERIFY(validateScenario(s, "").empty());
        s.hardware.offload = Offload::None;
        s.training.fineTune = FineTune::QLora;
        QVERIFY(!effectiveFsdpNoSync(s));
        QVERIFY(validateScenario(s, "").empty());
        // Other profiles leave both off.
        s.framework = Framework::Torchtitan;
        s.training.fineTune = FineTune::Full;
        QVERIFY(!effectiveFsdpNoSync(s) && !effectiveFsdpFlatWrap(s));
    }

    void fsdpNoSyncUnderLoraHoldsEveryLayersGradient()
    {
        // LoRA under Lightning's FSDPStrategy (one flat parameter per decoder layer, base and adapters together) on
        // 2 GPUs, ZeRO-3, 128 micro-batches a step (LitGPT 8641822's resource tables). The frozen base has no
        // gradient term of its own; inside no_sync() each layer's whole flat parameter carries one, unsharded:
        // 2 B · (6,738,415,616 − 262,144,000) = 2 · 6,476,271,616 = 12,952,543,232 B. The embeddings and head
        // (262,144,000) are a frozen unit of their own: none.
        Scenario s = llama2();
        s.training.precision = Precision::BF16;
        s.training.fineTune = FineTune::Lora;
        s.training.checkpointing = Checkpointing::Full;
        s.training.gradAccum = 128;
        s.hardware.gpus = 2;
        s.hardware.zeroStage = 3;
        const Breakdown plain = on(s);
        QCOMPARE(plain.perGpu.gradients, 0.0);
        s.hardware.fsdpNoSync = true;
        const Breakdown noSync = on(s);
        QCOMPARE(noSync.perGpu.gradients, 12952543232.0);
        QCOMPARE(noSync.perGpu.adapters, plain.perGpu.adapters);
        // The drill-down names the mechanism and writes the formula with the same value.
        const TermText t = explainTerm(SegmentKind::Gradients, termContext(noSync.model, s, noSync.layout));
        QVERIFY2(t.notes.titleText.find("no_sync") != std::string::npos, t.notes.titleText.c_str());
        QVERIFY2(t.expr.symbolic.find("P − P_emb") != std::string::npos, t.expr.symbolic.c_str());
        QCOMPARE(t.expr.value, 12952543232.0);
        // A quantised base and an offload are refused, named by the option.
        s.training.fineTune = FineTune::QLora;
        FieldErrors e = validateScenario(s, "");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(e.front().path, std::string("/hardware/fsdp_no_sync"));
        QVERIFY(e.front().message.find("qlora") != std::string::npos);
        s.training.fineTune = FineTune::Lora;
        s.hardware.offload = Offload::OptimizerParams;
        e = validateScenario(s, "");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(e.front().path, std::string("/hardware/fsdp_no_sync"));
        QVERIFY(e.front().message.find("optimizer+params") != std::string::npos);
    }

    void qloraBaseOffloadedKeepsItsConstants()
    {
        // QLoRA with the base offloaded (FSDP1's CPUOffload(offload_params=True), fsdp_qlora's 70B on two 24 GB cards):
        // Llama 2 7B, r = 16 on q, k, v, o, 2 GPUs, ZeRO-3. The quantised linears: 32 · (4 · 4096² + 3 · 4096 · 11008)
        // = 32 · 202,375,168 = 6,476,005,376 = P_q; the 16-bit rest P − P_q = 262,410,240.
        Scenario s = llama2();
        s.training.fineTune = FineTune::QLora;
        s.training.checkpointing = Checkpointing::Full;
        s.hardware.gpus = 2;
        s.hardware.zeroStage = 3;
        s.hardware.offload = Offload::OptimizerParams;
        QVERIFY(validateScenario(s, "").empty()); // refused before issue 30's leftovers
        const Breakdown b = on(s);
        // The GPU keeps bitsandbytes' quant_state, which FSDP neither shards nor offloads: 8/64 + 32/(64·256) =
        // 65/512 bit a weight, 65/4096 B; 6,476,005,376 / 4096 · 65 = 1,581,056 · 65 = 102,768,640 B.
        QCOMPARE(b.perGpu.weights, 102768640.0);
        // The host holds this GPU's half of the NF4 data and of the rest: (6,476,005,376 · 0.5 + 262,410,240 · 2)/2 =
        // (3,238,002,688 + 524,820,480)/2 = 1,881,411,584 B.
        QCOMPARE(b.perGpuHost.weights, 1881411584.0);
        // The adapters, 32 · 4 · 16 · 8192 = 16,777,216 parameters at 16 B (bf16 weight and gradient, fp32 master and
        // two moments), sharded over 2: 134,217,728 B, all on the host with their optimizer step.
        QCOMPARE(b.perGpu.adapters, 0.0);
        QCOMPARE(b.perGpuHost.adapters, 134217728.0);
        // --text lists them with the host's terms, and --json under per_node_host_bytes.
        const GpuSpec h100 = testdata::gpu("H100");
        QVERIFY(breakdownToText(b, s, h100).find("LoRA adapters") != std::string::npos);
        QCOMPARE(breakdownToJson(b, s, h100, {})["per_node_host_bytes"]["adapters"].get<double>(), 2 * 134217728.0);
        // Without the offload the base and adapters are back on the GPU, half each but the constants, which ZeRO-3
        // does not shard either: 6,476,005,376 · 0.5/2 + 102,768,640 + 524,820,480/2 = 1,619,001,344 + 102,768,640 +
        // 262,410,240 = 1,984,180,224 B.
        s.hardware.offload = Offload::None;
        const Breakdown kept = on(s);
        QCOMPARE(kept.perGpu.weights, 1984180224.0);
        QCOMPARE(kept.perGpu.adapters, 134217728.0);
        QCOMPARE(kept.perGpuHost.total(), 0.0);
    }

    void perOpCheckpointingKeepsEveryOtherMatmul()
    {
        // torchtitan's per-op selective AC on Llama 2 7B (s = 4096, b = 1, bf16, flash): a layer keeps its input and
        // the outputs of the 1st, 3rd, 5th, 7th matmul (q, v, gate, down: 4096 + 4096 + 11008 + 4096), the
        // attention output (4096) and the fp32 log-sum-exp (4·32 B a token):
        //   2·4096·(4096 + 4096 + 4096 + 4096 + 11008 + 4096) + 4·32·4096 = 257,949,696 + 524,288 = 258,473,984 B,
        // between full's input alone (2·4096·4096 = 33,554,432) and no checkpointing (539,492,352).
        Scenario s = llama2();
        s.training.checkpointing = Checkpointing::PerOp;
        const ActivationInputs in = activationInputs(s, 1);
        const LayerActivations perOp = layerActivations(s.model.architecture, false, in);
        QCOMPARE(perOp.total(), 258473984.0);
        QCOMPARE(perOp.norms, 0.0); // recomputed from the layer input
        // The term: 32 kept tapes and, during one layer's backward, the rest of its tape rebuilt, 539,492,352 −
        // 258,473,984 = 281,018,368: 32 · 258,473,984 + 281,018,368 = 8,552,185,856 B.
        const double perOpBytes = on(s).perGpu.activations;
        QCOMPARE(perOpBytes, 8552185856.0);
        s.training.checkpointing = Checkpointing::Selective;
        const double selectiveBytes = on(s).perGpu.activations;
        s.training.checkpointing = Checkpointing::Full;
        const double fullBytes = on(s).perGpu.activations;
        QVERIFY(fullBytes < perOpBytes && perOpBytes < selectiveBytes);
        // Named as the command line and scenario files write it.
        QCOMPARE(std::string(toString(Checkpointing::PerOp)), std::string("per-op"));
        QCOMPARE(checkpointingFromString("per-op"), std::optional<Checkpointing>(Checkpointing::PerOp));
        // Grouped-query attention keeps the narrower v: Llama 3.1 8B's layer keeps, per token, 2·(4096 + 4096 +
        // 1024 + 4096 + 14336 + 4096) + 4·32 = 63,616 B.
        Scenario l3 = testdata::preset("llama3-8b");
        l3.training.seqLen = 1;
        l3.training.microBatch = 1;
        l3.training.checkpointing = Checkpointing::PerOp;
        QCOMPARE(layerActivations(l3.model.architecture, false, activationInputs(l3, 1)).total(), 63616.0);
    }

    void litgptQloraThroughBitsandbytes()
    {
        // --framework litgpt (docs/accounting.md, "Framework profiles"), Llama 2 7B in pure bf16 at the resource
        // tables' 1304 tokens, LoRA rank 8 on q and v. Against the same run without a profile:
        //  - the tape: 32 layers of LitGPT's (tst_activations::litgptsLoraLayerOfLlama2_7B) in place of Korthikanti's
        //    171,752,448 B: LoRA 32·(230,515,904 − 171,752,448) = 1,880,430,592 B more; QLoRA
        //    32·(291,271,872 − 171,752,448) = 3,824,621,568 B more;
        //  - the loss: Fabric's wrapper hands the 128-token chunks of logits back in fp32, so LitGPT's
        //    chunked_cross_entropy keeps 4 + 4 B per logit (fp32 logits, fp32 log-probabilities) and one chunk's two
        //    fp32 gradients: 8·1304·32000 + 8·128·32000 = 333,824,000 + 32,768,000 = 366,592,000 B, where the same
        //    loss without the profile (--loss chunked-16bit: in bf16) keeps 4·1304·32000 + 4·128·32000 = 183,296,000;
        //  - QLoRA's base: the head quantised too, V·h = 131,072,000 parameters from 2 B to 0.515869140625 B:
        //    131,072,000 · 1.484130859375 = 194,528,000 B less;
        //  - QLoRA's workspace: the head dequantised to fp16 and cast to bf16, (2 + 2) B · 131,072,000 = 524,288,000 B
        //    (the largest 4-bit matrix: the fused qkv has 3·4096² = 50,331,648, the MLP's 4096·11008 = 45,088,768).
        Scenario s = llama2();
        s.training.precision = Precision::BF16;
        s.training.seqLen = 1304;
        s.training.fineTune = FineTune::Lora;
        s.training.loraRank = 8;
        s.training.loraModules = kLoraQ | kLoraV;
        Scenario lit = s;
        lit.framework = Framework::LitGPT;
        QCOMPARE(on(lit).perGpu.activations - on(s).perGpu.activations, 1880430592.0);
        QCOMPARE(on(lit).perGpu.logits, 366592000.0);
        Scenario chunked16 = s;
        chunked16.training.loss = LossKind::Chunked16;
        QCOMPARE(on(chunked16).perGpu.logits, 183296000.0);
        QCOMPARE(on(lit).perGpu.weights, on(s).perGpu.weights);
        QCOMPARE(on(lit).perGpu.workspace, on(s).perGpu.workspace);
        s.training.fineTune = lit.training.fineTune = FineTune::QLora;
        lit.training.litgptHeldBatch = false; // the step's peak has no micro-batch before it: the loss is the peak
        QCOMPARE(on(lit).perGpu.activations - on(s).perGpu.activations, 3824621568.0);
        // With a micro-batch as long before it (the default), the next forward's end holds more than the loss does
        // (docs/accounting.md, "The micro-batch before"): that one's 4-bit inputs, 32 · 2 · 1304 · (2·4096 + 4096 +
        // 11008) = 1,944,190,976 B, its fp32 logits 4 · 1304 · 32000 = 166,912,000, and the head's forward, ⌈1304/128⌉
        // = 11 chunks, 10 of them as bf16 logits beside the head's two dequantised copies: 2 · 1304 · 32000 · 10/11 +
        // 4 · 131,072,000 = 600,157,090.9; less what the loss holds, the logits 366,592,000 and the workspace 2 · 2 ·
        // 1304 · 22016 (the fused gate‖up, w_max) + 524,288,000 = 639,123,456: 1,705,544,610.9 B more.
        const double atLoss = on(lit).perGpu.activations;
        lit.training.litgptHeldBatch = true;
        QCOMPARE(on(lit).perGpu.activations - atLoss,
                 1944190976.0 + 166912000.0 + 83456000.0 * 10 / 11 + 524288000.0 - 366592000.0 - 639123456.0);
        QCOMPARE(on(lit).perGpu.logits, 366592000.0); // the loss's terms are the bars' as before
        QCOMPARE(on(s).perGpu.weights - on(lit).perGpu.weights, 194528000.0);
        QCOMPARE(on(lit).perGpu.workspace - on(s).perGpu.workspace, 524288000.0);
        // LitGPT's loss is the profile's default: chunked_cross_entropy in the logits' 16 bits.
        QCOMPARE(effectiveLoss(lit), std::optional<LossKind>(LossKind::Chunked16));
        // torchtune's QLoRA is torchao's NF4, not bitsandbytes: none of this under its profile.
        Scenario tune = s;
        tune.framework = Framework::Torchtune;
        QCOMPARE(on(tune).perGpu.weights, on(s).perGpu.weights);
        QCOMPARE(on(tune).perGpu.workspace, on(s).perGpu.workspace);
        // A full fine-tune keeps the default tape under the profile.
        s.training.fineTune = lit.training.fineTune = FineTune::Full;
        QCOMPARE(on(lit).perGpu.activations, on(s).perGpu.activations);
    }

    void qloraWithoutDoubleQuantisation()
    {
        // bitsandbytes without compress_statistics (LitGPT's bnb.nf4) keeps one fp32 absmax per 64 weights: 32/64 bit
        // a weight where double quantisation keeps 8/64 + 32/(64·256); the difference is 0.5 − 0.127 = 0.373 bit,
        // 191/4096 B, on Llama 2 7B's P_q = 32·(4·4096² + 3·4096·11008) = 6,476,005,376 quantised weights:
        // 6,476,005,376 · 191/4096 = 1,581,056 · 191 = 301,981,696 B more.
        Scenario s = llama2();
        s.training.precision = Precision::BF16;
        s.training.fineTune = FineTune::QLora;
        Scenario off = s;
        off.training.qloraDoubleQuant = false;
        QCOMPARE(on(off).perGpu.weights - on(s).perGpu.weights, 301981696.0);
    }

    void profileNeverOverrides()
    {
        // A profile fills what is unset, never what the scenario sets.
        Scenario s = llama2();
        s.framework = Framework::Torchtitan;
        s.hardware.pp = 2;
        s.hardware.reshardAfterForward = true;
        QVERIFY(effectiveReshardAfterForward(s));
        s.framework = Framework::Torchtune;
        QVERIFY(!effectiveCompile(s)); // torchtune's configs: compile: False
        QVERIFY(!effectiveActivationOffload(s));
        QVERIFY(!effectiveOptimizerInBackward(s));
        s.training.compile = true;
        s.training.activationOffload = true;
        s.training.optimizerInBackward = true;
        QVERIFY(effectiveCompile(s) && effectiveActivationOffload(s) && effectiveOptimizerInBackward(s));
        QVERIFY(std::string(frameworkDefaults(Framework::Torchtune).recipeSource).find("bd2a0fc") != std::string::npos);
    }

    // QLoRA on a base published in MXFP4 or NVFP4 (issue 29 §3; docs/accounting.md, "QLoRA on an MXFP4 or NVFP4
    // base"), one GPU, the frozen base by hand:
    //  - gpt-oss-120b, MXFP4 as published: only the routed experts' matrices, 36 layers × 128 experts ×
    //    (gate_up 2880·5760 + down 2880·2880) = 4608 × 24,883,200 = 114,661,785,600 weights at 4 + 8/32 bits
    //    (0.53125 B) = 60,914,073,600 B; the rest of its 116,829,156,672 parameters (attention, the experts' biases,
    //    routers, embeddings, head, norms: 2,167,371,072) in bf16, 4,334,742,144 B: 65,248,815,744 B;
    //  - Llama 3 8B, NVFP4 (ModelOpt: every linear of the blocks): 32 × (2·4096² + 2·4096·1024 + 3·4096·14336) =
    //    32 × 218,103,808 = 6,979,321,856 weights at 4 + 8/16 bits (0.5625 B) = 3,925,868,544 B, 224 tensors' fp32
    //    scales 896 B, and 8,030,261,248 − 6,979,321,856 = 1,050,939,392 in bf16, 2,101,878,784 B: 6,027,748,224 B;
    //    under ZeRO-3 over 4 GPUs a quarter, 1,506,937,056 B (the scales are the checkpoint's tensors, sharded).
    void qloraOnAPublishedBase()
    {
        Scenario oss = testdata::preset("gpt-oss-120b");
        oss.training.mode = Mode::Training;
        oss.training.fineTune = FineTune::QLora;
        const double nf4 = on(oss).perGpu.weights;
        oss.training.qloraBase = QloraBase::MXFP4;
        QCOMPARE(on(oss).perGpu.weights, 65248815744.0);
        QVERIFY(on(oss).perGpu.weights > nf4); // attention and the rest stay in bf16, not NF4
        Scenario l3 = testdata::preset("llama3-8b");
        l3.training.fineTune = FineTune::QLora;
        l3.training.qloraBase = QloraBase::NVFP4;
        QCOMPARE(on(l3).perGpu.weights, 6027748224.0);
        l3.hardware.zeroStage = 3;
        l3 = withGpuCount(l3, 4);
        QCOMPARE(on(l3).perGpu.weights, 1506937056.0);
        // Refused where it would change nothing or is not modelled, each naming the field.
        auto refusedAt = [](const Scenario& s) {
            const FieldErrors e = validateScenario(s, "test");
            return e.empty() ? std::string() : e.front().path;
        };
        Scenario lora = l3;
        lora.training.fineTune = FineTune::Lora;
        QCOMPARE(refusedAt(lora), std::string("/training/qlora_base"));
        Scenario noDq = testdata::preset("llama3-8b");
        noDq.training.fineTune = FineTune::QLora;
        noDq.training.qloraBase = QloraBase::NVFP4;
        QCOMPARE(refusedAt(noDq), std::string());
        noDq.training.qloraDoubleQuant = false;
        QCOMPARE(refusedAt(noDq), std::string("/training/qlora_double_quant"));
        Scenario lit = testdata::preset("llama3-8b");
        lit.training.fineTune = FineTune::QLora;
        lit.training.qloraBase = QloraBase::MXFP4;
        lit.framework = Framework::LitGPT;
        QCOMPARE(refusedAt(lit), std::string("/training/qlora_base"));
        Scenario off = l3;
        off.hardware.offload = Offload::OptimizerParams;
        QCOMPARE(refusedAt(off), std::string("/training/qlora_base"));
        // Named as files and the command line write it.
        QCOMPARE(std::string(toString(QloraBase::MXFP4)), std::string("mxfp4"));
        QCOMPARE(qloraBaseFromString("nvfp4"), std::optional<QloraBase>(QloraBase::NVFP4));
        QCOMPARE(qloraBaseFromString("fp8"), std::optional<QloraBase>());
    }

    void scenarioFileRoundTrips()
    {
        Scenario s = llama2();
        s.training.compile = true;
        s.training.optimizerInBackward = false;
        s.training.activationOffload = true;
        s.training.pagedOptimizer = true;
        s.hardware.reshardAfterForward = false;
        s.hardware.fsdpFlatWrap = true;
        s.hardware.fsdpNoSync = true;
        s.hardware.fsdpRoot = FsdpRoot::None; // set (FSDP1's flat wrap refuses any other), so written
        s.training.qloraDoubleQuant = false;
        const ScenarioParse p = parseScenarioJson(scenarioToJson(s), "round trip");
        QVERIFY(p.ok());
        QCOMPARE(p.scenario.hardware.fsdpRoot, std::optional<FsdpRoot>(FsdpRoot::None));
        Scenario rooted = llama2();
        rooted.hardware.fsdpRoot = FsdpRoot::EmbeddingsAndHead;
        QCOMPARE(scenarioToJson(rooted)["hardware"]["fsdp_root"], nlohmann::json("embeddings+head"));
        QCOMPARE(parseScenarioJson(scenarioToJson(rooted), "root").scenario.hardware.fsdpRoot,
                 std::optional<FsdpRoot>(FsdpRoot::EmbeddingsAndHead));
        QVERIFY(!scenarioToJson(llama2())["hardware"].contains("fsdp_root")); // unset: the framework's
        // Both FSDP1 switches are known fields of /hardware (fsdp_flat_wrap was written but refused as unknown).
        QCOMPARE(p.scenario.hardware.fsdpFlatWrap, std::optional<bool>(true));
        QCOMPARE(p.scenario.hardware.fsdpNoSync, std::optional<bool>(true));
        QCOMPARE(p.scenario.training.compile, std::optional<bool>(true));
        QCOMPARE(p.scenario.training.optimizerInBackward, std::optional<bool>(false));
        QCOMPARE(p.scenario.training.activationOffload, std::optional<bool>(true));
        QVERIFY(p.scenario.training.pagedOptimizer);
        QCOMPARE(p.scenario.hardware.reshardAfterForward, std::optional<bool>(false));
        QVERIFY(!p.scenario.training.qloraDoubleQuant);
        QVERIFY(parseScenarioJson(scenarioToJson(llama2()), "default").scenario.training.qloraDoubleQuant);
        // A bad value is named by its pointer.
        nlohmann::json j = scenarioToJson(llama2());
        j["training"]["compile"] = "yes";
        const ScenarioParse bad = parseScenarioJson(j, "bad");
        QVERIFY(!bad.ok());
        QCOMPARE(bad.errors.front().path, std::string("/training/compile"));
        nlohmann::json root = scenarioToJson(llama2());
        root["hardware"]["fsdp_root"] = "root";
        const ScenarioParse badRoot = parseScenarioJson(root, "bad");
        QVERIFY(!badRoot.ok());
        QCOMPARE(badRoot.errors.front().path, std::string("/hardware/fsdp_root"));
        QVERIFY(badRoot.errors.front().message.find("none|head|embeddings+head") != std::string::npos);
        // LitGPT's 16-bit RMSNorm (its commits before 6178c7c): written when off, read back, and refused without the
        // LitGPT profile, where it would change nothing.
        Scenario lit = llama2();
        lit.framework = Framework::LitGPT;
        lit.training.litgptFp32Norm = false;
        lit.training.litgptHeldBatch = false;
        const nlohmann::json litJson = scenarioToJson(lit);
        QCOMPARE(litJson["training"]["litgpt_fp32_norm"], nlohmann::json(false));
        QCOMPARE(litJson["training"]["litgpt_held_batch"], nlohmann::json(false));
        const ScenarioParse litBack = parseScenarioJson(litJson, "litgpt");
        QVERIFY(litBack.ok());
        QVERIFY(!litBack.scenario.training.litgptFp32Norm);
        QVERIFY(!litBack.scenario.training.litgptHeldBatch);
        QVERIFY(!scenarioToJson(llama2())["training"].contains("litgpt_fp32_norm"));
        nlohmann::json noProfile = litJson;
        noProfile.erase("framework");
        const ScenarioParse refused = parseScenarioJson(noProfile, "no profile");
        QVERIFY(!refused.ok());
        QCOMPARE(refused.errors.front().path, std::string("/training/litgpt_fp32_norm"));
        // The QLoRA base's format: written when not nf4, read back.
        Scenario published = llama2();
        published.training.fineTune = FineTune::QLora;
        published.training.qloraBase = QloraBase::NVFP4;
        const nlohmann::json pj = scenarioToJson(published);
        QCOMPARE(pj["training"]["qlora_base"], nlohmann::json("nvfp4"));
        QCOMPARE(parseScenarioJson(pj, "nvfp4").scenario.training.qloraBase, QloraBase::NVFP4);
        QVERIFY(!scenarioToJson(llama2())["training"].contains("qlora_base"));
    }
};

QTEST_APPLESS_MAIN(TestRecipes)
#include "tst_recipes.moc"
