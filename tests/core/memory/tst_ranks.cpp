// Issue 13, the per-rank grid: every distinct rank kind of a layout, with its bytes, the busiest
// marked. The numbers are the ones tst_layout derives by hand for `--preset llama2-7b --gpus 8 --pp 8`
// (meta-llama/Llama-2-7b-hf config.json: L 32, h 4096, f 11008 SwiGLU, V 32000 untied,
// P = 6,738,415,616): each stage holds 4 layers' share of P − 2·V·h, the first adds the input
// embedding, the last the output head and the logits; one layer's tape at s = 4096, b = 1 is
// sb·(16h + 6f + 128) (Korthikanti et al. 2022 with flash attention, core/memory/activations.h).
#include "testdata.h"

#include "cost.h"
#include "report.h"
#include "terms.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace trainmem;

namespace {

constexpr double kTape = 4096.0 * (16 * 4096 + 6 * 11008 + 128); // one layer, one micro-batch
constexpr double kLayerShare = 6'476'271'616.0 * 4 / 32;         // a stage's share of the layers
constexpr double kEmbedding = 32000.0 * 4096;

Scenario llama2Pp8(int64_t gpus, int64_t gradAccum)
{
    Scenario s = testdata::preset("llama2-7b");
    s.hardware.gpus = gpus;
    s.hardware.pp = 8;
    s.training.gradAccum = gradAccum;
    if (!validateScenario(s, "").empty())
        qFatal("the test's layout is refused");
    return s;
}

} // namespace

class TestRanks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // m ≥ p: 1F1B's stage i holds p − i tapes (Narayanan et al. 2021 §2.2; Megatron-LM schedules.py
    // get_pp_rank_microbatches), so every stage differs: 8 kinds, stage 0 the busiest.
    void everyStageIsItsOwnKindWhenThePipelineIsFull()
    {
        const Scenario s = llama2Pp8(8, 8);
        const std::vector<RankKind> r = rankKinds(resolveModel(s.model), s);
        QCOMPARE(r.size(), size_t(8));
        for (int64_t i = 0; i < 8; ++i) {
            const RankKind& k = r[static_cast<size_t>(i)];
            QCOMPARE(k.firstStage, i);
            QCOMPARE(k.lastStage, i);
            QCOMPARE(k.gpus, int64_t(1));
            QCOMPARE(k.layers, 4.0);
            QCOMPARE(k.inflight, double(8 - i));
            testdata::compareBytes(k.bytes.activations, 4 * double(8 - i) * kTape);
        }
        QCOMPARE(r.front().stage, PipelineStage::First);
        QCOMPARE(r[3].stage, PipelineStage::Middle);
        QCOMPARE(r.back().stage, PipelineStage::Last);
        // bf16-mixed AdamW, 16 B per parameter (ZeRO §3.1).
        testdata::compareBytes(r.front().bytes.modelState(), 16 * (kLayerShare + kEmbedding));
        testdata::compareBytes(r[4].bytes.modelState(), 16 * kLayerShare);
        testdata::compareBytes(r.back().bytes.modelState(), 16 * (kLayerShare + kEmbedding));
        QCOMPARE(r.back().bytes.logits, 4096.0 * 32000 * (2 + 4));
        QVERIFY(r.front().busiest);
        QCOMPARE(std::count_if(r.begin(), r.end(), [](const RankKind& k) { return k.busiest; }), 1L);
    }

    // m < p: stages 0 … p − m hold min(p − i, m) = m tapes, so with 4 micro-batches stages 1–4 are
    // one kind (the first keeps the embedding): stage 0; stages 1–4; 5 (3 tapes); 6 (2); 7 (1, the head).
    void middleStagesWithTheSameTapesAreOneKind()
    {
        const Scenario s = llama2Pp8(32, 4); // dp 4: 4 GPUs per stage
        const std::vector<RankKind> r = rankKinds(resolveModel(s.model), s);
        QCOMPARE(r.size(), size_t(5));
        const std::vector<std::array<int64_t, 2>> runs = {{0, 0}, {1, 4}, {5, 5}, {6, 6}, {7, 7}};
        const std::vector<double> tapes = {4, 4, 3, 2, 1};
        int64_t gpus = 0;
        for (size_t k = 0; k < r.size(); ++k) {
            QCOMPARE(r[k].firstStage, runs[k][0]);
            QCOMPARE(r[k].lastStage, runs[k][1]);
            QCOMPARE(r[k].gpus, 4 * (runs[k][1] - runs[k][0] + 1));
            QCOMPARE(r[k].inflight, tapes[k]);
            testdata::compareBytes(r[k].bytes.activations, 4 * tapes[k] * kTape);
            gpus += r[k].gpus;
        }
        QCOMPARE(gpus, int64_t(32)); // every GPU of the layout is in exactly one kind
    }

    // The grid and the verdict agree: the busiest kind is account()'s perGpu, segment by segment,
    // in every preset and in layouts with pipeline, tensor, expert and context parallelism.
    void theBusiestKindIsThePerGpuBreakdown_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<qint64>("tp");
        QTest::addColumn<qint64>("pp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("gradAccum");
        QTest::addColumn<qint64>("vpp");
        QTest::newRow("llama2-7b pp 8") << "llama2-7b" << qint64(8) << qint64(1) << qint64(8) << qint64(1) << qint64(8)
                                        << qint64(1);
        QTest::newRow("llama3-70b tp 8 pp 4, 2 micro-batches")
            << "llama3-70b" << qint64(64) << qint64(8) << qint64(4) << qint64(1) << qint64(2) << qint64(1);
        QTest::newRow("mixtral-8x7b pp 4 ep 8")
            << "mixtral-8x7b" << qint64(64) << qint64(2) << qint64(4) << qint64(8) << qint64(16) << qint64(1);
        QTest::newRow("deepseek-v3 pp 16 ep 64")
            << "deepseek-v3" << qint64(2048) << qint64(1) << qint64(16) << qint64(64) << qint64(32) << qint64(1);
        QTest::newRow("llama3-70b pp 4 interleaved (vpp 2), 8 micro-batches")
            << "llama3-70b" << qint64(32) << qint64(8) << qint64(4) << qint64(1) << qint64(8) << qint64(2);
        QTest::newRow("gpt2-small, one GPU")
            << "gpt2-small" << qint64(1) << qint64(1) << qint64(1) << qint64(1) << qint64(1) << qint64(1);
    }
    void theBusiestKindIsThePerGpuBreakdown()
    {
        QFETCH(QString, preset);
        QFETCH(qint64, gpus);
        QFETCH(qint64, tp);
        QFETCH(qint64, pp);
        QFETCH(qint64, ep);
        QFETCH(qint64, gradAccum);
        QFETCH(qint64, vpp);
        Scenario s = testdata::preset(preset.toStdString());
        s.hardware.gpus = gpus;
        s.hardware.tp = tp;
        s.hardware.pp = pp;
        s.hardware.ep = ep;
        s.hardware.zeroStage = 1;
        s.training.gradAccum = gradAccum;
        s.hardware.vpp = vpp;
        QVERIFY2(validateScenario(s, "").empty(), qPrintable(preset));
        const Breakdown b = account(s, testdata::gpu("H100"));
        const std::vector<RankKind> r = rankKinds(b.model, s);
        const auto busiest = std::find_if(r.begin(), r.end(), [](const RankKind& k) { return k.busiest; });
        QVERIFY(busiest != r.end());
        for (SegmentKind k : kAllSegmentKinds)
            testdata::compareBytes(busiest->bytes.*termInfo(k).field, b.perGpu.*termInfo(k).field);
        int64_t total = 0, stages = 0;
        for (const RankKind& k : r) {
            QVERIFY(k.bytes.total() <= busiest->bytes.total());
            total += k.gpus;
            stages += k.lastStage - k.firstStage + 1;
        }
        QCOMPARE(total, b.layout.gpus);
        QCOMPARE(stages, b.layout.pp);
    }

    // Issue 33: uneven stages were read and dropped, so every stage got ⌈61/8⌉ = 8 layers, 64 in all. DeepSeek-V3
    // (61 layers) launched on pp 8 with 7 layers on the first stage and 6 on the last leaves (61 − 7 − 6)/6 = 8 for
    // each middle stage (Megatron-LM get_num_layers_to_build): 7 + 6·8 + 6 = 61.
    void unevenStagesHoldTheirOwnLayers()
    {
        Scenario s = testdata::deepseekV3OnPipeline(8, 7, 6);
        s.hardware.zeroStage = 1;
        QCOMPARE(validateScenario(s, "").size(), size_t(0));
        const Breakdown b = account(s, testdata::gpu("H100"));
        const std::vector<RankKind> r = rankKinds(b.model, s);
        double layers = 0;
        for (const RankKind& k : r)
            layers += k.layers * double(k.lastStage - k.firstStage + 1);
        QCOMPARE(layers, 61.0);
        QCOMPARE(r.front().layers, 7.0);
        QCOMPARE(r.back().layers, 6.0);
        QCOMPARE(r[1].layers, 8.0);
        QCOMPARE(b.layersPerStage, int64_t(8));
        // The busiest kind is still the per-GPU breakdown, term by term.
        const auto busiest = std::find_if(r.begin(), r.end(), [](const RankKind& k) { return k.busiest; });
        for (SegmentKind k : kAllSegmentKinds)
            testdata::compareBytes(busiest->bytes.*termInfo(k).field, b.perGpu.*termInfo(k).field);
        // Against the even split the first stage holds one layer less of tape: 7/8 of its layers' activations.
        Scenario even = s;
        even.hardware.split = {};
        const std::vector<RankKind> e = rankKinds(account(even, testdata::gpu("H100")).model, even);
        QCOMPARE(e.front().layers, 8.0);
        testdata::compareBytes(r.front().bytes.activations * 8, e.front().bytes.activations * 7, 1e-6);
        // A split that does not add up is refused with Megatron's rule, and the window's repair drops it.
        Scenario bad = s;
        bad.hardware.split.lastLayers = 5;
        const FieldErrors errors = validateScenario(bad, "");
        QCOMPARE(errors.size(), size_t(1));
        QCOMPARE(QString::fromStdString(errors.front().path), QStringLiteral("/hardware/first_stage_layers"));
        QCOMPARE(QString::fromStdString(errors.front().message),
                 QStringLiteral("leaves 49 layers for the other 6 stages, which must be a positive multiple of them "
                                "(Megatron-LM asserts the left over layers divide the left over stages)"));
        QVERIFY(withValidLayout(bad).hardware.split.isDefault());
    }

    // Issue 33: DeepSeek-V3 laid as Megatron-LM's docs lay it, "Et*3|(tt|)*29,m|L" on pp 16 (vpp 2; docs/user-guide/
    // features/pipeline_parallel_layout.md at d98e8a6), with m = 32 micro-batches. Rank 0's chunks hold 3 and 2
    // layers. Its warm-up runs 2·(16 − 0 − 1) + (2 − 1)·16 = 46 forwards in get_schedule_table's order (16 of chunk 0,
    // 16 of chunk 1, 16 of chunk 0, …): 16·3 + 16·2 + 14·3 = 122 layers' tapes. Then each forward comes before a
    // backward, and backward k runs chunk 1 − chunk(k): forward 46 (chunk 0, 125), backward 0 (chunk 1, 123),
    // forward 47 (chunk 0, 126), backward 1 (chunk 1, 124); from forward 48 on, chunk 1's 2 layers come and go,
    // and from backward 16 chunk 0's 3 layers leave. The peak is 126 layers' tapes, 126/5 = 25.2 micro-batches of
    // the rank's 5 layers, where the even formula's (46 + 1)/2 = 23.5 would give 117.5.
    void aLayoutHoldsEachChunksTapes()
    {
        Scenario s = testdata::deepseekV3OnPipeline(16);
        QCOMPARE(setPipelineLayout(s.hardware.split, "Et*3|(tt|)*29,m|L"), std::string());
        s.hardware.vpp = 2;
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("H800"));
        const std::vector<RankKind> r = rankKinds(b.model, s);
        QCOMPARE(r.size(), size_t(16));
        QCOMPARE(r[0].layers, 5.0);
        QCOMPARE(r[0].inflight, 25.2);
        QCOMPARE(r[14].layers, 2.0);
        QCOMPARE(r[15].layers, 2.0);
        // Uniform chunks give the even formula: rank 7's 2 + 2 layers, 2·8 + 16 = 32 warm-up forwards, (32 + 1)/2.
        QCOMPARE(r[7].layers, 4.0);
        QCOMPARE(r[7].inflight, 16.5);
        QCOMPARE(microBatchesInFlight(std::vector<int64_t>{2, 2}, 16, 7, 32), microBatchesInFlight(16, 7, 32, 2));
        // The MTP layer is rank 14's, with the embedding copy it keeps (gpt_model.py builds it when mtp_process);
        // rank 15 keeps the head. Both hold 2 layers, so their weights differ by the MTP module's, 16-bit:
        // (335,778,816 + 11,274,289,152/64)·2 B (tst_layout's mtpSitsOnTheLastStage), the embedding copy and the
        // head (129,280·7,168 each) cancelling.
        testdata::compareBytes(r[14].bytes.weights - r[15].bytes.weights, (335778816.0 + 11274289152.0 / 64) * 2);
        // The busiest rank is the per-GPU breakdown, whichever rank the layout makes it.
        const auto busiest = std::find_if(r.begin(), r.end(), [](const RankKind& k) { return k.busiest; });
        for (SegmentKind k : kAllSegmentKinds)
            testdata::compareBytes(busiest->bytes.*termInfo(k).field, b.perGpu.*termInfo(k).field);
        // The layout leaves the ends' weights where Megatron-LM builds them: the embedding on rank 0.
        QVERIFY(r[0].bytes.weights > r[1].bytes.weights);
        // A layout can make any middle rank the busiest: Llama 2 7B laid "Et|t|t*29|tL" on pp 4 puts 29 of its 32
        // layers on rank 2, and the per-GPU breakdown is rank 2's, not stage 1's.
        Scenario lopsided = llama2Pp8(8, 32);
        lopsided.hardware.pp = 4;
        QCOMPARE(setPipelineLayout(lopsided.hardware.split, "Et|t|t*29|tL"), std::string());
        QVERIFY(validateScenario(lopsided, "").empty());
        const Breakdown lb = account(lopsided, testdata::gpu("H100"));
        QCOMPARE(lb.stages.size(), size_t(3));
        QCOMPARE(lb.stages[1].index, int64_t(2));
        QCOMPARE(lb.stages[1].layers, 29.0);
        QCOMPARE(lb.perGpu.total(), lb.stages[1].bytes.total());
        // A pipeline size the layout does not fit falls back to the even split in the window.
        Scenario other = s;
        other.hardware.pp = 8;
        other.hardware.vpp = 3;
        QCOMPARE(QString::fromStdString(validateScenario(other, "").front().path),
                 QStringLiteral("/hardware/pipeline_layout"));
        QVERIFY(!withValidLayout(other).hardware.split.hasLayout());
    }

    // Serving holds one micro-batch everywhere: first (embedding), the middle stages as one kind, last (head).
    void servingHasThreeKinds()
    {
        Scenario s = llama2Pp8(8, 1);
        s.training.mode = Mode::Inference;
        const std::vector<RankKind> r = rankKinds(resolveModel(s.model), s);
        QCOMPARE(r.size(), size_t(3));
        QCOMPARE(r[1].firstStage, int64_t(1));
        QCOMPARE(r[1].lastStage, int64_t(6));
        QCOMPARE(r[1].gpus, int64_t(6));
        testdata::compareBytes(r[1].bytes.weights, 2 * kLayerShare);
    }

    // The chart has room for 11 columns: DeepSeek-V3 at pp 16 with 32 micro-batches has 16 kinds, so the
    // 14 middle ones are shown in 9 runs of one or two, each by its first (largest) stage.
    void groupingKeepsTheEndsAndTheBusiest()
    {
        const Scenario s = testdata::deepseekV3OnPipeline(16);
        QVERIFY(validateScenario(s, "").empty());
        const std::vector<RankKind> all = rankKinds(resolveModel(s.model), s);
        QCOMPARE(all.size(), size_t(16));
        const std::vector<RankKind> g = groupRankKinds(all, 11);
        QCOMPARE(g.size(), size_t(11));
        QCOMPARE(g.front().firstStage, int64_t(0));
        QCOMPARE(g.back().firstStage, int64_t(15));
        QCOMPARE(g[1].firstStage, int64_t(1));
        int64_t gpus = 0, next = 0;
        for (const RankKind& k : g) {
            QCOMPARE(k.firstStage, next); // the runs tile the stages in order
            next = k.lastStage + 1;
            gpus += k.gpus;
            QCOMPARE(k.bytes.total(), all[static_cast<size_t>(k.firstStage)].bytes.total());
            QCOMPARE(k.merged, k.lastStage > k.firstStage);
        }
        QCOMPARE(next, int64_t(16));
        QCOMPARE(gpus, int64_t(2048));
        QCOMPARE(std::count_if(g.begin(), g.end(), [](const RankKind& k) { return k.busiest; }), 1L);
        QCOMPARE(groupRankKinds(all, 16).size(), size_t(16)); // room for all: unchanged
    }

    // --json's `ranks` is the same list, and its busiest total is per_gpu_bytes.total.
    void jsonCarriesTheRanks()
    {
        const Scenario s = llama2Pp8(32, 4);
        const GpuSpec gpu = testdata::gpu("H100");
        const Breakdown b = account(s, gpu);
        const nlohmann::json j = breakdownToJson(b, s, gpu, computeCost(b.model, s, gpu));
        const nlohmann::json& ranks = j.at("ranks");
        QCOMPARE(ranks.size(), size_t(5));
        QCOMPARE(ranks[1]["first_stage"].get<int64_t>(), int64_t(1));
        QCOMPARE(ranks[1]["last_stage"].get<int64_t>(), int64_t(4));
        QCOMPARE(ranks[1]["gpus"].get<int64_t>(), int64_t(16));
        QCOMPARE(ranks[1]["stage"].get<std::string>(), std::string("middle"));
        QCOMPARE(ranks[0]["busiest"].get<bool>(), true);
        QCOMPARE(ranks[0]["total"].get<double>(), j["per_gpu_bytes"]["total"].get<double>());
        testdata::compareBytes(ranks[4]["bytes"]["activations"].get<double>(), 4 * kTape);
    }
};

QTEST_GUILESS_MAIN(TestRanks)
#include "tst_ranks.moc"
