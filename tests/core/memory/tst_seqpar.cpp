// Sequence parallel and context parallel (issue 9 §4): Korthikanti et al. 2022 Table 2 through the whole
// accounting, the context-parallel split and its ring-attention tax, the layout rules, scenario files,
// the Megatron-LM reader and the fixes advisor.
//
// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", Table 3: GPT-3
// 175B is a = 96 heads, h = 12288, L = 96 layers, s = 2048, tensor parallel t = 8, pipeline p = 8 on 64 GPUs,
// global batch 64, micro-batch b = 1. Table 2, activations per layer (16-bit, dropout, a 4h GeLU MLP):
//   no parallelism            sbh(34 + 5as/h)
//   tensor parallel           sbh(10 + 24/t + 5as/(ht))
//   tensor + sequence         sbh/t · (34 + 5as/h)
//   tensor + selective        sbh(10 + 24/t)
//   tensor + sequence + sel.  34·sbh/t
// With these numbers sbh = 2048·1·12288 = 25,165,824 and 5as/h = 5·96·2048/12288 = 80, so, by hand:
//   none        114·sbh               = 2,868,903,936
//   TP          (10 + 3 + 10)·sbh     =   578,813,952
//   TP+SP       114/8·sbh = 14.25·sbh =   358,612,992
//   TP+sel      13·sbh                =   327,155,712
//   TP+SP+sel   34/8·sbh = 4.25·sbh   =   106,954,752
// §4.2.3: with 1F1B the first pipeline stage holds p micro-batches of its L/p layers, i.e. L layers' worth.
#include "accounting.h"
#include "cost.h"
#include "fixes.h"
#include "ladder.h"
#include "megatronargs.h"
#include "report.h"
#include "scenarioio.h"
#include "testdata.h"

#include <QtTest>

using namespace trainmem;

namespace {

// Table 3's GPT-3 175B run: 64 GPUs as t = 8, p = 8, global batch 64 of micro-batch 1 (64 micro-batches per
// step on the one data-parallel rank). Unfused attention, as in the paper.
Scenario table3(Checkpointing c, bool sp)
{
    Scenario s = testdata::preset("gpt3-175b");
    s.training.checkpointing = c;
    s.training.sequenceParallel = sp;
    s.training.flashAttention = false;
    s.training.gradAccum = 64;
    s.hardware.gpus = 64;
    s.hardware.tp = 8;
    s.hardware.pp = 8;
    return s;
}

} // namespace

class TestSeqPar : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void korthikantiTable2_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<double>("perLayer");
        QTest::newRow("no parallelism: sbh(34 + 5as/h) = 2,868,903,936")
            << 1 << false << int(Checkpointing::None) << 2868903936.0;
        QTest::newRow("tensor parallel: sbh(10 + 24/t + 5as/(ht)) = 578,813,952")
            << 8 << false << int(Checkpointing::None) << 578813952.0;
        QTest::newRow("tensor + sequence parallel: sbh/t(34 + 5as/h) = 358,612,992")
            << 8 << true << int(Checkpointing::None) << 358612992.0;
        QTest::newRow("tensor parallel + selective: sbh(10 + 24/t) = 327,155,712")
            << 8 << false << int(Checkpointing::Selective) << 327155712.0;
        QTest::newRow("tensor + sequence + selective: 34sbh/t = 106,954,752")
            << 8 << true << int(Checkpointing::Selective) << 106954752.0;
    }
    void korthikantiTable2()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        QFETCH(int, checkpointing);
        QFETCH(double, perLayer);
        Scenario s = table3(Checkpointing(checkpointing), sp);
        if (tp == 1) { // the no-parallelism row: one GPU holds the whole model
            s.hardware.gpus = 1;
            s.hardware.tp = s.hardware.pp = 1;
        }
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("A100-80GB"));
        QVERIFY(b.warnings.empty());
        QCOMPARE(b.layer.total(), perLayer);
        // §4.2.3: the first stage keeps p micro-batches of L/p layers, L = 96 layers' worth (the whole model
        // at p = 1).
        QCOMPARE(toString(b.stages.front().stage), tp == 1 ? "only" : "first");
        QCOMPARE(b.stages.front().bytes.activations, 96 * perLayer);
    }

    void spHasNoEffectAtTp1()
    {
        // Megatron-LM turns sequence parallelism off without tensor parallelism; so do scenario files.
        Scenario on = testdata::preset("gpt3-175b");
        Scenario off = on;
        off.training.sequenceParallel = false;
        const GpuSpec gpu = testdata::gpu("A100-80GB");
        QCOMPARE(account(on, gpu).perGpu.activations, account(off, gpu).perGpu.activations);
        const nlohmann::json j =
            breakdownToJson(account(on, gpu), on, gpu, computeCost(resolveModel(on.model), on, gpu));
        QCOMPARE(j["parallel"]["sequence_parallel"].get<bool>(), false);
    }

    void contextParallel_data()
    {
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<double>("perLayer");
        // Each GPU holds s/c of the tokens; its queries still meet all s keys: Table 2's TP+SP row with
        // s/c tokens is sbh/(ct)·(34 + 5as/h) — half of 358,612,992 at c = 2.
        QTest::newRow("t = 8, c = 2, sequence parallel: sbh/(ct)(34 + 5as/h) = 179,306,496")
            << int(Checkpointing::None) << 179306496.0;
        QTest::newRow("t = 8, c = 2, sequence parallel, selective: 34sbh/(ct) = 53,477,376")
            << int(Checkpointing::Selective) << 53477376.0;
    }
    void contextParallel()
    {
        QFETCH(int, checkpointing);
        QFETCH(double, perLayer);
        Scenario s = table3(Checkpointing(checkpointing), true);
        s.hardware.gpus = 128;
        s.hardware.cp = 2;
        QVERIFY(validateScenario(s, "").empty());
        const GpuSpec gpu = testdata::gpu("A100-80GB");
        const Breakdown b = account(s, gpu);
        QCOMPARE(b.layer.total(), perLayer);
        QCOMPARE(b.layout.cp, int64_t(2));
        QCOMPARE(b.layout.dp, int64_t(1)); // 128 = tp 8 · pp 8 · cp 2 · dp 1
        const nlohmann::json j = breakdownToJson(b, s, gpu, computeCost(b.model, s, gpu));
        QCOMPARE(j["parallel"]["cp"].get<int64_t>(), int64_t(2));
        QCOMPARE(j["parallel"]["data_parallel"].get<int64_t>(), int64_t(1));
        QCOMPARE(j["parallel"]["sequence_parallel"].get<bool>(), true);
    }

    void ringAttentionTax_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("cp");
        QTest::addColumn<double>("expected");
        // Per layer and micro-batch, each GPU passes its K and V block, e·(s/c)·b·(2·kv·d)/t bytes, c − 1 times
        // forward, again backward, and their gradients once more: 3·(c − 1) blocks (Megatron-LM
        // docs/user-guide/features/context_parallel.md at d98e8a6). GPT-3: 2·1024·1·(2·12288)/8 = 6,291,456 B a
        // block; 3 blocks × 12 layers a stage = 226,492,416.
        QTest::newRow("GPT-3 175B, s 2048, t 8, p 8, c 2: 3 · 6,291,456 B × 12 layers = 226,492,416")
            << "gpt3-175b" << 2048 << 2 << 226492416.0;
        // Llama 3 70B, grouped-query K and V: 8 heads of 128, 2·8·128 = 2048 wide. s 8192, c 4: a block is
        // 2·2048·1·2048/8 = 1,048,576 B; 3·3 = 9 blocks × 80/8 = 10 layers a stage = 94,371,840.
        QTest::newRow("Llama 3 70B, s 8192, t 8, p 8, c 4 (GQA): 9 · 1,048,576 B × 10 layers = 94,371,840")
            << "llama3-70b" << 8192 << 4 << 94371840.0;
    }
    void ringAttentionTax()
    {
        QFETCH(QString, preset);
        QFETCH(int, seq);
        QFETCH(int, cp);
        QFETCH(double, expected);
        Scenario s = testdata::preset(preset.toStdString());
        s.training.seqLen = seq;
        s.training.gradAccum = 1;
        s.hardware.tp = 8;
        s.hardware.pp = 8;
        s.hardware.cp = cp;
        s.hardware.gpus = 64 * cp;
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.tax.contextParallel, expected);
        s.hardware.cp = 1;
        s.hardware.gpus = 64;
        QCOMPARE(account(s, testdata::gpu("H100")).tax.contextParallel, 0.0);
    }

    void zeroShardsOverContextRanksToo()
    {
        // The cp ranks hold the same weights: ZeRO-1 shards the optimizer over dp·cp (Megatron-LM's
        // distributed optimizer uses the data-parallel group with context parallel). Llama 3 8B on 8 GPUs:
        // dp 8 or dp 4 × cp 2 give the same optimizer shard, 8.03B·12 B/8.
        Scenario s = testdata::preset("llama3-8b");
        s.hardware.gpus = 8;
        s.hardware.zeroStage = 1;
        const GpuSpec gpu = testdata::gpu("H100");
        const Breakdown dp8 = account(s, gpu);
        s.hardware.cp = 2;
        const Breakdown dp4cp2 = account(s, gpu);
        QCOMPARE(dp4cp2.layout.dp, int64_t(4));
        QCOMPARE(dp4cp2.perGpu.optimizer, dp8.perGpu.optimizer);
        QCOMPARE(dp4cp2.perGpu.master, dp8.perGpu.master);
        QCOMPARE(dp4cp2.tax.dataParallel, dp8.tax.dataParallel);
        // and half the tape: each GPU holds 2048 of the 4096 tokens.
        QCOMPARE(dp4cp2.perGpu.activations * 2, dp8.perGpu.activations);
    }

    void badLayouts_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("seq");
        QTest::addColumn<QString>("error");
        QTest::newRow("cp not dividing gpus/(tp·pp)")
            << 16 << 4 << 3 << 4096
            << "x: /hardware/context_parallel: must divide gpus/(tp·pp) = 16/4 = 4 (the GPUs are tp·pp·cp·dp), got 3";
        QTest::newRow("2·cp not dividing the sequence")
            << 16 << 1 << 16 << 16
            << "x: /hardware/context_parallel: 2·cp = 32 must divide the sequence length 16 (Megatron-LM cuts each "
               "sequence into 2·cp load-balanced chunks), got 16";
        QTest::newRow("cp above the GPU count")
            << 8 << 1 << 16 << 4096 << "x: /hardware/context_parallel: must be between 1 and the GPU count (8), got 16";
        QTest::newRow("cp 0") << 8 << 1 << 0 << 4096
                              << "x: /hardware/context_parallel: must be between 1 and the GPU count (8), got 0";
    }
    void badLayouts()
    {
        QFETCH(int, gpus);
        QFETCH(int, tp);
        QFETCH(int, cp);
        QFETCH(int, seq);
        QFETCH(QString, error);
        Scenario s = testdata::preset("llama3-8b");
        s.hardware.gpus = gpus;
        s.hardware.tp = tp;
        s.hardware.cp = cp;
        s.training.seqLen = seq;
        const FieldErrors errs = validateScenario(s, "x");
        QVERIFY(!errs.empty());
        QCOMPARE(QString::fromStdString(errs.front().toString()), error);
        // The window's path keeps it valid instead: withValidLayout() takes cp's largest valid divisor.
        const Scenario fixed = withValidLayout(s);
        QVERIFY(validateScenario(fixed, "x").empty());
    }

    void validLayoutKeepsCpAsFarAsItDivides()
    {
        Scenario s = testdata::preset("llama3-8b");
        s.hardware.gpus = 64;
        s.hardware.tp = 8;
        s.hardware.cp = 8;
        QCOMPARE(withValidLayout(s).hardware.cp, int64_t(8)); // valid: kept
        s.hardware.gpus = 32;
        QCOMPARE(withValidLayout(s).hardware.cp, int64_t(4)); // 32/8 = 4 ranks left for cp
        s.training.seqLen = 4;
        QCOMPARE(withValidLayout(s).hardware.cp, int64_t(2)); // 2·cp must divide 4
        QCOMPARE(withGpuCount(s, 8).hardware.cp, int64_t(1));
    }

    void contextSweepKeepsCp()
    {
        // Regression: the sequence chart's points between powers of two (609, 724, 861 … tokens) are not
        // multiples of 2·cp, so each fell back to a smaller cp and the curve was a saw. Every point is now a
        // multiple of 2·cp, and memory grows with the context.
        Scenario s = testdata::preset("llama3-70b");
        s.training.checkpointing = Checkpointing::Selective;
        s.hardware.gpus = 128;
        s.hardware.tp = 8;
        s.hardware.cp = 4;
        const ContextSweep sw = sweepContext(s, testdata::gpu("H100"));
        const auto& total = sw.totalPerGpu[static_cast<size_t>(Checkpointing::Selective)];
        for (size_t i = 0; i < sw.seq.size(); ++i) {
            QCOMPARE(std::fmod(sw.seq[i], 8.0), 0.0);
            if (i > 0)
                QVERIFY2(total[i] >= total[i - 1], qPrintable(QString::number(sw.seq[i])));
        }
    }

    void contextSweepPointsAreTheBreakdownsAtTheirContext_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int64_t>("cp");
        QTest::newRow("llama3-70b, cp 4 on 128 GPUs") << QStringLiteral("llama3-70b") << int64_t(4);
        QTest::newRow("deepseek-v3, pp 16 (three stage kinds)") << QStringLiteral("deepseek-v3") << int64_t(1);
        QTest::newRow("chapter-7b, one GPU") << QStringLiteral("chapter-7b") << int64_t(1);
    }
    void contextSweepPointsAreTheBreakdownsAtTheirContext()
    {
        // The sweep evaluates only the busiest GPU's terms with one layout for every point (a shortcut
        // that made the core recompute 4× faster); each point must still be account()'s per-GPU total
        // for that context and checkpointing mode.
        QFETCH(QString, preset);
        QFETCH(int64_t, cp);
        Scenario s = testdata::preset(preset.toStdString());
        if (cp > 1) {
            s.hardware.gpus = 128;
            s.hardware.tp = 8;
            s.hardware.cp = cp;
        }
        const GpuSpec gpu = testdata::gpu("H100");
        const ContextSweep sw = sweepContext(s, gpu, 2);
        QVERIFY(sw.seq.size() > 10);
        for (size_t i = 0; i < sw.seq.size(); i += 3) {
            for (int mode = 0; mode < 3; ++mode) {
                Scenario x = s;
                x.training.seqLen = static_cast<int64_t>(sw.seq[i]);
                x.training.checkpointing = static_cast<Checkpointing>(mode);
                const Breakdown b = account(x, gpu);
                QCOMPARE(b.layout.cp, std::max<int64_t>(cp, 1));
                QCOMPARE(sw.totalPerGpu[static_cast<size_t>(mode)][i], b.perGpu.total());
            }
        }
    }

    void scenarioFileRoundTrip()
    {
        Scenario s = testdata::preset("llama3-70b");
        s.hardware.gpus = 128;
        s.hardware.tp = 8;
        s.hardware.cp = 4;
        s.training.sequenceParallel = false;
        const nlohmann::json j = scenarioToJson(s);
        QCOMPARE(j["hardware"]["context_parallel"].get<int64_t>(), int64_t(4));
        QCOMPARE(j["training"]["sequence_parallel"].get<bool>(), false);
        const ScenarioParse back = parseScenarioJson(j, "round.json");
        QVERIFY(back.ok());
        QCOMPARE(back.scenario.hardware.cp, int64_t(4));
        QVERIFY(!back.scenario.training.sequenceParallel);
        QCOMPARE(scenarioToJson(back.scenario), j); // written again, the same file
        // cp 1 is the default and is left out, so older files and readers stay as they were.
        s.hardware.cp = 1;
        QVERIFY(!scenarioToJson(s)["hardware"].contains("context_parallel"));
    }

    void badScenarioFile()
    {
        const ScenarioParse p = parseScenario(
            R"({"schema": "trainmem/scenario@1", "model": {"params": 7}, "hardware": {"context_parallel": -2}})",
            "bad.json");
        QVERIFY(!p.ok());
        QCOMPARE(QString::fromStdString(p.errors.front().toString()),
                 QStringLiteral("bad.json: /hardware/context_parallel: must be a positive integer, got -2"));
    }

    void megatronLaunchCarriesCp()
    {
        MegatronParse m = parseMegatronArgs(
            "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 8192 --max-position-embeddings "
            "8192 --micro-batch-size 1 --tensor-model-parallel-size 2 --context-parallel-size 4 --sequence-parallel "
            "--vocab-size 32000 --bf16 --gpus 16");
        QVERIFY2(m.ok(), m.errors.empty() ? "" : m.errors.front().toString().c_str());
        const Scenario s = scenarioFromMegatron(m.args, Scenario{});
        QCOMPARE(s.hardware.cp, int64_t(4));
        QCOMPARE(s.hardware.tp, int64_t(2));
        QVERIFY(s.training.sequenceParallel);
        QVERIFY(validateScenario(s, "").empty());
        QCOMPARE(account(s, testdata::gpu("H100")).layout.dp, int64_t(2)); // 16 / (2·1·4)
        QCOMPARE(megatronFromScenario(s, s.model.architecture).contextParallelSize, int64_t(4));
        // Megatron-LM's own assertion, named by the flag (arguments.py: seq_length % (2·cp) == 0).
        const MegatronParse bad = parseMegatronArgs(
            "--num-layers 2 --hidden-size 1024 --num-attention-heads 16 --seq-length 8192 --vocab-size 32000 "
            "--context-parallel-size 3 --gpus 3");
        QVERIFY(!bad.ok());
        QCOMPARE(
            QString::fromStdString(bad.errors.front().toString()),
            QStringLiteral("--megatron-args: --context-parallel-size: --seq-length (8192) must be a multiple of 2 × "
                           "context-parallel-size = 6 (arguments.py asserts it)"));
    }

    void sequenceParallelIsAFreeFix()
    {
        // Table 3's GPT-3 175B on 128 A100s (dp 2, ZeRO-1) without sequence parallelism dies: the first stage
        // keeps 96 × 578,813,952 B of tape. Turning it on (96 × 358,612,992 B) costs no compute and no traffic
        // (Korthikanti §4.2.2), so it comes before selective checkpointing (+2.7%). Context parallel ×2 on the
        // same GPUs comes first here by the advisor's ordering: it also halves the tokens each tensor-parallel
        // all-reduce carries, which is more than its ring traffic.
        Scenario s = table3(Checkpointing::None, false);
        s.hardware.gpus = 128;
        s.hardware.zeroStage = 1;
        const GpuSpec gpu = testdata::gpu("A100-80GB");
        const Breakdown before = account(s, gpu);
        QVERIFY(!before.fits);
        const std::vector<Fix> fixes = cheapestFixes(s, gpu, before);
        auto find = [&](FixKind k) {
            return std::find_if(fixes.begin(), fixes.end(), [k](const Fix& f) { return f.kind == k; });
        };
        const auto sp = find(FixKind::SequenceParallel);
        QVERIFY(sp != fixes.end());
        QCOMPARE(sp->tier, FixTier::MemoryLayout);
        QCOMPARE(sp->computeOverhead, 0.0);
        QCOMPARE(sp->extraTaxBytes, 0.0);
        QVERIFY(sp->scenario.training.sequenceParallel);
        QCOMPARE(sp->after.layer.total(), 358612992.0);
        QCOMPARE(before.stages.front().bytes.activations - sp->after.stages.front().bytes.activations,
                 96 * (578813952.0 - 358612992.0));
        QVERIFY(find(FixKind::SelectiveCheckpointing) > sp);
        const auto cp = find(FixKind::ContextParallel);
        QVERIFY(cp != fixes.end());
        QCOMPARE(cp - fixes.begin(), 0);
        QCOMPARE(sp - fixes.begin(), 1);
        QCOMPARE(cp->scenario.hardware.cp, int64_t(2)); // dp 2 → dp 1 × cp 2 on the same GPUs
        QCOMPARE(cp->after.tax.tensorParallel, before.tax.tensorParallel / 2);
        // The pipeline's boundary activations halve too; the data-parallel collectives (over dp·cp) stay.
        QCOMPARE(cp->after.tax.dataParallel, before.tax.dataParallel);
        QCOMPARE(cp->extraTaxBytes,
                 cp->after.tax.contextParallel - (before.tax.tensorParallel + before.tax.pipelineParallel) / 2);
        // With sequence parallelism already on there is nothing to offer.
        s.training.sequenceParallel = true;
        const std::vector<Fix> again = cheapestFixes(s, gpu);
        QVERIFY(
            std::none_of(again.begin(), again.end(), [](const Fix& f) { return f.kind == FixKind::SequenceParallel; }));
    }

    void ladderRungs()
    {
        // Sequence parallel off: the ladder shows what turning it on buys on the same GPUs.
        Scenario s = testdata::preset("gpt3-175b");
        s.training.sequenceParallel = false;
        LadderOptions o;
        o.dataParallel = 2;
        o.tensorParallel = 8;
        o.pipelineParallel = 8;
        o.contextParallel = 2;
        const std::vector<LadderRung> rs = scaleOutLadder(s, testdata::gpu("A100-80GB"), o);
        auto rung = [&](LadderCut c) {
            const auto it = std::find_if(rs.begin(), rs.end(), [c](const LadderRung& r) { return r.cut == c; });
            return it == rs.end() ? nullptr : &*it;
        };
        const LadderRung* tensor = rung(LadderCut::Tensor);
        const LadderRung* seq = rung(LadderCut::Sequence);
        const LadderRung* context = rung(LadderCut::Context);
        QVERIFY(tensor && seq && context);
        QCOMPARE(seq - tensor, 1); // right after the tensor rung, on its GPUs
        QCOMPARE(seq->gpus, tensor->gpus);
        QCOMPARE(tensor->breakdown.layer.total(), 578813952.0); // Table 2, tensor parallel (flash off in the preset)
        QCOMPARE(seq->breakdown.layer.total(), 358612992.0);    // tensor + sequence parallel
        QCOMPARE(seq->cutTax, 0.0);
        QCOMPARE(context->gpus, int64_t(2 * 8 * 8 * 2));
        QCOMPARE(context->breakdown.layer.total(), 358612992.0 / 2); // s/c tokens a GPU
        QCOMPARE(context->cutTax, context->tax.contextParallel);
        QVERIFY(context->cutTax > 0);
        QCOMPARE(context->label, std::string("+ CP ×2"));
        // Sequence parallel on (the default): no rung of its own, and no CP rung unless asked.
        s.training.sequenceParallel = true;
        o.contextParallel = 1;
        const std::vector<LadderRung> plain = scaleOutLadder(s, testdata::gpu("A100-80GB"), o);
        QVERIFY(std::none_of(plain.begin(), plain.end(), [](const LadderRung& r) {
            return r.cut == LadderCut::Sequence || r.cut == LadderCut::Context;
        }));
        // 128k tokens on one GPU: the ladder adds CP ×16, 8k tokens a GPU (Llama 3 405B's 128k stage).
        Scenario longContext = testdata::preset("llama3-8b");
        longContext.training.seqLen = 131072;
        QCOMPARE(ladderOptionsFor(longContext, testdata::gpu("H100")).contextParallel, int64_t(16));
    }
};

QTEST_GUILESS_MAIN(TestSeqPar)
#include "tst_seqpar.moc"
