// Issue 11 §1, one training step as a film: the busiest GPU's memory over the forward pass, the loss,
// the backward pass, the gradient collective and the optimizer step. The tape must grow by Korthikanti's
// s·b·h·(34 + 5·a·s/h) per layer, the model state must stay put, and the peak must be the bars' total
// wherever every term is alive at once, or differ from it by the terms the film names.
#include "testdata.h"

#include "hfconfig.h"
#include "measured.h"
#include "scenarioio.h"
#include "timeline.h"

#include <QtTest>

#include <cmath>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

namespace {

GpuSpec gpuOf(const Scenario& s)
{
    return testdata::gpu(s.hardware.gpu);
}

struct Film {
    Breakdown b;
    StepTimeline t;
};

Film film(const Scenario& s)
{
    const ResolvedModel m = resolveModel(s.model);
    Film f;
    f.b = account(m, s, gpuOf(s));
    f.t = stepTimeline(m, s, f.b);
    return f;
}

const TimelinePhase* phaseOf(const StepTimeline& t, StepPhaseKind k)
{
    const size_t i = firstPhaseOf(t, k);
    return i < t.phases.size() ? &t.phases[i] : nullptr;
}

const TimelineDifference* differenceOf(const StepTimeline& t, SegmentKind k)
{
    for (const TimelineDifference& d : t.differences)
        if (d.term == k)
            return &d;
    return nullptr;
}

/// The first sample of the first phase of kind `k`.
size_t firstSampleOf(const StepTimeline& t, StepPhaseKind k)
{
    const size_t phase = firstPhaseOf(t, k);
    for (size_t i = 0; i < t.samples.size(); ++i)
        if (t.samples[i].phase == phase)
            return i;
    return t.samples.size();
}

/// Enums compared by name: QTest prints strings.
QString kindOf(const StepTimeline& t, const TimelineSample& x)
{
    return QString::fromLatin1(toString(t.phases[x.phase].kind));
}

QStringList phaseNames(const StepTimeline& t)
{
    QStringList names;
    for (const TimelinePhase& p : t.phases)
        names << QString::fromStdString(p.name);
    return names;
}

} // namespace

class TestTimeline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The chapter's 7B trained on one H100 without checkpointing: every term is alive at the loss, so the
    // film's peak is the bars' 138 GB, and the model state (112 GB, 14 GB of it bf16 weights) never moves.
    void chapter7bPeaksAtTheLossWithTheBarsTotal()
    {
        const Film f = film(testdata::preset("chapter-7b"));
        const StepTimeline& t = f.t;
        QVERIFY(t.training);
        testdata::compareBytes(t.barsTotal, f.b.perGpu.total());
        QCOMPARE(qRound(t.peakBytes / 1e9), 138);
        testdata::compareBytes(t.peakBytes, t.barsTotal);
        QCOMPARE(QString::fromStdString(t.peakWhere), QStringLiteral("the loss (logits)"));
        QVERIFY(t.differences.empty());
        QCOMPARE(phaseNames(t), (QStringList{QStringLiteral("forward"), QStringLiteral("loss"),
                                             QStringLiteral("backward"), QStringLiteral("optimizer (adamw)")}));
        for (const TimelineSample& x : t.samples) {
            testdata::compareBytes(x.bytes.weights, 14e9);
            testdata::compareBytes(x.bytes.modelState(), 112e9);
            QVERIFY(x.total() <= t.peakBytes * (1 + 1e-12));
            QVERIFY(x.gradientsWritten <= x.bytes.gradients * (1 + 1e-12));
        }
        // The optimizer step holds the model state and the framework, and nothing of the pass.
        const TimelinePhase* opt = phaseOf(t, StepPhaseKind::Optimizer);
        QVERIFY(opt);
        const TimelineSample& last = t.samples.back();
        QCOMPARE(last.phase, firstPhaseOf(t, StepPhaseKind::Optimizer));
        QCOMPARE(last.bytes.activations, 0.0);
        QCOMPARE(last.bytes.logits, 0.0);
        QCOMPARE(last.bytes.workspace, 0.0);
        testdata::compareBytes(last.gradientsWritten, 14e9);
        testdata::compareBytes(opt->peakBytes, 112e9 * 1.05 + f.b.perGpu.framework);
    }

    // torchtune's recipes free the gradients after each step (optimizer.zero_grad(set_to_none=True),
    // recipes/full_finetune_single_device.py at 1814feb): with its profile the film draws none before the backward
    // writes them but the output head's, which the loss's backward writes first: 32,000 · 4,096 · 2 B = 262,144,000 B.
    // At the loss no layer's matmul runs: its workspace, 2 · e·s·b·w_max = 2 · 2 · 4,096 · 22,016 = 360,710,144 B, is
    // not there either (the logits term is the loss's own). So the chapter's 7B without checkpointing peaks at the loss
    // at the bars less 14 GB of gradients, plus the head's, less the workspace (expandable segments: the same ≤ 22 MiB
    // reserve in both), and holds all the gradients at the optimizer step.
    void torchtuneFreesTheGradientsEachStep()
    {
        Scenario s = testdata::preset("chapter-7b");
        s.framework = Framework::Torchtune;
        const Film f = film(s);
        const StepTimeline& t = f.t;
        testdata::compareBytes(f.b.perGpu.gradients, 14e9);
        QCOMPARE(QString::fromStdString(t.peakWhere), QStringLiteral("the loss (logits)"));
        testdata::compareBytes(f.b.perGpu.workspace, 360710144.0);
        testdata::compareBytes(t.peakBytes, f.b.perGpu.total() - 14e9 + 262144000.0 - 360710144.0);
        testdata::compareBytes(t.samples[t.peakSample].bytes.gradients, 262144000.0);
        QCOMPARE(t.samples[t.peakSample].bytes.workspace, 0.0);
        QCOMPARE(t.samples[firstSampleOf(t, StepPhaseKind::Forward)].bytes.gradients, 0.0);
        for (const TimelineSample& x : t.samples)
            QCOMPARE(x.bytes.gradients, x.gradientsWritten);
        testdata::compareBytes(t.samples.back().bytes.gradients, 14e9);
        const TimelineDifference* g = differenceOf(t, SegmentKind::Gradients);
        QVERIFY(g);
        QVERIFY(QString::fromStdString(g->reason).contains(QStringLiteral("set_to_none=True")));
    }

    // torchtune's README runs of Llama 3.2 3B (tests/data/measured/torchtune-llama3_2-3b-*, README.md at 1814feb): s =
    // 4096, b = 2, bf16, compiled, the chunked loss, every layer checkpointed and its input offloaded to the host, on
    // an A100. Under --framework torchtune the tools' peaks are the film's peak moment (toolsView()); the device's view
    // stays the bars'. Full fine-tuning with the step in backward (the "+ activation offloading" row, 21.80 GiB
    // measured peak active) peaks at the loss: the 8 chunks' 16-bit logits and one chunk's gradient, 8192 · 128,256 ·
    // 2.25 B = 2,364,014,592 B, and the tied head's weight gradient twice while the chunks' are summed, 2 · 128,256 ·
    // 3,072 · 2 B = 2 · 788,004,864 B, one of them in the logits term; no layer's workspace. LoRA (8.50 GiB measured):
    // the head is frozen, and the adapters' gradients (2 of their 8 B a parameter: bf16 weight, gradient and two AdamW
    // moments) are not written yet.
    void torchtunesPeaksAreTheFilmsPeak()
    {
        Scenario s = testdata::torchtuneLlama32_3B();
        s.training.checkpointing = Checkpointing::Full;
        s.training.optimizerInBackward = true;
        s.training.activationOffload = true;
        s.hardware.gpu = "A100-80GB";
        s.framework = Framework::Torchtune;
        const Film f = film(s);
        const ToolsView v = toolsView(s, f.b);
        QVERIFY(v.fromFilm);
        QCOMPARE(QString::fromStdString(v.where), QStringLiteral("the loss (logits)"));
        testdata::compareBytes(v.bytes.total(), f.t.peakBytes);
        QCOMPARE(v.bytes.logits, 2364014592.0 + 788004864.0);
        QCOMPARE(v.bytes.gradients, 788004864.0);
        QCOMPARE(v.bytes.workspace, 0.0);
        // The film already made (--json's timeline) gives the same moment.
        const ToolsView given = toolsView(s, f.b, &f.t);
        QVERIFY(given.fromFilm);
        QCOMPARE(given.bytes.total(), v.bytes.total());
        const double allocated = predictedStatistic(v, MemoryStatistic::PeakAllocated);
        testdata::compareBytes(allocated, v.bytes.total() - v.bytes.framework - v.bytes.fragmentation);
        testdata::compareBytes(predictedStatistic(v, MemoryStatistic::PeakReserved),
                               v.bytes.total() - v.bytes.framework);
        testdata::compareBytes(predictedStatistic(v, MemoryStatistic::DeviceUsed), f.b.perGpu.total());
        QVERIFY(allocated < predictedFor(f.b.perGpu, MemoryStatistic::PeakAllocated));
        const double gib = 1024.0 * 1024.0 * 1024.0;
        QVERIFY2(std::abs(allocated / (21.80 * gib) - 1) <= 0.1, qPrintable(QString::number(allocated / gib)));

        Scenario lora = s;
        lora.training.fineTune = FineTune::Lora;
        lora.training.loraRank = 64;
        lora.training.optimizerInBackward = false;
        const Film l = film(lora);
        const ToolsView lv = toolsView(lora, l.b);
        QCOMPARE(QString::fromStdString(lv.where), QStringLiteral("the loss (logits)"));
        QCOMPARE(lv.bytes.logits, 2364014592.0);
        QCOMPARE(lv.bytes.gradients, 0.0);
        testdata::compareBytes(lv.bytes.adapters, 0.75 * l.b.perGpu.adapters);
        const double loraAllocated = predictedStatistic(lv, MemoryStatistic::PeakAllocated);
        QVERIFY2(std::abs(loraAllocated / (8.50 * gib) - 1) <= 0.1, qPrintable(QString::number(loraAllocated / gib)));
        const TimelineDifference* adapters = differenceOf(l.t, SegmentKind::Adapters);
        QVERIFY(adapters && QString::fromStdString(adapters->reason).contains(QStringLiteral("set_to_none=True")));

        // Without the profile the tools' figures are the bars'.
        Scenario plain = s;
        plain.framework.reset();
        const Breakdown pb = account(plain, testdata::gpu("A100-80GB"));
        QVERIFY(!toolsView(plain, pb).fromFilm);
        QCOMPARE(predictedStatistic(toolsView(plain, pb), MemoryStatistic::PeakAllocated),
                 predictedFor(pb.perGpu, MemoryStatistic::PeakAllocated));
    }

    // GPT-3 175B as Korthikanti et al. ran it (s 2048, b 1, no checkpointing, unfused attention): after the
    // forward of layer j the tape is j · s·b·h·(34 + 5·a·s/h) bytes, and the backward frees it layer by layer.
    void tapeGrowsByKorthikantiPerLayer()
    {
        const Scenario s = testdata::preset("gpt3-175b");
        const StepTimeline t = film(s).t;
        const double S = 2048, b = 1, h = 12288, a = 96;
        const double perLayer = S * b * h * (34 + 5 * a * S / h);
        QCOMPARE(perLayer, 2'868'903'936.0);
        QCOMPARE(t.layers, int64_t{96});
        int forward = 0, backward = 0;
        for (const TimelineSample& x : t.samples) {
            const StepPhaseKind k = t.phases[x.phase].kind;
            if (k == StepPhaseKind::Forward) {
                ++forward;
                QCOMPARE(x.firstLayer, x.lastLayer);
                testdata::compareBytes(x.bytes.activations, static_cast<double>(x.lastLayer) * perLayer);
            } else if (k == StepPhaseKind::Backward) {
                ++backward;
                testdata::compareBytes(x.bytes.activations, static_cast<double>(x.lastLayer) * perLayer);
                QCOMPARE(x.recompute, 0.0);
            }
        }
        QCOMPARE(forward, 96);
        QCOMPARE(backward, 96);
        // Gradients are written during the backward pass, from the last layer down.
        const size_t bw = firstSampleOf(t, StepPhaseKind::Backward);
        QCOMPARE(t.samples[bw].gradientsWritten, 0.0);
        QVERIFY(t.samples.back().gradientsWritten > 0);
        testdata::compareBytes(t.samples.back().gradientsWritten, t.samples.back().bytes.gradients);
    }

    // Full recomputation keeps each layer's input (2·s·b·h) and rebuilds one layer's whole tape during that
    // layer's backward: the bars add that tape to the logits, the film never holds both.
    void fullCheckpointingPeakIsTheBarsLessWhatNeverCoexists()
    {
        Scenario s = testdata::preset("gpt3-175b");
        s.training.checkpointing = Checkpointing::Full;
        const Film f = film(s);
        const StepTimeline& t = f.t;
        const double S = 2048, h = 12288, a = 96;
        const double input = 2 * S * h;
        const double layerTape = S * h * (34 + 5 * a * S / h);
        const double V = 50257;
        const double logits = S * V * (2 + 4);
        testdata::compareBytes(f.b.perGpu.logits, logits);
        testdata::compareBytes(f.b.perGpu.activations, 96 * input + layerTape);
        // The first backward sample: every input, the rebuilt layer 96, no logits.
        const TimelineSample& first = t.samples[firstSampleOf(t, StepPhaseKind::Backward)];
        QCOMPARE(kindOf(t, first), QStringLiteral("backward"));
        QCOMPARE(first.lastLayer, int64_t{96});
        testdata::compareBytes(first.recompute, layerTape);
        testdata::compareBytes(first.bytes.activations, 96 * input + layerTape);
        QCOMPARE(first.bytes.logits, 0.0);
        // Layer tape (2.87 GB) > logits (0.62 GB): the peak is that backward; the bars are higher by the logits.
        QCOMPARE(QString::fromStdString(t.peakWhere), QStringLiteral("backward of layer 96"));
        const double reserve = 1.05; // the allocator's share follows the bytes in use
        testdata::compareBytes(t.barsTotal - t.peakBytes, logits * reserve);
        const TimelineDifference* d = differenceOf(t, SegmentKind::Logits);
        QVERIFY(d);
        testdata::compareBytes(d->barsBytes, logits);
        QCOMPARE(d->atPeakBytes, 0.0);
        QVERIFY(QString::fromStdString(d->reason).contains(QStringLiteral("freed")));
        QVERIFY(differenceOf(t, SegmentKind::Fragmentation));
        QVERIFY(!differenceOf(t, SegmentKind::Activations));
        // A backward of full recomputation runs the forward once more: 3 units per layer against 2.
        const TimelineSample& next = t.samples[firstSampleOf(t, StepPhaseKind::Backward) + 1];
        QCOMPARE(first.end - first.start, 3.0);
        testdata::compareBytes(next.bytes.activations, 95 * input + layerTape);
    }

    // Selective recomputation drops the s² scores from the tape (34·sbh) but rebuilds one layer's during its
    // backward: without flash attention that transient (5·a·s²·b) is above the bars, and the film says so.
    void selectiveRecomputeTransientIsAboveTheBars()
    {
        Scenario s = testdata::preset("gpt3-175b");
        s.training.checkpointing = Checkpointing::Selective;
        const Film f = film(s);
        const StepTimeline& t = f.t;
        const double S = 2048, h = 12288, a = 96;
        const double scores = 5 * a * S * S;
        const double logits = S * 50257 * 6.0;
        testdata::compareBytes(f.b.perGpu.activations, 96 * 34 * S * h);
        QCOMPARE(QString::fromStdString(t.peakWhere), QStringLiteral("backward of layer 96"));
        testdata::compareBytes(t.peakBytes - t.barsTotal, (scores - logits) * 1.05);
        const TimelineDifference* d = differenceOf(t, SegmentKind::Activations);
        QVERIFY(d);
        testdata::compareBytes(d->atPeakBytes - d->barsBytes, scores);
        QVERIFY(QString::fromStdString(d->reason).contains(QStringLiteral("Selective recomputation")));
        // With flash attention nothing of that size is rebuilt: the peak is the loss and the bars' total.
        s.training.flashAttention = true;
        const StepTimeline flash = film(s).t;
        testdata::compareBytes(flash.peakBytes, flash.barsTotal);
        QCOMPARE(QString::fromStdString(flash.peakWhere), QStringLiteral("the loss (logits)"));
    }

    // 1F1B: the first of 8 pipeline stages holds 8 micro-batches' tapes (Narayanan et al. 2021): the film
    // runs their 8 forwards and then their 8 backwards, and peaks, at the bars' total, after the eighth forward.
    void pipelineFirstStageHoldsPMicroBatches()
    {
        Scenario s = testdata::preset("llama2-7b");
        s.hardware.gpus = 32;
        s.hardware.pp = 8;
        s.training.gradAccum = 16;
        const Film f = film(s);
        const StepTimeline& t = f.t;
        QCOMPARE(QString::fromLatin1(toString(t.stage)), QStringLiteral("first"));
        QCOMPARE(t.layers, int64_t{4});
        QCOMPARE(t.microBatches, int64_t{8});
        QCOMPARE(t.stepMicroBatches, int64_t{16});
        QVERIFY(firstPhaseOf(t, StepPhaseKind::Loss) == t.phases.size()); // the head is on the last stage
        QCOMPARE(QString::fromStdString(t.peakWhere), QStringLiteral("forward of layer 4, micro-batch 8"));
        testdata::compareBytes(t.peakBytes, t.barsTotal);
        QVERIFY(t.differences.empty());
        // The tape after micro-batch u's forward is u/8 of the term's.
        for (const TimelineSample& x : t.samples)
            if (t.phases[x.phase].kind == StepPhaseKind::Forward && x.lastLayer == 4)
                testdata::compareBytes(x.bytes.activations, f.b.perGpu.activations * x.microBatch / 8.0);
        QCOMPARE(phaseNames(t).first(), QStringLiteral("forward ×8"));
        QVERIFY(phaseNames(t).contains(QStringLiteral("all-reduce gradients")));
    }

    void zeroStagesNameTheirCollectives_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<QStringList>("after");
        QTest::newRow("ZeRO-0: all-reduce") << 0 << QStringList{"all-reduce gradients", "optimizer (adamw)"};
        QTest::newRow("ZeRO-1: reduce-scatter, then all-gather the updated weights")
            << 1 << QStringList{"reduce-scatter gradients", "optimizer (adamw)", "all-gather weights"};
        QTest::newRow("ZeRO-2: the same collectives as ZeRO-1")
            << 2 << QStringList{"reduce-scatter gradients", "optimizer (adamw)", "all-gather weights"};
        QTest::newRow("ZeRO-3: weights gathered layer by layer, none after the step")
            << 3 << QStringList{"reduce-scatter gradients", "optimizer (adamw)"};
    }
    void zeroStagesNameTheirCollectives()
    {
        QFETCH(int, zero);
        QFETCH(QStringList, after);
        Scenario s = testdata::preset("chapter-7b");
        s.hardware.gpus = 8;
        s.hardware.zeroStage = zero;
        const Film f = film(s);
        const QStringList names = phaseNames(f.t);
        QCOMPARE(names.mid(names.indexOf(QStringLiteral("backward")) + 1), after);
        // ZeRO-3 keeps 1/8 of the 14 GB of weights, 1.75 GB, in every moment; the gathered layer is workspace.
        for (const TimelineSample& x : f.t.samples)
            testdata::compareBytes(x.bytes.weights, zero == 3 ? 14e9 / 8 : 14e9);
        testdata::compareBytes(f.t.peakBytes, f.t.barsTotal);
    }

    // ZeRO-Offload: the GPU keeps only its 16-bit weights; the gradients go to the host and the optimizer
    // runs on the CPU (Ren et al. 2021 §4).
    void offloadMovesTheOptimizerStepToTheHost()
    {
        Scenario s = testdata::preset("chapter-7b");
        s.hardware.gpus = 8;
        s.hardware.zeroStage = 2;
        s.hardware.offload = Offload::Optimizer;
        const Film f = film(s);
        const QStringList names = phaseNames(f.t);
        QCOMPARE(names.mid(names.indexOf(QStringLiteral("backward")) + 1),
                 (QStringList{"reduce-scatter gradients", "gradients → host", "optimizer on the CPU (adamw)",
                              "weights ← host", "all-gather weights"}));
        for (const TimelineSample& x : f.t.samples) {
            testdata::compareBytes(x.bytes.weights, 14e9);
            QCOMPARE(x.bytes.master + x.bytes.optimizer + x.bytes.gradients, 0.0);
        }
        testdata::compareBytes(f.t.peakBytes, f.t.barsTotal);
    }

    // Serving: the KV cache grows layer by layer during prefill, each layer's working set is freed before the
    // next, and the output head's logits come after the last one: the bars add the working set and the logits.
    void servingFillsTheKvCacheLayerByLayer()
    {
        Scenario s = testdata::preset("llama2-7b");
        s.training.mode = Mode::Inference;
        const Film f = film(s);
        const StepTimeline& t = f.t;
        QVERIFY(!t.training);
        QCOMPARE(phaseNames(t), (QStringList{"prefill (forward)", "output head"}));
        const Segments& bars = f.b.perGpu;
        QVERIFY(bars.kvCache > 0);
        const TimelineSample& layer16 = t.samples[15];
        testdata::compareBytes(layer16.bytes.kvCache, bars.kvCache * 16 / 32);
        const double lost = std::min(bars.activations, bars.logits) * 1.05;
        testdata::compareBytes(t.barsTotal - t.peakBytes, lost);
        QVERIFY(!t.differences.empty());
    }

    // DeepSeek-V3 on its 2,048 H800s: stage 0 of 16 with 16 micro-batches in flight is the busiest GPU
    // (76.0 GB in the bars), and the film of that stage peaks there too.
    void deepseekV3BusiestStage()
    {
        const Scenario s = testdata::preset("deepseek-v3");
        const Film f = film(s);
        QCOMPARE(QString::fromLatin1(toString(f.t.stage)),
                 QString::fromLatin1(toString(f.b.stages[f.b.busiestStage].stage)));
        QCOMPARE(f.t.microBatches, static_cast<int64_t>(std::llround(f.b.stages[f.b.busiestStage].inflight)));
        QVERIFY(f.t.peakBytes <= f.t.barsTotal * (1 + 1e-12) || !f.t.differences.empty());
        for (const TimelineDifference& d : f.t.differences)
            QVERIFY(!d.reason.empty());
    }

    // Every preset, trained and served: contiguous phases and samples, finite bytes, a peak that is either
    // the bars' total or explained term by term.
    void everyPresetIsConsistent_data()
    {
        QTest::addColumn<Scenario>("scenario");
        for (const std::string& name : testdata::presetIds()) { // every built-in preset
            const char* id = name.c_str();
            Scenario s = testdata::preset(name);
            QTest::newRow(id) << s;
            s.training.mode = Mode::Inference;
            QTest::newRow(qPrintable(QStringLiteral("%1 served").arg(QLatin1String(id)))) << s;
            s.training.mode = Mode::Training;
            s.training.checkpointing = Checkpointing::Full;
            QTest::newRow(qPrintable(QStringLiteral("%1 full checkpointing").arg(QLatin1String(id)))) << s;
        }
        Scenario huge = testdata::sized(10'000'000'000'000);
        huge.training.seqLen = 1 << 20;
        huge.training.flashAttention = false;
        QTest::newRow("10T at 1M tokens, unfused") << huge;
    }
    void everyPresetIsConsistent()
    {
        QFETCH(Scenario, scenario);
        const Film f = film(scenario);
        const StepTimeline& t = f.t;
        QVERIFY(!t.samples.empty());
        QVERIFY(t.samples.size() <= 2000);
        double at = 0;
        for (const TimelineSample& x : t.samples) {
            QCOMPARE(x.start, at);
            QVERIFY(x.end > x.start);
            QVERIFY(std::isfinite(x.total()));
            QVERIFY(x.recompute <= x.bytes.activations * (1 + 1e-12));
            at = x.end;
        }
        QCOMPARE(t.duration, at);
        QCOMPARE(t.phases.front().start, 0.0);
        for (size_t i = 1; i < t.phases.size(); ++i)
            QCOMPARE(t.phases[i].start, t.phases[i - 1].end);
        QCOMPARE(t.phases.back().end, at);
        testdata::compareBytes(t.samples[t.peakSample].total(), t.peakBytes);
        // The peak is the bars' total, or the differences account for it term by term.
        double explained = 0;
        for (const TimelineDifference& d : t.differences)
            explained += d.barsBytes - d.atPeakBytes;
        QVERIFY2(
            std::abs(t.barsTotal - t.peakBytes - explained) <= 1e-9 * t.barsTotal,
            qPrintable(
                QStringLiteral("bars %1, peak %2, explained %3").arg(t.barsTotal).arg(t.peakBytes).arg(explained)));
    }
};

QTEST_GUILESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
