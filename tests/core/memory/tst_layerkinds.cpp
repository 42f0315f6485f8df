// Layer kinds (issue 29 §2): sliding-window attention bounds the KV cache and the unfused scores by the window,
// linear attention (Gated DeltaNet) keeps a fixed-size recurrent state instead of a KV cache. Every number below is
// derived by hand in its comment from the model's config fields.
#include "cost.h"
#include "fitmap.h"
#include "fixes.h"
#include "hfconfig.h"
#include "lora.h"
#include "report.h"
#include "scenarioio.h"
#include "terms.h"
#include "testdata.h"
#include "timeline.h"
#include "trainconfig.h"

#include <QtTest>

using namespace trainmem;

namespace {

// gpt-oss-120b: the fields of tests/core/formats/tst_hfconfig.cpp's published-fields row (OpenAI's model card,
// arXiv 2508.10925, Table 1, over the 20b file's widths); no layer_types or sliding_window, so GptOssConfig's
// alternating sliding/full layers with a 128-token window (configuration_gpt_oss.py @
// 828a27fd326e49d4a1c4b08210bfd32c107facc9).
const char* kGptOss120b = R"({"model_type": "gpt_oss", "hidden_size": 2880, "num_hidden_layers": 36,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880,
    "vocab_size": 201088, "num_local_experts": 128, "num_experts_per_tok": 4, "attention_bias": true,
    "tie_word_embeddings": false})";

// Qwen3-Next-80B-A3B: no verbatim config.json found in a public file whose repository the search tools name, so the
// fields Qwen's model card lists (Qwen/Qwen3-Next-80B-A3B-Instruct, "Model Overview": 48 layers, hidden 2048,
// 12 × (3 × (Gated DeltaNet → MoE) → 1 × (Gated Attention → MoE)); gated attention 16 Q heads, 2 KV heads, head dim
// 256; Gated DeltaNet 32 V heads and 16 QK heads of 128; 512 experts, 10 activated, 1 shared, expert width 512),
// the rest Qwen3NextConfig's defaults (vocab 151936, conv kernel 4, full_attention_interval 4, untied:
// configuration_qwen3_next.py @ 249ef8164cfbd8e288c2f6d8395539b9e90e8300).
const char* kQwen3Next80b = R"({"model_type": "qwen3_next", "hidden_size": 2048, "num_hidden_layers": 48,
    "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "linear_num_value_heads": 32,
    "linear_num_key_heads": 16, "linear_key_head_dim": 128, "linear_value_head_dim": 128, "num_experts": 512,
    "num_experts_per_tok": 10, "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512})";

// Gemma 4 E2B and E4B as transformers' own conversion script builds them (huggingface/transformers
// src/transformers/models/gemma4/convert_gemma4_weights.py @ ca5ff0b0d29a3b30277e4518644df411193f9490, _VARIANTS
// "gemma-4-e2b" and "gemma-4-e4b": the text_config fields it sets, vision_config its _ON_DEVICE_VISION_CONFIG,
// audio_config Gemma4AudioConfig()'s defaults); every other field is the configuration class's default
// (configuration_gemma4.py @ 351f643ab9f582c01026b6d75aab3e2c5a8338cd: head_dim 256, global_head_dim 512, vocab
// 262,144, vocab_size_per_layer_input 262,144, sliding_window 512, tied). No verbatim config.json of either model is
// stored in a public file the search tools name; this is what the script writes as config.json.
const char* kGemma4E2b = R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text",
    "hidden_size": 1536, "hidden_size_per_layer_input": 256, "intermediate_size": 6144, "num_hidden_layers": 35,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention"],
    "num_attention_heads": 8, "num_key_value_heads": 1, "num_global_key_value_heads": null, "attention_k_eq_v": false,
    "use_bidirectional_attention": null, "num_kv_shared_layers": 20, "use_double_wide_mlp": true,
    "final_logit_softcapping": 30.0},
  "vision_config": {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 16, "num_attention_heads": 12,
    "num_key_value_heads": 12, "head_dim": 64, "global_head_dim": 64, "default_output_length": 280,
    "pooling_kernel_size": 3, "use_clipped_linears": true},
  "audio_config": {}, "vision_soft_tokens_per_image": 280})";
const char* kGemma4E4b = R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text",
    "hidden_size": 2560, "hidden_size_per_layer_input": 256, "intermediate_size": 10240, "num_hidden_layers": 42,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "full_attention"],
    "num_attention_heads": 8, "num_key_value_heads": 2, "num_global_key_value_heads": null, "global_head_dim": 512,
    "attention_k_eq_v": false, "use_bidirectional_attention": null, "num_kv_shared_layers": 18,
    "final_logit_softcapping": 30.0},
  "vision_config": {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 16, "num_attention_heads": 12,
    "num_key_value_heads": 12, "head_dim": 64, "global_head_dim": 64, "default_output_length": 280,
    "pooling_kernel_size": 3, "use_clipped_linears": true},
  "audio_config": {}, "vision_soft_tokens_per_image": 280})";

// Granite-4.0-H-Small (granitemoehybrid): the fields of tst_hfconfig's published-fields row (IBM's model card,
// sources there): h 4096, 40 layers, 36 Mamba-2 and 4 attention, 32 heads and 8 KV heads of 128, 128 Mamba heads of 64
// (mamba_expand 2), state 128, 1 group, conv 4; 72 experts of 768, top-10, a shared MLP of 1536; V 100352, tied. The
// card does not say where the attention layers sit; they are put at 5, 15, 25 and 35, which changes no term.
std::string graniteHSmall()
{
    std::string kinds;
    for (int i = 0; i < 40; ++i)
        kinds += std::string(i ? ", " : "") + (i % 10 == 5 ? "\"attention\"" : "\"mamba\"");
    return R"({"model_type": "granitemoehybrid", "hidden_size": 4096, "num_hidden_layers": 40,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 768, "shared_intermediate_size": 1536,
        "num_local_experts": 72, "num_experts_per_tok": 10, "mamba_n_heads": 128, "mamba_d_state": 128,
        "vocab_size": 100352, "tie_word_embeddings": true, "position_embedding_type": "nope", "layer_types": [)" +
           kinds + "]}";
}

Scenario imported(const std::string& json)
{
    const HfImport imp = parseHfConfig(json, "config.json");
    if (!imp.ok())
        qFatal("%s", imp.errors.front().toString().c_str());
    return scenarioWithHfModel(testdata::sized(7'000'000'000), imp, "");
}

// The first error importing `json` as a config.json gives, or "" when it is read.
QString firstImportError(const QString& json)
{
    const HfImport imp = parseHfConfig(json.toStdString(), "config.json");
    return imp.ok() ? QString() : QString::fromStdString(imp.errors.front().toString());
}

Scenario serving(Scenario s, int64_t tokens)
{
    s.training.mode = Mode::Inference;
    s.training.inferenceWeights = InferenceWeights::BF16;
    s.training.seqLen = tokens;
    s.training.microBatch = 1;
    s.hardware = HardwareSetup{};
    return s;
}

} // namespace

class TestLayerKinds : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gptOssAlternatesSlidingAndFullLayers()
    {
        const Architecture a = imported(kGptOss120b).model.architecture;
        // GptOssConfig: layer i is sliding when (i + 1) % 2 != 0: layers 0, 2, …, 34, 18 of 36.
        QCOMPARE(a.kinds.sliding, qint64(18));
        QCOMPARE(a.kinds.window, qint64(128));
        QCOMPARE(a.layersOfKind(LayerKind::Full), qint64(18));
        // The weights are the same for both kinds: 116,829,156,672 as before (tst_hfconfig).
        QCOMPARE(countParams(a).total, qint64(116829156672));
    }

    void gptOss20bFileListsItsLayerKinds()
    {
        // tests/data/hf/gpt-oss-20b.json: 24 layers, layer_types alternating from sliding_attention, window 128.
        const HfImport imp =
            parseHfConfig(testdata::readFile(std::string(TRAINMEM_HF_DATA) + "/gpt-oss-20b.json"), "f");
        QVERIFY(imp.ok());
        QCOMPARE(imp.architecture.kinds.sliding, qint64(12));
        QCOMPARE(imp.architecture.kinds.window, qint64(128));
    }

    void gemma3OneBHasFiveSlidingLayersToEachFullOne()
    {
        // tests/data/hf/gemma-3-1b.json: 26 layers, sliding_window_pattern 6, sliding_window 512, one KV head of
        // 256. Layer i is full attention when (i + 1) % 6 == 0 (layers 5, 11, 17, 23): 4 full, 22 sliding.
        const HfImport imp = parseHfConfig(testdata::readFile(std::string(TRAINMEM_HF_DATA) + "/gemma-3-1b.json"), "f");
        QVERIFY(imp.ok());
        QCOMPARE(imp.architecture.kinds.sliding, qint64(22));
        QCOMPARE(imp.architecture.kinds.window, qint64(512));
        Scenario s = serving(scenarioWithHfModel(testdata::sized(7'000'000'000), imp, ""), 32768);
        // At its 32,768-token context: 2 · 4 · 1 · 256 · 32768 · 2 B = 134,217,728 B for the full layers and
        // 2 · 22 · 1 · 256 · 512 · 2 B = 11,534,336 B for the sliding ones.
        QCOMPARE(account(s, testdata::gpu("H100")).perGpu.kvCache, 134217728.0 + 11534336.0);
    }

    // Gemma 4's full-attention layers have their own attention shape (modeling_gemma4.py @
    // c308a309e651a7e033f683353f3f75aa66d29502, Gemma4TextAttention: global_head_dim, num_global_key_value_heads where
    // attention_k_eq_v) and cache K and V of it: with k = v the keys double as values before the norms, but
    // past_key_values.update(key_states, value_states) still keeps both. Served at 131,072 tokens in bf16, one
    // sequence:
    //   26B-A4B (tests/data/hf/gemma-4-26B-A4B.json): 5 full layers, 2 KV heads of 512: 2 · 5 · 2 · 512 · 131072 · 2 B
    //     = 2,684,354,560 B; 25 sliding layers, 8 KV heads of 256, their last 1024 tokens: 2 · 25 · 8 · 256 · 1024 ·
    //     2 B = 209,715,200 B. (Had the full layers the sliding layers' 8 × 256, they would keep twice as much.)
    //   31B (Gemma-4-31B-IT-NVFP4.json): 10 full layers, 4 KV heads of 512: 2 · 10 · 4 · 512 · 131072 · 2 B =
    //     10,737,418,240 B; 50 sliding layers, 16 KV heads of 256: 2 · 50 · 16 · 256 · 1024 · 2 B = 838,860,800 B.
    void gemma4FullLayersCacheTheirOwnHeadShape_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("full");
        QTest::addColumn<double>("sliding");
        QTest::newRow("26B-A4B: 5 full layers of 2 × 512, 25 sliding of 8 × 256")
            << QStringLiteral("gemma-4-26B-A4B.json") << 2684354560.0 << 209715200.0;
        QTest::newRow("31B: 10 full layers of 4 × 512, 50 sliding of 16 × 256")
            << QStringLiteral("Gemma-4-31B-IT-NVFP4.json") << 10737418240.0 << 838860800.0;
    }
    void gemma4FullLayersCacheTheirOwnHeadShape()
    {
        QFETCH(QString, file);
        QFETCH(double, full);
        QFETCH(double, sliding);
        const HfImport imp =
            parseHfConfig(testdata::readFile(std::string(TRAINMEM_HF_DATA) + "/" + file.toStdString()), "f");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const Scenario s = serving(scenarioWithHfModel(testdata::sized(7'000'000'000), imp, ""), 131072);
        const Breakdown b = account(s, testdata::gpu("H200"));
        QCOMPARE(b.perGpu.kvCache, full + sliding);
        const TermText t = explainTerm(SegmentKind::KvCache, termContext(b.model, s, b.layout));
        const QString formula = QString::fromStdString(t.expr.symbolic);
        QVERIFY2(formula.contains(QStringLiteral("kv_heads_full")), qPrintable(formula));
        // Two sequences keep twice as much.
        Scenario two = s;
        two.training.microBatch = 2;
        QCOMPARE(account(two, testdata::gpu("H200")).perGpu.kvCache, 2 * (full + sliding));
    }

    // The training tape of a full-attention layer holds Q, K, V and the attention output of its own shape. Gemma 4
    // 26B-A4B at s = 4096, b = 1, bf16 (e = 2): a sliding layer's Q 16·256 = 4096, K and V 8·256 = 2048 each and the
    // output 4096 wide, 12,288 per token beside the block input; a full layer's Q 16·512 = 8192, K and V 2·512 = 1024
    // each and the output 8192, 18,432. The difference, 2 · 4096 · 6144 = 50,331,648 B a layer.
    void gemma4FullLayerTapeHasItsOwnHeadShape()
    {
        const HfImport imp =
            parseHfConfig(testdata::readFile(std::string(TRAINMEM_HF_DATA) + "/gemma-4-26B-A4B.json"), "f");
        QVERIFY(imp.ok());
        Scenario s = scenarioWithHfModel(testdata::sized(7'000'000'000), imp, "");
        s.training.seqLen = 4096;
        s.training.microBatch = 1;
        const ActivationInputs in = activationInputs(s, 1, 1);
        const Architecture& a = imp.architecture;
        QCOMPARE(layerActivations(a, false, in, LayerKind::Full).attention -
                     layerActivations(a, false, in, LayerKind::Sliding).attention,
                 50331648.0);
    }

    // Every path that reads an attention width takes each kind's own (issue 29 §2). Gemma 4 31B
    // (Gemma-4-31B-IT-NVFP4.json): h 5376, 32 heads; 50 sliding layers of 16 KV heads of 256 (q 8192, kv 4096), 10 full
    // layers of 4 KV heads of 512 with k = v (q 16384, kv 2048, no v_proj); gated GELU of 21504.
    //  - The context-parallel ring (Megatron-LM context_parallel.md at d98e8a6) passes each layer's own K and V:
    //    3·(c − 1) blocks of e·(s/c)·b·w_kv. At s = 8192, c = 2, b = 1, bf16, one micro-batch: 3 · 2 · 4096 ·
    //    (50 · 2 · 4096 + 10 · 2 · 2048) = 24,576 · 450,560 = 11,072,962,560 B (with the sliding width in every layer
    //    it was 24,576 · 60 · 8192 = 12,079,595,520).
    //  - LoRA on q_proj and v_proj (fileLoraParams, a torchtune file's projections): sliding 8·(5376 + 8192) +
    //    8·(5376 + 4096) = 184,320 × 50 = 9,216,000; full 8·(5376 + 16384) = 174,080 and no v_proj × 10 = 1,740,800:
    //    10,956,800 (not 60 × 184,320 = 11,059,200).
    //  - Per-op checkpointing recomputes the 2nd, 4th and 6th matmul of each layer. In units of 5376 a sliding layer's
    //    FLOPs are q 8192, k 4096, v 4096, o 8192, gate, up, down 21504 (89,088; recomputed k, o, up: 33,792); a full
    //    layer's q 16384, k 2048, o 16384, gate, up, down 21504 (99,328; recomputed k, gate, down: 45,056).
    //    (50 · 33,792 + 10 · 45,056) / (50 · 89,088 + 10 · 99,328) = 2,140,160 / 5,447,680.
    //  - --json's shape names the full layers' own: 10 layers, 4 KV heads of 512, k = v.
    void gemma4FullLayersKeepTheirShapeEverywhere()
    {
        const HfImport imp =
            parseHfConfig(testdata::readFile(std::string(TRAINMEM_HF_DATA) + "/Gemma-4-31B-IT-NVFP4.json"), "f");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const Architecture& a = imp.architecture;
        QCOMPARE(a.layersOfKind(LayerKind::Sliding), int64_t(50));

        Scenario s = scenarioWithHfModel(testdata::sized(7'000'000'000), imp, "");
        s.training.seqLen = 8192;
        s.training.microBatch = 1;
        s.training.gradAccum = 1;
        s.training.precision = Precision::BF16;
        s.hardware = HardwareSetup{};
        s.hardware.cp = 2;
        s.hardware.gpus = 2;
        QVERIFY(validateScenario(s, "").empty());
        const Breakdown b = account(s, testdata::gpu("B200"));
        QCOMPARE(b.tax.contextParallel, 11072962560.0);

        QCOMPARE(fileLoraParams(a, 8, {"q_proj", "v_proj"}), std::optional<int64_t>(10956800));
        QCOMPARE(perOpRecomputeShare(a), 2140160.0 / 5447680.0);

        const nlohmann::json j =
            breakdownToJson(b, s, testdata::gpu("B200"), computeCost(b.model, s, testdata::gpu("B200")));
        const nlohmann::json& full = j["params"]["shape"]["full_attention"];
        QCOMPARE(full["layers"].get<int64_t>(), int64_t(10));
        QCOMPARE(full["kv_heads"].get<int64_t>(), int64_t(4));
        QCOMPARE(full["head_dim"].get<int64_t>(), int64_t(512));
        QCOMPARE(full["k_eq_v"].get<bool>(), true);
        QCOMPARE(j["params"]["shape"]["head_dim"].get<int64_t>(), int64_t(256));
    }

    // The compute receipt's attention FLOPs (Kaplan et al. 2020 §2.1: 2·L·s·d_attn forward, 3× in training) run over
    // the keys each kind's queries meet. gpt-oss-120b at s = 8192: 18 full layers over 8192 keys and 18 sliding
    // layers over their 128, 64 heads of 64 (d_qk + d_v = 128): 3 · 64 · 128 · 18 · (8192 + 128) = 3,680,501,760
    // FLOPs a token beside 6·active. Qwen3-Next-80B at s = 8192: only its 12 gated-attention layers score, 16 heads of
    // 256: 3 · 16 · 512 · 12 · 8192 = 2,415,919,104 (its 36 Gated DeltaNet layers have no scores).
    void attentionFlopsFollowTheLayerKinds_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<double>("attention");
        QTest::newRow("gpt-oss-120b: 18 full layers over 8192 keys, 18 sliding over 128")
            << QString::fromUtf8(kGptOss120b) << 3680501760.0;
        QTest::newRow("Qwen3-Next-80B: 12 attention layers, 36 linear ones without scores")
            << QString::fromUtf8(kQwen3Next80b) << 2415919104.0;
    }
    void attentionFlopsFollowTheLayerKinds()
    {
        QFETCH(QString, json);
        QFETCH(double, attention);
        Scenario s = imported(json.toStdString().c_str());
        s.training.seqLen = 8192;
        const ResolvedModel m = resolveModel(s.model);
        const CostReceipt r = computeCost(m, s, testdata::gpu("H100"));
        QCOMPARE(r.flopsPerToken - 6 * static_cast<double>(m.params.active), attention);
    }

    // Gemma 4 E2B and E4B (modeling_gemma4.py @ c308a309e651a7e033f683353f3f75aa66d29502), counted as transformers
    // builds them. A layer holds four norms of h, q_proj and o_proj (8 heads of 256 in a sliding layer, of 512 in a
    // full one), q_norm, and unless it reuses an earlier layer's K and V (Gemma4TextAttention.is_kv_shared_layer: the
    // last num_kv_shared_layers) k_proj, v_proj (K/V heads of the layer's head size) and k_norm; a gated MLP
    // (3·h·f, 2f in the shared layers under use_double_wide_mlp); per_layer_input_gate and per_layer_projection
    // (2·h·256) and a norm of h. The model: the tied embedding V·h, the final norm, per_layer_model_projection
    // h·L·256 and its norm of 256, and the table embed_tokens_per_layer 262,144·L·256 (not active: a lookup).
    //  E2B (h 1536, f 6144, 35 layers, full every 5th, one K/V head, the last 20 shared: 12 sliding and 3 full own,
    //  16 and 4 shared): sliding own 3,145,728·2 + 393,216·2 + 512 + 6,144 + 28,311,552 + 787,968 = 36,184,064 × 12;
    //  full own 6,291,456·2 + 786,432·2 + 1,024 + 6,144 + 28,311,552 + 787,968 = 43,262,464 × 3; sliding shared
    //  6,291,456 + 256 + 6,144 + 56,623,104 + 787,968 = 63,708,928 × 16; full shared 12,582,912 + 512 + 6,144 +
    //  56,623,104 + 787,968 = 70,000,640 × 4: 1,863,341,568 in the layers; + 402,653,184 + 1,536 + 13,762,560 + 256 =
    //  2,279,759,104 active (Google: "2.3B effective"), + 2,348,810,240 of table = 4,628,569,344.
    //  E4B (h 2560, f 10240, 42 layers, full every 6th, two K/V heads, the last 18 shared, no double-wide MLP: 20 and
    //  4 own, 15 and 3 shared): 93,074,432 × 20 + 106,182,144 × 4 + 90,452,736 × 15 + 100,938,752 × 3 =
    //  3,945,824,512; + 671,088,640 + 2,560 + 27,525,120 + 256 = 4,644,441,088 active, + 2,818,572,288 =
    //  7,463,013,376.
    //  The towers: vision (Gemma4VisionModel, hv 768, 16 layers of 12 heads of 64, MLP 3072, patch 16, 10,240
    //  positions) 16,318,464 + 16 · 9,440,384 + 768·h: 168,544,256 (E2B), 169,330,688 (E4B); audio
    //  (Gemma4AudioModel with Gemma4AudioConfig's defaults, see gemma4AudioParams) 1,086,752 + 12 · 25,180,288 +
    //  1,574,400 + 1536·h: 307,183,904 (E2B), 308,756,768 (E4B). All of E2B: 5,104,297,504 (Google: "5.1B with
    //  embeddings"); of E4B: 7,941,100,832 ("8B").
    void gemma4E2bAndE4bCountAsTransformersBuildsThem_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("active");
        QTest::addColumn<qint64>("vision");
        QTest::addColumn<qint64>("audio");
        QTest::newRow("E2B: 35 layers, the last 20 shared and double-wide")
            << QString::fromUtf8(kGemma4E2b) << qint64(4628569344) << qint64(2279759104) << qint64(168544256)
            << qint64(307183904);
        QTest::newRow("E4B: 42 layers, the last 18 shared")
            << QString::fromUtf8(kGemma4E4b) << qint64(7463013376) << qint64(4644441088) << qint64(169330688)
            << qint64(308756768);
    }
    void gemma4E2bAndE4bCountAsTransformersBuildsThem()
    {
        QFETCH(QString, json);
        QFETCH(qint64, total);
        QFETCH(qint64, active);
        QFETCH(qint64, vision);
        QFETCH(qint64, audio);
        const HfImport imp = parseHfConfig(json.toStdString(), "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const ParamCount c = countParams(imp.architecture);
        QCOMPARE(qint64(c.total), total);
        QCOMPARE(qint64(c.active), active);
        QCOMPARE(qint64(c.vision), vision);
        QCOMPARE(qint64(c.audio), audio);
        // --json names the towers apart; the report's first line counts both.
        const Scenario s = scenarioWithHfModel(testdata::sized(7'000'000'000), imp, "");
        const Breakdown b = account(s, testdata::gpu("H100"));
        const nlohmann::json j =
            breakdownToJson(b, s, testdata::gpu("H100"), computeCost(b.model, s, testdata::gpu("H100")));
        QCOMPARE(j["params"]["vision"].get<int64_t>(), int64_t(vision));
        QCOMPARE(j["params"]["audio"].get<int64_t>(), int64_t(audio));
        // The scenario file keeps what the count needs.
        const ScenarioParse back = parseScenario(scenarioToText(s), "saved.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().toString().c_str());
        // (A dropout or MLP bias the import sets to its default is written as the default: compared as what it
        // means.)
        Architecture got = back.scenario.model.architecture, want = s.model.architecture;
        for (Architecture* a : {&got, &want}) {
            a->dropout = a->dropoutOrDefault();
            a->mlpBias = a->mlpBiasOrDefault();
            a->attentionBias = a->attentionBiasOrDefault();
        }
        QCOMPARE(got.kinds, want.kinds);
        QCOMPARE(got.perLayerInput, want.perLayerInput);
        QCOMPARE(got.audioParams, want.audioParams);
        QCOMPARE(got, want);
    }

    // The shared layers keep no KV cache (Gemma4TextAttention.forward: no past_key_values.update where
    // is_kv_shared_layer). Served at 131,072 tokens in bf16: E2B's 3 own full layers 2·3·1·512·131072·2 B =
    // 805,306,368 and 12 own sliding layers 2·12·1·256·512·2 B = 6,291,456: 811,597,824 (all 35 layers would keep
    // 1,879,048,192 + 14,680,064); E4B's 4 full 2·4·2·512·131072·2 B = 2,147,483,648 and 20 sliding 2·20·2·256·512·2 B
    // = 20,971,520: 2,168,455,168.
    void gemma4SharedLayersKeepNoCache_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<double>("kv");
        QTest::addColumn<QString>("why");
        QTest::newRow("E2B") << QString::fromUtf8(kGemma4E2b) << 811597824.0
                             << QStringLiteral(
                                    "3 full-attention layers keep every token; 12 sliding-window layers keep "
                                    "the last 512 tokens. 20 more layers attend with an earlier layer's K");
        QTest::newRow("E4B") << QString::fromUtf8(kGemma4E4b) << 2168455168.0
                             << QStringLiteral(
                                    "4 full-attention layers keep every token; 20 sliding-window layers keep "
                                    "the last 512 tokens. 18 more layers attend with an earlier layer's K");
    }
    void gemma4SharedLayersKeepNoCache()
    {
        QFETCH(QString, json);
        QFETCH(double, kv);
        QFETCH(QString, why);
        const Scenario s = serving(imported(json.toStdString().c_str()), 131072);
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.kvCache, kv);
        const TermText t = explainTerm(SegmentKind::KvCache, termContext(b.model, s, b.layout));
        QVERIFY2(QString::fromStdString(t.notes.assumptions).contains(why), t.notes.assumptions.c_str());
    }

    // The tape of the E models' extra parts, at s = 4096, b = 1, bf16, no checkpointing. Per layer the per-layer input
    // keeps e·sb·(2h + 6p) (activations.cpp: the gate's input and the norm's, the GELU's input, the product's two
    // factors, the projection's input, and the model's per_layer_inputs two more p): 2·4096·(2·1536 + 6·256) =
    // 37,748,736 B. The 20 double-wide layers' gated MLP keeps 3·e·sb·f more (fused gate‖up and the down
    // projection's input): 20 · 3 · 2 · 4096 · 6144 = 3,019,898,880 B beside the same model without
    // use_double_wide_mlp.
    void gemma4PerLayerInputsAndWideLayersHaveTheirTape()
    {
        Scenario s = imported(kGemma4E2b);
        s.training.seqLen = 4096;
        s.training.microBatch = 1;
        s.training.precision = Precision::BF16;
        s.training.checkpointing = Checkpointing::None;
        const ActivationInputs in = activationInputs(s, 1, 1);
        Architecture plain = s.model.architecture;
        plain.perLayerInput = 0;
        plain.perLayerVocab = 0;
        QCOMPARE(layerActivations(s.model.architecture, false, in, LayerKind::Sliding).total() -
                     layerActivations(plain, false, in, LayerKind::Sliding).total(),
                 37748736.0);
        Scenario narrow = s;
        narrow.model.architecture.kinds.kvSharedFfn = 0;
        const GpuSpec gpu = testdata::gpu("B200");
        QCOMPARE(account(s, gpu).perGpu.activations - account(narrow, gpu).perGpu.activations, 3019898880.0);
    }

    void gemma4KvSharingIsChecked_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("every layer shared")
            << QStringLiteral(R"({"model_type": "gemma4_text", "num_hidden_layers": 6, "num_kv_shared_layers": 6})")
            << QStringLiteral(
                   "config.json: /num_kv_shared_layers: must leave at least one layer that computes its own keys and "
                   "values (6 layers), got 6");
        QTest::newRow("a shared full layer with no full layer before the sharing")
            << QStringLiteral(R"({"model_type": "gemma4_text", "num_hidden_layers": 4, "num_kv_shared_layers": 1,
                "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]})")
            << QStringLiteral("config.json: /num_kv_shared_layers: leaves no earlier full-attention layer");
    }
    void gemma4KvSharingIsChecked()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        const QString got = firstImportError(json);
        QVERIFY2(got.startsWith(message), qPrintable(got));
    }

    // Without layer_types, Cohere2Config and Exaone4Config fill it in: layer i slides when (i + 1) %
    // sliding_window_pattern != 0, pattern 4, sliding_window 4096 (configuration_cohere2.py and
    // configuration_exaone4.py @ 008e574391258935f3ecc3035c882e73bbcac419, __post_init__); a null window slides
    // nowhere.
    void cohere2AndExaone4DefaultToThreeSlidingLayersToEachFullOne_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<qint64>("sliding");
        QTest::addColumn<qint64>("window");
        QTest::addColumn<double>("kvAt128k"); // bf16, one sequence of 131,072 tokens
        // Cohere2Config's 40 layers: 10 full (layers 3, 7, …, 39), 30 sliding; 64 KV heads (num_key_value_heads
        // defaults to the heads) of 8192/64 = 128. Full: 2 · 10 · 64 · 128 · 131072 · 2 B = 42,949,672,960 B;
        // sliding, the last 4096 tokens: 2 · 30 · 64 · 128 · 4096 · 2 B = 4,026,531,840 B.
        QTest::newRow("cohere2 with no layer_types: 30 of 40 layers slide over 4096 tokens")
            << R"({"model_type": "cohere2"})" << qint64(30) << qint64(4096) << 42949672960.0 + 4026531840.0;
        // The old integer pattern still read: every fifth layer full, 32 of 40 sliding.
        QTest::newRow("cohere2 sliding_window_pattern 5: 32 of 40")
            << R"({"model_type": "cohere2", "sliding_window_pattern": 5})" << qint64(32) << qint64(4096) << -1.0;
        QTest::newRow("cohere2 with a null sliding_window: none")
            << R"({"model_type": "cohere2", "sliding_window": null})" << qint64(0) << qint64(0) << -1.0;
        // Exaone4Config's 32 layers: 8 full, 24 sliding; 32 KV heads of 4096/32 = 128. Full: 2 · 8 · 32 · 128 ·
        // 131072 · 2 B = 17,179,869,184 B; sliding: 2 · 24 · 32 · 128 · 4096 · 2 B = 1,610,612,736 B.
        QTest::newRow("exaone4 with no layer_types: 24 of 32 layers slide over 4096 tokens")
            << R"({"model_type": "exaone4"})" << qint64(24) << qint64(4096) << 17179869184.0 + 1610612736.0;
        QTest::newRow("exaone4 with a window of 2048 and no layer_types")
            << R"({"model_type": "exaone4", "sliding_window": 2048})" << qint64(24) << qint64(2048) << -1.0;
        QTest::newRow("exaone4 with a null sliding_window: none")
            << R"({"model_type": "exaone4", "sliding_window": null})" << qint64(0) << qint64(0) << -1.0;
        // A file's own layer_types wins over the pattern (EXAONE 4.0's files write both, the pattern as "LLLG").
        QTest::newRow("exaone4 layer_types beside a pattern string")
            << R"({"model_type": "exaone4", "num_hidden_layers": 4, "sliding_window_pattern": "LLLG",
                  "layer_types": ["sliding_attention", "full_attention", "full_attention", "full_attention"]})"
            << qint64(1) << qint64(4096) << -1.0;
    }
    void cohere2AndExaone4DefaultToThreeSlidingLayersToEachFullOne()
    {
        QFETCH(QString, json);
        QFETCH(qint64, sliding);
        QFETCH(qint64, window);
        QFETCH(double, kvAt128k);
        const HfImport imp = parseHfConfig(json.toStdString(), "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(imp.architecture.kinds.sliding, sliding);
        QCOMPARE(imp.architecture.kinds.window, window);
        if (kvAt128k > 0) {
            const Scenario s = serving(imported(json.toStdString().c_str()), 131072);
            QCOMPARE(account(s, testdata::gpu("H100")).perGpu.kvCache, kvAt128k);
        }
    }

    void gptOss120bAt128kKeepsTheKvOfItsFullLayersOnly()
    {
        const Scenario s = serving(imported(kGptOss120b), 131072);
        const Breakdown b = account(s, testdata::gpu("H100"));
        // 18 full-attention layers keep K and V of all 131,072 tokens: 2 · 18 · 8 KV heads · 64 · 131072 · 2 B
        // = 4,831,838,208 B (4.83 GB); the 18 sliding layers keep their last 128 tokens: 2 · 18 · 8 · 64 · 128 · 2 B
        // = 4,718,592 B. 4,836,556,800 B in all, not the 9.66 GB of 36 full layers.
        QCOMPARE(b.perGpu.kvCache, 4831838208.0 + 4718592.0);
        QCOMPARE(b.perGpu.recurrentState, 0.0);
        const TermText t = explainTerm(SegmentKind::KvCache, termContext(b.model, s, b.layout));
        const QString why = QString::fromStdString(t.notes.assumptions);
        QVERIFY2(why.contains(QStringLiteral("18 full-attention layers keep every token")), qPrintable(why));
        QVERIFY2(why.contains(QStringLiteral("18 sliding-window layers keep the last 128 tokens")), qPrintable(why));
    }

    // The built-in gpt-oss-120b preset (issue 29 §3) carries the same layer kinds as the imported file: served at 128k
    // in bf16 its KV cache is the 4,836,556,800 B above.
    void gptOss120bPresetKeepsItsSlidingLayers()
    {
        Scenario s = serving(testdata::preset("gpt-oss-120b"), 131072);
        QCOMPARE(s.model.architecture.kinds.sliding, int64_t(18));
        QCOMPARE(s.model.architecture.kinds.window, int64_t(128));
        QCOMPARE(account(s, testdata::gpu("H100")).perGpu.kvCache, 4831838208.0 + 4718592.0);
    }

    // Regression: the recurrent state's colour (0x86bcb6) was 25 levels from the fp32 master weights' (0x76b7b2), so a
    // hybrid model's legend showed two teal swatches. Every term's colour is at least 50 levels (summed over R, G and
    // B) from every other's; the closest pair of the Tableau 10 colours the table uses is 59.
    void everyTermHasItsOwnColour()
    {
        auto distance = [](uint32_t x, uint32_t y) {
            int d = 0;
            for (int shift : {0, 8, 16})
                d += std::abs(static_cast<int>((x >> shift) & 0xff) - static_cast<int>((y >> shift) & 0xff));
            return d;
        };
        for (size_t i = 0; i < kTermCount; ++i)
            for (size_t j = i + 1; j < kTermCount; ++j) {
                const TermInfo& a = termInfo(kAllSegmentKinds[i]);
                const TermInfo& b = termInfo(kAllSegmentKinds[j]);
                QVERIFY2(distance(a.colour, b.colour) >= 50,
                         qPrintable(QStringLiteral("%1 and %2").arg(QLatin1String(a.key), QLatin1String(b.key))));
            }
    }

    void slidingScoresAreBoundedByTheWindowWithoutFlashAttention()
    {
        const Architecture a = imported(kGptOss120b).model.architecture;
        ActivationInputs in;
        in.seq = 8192;
        in.flashAttention = false;
        // Unfused scores without dropout (gpt-oss trains without): e · a · s · keys · b. A full layer's queries meet
        // all 8192 keys: 2 · 64 · 8192 · 8192 = 8,589,934,592 B; a sliding layer's 128: 2 · 64 · 8192 · 128 =
        // 134,217,728 B. With flash attention both keep the 4 · a · s · b log-sum-exp, 2,097,152 B.
        QCOMPARE(layerActivations(a, true, in, LayerKind::Full).scores, 8589934592.0);
        QCOMPARE(layerActivations(a, true, in, LayerKind::Sliding).scores, 134217728.0);
        in.flashAttention = true;
        QCOMPARE(layerActivations(a, true, in, LayerKind::Sliding).scores, 2097152.0);
    }

    void qwen3NextCountsAsTransformersBuildsIt()
    {
        const Architecture a = imported(kQwen3Next80b).model.architecture;
        QCOMPARE(a.kinds.linear, qint64(36)); // (i + 1) % 4 != 0: three of every four layers
        QVERIFY(a.gatedAttention);
        // modeling_qwen3_next.py @ 7515843b617551b008901620ca58f1208bbc330d, h = 2048, V = 151936:
        //   embeddings untied 2·V·h = 622,329,856; final norm 2,048; two norms a layer, 4,096 · 48 = 196,608;
        //   gated attention (12 layers): q_proj h·(16·256·2) 16,777,216 + k_proj, v_proj h·512 each 2,097,152 +
        //     o_proj 4096·h 8,388,608 + q_norm, k_norm 2·256 = 27,263,488; · 12 = 327,161,856;
        //   Gated DeltaNet (36 layers): in_proj_qkvz h·(2·2048 + 2·4096) 25,165,824 + in_proj_ba h·64 131,072 +
        //     conv1d 8192·4 32,768 + dt_bias, A_log 64 + norm 128 + out_proj 4096·h 8,388,608 = 33,718,464;
        //     · 36 = 1,213,864,704;
        //   MoE (48 layers): 512 experts · 3·h·512 1,610,612,736 + shared expert 3,145,728 + router h·512
        //     1,048,576 + shared_expert_gate h 2,048 = 1,614,809,088; · 48 = 77,510,836,224.
        //   Total 79,674,391,296 (Qwen: 80B). Active: 10 experts, 31,457,280 instead of 1,610,612,736 a layer:
        //   35,653,632 · 48 = 1,711,374,336, and 3,874,929,408 in all (Qwen: 3B activated; 3.87B counts the
        //   embeddings).
        const ParamCount c = countParams(a);
        QCOMPARE(c.total, qint64(79674391296));
        QCOMPARE(c.active, qint64(3874929408));
    }

    void qwen35TextCountsADenseMlpBesideTheQwen3NextLayers()
    {
        // A qwen3_5_text file with only its model_type: Qwen3_5TextConfig's defaults (modular_qwen3_5.py @
        // 8940358af7421e958995b05136ca14ce54bef39c, "similar to Qwen3.5-9B"): h 4096, 32 layers (every 4th full
        // attention: 8 full, 24 Gated DeltaNet), 16 heads, 4 KV heads of 256, MLP 12288, V 248320, untied.
        //   embeddings 2·V·h = 2,034,237,440; final norm 4,096; two norms a layer, 8,192 · 32 = 262,144;
        //   gated attention: q_proj h·8192 33,554,432 + k, v h·1024 8,388,608 + o 16,777,216 + q/k norms 512 =
        //     58,720,768; · 8 = 469,766,144;
        //   Gated DeltaNet: in_proj_qkv h·8192 33,554,432 + in_proj_z h·4096 16,777,216 + in_proj_b, in_proj_a
        //     h·32 each 262,144 + conv1d 8192·4 32,768 + dt_bias, A_log 64 + norm 128 + out_proj 16,777,216 =
        //     67,403,968; · 24 = 1,617,695,232;
        //   SwiGLU MLP 3·h·12288 = 150,994,944; · 32 = 4,831,838,208.
        //   Total 8,953,803,264 (Qwen3.5-9B's language model; a wrapper's vision tower is apart, tst_hfconfig).
        const HfImport imp = parseHfConfig(R"({"model_type": "qwen3_5_text"})", "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(imp.architecture.kinds.linear, qint64(24));
        QCOMPARE(countParams(imp.architecture).total, qint64(8953803264));
        // The multimodal wrapper's language model is its text_config (its vision tower: ParamCount::vision).
        const HfImport wrapped = parseHfConfig(
            R"({"model_type": "qwen3_5", "text_config": {"model_type": "qwen3_5_text"}, "vision_config": {}})", "c");
        QVERIFY(wrapped.ok());
        QCOMPARE(countParams(wrapped.architecture).total, qint64(8953803264));
    }

    void qwen35MoeTextCountsItsExpertsInEveryLayer()
    {
        // A qwen3_5_moe_text file with only its model_type: Qwen3_5MoeTextConfig's defaults (modular_qwen3_5_moe.py @
        // e36255cb9af68ea2c16fefd6b1c798882cafda16, "similar to Qwen3.5-35B-A3B"): h 2048, 40 layers (10 full, 30
        // Gated DeltaNet), 16 heads, 2 KV heads of 256, V 248320, untied, every layer a Qwen3NextSparseMoeBlock of
        // 256 experts of 512 (8 a token) with a shared expert of 512 behind its gate.
        //   embeddings 2·V·h = 1,017,118,720; final norm 2,048; norms 4,096 · 40 = 163,840;
        //   gated attention 27,263,488 (as Qwen3-Next's, the same widths) · 10 = 272,634,880;
        //   Gated DeltaNet 33,718,464 (likewise) · 30 = 1,011,553,920;
        //   MoE 256 · 3·h·512 = 805,306,368 + shared 3,145,728 + router h·256 524,288 + gate 2,048 = 808,978,432;
        //     · 40 = 32,359,137,280; active 8 experts 25,165,824 + 3,145,728 + 524,288 + 2,048 = 28,837,888 · 40.
        //   Total 34,660,610,688, active 3,454,988,928 (Qwen3.5-35B-A3B's language model: 35B, 3B active).
        const HfImport imp = parseHfConfig(R"({"model_type": "qwen3_5_moe_text"})", "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const ParamCount c = countParams(imp.architecture);
        QCOMPARE(c.total, qint64(34660610688));
        QCOMPARE(c.active, qint64(3454988928));
    }

    void qwen3NextAt128kKeepsTwelveLayersKvAndThirtySixStates()
    {
        const Scenario s = serving(imported(kQwen3Next80b), 131072);
        const Breakdown b = account(s, testdata::gpu("H100"));
        // 12 gated-attention layers: 2 · 12 · 2 KV heads · 256 · 131072 · 2 B = 3,221,225,472 B.
        QCOMPARE(b.perGpu.kvCache, 3221225472.0);
        // 36 Gated DeltaNet layers, per sequence: the fp32 state 32 value heads · 128 · 128 · 4 B = 2,097,152 B and
        // the conv state (2·2048 + 4096) channels · 4 · 2 B = 65,536 B: 2,162,688 B a layer, 77,856,768 B in all,
        // whatever the context.
        QCOMPARE(b.perGpu.recurrentState, 77856768.0);
        const Breakdown shorter = account(serving(s, 4096), testdata::gpu("H100"));
        QCOMPARE(shorter.perGpu.recurrentState, 77856768.0);
        const TermText t = explainTerm(SegmentKind::KvCache, termContext(b.model, s, b.layout));
        QVERIFY(QString::fromStdString(t.notes.assumptions)
                    .contains(QStringLiteral("36 linear-attention (Gated DeltaNet) layers keep no keys or values")));
        // The verdict names the state beside the cache.
        QVERIFY(
            QString::fromStdString(verdict(b, s, testdata::gpu("H100"))).contains(QStringLiteral("recurrent state")));
    }

    void recurrentStateIsSplitByTensorParallel()
    {
        Scenario s = serving(imported(kQwen3Next80b), 131072);
        s.hardware.gpus = 2;
        s.hardware.tp = 2;
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.recurrentState, 77856768.0 / 2);
        QCOMPARE(b.perGpu.kvCache, 3221225472.0 / 2);
    }

    void trainingKeepsNoRecurrentState()
    {
        Scenario s = imported(kQwen3Next80b);
        s.training.mode = Mode::Training;
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.recurrentState, 0.0);
        QCOMPARE(b.perGpu.kvCache, 0.0);
    }

    void linearAttentionTapeIsLinearInContext()
    {
        const Architecture a = imported(kQwen3Next80b).model.architecture;
        ActivationInputs in;
        in.flashAttention = false;
        in.seq = 4096;
        const double at4k = layerActivations(a, true, in, LayerKind::Linear).total();
        in.seq = 8192;
        const double at8k = layerActivations(a, true, in, LayerKind::Linear).total();
        // No s² term: twice the context, twice the tape (the full layer's unfused scores grow fourfold).
        QCOMPARE(at8k, 2 * at4k);
        // The chunked kernel's fp32 64 × 64 blocks in place of the scores: 4 · 64 · s · 32 value heads.
        QCOMPARE(layerActivations(a, true, in, LayerKind::Linear).scores, 4.0 * 64 * 8192 * 32);
    }

    void hybridTrainingTapeIsTheLayersOfEachKind()
    {
        Scenario s = imported(kGptOss120b);
        s.training.mode = Mode::Training;
        s.training.seqLen = 8192;
        s.training.flashAttention = false;
        const Breakdown b = account(s, testdata::gpu("H100"));
        const Architecture& a = b.model.arch;
        ActivationInputs in = activationInputs(s, 1);
        // 18 full and 18 sliding MoE layers, one micro-batch: the tape is the two kinds' tapes 18 times each.
        const double expected = 18 * layerActivations(a, true, in, LayerKind::Full).total() +
                                18 * layerActivations(a, true, in, LayerKind::Sliding).total();
        QCOMPARE(b.perGpu.activations, expected);
        const TermText t = explainTerm(SegmentKind::Activations, termContext(b.model, s, b.layout));
        QVERIFY(QString::fromStdString(t.expr.symbolic).contains(QStringLiteral("L_sliding")));
    }

    void hybridContextCurveBendsLater()
    {
        // The same gpt-oss-120b served with and without its sliding layers: at every context of the sweep the
        // hybrid keeps less, and the difference is the sliding layers' tokens beyond the window,
        // 2 · 18 · 8 · 64 · (s − 128) · 2 B once s passes 128 (the sweep starts at 512).
        Scenario hybrid = serving(imported(kGptOss120b), 8192);
        hybrid.hardware.gpus = 4;
        hybrid.hardware.tp = 4;
        Scenario plain = hybrid;
        plain.model.architecture.kinds = LayerKinds{};
        const GpuSpec h100 = testdata::gpu("H100");
        const ContextSweep h = sweepContext(hybrid, h100);
        const ContextSweep p = sweepContext(plain, h100);
        QCOMPARE(h.seq, p.seq);
        const size_t none = static_cast<size_t>(Checkpointing::None);
        for (size_t i = 0; i < h.seq.size(); ++i) {
            const double kvSaved = 2.0 * 18 * 8 * 64 * (h.seq[i] - 128) * 2 / 4; // ÷ tp 4
            // + the 5% fragmentation reserve on it
            QVERIFY(qAbs(p.totalPerGpu[none][i] - h.totalPerGpu[none][i] - kvSaved * 1.05) < 1.0);
        }
        QVERIFY(p.diesFromSeq);
        QVERIFY(!h.diesFromSeq || *h.diesFromSeq > *p.diesFromSeq);
    }

    void nemotronHCountsItsBlocksAsTransformersBuildsThem()
    {
        // A file with only its model_type: NemotronHConfig's defaults (configuration_nemotron_h.py @
        // cfeb552ef0cb77b59ff08da07698ecaad5f7b5ba): blocks M, E, *, E; h 4096, V 131072 untied, 32 heads, 8 KV heads
        // of 128; Mamba 128 heads of 64, state 128, 8 groups, conv 4 with a bias; 8 experts of 7688, 2 a token, a
        // shared expert of 7688. modeling_nemotron_h.py @ 897753a012bfa6dac8c0ae3281f23a2fc1e72db6:
        //   embeddings 2·V·h = 1,073,741,824; final norm 4,096; one norm a block, 4 · 4,096 = 16,384;
        //   Mamba-2 (d_inner 8192, conv_dim 8192 + 2·8·128 = 10,240): in_proj h·(8192 + 10240 + 128) 76,021,760 +
        //     conv1d 10,240·4 + 10,240 bias 51,200 + dt_bias, A_log, D 384 + norm 8,192 + out_proj 8192·h
        //     33,554,432 = 109,635,968;
        //   attention q, o 4096·4096 each + k, v 4096·1024 each = 41,943,040;
        //   MoE (2 blocks): 8 experts · 2·h·7688 = 503,840,768 + shared 62,980,096 + router 8·h 32,768 =
        //     566,853,632; · 2 = 1,133,707,264; active: 2 experts 125,960,192 + shared + router = 188,973,056, · 2.
        //   Total 2,359,048,576; active 1,603,287,424.
        const HfImport imp = parseHfConfig(R"({"model_type": "nemotron_h"})", "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const Architecture& a = imp.architecture;
        QCOMPARE(a.layers, qint64(4));
        QCOMPARE(a.kinds.mamba, qint64(1));
        QCOMPARE(a.layersOfKind(LayerKind::Full), qint64(1));
        const ParamCount c = countParams(a);
        QCOMPARE(c.total, qint64(2359048576));
        QCOMPARE(c.active, qint64(1603287424));
    }

    void nemotronHKeepsMambaStatesAndItsAttentionLayersKv()
    {
        // The defaults above served at 131,072 tokens: the one attention block keeps 2 · 1 · 8 · 128 · 131072 · 2 B
        // = 536,870,912 B; the Mamba-2 block its SSM state 128 heads · 64 · 128 · 4 B (mamba_ssm_cache_dtype
        // float32) = 4,194,304 B and its conv state 10,240 · 4 · 2 B = 81,920 B: 4,276,224 B.
        const Scenario s = serving(imported(R"({"model_type": "nemotron_h"})"), 131072);
        const Breakdown b = account(s, testdata::gpu("H100"));
        QCOMPARE(b.perGpu.kvCache, 536870912.0);
        QCOMPARE(b.perGpu.recurrentState, 4276224.0);
    }

    void nemotronHDenseMlpBlocksHaveTwoMatrices()
    {
        // A dense '-' block holds NemotronHMLP: up_proj and down_proj of intermediate_size, 2·h·f (relu², not
        // gated). Adding one to the defaults' blocks (M, E, *, E, -) adds 2 · 4096 · 21504 = 176,160,768 and its
        // norm 4,096 to the 2,359,048,576 above.
        const HfImport imp =
            parseHfConfig(R"({"model_type": "nemotron_h", "hybrid_override_pattern": "ME*E-"})", "config.json");
        QVERIFY(imp.ok());
        QCOMPARE(countParams(imp.architecture).total, qint64(2359048576 + 176160768 + 4096));
    }

    // Nemotron 3 Super's LatentMoE (tests/data/hf/NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json; NemotronHMoE in
    // modeling_nemotron_h.py @ 008d9e9577b0eb0149aa6bb0c44da582b10e0b6e): the routed experts work on moe_latent_size
    // ℓ = 1024 channels between fc1_latent_proj (h → ℓ) and fc2_latent_proj (ℓ → h); h = 4096, 512 experts of f =
    // 2688 (relu², two matrices), 22 a token, a shared expert of 5376 (two of TrainMem's 2688).
    void latentMoeTapeKeepsLatentWidthCopies()
    {
        Scenario s = testdata::hfTraining("NVIDIA-Nemotron-3-Super-120B-A12B-FP8");
        s.training.precision = Precision::BF16;
        s.training.seqLen = 4096;
        s.training.microBatch = 1;
        const Architecture a = resolveModel(s.model).arch;
        QCOMPARE(a.moe.latent, qint64(1024));
        const ActivationInputs in = activationInputs(s, 1);
        // An E block at sb = 4096, e = 2 B: the normed input e·sb·h = 33,554,432; the router's fp32 logits 4·sb·E =
        // 8,388,608; 22 routed copies of (their ℓ-wide input e·sb·ℓ 8,388,608 + relu²'s input and the down
        // projection's input 2·e·sb·f = 44,040,192) = 1,153,433,600; fc2_latent_proj's input, the summed ℓ-wide
        // output, 8,388,608; the shared expert 2 · 44,040,192 = 88,080,384. 1,291,845,632 in all.
        QCOMPARE(layerActivations(a, true, in, LayerKind::None).mlp, 1291845632.0);
        // Without the latent projections each copy would keep an h-wide input: 22 · e·sb·(h − ℓ) = 553,648,128 more,
        // and no fc2_latent_proj input (8,388,608 less).
        Architecture wide = a;
        wide.moe.latent = 0;
        QCOMPARE(layerActivations(wide, true, in, LayerKind::None).mlp -
                     layerActivations(a, true, in, LayerKind::None).mlp,
                 553648128.0 - 8388608.0);
        // The drill-down says why.
        const Breakdown trained = account(s, testdata::gpu("H100"));
        const TermText t = explainTerm(SegmentKind::Activations, termContext(trained.model, s, trained.layout));
        QVERIFY2(QString::fromStdString(t.notes.assumptions)
                     .contains(QStringLiteral("a latent MoE's experts read 1024 channels, not h")),
                 t.notes.assumptions.c_str());
        // Expert parallelism moves ℓ-wide tokens: the all-to-all tax is ℓ/h = 1/4 of the wide one's.
        s.hardware.gpus = 8;
        s.hardware.ep = 8;
        const Breakdown latent = account(s, testdata::gpu("H100"));
        Scenario w = s;
        w.model.architecture.moe.latent = 0;
        const Breakdown unprojected = account(w, testdata::gpu("H100"));
        QVERIFY(latent.tax.expertParallel > 0);
        QCOMPARE(latent.tax.expertParallel * 4, unprojected.tax.expertParallel);
    }

    void latentMoeProjectionsTakeAdapters()
    {
        const Architecture a = resolveModel(testdata::hfTraining("NVIDIA-Nemotron-3-Super-120B-A12B-FP8").model).arch;
        // fc1_latent_proj and fc2_latent_proj in 40 E blocks at r = 8: 40 · 2 · 8 · (4096 + 1024) = 3,276,800.
        QCOMPARE(loraParams(a, 8, kLoraFc1Latent | kLoraFc2Latent).total, qint64(3276800));
        // A routed expert's up_proj and down_proj are ℓ-wide: 8 · (1024 + 2688) each, 59,392 an expert, · 512 · 40 =
        // 1,216,348,160; the shared expert's are h-wide, 2 · 2 · 8 · (4096 + 2688) · 40 = 8,683,520.
        const LinearCount mlp = loraParams(a, 8, kLoraUp | kLoraDown);
        QCOMPARE(mlp.routedExperts, qint64(1216348160));
        QCOMPARE(mlp.total, qint64(1216348160 + 8683520));
        // all-linear adapts them; attn does not.
        QVERIFY(loraModulesOf(LoraTargets::All) & kLoraFc1Latent);
        QVERIFY(!(loraModulesOf(LoraTargets::Attention) & kLoraFc2Latent));
        // QLoRA quantises them with the other linears: 2·h·ℓ a block more than without.
        Architecture wide = a;
        wide.moe.latent = 0;
        QCOMPARE(linearWeights(a).total - linearWeights(wide).total,
                 qint64(40) * (qint64(2) * 4096 * 1024 - qint64(512) * 2 * 2688 * (4096 - 1024)));
    }

    void latentMoeScenarioFileKeepsItsWidth()
    {
        const Scenario s = testdata::hfTraining("NVIDIA-Nemotron-3-Super-120B-A12B-FP8");
        const std::string text = scenarioToText(s);
        QVERIFY(text.find("\"latent\": 1024") != std::string::npos);
        const ScenarioParse back = parseScenario(text, "saved.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().toString().c_str());
        QCOMPARE(back.scenario.model.architecture.moe, s.model.architecture.moe);
        QCOMPARE(countParams(back.scenario.model.architecture).total, qint64(120668687360));
        // A latent width out of range is named where it is.
        std::string bad = text;
        bad.replace(bad.find("\"latent\": 1024"), 14, "\"latent\": -1");
        const ScenarioParse refused = parseScenario(bad, "bad.json");
        QVERIFY(!refused.ok());
        QVERIFY2(refused.errors.front().toString().find("/moe/latent") != std::string::npos,
                 refused.errors.front().toString().c_str());
    }

    void nemotronHBadPatternsAreRefused_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("a pattern longer than num_hidden_layers names both numbers")
            << QStringLiteral(
                   R"({"model_type": "nemotron_h", "num_hidden_layers": 3, "hybrid_override_pattern": "M*-E"})")
            << QStringLiteral("config.json: /hybrid_override_pattern: has 4 layers for 3 layers (num_hidden_layers)");
        QTest::newRow("an unknown character is named with its index")
            << QStringLiteral(R"({"model_type": "nemotron_h", "hybrid_override_pattern": "M*X-"})")
            << QStringLiteral("config.json: /hybrid_override_pattern: unknown layer kind 'X' at layer 2");
        QTest::newRow("an unknown block type in layers_block_type is named with its index")
            << QStringLiteral(R"({"model_type": "nemotron_h", "layers_block_type": ["mamba", "ssm"]})")
            << QStringLiteral("config.json: /layers_block_type/1: unknown layer kind \"ssm\" at layer 1");
    }
    void nemotronHBadPatternsAreRefused()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        const QString got = firstImportError(json);
        QVERIFY2(got.startsWith(message), qPrintable(got));
    }

    // IBM's Granite 4.0 H (granitemoehybrid, issue 29 §1): every layer one mixer, Mamba-2 or attention by layer_types,
    // and then its MLP: no FFN-only or mixer-only blocks (modeling_granitemoehybrid.py @
    // 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e GraniteMoeHybridDecoderLayer).
    void graniteHybridLayersAreMambaOrAttentionEachWithItsMlp()
    {
        const Architecture a = imported(graniteHSmall()).model.architecture;
        QCOMPARE(a.layers, qint64(40));
        QCOMPARE(a.kinds.mamba, qint64(36));
        QCOMPARE(a.layersOfKind(LayerKind::Full), qint64(4));
        QCOMPARE(a.attentionLayers(), qint64(4));
        QCOMPARE(a.kinds.ffnOnly, qint64(0));
        QCOMPARE(a.kinds.mixerOnly, qint64(0));
        QCOMPARE(a.ffnLayers(), qint64(40));
        QCOMPARE(a.moe.experts, qint64(72));
        QCOMPARE(a.moe.activeExperts, qint64(10));
        QCOMPARE(a.moe.expertFfn, qint64(768));
        QCOMPARE(a.moe.denseBeside, qint64(1536)); // shared_mlp, on every token's path
        QCOMPARE(a.moe.sharedExperts, qint64(0));
        QCOMPARE(a.headDimOrDefault(), qint64(128));
        const Mamba2Config& m = a.kinds.mamba2;
        QCOMPARE(m.heads, qint64(128));
        QCOMPARE(m.headDim, qint64(64)); // "auto": mamba_expand · h / heads
        QCOMPARE(m.stateSize, qint64(128));
        QCOMPARE(m.groups, qint64(1));
        QCOMPARE(m.convKernel, qint64(4));
        QVERIFY(m.convBias);
        QVERIFY(!m.projBias);
        QCOMPARE(m.convDim(), qint64(8448)); // 8192 + 2 · 1 · 128
        // layers_block_type is layer_types under another name (GraniteMoeHybridConfig.attribute_map), and with
        // neither every layer is Mamba-2.
        const HfImport alias = parseHfConfig(
            R"({"model_type": "granitemoehybrid", "num_hidden_layers": 2, "layers_block_type": ["attention", "mamba"]})",
            "config.json");
        QVERIFY(alias.ok());
        QCOMPARE(alias.architecture.kinds.mamba, qint64(1));
        const HfImport none = parseHfConfig(R"({"model_type": "granitemoehybrid"})", "config.json");
        QVERIFY(none.ok());
        QCOMPARE(none.architecture.kinds.mamba, qint64(32));
        QCOMPARE(none.architecture.attentionLayers(), qint64(0));
    }

    void graniteHSmallAt128kKeepsFourLayersKvAndThirtySixMambaStates()
    {
        const Scenario s = serving(imported(graniteHSmall()), 131072);
        const Breakdown b = account(s, testdata::gpu("H100"));
        // 4 attention layers: 2 · 4 · 8 KV heads · 128 · 131072 · 2 B = 2,147,483,648 B.
        QCOMPARE(b.perGpu.kvCache, 2147483648.0);
        // 36 Mamba-2 layers, per sequence: the SSM state 128 heads · 64 · 128 in the model's 2 B (Granite's cache makes
        // its ssm_states in the model's dtype, not Nemotron-H's float32) = 2,097,152 B and the conv state 8,448
        // channels · 4 · 2 B = 67,584 B: 2,164,736 B a layer, 77,930,496 B in all, whatever the context.
        QCOMPARE(b.perGpu.recurrentState, 77930496.0);
        const Breakdown shorter = account(serving(s, 4096), testdata::gpu("H100"));
        QCOMPARE(shorter.perGpu.recurrentState, 77930496.0);
        // A scenario file keeps the 2-byte state (written only where it is not Nemotron-H's fp32).
        const nlohmann::json j = scenarioToJson(s);
        QCOMPARE(j["model"]["architecture"]["layer_kinds"]["mamba2"]["ssm_state_bytes"], nlohmann::json(2));
        QCOMPARE(parseScenarioJson(j, "granite").scenario.model.architecture.kinds.mamba2.ssmStateBytes, int64_t(2));
        QCOMPARE(shorter.perGpu.kvCache, 2147483648.0 / 32);
    }

    void graniteHybridTrainingTapeIsItsMambaAndAttentionLayers()
    {
        Scenario s = imported(graniteHSmall());
        s.training.mode = Mode::Training;
        s.training.seqLen = 8192;
        const Breakdown b = account(s, testdata::gpu("H100"));
        const Architecture& a = b.model.arch;
        const ActivationInputs in = activationInputs(s, 1);
        // 36 Mamba-2 and 4 attention layers, each with its MoE and shared MLP: the tape is each kind's 36 and 4 times.
        const double expected = 36 * layerActivations(a, true, in, LayerKind::Mamba).total() +
                                4 * layerActivations(a, true, in, LayerKind::Full).total();
        QCOMPARE(b.perGpu.activations, expected);
        // The Mamba layer's tape holds the MLP beside the mixer's saves (an FFN-only block's would hold no mixer).
        QVERIFY(layerActivations(a, true, in, LayerKind::Mamba).mlp > 0);
        QCOMPARE(b.perGpu.recurrentState, 0.0);
    }

    void graniteHybridScenarioFileKeepsItsLayers()
    {
        const Scenario s = imported(graniteHSmall());
        const ScenarioParse back = parseScenario(scenarioToText(s), "saved.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().toString().c_str());
        const Architecture& a = back.scenario.model.architecture;
        QCOMPARE(a.kinds, s.model.architecture.kinds);
        QCOMPARE(a.moe, s.model.architecture.moe);
        QCOMPARE(a.attention, s.model.architecture.attention);
        QCOMPARE(a.layers, s.model.architecture.layers);
        QCOMPARE(a.hidden, s.model.architecture.hidden);
        QCOMPARE(a.heads, s.model.architecture.heads);
        QCOMPARE(a.kvHeads, s.model.architecture.kvHeads);
        QCOMPARE(a.headDim, s.model.architecture.headDim);
        QCOMPARE(a.ffn, s.model.architecture.ffn);
        QCOMPARE(a.vocab, s.model.architecture.vocab);
        QCOMPARE(a.tiedEmbeddings, s.model.architecture.tiedEmbeddings);
        QCOMPARE(a.maxPositions, s.model.architecture.maxPositions);
        QCOMPARE(a.attentionBiasOrDefault(), s.model.architecture.attentionBiasOrDefault());
        QCOMPARE(a.mlpBiasOrDefault(), s.model.architecture.mlpBiasOrDefault());
        QCOMPARE(a.dropoutOrDefault(), s.model.architecture.dropoutOrDefault());
        QCOMPARE(countParams(a).total, qint64(32207337984));
    }

    void graniteHybridBadInputIsRefused_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("a layer_types list of the wrong length names both numbers")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "num_hidden_layers": 3,
                                  "layer_types": ["mamba", "attention"]})")
            << QStringLiteral("config.json: /layer_types: has 2 entries for 3 layers (num_hidden_layers); it needs one "
                              "a layer");
        QTest::newRow("an unknown layer kind is named with its index")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "num_hidden_layers": 3,
                                  "layer_types": ["mamba", "moe", "attention"]})")
            << QStringLiteral("config.json: /layer_types/1: unknown layer kind \"moe\" at layer 1 (known: mamba, "
                              "attention)");
        QTest::newRow("layers_block_type is checked as layer_types is")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "num_hidden_layers": 2,
                                  "layers_block_type": ["mamba", "ssm"]})")
            << QStringLiteral("config.json: /layers_block_type/1: unknown layer kind \"ssm\" at layer 1 (known: mamba, "
                              "attention)");
        QTest::newRow("a dense model needs its MLP's width")
            << QStringLiteral(
                   R"({"model_type": "granitemoehybrid", "num_local_experts": 0, "shared_intermediate_size": 0})")
            << QStringLiteral("config.json: /shared_intermediate_size: must be positive when num_local_experts is 0 "
                              "(the dense MLP's width), got 0");
        // GraniteMoeHybridConfig raises on both (configuration_granitemoehybrid.py @
        // 4f7e1d467f2615fe8de4a089a8b90cf861bea4d7).
        QTest::newRow("Mamba heads that do not divide the inner width")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "mamba_n_heads": 100})")
            << QStringLiteral("config.json: /mamba_n_heads: must divide mamba_expand · hidden_size (8192), got 100");
        QTest::newRow("a Mamba head size that does not make the inner width")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "mamba_d_head": 32})")
            << QStringLiteral("config.json: /mamba_d_head: times mamba_n_heads (128) must be mamba_expand · "
                              "hidden_size (8192), got 32");
    }
    void graniteHybridBadInputIsRefused()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        QCOMPARE(firstImportError(json), message);
    }

    void deepseekV32CountsItsIndexerAndCachesItsKeys()
    {
        // tests/data/hf/DeepSeek-V3.2.json (DeepSeek's config.json): DeepSeek-V3's widths, which TrainMem counts at
        // 671,026,404,352 total and 37,552,282,624 active (tst_hfconfig's deepseek_v3 row, the same fields), and
        // an indexer in each of the 61 layers (inference/model.py Indexer @ 220c122bc324fc4b3a5018929c4c61ee456885d7):
        // wq_b 1536 · 64·128 = 12,582,912 + wk 7168 · 128 = 917,504 + k_norm 2 · 128 = 256 + weights_proj 7168 · 64
        // = 458,752: 13,959,424 a layer, 851,524,864 in all, on the active path too.
        const HfImport imp =
            parseHfConfig(testdata::readFile(std::string(TRAINMEM_HF_DATA) + "/DeepSeek-V3.2.json"), "f");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(imp.architecture.mla.indexHeads, qint64(64));
        const ParamCount c = countParams(imp.architecture);
        QCOMPARE(c.total, qint64(671026404352 + 851524864));
        QCOMPARE(c.active, qint64(37552282624 + 851524864));
        // Served at 131,072 tokens: MLA's latent 61 · (512 + 64) · 131072 · 2 B = 9,210,691,584 B, and the indexer's
        // keys 61 · (128 · 1 B + 128/128 · 4 B) · 131072 = 1,055,391,744 B.
        const Scenario s = serving(scenarioWithHfModel(testdata::sized(7'000'000'000), imp, ""), 131072);
        QCOMPARE(account(s, testdata::gpu("H100")).perGpu.kvCache, 9210691584.0 + 1055391744.0);
        const ScenarioParse back = parseScenario(scenarioToText(s), "saved.json");
        QVERIFY(back.ok());
        QCOMPARE(back.scenario.model.architecture.mla, s.model.architecture.mla);
    }

    void fitMapKeepsTheKindsAtEverySize()
    {
        // A column's made-up shape takes the model's shares: gpt-oss's 18 sliding of 36 layers is half of any shape's
        // layers (a 32-layer shape: 16), with the same 128-token window.
        const Scenario s = serving(imported(kGptOss120b), 8192);
        const ResolvedModel current = resolveModel(s.model);
        const LayerKinds k = fitMapKinds(current, 32);
        QCOMPARE(k.sliding, qint64(16));
        QCOMPARE(k.window, qint64(128));
        // Served on H100s, the hybrid's map needs no more GPUs than the same model with every layer full, and fewer
        // where the full layers' cache is what does not fit.
        Scenario plain = s;
        plain.model.architecture.kinds = LayerKinds{};
        const GpuSpec h100 = testdata::gpu("H100");
        const FitMapAxes axes = fitMapAxes(1, 2, 1);
        const FitMap h = fitMap(s, h100, axes), p = fitMap(plain, h100, axes);
        bool fewer = false;
        for (size_t i = 0; i < h.gpus.size(); ++i) {
            const int64_t hg = h.gpus[i] > 0 ? h.gpus[i] : kMaxGpus + 1, pg = p.gpus[i] > 0 ? p.gpus[i] : kMaxGpus + 1;
            QVERIFY2(hg <= pg, qPrintable(QString::number(i)));
            fewer = fewer || hg < pg;
        }
        QVERIFY(fewer);
    }

    void servingFilmFillsTheRecurrentStateLayerByLayer()
    {
        // Qwen3-Next-80B served at 131,072 tokens: the prefill's film writes each layer's share of the KV cache and of
        // the recurrent state as it passes (24 of 48 layers: half of each), and the output head sees both whole.
        const Scenario s = serving(imported(kQwen3Next80b), 131072);
        const GpuSpec h100 = testdata::gpu("H100");
        const Breakdown b = account(s, h100);
        const StepTimeline t = stepTimeline(resolveModel(s.model), s, b);
        QCOMPARE(t.samples.size(), size_t(49)); // 48 layers and the head
        testdata::compareBytes(t.samples[23].bytes.recurrentState, 77856768.0 * 24 / 48);
        testdata::compareBytes(t.samples[23].bytes.kvCache, 3221225472.0 * 24 / 48);
        QCOMPARE(t.samples.back().bytes.recurrentState, 77856768.0);
    }

    void scenarioFileKeepsTheLayerKinds()
    {
        const Scenario s = imported(kQwen3Next80b);
        const ScenarioParse back = parseScenario(scenarioToText(s), "saved.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().toString().c_str());
        QCOMPARE(back.scenario.model.architecture.kinds, s.model.architecture.kinds);
        QVERIFY(back.scenario.model.architecture.gatedAttention);
        QCOMPARE(countParams(back.scenario.model.architecture).total, qint64(79674391296));
        const Scenario nemotron = imported(R"({"model_type": "nemotron_h"})");
        const ScenarioParse again = parseScenario(scenarioToText(nemotron), "saved.json");
        QVERIFY(again.ok());
        QCOMPARE(again.scenario.model.architecture.kinds, nemotron.model.architecture.kinds);
        QCOMPARE(countParams(again.scenario.model.architecture).total, qint64(2359048576));
    }

    void badLayerKindsAreRefused_data()
    {
        QTest::addColumn<QString>("kinds");
        QTest::addColumn<QString>("message");
        QTest::newRow("more kinds than layers")
            << QStringLiteral(R"({"sliding": 30, "sliding_window": 128, "linear": 10, "linear_attention": {}})")
            << QStringLiteral(
                   "/layer_kinds: counts 40 sliding, chunked, linear, Mamba-2 and FFN-only layers for 32 layers");
        QTest::newRow("sliding layers without their window")
            << QStringLiteral(R"({"sliding": 16})")
            << QStringLiteral("/layer_kinds/sliding_window: is required when there are sliding-window layers");
        QTest::newRow("linear layers without their widths")
            << QStringLiteral(R"({"linear": 16})")
            << QStringLiteral("/layer_kinds/linear_attention: is required when there are linear-attention layers");
        QTest::newRow("an unknown field") << QStringLiteral(R"({"mamba": 3})") << QStringLiteral("/layer_kinds/mamba");
    }
    void badLayerKindsAreRefused()
    {
        QFETCH(QString, kinds);
        QFETCH(QString, message);
        const std::string text = R"({"schema": "trainmem/scenario@1", "model": {"architecture": {"layers": 32,
            "hidden": 4096, "heads": 32, "layer_kinds": )" +
                                 kinds.toStdString() + "}}}";
        const ScenarioParse p = parseScenario(text, "s.json");
        QVERIFY(!p.ok());
        QString all;
        for (const FieldError& e : p.errors)
            all += QString::fromStdString(e.toString()) + "\n";
        QVERIFY2(all.contains(message), qPrintable(all));
    }

    void qwen3NextLayerTypesAreChecked_data()
    {
        QTest::addColumn<QString>("types");
        QTest::addColumn<QString>("message");
        QTest::newRow("a list of the wrong length names both numbers")
            << QStringLiteral(R"(["linear_attention", "full_attention"])")
            << QStringLiteral("config.json: /layer_types: has 2 entries for 48 layers (num_hidden_layers)");
        QTest::newRow("an unknown kind is named with its index")
            << QStringLiteral(R"(["linear_attention", "mamba")") +
                   QStringLiteral(R"(, "full_attention")").repeated(46) + QStringLiteral("]")
            << QStringLiteral("config.json: /layer_types/1: unknown layer kind \"mamba\" at layer 1 (known: "
                              "linear_attention, full_attention)");
    }
    void qwen3NextLayerTypesAreChecked()
    {
        QFETCH(QString, types);
        QFETCH(QString, message);
        std::string json = kQwen3Next80b;
        json.insert(json.size() - 1, ", \"layer_types\": " + types.toStdString());
        const HfImport imp = parseHfConfig(json, "config.json");
        QVERIFY(!imp.ok());
        const QString got = QString::fromStdString(imp.errors.front().toString());
        QVERIFY2(got.startsWith(message), qPrintable(got));
    }
};

QTEST_GUILESS_MAIN(TestLayerKinds)
#include "tst_layerkinds.moc"
