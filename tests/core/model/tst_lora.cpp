// LoRA and QLoRA fine-tuning (issue 9 §2): the adapter counts PEFT prints, the frozen base, the
// adapters' own segment, the NF4 base with its quantisation constants, and bad input.
#include "testdata.h"

#include "explain.h"
#include "lora.h"
#include "report.h"
#include "segmentkind.h"
#include "terms.h"
#include "tour.h"

#include <QtTest>

using namespace trainmem;

namespace {

Scenario fineTuned(const std::string& preset, FineTune f, LoraTargets targets = LoraTargets::Attention,
                   int64_t rank = 16)
{
    Scenario s = testdata::preset(preset);
    s.training.fineTune = f;
    s.training.loraTargets = targets;
    s.training.loraRank = rank;
    return s;
}

// Llama 2 7B (meta-llama/Llama-2-7b-hf config.json): h 4096, 32 layers, f 11008, V 32000, untied.
constexpr double kLlama2Params = 6738415616;
// Its linear weights, per layer q, k, v, o (4·h²) and gate, up, down (3·h·f).
constexpr double kLlama2Linears = 32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);

} // namespace

class TestLora : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void adapterCounts_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("targets");
        QTest::addColumn<int>("rank");
        QTest::addColumn<qint64>("count");
        // What PEFT's print_trainable_parameters prints for meta-llama/Llama-2-7b-hf at r = 16.
        QTest::newRow("Llama-2-7B attn r=16: PEFT's 16,777,216") << "llama2-7b" << 0 << 16 << qint64(16777216);
        QTest::newRow("Llama-2-7B all r=16: PEFT's 39,976,960") << "llama2-7b" << 1 << 16 << qint64(39976960);
        // Linear in r: 4 × the r = 16 count.
        QTest::newRow("Llama-2-7B attn r=64 is 4x r=16") << "llama2-7b" << 0 << 64 << qint64(4 * 16777216);
        // Llama 3 8B, grouped-query attention: k and v project 4096 -> 1024 (8 heads of 128).
        QTest::newRow("Llama-3-8B attn r=16 with GQA")
            << "llama3-8b" << 0 << 16 << qint64(16LL * 32 * ((4096 + 4096) + (4096 + 1024) * 2 + (4096 + 4096)));
        QTest::newRow("Llama-3-8B all r=16 adds gate, up, down (f 14336)")
            << "llama3-8b" << 1 << 16
            << qint64(16LL * 32 * ((4096 + 4096) + (4096 + 1024) * 2 + (4096 + 4096)) + 16LL * 32 * 3 * (4096 + 14336));
        // Mixtral 8x7B: the same attention as Llama 3 8B; every one of the 8 experts' w1, w2, w3 (f 14336).
        QTest::newRow("Mixtral-8x7B all r=16 adapts every expert")
            << "mixtral-8x7b" << 1 << 16
            << qint64(16LL * 32 * ((4096 + 4096) + (4096 + 1024) * 2 + (4096 + 4096)) +
                      16LL * 32 * 8 * 3 * (4096 + 14336));
        // DeepSeek-V3 MLA (h 7168, 128 heads, q rank 1536, kv rank 512, rope 64, nope 128, v 128, 61 layers):
        // q_a 7168->1536, q_b 1536->128·192, kv_a 7168->576, kv_b 512->128·256, o 128·128->7168.
        QTest::newRow("DeepSeek-V3 attn r=16 adapts MLA's five projections")
            << "deepseek-v3" << 0 << 16
            << qint64(16LL * 61 *
                      ((7168 + 1536) + (1536 + 128 * 192) + (7168 + 576) + (512 + 128 * 256) + (128 * 128 + 7168)));
    }
    // Issue 30 §2: PEFT module lists, counted exactly: r·(d_in + d_out) per listed matrix and layer.
    void moduleLists_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("list");
        QTest::addColumn<int>("rank");
        QTest::addColumn<qint64>("count");
        // PEFT's default for Llama, q_proj and v_proj: 32 layers · 8 · ((4096 + 4096) + (4096 + 4096)) = 4,194,304.
        QTest::newRow("Llama-2-7B q_proj,v_proj r=8: 4,194,304") << "llama2-7b"
                                                                 << "q_proj,v_proj" << 8 << qint64(4194304);
        // The four attention projections are attn: 16,777,216 at r = 16 (PEFT's count above).
        QTest::newRow("Llama-2-7B q,k,v,o list = attn") << "llama2-7b"
                                                        << "q_proj,k_proj,v_proj,o_proj" << 16 << qint64(16777216);
        // All seven are all: 39,976,960 at r = 16.
        QTest::newRow("Llama-2-7B seven modules = all")
            << "llama2-7b"
            << "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj" << 16 << qint64(39976960);
        // Answer.AI's fsdp_qlora targets (no o_proj) at r = 64: q, k, v 4096 + 4096 each, gate, up, down
        // 4096 + 11008 each: 32·64·(3·8192 + 3·15104) = 2048 · (24,576 + 45,312) = 143,130,624.
        QTest::newRow("Llama-2-7B q,k,v,gate,up,down r=64")
            << "llama2-7b"
            << "q_proj,k_proj,v_proj,gate_proj,up_proj,down_proj" << 64 << qint64(143130624);
        // Grouped-query attention: v_proj projects 4096 -> 1024. 16 · 32 · (8192 + 5120) = 6,815,744.
        QTest::newRow("Llama-3-8B q_proj,v_proj r=16 with GQA") << "llama3-8b"
                                                                << " v_proj , q_proj " << 16 << qint64(6815744);
    }
    void moduleLists()
    {
        QFETCH(QString, preset);
        QFETCH(QString, list);
        QFETCH(int, rank);
        QFETCH(qint64, count);
        std::string why;
        const std::optional<uint32_t> m = loraModulesFromList(list.toStdString(), &why);
        QVERIFY2(m, why.c_str());
        Scenario s = fineTuned(preset.toStdString(), FineTune::Lora, LoraTargets::Attention, rank);
        s.training.loraModules = *m;
        QCOMPARE(loraParams(s.model.architecture, s.training).total, count);
        QCOMPARE(loraParams(s.model.architecture, rank, *m).total, count);
    }
    void moduleListErrors()
    {
        std::string why;
        QVERIFY(!loraModulesFromList("q_proj,query", &why));
        QCOMPARE(QString::fromStdString(why),
                 QStringLiteral("unknown module \"query\" (known: q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|"
                                "down_proj|q_a_proj|q_b_proj|kv_a_proj_with_mqa|kv_b_proj|in_proj_qkvz|in_proj_ba|"
                                "out_proj|in_proj|fc1_latent_proj|fc2_latent_proj)"));
        QVERIFY(!loraModulesFromList("q_proj,,v_proj", &why));
        QCOMPARE(QString::fromStdString(why), QStringLiteral("an empty module name in \"q_proj,,v_proj\""));
        // Written back in a fixed order, whatever the order given.
        QCOMPARE(QString::fromStdString(loraModulesList(*loraModulesFromList("v_proj,q_proj", &why))),
                 QStringLiteral("q_proj,v_proj"));
    }

    void adapterCounts()
    {
        QFETCH(QString, preset);
        QFETCH(int, targets);
        QFETCH(int, rank);
        QFETCH(qint64, count);
        const Scenario s = testdata::preset(preset.toStdString());
        QCOMPARE(loraParams(s.model.architecture, rank, static_cast<LoraTargets>(targets)).total, count);
    }

    void expertAdaptersAreTheRoutedPart()
    {
        const Architecture a = testdata::preset("mixtral-8x7b").model.architecture;
        const LinearCount all = loraParams(a, 16, LoraTargets::All);
        QCOMPARE(all.routedExperts, qint64(16LL * 32 * 8 * 3 * (4096 + 14336)));
        QCOMPARE(loraParams(a, 16, LoraTargets::Attention).routedExperts, qint64(0));
    }

    // The linears QLoRA quantises: everything but the embeddings, output head and norms.
    void linearWeightsOfLlama2()
    {
        const Architecture a = testdata::preset("llama2-7b").model.architecture;
        QCOMPARE(static_cast<double>(linearWeights(a).total), kLlama2Linears);
        // The rest of the 6,738,415,616: two 32000 × 4096 embeddings and 65 RMSNorm weights of 4096.
        QCOMPARE(kLlama2Params - kLlama2Linears, 2.0 * 32000 * 4096 + 65.0 * 4096);
    }

    // QLoRA §3: double quantisation takes the constants from 32/64 = 0.5 to 8/64 + 32/(64·256) ≈ 0.127 bit.
    void nf4ConstantsFollowThePaper()
    {
        const double constantBits = nf4BytesPerParam() * 8 - 4;
        QVERIFY(std::abs(constantBits - 0.127) < 0.0005);
        QCOMPARE(constantBits, 8.0 / 64 + 32.0 / (64 * 256));
    }

    // 7B LoRA r=16 on one H100: 13.48 GB of frozen bf16 base, 16.78M adapters × 16 B, no other model state.
    void loraSegmentsByHand()
    {
        const GpuSpec h100 = testdata::gpu("H100");
        const Scenario s = fineTuned("llama2-7b", FineTune::Lora);
        const Breakdown b = account(s, h100);
        QCOMPARE(b.perGpu.weights, kLlama2Params * 2);
        QCOMPARE(b.perGpu.gradients, 0.0);
        QCOMPARE(b.perGpu.master, 0.0);
        QCOMPARE(b.perGpu.optimizer, 0.0);
        QCOMPARE(b.perGpu.adapters, 16777216.0 * (2 + 2 + 4 + 8));
        QCOMPARE(b.modelStateBytes, kLlama2Params * 2 + 16777216.0 * 16);
        // The activations still flow through the whole model: the tape, logits and workspace are a full fine-tune's.
        const Breakdown full = account(testdata::preset("llama2-7b"), h100);
        QCOMPARE(b.perGpu.activations, full.perGpu.activations);
        QCOMPARE(b.perGpu.logits, full.perGpu.logits);
        QCOMPARE(b.perGpu.workspace, full.perGpu.workspace);
        QCOMPARE(full.perGpu.adapters, 0.0);
    }

    // QLoRA: the linears in NF4 with double-quantised constants, embeddings and norms in bf16.
    void qloraBaseByHand()
    {
        const Scenario s = fineTuned("llama2-7b", FineTune::QLora, LoraTargets::All);
        const Breakdown b = account(s, testdata::gpu("H100"));
        const double nf4 = (4 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;
        testdata::compareBytes(b.perGpu.weights, kLlama2Linears * nf4 + (kLlama2Params - kLlama2Linears) * 2);
        QCOMPARE(b.perGpu.adapters, 39976960.0 * 16);
        QCOMPARE(b.perGpu.gradients + b.perGpu.master + b.perGpu.optimizer, 0.0);
        QCOMPARE(b.modelStateBytes, b.perGpu.weights + b.perGpu.adapters); // one GPU: the whole model
    }

    // ZeRO shards the adapters' parts from their stages on (weights 3, gradients 2, master and optimizer 1).
    void zeroShardsTheAdapters_data()
    {
        QTest::addColumn<int>("stage");
        QTest::addColumn<double>("perParam");
        QTest::newRow("ZeRO-0 replicates 16 B") << 0 << 16.0;
        QTest::newRow("ZeRO-1: master and moments / 8") << 1 << 2 + 2 + 12.0 / 8;
        QTest::newRow("ZeRO-2: + gradients / 8") << 2 << 2 + 14.0 / 8;
        QTest::newRow("ZeRO-3: everything / 8") << 3 << 16.0 / 8;
    }
    void zeroShardsTheAdapters()
    {
        QFETCH(int, stage);
        QFETCH(double, perParam);
        Scenario s = fineTuned("llama2-7b", FineTune::Lora);
        s = withGpuCount(std::move(s), 8);
        s.hardware.zeroStage = stage;
        const Breakdown b = account(s, testdata::gpu("H100"));
        testdata::compareBytes(b.perGpu.adapters, 16777216.0 * perParam);
        testdata::compareBytes(b.perGpu.weights, kLlama2Params * 2 / (stage >= 3 ? 8 : 1));
    }

    // Data parallelism reduces only the adapters' gradients; the frozen base sends nothing below ZeRO-3.
    void frozenBaseSendsNoGradients()
    {
        Scenario s = fineTuned("llama2-7b", FineTune::Lora);
        s = withGpuCount(std::move(s), 8);
        const Breakdown b = account(s, testdata::gpu("H100"));
        // Ring all-reduce of 2-byte gradients: 2 · 2 B · N_A · 7/8.
        testdata::compareBytes(b.tax.dataParallel, 2 * 2 * 16777216.0 * 7 / 8);
    }

    void fullFineTuneIgnoresLoraFields()
    {
        const GpuSpec h100 = testdata::gpu("H100");
        const Scenario plain = testdata::preset("llama3-8b");
        Scenario tuned = plain;
        tuned.training.loraRank = 64;
        tuned.training.loraTargets = LoraTargets::All;
        const Breakdown a = account(plain, h100), b = account(tuned, h100);
        for (SegmentKind k : kAllSegmentKinds)
            QCOMPARE(segmentBytes(b.perGpu, k), segmentBytes(a.perGpu, k));
        QCOMPARE(breakdownToJson(a, plain, h100, {})["params"]["trainable"].get<int64_t>(), qint64(8030261248));
    }

    // Serving reads merged weights: the fine-tuning choice is a documented no-op in inference mode.
    void inferenceIgnoresFineTuning()
    {
        const GpuSpec h100 = testdata::gpu("H100");
        Scenario serve = testdata::preset("llama2-7b");
        serve.training.mode = Mode::Inference;
        Scenario tuned = serve;
        tuned.training.fineTune = FineTune::QLora;
        QVERIFY(!tuned.training.adapters());
        const Breakdown a = account(serve, h100), b = account(tuned, h100);
        QCOMPARE(b.perGpu.total(), a.perGpu.total());
        QCOMPARE(b.perGpu.adapters, 0.0);
        QCOMPARE(breakdownToJson(b, tuned, h100, {})["params"]["trainable"].get<int64_t>(), qint64(6738415616));
    }

    void jsonNamesTheTrainableParameters()
    {
        const GpuSpec h100 = testdata::gpu("H100");
        const Scenario s = fineTuned("llama2-7b", FineTune::Lora, LoraTargets::All);
        const nlohmann::json j = breakdownToJson(account(s, h100), s, h100, {});
        QCOMPARE(j["params"]["trainable"].get<int64_t>(), qint64(39976960));
        QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(6738415616));
        QCOMPARE(j["per_gpu_bytes"]["adapters"].get<double>(), 39976960.0 * 16);
        QCOMPARE(j["per_gpu_bytes"]["gradients"].get<double>(), 0.0);
    }

    // The drill-down prints the adapters' formula with the numbers (one expression computes and prints it).
    void drillDownShowsTheNumbers()
    {
        const GpuSpec h100 = testdata::gpu("H100");
        const Scenario s = fineTuned("llama2-7b", FineTune::QLora);
        const Breakdown b = account(s, h100);
        const Explanation a = explainSegment(SegmentKind::Adapters, s, b);
        QCOMPARE(a.value, b.perGpu.adapters);
        QCOMPARE(QString::fromStdString(a.formula), QStringLiteral("N_A × (b_w + b_g + b_m + b_o)"));
        QCOMPARE(QString::fromStdString(a.substituted), QStringLiteral("16,777,216 × (2 B + 2 B + 4 B + 8 B)"));
        const Explanation w = explainSegment(SegmentKind::Weights, s, b);
        QCOMPARE(w.value, b.perGpu.weights);
        QCOMPARE(QString::fromStdString(w.title), QStringLiteral("Base weights (frozen, 4-bit NF4) per GPU"));
        QVERIFY2(QString::fromStdString(w.formula).contains(QStringLiteral("(4 + 8/B₁ + 32/(B₁·B₂))/8")),
                 w.formula.c_str());
        QVERIFY2(QString::fromStdString(w.substituted).contains(QStringLiteral("(4 + 8/64 + 32/(64·256))/8")),
                 w.substituted.c_str());
        QCOMPARE(std::string(termName(SegmentKind::Weights, s)), std::string("Base weights (frozen)"));
        QCOMPARE(std::string(termName(SegmentKind::Weights, testdata::preset("llama2-7b"))), std::string("Weights"));
    }

    // The issue's 70B: ~1.1 TB to fine-tune fully, and on one 80 GB H100 with QLoRA (the tour's step).
    void qlora70bFitsOneGpu()
    {
        const auto idx = tourStepIndex("70b-qlora");
        QVERIFY(idx);
        const auto st = evaluateTourStep(
            chapterTour()[*idx], [](const std::string& id) -> std::optional<Scenario> { return testdata::preset(id); },
            [](const std::string& g) -> std::optional<GpuSpec> { return testdata::gpu(g); });
        QVERIFY(st);
        QCOMPARE(st->scenario.hardware.gpus, qint64(1));
        QCOMPARE(st->gpu.memoryBytes, 80e9);
        QCOMPARE(st->breakdown.model.params.total, qint64(70553706496));
        QVERIFY(st->breakdown.fits);
        QCOMPARE(st->highlight.bytes, st->breakdown.perGpu.total());
        const Scenario full = testdata::preset("llama3-70b");
        const Breakdown fullB = account(full, st->gpu);
        QCOMPARE(fullB.modelStateBytes, 70553706496.0 * 16); // 1.13 TB
        QVERIFY(fullB.modelStateBytes > 1.1e12);
        // The NF4 base alone: 80 layers of q, o (8192²), k, v (8192·1024), gate, up, down (8192·28672).
        const double linears = 80.0 * (2.0 * 8192 * 8192 + 2.0 * 8192 * 1024 + 3.0 * 8192 * 28672);
        testdata::compareBytes(st->breakdown.perGpu.weights,
                               linears * (4 + 8.0 / 64 + 32.0 / (64 * 256)) / 8 + (70553706496.0 - linears) * 2);
    }

    void scenarioFileRoundTrip()
    {
        Scenario s = fineTuned("llama3-70b", FineTune::QLora, LoraTargets::All, 64);
        const std::string text = scenarioToText(s);
        const ScenarioParse back = parseScenario(text, "qlora.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().toString().c_str());
        QVERIFY(back.scenario.training == s.training);
        QCOMPARE(scenarioToText(back.scenario), text);
        QVERIFY(text.find("\"finetune\": \"qlora\"") != std::string::npos);
        // A full fine-tune's file is what it was before LoRA existed.
        QVERIFY(scenarioToText(testdata::preset("llama3-70b")).find("finetune") == std::string::npos);
        // A rank set while fine-tuning fully survives the round trip too.
        Scenario kept = testdata::preset("llama3-8b");
        kept.training.loraRank = 8;
        QVERIFY(parseScenario(scenarioToText(kept), "k.json").scenario.training == kept.training);
    }

    void badScenarioFields_data()
    {
        QTest::addColumn<QString>("training");
        QTest::addColumn<QString>("message");
        QTest::newRow("rank 0") << R"("finetune": "lora", "lora_rank": 0)"
                                << "bad.json: /training/lora_rank: must be a positive integer, got 0";
        QTest::newRow("rank above 4096") << R"("finetune": "lora", "lora_rank": 5000)"
                                         << "bad.json: /training/lora_rank: must be between 1 and 4096, got 5000";
        QTest::newRow("unknown target")
            << R"("finetune": "lora", "lora_targets": "mlp")"
            << R"(bad.json: /training/lora_targets: must be attn|all or a list of modules: unknown module "mlp" (known: )"
               R"(q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj|q_a_proj|q_b_proj|)"
               R"(kv_a_proj_with_mqa|kv_b_proj|in_proj_qkvz|in_proj_ba|out_proj|in_proj|fc1_latent_proj|fc2_latent_proj))";
        QTest::newRow("unknown method")
            << R"("finetune": "dora")"
            << R"(bad.json: /training/finetune: must be one of full|lora|qlora, got "dora")";
    }
    void badScenarioFields()
    {
        QFETCH(QString, training);
        QFETCH(QString, message);
        const QString text =
            QStringLiteral(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "training": {%1}})")
                .arg(training);
        const ScenarioParse p = parseScenario(text.toStdString(), "bad.json");
        QVERIFY(!p.ok());
        QCOMPARE(QString::fromStdString(p.errors.front().toString()), message);
    }

    // Every rank and target a control can produce gives finite, non-negative segments.
    void extremesStayFinite()
    {
        const GpuSpec h100 = testdata::gpu("H100");
        for (const char* preset : {"gpt2-small", "deepseek-v3", "qwen3.8-book"})
            for (FineTune f : {FineTune::Lora, FineTune::QLora})
                for (int64_t r : {int64_t(1), kMaxLoraRank})
                    for (LoraTargets t : {LoraTargets::Attention, LoraTargets::All}) {
                        const Breakdown b = account(fineTuned(preset, f, t, r), h100);
                        for (SegmentKind k : kAllSegmentKinds) {
                            const double v = segmentBytes(b.perGpu, k);
                            QVERIFY2(std::isfinite(v) && v >= 0, preset);
                        }
                        QVERIFY(b.perGpu.adapters > 0);
                    }
    }
};

QTEST_GUILESS_MAIN(TestLora)
#include "tst_lora.moc"
