// The training configs of issue 32: real torchtune recipes, axolotl examples and DeepSpeed configs (tests/data/,
// sources in each folder's README) read into the settings they fix, the trainable adapter parameters they imply
// (derived by hand in the comments), the keys listed as ignored, and bad input.
#include "lora.h"
#include "params.h"
#include "terms.h"
#include "testdata.h"
#include "trainconfig.h"

#include <QtTest>

#include <algorithm>

using namespace trainmem;

namespace {

std::string dataFile(const std::string& name)
{
    const std::string path = std::string(TRAINMEM_TEST_DATA) + "/" + name;
    const std::string text = testdata::readFile(path);
    if (text.empty())
        qFatal("missing test data %s", path.c_str());
    return text;
}

TrainingConfig torchtune(const std::string& name)
{
    return parseTorchtuneConfig(dataFile("torchtune/" + name), name);
}
TrainingConfig axolotl(const std::string& name)
{
    return parseAxolotlConfig(dataFile("axolotl/" + name), name);
}
TrainingConfig deepspeed(const std::string& name)
{
    return parseDeepSpeedConfig(dataFile("deepspeed/" + name), name);
}

// `text` with its one `from` replaced by `to`: a real file made bad in one named place.
std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
        qFatal("\"%s\" is not in the file exactly once", from.c_str());
    return text.replace(at, from.size(), to);
}

std::string firstError(const TrainingConfig& c)
{
    return c.errors.empty() ? std::string("<no error>") : c.errors.front().toString();
}

bool has(const std::vector<std::string>& list, const std::string& item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}

bool mentions(const std::vector<std::string>& notes, const std::string& part)
{
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(part) != n.npos; });
}

// Llama 3 8B / 3.1 8B as the builders fix it (torchtune llama3_1/_model_builders.py), for adapter counts.
Architecture llama8b()
{
    TrainingConfig c = torchtune("llama3_1-8B_lora_single_device.yaml");
    return *c.architecture;
}

} // namespace

class TestTrainConfig : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The builders' shapes give the published parameter counts: Meta's 8,030,261,248 for Llama 3.1 8B,
    // 70,553,706,496 for 70B, and 1,235,814,400 for Llama 3.2 1B with tied embeddings
    // (V·h + 16·(2·h² + 2·h·512 + 3·h·8192 + 2h) + h, h = 2048, V = 128256).
    void builderShapesGivePublishedCounts_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("total");
        QTest::newRow("lora_llama3_1_8b = 8,030,261,248")
            << "llama3_1-8B_lora_single_device.yaml" << qint64(8030261248);
        QTest::newRow("qlora_llama3_1_8b = 8,030,261,248")
            << "llama3_1-8B_qlora_single_device.yaml" << qint64(8030261248);
        QTest::newRow("lora_llama3_1_70b = 70,553,706,496") << "llama3_1-70B_lora.yaml" << qint64(70553706496);
        // MHA, untied, V = 32000, f = 11008: 2·V·h + 32·(4·h² + 3·h·11008 + 2h) + h = 6,738,415,616 (Llama 2 7B).
        QTest::newRow("lora_llama2_7b = 6,738,415,616") << "llama2-7B_lora_single_device.yaml" << qint64(6738415616);
        QTest::newRow("llama3_2_1b (tied) = 1,235,814,400")
            << "llama3_2-1B_full_single_device.yaml" << qint64(1235814400);
    }
    void builderShapesGivePublishedCounts()
    {
        QFETCH(QString, file);
        QFETCH(qint64, total);
        const TrainingConfig c = torchtune(file.toStdString());
        QVERIFY2(c.ok(), firstError(c).c_str());
        QVERIFY(c.architecture);
        QCOMPARE(countParams(*c.architecture).total, total);
    }

    // llama3_1/8B_lora_single_device.yaml: rank 8 on q_proj, v_proj, output_proj and the MLP, batch 2, accumulation
    // 8, bf16, activation checkpointing, AdamW, the chunked LinearCrossEntropyLoss, tokenizer.max_seq_len null.
    void torchtuneLora8b()
    {
        const TrainingConfig c = torchtune("llama3_1-8B_lora_single_device.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.modelName, std::string("torchtune.models.llama3_1.lora_llama3_1_8b"));
        QCOMPARE(c.fineTune, FineTune::Lora);
        QCOMPARE(c.loraRank, 8);
        QCOMPARE(c.loraTargets, LoraTargets::All);
        QCOMPARE(c.loraModules, (std::set<std::string>{"q_proj", "v_proj", "output_proj", "w1", "w2", "w3"}));
        QCOMPARE(c.microBatch, 2);
        QCOMPARE(c.gradAccum, 8);
        QCOMPARE(c.precision, Precision::BF16);
        QCOMPARE(c.checkpointing, Checkpointing::Full);
        QCOMPARE(c.optimizer, Optimizer::AdamW);
        QVERIFY(!c.seqLen);
        // The chunked loss is --loss chunked, and a recipe config is torchtune's to run: its profile.
        QCOMPARE(c.loss, LossKind::Chunked);
        QCOMPARE(c.framework, Framework::Torchtune);
        QVERIFY(!mentions(c.notes, "not modelled"));
        const Scenario run = applyTrainingConfig(Scenario{}, c, false);
        QCOMPARE(run.training.loss, std::optional<LossKind>(LossKind::Chunked));
        QCOMPARE(run.framework, std::optional<Framework>(Framework::Torchtune));
        QVERIFY(mentions(c.notes, "no max_seq_len"));
        // Keys not read are listed, empty ones (seed: null) are not.
        for (const char* key : {"output_dir", "checkpointer", "dataset", "lr_scheduler", "profiler", "model.lora_alpha",
                                "model.lora_dropout", "tokenizer.path", "optimizer.lr", "optimizer.fused", "device"})
            QVERIFY2(has(c.ignored, key), key);
        QVERIFY(!has(c.ignored, "seed") && !has(c.ignored, "batch_size") && !has(c.ignored, "compile"));

        // Per layer, r·(d_in + d_out): q_proj 8·(4096+4096) = 65,536, v_proj 8·(4096+1024) = 40,960, output_proj
        // 65,536, w1, w2, w3 8·(4096+14336) = 147,456 each: 614,400; × 32 layers = 19,660,800.
        const Architecture a = *c.architecture;
        QCOMPARE(fileLoraParams(a, 8, c.loraModules), 19660800);
        // TrainMem's "all" adds k_proj, 8·(4096+1024) = 40,960 a layer: 655,360 × 32 = 20,971,520.
        QCOMPARE(loraParams(a, 8, LoraTargets::All).total, 20971520);
        // Issue 30: the file's projections are counted exactly (PEFT's names for torchtune's), with nothing to note.
        const Scenario s = applyTrainingConfig(Scenario{}, c);
        QCOMPARE(s.training.loraModules,
                 *loraModulesFromList("q_proj,v_proj,o_proj,gate_proj,up_proj,down_proj", nullptr));
        QCOMPARE(loraParams(a, s.training).total, 19660800);
        QVERIFY(loraTargetsNote(a, c, s.training).empty());
    }

    // llama2/7B_lora_single_device.yaml: rank 8 on q_proj, v_proj, output_proj and the MLP of Llama 2 7B (MHA:
    // k and v are h → h), per layer 3·8·(4096+4096) + 3·8·(4096+11008) = 196,608 + 362,496 = 559,104; × 32 =
    // 17,891,328. TrainMem's "all" adds k_proj, 65,536 a layer: 624,640 × 32 = 19,988,480.
    void torchtuneLlama2Lora()
    {
        const TrainingConfig c = torchtune("llama2-7B_lora_single_device.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.architecture->attention, AttentionKind::MHA);
        QCOMPARE(fileLoraParams(*c.architecture, 8, c.loraModules), 17891328);
        QCOMPARE(loraParams(*c.architecture, 8, LoraTargets::All).total, 19988480);
    }

    // The LoRA example of the brief: rank 8 on q and v of Llama 3.1 8B,
    // 32 × (8·(4096+4096) + 8·(4096+1024)) = 3,407,872.
    void loraOnQAndV() { QCOMPARE(fileLoraParams(llama8b(), 8, {"q_proj", "v_proj"}), 3407872); }

    // llama3_1/8B_qlora_single_device.yaml: the same as the LoRA recipe on a 4-bit base.
    void torchtuneQlora8b()
    {
        const TrainingConfig c = torchtune("llama3_1-8B_qlora_single_device.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.fineTune, FineTune::QLora);
        QCOMPARE(c.loraRank, 8);
        QCOMPARE(fileLoraParams(*c.architecture, 8, c.loraModules), 19660800);
        QVERIFY(has(c.ignored, "low_cpu_ram"));
    }

    // llama3_1/70B_lora.yaml: rank 16 on q_proj, v_proj, output_proj and the MLP of Llama 3.1 70B: per layer
    // 16·(8192+8192) + 16·(8192+1024) + 16·(8192+8192) + 3·16·(8192+28672) = 2,441,216; × 80 = 195,297,280.
    void torchtuneLora70b()
    {
        const TrainingConfig c = torchtune("llama3_1-70B_lora.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.loraRank, 16);
        QCOMPARE(c.gradAccum, 1);
        QCOMPARE(fileLoraParams(*c.architecture, 16, c.loraModules), 195297280);
    }

    // llama3_1/8B_full.yaml, the distributed full fine-tune: custom_sharded_layers: ['tok_embeddings', 'output'] makes
    // each a unit of its own, so FSDP2's root keeps nothing gathered (torchtune bd2a0fc shard_model), and only the
    // distributed recipes read it: ZeRO-3. 70B_lora.yaml leaves it commented out: the torchtune profile's root.
    void torchtuneCustomShardedLayers()
    {
        const TrainingConfig c = torchtune("llama3_1-8B_full.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.fineTune, FineTune::Full);
        QCOMPARE(c.fsdpRoot, std::optional<FsdpRoot>(FsdpRoot::None));
        QCOMPARE(c.zeroStage, std::optional<int>(3));
        QCOMPARE(c.checkpointing, Checkpointing::Full);
        Scenario s = applyTrainingConfig(testdata::preset("chapter-7b"), c);
        s = withGpuCount(s, 8);
        QCOMPARE(effectiveFsdpRoot(s), FsdpRoot::None);
        QCOMPARE(fsdp2RootGathered(termContext(resolveModel(s.model), s, parallelLayout(s, resolveModel(s.model)))),
                 0.0);
        // 70B_lora.yaml: the profile's root, embeddings and head of Llama 3.1 70B on 8 GPUs at ZeRO-3:
        // (2·128,256·8192 + 8192)·2 / 1 = 4,202,708,992 B.
        const TrainingConfig lora = torchtune("llama3_1-70B_lora.yaml");
        QVERIFY(!lora.fsdpRoot);
        Scenario l = applyTrainingConfig(testdata::preset("chapter-7b"), lora);
        l.hardware.zeroStage = 3;
        l = withGpuCount(l, 8);
        QCOMPARE(effectiveFsdpRoot(l), FsdpRoot::EmbeddingsAndHead);
        const ResolvedModel m = resolveModel(l.model);
        QCOMPARE(fsdp2RootGathered(termContext(m, l, parallelLayout(l, m))), 4202708992.0);
    }

    // llama3_2/1B_full_single_device.yaml: a full fine-tune with bitsandbytes' PagedAdamW8bit and optimizer_in_bwd.
    void torchtuneFull1b()
    {
        const TrainingConfig c = torchtune("llama3_2-1B_full_single_device.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.fineTune, FineTune::Full);
        QVERIFY(c.loraModules.empty());
        QVERIFY(c.architecture->tiedEmbeddings);
        QCOMPARE(c.microBatch, 4);
        QCOMPARE(c.gradAccum, 1);
        QCOMPARE(c.optimizer, Optimizer::Adam8bit);
        QCOMPARE(c.checkpointing, Checkpointing::None);
        QCOMPARE(c.precision, Precision::BF16);
        QVERIFY(c.pagedOptimizer); // PagedAdamW8bit: its state counted in host memory, as --optimizer paged-adamw8bit
        // The recipe switches are applied, as their command-line options are (issue 30 §2): optimizer_in_bwd: True,
        // compile: False, enable_activation_offloading: False.
        QCOMPARE(c.optimizerInBackward, true);
        QCOMPARE(c.compile, false);
        QCOMPARE(c.activationOffload, false);
        QVERIFY(!mentions(c.notes, "optimizer_in_bwd"));
        const Scenario s = applyTrainingConfig(testdata::preset("chapter-7b"), c);
        QVERIFY(s.model.hasArchitecture);
        QCOMPARE(s.model.architecture.layers, 16);
        QCOMPARE(s.training.microBatch, 4);
        QCOMPARE(s.training.optimizerInBackward, true);
        QVERIFY(s.training.pagedOptimizer);
        QVERIFY(validateScenario(s, "").empty());
        QCOMPARE(account(s, testdata::gpu("H100")).perGpu.optimizer, 0.0); // paged out to the host
        // The gradients are then the larger of one layer's and the (tied) head's, in bf16 on one GPU
        // (docs/accounting.md, Recipes): one layer's attention 2·2048² + 2·2048·512 = 10,485,760 + 3·2048·8192 MLP
        // + 2·2048 norms = 60,821,504 < V·h = 128,256·2048 = 262,668,288, so 2 B × 262,668,288 = 525,336,576 B.
        QCOMPARE(account(s, testdata::gpu("H100")).perGpu.gradients, 525336576.0);
    }

    // axolotl examples/llama-3/lora-1b-ray.yml with the deepspeed_configs/zero3.json it names.
    void axolotlLora1bWithZero3()
    {
        TrainingConfig c = axolotl("lora-1b-ray.yml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.baseModel, std::string("NousResearch/Llama-3.2-1B"));
        QCOMPARE(c.deepspeedPath, std::string("deepspeed_configs/zero3.json"));
        QCOMPARE(c.fineTune, FineTune::Lora);
        QCOMPARE(c.loraRank, 16);
        QCOMPARE(c.loraTargets, LoraTargets::All);
        QCOMPARE(c.seqLen, 2048);
        QCOMPARE(c.microBatch, 2);
        QCOMPARE(c.gradAccum, 2);
        QCOMPARE(c.optimizer, Optimizer::Adam8bit);
        QCOMPARE(c.precision, Precision::BF16Mixed); // bf16: auto
        QCOMPARE(c.checkpointing, Checkpointing::Full);
        QCOMPARE(c.flashAttention, true); // attn_implementation: flash_attention_2
        for (const char* key : {"datasets", "lora_alpha", "use_ray", "special_tokens", "learning_rate"})
            QVERIFY2(has(c.ignored, key), key);
        QVERIFY(!has(c.ignored, "wandb_project") && !has(c.ignored, "deepspeed"));
        mergeDeepSpeed(c, deepspeed("zero3.json"));
        QCOMPARE(c.zeroStage, 3);
        QCOMPARE(c.microBatch, 2); // zero3.json says "auto": the YAML's
        QVERIFY(has(c.ignored, "zero3.json: zero_optimization.overlap_comm"));
        // All seven projections of Llama 3.2 1B (h 2048, q 32·64 = 2048, kv 8·64 = 512, f 8192) at rank 16, per
        // layer: q 16·4096 + k 16·2560 + v 16·2560 + o 16·4096 + 3·16·10240 = 704,512; × 16 layers = 11,272,192.
        const Architecture a = *torchtune("llama3_2-1B_full_single_device.yaml").architecture;
        QCOMPARE(fileLoraParams(a, 16, c.loraModules), 11272192);
        QCOMPARE(loraParams(a, 16, LoraTargets::All).total, 11272192);
        QVERIFY(loraTargetsNote(a, c, applyTrainingConfig(Scenario{}, c).training).empty()); // the same set
    }

    // axolotl examples/llama-3/qlora-fsdp-70b.yaml: QLoRA r8 on every linear, FSDP full shard with CPU offload.
    void axolotlQloraFsdp70b()
    {
        const TrainingConfig c = axolotl("qlora-fsdp-70b.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.fineTune, FineTune::QLora);
        QCOMPARE(c.loraRank, 8);
        QCOMPARE(c.loraTargets, LoraTargets::All);
        QCOMPARE(c.seqLen, 512);
        QCOMPARE(c.microBatch, 1);
        QCOMPARE(c.gradAccum, 4);
        QCOMPARE(c.optimizer, Optimizer::AdamW); // adamw_torch_fused
        QCOMPARE(c.zeroStage, 3);
        // FSDP's CPU offload keeps the 4-bit base's shard, the adapters and their optimizer on the host (fsdp_qlora's
        // 70B on two 24 GB cards; docs/accounting.md, "QLoRA with the base offloaded").
        QCOMPARE(c.offload, Offload::OptimizerParams);
        QVERIFY(mentions(c.notes, "FSDP's CPU offload is counted as ZeRO-3 optimizer+params offload"));
        QVERIFY(has(c.ignored, "gradient_checkpointing_kwargs"));
        QVERIFY(has(c.ignored, "fsdp_config.fsdp_state_dict_type"));
        // Llama 3 70B (torchtune's llama3_70b shape) at rank 8 on every linear, per layer: q 8·16384 + k 8·9216 +
        // v 8·9216 + o 8·16384 + 3·8·36864 = 1,294,336; × 80 = 103,546,880.
        const Architecture a = *torchtune("llama3_1-70B_lora.yaml").architecture;
        QCOMPARE(loraParams(a, 8, LoraTargets::All).total, 103546880);
        Scenario base = testdata::preset("llama3-70b");
        base.hardware.gpus = 8;
        const Scenario s = applyTrainingConfig(base, c);
        const FieldErrors problems = validateScenario(s, "");
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().toString().c_str());
    }

    // axolotl examples/llama-3/lora-8b.yml: LoRA r32 on an 8-bit base with lora_modules_to_save.
    void axolotlLora8bit()
    {
        const TrainingConfig c = axolotl("lora-8b.yml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.fineTune, FineTune::Lora);
        QCOMPARE(c.loraRank, 32);
        QCOMPARE(c.seqLen, 4096);
        QVERIFY(mentions(c.notes, "load_in_8bit is read but not modelled"));
        QVERIFY(mentions(c.notes, "lora_modules_to_save is read but not modelled"));
        // Llama 3 8B, rank 32, all linears, per layer: q 32·8192 + k 32·5120 + v 32·5120 + o 32·8192
        // + 3·32·18432 = 2,621,440; × 32 = 83,886,080.
        QCOMPARE(fileLoraParams(llama8b(), 32, c.loraModules), 83886080);
    }

    // axolotl examples/llama-3/fft-8b-liger-fsdp.yaml: a full fine-tune of Llama 3.1 8B with the Liger plugin's fused
    // linear cross-entropy, FSDP full shard with the parameters offloaded. axolotl runs transformers' Trainer (the hf
    // profile) and sets expandable segments (set_pytorch_cuda_alloc_conf); the Liger loss is --loss fused; the other
    // Liger kernels are noted. A file without the plugin (fft-8b.yaml) keeps the profile's eager loss.
    void axolotlLigerLossAndProfile()
    {
        const TrainingConfig c = axolotl("fft-8b-liger-fsdp.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.loss, LossKind::Fused);
        QCOMPARE(c.framework, Framework::HF);
        QCOMPARE(c.expandableSegments, true);
        QCOMPARE(c.seqLen, 4096);
        QCOMPARE(c.microBatch, 2);
        QCOMPARE(c.checkpointing, Checkpointing::Full);
        QVERIFY(mentions(c.notes, "liger_rope, liger_rms_norm, liger_glu_activation read but not modelled"));
        QVERIFY(!has(c.ignored, "plugins") && !has(c.ignored, "liger_fused_linear_cross_entropy"));
        const Scenario s = applyTrainingConfig(testdata::preset("llama3-8b"), c);
        QCOMPARE(effectiveLoss(s), std::optional<LossKind>(LossKind::Fused));
        QCOMPARE(s.framework, std::optional<Framework>(Framework::HF));
        QVERIFY(effectiveExpandableSegments(s));

        const TrainingConfig plain = axolotl("fft-8b.yaml");
        QVERIFY(!plain.loss);
        QCOMPARE(plain.framework, Framework::HF);
        const Scenario p = applyTrainingConfig(testdata::preset("llama3-8b"), plain);
        QCOMPARE(effectiveLoss(p), std::optional<LossKind>(LossKind::Eager));
        QVERIFY(effectiveExpandableSegments(p));
    }

    // axolotl examples/llama-3/fft-8b.yaml: a full fine-tune with a paged 8-bit optimizer.
    void axolotlFullFineTune()
    {
        const TrainingConfig c = axolotl("fft-8b.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.fineTune, FineTune::Full);
        QCOMPARE(c.seqLen, 8192);
        QCOMPARE(c.gradAccum, 8);
        QCOMPARE(c.optimizer, Optimizer::Adam8bit);
        // paged_adamw_8bit (bitsandbytes' PagedAdamW8bit): its state in unified memory, counted in host memory as
        // --optimizer paged-adamw8bit counts it (issue 30 §2), nothing left to note.
        QVERIFY(c.pagedOptimizer);
        QVERIFY(!mentions(c.notes, "paged"));
        Scenario s = applyTrainingConfig(testdata::preset("chapter-7b"), c);
        QVERIFY(s.training.pagedOptimizer);
        s.hardware = HardwareSetup{};
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.optimizer, 0.0); // paged out to the host
        QVERIFY(b.perGpuHost.optimizer > 0);
        // A GPU without a host in the catalog cannot page it: refused, naming the field.
        const FieldErrors host = validateHost(s, testdata::gpu("RTX4090"), "f");
        QVERIFY(!host.empty() && host.front().path == "/training/paged_optimizer");
    }

    void deepspeedConfigs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("offload"); // -1: not set
        QTest::addColumn<int>("precision");
        QTest::newRow("zero1: stage 1, everything else auto") << "zero1.json" << 1 << -1 << -1;
        QTest::newRow("zero2: stage 2, optimizer offloaded to cpu")
            << "zero2.json" << 2 << int(Offload::Optimizer) << -1;
        QTest::newRow("zero3: stage 3") << "zero3.json" << 3 << -1 << -1;
        QTest::newRow("zero3_bf16_cpuoffload_all: stage 3, optimizer and params to cpu, bf16")
            << "zero3_bf16_cpuoffload_all.json" << 3 << int(Offload::OptimizerParams) << int(Precision::BF16Mixed);
    }
    void deepspeedConfigs()
    {
        QFETCH(QString, file);
        QFETCH(int, stage);
        QFETCH(int, offload);
        QFETCH(int, precision);
        const TrainingConfig c = deepspeed(file.toStdString());
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.zeroStage, stage);
        QCOMPARE(c.offload ? int(*c.offload) : -1, offload);
        QCOMPARE(c.precision ? int(*c.precision) : -1, precision);
        // train_micro_batch_size_per_gpu, gradient_accumulation_steps and train_batch_size are "auto" in all four.
        QVERIFY(!c.microBatch && !c.gradAccum && !c.globalBatch);
        QVERIFY(has(c.ignored, "wall_clock_breakdown") && has(c.ignored, "gradient_clipping"));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("error");
        QTest::newRow("a YAML syntax error names the line and column")
            << "torchtune"
            << "llama3_1-8B_lora_single_device.yaml"
            << "batch_size: 2"
            << "batch_size: [2"
            << "llama3_1-8B_lora_single_device.yaml: line 61, column 1: not valid YAML: end of sequence flow not found";
        QTest::newRow("a JSON syntax error names the line and column")
            << "deepspeed"
            << "zero1.json"
            << "\"stage\": 1,"
            << "\"stage\": 1,,"
            << "zero1.json: not valid JSON: at line 3, column 16: syntax error while parsing object key - unexpected "
               "','; expected string literal";
        QTest::newRow("DeepSpeed's stage of the wrong type names its path")
            << "deepspeed"
            << "zero1.json"
            << "\"stage\": 1"
            << "\"stage\": \"x\""
            << "zero1.json: /zero_optimization/stage: must be 0, 1, 2 or 3, got \"x\"";
        QTest::newRow("an offload device TrainMem does not know")
            << "deepspeed"
            << "zero2.json"
            << "\"device\": \"cpu\""
            << "\"device\": \"gpu\""
            << "zero2.json: /zero_optimization/offload_optimizer/device: must be cpu, nvme or none, got \"gpu\"";
        QTest::newRow("axolotl's lora_r of the wrong type names its path and line")
            << "axolotl"
            << "lora-8b.yml"
            << "lora_r: 32"
            << "lora_r: many"
            << "lora-8b.yml: /lora_r: must be a whole number from 1 to 4,096, got many (line 25)";
        QTest::newRow("a quoted number is text") << "axolotl"
                                                 << "lora-8b.yml"
                                                 << "micro_batch_size: 2"
                                                 << "micro_batch_size: \"2\""
                                                 << "lora-8b.yml: /micro_batch_size: must be a whole number from 1 to "
                                                    "65,536, got \"2\" (line 40)";
        QTest::newRow("an optimizer TrainMem cannot map")
            << "torchtune"
            << "llama3_1-8B_lora_single_device.yaml"
            << "torch.optim.AdamW"
            << "torch.optim.RMSprop"
            << "llama3_1-8B_lora_single_device.yaml: /optimizer/_component_: names an optimizer TrainMem cannot map: "
               "\"torch.optim.RMSprop\" (known: bitsandbytes.optim.AdamW8bit, bitsandbytes.optim.PagedAdamW, "
               "bitsandbytes.optim.PagedAdamW8bit, torch.optim.Adam, torch.optim.AdamW, torch.optim.SGD, "
               "torchao.optim.AdamW8bit) (line 62)";
        QTest::newRow("an adapter TrainMem cannot map")
            << "axolotl"
            << "lora-8b.yml"
            << "adapter: lora"
            << "adapter: llama-adapter"
            << "lora-8b.yml: /adapter: names an adapter TrainMem cannot map: \"llama-adapter\" (TrainMem maps lora and "
               "qlora) (line 23)";
    }
    void badInput()
    {
        QFETCH(QString, format);
        QFETCH(QString, file);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, error);
        const std::string name = file.toStdString();
        const std::string text =
            replaced(dataFile(format.toStdString() + "/" + name), from.toStdString(), to.toStdString());
        const TrainingConfig c = format == QLatin1String("torchtune") ? parseTorchtuneConfig(text, name)
                                 : format == QLatin1String("axolotl") ? parseAxolotlConfig(text, name)
                                                                      : parseDeepSpeedConfig(text, name);
        QCOMPARE(QString::fromStdString(firstError(c)), error);
    }

    // An unknown builder is named, with every builder TrainMem maps: the base, lora_ and qlora_ ones of each family
    // (Qwen2.5 has no qlora_ builder in torchtune).
    void unknownBuilderIsNamed()
    {
        const TrainingConfig c = parseTorchtuneConfig(
            replaced(dataFile("torchtune/llama3_1-8B_lora_single_device.yaml"), "lora_llama3_1_8b", "lora_llama9_8b"),
            "tune.yaml");
        const std::string e = firstError(c);
        QVERIFY2(e.rfind("tune.yaml: /model/_component_: names a model builder TrainMem cannot map: "
                         "\"torchtune.models.llama3_1.lora_llama9_8b\" (known: torchtune.models.llama2.llama2_13b, "
                         "torchtune.models.llama2.lora_llama2_13b, torchtune.models.llama2.qlora_llama2_13b, ",
                         0) == 0,
                 e.c_str());
        QVERIFY2(e.find(", torchtune.models.qwen2_5.lora_qwen2_5_7b_instruct) (line 23)") != e.npos, e.c_str());
        QVERIFY(e.find("qlora_qwen") == e.npos);
        QCOMPARE(torchtuneBuilders().size(), size_t(10 * 3 + 12 * 2));
        const std::string q =
            firstError(parseTorchtuneConfig(replaced(dataFile("torchtune/qwen2_5-7B_lora_single_device.yaml"),
                                                     "lora_qwen2_5_7b_instruct", "qlora_qwen2_5_7b_instruct"),
                                            "q.yaml"));
        QVERIFY2(q.rfind("q.yaml: /model/_component_: names a model builder TrainMem cannot map: "
                         "\"torchtune.models.qwen2_5.qlora_qwen2_5_7b_instruct\"",
                         0) == 0,
                 q.c_str());
    }

    // Qwen2.5 7B (lora_qwen2_5_7b_instruct): q/k/v biases, untied, 152064 vocabulary; its count is
    // tst_hfconfig's for Qwen/Qwen2.5-7B's config.json, 7,615,616,512. qwen2_5/7B_lora_single_device.yaml adapts
    // q_proj, v_proj, output_proj and the MLP at rank 8, per layer (h 3584, q 28·128 = 3584, kv 4·128 = 512, f 18944):
    // 8·7168 + 8·4096 + 8·7168 + 3·8·22528 = 688,128; × 28 = 19,267,584. TrainMem's "all" adds k_proj, 8·4096 a
    // layer: 720,896 × 28 = 20,185,088.
    void torchtuneQwen25()
    {
        const TrainingConfig c = torchtune("qwen2_5-7B_lora_single_device.yaml");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(countParams(*c.architecture).total, qint64(7615616512));
        QCOMPARE(c.architecture->attentionBiasOrDefault(), AttentionBias::Qkv);
        QCOMPARE(fileLoraParams(*c.architecture, 8, c.loraModules), 19267584);
        QCOMPARE(loraParams(*c.architecture, 8, LoraTargets::All).total, 20185088);
    }

    // Regression (fuzz_trainconfig): a key written as "" was listed as an empty name; it is listed as "".
    void emptyKeyIsListedQuoted()
    {
        const TrainingConfig c = parseDeepSpeedConfig(
            replaced(dataFile("deepspeed/zero1.json"), "\"wall_clock_breakdown\"", "\"\""), "zero1.json");
        QVERIFY2(c.ok(), firstError(c).c_str());
        QVERIFY(has(c.ignored, "\"\""));
    }

    // A DeepSpeed file beside a QLoRA recipe: the recipe's own settings win (a note names each conflict), and
    // offload_param offloads the 4-bit base with the adapters (ZeRO-3 optimizer+params).
    void deepspeedBesideQlora()
    {
        TrainingConfig c = torchtune("llama3_1-8B_qlora_single_device.yaml");
        mergeDeepSpeed(c, deepspeed("zero3_bf16_cpuoffload_all.json"));
        QVERIFY2(c.ok(), firstError(c).c_str());
        QCOMPARE(c.zeroStage, 3);
        QCOMPARE(c.offload, Offload::OptimizerParams);
        QCOMPARE(c.precision, Precision::BF16);
        QVERIFY(
            mentions(c.notes, "precision: the YAML's bf16 is used, not zero3_bf16_cpuoffload_all.json's bf16-mixed"));
        // The YAML's FSDP offload and the DeepSpeed file's agree (both offload the parameters): no conflict.
        TrainingConfig a = axolotl("qlora-fsdp-70b.yaml");
        mergeDeepSpeed(a, deepspeed("zero3_bf16_cpuoffload_all.json"));
        QCOMPARE(a.offload, Offload::OptimizerParams);
        QVERIFY(!mentions(a.notes, "offload: the YAML's"));
    }

    // What a file sets wins over the scenario it is applied to; what it leaves (null, "auto", absent) stays.
    void applyKeepsWhatTheFileLeaves()
    {
        Scenario base = testdata::preset("llama3-8b");
        base.training.seqLen = 8192;
        base.training.microBatch = 3;
        const Scenario s = applyTrainingConfig(base, deepspeed("zero2.json"));
        QCOMPARE(s.hardware.zeroStage, 2);
        QCOMPARE(s.hardware.offload, Offload::Optimizer);
        QCOMPARE(s.training.seqLen, 8192);
        QCOMPARE(s.training.microBatch, 3);
        QVERIFY(s.model == base.model);
    }
};

QTEST_GUILESS_MAIN(TestTrainConfig)
#include "tst_trainconfig.moc"
