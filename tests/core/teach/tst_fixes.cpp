// "Cheapest change to fit": every proposed change really fits, the original does not, and the
// list is in the documented order.
#include "fixes.h"
#include "testdata.h"

#include <QtTest>

#include <algorithm>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

namespace {

Scenario layout(Scenario s, int64_t gpus, int zero, int64_t seq, int64_t batch, Checkpointing c, int64_t tp = 1,
                int64_t pp = 1)
{
    s.hardware.gpus = gpus;
    s.hardware.tp = tp;
    s.hardware.pp = pp;
    s.hardware.zeroStage = zero;
    s.training.seqLen = seq;
    s.training.microBatch = batch;
    s.training.checkpointing = c;
    return s;
}

const Fix* find(const std::vector<Fix>& fixes, FixKind k)
{
    for (const Fix& f : fixes)
        if (f.kind == k)
            return &f;
    return nullptr;
}

} // namespace

class TestFixes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyFixFitsAndTheOriginalDoesNot_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("atLeast");
        using C = Checkpointing;
        QTest::newRow("7B on one H100") << testdata::preset("chapter-7b") << "H100" << 2;
        QTest::newRow("7B on 8 H100 without ZeRO")
            << layout(testdata::preset("chapter-7b"), 8, 0, 4096, 1, C::None) << "H100" << 2;
        QTest::newRow("Llama 3 8B at 8k, micro-batch 4, ZeRO-2 on 8")
            << layout(testdata::preset("llama3-8b"), 8, 2, 8192, 4, C::None) << "H100" << 3;
        // Issue 13: the first stage holds min(p, m) micro-batches' tapes; this row is 1F1B with
        // m = 8 ≥ p = 8 micro-batches per step, the p in flight it always assumed (numbers unchanged).
        Scenario gpt3 = layout(testdata::preset("gpt3-175b"), 64, 1, 2048, 1, C::None, 8, 8);
        gpt3.training.gradAccum = 8;
        QTest::newRow("GPT-3 175B on 64 A100s, tp 8 pp 8, no flash") << gpt3 << "A100-80GB" << 6;
        Scenario deepseek = testdata::preset("deepseek-v3");
        deepseek.training.checkpointing = C::None; // the preset's selective recompute fits; without it 1F1B dies
        QTest::newRow("DeepSeek-V3 layout without recompute, 1F1B on 16 stages") << deepseek << "H800" << 2;
        Scenario serve = testdata::preset("llama3-70b");
        serve.training.mode = Mode::Inference;
        QTest::newRow("serving Llama 3 70B in bf16 on one H100") << serve << "H100" << 2;
    }
    void everyFixFitsAndTheOriginalDoesNot()
    {
        QFETCH(Scenario, scenario);
        QFETCH(QString, gpu);
        QFETCH(int, atLeast);
        const GpuSpec g = testdata::gpu(gpu.toStdString());
        const Breakdown before = account(scenario, g);
        QVERIFY(!before.fits);
        const std::vector<Fix> fixes = cheapestFixes(scenario, g);
        QVERIFY2(int(fixes.size()) >= atLeast, qPrintable(QString::number(fixes.size())));
        for (size_t i = 0; i < fixes.size(); ++i) {
            const Fix& f = fixes[i];
            const Breakdown after = account(f.scenario, g); // verified independently of the list
            QVERIFY2(after.fits, f.title.c_str());
            QCOMPARE(after.perGpu.total(), f.after.perGpu.total());
            QVERIFY(after.perGpu.total() <= g.memoryBytes);
            QCOMPARE(f.perGpuBefore, before.perGpu.total());
            QVERIFY(f.freedBytes > 0);
            QVERIFY(!f.cost.empty() && !f.change.empty());
            if (i > 0)
                QVERIFY(static_cast<int>(fixes[i - 1].tier) <= static_cast<int>(f.tier));
        }
    }

    void sevenBNeedsTwoGpusWithZeroThree()
    {
        const std::vector<Fix> fixes = cheapestFixes(testdata::preset("chapter-7b"), testdata::gpu("H100"));
        const Fix* more = find(fixes, FixKind::MoreGpus);
        QVERIFY(more);
        QCOMPARE(more->scenario.hardware.gpus, qint64(2));
        QCOMPARE(more->scenario.hardware.zeroStage, 3);
        QCOMPARE(more->extraGpus, qint64(1));
        QVERIFY(more->extraTaxBytes > 0);               // the cut has a tax
        QCOMPARE(fixes.back().kind, FixKind::MoreGpus); // hardware is the last resort
    }

    void zeroPicksTheLowestStageThatFits()
    {
        const Scenario s = layout(testdata::preset("chapter-7b"), 8, 0, 4096, 1, Checkpointing::None);
        const GpuSpec h100 = testdata::gpu("H100");
        const std::vector<Fix> fixes = cheapestFixes(s, h100);
        const Fix* z = find(fixes, FixKind::HigherZeroStage);
        QVERIFY(z);
        QCOMPARE(z->scenario.hardware.zeroStage, 1);
        QCOMPARE(z->tier, FixTier::MemoryLayout);
        QCOMPARE(z->extraTaxBytes, 0.0);          // ZeRO-1 sends what the all-reduce sent
        QVERIFY(!find(fixes, FixKind::MoreGpus)); // 8 GPUs are enough
    }

    void checkpointingCostsItsRecompute()
    {
        Scenario s = layout(testdata::preset("gpt3-175b"), 64, 1, 2048, 1, Checkpointing::None, 8, 8);
        s.training.gradAccum = 8; // m ≥ p: p micro-batches in flight, as in everyFixFitsAndTheOriginalDoesNot
        const std::vector<Fix> fixes = cheapestFixes(s, testdata::gpu("A100-80GB"));
        const Fix* full = find(fixes, FixKind::FullCheckpointing);
        const Fix* sel = find(fixes, FixKind::SelectiveCheckpointing);
        QVERIFY(full && sel);
        QCOMPARE(full->computeOverhead, 0.33);
        QVERIFY(QString::fromStdString(full->cost).contains(QStringLiteral("+33%")));
        QCOMPARE(sel->computeOverhead, 0.027);
        // The cheapest that recomputes anything: nothing lost, +3% (only torch.compile, which recomputes pointwise
        // results inside its fused backward kernels at no counted cost, comes before it).
        const auto firstPaying = std::find_if(fixes.begin(), fixes.end(), [](const Fix& f) {
            return f.computeOverhead > 0 || f.tier != FixTier::MemoryLayout;
        });
        QVERIFY(firstPaying != fixes.end());
        QCOMPARE(firstPaying->kind, FixKind::SelectiveCheckpointing);
        for (auto it = fixes.begin(); it != firstPaying; ++it)
            QCOMPARE(it->kind, FixKind::Compile);
        QVERIFY(full->freedBytes > sel->freedBytes); // full buys more memory, at a higher price
    }

    void shorterContextIsTheLargestThatFits()
    {
        Scenario s = testdata::preset("deepseek-v3");
        s.training.checkpointing = Checkpointing::None;
        const GpuSpec h800 = testdata::gpu("H800");
        const std::vector<Fix> fixes = cheapestFixes(s, h800);
        const Fix* c = find(fixes, FixKind::ShorterContext);
        QVERIFY(c);
        const int64_t seq = c->scenario.training.seqLen;
        QVERIFY(seq < s.training.seqLen);
        QCOMPARE(seq % 256, qint64(0));
        Scenario longer = c->scenario;
        longer.training.seqLen = seq + 256;
        QVERIFY(!account(longer, h800).fits);
        QCOMPARE(c->tier, FixTier::Capability);
    }

    void smallerMicroBatchIsTheLargestThatFits()
    {
        const Scenario s = layout(testdata::preset("llama3-8b"), 8, 2, 8192, 4, Checkpointing::None);
        const GpuSpec h100 = testdata::gpu("H100");
        const std::vector<Fix> fixes = cheapestFixes(s, h100);
        const Fix* b = find(fixes, FixKind::SmallerMicroBatch);
        QVERIFY(b);
        Scenario bigger = b->scenario;
        bigger.training.microBatch += 1;
        QVERIFY(b->scenario.training.microBatch < 4);
        QVERIFY(!account(bigger, h100).fits);
    }

    void servingOffersQuantisation()
    {
        Scenario s = testdata::preset("llama3-70b");
        s.training.mode = Mode::Inference;
        const std::vector<Fix> fixes = cheapestFixes(s, testdata::gpu("H100"));
        const Fix* int4 = find(fixes, FixKind::Int4Weights);
        QVERIFY(int4);
        // The blocks' linears, 80 · (2·8192² + 2·8192·1024 + 3·8192·28672) = 68,451,041,280, at 4 + 20/128 bits
        // (int4 with an fp16 scale and a 4-bit zero per 128); the other 2,102,665,216 (embeddings, head, norms) at
        // 2 B: 35,562,455,040 + 4,205,330,432.
        QCOMPARE(int4->after.perGpu.weights, 39767785472.0);
        QCOMPARE(int4->tier, FixTier::Numerics);
        QVERIFY(!find(fixes, FixKind::FullCheckpointing)); // nothing to checkpoint when serving
    }

    // Issue 30 §2's recipes where they make the run fit. Llama 2 7B, pure bf16 with AdamW (8 B a parameter), 2048
    // tokens × 3, no checkpointing, eager loss, one H100: 87.6 GB, over its 80.
    void recipesAreProposedWhereTheyFit()
    {
        Scenario s = layout(testdata::preset("llama2-7b"), 1, 0, 2048, 3, Checkpointing::None);
        s.training.precision = Precision::BF16;
        s.training.loss = LossKind::Eager;
        const GpuSpec h100 = testdata::gpu("H100");
        QVERIFY(!account(s, h100).fits);
        const std::vector<Fix> fixes = cheapestFixes(s, h100);
        const Fix* compile = find(fixes, FixKind::Compile);
        const Fix* offload = find(fixes, FixKind::ActivationOffload);
        const Fix* inBackward = find(fixes, FixKind::OptimizerInBackward);
        QVERIFY(compile && offload && inBackward);
        QCOMPARE(compile->tier, FixTier::MemoryLayout);
        QCOMPARE(offload->tier, FixTier::Throughput);
        QCOMPARE(inBackward->tier, FixTier::Capability);
        QVERIFY(*compile->scenario.training.compile);
        QVERIFY(*offload->scenario.training.activationOffload);
        QVERIFY(offload->after.perNodeHost.activations > 0);
        // One layer's gradients at a time: (6,738,415,616 − 2·32000·4096)/32 = 202,383,488 parameters (more than the
        // head's 131,072,000) at 2 B: 404,766,976 B, where the whole model's were 13,476,831,232.
        QCOMPARE(inBackward->after.perGpu.gradients, 404766976.0);
        QVERIFY(QString::fromStdString(inBackward->cost).contains(QStringLiteral("no gradient accumulation")));
        // Llama 2's 32,000-token vocabulary: the chunked loss saves 3·2048·32000·(12 − 5.25) B = 1.33 GB, not enough.
        QVERIFY(!find(fixes, FixKind::ChunkedLoss));

        // What the run already does, or cannot do, is not proposed: accumulation refuses the step in backward
        // (torchtune raises on it), a GPU without a host cannot take the tape, a profile's default counts as used.
        Scenario accumulating = s;
        accumulating.training.gradAccum = 2;
        QVERIFY(!find(cheapestFixes(accumulating, h100), FixKind::OptimizerInBackward));
        GpuSpec hostless = h100;
        hostless.hostMemoryBytes = 0;
        QVERIFY(!find(cheapestFixes(s, hostless), FixKind::ActivationOffload));
        Scenario compiled = s;
        compiled.training.compile = true;
        QVERIFY(!find(cheapestFixes(compiled, h100), FixKind::Compile));
    }

    // A large vocabulary: Llama 3 8B at 6144 tokens with full checkpointing on one H100 (81.5 GB). The eager loss
    // keeps 12 B a logit, 6144·128,256·12 = 9,456,058,368 B; chunked 5.25 B, 4,137,025,536 B, and while the 8 chunks'
    // gradients of the head's weight are summed a second V·h, 128,256·4,096·2 B = 1,050,673,152 B: 5,187,698,688 B,
    // 4.27 GB less, and it fits.
    void chunkedLossWhereTheLogitsDecide()
    {
        Scenario s = layout(testdata::preset("llama3-8b"), 1, 0, 6144, 1, Checkpointing::Full);
        s.training.precision = Precision::BF16;
        s.training.loss = LossKind::Eager;
        const GpuSpec h100 = testdata::gpu("H100");
        const Breakdown before = account(s, h100);
        QVERIFY(!before.fits);
        QCOMPARE(before.perGpu.logits, 9456058368.0);
        const std::vector<Fix> fixes = cheapestFixes(s, h100);
        const Fix* chunked = find(fixes, FixKind::ChunkedLoss);
        QVERIFY(chunked);
        QCOMPARE(chunked->tier, FixTier::MemoryLayout);
        QCOMPARE(chunked->computeOverhead, 0.0);
        QCOMPARE(chunked->after.perGpu.logits, 5187698688.0);
        QCOMPARE(*chunked->scenario.training.loss, LossKind::Chunked);
        // torchtune's profile already chunks its loss: nothing to propose.
        Scenario tune = s;
        tune.training.loss.reset();
        tune.framework = Framework::Torchtune;
        QVERIFY(!find(cheapestFixes(tune, h100), FixKind::ChunkedLoss));
        // Under torchtitan (with the classic allocator, as above) the fix is its own ChunkedLossWrapper, each chunk's
        // backward right after its forward: one chunk's logits 768·128,256·14 B = 1,379,008,512 B, the hidden states'
        // fp32 accumulator and one chunk's gradient 6144·4096·4.25 B = 106,954,752 B and the head's second V·h
        // 1,050,673,152 B: 2,536,636,416 B.
        Scenario titan = s;
        titan.framework = Framework::Torchtitan;
        titan.hardware.expandableSegments = false; // its launcher's setting alone would make it fit
        const std::vector<Fix> titanFixes = cheapestFixes(titan, h100);
        const Fix* own = find(titanFixes, FixKind::ChunkedLoss);
        QVERIFY(own);
        QCOMPARE(*own->scenario.training.loss, LossKind::ChunkedBackward);
        QCOMPARE(own->after.perGpu.logits, 2536636416.0);
        QCOMPARE(QString::fromStdString(own->change), QStringLiteral("loss eager → chunked-backward"));
        // Its profile's default already chunks: nothing to propose.
        titan.training.loss.reset();
        QVERIFY(!find(cheapestFixes(titan, h100), FixKind::ChunkedLoss));
    }

    // FSDP2's gathered root (docs/accounting.md, "Workspace and overhead"): Llama 2 7B in pure bf16, AdamW, full
    // checkpointing, on 4 × RTX 4090 (24 GB) at ZeRO-3.
    //  - torchtune at 12,288 tokens: 24,767,519,104 B, over. Its root unit keeps the embeddings and head gathered,
    //    (32,000·4,096·2 + 4,096)·2 B = 524,296,192 B, and the head's unsharded gradient until the end of backward,
    //    32,000·4,096·2 B = 262,144,000 B: sharded on their own (custom_sharded_layers), 786,440,192 B less,
    //    23,981,078,912 B, which fits.
    //  - torchtitan at 14,336 tokens: 24,069,200,256 B, over. Its [norm, lm_head] unit keeps the head gathered,
    //    (32,000·4,096 + 4,096)·2 B = 262,152,192 B: with the "always" policy 23,807,048,064 B, which fits.
    void shardTheRootUnit()
    {
        const GpuSpec rtx = testdata::gpu("RTX4090");
        Scenario tune = layout(testdata::preset("llama2-7b"), 4, 3, 12288, 1, Checkpointing::Full);
        tune.training.precision = Precision::BF16;
        tune.framework = Framework::Torchtune;
        const Breakdown before = account(tune, rtx);
        QVERIFY(!before.fits);
        QCOMPARE(before.perGpu.total(), 24767519104.0);
        const std::vector<Fix> fixes = cheapestFixes(tune, rtx);
        const Fix* root = find(fixes, FixKind::ShardRootUnit);
        QVERIFY(root);
        QCOMPARE(root->freedBytes, 786440192.0);
        QCOMPARE(root->after.perGpu.total(), 23981078912.0);
        QCOMPARE(root->scenario.hardware.fsdpRoot, std::optional<FsdpRoot>(FsdpRoot::None));
        QCOMPARE(QString::fromStdString(root->change), QStringLiteral("fsdp root embeddings+head → none"));
        QVERIFY(QString::fromStdString(root->cost).contains(QStringLiteral("custom_sharded_layers")));

        Scenario titan = tune;
        titan.framework = Framework::Torchtitan;
        titan.training.seqLen = 14336;
        QCOMPARE(account(titan, rtx).perGpu.total(), 24069200256.0);
        const std::vector<Fix> titanFixes = cheapestFixes(titan, rtx);
        const Fix* head = find(titanFixes, FixKind::ShardRootUnit);
        QVERIFY(head);
        QCOMPARE(head->freedBytes, 262152192.0);
        QCOMPARE(head->scenario.hardware.reshardAfterForward, std::optional<bool>(true));
        QCOMPARE(QString::fromStdString(head->change), QStringLiteral("fsdp root head → none"));
        QVERIFY(QString::fromStdString(head->cost).contains(QStringLiteral("fsdp_reshard_after_forward always")));

        // Nothing kept gathered, nothing to propose: the root already sharded.
        Scenario sharded = tune;
        sharded.hardware.fsdpRoot = FsdpRoot::None;
        QVERIFY(!find(cheapestFixes(sharded, rtx), FixKind::ShardRootUnit));
    }

    // Per-op checkpointing between selective and full: Llama 2 7B (pure bf16, AdamW) at 4096 × 2 on one H100,
    // 97.7 GB, does not fit with selective (flash attention already drops the scores) and fits per-op. Its price is
    // the recomputed matmuls' share of the forward: k, o and up, 4096·(4096 + 4096 + 11008) of 4096·(4·4096 +
    // 3·11008), 19,200 / 49,408 = 0.3886, a third of it: +13.0% (full: +33%).
    void perOpCheckpointingCostsItsMatmuls()
    {
        Scenario s = layout(testdata::preset("llama2-7b"), 1, 0, 4096, 2, Checkpointing::None);
        s.training.precision = Precision::BF16;
        const std::vector<Fix> fixes = cheapestFixes(s, testdata::gpu("H100"));
        const Fix* perOp = find(fixes, FixKind::PerOpCheckpointing);
        const Fix* full = find(fixes, FixKind::FullCheckpointing);
        QVERIFY(perOp && full);
        QVERIFY(!find(fixes, FixKind::SelectiveCheckpointing));
        QCOMPARE(perOp->computeOverhead, 19200.0 / 49408.0 / 3);
        QCOMPARE(perOp->tier, FixTier::Throughput);
        QCOMPARE(perOp->scenario.training.checkpointing, Checkpointing::PerOp);
        QVERIFY(perOp->freedBytes < full->freedBytes);
        QVERIFY(perOp < full); // cheaper compute first within the tier: the list holds them in that order
    }

    void aScenarioThatFitsNeedsNoFix()
    {
        Scenario s = testdata::sized(7'000'000'000);
        s.training.mode = Mode::Inference;
        QVERIFY(account(s, testdata::gpu("H100")).fits);
        QVERIFY(cheapestFixes(s, testdata::gpu("H100")).empty());
    }
};

QTEST_GUILESS_MAIN(TestFixes)
#include "tst_fixes.moc"
