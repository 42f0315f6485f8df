// The command line's training configs (issue 32): --torchtune-config, --axolotl-config and --deepspeed-config on the
// real files of tests/data/ (sources in each folder's README), how they combine with the other options, what is
// listed as ignored or not modelled, and the exit code of a file TrainMem cannot use.
#include "cli.h"
#include "lora.h"

#include "params.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace trainmem;

namespace {

QString data(const char* name)
{
    return QStringLiteral(TRAINMEM_TEST_DATA "/") + QLatin1String(name);
}

bool warned(const CliOutcome& o, const QString& part)
{
    for (const QString& w : o.request.warnings)
        if (w.contains(part))
            return true;
    return false;
}

// A copy of a real file in `dir` (under `as`, default its own name).
bool copyInto(const QTemporaryDir& dir, const QString& from, const QString& as)
{
    const QString to = dir.filePath(as);
    return QDir().mkpath(QFileInfo(to).path()) && QFile::copy(from, to);
}

} // namespace

class TestCliTrainConfig : public QObject
{
    Q_OBJECT
private:
    PresetLibrary m_lib;

    CliOutcome parse(const QStringList& args)
    {
        return parseCommandLine(QStringList{QStringLiteral("trainmem")} + args, m_lib);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_lib.load(QString());
        QVERIFY2(m_lib.errors().isEmpty(), qPrintable(m_lib.errors().join('\n')));
    }

    // torchtune llama3_1/8B_lora_single_device.yaml: the builder's Llama 3.1 8B, LoRA r8 with the MLP, batch 2,
    // accumulation 8, pure bf16 (torchtune keeps no fp32 copy), full checkpointing.
    void torchtuneRecipeBecomesTheScenario()
    {
        const CliOutcome o =
            parse({"--json", "--torchtune-config", data("torchtune/llama3_1-8B_lora_single_device.yaml")});
        QVERIFY2(o.ok, qPrintable(o.error));
        const Scenario& s = o.request.scenario;
        QCOMPARE(countParams(s.model.architecture).total, qint64(8030261248));
        QCOMPARE(s.training.fineTune, FineTune::Lora);
        QCOMPARE(s.training.loraRank, qint64(8));
        QCOMPARE(s.training.loraTargets, LoraTargets::All);
        QCOMPARE(s.training.microBatch, qint64(2));
        QCOMPARE(s.training.gradAccum, qint64(8));
        QCOMPARE(s.training.precision, Precision::BF16);
        QCOMPARE(s.training.checkpointing, Checkpointing::Full);
        QCOMPARE(s.training.seqLen, qint64(4096)); // tokenizer.max_seq_len: null leaves the default preset's
        QVERIFY(o.request.scenarioGiven);
        QVERIFY(
            warned(o, QStringLiteral("--torchtune-config: ignored (not read by TrainMem): output_dir, checkpointer")));
        // q_proj, v_proj, output_proj and the MLP at rank 8, counted exactly: 19,660,800 (tst_trainconfig derives it).
        QCOMPARE(s.training.loraModules,
                 *loraModulesFromList("q_proj,v_proj,o_proj,gate_proj,up_proj,down_proj", nullptr));
        QCOMPARE(loraParams(s.model.architecture, s.training).total, qint64(19660800));
        QVERIFY(!warned(o, QStringLiteral("TrainMem adapts")));
    }

    // The other options win over the file, wherever they stand; --hf-config's model wins over the builder's.
    void optionsWinOverTheFile()
    {
        const QString file = data("torchtune/llama3_1-8B_lora_single_device.yaml");
        const CliOutcome o = parse({"--torchtune-config", file, "--batch", "1", "--lora-rank", "16", "--precision",
                                    "bf16-mixed", "--json", "--seq", "8k"});
        QVERIFY2(o.ok, qPrintable(o.error));
        const Scenario& s = o.request.scenario;
        QCOMPARE(s.training.microBatch, qint64(1));
        QCOMPARE(s.training.loraRank, qint64(16));
        QCOMPARE(s.training.precision, Precision::BF16Mixed);
        QCOMPARE(s.training.seqLen, qint64(8192));
        QCOMPARE(s.training.gradAccum, qint64(8)); // not given: the file's
        // The file's projections at the rank given: 2 × 19,660,800.
        QCOMPARE(loraParams(s.model.architecture, s.training).total, qint64(39321600));

        const CliOutcome h =
            parse({"--json", "--torchtune-config", data("torchtune/llama3_2-1B_full_single_device.yaml"), "--hf-config",
                   QStringLiteral(TRAINMEM_TEST_DATA "/hf/Qwen3-8B.json")});
        QVERIFY2(h.ok, qPrintable(h.error));
        QCOMPARE(h.request.scenario.model.params, qint64(8190735360));
        QCOMPARE(h.request.scenario.training.microBatch, qint64(4));
        QVERIFY(
            warned(h, QStringLiteral("the model of --hf-config is used, not torchtune.models.llama3_2.llama3_2_1b's")));
    }

    // axolotl's base_model is a Hub id: without --hf-config or --preset the run exits 2 naming it.
    void axolotlHubIdNeedsAModel()
    {
        const QString file = data("axolotl/qlora-fsdp-70b.yaml");
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--json"), QStringLiteral("--axolotl-config"), file});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(
            err.contains(QStringLiteral("trainmem: --axolotl-config: ") + file +
                         QStringLiteral(": /base_model: \"casperhansen/llama-3-70b-fp16\" is a Hugging Face Hub "
                                        "id, and TrainMem reads no network: pass --hf-config with the model's "
                                        "config.json (or its downloaded folder), or --preset with the same model")),
            qPrintable(err));

        // With --preset, the preset's model; QLoRA r8 on every linear, FSDP full shard with the parameters (the 4-bit
        // base and the adapters) and the optimizer offloaded.
        const CliOutcome o = parse({"--json", "--preset", "llama3-70b", "--gpus", "8", "--axolotl-config", file});
        QVERIFY2(o.ok, qPrintable(o.error));
        const Scenario& s = o.request.scenario;
        QCOMPARE(s.model.params, qint64(70553706496)); // the llama3-70b preset: Meta's Llama 3 70B
        QCOMPARE(s.training.fineTune, FineTune::QLora);
        QCOMPARE(s.training.loraTargets, LoraTargets::All);
        QCOMPARE(s.training.seqLen, qint64(512));
        QCOMPARE(s.hardware.zeroStage, 3);
        QCOMPARE(s.hardware.offload, Offload::OptimizerParams);
        QCOMPARE(s.hardware.gpus, qint64(8));
        QVERIFY(
            warned(o, QStringLiteral("base_model casperhansen/llama-3-70b-fp16 is not on this machine: the model of "
                                     "--preset llama3-70b is used")));
        QVERIFY(warned(o, QStringLiteral("fsdp_config.fsdp_state_dict_type")));
        // axolotl runs transformers' Trainer with expandable segments; --framework and --loss on the command line win.
        QCOMPARE(s.framework, std::optional<Framework>(Framework::HF));
        QCOMPARE(s.hardware.expandableSegments, std::optional<bool>(true));
        const CliOutcome liger = parse({"--json", "--preset", "llama3-8b", "--gpus", "8", "--axolotl-config",
                                        data("axolotl/fft-8b-liger-fsdp.yaml"), "--framework", "torchtitan"});
        QVERIFY2(liger.ok, qPrintable(liger.error));
        QCOMPARE(liger.request.scenario.training.loss, std::optional<LossKind>(LossKind::Fused));
        QCOMPARE(liger.request.scenario.framework, std::optional<Framework>(Framework::Torchtitan));
        const CliOutcome eager = parse({"--json", "--preset", "llama3-8b", "--gpus", "8", "--axolotl-config",
                                        data("axolotl/fft-8b-liger-fsdp.yaml"), "--loss", "eager"});
        QVERIFY2(eager.ok, qPrintable(eager.error));
        QCOMPARE(eager.request.scenario.training.loss, std::optional<LossKind>(LossKind::Eager));
    }

    // A base_model folder beside the YAML holding the model's config.json is read as --hf-config reads one.
    void axolotlLocalBaseModel()
    {
        QTemporaryDir dir;
        QVERIFY(copyInto(dir, data("axolotl/fft-8b.yaml"), QStringLiteral("fft-8b.yaml")));
        // fft-8b.yaml names NousResearch/Meta-Llama-3.1-8B, a copy of Meta's Llama 3.1 8B.
        QVERIFY(
            copyInto(dir, data("hf/Llama-3.1-8B.json"), QStringLiteral("NousResearch/Meta-Llama-3.1-8B/config.json")));
        const CliOutcome o = parse({"--json", "--axolotl-config", dir.filePath(QStringLiteral("fft-8b.yaml"))});
        QVERIFY2(o.ok, qPrintable(o.error));
        const Scenario& s = o.request.scenario;
        QCOMPARE(s.model.params, qint64(8030261248));
        QCOMPARE(s.training.fineTune, FineTune::Full);
        QCOMPARE(s.training.seqLen, qint64(8192));
        QCOMPARE(s.training.gradAccum, qint64(8));
        QCOMPARE(s.training.optimizer, Optimizer::Adam8bit);
        // optimizer: paged_adamw_8bit is applied, as --optimizer paged-adamw8bit is, with nothing left to warn about.
        QVERIFY(s.training.pagedOptimizer);
        QVERIFY(!warned(o, QStringLiteral("paged")));
    }

    // lora-1b-ray.yml names deepspeed_configs/zero3.json, read beside the YAML; a missing one is named.
    void axolotlReadsItsDeepSpeedFile()
    {
        const CliOutcome missing =
            parse({"--json", "--preset", "llama3-8b", "--axolotl-config", data("axolotl/lora-1b-ray.yml")});
        QVERIFY(!missing.ok);
        QCOMPARE(missing.error, QStringLiteral("--axolotl-config: ") + data("axolotl/lora-1b-ray.yml") +
                                    QStringLiteral(": /deepspeed: ") + data("axolotl/deepspeed_configs/zero3.json") +
                                    QStringLiteral(": cannot be read: No such file or directory"));
        QTemporaryDir dir;
        QVERIFY(copyInto(dir, data("axolotl/lora-1b-ray.yml"), QStringLiteral("lora-1b-ray.yml")));
        QVERIFY(copyInto(dir, data("deepspeed/zero3.json"), QStringLiteral("deepspeed_configs/zero3.json")));
        const CliOutcome o = parse({"--json", "--hf-config", data("hf/Llama-3.2-3B.json"), "--gpus", "4",
                                    "--axolotl-config", dir.filePath(QStringLiteral("lora-1b-ray.yml"))});
        QVERIFY2(o.ok, qPrintable(o.error));
        const Scenario& s = o.request.scenario;
        QCOMPARE(s.hardware.zeroStage, 3);
        QCOMPARE(s.training.loraRank, qint64(16));
        QCOMPARE(s.training.microBatch, qint64(2)); // zero3.json's "auto": the YAML's micro_batch_size
        QCOMPARE(s.model.params, qint64(3212749824));
        QVERIFY(warned(o, QStringLiteral("base_model NousResearch/Llama-3.2-1B: the model of --hf-config is used")));
        QVERIFY(warned(o, QStringLiteral("zero3.json: zero_optimization.overlap_comm")));
    }

    // DeepSpeed's train_batch_size: the value the file leaves out is worked out as DeepSpeed does.
    void deepspeedTrainBatch()
    {
        // BingBertSquad: train_batch_size 24, micro-batch 3: on 4 GPUs, accumulation 24 / (3 · 4) = 2.
        const QString bert = data("deepspeed/deepspeed_bsz24_fp16_zero2_config.json");
        const CliOutcome o = parse({"--json", "--gpus", "4", "--deepspeed-config", bert});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.training.gradAccum, qint64(2));
        QCOMPARE(o.request.scenario.training.microBatch, qint64(3));
        QCOMPARE(o.request.scenario.training.precision, Precision::FP16Mixed);
        QCOMPARE(o.request.scenario.training.optimizer, Optimizer::Adam);
        QCOMPARE(o.request.scenario.hardware.zeroStage, 2);
        // On 5 GPUs 24 sequences do not divide: the key is named.
        const CliOutcome five = parse({"--json", "--gpus", "5", "--deepspeed-config", bert});
        QVERIFY(!five.ok);
        QVERIFY2(five.error.startsWith(QStringLiteral("--deepspeed-config: ") + bert +
                                       QStringLiteral(": /train_batch_size: ")),
                 qPrintable(five.error));
        // --grad-accum wins over train_batch_size.
        const CliOutcome ga = parse({"--json", "--gpus", "4", "--grad-accum", "5", "--deepspeed-config", bert});
        QVERIFY2(ga.ok, qPrintable(ga.error));
        QCOMPARE(ga.request.scenario.training.gradAccum, qint64(5));

        // Megatron_GPT2: train_batch_size 8, accumulation 1, no micro-batch: on 2 GPUs the micro-batch is 8 / 2 = 4;
        // its deprecated cpu_offload is offload_optimizer on the cpu.
        const CliOutcome gpt2 = parse(
            {"--json", "--gpus", "2", "--deepspeed-config", data("deepspeed/ds_config_func_bs8_zero2_offload.json")});
        QVERIFY2(gpt2.ok, qPrintable(gpt2.error));
        QCOMPARE(gpt2.request.scenario.training.microBatch, qint64(4));
        QCOMPARE(gpt2.request.scenario.training.gradAccum, qint64(1));
        QCOMPARE(gpt2.request.scenario.hardware.offload, Offload::Optimizer);
        QVERIFY(warned(gpt2, QStringLiteral("activation_checkpointing")));
    }

    // --json carries what was read: training_config with the option, the file, the ignored keys and the notes.
    void jsonHasTheTrainingConfig()
    {
        const QString file = data("torchtune/llama3_2-1B_full_single_device.yaml");
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--json"), QStringLiteral("--torchtune-config"), file});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QByteArray out = p.readAllStandardOutput();
        const nlohmann::json j = nlohmann::json::parse(out.constData(), out.constData() + out.size());
        QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(1235814400));
        const nlohmann::json& t = j["training_config"];
        QCOMPARE(QString::fromStdString(t["option"].get<std::string>()), QStringLiteral("--torchtune-config"));
        QCOMPARE(QString::fromStdString(t["file"].get<std::string>()), file);
        QVERIFY(t["ignored"].size() > 10);
        QCOMPARE(t["ignored"][0].get<std::string>(), std::string("output_dir"));
        // optimizer_in_bwd: True is applied (issue 30 §2), listed among what was read, not noted as unmodelled.
        bool inBwd = false;
        for (const nlohmann::json& n : t["read"])
            inBwd = inBwd || n.get<std::string>() == "optimizer step in backward on";
        QVERIFY2(inBwd, t.dump().c_str());
        QCOMPARE(j["scenario"]["training"]["optimizer_in_backward"].get<bool>(), true);
        QCOMPARE(j["scenario"]["training"]["paged_optimizer"].get<bool>(), true);
        // The loss (LinearCrossEntropyLoss) is read as --loss chunked and the file is run under torchtune's profile,
        // both listed as read; no warning is left for them.
        bool loss = false, framework = false;
        for (const nlohmann::json& n : t["read"]) {
            loss = loss || n.get<std::string>() == "loss chunked";
            framework = framework || n.get<std::string>() == "framework torchtune";
        }
        QVERIFY2(loss && framework, t.dump().c_str());
        QCOMPARE(j["recipe"]["loss"].get<std::string>(), std::string("chunked"));
        QCOMPARE(j["recipe"]["loss_set_by"].get<std::string>(), std::string("scenario"));
        QCOMPARE(j["recipe"]["framework"].get<std::string>(), std::string("torchtune"));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(!err.contains(QStringLiteral("LinearCrossEntropyLoss")) &&
                     !err.contains(QStringLiteral("not modelled")),
                 qPrintable(err));
        QVERIFY2(!err.contains(QStringLiteral("optimizer_in_bwd")) && !err.contains(QStringLiteral("paged")),
                 qPrintable(err));
    }

    // --measured: a readout beside the prediction of the same statistic; `-` reads standard input; a text with no
    // figure exits 2 naming the source. The torchtune QLoRA recipe of torchtune#1398 against its own log's peaks.
    void measuredBesideThePrediction()
    {
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE),
                {QStringLiteral("--json"), QStringLiteral("--torchtune-config"),
                 data("torchtune/llama3_1-8B_qlora_single_device.yaml"), QStringLiteral("--measured"),
                 data("readouts/torchtune-memory-stats-1398-qlora-default.txt")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QByteArray out = p.readAllStandardOutput();
        const nlohmann::json j = nlohmann::json::parse(out.constData(), out.constData() + out.size());
        QVERIFY(j["training_config"]["read"].size() > 3);
        const nlohmann::json& m = j["measured"];
        QCOMPARE(m["statistic"].get<std::string>(), std::string("peak_allocated"));
        QCOMPARE(m["bytes"].get<double>(), 6.19 * 1024 * 1024 * 1024); // "GPU peak memory allocation: 6.19 GiB"
        QCOMPARE(m["source"].get<std::string>(), std::string("torchtune's memory stats"));
        // The prediction of the same statistic: a torchtune recipe runs under its profile, so peak allocated is the
        // film's peak moment less the CUDA context and the reserve (--json's peak_allocated_bytes), below the bars'.
        const nlohmann::json& g = j["per_gpu_bytes"];
        const double predicted = j["peak_allocated_bytes"].get<double>();
        const nlohmann::json& at = j["timeline"]["at_peak_bytes"];
        QCOMPARE(predicted,
                 at["total"].get<double>() - at["framework"].get<double>() - at["fragmentation"].get<double>());
        QVERIFY(predicted < g["total"].get<double>() - g["framework"].get<double>() - g["fragmentation"].get<double>());
        QCOMPARE(m["predicted_bytes"].get<double>(), predicted);
        QCOMPARE(m["ratio"].get<double>(), m["bytes"].get<double>() / predicted);
        QCOMPARE(m["readings"].size(), size_t(2)); // allocation and reserved; active is noted

        QProcess in;
        in.start(QStringLiteral(TRAINMEM_EXE),
                 {QStringLiteral("--text"), QStringLiteral("--preset"), QStringLiteral("chapter-7b"),
                  QStringLiteral("--measured"), QStringLiteral("-")});
        in.write("nvidia-smi 78519MiB\n");
        in.closeWriteChannel();
        QVERIFY(in.waitForFinished(30000));
        QCOMPARE(in.exitCode(), 0);
        QVERIFY(QString::fromUtf8(in.readAllStandardOutput())
                    .contains(QStringLiteral("Measured in use on the GPU (nvidia-smi) 82.3 GB (a figure with its "
                                             "statistic) against TrainMem's")));

        QTemporaryDir dir;
        const QString notes = dir.filePath(QStringLiteral("notes.txt"));
        QFile f(notes);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("the run went fine\n");
        f.close();
        QProcess bad;
        bad.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--json"), QStringLiteral("--measured"), notes});
        QVERIFY(bad.waitForFinished(30000));
        QCOMPARE(bad.exitCode(), 2);
        const QString err = QString::fromUtf8(bad.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("--measured: ") + notes + QStringLiteral(": has no memory figure")),
                 qPrintable(err));
    }

    void badCombinations_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("axolotl and torchtune together")
            << QStringList{"--axolotl-config", data("axolotl/fft-8b.yaml"), "--torchtune-config",
                           data("torchtune/llama3_2-1B_full_single_device.yaml")}
            << "--axolotl-config and --torchtune-config: give one or the other";
        QTest::newRow("a training config and a Megatron-LM launch")
            << QStringList{"--deepspeed-config", data("deepspeed/zero1.json"), "--megatron-args", "--num-layers 2"}
            << "--megatron-args and a training config: give one or the other";
        QTest::newRow("a folder is not a config")
            << QStringList{"--deepspeed-config", QStringLiteral(TRAINMEM_TEST_DATA)}
            << "--deepspeed-config: " TRAINMEM_TEST_DATA ": is a folder; give a training config file";
    }
    void badCombinations()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        const CliOutcome o = parse(QStringList{"--json"} + args);
        QVERIFY(!o.ok);
        QCOMPARE(o.error, error);
    }
};

QTEST_GUILESS_MAIN(TestCliTrainConfig)
#include "tst_cli_trainconfig.moc"
