// Scenario files: every bad field is named by file and JSON path; good files round-trip.
#include "testdata.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace trainmem;

namespace {

QString withTraining(const QString& training)
{
    return QStringLiteral(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "training": {%1}})")
        .arg(training);
}

} // namespace

class TestScenarioIo : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void badFiles_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("negative seq_len names the path and the value")
            << withTraining(QStringLiteral(R"("seq_len": -4)"))
            << "bad.json: /training/seq_len: must be a positive integer, got -4";
        QTest::newRow("seq_len as text that is not a number")
            << withTraining(QStringLiteral(R"("seq_len": "long")"))
            << R"(bad.json: /training/seq_len: must be a positive integer, got "long")";
        QTest::newRow("unknown precision lists the valid ones")
            << withTraining(QStringLiteral(R"("precision": "fp7")"))
            << R"(bad.json: /training/precision: must be one of fp32|bf16-mixed|fp16-mixed|bf16|fp8-mixed, got "fp7")";
        QTest::newRow("micro_batch zero") << withTraining(QStringLiteral(R"("micro_batch": 0)"))
                                          << "bad.json: /training/micro_batch: must be a positive integer, got 0";
        QTest::newRow("flash_attention must be boolean")
            << withTraining(QStringLiteral(R"("flash_attention": "yes")"))
            << R"(bad.json: /training/flash_attention: must be true or false, got "yes")";
        // Issue 13 added global_batch (sequences per step, setting grad_accum) to the known fields, issue 30 loss.
        QTest::newRow("typo in a field name")
            << withTraining(QStringLiteral(R"("seqlen": 4096)"))
            << "bad.json: /training/seqlen: unknown field (known: mode, precision, optimizer, seq_len, micro_batch, "
               "grad_accum, global_batch, checkpointing, flash_attention, sequence_parallel, inference_weights, "
               "finetune, lora_rank, lora_targets, loss, compile, compile_loss, optimizer_in_backward, "
               "activation_offload, paged_optimizer, qlora_double_quant, litgpt_fp32_norm, qlora_base, "
               "litgpt_held_batch)";
        QTest::newRow("not JSON names line and column")
            << QStringLiteral("{\"schema\": ")
            << "bad.json: not valid JSON: at line 1, column 12: syntax error while parsing value - unexpected end of "
               "input; expected '[', '{', or a literal";
        // A Hugging Face config.json given as a scenario: one error naming what reads it, for a file nlohmann reads
        // and for one with Python's Infinity, which it does not.
        QTest::newRow("a Hugging Face config.json is named as one")
            << QStringLiteral(R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096})")
            << "bad.json: /model_type: names a Hugging Face model: this is a config.json, not a scenario; read it "
               "with --hf-config (in the window: File ▸ Import Hugging Face config…, or drop it on the window)";
        QTest::newRow("a Hugging Face config.json with Infinity is named as one")
            << QStringLiteral(R"({"model_type": "nemotron_h", "time_step_limit": [0.0, Infinity]})")
            << "bad.json: /model_type: names a Hugging Face model: this is a config.json, not a scenario; read it "
               "with --hf-config (in the window: File ▸ Import Hugging Face config…, or drop it on the window)";
        QTest::newRow("wrong schema")
            << QStringLiteral(R"({"schema": "trainmem/scenario@9", "model": {"params": 7}})")
            << R"(bad.json: /schema: must be "trainmem/scenario@1", got "trainmem/scenario@9")";
        QTest::newRow("missing model") << QStringLiteral(R"({"schema": "trainmem/scenario@1"})")
                                       << "bad.json: /model: is required (an architecture or params)";
        QTest::newRow("active_params above params")
            << QStringLiteral(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B", "active_params": "8B"}})")
            << "bad.json: /model/active_params: must not exceed params (7000000000), got 8000000000";
        QTest::newRow("kv_heads must divide heads")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 8, "kv_heads": 3}}})")
            << "bad.json: /model/architecture/kv_heads: must divide heads (8), got 3";
        QTest::newRow("architecture without layers")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"hidden": 64, "heads": 8}}})")
            << "bad.json: /model/architecture/layers: is required in an architecture";
        QTest::newRow("mla without ranks")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 8, "attention": "mla"}}})")
            << "bad.json: /model/architecture/mla: is required when attention is \"mla\"";
        QTest::newRow("more active experts than experts")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 8, "moe": {"experts": 4, "active_experts": 8, "expert_ffn": 128}}}})")
            << "bad.json: /model/architecture/moe/active_experts: must not exceed experts (4), got 8";
        QTest::newRow("an architecture beyond 10^15 parameters")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 10000, "hidden": 1000000, "heads": 8}}})")
            << "bad.json: /model/architecture: describes 120003T parameters; the limit is 10^15";
        QTest::newRow("zero stage 5")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"params": 7}, "hardware": {"zero_stage": 5}})")
            << "bad.json: /hardware/zero_stage: must be between 0 and 3, got 5";
        QTest::newRow("gpus not a multiple of tp*pp")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"params": 7}, "hardware": {"gpus": 6, "tp": 4}})")
            << "bad.json: /hardware/gpus: must be a multiple of tp·pp (4), got 6";
        // Issue 13: a layout no framework can run is a field error, not a silent clamp.
        QTest::newRow("pp above the model's layers")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 8}}, "hardware": {"gpus": 4, "pp": 4}})")
            << "bad.json: /hardware/pp: must not exceed the model's 2 layers (a pipeline stage holds at least one), "
               "got 4";
        QTest::newRow("ep that does not divide the experts")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 8, "moe": {"experts": 8, "active_experts": 2, "expert_ffn": 128}}}, "hardware": {"gpus": 16, "ep": 16}})")
            << "bad.json: /hardware/ep: must divide the model's 8 experts, got 16";
        QTest::newRow("other_phases that is not a list")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"params": 7}, "cost": {"other_phases": 5}})")
            << R"(bad.json: /cost/other_phases: must be a list of {"name", "gpu_hours"}, got 5)";
        QTest::newRow("a phase without its hours")
            << QStringLiteral(
                   R"({"schema": "trainmem/scenario@1", "model": {"params": 7}, "cost": {"other_phases": [{"name": "sft"}]}})")
            << "bad.json: /cost/other_phases/0: needs both name and gpu_hours";
        QTest::newRow("a huge number") << withTraining(QStringLiteral(R"("seq_len": 1e300)"))
                                       << "bad.json: /training/seq_len: must be a positive integer, got 1e+300";
        QTest::newRow("a number beyond a double is bad JSON, not a crash (fuzz_gpus finding)")
            << withTraining(QStringLiteral(R"("seq_len": 2e400)"))
            << "bad.json: not valid JSON: number overflow parsing '2e400'";
        QTest::newRow("top level is an array")
            << QStringLiteral("[1, 2]") << "bad.json: must be a JSON object, got [1,2]";
        // The description used dump(), one recursion per level: 300000 levels overflowed the stack.
        QTest::newRow("an array nested 300000 deep is described, not a stack overflow")
            << QString(300000, '[') + QString(300000, ']')
            << "bad.json: must be a JSON object, got " + QString(37, '[') + "...";
    }
    void badFiles()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const ScenarioParse p = parseScenario(text.toStdString(), "bad.json");
        QVERIFY(!p.ok());
        QCOMPARE(QString::fromStdString(p.errors.front().toString()), message);
    }

    void badFieldKeepsTheValidRest()
    {
        const ScenarioParse p =
            parseScenario(withTraining(QStringLiteral(R"("seq_len": -4, "micro_batch": 8)")).toStdString(), "f.json");
        QCOMPARE(p.errors.size(), size_t(1));
        QCOMPARE(p.scenario.training.microBatch, qint64(8));
        QCOMPARE(p.scenario.training.seqLen, qint64(4096)); // the documented default
        QCOMPARE(p.scenario.model.params, qint64(7'000'000'000));
    }

    void unevenPipelineRoundTrips()
    {
        // Issue 33: the stages' layers are the scenario's own, saved only when not the even split.
        const Scenario s = testdata::deepseekV3OnPipeline(8, 7, 6);
        const std::string text = scenarioToText(s);
        QVERIFY(text.find("\"first_stage_layers\": 7") != std::string::npos);
        const ScenarioParse back = parseScenario(text, "split.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.errors.front().toString().c_str());
        QCOMPARE(back.scenario.hardware.split, s.hardware.split);
        QVERIFY(scenarioToText(testdata::preset("deepseek-v3")).find("stage_layers") == std::string::npos);
    }

    void pipelineLayoutRoundTrips()
    {
        // Issue 33: Megatron-LM's --pipeline-model-parallel-layout as hardware.pipeline_layout. The layout is the docs'
        // (docs/user-guide/features/pipeline_parallel_layout.md at d98e8a6): 32 stages on pp 16, so without vpp the
        // file gets 32/16 = 2 virtual stages, as arguments.py sets them.
        Scenario s = testdata::deepseekV3OnPipeline(16);
        const std::string layout = "Et*3|(tt|)*29,m|L";
        nlohmann::json doc = nlohmann::json::parse(scenarioToText(s));
        doc["hardware"].erase("vpp");
        doc["hardware"]["pipeline_layout"] = layout;
        const ScenarioParse p = parseScenario(doc.dump(), "layout.json");
        QVERIFY2(p.ok(), p.ok() ? "" : p.errors.front().toString().c_str());
        QCOMPARE(p.scenario.hardware.split.layout, layout);
        QCOMPARE(p.scenario.hardware.split.stages.size(), size_t(32));
        QCOMPARE(p.scenario.hardware.vpp, int64_t(2));
        QVERIFY(validateScenario(p.scenario, "").empty());
        // Written back as written, and read again the same.
        const ScenarioParse back = parseScenario(scenarioToText(p.scenario), "back.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.errors.front().toString().c_str());
        QCOMPARE(back.scenario.hardware.split, p.scenario.hardware.split);
        QCOMPARE(back.scenario.hardware.vpp, int64_t(2));
        // A text Megatron-LM cannot read is named with its field; one that does not fit the model too.
        doc["hardware"]["pipeline_layout"] = "Et*3|(tt|)*29,x|L";
        const ScenarioParse bad = parseScenario(doc.dump(), "bad.json");
        QCOMPARE(bad.errors.size(), size_t(1));
        QCOMPARE(bad.errors.front().toString(),
                 std::string("bad.json: /hardware/pipeline_layout: has 'x' in stage 30, which is not a layer: the "
                             "layers are E (embedding), t (transformer layer), m (MTP layer) and L (loss), stages are "
                             "split by |, and \"t*3\" or \"(tt|)*2\" repeat"));
        doc["hardware"]["pipeline_layout"] = "Et*3|(tt|)*28,t|m|L";
        doc["hardware"]["vpp"] = 2;
        const ScenarioParse wrong = parseScenario(doc.dump(), "wrong.json");
        QCOMPARE(wrong.errors.size(), size_t(1));
        QCOMPARE(wrong.errors.front().toString(),
                 std::string("wrong.json: /hardware/pipeline_layout: places 60 transformer layers, the model has 61"));
    }

    void headsThatLeaveNoHeadSizeAreRefused()
    {
        // Issue 33 §5: 8192 heads on hidden 4096 gave head_dim 0, dropped the attention weights, and the file the
        // scenario's own --json wrote did not load. Without head_dim the heads must divide hidden.
        const ScenarioParse p = parseScenario(
            R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 32, "hidden": 4096,
                "heads": 8192, "ffn": 11008, "ffn_kind": "swiglu", "vocab": 32000}}})",
            "heads.json");
        QCOMPARE(p.errors.size(), size_t(1));
        QCOMPARE(
            p.errors.front().toString(),
            std::string("heads.json: /model/architecture/heads: must divide hidden (4096) unless head_dim is given "
                        "(the head size is hidden/heads), got 8192"));
        // With head_dim (Gemma's 256 on hidden 3072 with 16 heads) the heads need not divide hidden.
        const ScenarioParse gemma = parseScenario(
            R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 28, "hidden": 3072,
                "heads": 16, "head_dim": 256, "ffn": 24576, "ffn_kind": "swiglu", "vocab": 256000}}})",
            "gemma.json");
        QVERIFY2(gemma.ok(), gemma.ok() ? "" : gemma.errors.front().toString().c_str());
    }

    void aMillionUnknownKeysListTwentyErrors()
    {
        // Issue 33 §6: every unknown key was an error of its own, 139 MB of them for a million keys. Twenty are
        // listed, and the rest counted in the last line.
        nlohmann::json doc = {{"schema", "trainmem/scenario@1"}, {"model", {{"params", "7B"}}}};
        for (int i = 0; i < 100000; ++i)
            doc["k" + std::to_string(i)] = i;
        const ScenarioParse p = parseScenario(doc.dump(), "keys.json");
        QCOMPARE(p.errors.size(), kMaxListedErrors + 1);
        QCOMPARE(p.errors.front().toString().substr(0, 26), std::string("keys.json: /k0: unknown fi"));
        QCOMPARE(p.errors.back().toString(), std::string("keys.json: … and 99,980 more errors"));
        // A file with few errors lists them all and no count.
        const ScenarioParse few =
            parseScenario(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "x": 1})", "few.json");
        QCOMPARE(few.errors.size(), size_t(1));
    }

    void countsAcceptSuffixes()
    {
        const ScenarioParse p = parseScenario(
            std::string(R"({"schema": "trainmem/scenario@1", "model": {"params": "2.4T", "active_params": "95B"},
                            "training": {"seq_len": "128k"}, "cost": {"tokens": "15T"}})"),
            "x.json");
        QVERIFY(p.ok());
        QCOMPARE(p.scenario.model.params, qint64(2'400'000'000'000));
        QCOMPARE(p.scenario.model.activeParams, qint64(95'000'000'000));
        QCOMPARE(p.scenario.training.seqLen, qint64(131072));
        QCOMPARE(p.scenario.cost.tokens, 15e12);
    }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("id");
        for (const std::string& id : testdata::presetIds()) // every built-in preset
            QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }
    void roundTrip()
    {
        QFETCH(QString, id);
        const Scenario a = testdata::preset(id.toStdString());
        const ScenarioParse back = parseScenario(scenarioToText(a), "saved.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.errors.front().toString().c_str());
        QCOMPARE(scenarioToText(back.scenario), scenarioToText(a));
        const GpuSpec gpu = testdata::gpu("H100");
        QCOMPARE(account(back.scenario, gpu).perGpu.total(), account(a, gpu).perGpu.total());
    }

    void gpuCatalog()
    {
        const GpuCatalog c = testdata::gpus();
        QVERIFY(c.errors.empty());
        for (const char* id : {"H100", "H800", "H200", "B200", "A100-40GB", "A100-80GB", "MI300X", "RTX4090", "L40S"}) {
            const GpuSpec* g = c.find(id);
            QVERIFY2(g, id);
            QVERIFY(!g->source.empty());
            QVERIFY(g->bf16Tflops > 0);
        }
        QCOMPARE(c.find("h100")->memoryBytes, 80e9);
        QCOMPARE(c.find("MI300X")->memoryBytes, 192e9);
        QCOMPARE(c.find("A100-40GB")->fp8Tflops, 0.0);
    }

    void badGpuCatalog()
    {
        const GpuCatalog c = parseGpuCatalog(R"({"schema": "trainmem/gpus@1", "gpus": [
            {"id": "X", "name": "X", "source": "s", "memory_gb": -1, "bf16_tflops": 1, "price_per_hour": 1},
            {"id": "Y", "name": "Y", "source": "s", "memory_gb": 24, "bf16_tflops": 100, "price_per_hour": 1}]})",
                                             "gpus.json");
        QCOMPARE(c.gpus.size(), size_t(1));
        QCOMPARE(QString::fromStdString(c.errors.front().toString()),
                 QStringLiteral("gpus.json: /gpus/0/memory_gb: must be a number between 0.001 and 1000000.0, got -1"));
    }
};

QTEST_GUILESS_MAIN(TestScenarioIo)
#include "tst_scenarioio.moc"
