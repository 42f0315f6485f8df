// The chapter tour: each step sets its scenario and highlights the chapter's number, computed by the core.
#include "report.h"
#include "testdata.h"
#include "tour.h"

#include <QtTest>

#include <algorithm>

using namespace trainmem;

namespace {

std::optional<TourStage> stage(const std::string& id)
{
    const auto i = tourStepIndex(id);
    if (!i)
        return std::nullopt;
    return evaluateTourStep(
        chapterTour()[*i], [](const std::string& p) -> std::optional<Scenario> { return testdata::preset(p); },
        [](const std::string& g) -> std::optional<GpuSpec> { return testdata::gpu(g); });
}

} // namespace

class TestTour : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void stepsFollowTheChapter()
    {
        QStringList ids;
        for (const TourStep& s : chapterTour())
            ids << QString::fromStdString(s.id);
        // Issue 14: the chapter's sharding tax and DeepSeek-V3's receipt are steps of their own, and the
        // fp32 master copy is no longer folded silently into "Adam's two running averages".
        QCOMPARE(ids, (QStringList{"7b-inference", "7b-training", "70b-training", "sharding-tax", "2.4t-moe",
                                   "deepseek-v3", "deepseek-v3-receipt", "context-8k-128k", "checkpointing",
                                   "70b-qlora", "picture-weights", "picture-gradients", "picture-master",
                                   "picture-adam", "picture-activations", "picture-workspace", "recap"}));
    }

    void highlightedNumber_data()
    {
        QTest::addColumn<QString>("step");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<bool>("fits");
        QTest::newRow("7B inference = 14 GB of bf16 weights, fits") << "7b-inference" << 14e9 << true;
        QTest::newRow("7B training = 112 GB of model state, dies on one H100") << "7b-training" << 112e9 << false;
        QTest::newRow("70B training = 1.12 TB") << "70b-training" << 1.12e12 << false;
        QTest::newRow("2.4T MoE = 38.4 TB from total parameters") << "2.4t-moe" << 38.4e12 << false;
        QTest::newRow("picture: weights alone = 14 GB") << "picture-weights" << 14e9 << false;
        QTest::newRow("picture: + gradients = 28 GB") << "picture-gradients" << 28e9 << false;
        QTest::newRow("picture: + fp32 master = 14 + 14 + 28 = 56 GB") << "picture-master" << 56e9 << false;
        QTest::newRow("picture: + Adam's m and v = 112 GB") << "picture-adam" << 112e9 << false;
        // Issue 31 §3: the closing step, 16 B × 7B again, now sharded with ZeRO-3 over 8 H100s so that it fits.
        QTest::newRow("recap: 16 B × 7B = 112 GB, fits on 8 H100s with ZeRO-3") << "recap" << 112e9 << true;
    }
    void highlightedNumber()
    {
        QFETCH(QString, step);
        QFETCH(double, bytes);
        QFETCH(bool, fits);
        const auto st = stage(step.toStdString());
        QVERIFY(st);
        QCOMPARE(st->highlight.bytes, bytes);
        QCOMPARE(st->breakdown.fits, fits);
        QVERIFY(!st->highlight.text.empty());
        QCOMPARE(st->highlight.figures.front().bytes, bytes); // the highlighted number comes first
    }

    void sevenBTrainingSaysOnePointFourTimes()
    {
        const auto st = stage("7b-training");
        QVERIFY(st);
        QVERIFY2(st->highlight.text.find("112 GB") != std::string::npos, st->highlight.text.c_str());
        QVERIFY2(st->highlight.text.find("1.4× one H100") != std::string::npos, st->highlight.text.c_str());
    }

    void recapSaysWhatToRemember()
    {
        const auto st = stage("recap");
        QVERIFY(st);
        QCOMPARE(tourPicture(*st).callout, std::string("Model state per parameter: 16 bytes"));
        // 16 B × 70e9 = 1.12e12 B; 16 B × 2.4e12 = 38.4e12 B (the chapter's "about 1.1 TB" and "about 38 TB").
        QCOMPARE(st->highlight.figures.at(1).bytes, 1.12e12);
        QCOMPARE(st->highlight.figures.at(2).bytes, 38.4e12);
        for (const char* said : {"112 GB for 7B", "1.12 TB for 70B", "38.4 TB for 2.4T", "it fits."})
            QVERIFY2(st->highlight.text.find(said) != std::string::npos, st->highlight.text.c_str());
        QCOMPARE(st->scenario.hardware.gpus, int64_t{8});
        QCOMPARE(st->breakdown.perGpu.modelState(), 14e9); // 112 GB / 8 with ZeRO-3
    }

    void moeShowsTotalAndActiveSideBySide()
    {
        const auto st = stage("2.4t-moe");
        QVERIFY(st);
        QCOMPARE(st->highlight.figures.size(), size_t(2));
        QCOMPARE(st->highlight.figures[0].bytes, 2.4e12 * 16);
        QCOMPARE(st->highlight.figures[1].bytes, 95e9 * 16); // what the active count would wrongly suggest
        QCOMPARE(st->breakdown.minGpusForModelState, qint64(480));
    }

    void deepseekIsSetFromItsPreset()
    {
        const auto st = stage("deepseek-v3");
        QVERIFY(st);
        QCOMPARE(st->gpu.id, std::string("H800"));
        QCOMPARE(st->scenario.hardware.gpus, qint64(2048));
        QCOMPARE(st->breakdown.model.params.total, qint64(671026404352));
        QCOMPARE(st->breakdown.model.params.active, qint64(37552282624));
        // fp8 mixed, 14 B per parameter, of the 671B total and the 11.6B MTP module; the active count would
        // suggest 18 times less.
        QCOMPARE(st->highlight.bytes, (671026404352.0 + 11610067968.0) * 14);
        QVERIFY2(st->highlight.text.find("multi-token-prediction") != std::string::npos, st->highlight.text.c_str());
        QCOMPARE(st->highlight.figures[1].bytes, 37552282624.0 * 14);
        QCOMPARE(st->highlight.figures[2].bytes, st->breakdown.perGpu.total());
    }

    void longContextActivationsGrowSixteenfold()
    {
        const auto st = stage("context-8k-128k");
        QVERIFY(st);
        QCOMPARE(st->scenario.training.seqLen, qint64(131072));
        const auto& f = st->highlight.figures;
        // Flash attention: the tape and the logits are linear in s, so 128k / 8k = 16 exactly.
        QCOMPARE(f[0].bytes / f[1].bytes, 16.0);
        QVERIFY(f[0].bytes > 10 * f[2].bytes); // dwarfs the 16 GB of weights
        QCOMPARE(st->breakdown.perGpu.logits, 131072.0 * 128256 * 6);
    }

    void checkpointingBuysTheMemoryBack()
    {
        const auto st = stage("checkpointing");
        QVERIFY(st);
        const auto& f = st->highlight.figures;
        QVERIFY(f[1].bytes > f[2].bytes); // none > selective
        QVERIFY(f[2].bytes > f[3].bytes); // selective > full
        QCOMPARE(st->highlight.bytes, f[1].bytes - f[3].bytes);
        // Full: each layer keeps its input, 2·s·h bytes, plus one layer's whole tape during backward.
        const Architecture& a = st->breakdown.model.arch;
        ActivationInputs in;
        in.seq = 131072;
        in.checkpointing = Checkpointing::None;
        in.flashAttention = true;
        testdata::compareBytes(f[3].bytes, 2.0 * 131072 * 4096 * 32 + layerActivations(a, false, in).total());
        // Issue 31: the slide does not say that more GPUs cannot help under "Checkpointing buys the memory back" (the
        // eager loss's 101 GB of logits did, in three lines crowding the title): with a fused loss what is left is
        // the 8B's model state, 8.03B × 16 B = 128 GB, which ZeRO-3 shards.
        QCOMPARE(st->scenario.training.loss, std::optional<LossKind>(LossKind::Fused));
        const std::string v = verdict(st->breakdown, st->scenario, st->gpu);
        QVERIFY2(v.find("more GPUs cannot fix it") == std::string::npos, v.c_str());
        QVERIFY2(v.rfind("Dies: 128 GB of model state", 0) == 0 &&
                     v.find("needs 2 GPUs with ZeRO-3") != std::string::npos,
                 v.c_str());
    }

    void shardingStepShowsTheTax()
    {
        // "You cut it up. Every cut has a tax." 70B with ZeRO-3 over 32 GPUs: 1.12 TB / 32 of model state
        // per GPU, and per step the ZeRO paper's 3Ψ (§7): two all-gathers of bf16 weights and a
        // reduce-scatter of bf16 gradients, ring factor 31/32, 1.5× a plain all-reduce (2Ψ).
        const auto st = stage("sharding-tax");
        QVERIFY(st);
        QCOMPARE(st->scenario.hardware.gpus, qint64(32));
        QCOMPARE(st->scenario.hardware.zeroStage, 3);
        testdata::compareBytes(st->breakdown.perGpu.modelState(), 1.12e12 / 32);
        const double allReduce = 2 * 2 * 70e9 * 31 / 32;
        testdata::compareBytes(st->breakdown.tax.dataParallel, 1.5 * allReduce);
        QCOMPARE(st->highlight.bytes, st->breakdown.tax.total());
        QVERIFY(st->highlight.text.find("The tax is communication") != std::string::npos);
        // Issue 31 §1: the cut the sentence describes fits (it said "Dies … more GPUs cannot fix it" under it).
        QVERIFY(st->breakdown.fits);
        const std::string v = verdict(st->breakdown, st->scenario, st->gpu);
        QVERIFY2(v.rfind("Fits: ", 0) == 0, v.c_str());
    }

    // Issue 31 §1: the 70B step's verdict and narration count the same GPUs, and no narration repeats its title.
    void narrationAgreesWithTheVerdict()
    {
        const auto big = stage("70b-training");
        QVERIFY(big);
        const std::string v = verdict(big->breakdown, big->scenario, big->gpu);
        QVERIFY2(v.find("more GPUs cannot fix it") == std::string::npos, v.c_str());
        const std::string n = std::to_string(big->breakdown.minGpusForModelState);
        QCOMPARE(n, std::string("14"));
        QVERIFY2(v.find("needs " + n + " GPUs with ZeRO-3 for the model state, " +
                        std::to_string(big->breakdown.minGpusToFit)) != std::string::npos,
                 v.c_str());
        QVERIFY2(big->highlight.text.find(n + " H100s just to hold the model state") != std::string::npos &&
                     big->highlight.text.find("ZeRO-3 needs " + std::to_string(big->breakdown.minGpusToFit)) !=
                         std::string::npos,
                 big->highlight.text.c_str());
        // The 2.4T step's narration counts the H100s that hold its model state, 2.4e12 × 16 B / 80 GB = 480: its
        // verdict counts them too (it said "more GPUs cannot fix it": the 8k tape without checkpointing, 204 GB).
        const auto moe = stage("2.4t-moe");
        QVERIFY(moe);
        const std::string mv = verdict(moe->breakdown, moe->scenario, moe->gpu);
        QVERIFY2(mv.find("more GPUs cannot fix it") == std::string::npos, mv.c_str());
        QVERIFY2(mv.find("needs 480 GPUs with ZeRO-3 for the model state") != std::string::npos, mv.c_str());
        QVERIFY2(moe->highlight.text.find("(480 H100s)") != std::string::npos, moe->highlight.text.c_str());
        for (const TourStep& step : chapterTour()) {
            const auto st = stage(step.id);
            QVERIFY(st);
            // The title's first three words do not open the narration ("You cut it up" did).
            std::string words;
            int count = 0;
            for (char c : step.title) {
                if (c == ' ' && ++count == 3)
                    break;
                words += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            std::string opening;
            for (char c : st->highlight.text.substr(0, words.size()))
                opening += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            QVERIFY2(opening != words, step.id.c_str());
        }
    }

    void deepseekReceiptStep()
    {
        // DeepSeek-V3 report: 2,048 H800s, 14.8T tokens, 2.788M H800-hours, $5.576M at $2 per GPU-hour.
        const auto st = stage("deepseek-v3-receipt");
        QVERIFY(st);
        QCOMPARE(st->scenario.hardware.gpus, qint64(2048));
        QCOMPARE(st->highlight.valueText, std::string("$5.58M"));
        QCOMPARE(st->highlight.figures.at(1).valueText, std::string("2.79M H800-hours"));
        QCOMPARE(st->highlight.figures.at(2).valueText, std::string("14.8T"));
        QVERIFY(st->highlight.text.find("2.788M") != std::string::npos);
    }

    void programmerPictureRevealsSegmentBySegment()
    {
        const std::vector<std::string> ids{"picture-weights", "picture-gradients",   "picture-master",
                                           "picture-adam",    "picture-activations", "picture-workspace"};
        size_t last = 0;
        double lastBytes = 0;
        for (const std::string& id : ids) {
            const auto st = stage(id);
            QVERIFY(st);
            QVERIFY(st->step->revealed.size() > last);
            QVERIFY(st->highlight.bytes > lastBytes);
            last = st->step->revealed.size();
            lastBytes = st->highlight.bytes;
        }
        // Each picture step outlines what it adds: its revealed segments less the previous step's.
        std::vector<SegmentKind> before;
        for (const std::string& id : ids) {
            const TourStep& step = chapterTour()[*tourStepIndex(id)];
            std::vector<SegmentKind> added;
            for (SegmentKind k : step.revealed)
                if (std::find(before.begin(), before.end(), k) == before.end())
                    added.push_back(k);
            // The full 7B training run has no KV cache, no recurrent state (a dense transformer, and training) and
            // no LoRA adapters: nothing to outline there.
            for (SegmentKind none : {SegmentKind::KvCache, SegmentKind::RecurrentState, SegmentKind::Adapters})
                added.erase(std::remove(added.begin(), added.end(), none), added.end());
            QVERIFY2(step.added == added, id.c_str());
            QVERIFY(!step.added.empty());
            before = step.revealed;
        }
        QCOMPARE(tourPicture(*stage("picture-adam")).callout, std::string("So far: 112 GB")); // 16 B × 7B
        QVERIFY(tourPicture(*stage("7b-training")).added.empty());

        const auto final = stage("picture-workspace");
        QCOMPARE(final->step->revealed.size(), kAllSegmentKinds.size());
        QCOMPARE(final->highlight.bytes, final->breakdown.perGpu.total());
    }

    void missingPresetIsNoStage()
    {
        const TourStep& step = chapterTour()[*tourStepIndex("deepseek-v3")];
        const auto st = evaluateTourStep(
            step, [](const std::string&) -> std::optional<Scenario> { return std::nullopt; },
            [](const std::string& g) -> std::optional<GpuSpec> { return testdata::gpu(g); });
        QVERIFY(!st);
        QVERIFY(!tourStepIndex("no-such-step"));
    }
};

QTEST_GUILESS_MAIN(TestTour)
#include "tst_tour.moc"
