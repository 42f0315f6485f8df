// The command line: overrides, the --json document, and a clear message for every bad argument.
#include "cli.h"

#include "accounting.h"
#include "lora.h"
#include "tour.h"

#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

using namespace trainmem;

class TestCli : public QObject
{
    Q_OBJECT
private:
    PresetLibrary m_lib;

    CliOutcome parse(const QStringList& args)
    {
        return parseCommandLine(QStringList{QStringLiteral("trainmem")} + args, m_lib);
    }

    nlohmann::json runJson(const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), args);
        if (!p.waitForFinished(30000))
            qFatal("trainmem did not finish");
        if (p.exitCode() != 0)
            qFatal("trainmem failed: %s", p.readAllStandardError().constData());
        const QByteArray out = p.readAllStandardOutput();
        return nlohmann::json::parse(out.constData(), out.constData() + out.size());
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_lib.load(QString()); // built-in presets only, whatever the user's folder holds
        QVERIFY2(m_lib.errors().isEmpty(), qPrintable(m_lib.errors().join('\n')));
        // gpt-oss-120b and kimi-k2 joined (issue 29 §3), then llama4-maverick, qwen3-next-80b-a3b and
        // nemotron-3-nano-30b-a3b, then nemotron-3-super-120b-a12b (its latent MoE)
        QCOMPARE(m_lib.presets().size(), size_t(17));
        QCOMPARE(m_lib.gpus().gpus.size(), size_t(23)); // the 2026 catalog: 9 + 14 sourced entries
    }

    void overrides()
    {
        const CliOutcome o =
            parse({"--json",    "--preset",    "llama3-70b", "--seq",       "128k",     "--batch",
                   "2",         "--precision", "fp8-mixed",  "--optimizer", "lion",     "--checkpointing",
                   "selective", "--gpu",       "h200",       "--gpus",      "64",       "--zero",
                   "3",         "--tp",        "8",          "--mode",      "training", "--flash",
                   "off"});
        QVERIFY2(o.ok, qPrintable(o.error));
        const Scenario& s = o.request.scenario;
        QCOMPARE(o.request.action, CliRequest::Action::Json);
        QVERIFY(s.model.hasArchitecture);
        QCOMPARE(s.training.seqLen, qint64(131072));
        QCOMPARE(s.training.microBatch, qint64(2));
        QCOMPARE(s.training.precision, Precision::FP8Mixed);
        QCOMPARE(s.training.optimizer, Optimizer::Lion);
        QCOMPARE(s.training.checkpointing, Checkpointing::Selective);
        QCOMPARE(s.training.flashAttention, false);
        QCOMPARE(QString::fromStdString(s.hardware.gpu), QStringLiteral("H200"));
        QCOMPARE(s.hardware.gpus, qint64(64));
        QCOMPARE(s.hardware.zeroStage, 3);
        QCOMPARE(s.hardware.tp, qint64(8));
    }

    // gpt-oss-120b's config.json ships its experts in MXFP4: --hf-config serves it so, and --weights still wins.
    void shippedWeightFormatYieldsToWeights()
    {
        const QString file = QStringLiteral(TRAINMEM_HF_DATA "/gpt-oss-120b.json");
        CliOutcome o = parse({"--json", "--mode", "inference", "--hf-config", file});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.training.inferenceWeights, InferenceWeights::MXFP4);
        o = parse({"--json", "--mode", "inference", "--hf-config", file, "--weights", "bf16"});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.training.inferenceWeights, InferenceWeights::BF16);
    }

    // Issue 30 §2: a framework profile fills what is unset and never overrides an explicit option; --json echoes the
    // loss and allocator setting the figures assume and who chose them.
    void frameworkProfileNeverOverridesExplicitOptions()
    {
        CliOutcome o = parse({"--json", "--framework", "torchtitan"});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.framework, std::optional<Framework>(Framework::Torchtitan));
        QVERIFY(!o.request.scenario.training.loss);
        QCOMPARE(effectiveLoss(o.request.scenario), std::optional<LossKind>(LossKind::ChunkedBackward));
        QVERIFY(effectiveExpandableSegments(o.request.scenario));

        o = parse({"--json", "--framework", "torchtitan", "--loss", "chunked", "--expandable-segments", "off"});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(effectiveLoss(o.request.scenario), std::optional<LossKind>(LossKind::Chunked));
        QVERIFY(!effectiveExpandableSegments(o.request.scenario));

        // Llama 2 7B, s = 4096, b = 1, bf16: torchtune's chunked loss is 131,072,000 logits · 5.25 B = 688,128,000 B,
        // and the trained head's second V·h gradient while the chunks' are summed, 32,000 · 4,096 · 2 B =
        // 262,144,000 B: 950,272,000 B; its expandable segments reserve 22 MiB = 23,068,672 B.
        const nlohmann::json j = runJson({"--json", "--preset", "llama2-7b", "--seq", "4096", "--batch", "1",
                                          "--precision", "bf16-mixed", "--framework", "torchtune"});
        QCOMPARE(j["recipe"]["loss"].get<std::string>(), std::string("chunked"));
        QCOMPARE(j["recipe"]["loss_set_by"].get<std::string>(), std::string("framework"));
        QCOMPARE(j["recipe"]["expandable_segments"].get<bool>(), true);
        QCOMPARE(j["per_gpu_bytes"]["logits"].get<double>(), 950272000.0);
        QCOMPARE(j["per_gpu_bytes"]["fragmentation"].get<double>(), 23068672.0);
        QCOMPARE(j["peak_reserved_bytes"].get<double>() - j["peak_allocated_bytes"].get<double>(), 23068672.0);
        const nlohmann::json e = runJson({"--json", "--preset", "llama2-7b", "--loss", "eager"});
        QCOMPARE(e["recipe"]["loss"].get<std::string>(), std::string("eager"));
        QCOMPARE(e["recipe"]["loss_set_by"].get<std::string>(), std::string("scenario"));
        QCOMPARE(e["scenario"]["training"]["loss"].get<std::string>(), std::string("eager"));
        // torchtitan compiles its loss with the model: the eager loss at 2e = 4 B per logit, 131,072,000 · 4 =
        // 524,288,000 B; --compile-loss off keeps it eager, 12 B: 1,572,864,000 B.
        const QStringList titan{"--json",     "--preset",    "llama2-7b",  "--seq",     "4096",
                                "--batch",    "1",           "--loss",     "eager",     "--precision",
                                "bf16-mixed", "--framework", "torchtitan", "--compile", "on"};
        const nlohmann::json c = runJson(titan);
        QCOMPARE(c["recipe"]["compile_loss"].get<bool>(), true);
        QCOMPARE(c["per_gpu_bytes"]["logits"].get<double>(), 524288000.0);
        const nlohmann::json u = runJson(titan + QStringList{"--compile-loss", "off"});
        QCOMPARE(u["recipe"]["compile_loss"].get<bool>(), false);
        QCOMPARE(u["scenario"]["training"]["compile_loss"].get<bool>(), false);
        QCOMPARE(u["per_gpu_bytes"]["logits"].get<double>(), 1572864000.0);
    }

    // Issue 30 §2: a PEFT module list is counted exactly. Llama 2 7B, q_proj and v_proj at r = 8:
    // 32 · 8 · (8192 + 8192) = 4,194,304 trainable parameters.
    void loraModuleList()
    {
        const CliOutcome o =
            parse({"--json", "--preset", "llama2-7b", "--finetune", "lora", "--lora-targets", "q_proj,v_proj"});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.training.loraModules, uint32_t(kLoraQ | kLoraV));
        const nlohmann::json j = runJson({"--json", "--preset", "llama2-7b", "--finetune", "lora", "--lora-rank", "8",
                                          "--lora-targets", "q_proj,v_proj"});
        QCOMPARE(j["params"]["trainable"].get<int64_t>(), int64_t(4194304));
        QCOMPARE(j["recipe"]["lora_targets"].get<std::string>(), std::string("q_proj,v_proj"));
        QCOMPARE(j["scenario"]["training"]["lora_targets"].get<std::string>(), std::string("q_proj,v_proj"));
    }

    void sizeOverrideReplacesArchitecture()
    {
        const CliOutcome o = parse({"--json", "--preset", "llama3-70b", "--params", "2.4T", "--active-params", "95B"});
        QVERIFY2(o.ok, qPrintable(o.error));
        QVERIFY(!o.request.scenario.model.hasArchitecture);
        QCOMPARE(o.request.scenario.model.params, qint64(2'400'000'000'000));
        QCOMPARE(o.request.scenario.model.activeParams, qint64(95'000'000'000));
        const Breakdown b = account(o.request.scenario, *m_lib.gpus().find("H100"));
        QCOMPARE(b.modelStateBytes, 38.4e12);
    }

    void defaultPresetIsTheChapters7B()
    {
        const CliOutcome o = parse({"--json"});
        QVERIFY(o.ok);
        QCOMPARE(QString::fromStdString(o.request.scenario.id), QStringLiteral("chapter-7b"));
        QCOMPARE(o.request.scenarioGiven, false); // the window would restore the remembered state
        QVERIFY(parse({"--seq", "8k"}).request.scenarioGiven);
        QVERIFY(parse({"--preset", "gpt2-small"}).request.scenarioGiven);
    }

    // Issue 29 §3: --weights mxfp4 on gpt-oss-120b is the checkpoint as it ships (experts in MXFP4, the rest bf16):
    // 114,661,785,600 expert weights · 4.25/8 + 2,167,371,072 others · 2 = 65,248,815,744 B (60.77 GiB; the model
    // card's Table 1: 60.8 GiB); bytes_per_param the average over all 116,829,156,672. nvfp4 on Llama 3 8B:
    // 6,979,321,856 linears · 4.5/8 + 4 B · 224 tensors + 1,050,939,392 others · 2 = 6,027,748,224 B
    // (tests/core/memory/tst_serving.cpp). A GPU without a public price gives a null price and cost, never $0.
    void servingFormatsAndUnknownPrices()
    {
        const nlohmann::json oss =
            runJson({"--json", "--preset", "gpt-oss-120b", "--mode", "inference", "--weights", "mxfp4", "--seq", "8k"});
        QCOMPARE(oss["per_gpu_bytes"]["weights"].get<double>(), 65248815744.0);
        QCOMPARE(oss["bytes_per_param"].get<double>(), 65248815744.0 / 116829156672.0);
        QVERIFY(oss["fits"].get<bool>());
        const nlohmann::json llama = runJson({"--json", "--preset", "llama3-8b", "--mode", "inference", "--weights",
                                              "nvfp4", "--gpu", "B300", "--price", "0"});
        QCOMPARE(llama["per_gpu_bytes"]["weights"].get<double>(), 6027748224.0);
        QVERIFY(llama["gpu"]["price_per_hour"].is_null());
        QVERIFY(llama["cost"]["cost_usd"].is_null());
        QVERIFY(llama["cost"]["price_per_gpu_hour"].is_null());
    }

    void badArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("negative context")
            << QStringList{"--json", "--seq", "-4"} << "--seq: must be a positive integer, got -4";
        QTest::newRow("context that is not a number")
            << QStringList{"--json", "--seq", "long"}
            << "--seq: must be a whole number such as 8192, 7B or 2.4T, got \"long\"";
        QTest::newRow("context above 16M")
            << QStringList{"--json", "--seq", "1e9"} << "--seq: must be between 1 and 16777216, got 1e9";
        QTest::newRow("unknown weight format lists the five")
            << QStringList{"--json", "--weights", "fp3"}
            << "--weights: must be one of bf16|int8|int4|mxfp4|nvfp4, got \"fp3\"";
        QTest::newRow("unknown precision")
            << QStringList{"--json", "--precision", "fp7"}
            << "--precision: must be one of fp32|bf16-mixed|fp16-mixed|bf16|fp8-mixed, got \"fp7\"";
        QTest::newRow("unknown optimizer")
            << QStringList{"--json", "--optimizer", "adagrad"}
            << "--optimizer: must be one of "
               "adamw|adam|sgd|sgd-momentum|lion|adafactor|adam8bit|muon|paged-adamw8bit|paged-adamw, got \"adagrad\"";
        QTest::newRow("unknown checkpointing")
            << QStringList{"--json", "--checkpointing", "some"}
            << "--checkpointing: must be one of none|selective|full|per-op, got \"some\"";
        QTest::newRow("unknown mode") << QStringList{"--json", "--mode", "serving"}
                                      << "--mode: must be one of training|inference, got \"serving\"";
        QTest::newRow("ZeRO stage 5") << QStringList{"--json", "--zero", "5"}
                                      << "--zero: must be between 0 and 3, got 5";
        QTest::newRow("zero GPUs") << QStringList{"--json", "--gpus", "0"}
                                   << "--gpus: must be between 1 and 10000000, got 0";
        QTest::newRow("GPUs not a multiple of tp") << QStringList{"--json", "--gpus", "6", "--tp", "4"}
                                                   << "--gpus (/hardware/gpus): must be a multiple of tp·pp (4), got 6";
        // Issue 13: a layout no framework can run is refused, naming the option and the numbers
        // (presets/mixtral-8x7b.json has 8 experts, presets/llama3-8b.json 32 layers).
        QTest::newRow("ep above the experts")
            << QStringList{"--json", "--preset", "mixtral-8x7b", "--gpus", "64", "--ep", "16"}
            << "--ep (/hardware/ep): must divide the model's 8 experts, got 16";
        QTest::newRow("pp above the layers")
            << QStringList{"--json", "--preset", "llama3-8b", "--gpus", "64", "--pp", "64"}
            << "--pp (/hardware/pp): must not exceed the model's 32 layers (a pipeline stage holds at least one), got "
               "64";
        // dp = 64/8 = 8 with --batch 2: a global batch must be a multiple of 2 · 8 = 16.
        QTest::newRow("global batch that does not divide")
            << QStringList{"--json", "--preset", "llama2-7b", "--gpus",         "64", "--pp",
                           "8",      "--batch",  "2",         "--global-batch", "100"}
            << "--global-batch: must be a multiple of micro_batch × data parallel = 2 × 8 = 16, got 100";
        QTest::newRow("grad-accum and global-batch together")
            << QStringList{"--json", "--grad-accum", "4", "--global-batch", "64"}
            << "--grad-accum and --global-batch: give one or the other";
        QTest::newRow("etp on a dense model")
            << QStringList{"--json", "--preset", "llama3-8b", "--gpus", "8", "--etp", "2"}
            << "--etp (/hardware/expert_tensor_parallel): must not be set: the model has no mixture-of-experts layers, "
               "got 2";
        QTest::newRow("vpp without a pipeline") << QStringList{"--json", "--preset", "llama3-8b", "--vpp", "2"}
                                                << "--vpp (/hardware/vpp): must be 1 without pipeline parallelism (pp "
                                                   "1): the interleaved schedule splits pipeline stages, got 2";
        QTest::newRow("unknown GPU lists the catalog") << QStringList{"--json", "--gpu", "H900"}
                                                       << "--gpu: unknown GPU \"H900\" (known: H100, H800, H200, B200, "
                                                          "A100-40GB, A100-80GB, MI300X, RTX4090, L40S, B300, GB200, "
                                                          "GB300, MI325X, MI355X, RTX5090, RTXPRO6000, L4, V100-16GB, "
                                                          "V100-32GB, RTX3090, Gaudi3, A10G, RTX6000Ada)";
        QTest::newRow("unknown preset")
            << QStringList{"--json", "--preset", "gpt5"}
            << "--preset: unknown preset \"gpt5\" (known: chapter-70b, chapter-7b, deepseek-v3, gpt-oss-120b, "
               "gpt2-small, gpt3-175b, kimi-k2, llama2-7b, llama3-70b, llama3-8b, llama3.1-405b, llama4-maverick, "
               "mixtral-8x7b, nemotron-3-nano-30b-a3b, nemotron-3-super-120b-a12b, qwen3-next-80b-a3b, qwen3.8-book)";
        QTest::newRow("active above total") << QStringList{"--json", "--params", "7B", "--active-params", "8B"}
                                            << "--active-params: must not exceed the total parameters (7B), got 8B";
        QTest::newRow("missing value") << QStringList{"--json", "--seq"} << "Missing value after '--seq'.";
        QTest::newRow("unknown option") << QStringList{"--jsno"} << "Unknown option 'jsno'.";
        QTest::newRow("stray argument") << QStringList{"70b"} << "unexpected argument \"70b\"";
        QTest::newRow("both preset and scenario") << QStringList{"--preset", "gpt2-small", "--scenario", "x.json"}
                                                  << "--preset and --scenario: give one or the other";
        QTest::newRow("bad flash value") << QStringList{"--json", "--flash", "maybe"}
                                         << "--flash: must be on or off, got \"maybe\"";
        QTest::newRow("bad chart")
            << QStringList{"--export-png", "x.png", "--chart", "pie"}
            << "--chart: must be bars, seq, dashboard, peers, ranks, fitmap or timeline, got \"pie\"";
        QTest::newRow("Megatron flag with a bad value")
            << QStringList{"--json", "--megatron-args", "--num-layers x --hidden-size 4096"}
            << "--megatron-args: --num-layers: must be an integer, got \"x\"";
        QTest::newRow("Megatron launch without a vocabulary")
            << QStringList{"--json", "--megatron-args",
                           "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128"}
            << "--megatron-args: --vocab-size: missing: Megatron-LM reads it from the tokenizer; add --vocab-size N "
               "(e.g. 128256 for Llama 3, 32000 for Llama 2)";
        QTest::newRow("Megatron file that cannot be read")
            << QStringList{"--json", "--megatron-args", "@/nonexistent/launch.sh"}
            << "--megatron-args: /nonexistent/launch.sh: cannot be read: No such file or directory";
        QTest::newRow("tiny export") << QStringList{"--export-png", "x.png", "--width", "10"}
                                     << "--width: must be 200 to 16384 pixels, got \"10\"";
        QTest::newRow("absurd scale") << QStringList{"--export-png", "x.png", "--scale", "100"}
                                      << "--scale: must be 0.25 to 8, got \"100\"";
        // Issue 33 §6: 4096² at scale 8 took 58 s and 4.2 GB; a 16384² fit map 1 GB.
        QTest::newRow("an export over 67 megapixels")
            << QStringList{"--export-png", "x.png", "--width", "4096", "--height", "4096", "--scale", "8"}
            << "--scale: 4096×4096 at scale 8 is 32768 × 32768 pixels; an export is at most 32768 pixels a side and "
               "67 megapixels in all (8192 × 8192, 256 MiB of image memory)";
        QTest::newRow("a 16384² fit map")
            << QStringList{"--export-png", "x.png", "--chart", "fitmap", "--width", "16384", "--height", "16384"}
            << "--scale: 16384×16384 at scale 1 is 16384 × 16384 pixels; an export is at most 32768 pixels a side and "
               "67 megapixels in all (8192 × 8192, 256 MiB of image memory)";
        QTest::newRow("LoRA rank 0") << QStringList{"--json", "--finetune", "lora", "--lora-rank", "0"}
                                     << "--lora-rank: must be between 1 and 4096, got 0";
        QTest::newRow("unknown fine-tuning method") << QStringList{"--json", "--finetune", "dora"}
                                                    << "--finetune: must be one of full|lora|qlora, got \"dora\"";
        QTest::newRow("unknown LoRA target") << QStringList{"--json", "--finetune", "lora", "--lora-targets", "mlp"}
                                             << "--lora-targets: must be attn, all or a list of modules such as "
                                                "q_proj,v_proj: unknown module \"mlp\" (known: "
                                                "q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj|q_a_proj|q_b_"
                                                "proj|kv_a_proj_with_mqa|kv_b_proj|in_proj_qkvz|in_proj_ba|out_proj|"
                                                "in_proj|fc1_latent_proj|fc2_latent_proj)";
        QTest::newRow("unknown module in a LoRA list")
            << QStringList{"--json", "--finetune", "lora", "--lora-targets", "q_proj,query"}
            << "--lora-targets: must be attn, all or a list of modules such as q_proj,v_proj: unknown module \"query\" "
               "(known: "
               "q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj|q_a_proj|q_b_proj|kv_a_proj_with_mqa|kv_b_"
               "proj|in_proj_qkvz|in_proj_ba|out_proj|in_proj|fc1_latent_proj|fc2_latent_proj)";
        // Issue 30, bad input: options that contradict each other are refused with both named.
        QTest::newRow("a loss while serving") << QStringList{"--json", "--mode", "inference", "--loss", "eager"}
                                              << "--loss eager and --mode inference: serving computes no loss; give "
                                                 "--mode training or leave out --loss";
        QTest::newRow("unknown loss")
            << QStringList{"--json", "--loss", "liger"}
            << "--loss: must be one of "
               "eager|chunked|fused|vocab-parallel|chunked-16bit|loss-parallel|chunked-backward, "
               "got \"liger\"";
        QTest::newRow("unknown framework")
            << QStringList{"--json", "--framework", "jax"}
            << "--framework: must be one of megatron|deepspeed|torchtitan|torchtune|hf|litgpt, got \"jax\"";
        QTest::newRow("unknown FSDP root") << QStringList{"--json", "--fsdp-root", "root"}
                                           << "--fsdp-root: must be one of none|head|embeddings+head, got \"root\"";
        QTest::newRow("FSDP2 root with FSDP1's flat wrap")
            << QStringList{"--json", "--mode", "training", "--fsdp-root", "head", "--fsdp-flat-wrap", "on"}
            << "--fsdp-root (/hardware/fsdp_root): cannot be head with fsdp_flat_wrap on: fsdp_root is what an FSDP2 "
               "(fully_shard) wrap keeps gathered, fsdp_flat_wrap is FSDP1's, whose root unit is already counted; set "
               "fsdp_root to none or fsdp_flat_wrap off";
        QTest::newRow("bad expandable-segments value") << QStringList{"--json", "--expandable-segments", "yes"}
                                                       << "--expandable-segments: must be on or off, got \"yes\"";
        QTest::newRow("bad qlora-double-quant value") << QStringList{"--json", "--qlora-double-quant", "maybe"}
                                                      << "--qlora-double-quant: must be on or off, got \"maybe\"";
        QTest::newRow("unknown QLoRA base") << QStringList{"--json", "--finetune", "qlora", "--qlora-base", "fp8"}
                                            << "--qlora-base: must be one of nf4|mxfp4|nvfp4, got \"fp8\"";
        QTest::newRow("QLoRA base without QLoRA")
            << QStringList{"--json", "--mode", "training", "--qlora-base", "nvfp4"}
            << "--qlora-base (/training/qlora_base): is nvfp4: a QLoRA base's format applies only with finetune qlora";
        QTest::newRow("LitGPT's held batch without its profile")
            << QStringList{"--json", "--finetune", "qlora", "--litgpt-held-batch", "off"}
            << "--litgpt-held-batch: applies only with --framework litgpt";
        QTest::newRow("LitGPT's norm without its profile")
            << QStringList{"--json", "--finetune", "lora", "--litgpt-fp32-norm", "off"}
            << "--litgpt-fp32-norm: applies only with --framework litgpt";
        QTest::newRow("LoRA while serving")
            << QStringList{"--json", "--mode", "inference", "--finetune", "qlora"}
            << "--finetune: qlora applies to training; serving reads the merged weights (add --mode training)";
        QTest::newRow("LoRA rank on a full fine-tune")
            << QStringList{"--json", "--lora-rank", "8"} << "--lora-rank: applies only with --finetune lora or qlora";
        QTest::newRow("bad MFU") << QStringList{"--json", "--mfu", "1.5"}
                                 << "--mfu: must be a number between 1e-06 and 1, got \"1.5\"";
        // Issue 33 §4: nothing is silently read as something else.
        QTest::newRow("a space inside a count is not 88")
            << QStringList{"--json", "--gpus", "8 8"}
            << "--gpus: must be a whole number such as 8192, 7B or 2.4T, got \"8 8\"";
        QTest::newRow("hexadecimal is not 16")
            << QStringList{"--json", "--params", "0x10"}
            << "--params: must be a whole number such as 8192, 7B or 2.4T, got \"0x10\"";
        QTest::newRow("a ZeRO stage of 1e-9 is not 0")
            << QStringList{"--json", "--zero", "1e-9"}
            << "--zero: must be a whole number such as 8192, 7B or 2.4T, got \"1e-9\"";
        QTest::newRow("1e-9 tokens is not 0")
            << QStringList{"--json", "--tokens", "1e-9"}
            << "--tokens: must be a whole number such as 8192, 7B or 2.4T, got \"1e-9\"";
        // Issue 33 §8: a number too large names the limit.
        QTest::newRow("too many GPUs names the limit")
            << QStringList{"--json", "--gpus", "1e30"} << "--gpus: must be between 1 and 10000000, got 1e30";
        // Issue 33 §1: tp·pp·cp of 2^66 wrapped to 0 and was divided by (SIGFPE).
        QTest::newRow("tp·pp·cp beyond the GPUs with a global batch")
            << QStringList{"--json", "--tp", "4194304", "--pp", "4194304", "--cp", "4194304", "--global-batch", "8"}
            << "--global-batch: needs gpus to be a multiple of tp·pp·cp = 4194304·4194304·4194304, which exceeds the "
               "GPU count (1)";
    }
    void badArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        const CliOutcome o = parse(args);
        QVERIFY(!o.ok);
        QCOMPARE(o.error, error);
    }

    // Issue 33 §2 and §3, on files this test makes (never on /dev): a pipe, a link to one and a device node are
    // refused by every reader with a clear message, at once (a pipe used to wait for a writer forever, a device to
    // be read until memory ran out), and no export or save replaces them.
    void specialFilesAreRefused()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("pipe.json"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        const QString link = dir.filePath(QStringLiteral("link.json"));
        QVERIFY(QFile::link(fifo, link));
        QStringList specials{fifo, link};
        // A character device with /dev/zero's numbers, where the test may make one (as root, as CI runs).
        const QString device = dir.filePath(QStringLiteral("zero.json"));
        if (::mknod(QFile::encodeName(device).constData(), S_IFCHR | 0600, makedev(1, 5)) == 0)
            specials << device;
        for (const QString& path : specials) {
            for (const QStringList& args :
                 {QStringList{"--json", "--scenario", path}, QStringList{"--json", "--hf-config", path},
                  QStringList{"--json", "--megatron-args", QLatin1Char('@') + path}}) {
                QProcess p;
                p.start(QStringLiteral(TRAINMEM_EXE), args);
                const bool finished = p.waitForFinished(20000);
                if (!finished)
                    p.kill();
                QVERIFY2(finished, qPrintable(args.join(' ') + QStringLiteral(": still running after 20 s")));
                QCOMPARE(p.exitCode(), 2);
                const QString err = QString::fromUtf8(p.readAllStandardError());
                QVERIFY2(err.contains(QStringLiteral("is not a regular file")),
                         qPrintable(args.join(' ') + ": " + err));
            }
            // Export: refused, and the target keeps its kind.
            QProcess p;
            p.start(QStringLiteral(TRAINMEM_EXE), {"--export-png", path, "--width", "400", "--height", "300"});
            QVERIFY(p.waitForFinished(30000));
            QVERIFY(p.exitCode() != 0);
            QVERIFY2(p.readAllStandardError().contains("is not a regular file"), qPrintable(path));
            struct stat st {
            };
            QVERIFY(::lstat(QFile::encodeName(path).constData(), &st) == 0);
            QVERIFY2(!S_ISREG(st.st_mode), qPrintable(path + QStringLiteral(" was replaced by a regular file")));
        }
        // A user preset that is a link to a pipe is listed as an error, and the library loads without it.
        QDir(dir.path()).mkdir(QStringLiteral("presets"));
        QVERIFY(QFile::link(fifo, dir.filePath(QStringLiteral("presets/stuck.json"))));
        PresetLibrary lib;
        lib.load(dir.filePath(QStringLiteral("presets")));
        QCOMPARE(lib.presets().size(), size_t(17));
        QCOMPARE(lib.errors().size(), qsizetype(1));
        QVERIFY2(lib.errors().front().contains(QStringLiteral("stuck.json: is not a regular file")),
                 qPrintable(lib.errors().front()));
        // The shared reader refuses the pipe without opening it (opening one waits for a writer).
        QByteArray bytes;
        QVERIFY(readUserFile(fifo, "a scenario", bytes).has_value());
        QVERIFY(bytes.isEmpty());
    }

    // Issue 33 §7: a scenario file's unknown GPU is refused as --gpu refuses one (it warned and drew an H100), and
    // a bad user preset that a built-in stands in for is named on stderr, not skipped without a word.
    void unknownGpuAndSkippedUserPresetsAreNamed()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("unknown-gpu.json"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "hardware": {"gpu": "h999"}})");
        f.close();
        const CliOutcome refused = parse({"--json", "--scenario", file});
        QVERIFY(!refused.ok);
        QVERIFY2(refused.error.startsWith(file + QStringLiteral(": /hardware/gpu: unknown GPU \"h999\" (known: ")),
                 qPrintable(refused.error));
        QVERIFY2(refused.error.contains(QStringLiteral("H100")), qPrintable(refused.error));
        // --gpu replaces the file's GPU, so the file is read.
        const CliOutcome replaced = parse({"--json", "--scenario", file, "--gpu", "a100-80gb"});
        QVERIFY2(replaced.ok, qPrintable(replaced.error));
        QCOMPARE(replaced.request.scenario.hardware.gpu, std::string("A100-80GB"));

        // A user preset overriding chapter-7b that does not load: the built-in is used and the run says so.
        QDir(dir.path()).mkdir(QStringLiteral("presets"));
        QFile bad(dir.filePath(QStringLiteral("presets/chapter-7b.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "training": {"seq_len": -4}})");
        bad.close();
        PresetLibrary lib;
        lib.load(dir.filePath(QStringLiteral("presets")));
        const CliOutcome o = parseCommandLine({"trainmem", "--json", "--preset", "chapter-7b"}, lib);
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.training.seqLen, lib.find(QStringLiteral("chapter-7b"))->scenario.training.seqLen);
        QCOMPARE(o.request.warnings.size(), qsizetype(1));
        QVERIFY2(o.request.warnings.front().startsWith(QStringLiteral("the user preset chapter-7b was skipped (")),
                 qPrintable(o.request.warnings.front()));
        QVERIFY2(o.request.warnings.front().contains(QStringLiteral("/training/seq_len")),
                 qPrintable(o.request.warnings.front()));
    }

    // Issue 33 §8: words that say what is wrong. An empty --scenario printed Qt's own warning first; an export over
    // an existing file whose folder takes no new file (/proc/version) said "No such file or directory".
    void clearerWords()
    {
        QProcess empty;
        empty.start(QStringLiteral(TRAINMEM_EXE), {"--json", "--scenario", ""});
        QVERIFY(empty.waitForFinished(30000));
        QCOMPARE(empty.exitCode(), 2);
        const QString err = QString::fromUtf8(empty.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("trainmem: no file name given; give a scenario file\n")), qPrintable(err));
        QVERIFY2(!err.contains(QStringLiteral("QFSFileEngine")), qPrintable(err));
        if (QFileInfo(QStringLiteral("/proc/version")).isFile()) {
            QProcess proc;
            proc.start(QStringLiteral(TRAINMEM_EXE),
                       {"--export-png", "/proc/version", "--width", "400", "--height", "300"});
            QVERIFY(proc.waitForFinished(30000));
            QVERIFY(proc.exitCode() != 0);
            const QString e = QString::fromUtf8(proc.readAllStandardError());
            QVERIFY2(e.contains(QStringLiteral("/proc/version: cannot be replaced: a new file is written beside it and "
                                               "renamed over it, and its folder /proc refused that")),
                     qPrintable(e));
        }
    }

    void sequenceAndContextParallel()
    {
        // Issue 9 §4: --sp and --cp reach the scenario, and --json reports the layout used.
        const CliOutcome o = parse({"--json", "--preset", "llama3-70b", "--seq", "32k", "--gpus", "128", "--tp", "8",
                                    "--cp", "4", "--sp", "off"});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.hardware.cp, int64_t(4));
        QVERIFY(!o.request.scenario.training.sequenceParallel);
        const nlohmann::json j = runJson({"--json", "--preset", "llama3-70b", "--seq", "32k", "--gpus", "128", "--tp",
                                          "8", "--cp", "4", "--sp", "on"});
        QCOMPARE(j["parallel"]["cp"].get<int64_t>(), int64_t(4));
        QCOMPARE(j["parallel"]["data_parallel"].get<int64_t>(), int64_t(4)); // 128 = 8 · 1 · 4 · 4
        QCOMPARE(j["parallel"]["sequence_parallel"].get<bool>(), true);
        QVERIFY(j["communication_bytes_per_step"]["context_parallel"].get<double>() > 0);
    }

    void sequenceAndContextParallelBadArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("sequence parallel without tensor parallel")
            << QStringList{"--json", "--sp", "on"}
            << "--sp: on needs tensor parallelism: it splits the norms' and dropout's activations across the --tp "
               "ranks, and tp is 1 (add --tp 2 or more)";
        QTest::newRow("bad sp value") << QStringList{"--json", "--sp", "maybe"}
                                      << "--sp: must be on or off, got \"maybe\"";
        QTest::newRow("cp not dividing the GPUs") << QStringList{"--json", "--gpus", "8", "--cp", "3"}
                                                  << "--cp (/hardware/context_parallel): must divide gpus/(tp·pp) = "
                                                     "8/1 = 8 (the GPUs are tp·pp·cp·dp), got 3";
        QTest::newRow("2·cp not dividing the context")
            << QStringList{"--json", "--gpus", "8", "--cp", "4", "--seq", "12"}
            << "--cp (/hardware/context_parallel): 2·cp = 8 must divide the sequence length 12 (Megatron-LM cuts each "
               "sequence into 2·cp load-balanced chunks), got 4";
        QTest::newRow("cp 0") << QStringList{"--json", "--cp", "0"} << "--cp: must be between 1 and 10000000, got 0";
    }
    void sequenceAndContextParallelBadArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        const CliOutcome o = parse(args);
        QVERIFY(!o.ok);
        QCOMPARE(o.error, error);
    }

    void offloadBadArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown offload") << QStringList{"--json", "--offload", "nvme"}
                                         << "--offload: must be one of none|optimizer|optimizer+params, got \"nvme\"";
        // DeepSpeed offloads parameters only with ZeRO stage 3, and the optimizer only with ZeRO.
        QTest::newRow("parameter offload at ZeRO-2")
            << QStringList{"--json", "--gpus", "8", "--zero", "2", "--offload", "optimizer+params"}
            << "--offload (/hardware/offload): optimizer+params needs ZeRO stage 3 (DeepSpeed offloads parameters "
               "only with stage 3), got zero_stage 2";
        QTest::newRow("optimizer offload without ZeRO")
            << QStringList{"--json", "--zero", "0", "--offload", "optimizer"}
            << "--offload (/hardware/offload): optimizer needs ZeRO stage 1, 2 or 3 (DeepSpeed's optimizer offload "
               "partitions the optimizer state over the data-parallel ranks), got zero_stage 0";
        // Inside FSDP1's no_sync() the gradients stay on the GPU until the sync, which TrainMem does not model.
        QTest::newRow("no_sync with an offload")
            << QStringList{"--json",           "--gpus",         "2", "--zero", "3", "--offload",
                           "optimizer+params", "--fsdp-no-sync", "on"}
            << "--fsdp-no-sync (/hardware/fsdp_no_sync): cannot be on with offload optimizer+params: inside no_sync() "
               "FSDP1 keeps the gradients on the GPU until the sync, which TrainMem does not model; turn fsdp_no_sync "
               "or the offload off";
        QTest::newRow("no_sync neither on nor off")
            << QStringList{"--json", "--fsdp-no-sync", "maybe"} << "--fsdp-no-sync: must be on or off, got \"maybe\"";
        QTest::newRow("no GPUs per node")
            << QStringList{"--json", "--gpus-per-node", "0"} << "--gpus-per-node: must be between 1 and 1024, got 0";
    }
    void offloadBadArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        const CliOutcome o = parse(args);
        QVERIFY(!o.ok);
        QCOMPARE(o.error, error);
    }

    void offloadJsonHasHostBytesPerNode()
    {
        // The chapter's 7B on 8 GPUs, ZeRO-2 with optimizer offload (tests/core/memory/tst_offload.cpp derives it):
        // 14 GB of bf16 weights stay on each GPU; the node's host holds fp32 gradients 28 GB, master 28 GB, Adam 56 GB.
        const nlohmann::json j =
            runJson({"--json", "--preset", "chapter-7b", "--gpus", "8", "--zero", "2", "--offload", "optimizer"});
        QCOMPARE(j["per_gpu_bytes"]["weights"].get<double>(), 14e9);
        QCOMPARE(j["per_gpu_bytes"]["optimizer"].get<double>(), 0.0);
        const nlohmann::json& host = j["per_node_host_bytes"];
        QCOMPARE(host["gradients"].get<double>(), 28e9);
        QCOMPARE(host["master_weights"].get<double>(), 28e9);
        QCOMPARE(host["optimizer"].get<double>(), 56e9);
        QCOMPARE(host["weights"].get<double>(), 0.0);
        QCOMPARE(host["total"].get<double>(), 112e9);
        QCOMPARE(j["scenario"]["hardware"]["offload"].get<std::string>(), std::string("optimizer"));
    }

    void exportFitMapWritesAPng()
    {
        // Issue 11 §3: `--chart fitmap` draws the fit map: Llama 2 7B's recipe on an H100, where 1B fits one GPU
        // (the map's green, 0x1a9850) and 7B at 4k needs 2 (the 2–8 band's 0xa6d96a).
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fitmap.png"));
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), {"--export-png", file, "--chart", "fitmap", "--preset", "llama2-7b",
                                               "--width", "1024", "--height", "700"});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QImage img(file);
        QCOMPARE(img.size(), QSize(1024, 700));
        bool one = false, node = false;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2) {
                const QRgb c = img.pixel(x, y) & 0xffffff;
                one = one || c == 0x1a9850;
                node = node || c == 0xa6d96a;
            }
        QVERIFY(one);
        QVERIFY(node);
        QVERIFY(parse({"--export-png", "x.png", "--chart", "fitmap"}).ok);
    }

    void timelineJsonHasPhasesAndThePeak()
    {
        // Issue 11 §1: `timeline` in --json. The chapter's 7B on one H100 without checkpointing peaks at the loss
        // with the per-GPU total; GPT-3 175B under full recomputation peaks in the backward of its last layer (the
        // rebuilt 2.87 GB tape passes the 0.62 GB of logits), and the logits, freed before it, are the difference.
        const nlohmann::json j = runJson({"--json", "--preset", "chapter-7b"});
        const nlohmann::json& t = j["timeline"];
        QCOMPARE(t["peak_bytes"].get<double>(), j["per_gpu_bytes"]["total"].get<double>());
        QCOMPARE(t["bars_total_bytes"].get<double>(), j["per_gpu_bytes"]["total"].get<double>());
        QCOMPARE(t["peak_at"].get<std::string>(), std::string("the loss (logits)"));
        QCOMPARE(t["at_peak_bytes"]["weights"].get<double>(), 14e9);
        QStringList kinds;
        for (const nlohmann::json& p : t["phases"])
            kinds << QString::fromStdString(p["kind"].get<std::string>());
        QCOMPARE(kinds, (QStringList{"forward", "loss", "backward", "optimizer"}));
        QCOMPARE(t["phases"][0]["start"].get<double>(), 0.0);
        QCOMPARE(t["phases"][3]["end"].get<double>(), t["duration"].get<double>());
        QVERIFY(t["differences"].empty());

        const nlohmann::json full = runJson({"--json", "--preset", "gpt3-175b", "--checkpointing", "full"})["timeline"];
        QCOMPARE(full["peak_at"].get<std::string>(), std::string("backward of layer 96"));
        QVERIFY(full["peak_bytes"].get<double>() < full["bars_total_bytes"].get<double>());
        bool logits = false;
        for (const nlohmann::json& d : full["differences"])
            logits = logits || (d["term"] == "logits" && d["at_peak_bytes"].get<double>() == 0.0);
        QVERIFY(logits);
    }

    void exportTimelineWritesAPng()
    {
        // Issue 11 §1: `--chart timeline` draws the film: the weights' and the activations' own colours fill it.
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("timeline.png"));
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), {"--export-png", file, "--chart", "timeline", "--preset", "chapter-7b",
                                               "--width", "1024", "--height", "700"});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QImage img(file);
        QCOMPARE(img.size(), QSize(1024, 700));
        int weights = 0, tape = 0;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2) {
                const QRgb c = img.pixel(x, y) & 0xffffff;
                weights += c == 0x4e79a7;
                tape += c == 0x59a14f;
            }
        QVERIFY(weights > 1000);
        QVERIFY(tape > 1000);
        QVERIFY(parse({"--export-png", "x.png", "--chart", "timeline"}).ok);
    }

    void exportTourWritesOneSlidePerStep()
    {
        // Issue 11 §4: one PNG per tour step, named by its number and id, at --width × --scale, and
        // index.md with each step's title, number and narration.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("deck"));
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE),
                {"--export-tour", out, "--width", "800", "--height", "500", "--scale", "1.5"});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const auto& tour = chapterTour();
        QVERIFY(p.readAllStandardOutput().contains(QByteArray::number(qlonglong(tour.size())) + " slides"));
        QFile index(QDir(out).filePath(QStringLiteral("index.md")));
        QVERIFY(index.open(QIODevice::ReadOnly));
        const QString md = QString::fromUtf8(index.readAll());
        QCOMPARE(QDir(out).entryList({QStringLiteral("*.png")}).size(), qsizetype(tour.size()));
        for (size_t i = 0; i < tour.size(); ++i) {
            const QString name = QString::fromStdString(tourSlideName(i, tour[i])) + QStringLiteral(".png");
            const QImage img(QDir(out).filePath(name));
            QVERIFY2(!img.isNull(), qPrintable(name));
            QCOMPARE(img.size(), QSize(1200, 750));
            QVERIFY2(md.contains(QString::fromStdString(tour[i].title)),
                     qPrintable(QString::fromStdString(tour[i].title)));
            QVERIFY(md.contains(QStringLiteral("](%1)").arg(name)));
        }
        QCOMPARE(QString::fromStdString(tourSlideName(0, tour[0])), QStringLiteral("01-7b-inference"));
        QVERIFY(md.contains(QStringLiteral("Model state (16 B per parameter): 112 GB"))); // the 7B training step
        QVERIFY(md.contains(QStringLiteral("So far: 28.0 GB"))); // weights + gradients of the 7B
        // Issue 31 §1: each slide's verdict line under its number, as the speaker's notes.
        // A build-up step's note speaks of what its bars show so far (14 GB of weights fit; the 112 GB of model state
        // at "+ Adam's two running averages" dies), not of the whole run (issue 31 §1).
        QCOMPARE(
            md.count(QRegularExpression(QStringLiteral("\n> (Fits|Dies|So far it fits|So far it already dies): "))),
            qsizetype(tour.size()));
        QVERIFY(md.contains(QStringLiteral("\n> Dies: 112 GB of model state is 1.4× one H100 (80.0 GB)")));
        QVERIFY(md.contains(QStringLiteral("\n> So far it fits: 14.0 GB on one H100 (80.0 GB, 18% used).")));
        QVERIFY(md.contains(QStringLiteral("\n> So far it already dies: 112 GB is 1.4× one H100 (80.0 GB).")));

        QCOMPARE(parse({"--export-tour", out, "--export-png", "x.png"}).error,
                 QStringLiteral("--export-tour: writes the tour's own slides; give it or --export-png, not both"));
        QCOMPARE(parse({"--export-tour", out, "--width", "50"}).error,
                 QStringLiteral("--width: must be 200 to 16384 pixels, got \"50\""));
        // A folder that cannot be made: a file is in the way.
        QFile blocker(dir.filePath(QStringLiteral("file")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        QProcess bad;
        bad.start(QStringLiteral(TRAINMEM_EXE), {"--export-tour", dir.filePath(QStringLiteral("file/deck"))});
        QVERIFY(bad.waitForFinished(30000));
        QCOMPARE(bad.exitCode(), 1);
        QVERIFY(bad.readAllStandardError().contains("the folder cannot be created"));
    }

    void badScenarioFileNamesFileAndPath()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"schema": "trainmem/scenario@1", "model": {"params": "7B"}, "training": {"seq_len": -4}})");
        f.close();
        const CliOutcome o = parse({"--json", "--scenario", path});
        QVERIFY(!o.ok);
        QCOMPARE(o.error, path + QStringLiteral(": /training/seq_len: must be a positive integer, got -4"));
        const CliOutcome missing = parse({"--json", "--scenario", dir.filePath(QStringLiteral("none.json"))});
        QVERIFY(!missing.ok);
        QVERIFY(
            missing.error.startsWith(dir.filePath(QStringLiteral("none.json")) + QStringLiteral(": cannot be read")));
    }

    // The issue's "done when": trainmem --json --preset llama3-70b --seq 8192.
    void jsonDocument()
    {
        const nlohmann::json j = runJson({"--json", "--preset", "llama3-70b", "--seq", "8192"});
        QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(70553706496));
        QCOMPARE(j["params"]["active"].get<int64_t>(), qint64(70553706496));
        QCOMPARE(j["bytes_per_param"].get<double>(), 16.0);
        QCOMPARE(j["model_state_bytes"].get<double>(), 70553706496.0 * 16);
        const auto& g = j["per_gpu_bytes"];
        for (const char* k : {"weights", "gradients", "master_weights", "optimizer", "activations", "logits",
                              "workspace", "overhead", "total"})
            QVERIFY2(g.contains(k) && g[k].is_number(), k);
        QCOMPARE(g["weights"].get<double>(), 70553706496.0 * 2);
        QCOMPARE(g["logits"].get<double>(), 8192.0 * 128256 * 6);
        double sum = 0;
        for (const char* k : {"weights", "gradients", "master_weights", "optimizer", "activations", "kv_cache",
                              "logits", "workspace", "overhead"})
            sum += g[k].get<double>();
        QVERIFY(std::abs(sum - g["total"].get<double>()) < 1);
        QCOMPARE(QString::fromStdString(j["gpu"]["name"].get<std::string>()), QStringLiteral("NVIDIA H100 SXM 80GB"));
        QCOMPARE(j["gpu"]["memory_bytes"].get<double>(), 80e9);
        QCOMPARE(j["fits"].get<bool>(), false);
        QCOMPARE(j["min_gpus_for_model_state"].get<int64_t>(), qint64(15));
        QCOMPARE(j["scenario"]["training"]["seq_len"].get<int64_t>(), qint64(8192));
        QCOMPARE(QString::fromStdString(j["scenario"]["id"].get<std::string>()), QStringLiteral("llama3-70b"));
    }

    // Issue 13: `parallel` is the layout used, with the busiest pipeline stage. Llama 2 7B on 8 stages
    // with 4 micro-batches per step (--global-batch 4 = micro-batch 1 · dp 1 · 4): the first stage
    // holds min(8, 4) = 4 tapes and the input embedding, and is the busiest (tst_layout derives it).
    void jsonReportsTheLayoutUsed()
    {
        for (const QStringList& m : {QStringList{"--grad-accum", "4"}, QStringList{"--global-batch", "4"}}) {
            const nlohmann::json j =
                runJson(QStringList{"--json", "--preset", "llama2-7b", "--gpus", "8", "--pp", "8"} + m);
            const auto& p = j["parallel"];
            QCOMPARE(p["gpus"].get<int64_t>(), qint64(8));
            QCOMPARE(p["tp"].get<int64_t>() * p["pp"].get<int64_t>() * p["data_parallel"].get<int64_t>(), qint64(8));
            QCOMPARE(p["micro_batches_per_step"].get<int64_t>(), qint64(4));
            QCOMPARE(QString::fromStdString(p["busiest_stage"].get<std::string>()), QStringLiteral("first"));
            QCOMPARE(p["stages"].size(), size_t(3));
            QCOMPARE(p["stages"][0]["micro_batches_in_flight"].get<double>(), 4.0);
            QCOMPARE(p["stages"][2]["micro_batches_in_flight"].get<double>(), 1.0);
            QCOMPARE(p["stages"][0]["total"].get<double>(), j["per_gpu_bytes"]["total"].get<double>());
        }
    }

    // Issue 10: --megatron-args makes the scenario and --json carries the peers' own numbers
    // (Llama-2 7B at tp 2 on 8 GPUs: tst_peers derives 30,324,068,352 and 8,021,622,784 by hand).
    void megatronArgsJson()
    {
        const nlohmann::json j = runJson(
            {"--json", "--megatron-args",
             "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 32 --hidden-size 4096 --ffn-hidden-size 11008 "
             "--num-attention-heads 32 --swiglu --normalization RMSNorm --untie-embeddings-and-output-weights "
             "--disable-bias-linear --position-embedding-type rope --vocab-size 32000 --seq-length 4096 "
             "--micro-batch-size 1 --global-batch-size 1024 --tensor-model-parallel-size 2 --sequence-parallel "
             "--recompute-activations --use-distributed-optimizer --bf16 --lr 3e-4"});
        QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(6738415616));
        QCOMPARE(j["scenario"]["hardware"]["tp"].get<int64_t>(), qint64(2));
        const auto& p = j["peers"];
        QCOMPARE(p["megatron"]["weight_and_optimizer_bytes"].get<double>(), 30324068352.0);
        QCOMPARE(p["megatron"]["activation_bytes"].get<double>(), 8021622784.0);
        QCOMPARE(p["deepspeed"]["zero2"]["gpu_bytes"].get<int64_t>(), qint64(28638266368));
        QCOMPARE(p["deepspeed"]["zero3"]["gpu_bytes"].get<int64_t>(), qint64(15685723136));
        QCOMPARE(p["ignored_flags"], nlohmann::json::array({"--lr 3e-4"}));
        int megatronTerms = 0;
        for (const auto& d : p["differences"]) {
            QVERIFY(!d["reason"].get<std::string>().empty());
            megatronTerms += d["peer"] == "megatron";
        }
        // weights, gradients, master, optimizer, activations, logits, workspace, framework, fragmentation
        QCOMPARE(megatronTerms, 9);
        // Without pasted flags the scenario itself is compared.
        const nlohmann::json k = runJson({"--json", "--preset", "llama3-8b"});
        QVERIFY(k["peers"]["megatron"]["available"].get<bool>());
    }

    // Issue 9 §2: PEFT's print_trainable_parameters for meta-llama/Llama-2-7b-hf at r = 16.
    void loraTrainableParameters()
    {
        const CliOutcome o = parse(
            {"--json", "--preset", "llama2-7b", "--finetune", "qlora", "--lora-rank", "32", "--lora-targets", "all"});
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.request.scenario.training.fineTune, FineTune::QLora);
        QCOMPARE(o.request.scenario.training.loraRank, qint64(32));
        QCOMPARE(o.request.scenario.training.loraTargets, LoraTargets::All);
        const nlohmann::json attn = runJson({"--json", "--preset", "llama2-7b", "--finetune", "lora"});
        QCOMPARE(attn["params"]["trainable"].get<int64_t>(), qint64(16777216));
        QCOMPARE(attn["per_gpu_bytes"]["adapters"].get<double>(), 16777216.0 * 16);
        QCOMPARE(attn["per_gpu_bytes"]["weights"].get<double>(), 6738415616.0 * 2);
        const nlohmann::json all =
            runJson({"--json", "--preset", "llama2-7b", "--finetune", "lora", "--lora-targets", "all"});
        QCOMPARE(all["params"]["trainable"].get<int64_t>(), qint64(39976960));
        const nlohmann::json full = runJson({"--json", "--preset", "llama2-7b"});
        QCOMPARE(full["params"]["trainable"].get<int64_t>(), qint64(6738415616));
    }

    void listings()
    {
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--list-gpus")});
        QVERIFY(p.waitForFinished(30000));
        const QString gpus = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY(gpus.contains(QStringLiteral("MI300X")));
        QVERIFY(gpus.contains(QStringLiteral("192 GB")));
        // One column each: every line's memory starts at the same place, the longest names included (GB200's,
        // the RTX PRO 6000's, the RTX 6000 Ada's ran the columns over).
        const QStringList lines = gpus.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() >= 23);
        const qsizetype bf16At = lines.front().indexOf(QStringLiteral("bf16"));
        for (const QString& line : lines)
            QVERIFY2(line.indexOf(QStringLiteral("bf16")) == bf16At, qPrintable(line));
        p.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--list-presets")});
        QVERIFY(p.waitForFinished(30000));
        const QString presets = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY(presets.contains(QStringLiteral("deepseek-v3")));
        QVERIFY(presets.contains(QStringLiteral("671B params, 37.6B active")));
        p.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--version")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(QString::fromUtf8(p.readAllStandardOutput()).trimmed(), QStringLiteral("trainmem " TRAINMEM_VERSION));
        p.start(QStringLiteral(TRAINMEM_EXE),
                {QStringLiteral("--seq"), QStringLiteral("-4"), QStringLiteral("--json")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        // Qt may warn first on machines without XDG_RUNTIME_DIR; the message is a line of its own.
        QVERIFY2(err.contains(QRegularExpression(
                     QStringLiteral("(^|\\n)trainmem: --seq: must be a positive integer, got -4\\n"))),
                 qPrintable(err));
        QVERIFY(err.contains(QStringLiteral("Usage:"))); // the help text follows the error
    }

    // Issue 9 §1: --hf-config takes a config.json or its folder and combines with the other options.
    void hfConfigCombinesWithOverrides()
    {
        const QString file = QStringLiteral(TRAINMEM_HF_DATA "/Qwen3-8B.json");
        const CliOutcome o =
            parse({"--json", "--preset", "llama3-70b", "--hf-config", file, "--seq", "32k", "--gpu", "H200"});
        QVERIFY2(o.ok, qPrintable(o.error));
        const Scenario& s = o.request.scenario;
        // Qwen3-8B: 8,190,735,360 parameters (tst_hfconfig derives it; the model card says 8.2B).
        QCOMPARE(s.model.params, qint64(8190735360));
        QCOMPARE(s.training.seqLen, qint64(32768));
        QCOMPARE(QString::fromStdString(s.hardware.gpu), QStringLiteral("H200"));
        QCOMPARE(QString::fromStdString(s.name), QStringLiteral("Qwen3-8B"));

        // A folder holding config.json names the model after the folder.
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("Llama-3.1-8B"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(QStringLiteral(TRAINMEM_HF_DATA "/Llama-3.1-8B.json"),
                            folder + QStringLiteral("/config.json")));
        const CliOutcome d = parse({"--json", "--hf-config", folder});
        QVERIFY2(d.ok, qPrintable(d.error));
        QCOMPARE(d.request.scenario.model.params, qint64(8030261248));
        QCOMPARE(QString::fromStdString(d.request.scenario.name), QStringLiteral("Llama-3.1-8B"));

        // End to end: the JSON document counts the imported model.
        const nlohmann::json j = runJson({QStringLiteral("--json"), QStringLiteral("--hf-config"), file});
        QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(8190735360));
        QCOMPARE(j["model_state_bytes"].get<double>(), 8190735360.0 * 16);
    }

    void hfConfigBadInputExits2()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"model_type": "bert", "hidden_size": 768})");
        f.close();
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--json"), QStringLiteral("--hf-config"), dir.path()});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(
                     path + QStringLiteral(
                                ": /model_type: unsupported model type \"bert\" (supported: llama, mistral, "
                                "mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text, "
                                "phi3, gpt2, gpt_neox, olmo2, deepseek_v2, deepseek_v3, kimi_k2, "
                                "deepseek_v32, gpt_oss, phi, smollm3, olmoe, starcoder2, seed_oss, cohere2, exaone4, "
                                "gpt_bigcode, llama4_text, glm4_moe, minimax_m2, granitemoe, falcon, qwen3_vl_text, "
                                "qwen3_vl_moe_text, qwen2_5_vl_text, qwen3_next, nemotron_h, qwen3_5_text, "
                                "qwen3_5_moe_text, glm_moe_dsa, gemma4_text, granitemoehybrid, llama4, qwen3_vl, "
                                "qwen3_vl_moe, qwen3_5, qwen3_5_moe, qwen2_5_vl, gemma3, mistral3, kimi_k25, gemma4)")),
                 qPrintable(err));
        const CliOutcome missing = parse({"--json", "--hf-config", dir.filePath(QStringLiteral("nothing"))});
        QVERIFY(!missing.ok);
        QVERIFY2(missing.error.startsWith(dir.filePath(QStringLiteral("nothing")) + QStringLiteral(": cannot be read")),
                 qPrintable(missing.error));
    }

    // Issue 29 §1: IBM's Granite 4.0 H (granitemoehybrid) from the command line, served at 128k tokens. The fields of
    // tst_hfconfig's Granite-4.0-H-Small row (IBM's model card; 32,207,337,984 parameters, 8,803,121,664 active, both
    // derived there); its 4 attention layers keep 2 · 4 · 8 · 128 · 131072 · 2 B of K and V, its 36 Mamba-2 layers
    // 36 · (128 · 64 · 128 · 4 B + 8448 · 4 · 2 B) of state (tst_layerkinds derives both).
    void hfConfigReadsGraniteHybrid()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QStringList kinds;
        for (int i = 0; i < 40; ++i)
            kinds << (i % 10 == 5 ? QStringLiteral("\"attention\"") : QStringLiteral("\"mamba\""));
        f.write(QStringLiteral(R"({"model_type": "granitemoehybrid", "hidden_size": 4096, "num_hidden_layers": 40,
            "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 768,
            "shared_intermediate_size": 1536, "num_local_experts": 72, "num_experts_per_tok": 10, "mamba_n_heads": 128,
            "mamba_d_state": 128, "vocab_size": 100352, "tie_word_embeddings": true, "layer_types": [%1]})")
                    .arg(kinds.join(QStringLiteral(", ")))
                    .toUtf8());
        f.close();
        const nlohmann::json j =
            runJson({QStringLiteral("--json"), QStringLiteral("--hf-config"), path, QStringLiteral("--mode"),
                     QStringLiteral("inference"), QStringLiteral("--seq"), QStringLiteral("128k")});
        QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(32207337984));
        QCOMPARE(j["params"]["active"].get<int64_t>(), qint64(8803121664));
        QCOMPARE(j["per_gpu_bytes"]["kv_cache"].get<double>(), 2147483648.0);
        QCOMPARE(j["per_gpu_bytes"]["recurrent_state"].get<double>(), 77930496.0); // the SSM state in 2 B
    }

    // Issue 29 §1: a 2026 family from the command line. gpt-oss-20b's real config.json (tests/data/hf): 20,914,757,184
    // parameters, 4,187,440,704 active (tst_hfconfig derives both; OpenAI: 20.91B total).
    void hfConfigReadsGptOss()
    {
        const nlohmann::json j = runJson({QStringLiteral("--json"), QStringLiteral("--hf-config"),
                                          QStringLiteral(TRAINMEM_HF_DATA "/gpt-oss-20b.json")});
        QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(20914757184));
        QCOMPARE(j["params"]["active"].get<int64_t>(), qint64(4187440704));
    }

    // Issue 29 §1: a multimodal wrapper from the command line. Qwen3-VL-8B's config.json (tests/data/hf): the language
    // model 8,190,735,360 and its vision tower and projector 576,388,336 apart (tst_hfconfig derives both). The tower's
    // weights are held in both modes at the bf16-mixed recipe's 2 B: 2·(8,190,735,360 + 576,388,336) = 17,534,247,392
    // B; full fine-tuning trains it (its gradients too, in the trainable count), LoRA freezes it.
    void hfConfigCountsTheVisionTowerApart()
    {
        for (const bool lora : {false, true}) {
            QStringList args{QStringLiteral("--json"), QStringLiteral("--hf-config"),
                             QStringLiteral(TRAINMEM_HF_DATA "/Qwen3-VL-8B-Instruct.json")};
            if (lora)
                args << QStringLiteral("--finetune") << QStringLiteral("lora");
            const nlohmann::json j = runJson(args);
            QCOMPARE(j["params"]["total"].get<int64_t>(), qint64(8190735360));
            QCOMPARE(j["params"]["vision"].get<int64_t>(), qint64(576388336));
            QCOMPARE(j["params"]["vision_trained"].get<bool>(), !lora);
            QCOMPARE(j["per_gpu_bytes"]["weights"].get<double>(), 17534247392.0);
            if (!lora) {
                QCOMPARE(j["params"]["trainable"].get<int64_t>(), qint64(8767123696));
                QCOMPARE(j["per_gpu_bytes"]["gradients"].get<double>(), 17534247392.0);
            } else {
                QCOMPARE(j["per_gpu_bytes"]["gradients"].get<double>(), 0.0);
            }
        }
    }

    // Issue 29, bad input: a layer_types list of the wrong length exits 2 with both numbers; an unknown layer
    // kind is named with its index; Python's Infinity in a field TrainMem does not read is accepted.
    void hfConfigLayerPatternsAndNonFiniteNumbers_data()
    {
        QTest::addColumn<QString>("extra");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("error");
        QTest::newRow("three layer kinds for four layers exit 2 with both numbers")
            << R"(, "layer_types": ["sliding_attention", "full_attention", "sliding_attention"])" << 2
            << ": /layer_types: has 3 entries for 4 layers (num_hidden_layers); it needs one a layer";
        QTest::newRow("an unknown kind exits 2 naming its index")
            << R"(, "layer_types": ["sliding_attention", "full_attention", "linear_attention", "full_attention"])" << 2
            << ": /layer_types/2: unknown layer kind \"linear_attention\" at layer 2 (known: sliding_attention, "
               "full_attention)";
        QTest::newRow("Infinity outside the fields read is accepted")
            << R"(, "time_step_limit": [0.0, Infinity])" << 0 << QString();
    }
    void hfConfigLayerPatternsAndNonFiniteNumbers()
    {
        QFETCH(QString, extra);
        QFETCH(int, exitCode);
        QFETCH(QString, error);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write((QStringLiteral(R"({"model_type": "gpt_oss", "num_hidden_layers": 4)") + extra + QStringLiteral("}"))
                    .toUtf8());
        f.close();
        QProcess p;
        p.start(QStringLiteral(TRAINMEM_EXE), {QStringLiteral("--json"), QStringLiteral("--hf-config"), path});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), exitCode);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        if (!error.isEmpty())
            QVERIFY2(err.contains(path + error), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
