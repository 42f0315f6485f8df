// Importing Hugging Face config.json files (issue 9 §1): real configs of every supported family
// (tests/data/hf/, sources in its README) against the counts their publishers give, and bad input.
#include "accounting.h"
#include "hfconfig.h"
#include "params.h"
#include "scenarioio.h"
#include "testdata.h"

#include <QtTest>

using namespace trainmem;

namespace {

HfImport importFile(const QString& name)
{
    const std::string path = std::string(TRAINMEM_HF_DATA) + "/" + name.toStdString();
    const std::string text = testdata::readFile(path);
    if (text.empty())
        qFatal("missing test data %s", path.c_str());
    return parseHfConfig(text, name.toStdString());
}

// Granite 4.0 H's 40 layers, 36 Mamba-2 and 4 attention, as a layer_types list. IBM's model card gives the counts
// ("4 attention / 36 Mamba2"), not where the attention layers sit; every count and memory term depends only on how
// many layers of each kind there are, so they are put at 5, 15, 25 and 35 here.
QString graniteHLayerTypes()
{
    QStringList kinds;
    for (int i = 0; i < 40; ++i)
        kinds << (i % 10 == 5 ? QStringLiteral("\"attention\"") : QStringLiteral("\"mamba\""));
    return "[" + kinds.join(", ") + "]";
}

std::string firstError(const std::string& text)
{
    const HfImport imp = parseHfConfig(text, "config.json");
    return imp.errors.empty() ? std::string("<no error>") : imp.errors.front().toString();
}

} // namespace

class TestHfConfig : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Each row: the file, the count sum(p.numel()) gives for the model transformers builds from it
    // (derived in the row's comment from the modeling file, huggingface/transformers at commit
    // 00b676f8f0489b88652a31d70751cc540dd06305), the active count for MoE, and the publisher's figure
    // with the rounding it was given to. Exact for dense families.
    void familyMatchesPublishedCount_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("modelType");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("active");       // = total for dense models
        QTest::addColumn<qint64>("published");    // the publisher's total
        QTest::addColumn<double>("publishedTol"); // relative rounding of that figure (0: exact)

        // V=128256, h=4096, 32 layers, GQA 32/8 heads of 128, SwiGLU 14336, untied:
        // 2·V·h + 32·(h·4096 + 2·h·1024 + 4096·h + 3·h·14336 + 2h) + h. Meta's published 8,030,261,248.
        QTest::newRow("llama: Llama 3.1 8B = 8,030,261,248 exactly")
            << "Llama-3.1-8B.json"
            << "llama" << qint64(8030261248) << qint64(8030261248) << qint64(8030261248) << 0.0;
        // Tied: V·h + 28·(h·3072 + 2·h·1024 + 3072·h + 3·h·8192 + 2h) + h with h=3072, V=128256.
        // Meta's model card: 3.21B.
        QTest::newRow("llama: Llama 3.2 3B (tied) = 3.21B")
            << "Llama-3.2-3B.json"
            << "llama" << qint64(3212749824) << qint64(3212749824) << qint64(3210000000) << 0.0016;
        // Tied, h=2048, 16 layers, 32 heads of 64 (head_dim 64), 8 KV heads, MLP 8192, V=128256. A layer:
        // h·2048 + 2·h·512 + 2048·h + 3·h·8192 + 2h = 4,194,304 + 2,097,152 + 4,194,304 + 50,331,648 + 4096
        // = 60,821,504; V·h + 16·60,821,504 + h = 262,668,288 + 973,144,064 + 2048 = 1,235,814,400.
        // Meta's Llama 3.2 model card: 1.23B.
        QTest::newRow("llama: Llama 3.2 1B (tied) = 1.23B")
            << "Llama-3.2-1B.json"
            << "llama" << qint64(1235814400) << qint64(1235814400) << qint64(1230000000) << 0.0048;
        // Llama 3 8B: Llama 3.1 8B's widths (the file differs in max_position_embeddings, rope_scaling and an
        // explicit head_dim of 128 = h/heads, written by the transformers 4.52.4 that saved this copy), so the same
        // 2·V·h + 32·218,112,000 + h = 8,030,261,248. Meta's Llama 3 model card: 8B.
        QTest::newRow("llama: Meta-Llama-3-8B = 8B")
            << "Meta-Llama-3-8B.json"
            << "llama" << qint64(8030261248) << qint64(8030261248) << qint64(8000000000) << 0.0038;
        // h=8192, 80 layers, 64 heads and 8 KV heads of 128, MLP 28672, untied V=128256. A layer: 2·h·8192 +
        // 2·h·1024 + 3·h·28672 + 2h = 134,217,728 + 16,777,216 + 704,643,072 + 16,384 = 855,654,400 (Llama 2
        // 70B's, tests/data/measured/README.md); 2·V·h + 80·855,654,400 + h = 2,101,346,304 + 68,452,352,000 +
        // 8192 = 70,553,706,496. Meta's Llama 3.1 model card: 70B.
        QTest::newRow("llama: Llama 3.1 70B = 70B")
            << "Llama-3.1-70B.json"
            << "llama" << qint64(70553706496) << qint64(70553706496) << qint64(70000000000) << 0.0080;
        // Qwen2: q/k/v biases, no o bias: 2·V·h + 28·(attn 2·h² + 2·h·512 + 3584 + 2·512 + 3·h·18944 + 2h) + h,
        // h=3584, V=152064. Qwen2.5-7B model card: 7.61B (6.53B non-embedding).
        QTest::newRow("qwen2: Qwen2.5 7B (qkv bias) = 7.61B")
            << "Qwen2.5-7B.json"
            << "qwen2" << qint64(7615616512) << qint64(7615616512) << qint64(7610000000)
            << 0.001; // the card truncates 7.6156B to 7.61B
        // Qwen3: per-head q_norm/k_norm (2·128 a layer), head_dim 128 with 32 heads on h=4096, untied.
        // Qwen3-8B model card: 8.2B (6.95B non-embedding).
        QTest::newRow("qwen3: Qwen3 8B (q/k norms) = 8.2B")
            << "Qwen3-8B.json"
            << "qwen3" << qint64(8190735360) << qint64(8190735360) << qint64(8200000000) << 0.0062;
        // Tied, h=2560 with 32 heads of 128 (q is wider than h). Qwen3-4B model card: 4.0B (3.6B non-embedding).
        QTest::newRow("qwen3: Qwen3 4B (tied, head_dim·heads > hidden) = 4.0B")
            << "Qwen3-4B.json"
            << "qwen3" << qint64(4022468096) << qint64(4022468096) << qint64(4000000000) << 0.0125;
        // 48 layers of: attention 2·h·4096 + 2·h·512 + 2·128 norms, router h·128, 128 experts of 3·h·768;
        // active: 8 of 128 experts. Qwen3-30B-A3B model card: 30.5B total, 3.3B activated.
        QTest::newRow("qwen3_moe: Qwen3 30B-A3B = 30.5B total, 3.3B active")
            << "Qwen3-30B-A3B.json"
            << "qwen3_moe" << qint64(30532122624) << qint64(3353032704) << qint64(30500000000) << 0.0017;
        // Gemma 3: four norms a layer, per-head q/k norms of 256, GeGLU 6912, tied 262144 vocabulary:
        // V·h + 26·(h·1024 + 2·h·256 + 1024·h + 2·256 + 3·h·6912 + 4h) + h, h=1152. keras-hub's
        // gemma3_1b preset (the same weights) publishes 999,885,952.
        QTest::newRow("gemma3_text: Gemma 3 1B = 999,885,952 exactly")
            << "gemma-3-1b.json"
            << "gemma3_text" << qint64(999885952) << qint64(999885952) << qint64(999885952) << 0.0;
        // gpt-oss-20b (modeling_gpt_oss.py): h=2880, 24 layers, 64 heads and 8 KV heads of 64, untied V=201088.
        // A layer: attention h·4096 + 4096 + 2·(h·512 + 512) + 4096·h + h (all four with bias) + 64 sinks
        // = 26,550,144; two norms 2h; 32 experts of gate_up h·2f + 2f and down f·h + h with f=2880
        // (24,891,840 each); router h·32 + 32. Total 24·823,186,976 + 2·V·h + h = 20,914,757,184; active 4 of
        // 32 experts: 4,187,440,704. OpenAI's model card (arXiv 2508.10925, Table 1): 20.91B total, 3.61B
        // active, which leaves out the unembedding: 4,187,440,704 − V·h = 3,608,307,264.
        QTest::newRow("gpt_oss: gpt-oss-20b = 20.91B total (sinks, biased experts)")
            << "gpt-oss-20b.json"
            << "gpt_oss" << qint64(20914757184) << qint64(4187440704) << qint64(20910000000) << 0.00024;
        // phi-2 (modeling_phi.py): h=2560, 32 layers, 32 heads of 80, fc 10240, V=51200, untied. A layer: q/k/v/dense
        // 4·h² + 4h with biases, fc1/fc2 2·h·10240 + 10240 + h, one LayerNorm 2h = 78,671,360; ·32 = 2,517,483,520;
        // embed_tokens V·h, lm_head V·h + V (its bias), final_layernorm 2h: 2,779,683,840. Microsoft's model card:
        // 2.7 billion parameters.
        QTest::newRow("phi: phi-2 (parallel block, head bias) = 2.7B")
            << "phi-2.json"
            << "phi" << qint64(2779683840) << qint64(2779683840) << qint64(2700000000) << 0.03;
        // SmolLM3-3B (modeling_smollm3.py, llama's modules): no tie_word_embeddings in the file, so
        // SmolLM3Config's default true; h=2048, 36 layers, 16 heads and 4 KV heads of 128, MLP 11008, V=128256.
        // A layer: h·2048 + 2·h·512 + 2048·h + 3·h·11008 + 2h = 78,123,008; V·h + 36·78,123,008 + h =
        // 3,075,098,624. Hugging Face's SmolLM3 blog: a 3B model.
        QTest::newRow("smollm3: SmolLM3-3B (tied by default) = 3B")
            << "SmolLM3-3B.json"
            << "smollm3" << qint64(3075098624) << qint64(3075098624) << qint64(3000000000) << 0.026;
        // Mistral-7B-v0.1 (mistral): h 4096, 32 layers, 32 heads and 8 KV heads of 128, SwiGLU 14336, V 32000
        // untied: 32·(h² + 2·h·1024 + h² + 3·h·14336 + 2h) + 2·V·h + h = 7,241,732,096, the published count
        // (sumitdotml/transformers mistral-7b-v0.1/README.md, as familyFromPublishedFields cites it).
        QTest::newRow("mistral: Mistral-7B-v0.1 = 7,241,732,096 exactly")
            << "Mistral-7B-v0.1.json"
            << "mistral" << qint64(7241732096) << qint64(7241732096) << qint64(7241732096) << 0.0;
        // OLMoE-1B-7B-0125-Instruct (olmoe): OlmoeConfig's defaults' sizes with experts of 1024, so the count of
        // missingSizesTakeTheConfigClassDefaults' OLMoE row: 6,919,161,856 total, 1,282,017,280 active (8 of 64
        // experts). The OLMoE paper (arXiv 2409.02060): 7B total, 1B active (6.9B and 1.3B).
        QTest::newRow("olmoe: OLMoE-1B-7B-0125-Instruct = 6.9B total, 1.3B active")
            << "OLMoE-1B-7B-0125-Instruct.json"
            << "olmoe" << qint64(6919161856) << qint64(1282017280) << qint64(6900000000) << 0.003;
        // starcoder2-3b (starcoder2): Starcoder2Config's defaults are its sizes, derived in
        // missingSizesTakeTheConfigClassDefaults' starcoder2 row: 3,030,371,328. The model's name: 3B.
        QTest::newRow("starcoder2: StarCoder2-3B (biases, LayerNorms, GELU MLP) = 3.03B")
            << "starcoder2-3b.json"
            << "starcoder2" << qint64(3030371328) << qint64(3030371328) << qint64(3000000000) << 0.011;
        // falcon-7b-instruct (falcon, new_decoder_architecture false: one K and one V head, parallel attention, one
        // input_layernorm): FalconConfig's defaults are its sizes, derived in missingSizesTakeTheConfigClassDefaults'
        // falcon row: 6,921,720,704. TII's name: 7B.
        QTest::newRow("falcon: Falcon-7B-Instruct (multi-query, parallel block) = 6.92B")
            << "falcon-7b-instruct.json"
            << "falcon" << qint64(6921720704) << qint64(6921720704) << qint64(7000000000) << 0.012;
        // gpt_bigcode-santacoder (gpt_bigcode, multi-query): n_embd 2048, 24 layers, 16 heads of 128, n_inner 8192,
        // 2048 learned positions, V 49280, tied. A layer: c_attn h·(h + 2·128) + 2304, c_proj h² + h, MLP 2·h·8192 +
        // 8192 + h, two LayerNorms 4h = 42,490,112; 24·42,490,112 + V·h + 2048·h + 2h = 1,124,886,528. The SantaCoder
        // paper (arXiv 2301.03988): 1.1B parameters.
        QTest::newRow("gpt_bigcode: SantaCoder (multi-query, learned positions) = 1.12B")
            << "gpt_bigcode-santacoder.json"
            << "gpt_bigcode" << qint64(1124886528) << qint64(1124886528) << qint64(1100000000) << 0.023;
        // EXAONE-4.0-1.2B (exaone4): h 2048, 30 layers, 32 heads and 8 KV heads of 64, SwiGLU 4096, V 102400, tied
        // (every layer full attention: no sliding_window_pattern). A layer: h·2048 + 2·h·512 + 2048·h + 2·64
        // (per-head q/k norms) + 3·h·4096 + 2h (post-norms) = 35,655,808; 30·35,655,808 + V·h + h = 1,279,391,488
        // (1,069,676,288 without the embedding). The model's name: 1.2B.
        QTest::newRow("exaone4: EXAONE-4.0-1.2B (tied, all full attention) = 1.28B")
            << "EXAONE-4.0-1.2B.json"
            << "exaone4" << qint64(1279391488) << qint64(1279391488) << qint64(1200000000) << 0.067;
    }
    void familyMatchesPublishedCount()
    {
        QFETCH(QString, file);
        QFETCH(QString, modelType);
        QFETCH(qint64, total);
        QFETCH(qint64, active);
        QFETCH(qint64, published);
        QFETCH(double, publishedTol);
        const HfImport imp = importFile(file);
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(QString::fromStdString(imp.modelType), modelType);
        const ParamCount c = countParams(imp.architecture);
        QCOMPARE(c.total, total);
        QCOMPARE(c.active, active);
        QCOMPARE(c.mtp, qint64(0)); // no real config here has MTP modules
        const double rel = std::abs(double(c.total) - double(published)) / double(published);
        QVERIFY2(rel <= std::max(publishedTol, 1e-12) + 1e-12,
                 qPrintable(QStringLiteral("off the published count by %1%").arg(100 * rel)));
        // Rounded figures (3.21B, 4.0B) bound the count only to their last digit; the exact count is the
        // QCOMPARE above, derived from the modeling code.
    }

    // Issue 29's families and multimodal wrappers, real files from ai-dynamo/aiconfigurator (tests/data/hf/README.md),
    // counted as transformers builds them: the language model's total and active counts, its multi-token-prediction
    // modules apart (ParamCount::mtp, not built by transformers) and the vision tower with its projector apart
    // (ParamCount::vision). Derivations below; the modeling files and commits are cited in core/formats/hfconfig.cpp.
    void families2026MatchPublishedCounts_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("modelType"); // the language model's type (a wrapper's text_config)
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("active");
        QTest::addColumn<qint64>("vision");
        QTest::addColumn<qint64>("mtpLayers");
        QTest::addColumn<qint64>("published");        // the publisher's figure
        QTest::addColumn<double>("publishedTol");     // its rounding
        QTest::addColumn<bool>("publishedHasVision"); // whether that figure includes the vision tower

        // Llama 4 Scout (llama4 wrapper, text_config llama4_text): h=5120, 48 layers, 40 heads and 8 KV heads of 128,
        // attention 2·h·5120 + 2·h·1024 = 62,914,560, two norms; every layer MoE (interleave_moe_layer_step 1): 16
        // experts and one shared expert of 3·h·8192 = 125,829,120, router h·16; V=202048, untied. Total
        // 2·V·h + h + 48·(62,914,560 + 2h + 17·125,829,120 + 81,920) = 107,769,861,120; active (top-1 plus the shared
        // expert) 2·V·h + h + 48·(62,914,560 + 2h + 2·125,829,120 + 81,920) = 17,172,894,720. This copy of the
        // config.json leaves out vision_config, so the tower is Llama4VisionConfig's default (hidden 768, 34 layers,
        // MLP 5632, image 448 in patches of 14, projector 4096/4096, vision_output_dim 7680): patch 588·768,
        // class 768, positions (32² + 1)·768, two LayerNorms 4·768, 34·(4·(768² + 768) + 2·768·5632 + 5632 + 768 +
        // 4·768), adapter 5632·4096 + 4096², projector 7680·5120 = 455,178,240. Meta's model card: 17B active, 109B
        // total (Scout's own tower, hidden 1408 at image 336 and vision_output_dim 4096, is 871,932,416 by the same
        // formula; 107,769,861,120 + 871,932,416 = 108,641,793,536).
        QTest::newRow("llama4: Llama 4 Scout = 107.8B text + vision, 17.2B active (109B published)")
            << "Llama-4-Scout-17B-16E-Instruct.json"
            << "llama4_text" << qint64(107769861120) << qint64(17172894720) << qint64(455178240) << qint64(0)
            << qint64(109000000000) << 0.0075 << true;
        // Llama 4 Maverick: as Scout with 128 experts on every second layer (interleave_moe_layer_step 2: layers 1, 3,
        // …, 47) and a dense SwiGLU of intermediate_size_mlp 16384 on the other 24: 2·V·h + h + 48·(62,914,560 + 2h)
        // + 24·(129·125,829,120 + h·128) + 24·3·h·16384 = 400,711,848,960; active 2·V·h + h + 48·(62,914,560 + 2h)
        // + 24·(2·125,829,120 + h·128) + 24·3·h·16384 = 17,184,691,200. Meta's model card: 17B active, 400B total.
        QTest::newRow("llama4: Llama 4 Maverick (interleaved dense 16384 / MoE 128) = 400.7B, 17.2B active")
            << "Llama-4-Maverick-17B-128E-Instruct.json"
            << "llama4_text" << qint64(400711848960) << qint64(17184691200) << qint64(455178240) << qint64(0)
            << qint64(400000000000) << 0.0018 << false;
        // GLM-4.7 (glm4_moe, GLM-4.5's architecture): h=5120, 92 layers, 96 heads and 8 KV heads of 128: attention
        // 2·h·12288 + 2·h·1024 = 136,314,880 (this copy leaves out attention_bias and use_qk_norm: Glm4MoeConfig's
        // false); the first 3 layers dense 3·h·12288, the other 89 MoE with 160 experts and one shared expert of
        // 3·h·1536 = 23,592,960 and a router h·160; V=151552, untied. 2·V·h + h + 92·(136,314,880 + 2h) +
        // 3·188,743,680 + 89·(161·23,592,960 + 819,200) = 352,796,472,320; active (8 experts + the shared one)
        // 33,630,909,440. num_nextn_predict_layers absent: Glm4MoeConfig's num_mtp_layers 1, outside the count.
        // Zhipu publishes GLM-4.5 (and 4.7) as 355B total, 32B active (the checkpoint's MTP layer included).
        QTest::newRow("glm4_moe: GLM-4.7 = 352.8B (+1 MTP layer apart), 33.6B active (355B published)")
            << "GLM-4.7-FP8.json"
            << "glm4_moe" << qint64(352796472320) << qint64(33630909440) << qint64(0) << qint64(1)
            << qint64(355000000000) << 0.0064 << false;
        // MiniMax-M2.5 (minimax_m2, MiniMax-M2's architecture): h=3072, 62 layers, 48 heads and 8 KV heads of 128,
        // attention 2·h·6144 + 2·h·1024 = 44,040,192 with q_norm over 6144 and k_norm over 1024, two norms; 256
        // experts of 3·h·1536 = 14,155,776, router h·256; V=200064, untied. 2·V·h + h + 62·(44,040,192 + 7168 + 2h
        // + 256·14,155,776 + 786,432) = 228,689,748,992; active (8 experts) 11,030,537,216 (10,415,940,608 without
        // the input embedding). MiniMax publishes M2 as 230B total, 10B active (its 3 MTP modules, which
        // transformers does not build, included).
        QTest::newRow("minimax_m2: MiniMax-M2.5 = 228.7B, 11.0B active (230B published)")
            << "MiniMax-M2.5.json"
            << "minimax_m2" << qint64(228689748992) << qint64(11030537216) << qint64(0) << qint64(0)
            << qint64(230000000000) << 0.006 << false;
        // Qwen3-VL-8B (qwen3_vl wrapper, text_config qwen3_vl_text = Qwen3's modules): h=4096, 36 layers, 32 heads
        // and 8 KV heads of 128 with per-head q/k norms, SwiGLU 12288, V=151936, untied: 2·V·h + h + 36·(2·h·4096 +
        // 2·h·1024 + 256 + 3·h·12288 + 2h) = 8,190,735,360. Vision (hidden 1152, depth 27, MLP 4304, patches 16 by 2
        // frames, merge 2, out 4096, 2304 positions, 3 deepstack mergers): Conv3d 3·2·16²·1152 + 1152, positions
        // 2304·1152, 27·(4·1152 + 1152·3456 + 3456 + 1152² + 1152 + 2·1152·4304 + 4304 + 1152), merger 2·1152 +
        // (4608² + 4608 + 4608·4096 + 4096), deepstack 3·(2·4608 + the same) = 576,388,336. Total 8,767,123,696:
        // Hugging Face lists Qwen/Qwen3-VL-8B-Instruct at 8.77B parameters.
        QTest::newRow("qwen3_vl: Qwen3-VL-8B = 8.19B text + 0.58B vision = 8.77B")
            << "Qwen3-VL-8B-Instruct.json"
            << "qwen3_vl_text" << qint64(8190735360) << qint64(8190735360) << qint64(576388336) << qint64(0)
            << qint64(8770000000) << 0.0004 << true;
        // Qwen3-VL-30B-A3B (qwen3_vl_moe, text qwen3_vl_moe_text = Qwen3-MoE's modules): the language model is
        // Qwen3-30B-A3B's shape (the qwen3_moe row above: 30,532,122,624 total, 3,353,032,704 active); its vision
        // tower is the 8B's with out_hidden_size 2048: 576,388,336 − 4·(4608·2048) = 538,631,408. Total
        // 31,070,754,032: Hugging Face lists Qwen/Qwen3-VL-30B-A3B-Instruct at 31.1B.
        QTest::newRow("qwen3_vl_moe: Qwen3-VL-30B-A3B = 30.5B text + 0.54B vision = 31.1B")
            << "Qwen3-VL-30B-A3B-Instruct.json"
            << "qwen3_vl_moe_text" << qint64(30532122624) << qint64(3353032704) << qint64(538631408) << qint64(0)
            << qint64(31100000000) << 0.0017 << true;
        // GLM-5 (glm_moe_dsa; AIConfigurator's copy of zai-org/GLM-5-FP8's config.json, tests/data/hf/README.md), as
        // modeling_glm_moe_dsa.py @ 5641c8e222119b102b4c2a401aea3a751145173a builds it: DeepSeek-V3.2's modules with
        // h = 6144, 78 layers, 64 heads, q_lora_rank 2048, kv_lora_rank 512, qk_nope 192, qk_rope 64, v 256, V =
        // 154880.
        //   MLA: q_a_proj h·2048 = 12,582,912, q_a_layernorm 2048, q_b_proj 2048·64·256 = 33,554,432,
        //   kv_a_proj_with_mqa
        //     h·576 = 3,538,944, kv_a_layernorm 512, kv_b_proj 512·64·448 = 14,680,064, o_proj 64·256·h = 100,663,296:
        //     165,022,208;
        //   indexer (index_n_heads 32 of index_head_dim 128): wq_b 2048·32·128 = 8,388,608, wk h·128 = 786,432, k_norm
        //     LayerNorm 2·128, weights_proj h·32 = 196,608: 9,371,904;
        //   two norms 2h: (165,022,208 + 9,371,904 + 12,288) · 78 = 13,603,699,200;
        //   3 dense layers (mlp_layer_types' default) of 3·h·12288 = 226,492,416: 679,477,248;
        //   75 MoE layers of 256 experts and a shared one, each 3·h·2048 = 37,748,736, and a router 256·h = 1,572,864
        //     (e_score_correction_bias a buffer): 257·37,748,736 + 1,572,864 = 9,702,998,016; · 75 = 727,724,851,200;
        //   untied 2·V·h = 1,903,165,440 and a final norm h.
        // Total 743,911,199,232 (Zhipu: 744B); active, 8 routed experts and the shared one: 75·(9·37,748,736 +
        // 1,572,864) = 25,598,361,600 instead, 41,784,709,632 (Zhipu's "40B active" leaves out the embeddings:
        // 39,881,544,192). num_nextn_predict_layers 1: the checkpoint's layer 78, which transformers does not build,
        // apart (mtpLayers; 9,952,920,320 of its own: one MoE layer with its attention and indexer, eh_proj 2h·h, three
        // norms). zai-org/GLM-5 README.md @ 1a977a8a92e810bd78b0c0a98f8623c8a2c02751: 744B parameters (40B active).
        QTest::newRow("glm_moe_dsa: GLM-5 (MLA + the DSA indexer, 75 MoE layers) = 743.9B, 41.8B active (744B)")
            << "GLM-5-FP8.json"
            << "glm_moe_dsa" << qint64(743911199232) << qint64(41784709632) << qint64(0) << qint64(1)
            << qint64(744000000000) << 0.00013 << false;
        // GLM-5.1 as NVIDIA's NVFP4 checkpoint writes its config.json (AIConfigurator's copy): GLM-5's architecture
        // field for field, with an indexer_types list of 78 "full" entries, an indexer in every layer as above.
        QTest::newRow("glm_moe_dsa: GLM-5.1 (indexer_types all full) = GLM-5's 743.9B")
            << "GLM-5.1-NVFP4.json"
            << "glm_moe_dsa" << qint64(743911199232) << qint64(41784709632) << qint64(0) << qint64(1)
            << qint64(744000000000) << 0.00013 << false;
        // Nemotron-H-56B-Base-8K (nemotron_h, dense: AIConfigurator's copy, tests/data/hf/README.md; its
        // time_step_limit holds Python's Infinity), as modeling_nemotron_h.py @
        // 897753a012bfa6dac8c0ae3281f23a2fc1e72db6 builds it, h = 8192: 118 blocks "M-M-M-M*-…" = 54 M, 10 *, 54 -,
        // each with one norm h.
        //   M: 256 heads of 64 (d_inner 16384), 8 groups of state 256, conv_dim 16384 + 2·8·256 = 20480; in_proj
        //     h·(16384 + 20480 + 256) = 304,087,040, conv1d 20480·4 + 20480 = 102,400, dt_bias, A_log, D 3·256 = 768,
        //     gated norm 16384, out_proj 16384·h = 134,217,728: 438,424,320; · 54 = 23,674,913,280;
        //   *: 64 heads and 8 KV heads of 128 (attention_head_dim), q, o h·8192, k, v h·1024: 150,994,944; · 10 =
        //     1,509,949,440;
        //   -: NemotronHMLP up and down 2·h·32768 = 536,870,912 (relu², not gated); · 54 = 28,991,029,248;
        //   norms 118·h = 966,656, untied 2·131072·h = 2,147,483,648, final norm h.
        // 56,324,350,464 in all, every parameter active. NVIDIA names it 56B (the Nemotron-H report, arXiv
        // 2504.03624), rounded: 0.58% below the count.
        QTest::newRow("nemotron_h: Nemotron-H-56B (54 Mamba-2, 10 attention, 54 MLP blocks) = 56.32B")
            << "Nemotron-H-56B-Base-8K.json"
            << "nemotron_h" << qint64(56324350464) << qint64(56324350464) << qint64(0) << qint64(0)
            << qint64(56000000000) << 0.006 << false;
        // Qwen3-Next-80B-A3B-Thinking (qwen3_next; AIConfigurator's copy, tests/data/hf/README.md), as
        // modeling_qwen3_next.py @ 7515843b617551b008901620ca58f1208bbc330d builds it, h = 2048, V = 151936: 36 Gated
        // DeltaNet layers ((i + 1) % full_attention_interval 4 != 0) of 33,718,464 (in_proj_qkvz h·(2·2048 + 2·4096),
        // in_proj_ba h·64, conv1d 8192·4, dt_bias and A_log 64, norm 128, out_proj 4096·h) and 12 gated-attention
        // layers of 27,263,488 (q_proj h·2·16·256, k and v h·512, o_proj 4096·h, q/k norms 2·256); every layer MoE
        // (mlp_only_layers [], decoder_sparse_step 1: intermediate_size 5120 builds nothing) of 512 experts of
        // 3·h·512, a shared expert 3·h·512 behind its gate h, a router h·512: 1,614,809,088; two norms a layer,
        // untied 2·V·h, a final norm. 79,674,391,296 in all, 3,874,929,408 active (10 experts), as
        // tst_layerkinds::qwen3NextCountsAsTransformersBuildsIt derives term by term. Qwen's model card: 80B in total
        // and 3B activated, 79B without the embeddings (79,052,061,440).
        QTest::newRow("qwen3_next: Qwen3-Next-80B-A3B (36 Gated DeltaNet, 12 gated attention) = 79.67B, 3.87B active")
            << "Qwen3-Next-80B-A3B-Thinking.json"
            << "qwen3_next" << qint64(79674391296) << qint64(3874929408) << qint64(0) << qint64(0)
            << qint64(80000000000) << 0.0041 << false;
        // Qwen3.5-397B-A17B (qwen3_5_moe wrapper, text_config qwen3_5_moe_text; AIConfigurator's copy,
        // tests/data/hf/README.md), as modular_qwen3_5_moe.py @ e36255cb9af68ea2c16fefd6b1c798882cafda16 builds the
        // language model, h = 4096, V = 248320: 15 gated-attention layers (32 heads and 2 KV heads of 256): q_proj
        // h·2·8192, k and v h·512, o_proj 8192·h, q/k norms 2·256 = 104,858,112; 45 Gated DeltaNet layers (16 key
        // heads and 64 value heads of 128): in_proj_qkv h·(2·2048 + 8192) = 50,331,648, in_proj_z h·8192 = 33,554,432,
        // in_proj_b and in_proj_a h·64 each, conv1d 12288·4, dt_bias and A_log 64 each, norm 128, out_proj 8192·h:
        // 118,014,208; every layer 512 experts of 3·h·1024 = 12,582,912, a shared one behind its gate h, a router
        // h·512: 6,457,135,104; two norms a layer; untied 2·V·h = 2,034,237,440 and a final norm.
        // 15·104,858,112 + 45·118,014,208 + 60·(6,457,135,104 + 2h) + 2·V·h + h = 396,346,350,336; active (10
        // experts: 140,513,280 a layer's MoE) 17,349,040,896.
        // Vision: Qwen3_5MoeVisionModel = Qwen3VLVisionModel without deepstack mergers (modular_qwen3_5.py @
        // 009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9), vision_config hidden 1152, depth 27, MLP 4304, patches 16 by 2
        // frames, merge 2, out 4096, 2304 positions: Conv3d 3·2·16²·1152 + 1152 = 1,770,624, positions 2304·1152 =
        // 2,654,208, 27 blocks of 4·1152 + (1152·3456 + 3456) + (1152² + 1152) + (1152·4304 + 4304) + (4304·1152 +
        // 1152) = 15,239,504 (411,466,608), the merger 2·1152 + (4608² + 4608) + (4608·4096 + 4096) = 40,119,040:
        // 456,010,480 (the Qwen3-VL-8B tower above less its 3 deepstack mergers, 3·(2·4608 + 40,116,736)).
        // 396,346,350,336 + 456,010,480 = 396,802,360,816. Qwen's model card: "Causal Language Model with Vision
        // Encoder", 397B in total and 17B activated (the language model alone, 396.35B, would round to 396B).
        QTest::newRow("qwen3_5_moe: Qwen3.5-397B-A17B = 396.3B text + 0.46B vision, 17.3B active (397B)")
            << "Qwen3.5-397B-A17B.json"
            << "qwen3_5_moe_text" << qint64(396346350336) << qint64(17349040896) << qint64(456010480) << qint64(0)
            << qint64(397000000000) << 0.0005 << true;
        // Kimi K2.5 (kimi_k25 wrapper, text_config kimi_k2; AIConfigurator's copy, tests/data/hf/README.md): the
        // language model is Kimi K2's, field for field the kimi_k2 row below (Kimi-K2-Instruct.json)
        // (1,026,408,209,408 total, 32,861,477,888 active; num_nextn_predict_layers 0). Its MoonViT tower and
        // projector, as Moonshot's modeling_kimi_k25.py builds them (Ascend/MindSpeed-MM's copy,
        // mindspeed_mm/fsdp/models/kimik2_5/modeling_kimi_k25.py @ 008e75c60fcdab4413c640be4450b8f836c7eae3), from
        // vision_config vt_hidden_size 1152, 27 layers, MLP 4304, patches of 14, a 64×64 position grid, merge 2×2,
        // mm_hidden_size 1152, text_hidden_size 7168:
        //   MoonVision3dPatchEmbed: Conv2d 3·14²·1152 + 1152 = 678,528, pos_emb weight 64·64·1152 = 4,718,592;
        //   27 MoonViTEncoderLayers, each Qwen3-VL's block above (wqkv and wo with attn_bias, MLP2 fc0/fc1 with
        //     bias, norm0/norm1): 411,466,608; final_layernorm 2·1152: the tower 416,866,032;
        //   PatchMergerMLP: pre_norm 2·1152, Linear(4608, 4608) 21,238,272, Linear(4608, 7168) 4608·7168 + 7168 =
        //     33,037,312: 54,277,888.
        // 471,143,920 in all; with the language model 1,026,879,353,328. Moonshot (MoonshotAI/Kimi-K2.5 README.md
        // @ 6edc2543b766c0b6af9677bb9eed011beb615228 §2): 1T total, 32B activated, a 400M-parameter MoonViT
        // (kimiK25WrapperCountsItsMoonViTTower compares the tower).
        QTest::newRow("kimi_k25: Kimi K2.5 = 1.026T text + 0.47B MoonViT and projector, 32.9B active (1T)")
            << "Kimi-K2.5.json"
            << "kimi_k2" << qint64(1026408209408) << qint64(32861477888) << qint64(471143920) << qint64(0)
            << qint64(1000000000000) << 0.027 << true;
        // Nemotron 3 Nano 30B-A3B (nemotron_h; jax-ml/jax-llm-examples' copy, tests/data/hf/README.md), as
        // modeling_nemotron_h.py @ 897753a012bfa6dac8c0ae3281f23a2fc1e72db6 builds it, h = 2688: 52 blocks of one
        // norm (h) and one mixer, hybrid_override_pattern "MEMEM*EMEMEM*…" = 23 M, 6 *, 23 E.
        //   M, NemotronHMamba2Mixer: 64 heads of 64 (d_inner 4096), 8 groups of state 128, conv_dim 4096 + 2·8·128 =
        //     6144; in_proj h·(4096 + 6144 + 64) = 27,697,152, conv1d 6144·4 + 6144 (use_conv_bias) = 30,720,
        //     dt_bias, A_log, D 3·64 = 192, gated norm 4096, out_proj 4096·h = 11,010,048: 38,742,208; · 23.
        //   *, NemotronHAttention without biases: q, o h·4096 each, k, v h·256 each: 23,396,352; · 6.
        //   E, NemotronHMoE: 128 experts of up_proj and down_proj 2·h·1856 = 9,977,856 (relu², not gated), a shared
        //     NemotronHMLP 2·h·3712 = 19,955,712, the router weight 128·h = 344,064 (e_score_correction_bias is a
        //     buffer): 1,297,465,344; · 23.
        //   embeddings untied 2·131072·h = 704,643,072, 52 block norms 139,776, final norm 2,688.
        // Total 891,070,784 + 140,378,112 + 29,841,702,912 + 704,643,072 + 139,776 + 2,688 = 31,577,937,344; active,
        // 6 experts (59,867,136) instead of 128 in each E block: 3,580,073,408. NVIDIA publishes 31.6B total, 3.6B
        // active (NVIDIA-NeMo/Nemotron docs/nemotron/nano3/README.md @ 20a06ac3bc1acd4bd867796c5e071f8b8e9e6189).
        QTest::newRow("nemotron_h: Nemotron 3 Nano 30B-A3B (23 Mamba-2, 6 attention, 23 MoE) = 31.58B, 3.58B active")
            << "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json"
            << "nemotron_h" << qint64(31577937344) << qint64(3580073408) << qint64(0) << qint64(0)
            << qint64(31600000000) << 0.0007 << false;
        // Gemma 4 26B-A4B (gemma4 wrapper, text_config gemma4_text; AIConfigurator's copy, tests/data/hf/README.md), as
        // modeling_gemma4.py @ c308a309e651a7e033f683353f3f75aa66d29502 builds it: h = 2816, V = 262144, 30 layers,
        // layer_types 25 sliding_attention and 5 full_attention, 16 query heads, attention_bias false.
        //   Sliding layer's Gemma4TextAttention (head_dim 256, 8 KV heads): q_proj h·4096 = 11,534,336, k_proj and
        //     v_proj h·2048 = 5,767,168 each, o_proj 4096·h = 11,534,336, q_norm and k_norm 256 each (v_norm has no
        //     weight): 34,603,520.
        //   Full layer's (global_head_dim 512, attention_k_eq_v: num_global_key_value_heads 2 and no v_proj): q_proj
        //     h·8192 = 23,068,672, k_proj h·1024 = 2,883,584, o_proj 8192·h = 23,068,672, q_norm and k_norm 512 each:
        //     49,021,952.
        //   Every layer (enable_moe_block): the dense Gemma4TextMLP gate/up/down 3·h·2112 = 17,842,176; four norms
        //     and the MoE block's three more, 7·h = 19,712; Gemma4TextRouter proj h·128 = 360,448, scale h = 2,816,
        //     per_expert_scale 128 (its norm has no weight): 363,392; Gemma4TextExperts gate_up_proj 128·(2·704)·h
        //     and down_proj 128·h·704, 128·3·704·h = 761,266,176. 779,491,456 a layer besides attention.
        //   embed_tokens V·h = 738,197,504, tied to lm_head (tie_word_embeddings true); the final norm h.
        // 25·34,603,520 + 5·49,021,952 + 30·779,491,456 + 738,197,504 + 2,816 = 25,233,141,760; active (8 experts,
        // 47,579,136 a layer, instead of 128) 3,822,530,560. The vision tower (Gemma4VisionModel, vision_config hidden
        // 1152, 27 layers, 16 heads and 16 KV heads of 72, MLP 4304, patches of 16, 10240 positions): input_proj
        // 3·16²·1152 = 884,736, position_embedding_table 2·10240·1152 = 23,592,960, 27 layers of four norms 4·1152,
        // q/k/v/o 4·1152·1152, q_norm and k_norm 2·72 and a gated MLP 3·1152·4304 = 20,187,792 (545,070,384), and
        // embed_vision's embedding_projection 1152·h = 3,244,032: 572,792,112. Google's model card (as
        // OpenExplorer/gemma-4-26B-A4B-it quotes it: "Parameter counts follow the upstream model details"): 25.2B
        // total, 3.8B active, a vision model of ~550M; 25.2B is the language model's count (with the tower it would
        // be 25.8B).
        QTest::newRow("gemma4: Gemma 4 26B-A4B (256/512 head dims, k = v full layers, MLP beside 128 experts) = 25.23B")
            << "gemma-4-26B-A4B.json"
            << "gemma4_text" << qint64(25233141760) << qint64(3822530560) << qint64(572792112) << qint64(0)
            << qint64(25200000000) << 0.002 << false;
        // Gemma 4 31B (the config.json of nvidia/Gemma-4-31B-IT-NVFP4, NVIDIA's NVFP4 copy of google/gemma-4-31B-it:
        // the same architecture, its quantization_config aside; AIConfigurator's copy), dense (enable_moe_block
        // false), h = 5376, V = 262144, 60 layers: 50 sliding, 10 full, 32 query heads.
        //   Sliding (head_dim 256, 16 KV heads): q_proj h·8192 = 44,040,192, k_proj and v_proj h·4096 = 22,020,096
        //     each, o_proj 44,040,192, q/k norms 512: 132,121,088.
        //   Full (global_head_dim 512, k = v, 4 KV heads): q_proj h·16384 = 88,080,384, k_proj h·2048 = 11,010,048,
        //     o_proj 88,080,384, q/k norms 1024: 187,171,840.
        //   Every layer: MLP 3·h·21504 = 346,816,512 and four norms 4·h = 21,504.
        //   embed_tokens V·h = 1,409,286,144 (tied), final norm h.
        // 50·132,121,088 + 10·187,171,840 + 60·346,838,016 + 1,409,286,144 + 5,376 = 30,697,345,280. The vision tower
        // is the 26B's (569,548,080) with embed_vision 1152·5376 = 6,193,152: 575,741,232. Google publishes 30.7B (the
        // Gemma 4 model card's model table).
        QTest::newRow("gemma4: Gemma 4 31B (dense, 50 sliding and 10 full layers of their own shape) = 30.70B")
            << "Gemma-4-31B-IT-NVFP4.json"
            << "gemma4_text" << qint64(30697345280) << qint64(30697345280) << qint64(575741232) << qint64(0)
            << qint64(30700000000) << 0.0017 << false;
        // Qwen3.5-27B (qwen3_5 wrapper, text_config qwen3_5_text; AIConfigurator's copy), the dense Qwen3.5: as
        // modular_qwen3_5.py @ 009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9 builds it, h = 5120, V = 248320 untied, 64
        // layers, every 4th full attention (16) and the rest Gated DeltaNet (48):
        //   full, gated attention (24 heads and 4 KV heads of 256): q_proj h·2·6144, k and v h·1024, o_proj 6144·h,
        //     q/k norms 2·256: 104,858,112;
        //   Gated DeltaNet (16 key heads and 48 value heads of 128: key_dim 2048, value_dim 6144, conv_dim 10240):
        //     in_proj_qkv h·10240, in_proj_z h·6144, in_proj_b and in_proj_a h·48 each, conv1d 10240·4, dt_bias and
        //     A_log 48 each, norm 128, out_proj 6144·h: 115,876,064;
        //   every layer a SwiGLU MLP 3·h·17408 = 267,386,880 and two norms.
        // 16·104,858,112 + 48·115,876,064 + 64·(267,386,880 + 2h) + h + 2·V·h = 26,895,998,464. The tower is the
        // 397B's (above) with its merger's last Linear(4608, 5120): 460,730,096. 27,356,728,560 in all; the model's
        // name says 27B.
        QTest::newRow("qwen3_5: Qwen3.5-27B (dense, 48 Gated DeltaNet, 16 gated attention) = 26.90B + 0.46B vision")
            << "Qwen3.5-27B.json"
            << "qwen3_5_text" << qint64(26895998464) << qint64(26895998464) << qint64(460730096) << qint64(0)
            << qint64(27000000000) << 0.019 << true;
        // Qwen3.5-35B-A3B (qwen3_5_moe wrapper; AIConfigurator's copy), h = 2048, V = 248320 untied, 40 layers: 10
        // gated-attention (16 heads and 2 KV heads of 256: h·2·4096 + 2·h·512 + 4096·h + 512 = 27,263,488) and 30
        // Gated DeltaNet (16 key heads, 32 value heads of 128: h·8192 + h·4096 + 2·h·32 + 8192·4 + 64 + 128 +
        // 4096·h = 33,718,464); every layer 256 experts of 3·h·512 = 3,145,728, a shared one behind its gate h and a
        // router h·256: 808,978,432 (28,837,888 with 8 experts a token); two norms a layer. 10·27,263,488 +
        // 30·33,718,464 + 40·(808,978,432 + 2h) + h + 2·V·h = 34,660,610,688; active 3,454,988,928. The tower with a
        // Linear(4608, 2048) last: 446,571,248; 35,107,181,936 in all. The model's name: 35B, 3B active.
        QTest::newRow("qwen3_5_moe: Qwen3.5-35B-A3B = 34.66B + 0.45B vision, 3.45B active")
            << "Qwen3.5-35B-A3B.json"
            << "qwen3_5_moe_text" << qint64(34660610688) << qint64(3454988928) << qint64(446571248) << qint64(0)
            << qint64(35000000000) << 0.015 << true;
        // Qwen2.5-VL-7B-Instruct (qwen2_5_vl; its language model written at the top level): Qwen2.5-7B's modules
        // (the Qwen2.5-7B.json row of familyMatchesPublishedCount: 7,615,616,512), and Qwen2_5_VisionTransformer of
        // hidden 1280, depth 32, MLP 3420, out 3584, counted by wrapperDefaultsCountTheVisionTower's formula:
        // 676,550,144. 8,292,166,656 in all, the 8.29B Hugging Face lists for the checkpoint.
        QTest::newRow("qwen2_5_vl: Qwen2.5-VL-7B = 7.62B text + 0.68B vision (8.29B)")
            << "Qwen2.5-VL-7B-Instruct.json"
            << "qwen2_5_vl_text" << qint64(7615616512) << qint64(7615616512) << qint64(676550144) << qint64(0)
            << qint64(8290000000) << 0.0003 << true;
        // Qwen2.5-VL-3B-Instruct: h 2048, 36 layers, 16 heads and 2 KV heads of 128 with q/k/v biases, SwiGLU 11008,
        // V 151936, tied: 36·(h·2048 + 2048 + 2·(h·256 + 256) + 2048·h + 3·h·11008 + 2h) + V·h + h = 3,085,938,688;
        // the tower as the 7B's with its merger's last Linear(5120, 2048): 668,684,288. The model's name, 3B, is the
        // language model's.
        QTest::newRow("qwen2_5_vl: Qwen2.5-VL-3B (tied) = 3.09B text + 0.67B vision")
            << "Qwen2.5-VL-3B-Instruct.json"
            << "qwen2_5_vl_text" << qint64(3085938688) << qint64(3085938688) << qint64(668684288) << qint64(0)
            << qint64(3000000000) << 0.03 << false;
        // gemma-3-4b-it (gemma3 wrapper; its text_config gives four sizes, Gemma3TextConfig the rest: V 262208,
        // tied): h 2560, 34 layers, 8 heads and 4 KV heads of 256, GeGLU 10240. A layer: h·2048 + 2·h·1024 + 2048·h
        // + 2·256 + 3·h·10240 + 4h = 94,382,592; 34·94,382,592 + V·h + h = 3,880,263,168. The SigLIP tower (hidden
        // 1152, 27 layers, MLP 4304, image 896 in patches of 14: 4096 positions, no pooling head): Conv2d 3·14²·1152
        // + 1152, positions 4096·1152, 27·(4·(1152² + 1152) + 2·1152·4304 + 4304 + 1152 + 4·1152), post_layernorm
        // 2·1152 = 416,866,032; the projector's norm 1152 and its 1152·h: 419,816,304. 4,300,079,472 in all.
        // keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py @
        // 00d9f10a8e74d4f552ed50170b7dcadb65d3bd52: gemma3_instruct_4b 4,299,915,632, whose embedding has 262,144
        // rows (64·h = 163,840 fewer); its medgemma_4b, converted with 262,208, lists exactly 4,300,079,472.
        QTest::newRow("gemma3: Gemma 3 4B-it = 3.88B text + 0.42B SigLIP and projector (4,299,915,632)")
            << "gemma-3-4b-it.json"
            << "gemma3_text" << qint64(3880263168) << qint64(3880263168) << qint64(419816304) << qint64(0)
            << qint64(4299915632) << 0.00004 << true;
        // gemma-3-27b-it: h 5376, 62 layers, 32 heads and 16 KV heads of 128, GeGLU 21504, V 262208, tied. A layer:
        // h·4096 + 2·h·2048 + 4096·h + 2·128 + 3·h·21504 + 4h = 412,898,560; 62·412,898,560 + V·h + h =
        // 27,009,346,304; the tower 416,866,032 and the projector 1152 + 1152·h: 423,060,336. 27,432,406,640 in all:
        // keras-hub's medgemma_instruct_27b exactly, its gemma3_instruct_27b 27,432,062,576 (64·h fewer).
        QTest::newRow("gemma3: Gemma 3 27B-it = 27.01B text + 0.42B SigLIP and projector (27,432,062,576)")
            << "gemma-3-27b-it.json"
            << "gemma3_text" << qint64(27009346304) << qint64(27009346304) << qint64(423060336) << qint64(0)
            << qint64(27432062576) << 0.000013 << true;
        // Kimi K2 (kimi_k2; the config.json of moonshotai/Kimi-K2-Instruct, AIConfigurator's copy,
        // tests/data/hf/README.md; DeepseekV3ForCausalLM's modules under Moonshot's model type). A layer's MLA:
        // h·1536 + 1536 + 1536·64·192 + h·576 + 512 + 512·64·256 + 64·128·h = 101,124,096, plus 2h; layer 0 dense
        // 3·h·18432 (first_k_dense_replace 1); 60 MoE layers of 385 experts of 3·h·2048 and a router h·384
        // (e_score_correction_bias a buffer); untied 2·V·h with V = 163840, a final norm h. Total
        // 1,026,408,209,408; active (8 routed + the shared) 32,861,477,888; num_nextn_predict_layers 0. Moonshot
        // (MoonshotAI/Kimi-K2 README.md @ 11062d119a82873f7f786cd2733c57d42ee65b79 §2): 1T total, 32B activated
        // (31,687,072,768 without the input embedding).
        QTest::newRow("kimi_k2: Kimi K2 = 1.026T total, 32.9B active (1T published)")
            << "Kimi-K2-Instruct.json"
            << "kimi_k2" << qint64(1026408209408) << qint64(32861477888) << qint64(0) << qint64(0)
            << qint64(1000000000000) << 0.027 << false;
        // gpt-oss-120b (gpt_oss; the checkpoint's config.json, AIConfigurator's copy): gpt-oss-20b's widths (the
        // gpt-oss-20b row of familyMatchesPublishedCount) with 36 layers and 128 experts. A layer: 26,550,144
        // attention + 2h + 128·24,891,840 + router h·128 + 128 = 3,213,080,192; ·36 + 2·V·h + h = 116,829,156,672;
        // active (4 experts) 5,711,982,912. OpenAI's model card (arXiv 2508.10925, Table 1): 116.83B total, 5.13B
        // active, which leaves out the unembedding V·h = 579,133,440 (5,132,849,472).
        QTest::newRow("gpt_oss: gpt-oss-120b = 116.83B total, 5.71B active (5.13B without the unembedding)")
            << "gpt-oss-120b.json"
            << "gpt_oss" << qint64(116829156672) << qint64(5711982912) << qint64(0) << qint64(0) << qint64(116830000000)
            << 0.00001 << false;
        // DeepSeek-V3 (deepseek_v3; the checkpoint's config.json, AIConfigurator's copy, the fields of
        // presets/deepseek-v3.json): MLA with q_lora_rank 1536 and 128 heads, 3 dense layers of 18432, 58 MoE layers
        // of 256 routed experts and one shared of 2048, 8 a token, V = 129280 untied. The router's
        // e_score_correction_bias is a buffer in transformers, so the count equals the preset's: 671,026,404,352,
        // 37,552,282,624 active; the one MTP module (num_nextn_predict_layers 1) apart. tenstorrent/tt-metal
        // models/demos/deepseek_v3/reference/README_WEIGHTS.md: 671B main model, 36.6B activated without the 0.93B
        // input embedding.
        QTest::newRow("deepseek_v3: DeepSeek-V3 = 671.0B (+1 MTP module apart), 37.6B active (671B published)")
            << "DeepSeek-V3.json"
            << "deepseek_v3" << qint64(671026404352) << qint64(37552282624) << qint64(0) << qint64(1)
            << qint64(671000000000) << 0.0008 << false;
        // Mixtral 8x7B (mixtral; the checkpoint's config.json, AIConfigurator's copy): 32 layers, h 4096, k/v 1024
        // wide, a router 4096 -> 8, 8 experts of 3·h·14336, top-2, V = 32000 untied; ../shared/data/models.json:
        // 46,702,792,704 total, 12,879,925,248 active.
        QTest::newRow("mixtral: Mixtral 8x7B = 46.70B total, 12.88B active exactly")
            << "Mixtral-8x7B-v0.1.json"
            << "mixtral" << qint64(46702792704) << qint64(12879925248) << qint64(0) << qint64(0) << qint64(46702792704)
            << 0.0 << false;
        // Nemotron 3 Super 120B-A12B (nemotron_h with NVIDIA's LatentMoE; the FP8 checkpoint's config.json,
        // AIConfigurator's copy: the BF16 model's architecture, its quantisation aside), as modeling_nemotron_h.py @
        // 008d9e9577b0eb0149aa6bb0c44da582b10e0b6e builds it, h = 4096, V = 131072: 88 blocks of one norm and one
        // mixer, hybrid_override_pattern "MEMEMEM*EMEM…" = 40 M, 40 E, 8 *.
        //   M: 128 heads of 64 (d_inner 8192), 8 groups of state 128, conv_dim 8192 + 2·8·128 = 10240; in_proj
        //     h·(8192 + 10240 + 128) = 76,021,760, conv1d 10240·4 + 10240 = 51,200, dt_bias, A_log, D 3·128, gated
        //     norm 8192, out_proj 8192·h = 33,554,432: 109,635,968.
        //   *: q and o h·4096 each, k and v h·256 each (2 KV heads of 128): 35,651,584.
        //   E, NemotronHMoE with moe_latent_size 1024: fc1_latent_proj h·1024 and fc2_latent_proj 1024·h = 8,388,608;
        //     512 experts (NemotronHExperts) of up_proj [2688, 1024] and down_proj [1024, 2688] = 5,505,024 each,
        //     on the latent width, not h; the shared NemotronHMLP 2·h·5376 = 44,040,192 and the router 512·h =
        //     2,097,152 on h: 2,873,098,240 (175,636,480 with 22 experts a token).
        //   88 block norms, the final norm, untied 2·V·h = 1,073,741,824.
        // 40·109,635,968 + 8·35,651,584 + 40·2,873,098,240 + 89·h + 2·V·h = 120,668,687,360; active 12,770,216,960.
        // The MTP layers (mtp.*, "_keys_to_ignore_on_load_unexpected") are not built. NVIDIA (NVIDIA-NeMo/Nemotron
        // docs/nemotron/super3/README.md @ 361df289f9f9bad4b2136baad1ea991a506eb127, Model Specifications): 120.6B
        // total, 12.7B active, MoE latent dimension 1024.
        QTest::newRow("nemotron_h: Nemotron 3 Super (LatentMoE of 1024 over 512 experts) = 120.67B, 12.77B active")
            << "NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json"
            << "nemotron_h" << qint64(120668687360) << qint64(12770216960) << qint64(0) << qint64(0)
            << qint64(120600000000) << 0.0006 << false;
        // Nemotron 3 Ultra 550B-A55B (nemotron_h with LatentMoE; the BF16 checkpoint's config.json, AIConfigurator's
        // copy, whose layers_block_type list names the 108 blocks: 48 mamba, 48 moe, 12 attention), h = 8192, V =
        // 131072, as above:
        //   M: 256 heads of 64 (d_inner 16384), conv_dim 16384 + 2·8·128 = 18432; in_proj h·(16384 + 18432 + 256) =
        //     287,309,824, conv1d 18432·4 + 18432, 3·256, gated norm 16384, out_proj 16384·h: 421,636,864;
        //   *: 64 heads and 2 KV heads of 128: 2·h·8192 + 2·h·256 = 138,412,032;
        //   E: moe_latent_size 2048, fc1 and fc2 2·h·2048 = 33,554,432; 512 experts of 2·5120·2048 = 20,971,520;
        //     the shared expert 2·h·10240 = 167,772,160; the router 512·h = 4,194,304: 10,942,939,136 (666,894,336
        //     with 22 experts a token).
        // 48·421,636,864 + 12·138,412,032 + 48·10,942,939,136 + 109·h + 2·V·h = 549,308,968,960; active
        // 56,058,818,560. The model's name: 550B total, 55B active.
        QTest::newRow("nemotron_h: Nemotron 3 Ultra (layers_block_type, LatentMoE of 2048) = 549.3B, 56.1B active")
            << "NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16.json"
            << "nemotron_h" << qint64(549308968960) << qint64(56058818560) << qint64(0) << qint64(0)
            << qint64(550000000000) << 0.0013 << false;
    }
    void families2026MatchPublishedCounts()
    {
        QFETCH(QString, file);
        QFETCH(QString, modelType);
        QFETCH(qint64, total);
        QFETCH(qint64, active);
        QFETCH(qint64, vision);
        QFETCH(qint64, mtpLayers);
        QFETCH(qint64, published);
        QFETCH(double, publishedTol);
        QFETCH(bool, publishedHasVision);
        const HfImport imp = importFile(file);
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(QString::fromStdString(imp.modelType), modelType);
        const ParamCount c = countParams(imp.architecture);
        QCOMPARE(c.total, total);
        QCOMPARE(c.active, active);
        QCOMPARE(c.vision, vision);
        QCOMPARE(qint64(imp.architecture.mtpLayers), mtpLayers);
        const double ours = double(c.total) + (publishedHasVision ? double(c.vision) : 0.0);
        const double rel = std::abs(ours - double(published)) / double(published);
        QVERIFY2(rel <= publishedTol, qPrintable(QStringLiteral("off the published count by %1%").arg(100 * rel)));
    }

    // Real files whose publisher's count no cited public file states: the count as transformers builds the model,
    // derived by hand.
    void realFilesCountAsTransformersBuildsThem_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("modelType");
        QTest::addColumn<qint64>("total");
        // Mistral-Nemo-Instruct-2407 (mistral, head_dim 128 with h 5120: q is 4096 wide): 40 layers of h·4096 +
        // 2·h·1024 + 4096·h + 3·h·14336 + 2h = 272,640,000, V 131072 untied: 40·272,640,000 + 2·V·h + h =
        // 12,247,782,400 (Mistral NeMo, "12B").
        QTest::newRow("mistral: Mistral-Nemo-Instruct-2407 (head_dim·heads < hidden) = 12,247,782,400")
            << "Mistral-Nemo-Instruct-2407.json"
            << "mistral" << qint64(12247782400);
        // command-a-03-2025 (cohere2, the unsloth mirror's copy of CohereForAI's file): h 12288, 64 layers, 96 heads
        // and 8 KV heads of 128, SwiGLU 36864, V 256000, tied, one weight-only LayerNorm a layer (parallel block): a
        // layer h·12288 + 2·h·1024 + 12288·h + 3·h·36864 + h = 1,686,122,496; 64·1,686,122,496 + V·h + h =
        // 111,057,580,032 (Command A, "111B").
        QTest::newRow("cohere2: Command A (parallel block, 3 sliding to 1 full) = 111,057,580,032")
            << "command-a-03-2025.json"
            << "cohere2" << qint64(111057580032);
    }
    void realFilesCountAsTransformersBuildsThem()
    {
        QFETCH(QString, file);
        QFETCH(QString, modelType);
        QFETCH(qint64, total);
        const HfImport imp = importFile(file);
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(QString::fromStdString(imp.modelType), modelType);
        QCOMPARE(countParams(imp.architecture).total, total);
        QCOMPARE(countParams(imp.architecture).active, total);
    }

    // The built-in presets of these models were written from their publishers' fields before the real files were
    // found: each, with its model replaced by its file's, gives the same counts and the same breakdown.
    void presetsMatchTheirRealFiles_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("file");
        QTest::newRow("kimi-k2") << "kimi-k2"
                                 << "Kimi-K2-Instruct.json";
        QTest::newRow("gpt-oss-120b (served, MXFP4 experts)") << "gpt-oss-120b"
                                                              << "gpt-oss-120b.json";
        QTest::newRow("deepseek-v3 (2048 GPUs, ep 64)") << "deepseek-v3"
                                                        << "DeepSeek-V3.json";
        QTest::newRow("mixtral-8x7b") << "mixtral-8x7b"
                                      << "Mixtral-8x7B-v0.1.json";
    }
    void presetsMatchTheirRealFiles()
    {
        QFETCH(QString, preset);
        QFETCH(QString, file);
        const Scenario s = testdata::preset(preset.toStdString());
        const HfImport imp = importFile(file);
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const Scenario fromFile = scenarioWithHfModel(s, imp, file.toStdString());
        const GpuSpec gpu = testdata::gpu(s.hardware.gpu);
        const Breakdown a = account(s, gpu), b = account(fromFile, gpu);
        QCOMPARE(countParams(b.model.arch).total, countParams(a.model.arch).total);
        QCOMPARE(countParams(b.model.arch).active, countParams(a.model.arch).active);
        QCOMPARE(b.perGpu.total(), a.perGpu.total());
        QCOMPARE(b.perGpu.kvCache, a.perGpu.kvCache);
        QCOMPARE(b.perGpu.activations, a.perGpu.activations);
    }

    // gpt-oss ships its experts in MXFP4 (its quantization_config): imported to serve, it is served so, as the
    // gpt-oss-120b preset is, whatever torch_dtype says; gpt-oss-20b's copy here has no quantization_config.
    void gptOssIsServedAsItShips()
    {
        const HfImport imp = importFile(QStringLiteral("gpt-oss-120b.json"));
        QVERIFY(imp.ok());
        QCOMPARE(imp.shippedWeights.value_or(InferenceWeights::BF16), InferenceWeights::MXFP4);
        Scenario base = testdata::preset("llama3-8b");
        base.training.mode = Mode::Inference;
        base.training.inferenceWeights = InferenceWeights::BF16;
        const Scenario s = scenarioWithHfModel(base, imp, "gpt-oss-120b");
        QCOMPARE(s.training.inferenceWeights, InferenceWeights::MXFP4);
        QVERIFY2(s.description.find("quantization_config: mxfp4") != std::string::npos, s.description.c_str());
        const GpuSpec gpu = testdata::gpu("H100");
        QCOMPARE(account(s, gpu).perGpu.weights, account(testdata::preset("gpt-oss-120b"), gpu).perGpu.weights);
        QVERIFY(!importFile(QStringLiteral("gpt-oss-20b.json")).shippedWeights);
        // FP8 blocks (DeepSeek-V3) have no exact format here: the dtype's bf16 stays.
        const HfImport fp8 = importFile(QStringLiteral("DeepSeek-V3.json"));
        QVERIFY(!fp8.shippedWeights);
        QCOMPARE(scenarioWithHfModel(base, fp8, "").training.inferenceWeights, InferenceWeights::BF16);
    }

    // A wrapper that leaves its sub-configurations out gets its configuration classes' defaults, as transformers
    // builds it: the language model counted as the family, the vision tower apart.
    void wrapperDefaultsCountTheVisionTower_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("vision");
        // Llama4Config with no sub-configs: Llama4TextConfig's defaults are Scout's text model (the Scout row above,
        // 107,769,861,120) and Llama4VisionConfig's tower is 455,178,240 (derived in that row).
        QTest::newRow("llama4 with no sub-configs is Scout's text model and the default tower")
            << R"({"model_type": "llama4"})" << qint64(107769861120) << qint64(455178240);
        // Qwen2_5_VLConfig's defaults (configuration_qwen2_5_vl.py @ aa0dc95c2f288788c2cf06eb3e17bb182cea66d0), read
        // from the top level as Qwen2.5-VL's files write them: h 8192, 80 layers, 64 heads and 8 KV heads of 128,
        // SwiGLU 29568, V=152064, q/k/v biases, untied: 2·V·h + h + 80·(2·h² + 2·h·1024 + 8192 + 2048 + 3·h·29568 +
        // 2h) = 72,706,203,648 (Qwen2.5-VL-72B's language model). Qwen25VisionConfig's tower (hidden 3584, depth 32,
        // MLP 3420, patches 14 by 2 frames, merge 2, out 3584): Conv3d 3·2·14²·3584 without bias, 32 blocks of
        // 2·3584 + (3584·10752 + 10752) + (3584² + 3584) + 2·(3584·3420 + 3420) + (3420·3584 + 3584), merger 3584 +
        // (14336² + 14336) + (14336·3584 + 3584) = 3,083,025,152. (Qwen2.5-VL-7B's real tower, hidden 1280, is
        // 676,550,144 by the same formula: with Qwen2.5-7B's language model 7,615,616,512 that is 8,292,166,656, the
        // 8.29B Hugging Face lists for Qwen/Qwen2.5-VL-7B-Instruct; no copy of that config.json was found to test.)
        QTest::newRow("qwen2_5_vl with no fields is Qwen2.5-VL-72B's language model and the default tower")
            << R"({"model_type": "qwen2_5_vl"})" << qint64(72706203648) << qint64(3083025152);
        // SiglipVisionConfig's defaults (hidden 768, 12 layers, MLP 3072, image 224 in patches of 16) with the
        // attention-pooling head, which SiglipVisionTransformer builds when the config has no vision_use_head:
        // Conv2d 3·16²·768 + 768, positions 196·768, 12·(4·(768² + 768) + 2·768·3072 + 3072 + 768 + 4·768),
        // post_layernorm 2·768, head 768 + 3·768² + 3·768 + 768² + 768 + 2·768 + 2·768·3072 + 3072 + 768; the
        // projector 768·2304 + 768 (Gemma3TextConfig's hidden 2304) = 94,654,464.
        QTest::newRow("gemma3 with an empty vision_config counts SigLIP's default tower and its pooling head")
            << R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text"}, "vision_config": {}})"
            << qint64(2628658432) << qint64(94654464);
        // Without the head (Gemma 3's files set vision_use_head false): 94,654,464 − (768 + 4·768² + 6·768 +
        // 2·768·3072 + 3072 + 768) = 87,567,360.
        QTest::newRow("gemma3 with vision_use_head false leaves the pooling head out")
            << R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text"},
                  "vision_config": {"vision_use_head": false}})"
            << qint64(2628658432) << qint64(87567360);
        // Mistral Small 3.1 (mistral3): the text and vision configurations Mistral3Config builds when given none
        // (configuration_mistral3.py @ ae005ce12a086176742fbf6c8364782a27085c85, "the mistral3.1 configuration"),
        // written out. Language model: h 5120, 40 layers, 32 heads and 8 KV heads of 128, SwiGLU 32768, V=131072,
        // untied: 2·V·h + h + 40·(2·h·4096 + 2·h·1024 + 3·h·32768 + 2h) = 23,572,403,200. Pixtral tower (hidden 1024,
        // 24 layers, MLP 4096, patches of 14): 3·14²·1024 + 1024 (ln_pre) + 24·(2·1024 + 4·1024² + 3·1024·4096) =
        // 403,305,472; projector: 1024 + 4096·1024 + 1024·5120 + 5120² = 35,652,608; vision 438,958,080. Total
        // 24,011,361,280: Mistral AI's 24B.
        QTest::newRow("mistral3: Mistral Small 3.1 = 23.57B text + 0.44B Pixtral tower and projector = 24.0B")
            << R"({"model_type": "mistral3", "text_config": {"model_type": "mistral", "head_dim": 128,
                  "hidden_size": 5120, "intermediate_size": 32768, "num_attention_heads": 32, "num_hidden_layers": 40,
                  "num_key_value_heads": 8, "vocab_size": 131072},
                  "vision_config": {"model_type": "pixtral", "intermediate_size": 4096, "hidden_size": 1024,
                  "patch_size": 14, "image_size": 1540, "num_hidden_layers": 24, "num_attention_heads": 16,
                  "head_dim": 64}})"
            << qint64(23572403200) << qint64(438958080);
        // Qwen3_5Config with no sub-configs (modular_qwen3_5.py @ 009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9).
        // Qwen3_5TextConfig: h 4096, 32 layers (full_attention_interval 4: 24 Gated DeltaNet, 8 attention), 16 heads
        // and 4 KV heads of 256, linear 16 key and 32 value heads of 128, MLP 12288, V 248320, untied.
        //   attention: q_proj h·2·4096 + k, v 2·h·1024 + o_proj 4096·h + q/k norms 512 = 58,720,768;
        //   Gated DeltaNet: in_proj_qkv h·8192 + in_proj_z h·4096 + in_proj_b, in_proj_a 2·h·32 + conv1d 8192·4 +
        //     dt_bias, A_log 2·32 + norm 128 + out_proj 4096·h = 67,403,968;
        //   every layer MLP 3·h·12288 and two norms: 32·151,003,136.
        // 24·67,403,968 + 8·58,720,768 + 4,832,100,352 + 2·V·h + h = 8,953,803,264. Qwen3_5VisionConfig is
        // Qwen3VLVisionConfig's defaults without deepstack: the Qwen3.5-397B tower above with out_hidden_size 3584,
        // 456,010,480 − 4608·(4096 − 3584) = 453,650,672.
        QTest::newRow("qwen3_5 with no sub-configs: Qwen3_5TextConfig's model and a tower without deepstack mergers")
            << R"({"model_type": "qwen3_5"})" << qint64(8953803264) << qint64(453650672);
        // Qwen3_5MoeVisionConfig accepts deepstack_visual_indexes (default ()), but Qwen3_5VisionModel deletes
        // deepstack_merger_list: a list changes nothing. Qwen3_5MoeTextConfig (modular_qwen3_5_moe.py @
        // 0960594cbcb31be634ec36a76818155c591aafb4): h 2048, 40 layers (30 Gated DeltaNet of 33,718,464, 10
        // attention of 27,263,488, both Qwen3-Next-80B's), 256 experts of 3·h·512 with a shared one behind its gate h
        // and a router h·256 (808,978,432 a layer), V 248320, untied: 30·33,718,464 + 10·27,263,488 + 40·(808,978,432
        // + 2h) + 2·V·h + h = 34,660,610,688 (Qwen3.5-35B-A3B's shape).
        QTest::newRow("qwen3_5_moe builds no deepstack mergers, whatever deepstack_visual_indexes lists")
            << R"({"model_type": "qwen3_5_moe", "vision_config": {"deepstack_visual_indexes": [8, 16, 24]}})"
            << qint64(34660610688) << qint64(453650672);
    }
    void wrapperDefaultsCountTheVisionTower()
    {
        QFETCH(QString, json);
        QFETCH(qint64, total);
        QFETCH(qint64, vision);
        const HfImport imp = parseHfConfig(json.toStdString(), "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const ParamCount c = countParams(imp.architecture);
        QCOMPARE(c.total, total);
        QCOMPARE(c.vision, vision);
    }

    // A wrapper's sub-configurations must be objects; the error names the field.
    void wrapperSubConfigsMustBeObjects()
    {
        QCOMPARE(QString::fromStdString(firstError(R"({"model_type": "qwen3_vl", "vision_config": 5})")),
                 QStringLiteral("config.json: /vision_config: must be an object (the vision tower's configuration), "
                                "got 5"));
        QCOMPARE(QString::fromStdString(firstError(R"({"model_type": "llama4", "text_config": [1]})")),
                 QStringLiteral("config.json: /text_config: must be an object (the language model's configuration), "
                                "got [1]"));
        // An unsupported language model inside a wrapper is named under /text_config.
        QVERIFY(
            QString::fromStdString(firstError(R"({"model_type": "gemma3", "text_config": {"model_type": "bert"}})"))
                .startsWith(QLatin1String("config.json: /text_config/model_type: unsupported model type \"bert\"")));
    }

    // A gemma4 file that gives only what the 26B and 31B files turn off takes Gemma4TextConfig's defaults
    // (configuration_gemma4.py @ 008e574391258935f3ecc3035c882e73bbcac419): h = 2304, 30 layers, 8 heads and 4 KV
    // heads of 256, global_head_dim 512, attention_k_eq_v false (so the full layers keep 4 KV heads, now of 512, and
    // their v_proj), MLP 9216, V = 262144, tied; layer_types by the 5:1 rule (25 sliding, 5 full), sliding_window 512.
    // Sliding attention h·2048 + 2·h·1024 + 2048·h + 2·256 = 14,156,288; full h·4096 + 2·h·2048 + 4096·h + 2·512 =
    // 28,312,576; a layer's MLP and four norms 3·h·9216 + 4h = 63,710,208; embed_tokens V·h = 603,979,776 and the final
    // norm: 25·14,156,288 + 5·28,312,576 + 30·63,710,208 + 603,979,776 + 2304 = 3,010,758,400. Gemma4Config leaves
    // vision_config None without one, and Gemma4Model then builds no vision tower.
    void gemma4TakesGemma4TextConfigDefaults()
    {
        const HfImport imp =
            parseHfConfig(R"({"model_type": "gemma4", "text_config": {"hidden_size_per_layer_input": 0}})", "c.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const Architecture& a = imp.architecture;
        QCOMPARE(a.kinds.sliding, int64_t(25));
        QCOMPARE(a.kinds.window, int64_t(512));
        QCOMPARE(a.kinds.fullHeadDim, int64_t(512));
        QCOMPARE(a.kinds.fullKvHeads, int64_t(0)); // the model's 4
        QVERIFY(!a.kinds.fullKeyIsValue);
        const ParamCount c = countParams(a);
        QCOMPARE(c.total, qint64(3010758400));
        QCOMPARE(c.vision, qint64(0));
        // 35 layers, no layer_types: (i + 1) % 6 leaves layers 5, 11, 17, 23, 29 full and layer 34 sliding, which
        // Gemma4TextConfig forces to full attention: 29 sliding, 6 full.
        const HfImport odd = parseHfConfig(
            R"({"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "num_hidden_layers": 35})", "c.json");
        QVERIFY(odd.ok());
        QCOMPARE(odd.architecture.kinds.sliding, int64_t(29));
    }

    // Bad fields are refused by name, and bad layer_types name their numbers (the E2B/E4B features:
    // tst_layerkinds).
    void gemma4BadOrUnreadFieldsAreRefused_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("an audio_config that is not an object")
            << QStringLiteral(
                   R"({"model_type": "gemma4", "text_config": {"hidden_size_per_layer_input": 0}, "audio_config": 12})")
            << QStringLiteral(
                   "config.json: /audio_config: must be an object (the audio tower's configuration), got 12");
        QTest::newRow("audio subsampling channels of the wrong shape")
            << QStringLiteral(R"({"model_type": "gemma4", "text_config": {"hidden_size_per_layer_input": 0},
                "audio_config": {"subsampling_conv_channels": [128]}})")
            << QStringLiteral("config.json: /audio_config/subsampling_conv_channels: must be two channel counts");
        QTest::newRow("MoE without its experts")
            << QStringLiteral(
                   R"({"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "enable_moe_block": true})")
            << QStringLiteral("config.json: /num_experts: is required");
        QTest::newRow("a layer_types list of the wrong length names both numbers")
            << QStringLiteral(R"({"model_type": "gemma4_text", "hidden_size_per_layer_input": 0,
                "layer_types": ["sliding_attention", "full_attention"]})")
            << QStringLiteral("config.json: /layer_types: has 2 entries for 30 layers (num_hidden_layers)");
        QTest::newRow("an unknown layer kind is named with its index")
            << QStringLiteral(R"({"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "num_hidden_layers": 2,
                "layer_types": ["chunked_attention", "full_attention"]})")
            << QStringLiteral(
                   "config.json: /layer_types/0: unknown layer kind \"chunked_attention\" at layer 0 (known: "
                   "full_attention, sliding_attention)");
    }
    void gemma4BadOrUnreadFieldsAreRefused()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        const QString got = QString::fromStdString(firstError(json.toStdString()));
        QVERIFY2(got.startsWith(message), qPrintable(got));
    }

    // The vision tower (ParamCount::vision) in the accounting: its weights are held in every mode, at the mode's
    // weight bytes (16 bits for a QLoRA base, whose 4-bit quantisation covers the language model's linears only); its
    // gradients, master copy and optimizer state only in full training. Qwen3-VL-8B's tower is 576,388,336
    // parameters (the row above); each difference below is against the same scenario without the tower.
    void visionTowerIsFrozenUnderAdaptersAndTrainedInFull_data()
    {
        QTest::addColumn<int>("fineTune"); // FineTune
        QTest::addColumn<bool>("serving");
        QTest::newRow("full training trains it") << int(FineTune::Full) << false;
        QTest::newRow("LoRA holds its weights only") << int(FineTune::Lora) << false;
        QTest::newRow("QLoRA holds its 16-bit weights only") << int(FineTune::QLora) << false;
        QTest::newRow("serving holds its weights") << int(FineTune::Full) << true;
    }
    void visionTowerIsFrozenUnderAdaptersAndTrainedInFull()
    {
        QFETCH(int, fineTune);
        QFETCH(bool, serving);
        const HfImport imp = importFile(QStringLiteral("Qwen3-VL-8B-Instruct.json"));
        QVERIFY(imp.ok());
        Scenario base;
        base.hardware.gpu = "H100";
        base.training.fineTune = static_cast<FineTune>(fineTune);
        base.training.mode = serving ? Mode::Inference : Mode::Training;
        const Scenario with = scenarioWithHfModel(base, imp, "Qwen3-VL-8B");
        Scenario without = with;
        without.model.architecture.visionParams = 0;
        const GpuSpec gpu = testdata::gpu("H100");
        const Breakdown a = account(with, gpu), b = account(without, gpu);
        const double vision = 576388336.0;
        QCOMPARE(a.model.params.vision, qint64(576388336));
        QCOMPARE(a.model.params.total, b.model.params.total); // the language model's count is unchanged
        // QLoRA keeps the tower in the 16-bit weight precision of the base's non-quantised tensors (2 B).
        const double weightBytes = fineTune == int(FineTune::QLora) ? 2.0 : a.recipe.weights;
        QVERIFY(weightBytes > 0);
        QCOMPARE(a.perGpu.weights - b.perGpu.weights, weightBytes * vision);
        const bool trained = !serving && fineTune == int(FineTune::Full);
        QCOMPARE(a.perGpu.gradients - b.perGpu.gradients, trained ? a.recipe.gradients * vision : 0.0);
        QCOMPARE(a.perGpu.master - b.perGpu.master, trained ? a.recipe.master * vision : 0.0);
        QCOMPARE(a.perGpu.optimizer - b.perGpu.optimizer, trained ? a.recipe.optimizer * vision : 0.0);
        QCOMPARE(a.perGpu.adapters, b.perGpu.adapters); // no adapters on the tower
        if (trained)
            QVERIFY(a.recipe.gradients > 0 && a.recipe.optimizer > 0);
        // The scenario file keeps the tower: written, read back, the same count.
        const std::string text = scenarioToText(with);
        QVERIFY(text.find("\"vision_params\": 576388336") != std::string::npos);
        const ScenarioParse back = parseScenario(text, "scenario.json");
        QVERIFY(back.ok());
        QCOMPARE(back.scenario.model.architecture.visionParams, qint64(576388336));
    }

    // Families for which no real config.json could be found in the public sources searched (see
    // tests/data/hf/README.md): the fields their publishers list, written as the config.json keys
    // they are, with the published count. Not copies of files; the importer's reading of each family.
    void familyFromPublishedFields_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("active");
        QTest::addColumn<qint64>("published");
        QTest::addColumn<double>("publishedTol");
        // Mistral-7B-v0.1 (fields: sumitdotml/transformers mistral-7b-v0.1/README.md): dim 4096, 32 layers,
        // 32 heads, 8 KV heads, head_dim 128, FFN 14336, vocab 32000; untied. Published 7,241,732,096 (7.24B).
        QTest::newRow("mistral: Mistral 7B v0.1 = 7,241,732,096")
            << R"({"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                  "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 14336, "vocab_size": 32000,
                  "tie_word_embeddings": false})"
            << qint64(7241732096) << qint64(7241732096) << qint64(7241732096) << 0.0;
        // Qwen1.5-MoE-A2.7B (Qwen's model card: 14.3B total, 2.7B activated): 24 layers, h 2048, 16 heads,
        // 60 experts of 1408, top-4, one shared expert of 5632 behind a gate, q/k/v biases, untied.
        QTest::newRow("qwen2_moe: Qwen1.5-MoE-A2.7B = 14.3B total, 2.7B active")
            << R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
                  "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60,
                  "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
                  "decoder_sparse_step": 1, "tie_word_embeddings": false})"
            << qint64(14315784192) << qint64(2689173504) << qint64(14300000000) << 0.0035;
        // Gemma 2B (fields: UbiquitousLearning/mllm src/models/gemma/README.md; keras-hub gemma_2b_en:
        // 2,506,172,416): 18 layers, h 2048, 8 heads, 1 KV head of 256, GeGLU 16384, tied 256000 vocabulary.
        QTest::newRow("gemma: Gemma 2B = 2,506,172,416 exactly")
            << R"({"model_type": "gemma", "hidden_size": 2048, "num_hidden_layers": 18, "num_attention_heads": 8,
                  "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 16384, "vocab_size": 256000})"
            << qint64(2506172416) << qint64(2506172416) << qint64(2506172416) << 0.0;
        // Gemma 2 2B (fields: AI-Hypercomputer/maxtext hf_model_configs.py gemma2_2b_config over
        // Gemma2Config's defaults head_dim 256, vocab 256000; keras-hub gemma2_2b_en: 2,614,341,888):
        // four norms a layer.
        QTest::newRow("gemma2: Gemma 2 2B (four norms a layer) = 2,614,341,888 exactly")
            << R"({"model_type": "gemma2", "hidden_size": 2304, "num_hidden_layers": 26, "num_attention_heads": 8,
                  "num_key_value_heads": 4, "intermediate_size": 9216, "vocab_size": 256000})"
            << qint64(2614341888) << qint64(2614341888) << qint64(2614341888) << 0.0;
        // Phi-3-mini (Phi-3 report arXiv 2404.14219: h 3072, 32 heads, 32 layers, vocab 32064; keras-hub
        // phi3_mini_4k_instruct_en: 3,821,079,552, which pins the FFN at 8192). Fused qkv/gate_up count the same.
        QTest::newRow("phi3: Phi-3-mini (fused projections) = 3,821,079,552 exactly")
            << R"({"model_type": "phi3", "hidden_size": 3072, "num_hidden_layers": 32, "num_attention_heads": 32,
                  "num_key_value_heads": 32, "intermediate_size": 8192, "vocab_size": 32064, "tie_word_embeddings": false})"
            << qint64(3821079552) << qint64(3821079552) << qint64(3821079552) << 0.0;
        // GPT-2 small (openai-community/gpt2 config.json, as in presets/gpt2-small.json): learned positions,
        // LayerNorms and linears with bias, tied head. Published 124,439,808.
        QTest::newRow("gpt2: GPT-2 small = 124,439,808 exactly")
            << R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_inner": null, "n_positions": 1024,
                  "vocab_size": 50257, "resid_pdrop": 0.1})"
            << qint64(124439808) << qint64(124439808) << qint64(124439808) << 0.0;
        // Pythia 6.9B (modules: Retruth/deontic nlp_models/pythia/README.md: embed_in/embed_out 50432x4096,
        // 32 layers, query_key_value 12288 and dense with bias, MLP 16384 with bias, LayerNorms with bias;
        // Pythia paper arXiv 2304.01373 Table 1: 6,857,302,016).
        QTest::newRow("gpt_neox: Pythia 6.9B = 6,857,302,016 exactly")
            << R"({"model_type": "gpt_neox", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                  "intermediate_size": 16384, "vocab_size": 50432, "tie_word_embeddings": false})"
            << qint64(6857302016) << qint64(6857302016) << qint64(6857302016) << 0.0;
        // OLMo 2 7B (OLMo 2 report arXiv 2501.00656: 32 layers, h 4096, 32 heads, MLP 11008, vocab 100352;
        // published 7.3B): q_norm/k_norm over the full 4096 width, post-attention and post-FFN norms.
        QTest::newRow("olmo2: OLMo 2 7B (full-width q/k norms) = 7.3B")
            << R"({"model_type": "olmo2", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                  "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 100352, "tie_word_embeddings": false})"
            << qint64(7298617344) << qint64(7298617344) << qint64(7300000000) << 0.007;
        // DeepSeek-V2-Lite (DeepSeek-V2 report arXiv 2405.04434 Appendix B: 27 layers, h 2048, 16 heads,
        // kv_lora 512, no query compression, 64 routed + 2 shared experts of 1408, 6 active, layer 0 dense;
        // 15.7B total, 2.4B activated; the dense width 10944 is the model's intermediate_size).
        QTest::newRow("deepseek_v2: DeepSeek-V2-Lite = 15.7B total")
            << R"({"model_type": "deepseek_v2", "hidden_size": 2048, "num_hidden_layers": 27, "num_attention_heads": 16,
                  "intermediate_size": 10944, "vocab_size": 102400, "q_lora_rank": null, "kv_lora_rank": 512,
                  "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 64,
                  "n_shared_experts": 2, "num_experts_per_tok": 6, "moe_intermediate_size": 1408,
                  "first_k_dense_replace": 1, "moe_layer_freq": 1})"
            << qint64(15706484224) << qint64(2661150208) << qint64(15700000000) << 0.0032;
        // OLMoE-1B-7B (no real config.json found in a named public file): OlmoeConfig's defaults
        // (configuration_olmoe.py @ 008e574391258935f3ecc3035c882e73bbcac419: h 2048, 16 layers, 16 heads, 64
        // experts, 8 a token, V=50304, untied) with the model's expert width 1024. A layer: 4·h² + q_norm h +
        // k_norm h + 2h + 64·3·h·1024 + router h·64 = 419,569,664; ·16 + 2·V·h + h = 6,919,161,856; active 8 of
        // 64 experts: 1,282,017,280. The OLMoE paper (arXiv 2409.02060): 7B total, 1B active (6.9B and 1.3B).
        QTest::newRow("olmoe: OLMoE-1B-7B (full-width q/k norms, config defaults) = 6.9B total, 1.3B active")
            << R"({"model_type": "olmoe", "intermediate_size": 1024})" << qint64(6919161856) << qint64(1282017280)
            << qint64(6900000000) << 0.003;
        // Falcon-40B (falcon): the sizes TII's model card lists for tiiuae/falcon-40b (60 layers, d_model 8192,
        // head_dim 64: 128 heads, vocabulary 65024) with the 8 key/value groups of its new decoder architecture
        // (the Falcon paper, arXiv 2311.16867, §4.1 multigroup attention), FalconConfig's defaults otherwise (no
        // biases, tied). A layer: query_key_value h·(128 + 2·8)·64, dense h², MLP 2·h·4h, ln_attn and ln_mlp 4h =
        // 679,510,016; V·h + 60·679,510,016 + 2h = 41,303,293,952. TII: "Falcon-40B is a 40B parameters" model.
        QTest::newRow("falcon: Falcon-40B (new decoder architecture, 8 KV groups) = 41.3B")
            << R"({"model_type": "falcon", "hidden_size": 8192, "num_hidden_layers": 60, "num_attention_heads": 128,
                  "num_kv_heads": 8, "new_decoder_architecture": true, "vocab_size": 65024})"
            << qint64(41303293952) << qint64(41303293952) << qint64(40000000000) << 0.033;
        // Granite 3.1 3B-A800M (granitemoe): the architecture IBM's model card for ibm-granite/granite-3.1-3b-a800m
        // lists (embedding size 1536, 32 layers, 24 heads of 64, 8 KV heads, MLP hidden size 512, 40 experts, top-8,
        // vocabulary 49155) and tied embeddings (untied, the count would be 3.37B, not the card's 3.3B). A layer:
        // 2·h·1536 + 2·h·512 + 2h + 40·3·h·512 + h·40 = 103,082,496; V·h + 32·103,082,496 + h = 3,298,793,472;
        // active 8 experts: 882,874,368, of which 807,372,288 past the embedding. IBM: 3.3B parameters, 800M active.
        QTest::newRow("granitemoe: Granite 3.1 3B-A800M = 3.3B total, 0.8B active")
            << R"({"model_type": "granitemoe", "hidden_size": 1536, "num_hidden_layers": 32, "num_attention_heads": 24,
                  "num_key_value_heads": 8, "intermediate_size": 512, "num_local_experts": 40,
                  "num_experts_per_tok": 8, "vocab_size": 49155, "tie_word_embeddings": true})"
            << qint64(3298793472) << qint64(882874368) << qint64(3300000000) << 0.0004;
        // IBM Granite 4.0 H (granitemoehybrid). No verbatim config.json of these models was found in a public file
        // whose repository the search tools name (tests/data/hf/README.md), so the architecture IBM's model card lists
        // (its "Model Architecture" table, as DocDBrown/IBMGranite4Tiny README.md @
        // 60d949f9a1b5df8e0fb09bf970d15a8188fb963d copies the ibm-granite/granite-4.0-h-tiny card: embedding size,
        // 4 attention / 36 Mamba2 layers, attention heads and KV heads, Mamba2 state size and heads, MLP / shared
        // expert hidden size, experts, active experts, expert hidden size, SwiGLU, NoPE, "shared input/output
        // embeddings"), the vocabulary 100,352 of IBM's published config.json files (quoted in files the tools do not
        // name) and GraniteMoeHybridConfig's defaults for the rest (configuration_granitemoehybrid.py @
        // 4f7e1d467f2615fe8de4a089a8b90cf861bea4d7: mamba_expand 2, mamba_d_head auto = 2h / heads, mamba_n_groups 1,
        // mamba_d_conv 4 with a conv bias, no projection bias). Modules as modeling_granitemoehybrid.py @
        // 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e builds them (hfconfig.cpp readGraniteMoeHybrid). Per layer two
        // RMSNorms 2h; a Mamba-2 layer: in_proj h·(d_inner + conv_dim + heads) + conv1d conv_dim·4 + conv bias conv_dim
        // + dt_bias, A_log, D 3·heads + gated norm d_inner + out_proj d_inner·h, with d_inner = 2h and conv_dim =
        // d_inner + 2·128; an attention layer: q, o h² each, k, v h·kv·(h/heads) each; the MLP: E experts 3·h·f_e
        // + router h·E + shared 3·h·f_s (active: k experts). Tied V·h and the final norm h.
        // Granite-4.0-H-Small: h 4096, 32 heads, 8 KV heads (head 128), 128 Mamba heads, 72 experts of 768, top-10,
        // shared 1536. Mamba layer: 4096·(8192 + 8448 + 128) = 68,681,728 + 33,792 + 8,448 + 384 + 8,192 +
        // 33,554,432 = 102,286,976; attention 2·16,777,216 + 2·4,194,304 = 41,943,040; MLP 72·9,437,184 + 294,912 +
        // 18,874,368 = 698,646,528 (active 10 experts: 113,541,120). 411,041,792 + 4,096 + 36·102,286,976 +
        // 4·41,943,040 + 40·8,192 + 40·698,646,528 = 32,207,337,984; active 8,803,121,664. IBM: 32B total, 9B active;
        // Docker's listing of the same weights (docker/model-cards ai/granite-4.0-h-small.md @
        // 449bb3107bb0dc45cf7dde62195814a50cbf8141): 32.21 B, which also rules out 8 Mamba groups (32.47B).
        QTest::newRow("granitemoehybrid: Granite-4.0-H-Small (36 Mamba-2, 4 attention, 72 experts + shared) = 32.21B")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "hidden_size": 4096, "num_hidden_layers": 40,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 768,
                  "shared_intermediate_size": 1536, "num_local_experts": 72, "num_experts_per_tok": 10,
                  "mamba_n_heads": 128, "mamba_d_state": 128, "vocab_size": 100352, "tie_word_embeddings": true,
                  "position_embedding_type": "nope", "layer_types": %1})")
                   .arg(graniteHLayerTypes())
            << qint64(32207337984) << qint64(8803121664) << qint64(32210000000) << 0.0001;
        // Granite-4.0-H-Tiny: h 1536, 12 heads, 4 KV heads (head 128), 48 Mamba heads (d_inner 3072, conv_dim 3328),
        // 64 experts of 512, top-6, shared 1024. Mamba layer: 1536·6448 = 9,904,128 + 13,312 + 3,328 + 144 + 3,072 +
        // 4,718,592 = 14,642,576; attention 2·2,359,296 + 2·786,432 = 6,291,456; MLP 64·2,359,296 + 98,304 +
        // 4,718,592 = 155,811,840 (active 6 experts: 18,972,672). 154,140,672 + 1,536 + 36·14,642,576 + 4·6,291,456
        // + 40·3,072 + 40·155,811,840 = 6,939,037,248; active 1,465,470,528 (1,311,329,856 past the embedding). IBM:
        // 7B total, "1B" active (the Mamba layers alone hold 527M on every token's path).
        QTest::newRow("granitemoehybrid: Granite-4.0-H-Tiny (36 Mamba-2, 4 attention, 64 experts + shared) = 6.94B")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "hidden_size": 1536, "num_hidden_layers": 40,
                  "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 512,
                  "shared_intermediate_size": 1024, "num_local_experts": 64, "num_experts_per_tok": 6,
                  "mamba_n_heads": 48, "mamba_d_state": 128, "vocab_size": 100352, "tie_word_embeddings": true,
                  "layer_types": %1})")
                   .arg(graniteHLayerTypes())
            << qint64(6939037248) << qint64(1465470528) << qint64(7000000000) << 0.009;
        // Granite-4.0-H-Micro, dense (num_local_experts 0: shared_mlp alone, of 8192): h 2048, 32 heads, 8 KV heads
        // (head 64), 64 Mamba heads (d_inner 4096, conv_dim 4352). Mamba layer: 2048·8512 = 17,432,576 + 17,408 +
        // 4,352 + 192 + 4,096 + 8,388,608 = 25,847,232; attention 2·4,194,304 + 2·1,048,576 = 10,485,760; MLP
        // 3·2048·8192 = 50,331,648. 205,520,896 + 2,048 + 36·25,847,232 + 4·10,485,760 + 40·4,096 + 40·50,331,648 =
        // 3,191,396,096. IBM: 3B; Docker's listing (docker/model-cards ai/granite-4.0-h-micro.md @
        // 449bb3107bb0dc45cf7dde62195814a50cbf8141): 3.2B.
        QTest::newRow("granitemoehybrid: Granite-4.0-H-Micro (dense MLP, num_local_experts 0) = 3.19B")
            << QStringLiteral(R"({"model_type": "granitemoehybrid", "hidden_size": 2048, "num_hidden_layers": 40,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192,
                  "shared_intermediate_size": 8192, "num_local_experts": 0, "num_experts_per_tok": 0,
                  "mamba_n_heads": 64, "mamba_d_state": 128, "vocab_size": 100352, "tie_word_embeddings": true,
                  "layer_types": %1})")
                   .arg(graniteHLayerTypes())
            << qint64(3191396096) << qint64(3191396096) << qint64(3200000000) << 0.003;
    }
    void familyFromPublishedFields()
    {
        QFETCH(QString, json);
        QFETCH(qint64, total);
        QFETCH(qint64, active);
        QFETCH(qint64, published);
        QFETCH(double, publishedTol);
        const HfImport imp = parseHfConfig(json.toStdString(), "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        const ParamCount c = countParams(imp.architecture);
        QCOMPARE(c.total, total);
        QCOMPARE(c.active, active);
        // num_nextn_predict_layers becomes the MTP modules, counted apart (tst_params: 11,610,067,968 for V3).
        if (json.contains(QStringLiteral("num_nextn_predict_layers"))) {
            QCOMPARE(imp.architecture.mtpLayers, qint64(1));
            QCOMPARE(c.mtp, qint64(11610067968));
        } else {
            QCOMPARE(c.mtp, qint64(0));
        }
        const double rel = std::abs(double(c.total) - double(published)) / double(published);
        QVERIFY2(rel <= publishedTol + 1e-12,
                 qPrintable(QStringLiteral("off the published count by %1%").arg(100 * rel)));
    }

    // The import becomes a scenario file that reads back to the same model.
    void importSavesAsScenarioFile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("qwen2 qkv bias round-trips") << "Qwen2.5-7B.json";
        QTest::newRow("qwen3 per-head q/k norms round-trip") << "Qwen3-8B.json";
        QTest::newRow("gemma3 four norms round-trip") << "gemma-3-1b.json";
        QTest::newRow("qwen3_moe round-trips") << "Qwen3-30B-A3B.json";
        QTest::newRow("gpt_oss sinks, router and expert biases round-trip") << "gpt-oss-20b.json";
        QTest::newRow("phi one LayerNorm a layer and the head bias round-trip") << "phi-2.json";
        QTest::newRow("gemma4 full layers' own shape, the MLP beside the experts and the router scales round-trip")
            << "gemma-4-26B-A4B.json";
    }
    void importSavesAsScenarioFile()
    {
        QFETCH(QString, file);
        const HfImport imp = importFile(file);
        QVERIFY(imp.ok());
        const Scenario s = scenarioWithHfModel(Scenario{}, imp, "folder");
        const ScenarioParse back = parseScenario(scenarioToText(s), "saved.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().toString().c_str());
        const ParamCount want = countParams(imp.architecture);
        const ParamCount got = countParams(back.scenario.model.architecture);
        QCOMPARE(got.total, want.total);
        QCOMPARE(got.active, want.active);
        QCOMPARE(scenarioToText(back.scenario), scenarioToText(s));
    }

    // Kimi K2.5's config.json wraps the language model: {"model_type": "kimi_k25", "text_config": {"model_type":
    // "kimi_k2", …}, "vision_config": {…}}. The text_config is read as kimi_k2; the MoonViT tower and its projector
    // are counted apart from vision_config (modeling_kimi_k25.py, cited in core/formats/hfconfig.cpp), the fields it
    // leaves out taking KimiK25VisionConfig's defaults (Kimi K2.5's own sizes) and text_hidden_size the language
    // model's width.
    void kimiK25WrapperCountsItsMoonViTTower()
    {
        const std::string text = R"({"model_type": "kimi_k25", "vision_config": {"vt_num_hidden_layers": 27},
            "text_config": {"model_type": "kimi_k2", "hidden_size": 7168, "num_hidden_layers": 61,
            "num_attention_heads": 64, "num_key_value_heads": 64, "intermediate_size": 18432, "vocab_size": 163840,
            "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
            "v_head_dim": 128, "n_routed_experts": 384, "n_shared_experts": 1, "num_experts_per_tok": 8,
            "moe_intermediate_size": 2048, "first_k_dense_replace": 1, "tie_word_embeddings": false}})";
        const HfImport imp = parseHfConfig(text, "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(QString::fromStdString(imp.modelType), QStringLiteral("kimi_k2"));
        QCOMPARE(countParams(imp.architecture).total, qint64(1026408209408)); // as the kimi_k2 row
        // The real file's tower and projector (families2026MatchPublishedCounts' kimi_k25 row): 416,866,032 +
        // 54,277,888.
        QCOMPARE(countParams(imp.architecture).vision, qint64(471143920));
        // Moonshot's model card gives the vision encoder as 400M: the tower without the projector, 416,866,032, is
        // 4.2% above it (rounded; its 64×64 position grid alone is 4,718,592).
        QVERIFY(std::abs(416866032.0 - 400e6) / 400e6 < 0.043);

        auto visionWith = [&](const std::string& fields) {
            std::string t = text;
            t.replace(t.find(R"("vt_num_hidden_layers": 27)"), 26, fields);
            const HfImport i = parseHfConfig(t, "config.json");
            return i.ok() ? countParams(i.architecture).vision : qint64(-1);
        };
        // mm_projector_type "mlp": MLP's pre_norm 2·1152, Linear(1152, 7168) 8,264,704, Linear(7168, 7168)
        // 51,387,392: 416,866,032 + 59,654,400. "identity": the tower alone.
        QCOMPARE(visionWith(R"("mm_projector_type": "mlp")"), qint64(476520432));
        QCOMPARE(visionWith(R"("mm_projector_type": "identity")"), qint64(416866032));
        // merge_kernel_size [1, 2]: PatchMergerMLP over 2·1152 = 2304: 2·1152 + (2304² + 2304) + (2304·7168 + 7168)
        // = 21,835,264 instead of 54,277,888.
        QCOMPARE(visionWith(R"("merge_kernel_size": [1, 2])"), qint64(438701296));
        // A file's text_hidden_size wins over the language model's width: 4096 makes the last Linear 4608·4096 +
        // 4096 = 18,878,464 instead of 33,037,312.
        QCOMPARE(visionWith(R"("text_hidden_size": 4096)"), qint64(456985072));

        auto errorWith = [&](const std::string& fields) {
            std::string t = text;
            t.replace(t.find(R"("vt_num_hidden_layers": 27)"), 26, fields);
            return QString::fromStdString(firstError(t));
        };
        QCOMPARE(errorWith(R"("merge_kernel_size": [2])"),
                 QStringLiteral("config.json: /vision_config/merge_kernel_size: must be [height, width] of 1 to 64 "
                                "patches each, got [2]"));
        QCOMPARE(errorWith(R"("mm_projector_type": "qformer")"),
                 QStringLiteral("config.json: /vision_config/mm_projector_type: unknown projector \"qformer\" "
                                "(known: patchmerger, mlp, identity)"));
        // An error inside the language model is named under /text_config.
        const std::string bad = R"({"model_type": "kimi_k25", "text_config": {"model_type": "kimi_k2",
            "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 64, "vocab_size": "big"}})";
        QVERIFY(QString::fromStdString(firstError(bad)).startsWith(QLatin1String("config.json: /text_config/")));
    }

    // A config.json that leaves out sizes gets the configuration class's defaults, as transformers fills them:
    // GptOssConfig's are gpt-oss-120b's (36 layers, 128 experts; configuration_gpt_oss.py @
    // 02b8f42b4240dddea1b27c45d2dc95fb2682f841), SmolLM3Config's SmolLM3-3B's (configuration_smollm3.py @
    // 008e574391258935f3ecc3035c882e73bbcac419). Families without such defaults still require the fields.
    void missingSizesTakeTheConfigClassDefaults_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<qint64>("total");
        QTest::newRow("gpt_oss with no sizes is gpt-oss-120b = 116,829,156,672")
            << R"({"model_type": "gpt_oss"})" << qint64(116829156672);
        QTest::newRow("smollm3 with no sizes is SmolLM3-3B = 3,075,098,624")
            << R"({"model_type": "smollm3"})" << qint64(3075098624);
        // Starcoder2Config's defaults (configuration_starcoder2.py @ 008e574391258935f3ecc3035c882e73bbcac419): h 3072,
        // 30 layers, 24 heads and 2 KV heads of 128, GELU MLP 12288, V=49152, use_bias, tied; LayerNorms with bias.
        // A layer: h·3072 + 3072 + 2·(h·256 + 256) + 3072·h + h + 2·h·12288 + 12288 + h + 2·2h = 95,979,008;
        // V·h + 30·95,979,008 + 2h = 3,030,371,328 (StarCoder2-3B's size).
        QTest::newRow("starcoder2 with no sizes (biases, LayerNorms, GELU MLP) = 3,030,371,328")
            << R"({"model_type": "starcoder2"})" << qint64(3030371328);
        // SeedOssConfig's defaults (configuration_seed_oss.py @ 008e574391258935f3ecc3035c882e73bbcac419): h 4096,
        // 64 layers, 80 heads and 8 KV heads of 128, MLP 27648, V=155136, q/k/v biases, untied. A layer:
        // h·10240 + 2·h·1024 + 10240·h + 10240 + 2·1024 + 3·h·27648 + 2h = 432,033,792; 64·432,033,792 + 2·V·h + h
        // = 28,921,040,896.
        QTest::newRow("seed_oss with no sizes (q/k/v biases, head_dim 128) = 28,921,040,896")
            << R"({"model_type": "seed_oss"})" << qint64(28921040896);
        // Cohere2Config's defaults (configuration_cohere2.py @ 008e574391258935f3ecc3035c882e73bbcac419; the
        // docstring's checkpoint CohereForAI/c4ai-command-r-v01): h 8192, 40 layers, 64 heads of 128 (KV heads default
        // to the heads), SwiGLU 22528, V=256000, tied, one weight-only LayerNorm a layer. A layer: 4·h² + 3·h·22528 + h
        // = 822,091,776; V·h + 40·822,091,776 + h = 34,980,831,232 (Command R, 35B).
        QTest::newRow("cohere2 with no sizes (parallel block, one norm a layer) = 34,980,831,232")
            << R"({"model_type": "cohere2"})" << qint64(34980831232);
        // Exaone4Config's defaults (configuration_exaone4.py @ 008e574391258935f3ecc3035c882e73bbcac419): h 4096, 32
        // layers, 32 heads and 32 KV heads of 128, SwiGLU 16384, V=102400, untied. A layer: 4·h² + 2·128 (per-head
        // q/k norms) + 3·h·16384 + 2h (post-norms) = 268,443,904; 32·268,443,904 + 2·V·h + h = 9,429,069,824.
        QTest::newRow("exaone4 with no sizes (per-head q/k norms, post-norms) = 9,429,069,824")
            << R"({"model_type": "exaone4"})" << qint64(9429069824);
        // GlmMoeDsaConfig's defaults (configuration_glm_moe_dsa.py @ 598881bceccfbc4ec888e43df68dc235415426bf) are
        // GLM-5's sizes: the GLM-5 row of families2026MatchPublishedCounts, 743,911,199,232.
        QTest::newRow("glm_moe_dsa with no sizes is GLM-5 = 743,911,199,232")
            << R"({"model_type": "glm_moe_dsa"})" << qint64(743911199232);
        // GPTBigCodeConfig's defaults (configuration_gpt_bigcode.py @ 05ff2e98e4461ece6e706435e2a57834bb4f985f): GPT-2
        // small's sizes (n_embd 768, 12 layers, 12 heads, V=50257, 1024 learned positions, tied) with multi-query
        // attention: c_attn h·(h + 2·64) + 896, c_proj h² + h, MLP 2·h·3072 + 3072 + h, two LayerNorms 4h =
        // 6,005,120 a layer; 12·6,005,120 + V·h + 1024·h + 2h = 111,446,784.
        QTest::newRow("gpt_bigcode with no sizes (multi-query) = 111,446,784")
            << R"({"model_type": "gpt_bigcode"})" << qint64(111446784);
        // FalconConfig's defaults (modeling_falcon.py @ 44272086ad6636711ce99155bf7d03f0cf95e8f4: falcon-7b's shape):
        // h 4544, 32 layers, 71 heads of 64, multi-query (one K and one V head), parallel attention with one
        // input_layernorm, MLP 4h, no biases, V=65024, tied. A layer: h·(4544 + 128) + h² + 2·h·18176 + 2h =
        // 207,070,080; V·h + 32·207,070,080 + 2h = 6,921,720,704 (Falcon-7B's 6.92B).
        QTest::newRow("falcon with no sizes is Falcon-7B = 6,921,720,704")
            << R"({"model_type": "falcon"})" << qint64(6921720704);
        // GraniteMoeConfig's defaults (configuration_granitemoe.py @ 546b1438deb6f79c35f482f58fa5c8838451e47e): h 4096,
        // 32 layers, 32 heads (KV heads = heads), 8 experts of 11008, V=32000, untied: 2·V·h + h + 32·(4h² + 2h +
        // 8·3·h·11008 + 8h) = 37,039,116,288.
        QTest::newRow("granitemoe with no sizes = 37,039,116,288")
            << R"({"model_type": "granitemoe"})" << qint64(37039116288);
        // GraniteMoeHybridConfig's defaults (configuration_granitemoehybrid.py @
        // 4f7e1d467f2615fe8de4a089a8b90cf861bea4d7): h 4096, 32 layers, all Mamba-2 (no layer_types: "["mamba"] *
        // num_hidden_layers"), 128 Mamba heads of 64 (d_inner 8192), state 256, 1 group (conv_dim 8704), conv 4 with
        // a bias; 8 experts of 11008, top-2, shared 1024; V=32000 untied. A layer: Mamba 4096·17024 = 69,730,304 +
        // 34,816 + 8,704 + 384 + 8,192 + 33,554,432 = 103,336,832, norms 8,192, MLP 8·3·h·11008 + 8h + 3·h·1024 =
        // 1,094,746,112: 1,198,091,136; 2·V·h + h + 32·1,198,091,136 = 38,601,064,448.
        QTest::newRow("granitemoehybrid with no sizes (all Mamba-2, MoE + shared MLP) = 38,601,064,448")
            << R"({"model_type": "granitemoehybrid"})" << qint64(38601064448);
        // Without multi-query it is GPT-2 small, 124,439,808 (the gpt2 row above).
        QTest::newRow("gpt_bigcode without multi_query is GPT-2 small = 124,439,808")
            << R"({"model_type": "gpt_bigcode", "multi_query": false})" << qint64(124439808);
        // Gemma3TextConfig's defaults (configuration_gemma3.py @ 008f5c8c29be84d4721dc6d1e0fcd72300580be4): h 2304,
        // 26 layers, 8 heads and 4 KV heads of 256, GeGLU 9216, V=262208, tied. A layer: h·2048 + 2·h·1024 +
        // 2048·h + 2·256 + 3·h·9216 + 4h = 77,866,496; V·h + 26·77,866,496 + h = 2,628,658,432.
        QTest::newRow("a gemma3 wrapper whose text_config has only its type takes Gemma3TextConfig's defaults")
            << R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text"}, "vision_config": {}})"
            << qint64(2628658432);
        // A wrapper giving only Gemma 3 4B's three widths (hidden_size 2560, intermediate_size 10240,
        // num_hidden_layers 34; not copied from a config.json here: no public copy was found to cite), the heads,
        // KV heads and vocabulary left to the defaults (8, 4, 262208). The count's non-embedding part equals the
        // Gemma 3 report's published figure for the 4B to the million, which is what this row checks. A layer: h·2048 +
        // 2·h·1024 + 2048·h + 512 + 3·h·10240 + 4h = 94,382,592; V·h + 34·94,382,592 + h = 3,880,263,168, of which
        // 3,209,010,688 not the embedding: the Gemma 3 report (arXiv 2503.19786, Table 1) gives the 4B 3,209M
        // non-embedding parameters (its vision tower is not counted).
        QTest::newRow("Gemma 3 4B's text_config with most sizes left out = 3,880,263,168")
            << R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "hidden_size": 2560,
                  "intermediate_size": 10240, "num_hidden_layers": 34}, "vision_config": {"model_type": "siglip_vision_model"}})"
            << qint64(3880263168);
    }
    void missingSizesTakeTheConfigClassDefaults()
    {
        QFETCH(QString, json);
        QFETCH(qint64, total);
        const HfImport imp = parseHfConfig(json.toStdString(), "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(countParams(imp.architecture).total, total);
    }

    // GlmMoeDsaConfig's mlp_layer_types names each layer's MLP, dense or sparse (its default: 3 dense, then sparse);
    // first_k_dense_replace, which GLM-5's file also writes, is not read by that class.
    void glmMoeDsaReadsMlpLayerTypes()
    {
        const HfImport listed = parseHfConfig(R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 4,
            "first_k_dense_replace": 3, "mlp_layer_types": ["dense", "sparse", "sparse", "sparse"]})",
                                              "config.json");
        QVERIFY(listed.ok());
        QCOMPARE(listed.architecture.moe.denseLayers, qint64(1));
        const HfImport byDefault =
            parseHfConfig(R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 4})", "config.json");
        QVERIFY(byDefault.ok());
        QCOMPARE(byDefault.architecture.moe.denseLayers, qint64(3));
        QCOMPARE(byDefault.architecture.mla.indexHeads, qint64(32));
        const HfImport bad = parseHfConfig(
            R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 2, "mlp_layer_types": ["dense", "moe"]})", "c");
        QVERIFY(!bad.ok());
        QCOMPARE(QString::fromStdString(bad.errors.front().toString()),
                 QStringLiteral("c: /mlp_layer_types/1: unknown layer kind \"moe\" at layer 1 (known: dense, sparse)"));
    }

    void importKeepsTheSetupAndRecordsDtype()
    {
        Scenario base = testdata::preset("deepseek-v3"); // ep 64 on 2048 H800s
        const HfImport imp = importFile("Llama-3.1-8B.json");
        const Scenario s = scenarioWithHfModel(base, imp, "Llama-3.1-8B");
        QCOMPARE(s.hardware.gpus, base.hardware.gpus);
        QCOMPARE(QString::fromStdString(s.hardware.gpu), QStringLiteral("H800"));
        QCOMPARE(s.training.seqLen, base.training.seqLen);
        QCOMPARE(s.hardware.ep, qint64(1)); // a dense model has no experts to spread
        QCOMPARE(QString::fromStdString(s.name), QStringLiteral("Llama-3.1-8B"));
        QCOMPARE(QString::fromStdString(s.id), QStringLiteral("llama-3.1-8b"));
        QVERIFY(QString::fromStdString(s.description).contains(QLatin1String("torch_dtype bfloat16")));
        QCOMPARE(s.training.inferenceWeights, InferenceWeights::BF16);
        QCOMPARE(s.model.params, qint64(8030261248));
        QVERIFY(!s.model.publishedTotal);
    }

    // The tensors issue 13 asked for, each on its own in a scenario file.
    void newArchitectureFieldsCount_data()
    {
        QTest::addColumn<QString>("fields");
        QTest::addColumn<qint64>("extra"); // over the same block without them
        // Base block: 1 layer, h=64, 4 heads of 16, SwiGLU 128, vocab 100, untied, RMSNorm.
        QTest::newRow("qkv-only bias adds q+k+v = 192") << R"("attention_bias": "qkv")" << qint64(192);
        QTest::newRow("all attention biases add q+k+v+o = 256") << R"("attention_bias": "all")" << qint64(256);
        QTest::newRow("mlp bias adds gate+up+down = 2·128+64") << R"("mlp_bias": true)" << qint64(320);
        QTest::newRow("per-head q/k norms add 2·16") << R"("qk_norm": "head")" << qint64(32);
        QTest::newRow("full-width q/k norms add 64+64") << R"("qk_norm": "full")" << qint64(128);
        QTest::newRow("four norms a layer add 2·64") << R"("norms_per_layer": 4)" << qint64(128);
        QTest::newRow("attention sinks add one a head = 4") << R"("attention_sinks": true)" << qint64(4);
        QTest::newRow("a head bias adds the vocabulary = 100") << R"("head_bias": true)" << qint64(100);
    }
    void newArchitectureFieldsCount()
    {
        QFETCH(QString, fields);
        QFETCH(qint64, extra);
        auto count = [](const QString& more) {
            const QString text = QStringLiteral(R"({"schema": "trainmem/scenario@1", "model": {"architecture":
                {"layers": 1, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100%1}}})")
                                     .arg(more.isEmpty() ? QString() : QStringLiteral(", ") + more);
            const ScenarioParse p = parseScenario(text.toStdString(), "t.json");
            if (!p.ok())
                qFatal("%s", p.errors.front().toString().c_str());
            return countParams(p.scenario.model.architecture).total;
        };
        QCOMPARE(count(fields) - count(QString()), extra);
    }

    void moeFieldsCount()
    {
        const auto count = [](const char* more) {
            const std::string text = std::string(R"({"schema": "trainmem/scenario@1", "model": {"architecture":
                {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100,
                 "moe": {"experts": 8, "active_experts": 2, "expert_ffn": 32, "shared_experts": 1)") +
                                     more + "}}}}";
            const ScenarioParse p = parseScenario(text, "t.json");
            if (!p.ok())
                qFatal("%s", p.errors.front().toString().c_str());
            return countParams(p.scenario.model.architecture);
        };
        const ParamCount base = count("");
        // DeepSeek-V3's score-correction bias: one per expert per MoE layer, on the active path.
        QCOMPARE(count(R"(, "score_correction_bias": true)").total - base.total, qint64(2 * 8));
        QCOMPARE(count(R"(, "score_correction_bias": true)").active - base.active, qint64(2 * 8));
        // Qwen2-MoE's shared-expert gate: a Linear(h, 1) per MoE layer.
        QCOMPARE(count(R"(, "shared_expert_gate": true)").total - base.total, qint64(2 * 64));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        const QString supported = QStringLiteral(
            "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text, phi3, gpt2, "
            "gpt_neox, olmo2, deepseek_v2, deepseek_v3, kimi_k2, deepseek_v32, gpt_oss, phi, smollm3, olmoe, "
            "starcoder2, seed_oss, cohere2, exaone4, gpt_bigcode, llama4_text, glm4_moe, minimax_m2, granitemoe, "
            "falcon, qwen3_vl_text, qwen3_vl_moe_text, qwen2_5_vl_text, qwen3_next, nemotron_h, qwen3_5_text, "
            "qwen3_5_moe_text, glm_moe_dsa, gemma4_text, granitemoehybrid, llama4, qwen3_vl, qwen3_vl_moe, qwen3_5, "
            "qwen3_5_moe, "
            "qwen2_5_vl, gemma3, mistral3, kimi_k25, gemma4");
        const QString llama = QStringLiteral(R"("model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
            "intermediate_size": 14336, "vocab_size": 128256)");
        QTest::newRow("unknown model_type is named with the supported list")
            << R"({"model_type": "bert", "hidden_size": 768})"
            << QStringLiteral("config.json: /model_type: unsupported model type \"bert\" (supported: %1)")
                   .arg(supported);
        // GLM-5.2's shared indexers (indexer_types "shared") are newer than the GlmMoeDsa modules counted here; a
        // list of "full" only is read (the GLM-5.1-NVFP4.json row of families2026MatchPublishedCounts).
        QTest::newRow("glm_moe_dsa's shared indexers are refused with where the first is")
            << R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 4, "indexer_types": ["full", "full", "shared",
                  "shared"]})"
            << QStringLiteral("config.json: /indexer_types: is not supported yet with \"shared\" layers (2 of 4, the "
                              "first at layer 2): indexers shared between layers");
        QTest::newRow("glm_moe_dsa's indexer_types of the wrong length")
            << R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 4, "indexer_types": ["full", "full"]})"
            << QStringLiteral("config.json: /indexer_types: has 2 entries for 4 layers (num_hidden_layers); it needs "
                              "one a layer");
        QTest::newRow("glm_moe_dsa's unknown indexer type is named with its layer")
            << R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 2, "indexer_types": ["full", "sparse"]})"
            << QStringLiteral("config.json: /indexer_types/1: unknown layer kind \"sparse\" at layer 1 (known: full, "
                              "shared)");
        QTest::newRow("missing model_type")
            << R"({"hidden_size": 768})"
            << QStringLiteral("config.json: /model_type: is required (supported: %1)").arg(supported);
        QTest::newRow("kv heads as a string are named by their path")
            << QStringLiteral(R"({%1, "num_attention_heads": 32, "num_key_value_heads": "8"})").arg(llama)
            << QStringLiteral("config.json: /num_key_value_heads: must be a positive integer, got \"8\"");
        QTest::newRow("missing hidden size")
            << R"({"model_type": "mistral", "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000})"
            << QStringLiteral("config.json: /hidden_size: is required");
        QTest::newRow("heads that do not divide the hidden size are refused with the numbers")
            << QStringLiteral(R"({%1, "num_attention_heads": 30})").arg(llama)
            << QStringLiteral("config.json: /num_attention_heads: must divide hidden_size (4096) when there is no "
                              "head_dim, got 30");
        QTest::newRow("kv heads must divide the heads")
            << QStringLiteral(R"({%1, "num_attention_heads": 32, "num_key_value_heads": 5})").arg(llama)
            << QStringLiteral("config.json: /num_key_value_heads: must divide num_attention_heads (32), got 5");
        QTest::newRow("negative layer count")
            << R"({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": -2, "num_attention_heads": 14, "intermediate_size": 4864, "vocab_size": 151936})"
            << QStringLiteral("config.json: /num_hidden_layers: must be a positive integer, got -2");
        QTest::newRow("a tied flag that is not a boolean")
            << QStringLiteral(R"({%1, "num_attention_heads": 32, "tie_word_embeddings": "yes"})").arg(llama)
            << QStringLiteral("config.json: /tie_word_embeddings: must be true or false, got \"yes\"");
        QTest::newRow("more active experts than experts")
            << R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 9})"
            << QStringLiteral("config.json: /num_experts_per_tok: must not exceed the number of experts (8), got 9");
        QTest::newRow("an mlp_only_layers index past the last layer")
            << R"({"model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 4, "num_attention_heads": 32, "num_key_value_heads": 4, "intermediate_size": 6144, "vocab_size": 151936, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 768, "mlp_only_layers": [1, 4]})"
            << QStringLiteral("config.json: /mlp_only_layers/1: must be a layer index from 0 to 3, got 4");
        const QString oss = QStringLiteral(R"("model_type": "gpt_oss", "hidden_size": 2880, "num_hidden_layers": 4,
            "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880,
            "vocab_size": 201088, "num_local_experts": 32, "num_experts_per_tok": 4)");
        QTest::newRow("layer_types shorter than the layers is refused with both numbers")
            << QStringLiteral(R"({%1, "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]})")
                   .arg(oss)
            << QStringLiteral("config.json: /layer_types: has 3 entries for 4 layers (num_hidden_layers); it needs "
                              "one a layer");
        QTest::newRow("an unknown layer kind is named with its index")
            << QStringLiteral(R"({%1, "layer_types": ["sliding_attention", "full_attention", "mamba",)"
                              R"( "full_attention"]})")
                   .arg(oss)
            << QStringLiteral("config.json: /layer_types/2: unknown layer kind \"mamba\" at layer 2 (known: "
                              "sliding_attention, full_attention)");
        QTest::newRow("a llama's layer_types of the wrong length")
            << QStringLiteral(R"({%1, "num_attention_heads": 32, "layer_types": ["full_attention"]})").arg(llama)
            << QStringLiteral("config.json: /layer_types: has 1 entry for 32 layers (num_hidden_layers); it needs "
                              "one a layer");
        // dump() recursed once per level to describe the value: 300000 levels overflowed the stack.
        // The description is the first 37 characters and "...".
        QTest::newRow("a model_type nested 300000 deep is described, not a stack overflow")
            << "{\"model_type\": " + QString(300000, '[') + QString(300000, ']') + "}"
            << "config.json: /model_type: must be a string, got " + QString(37, '[') + "...";
        QTest::newRow("a JSON array is not a config")
            << "[1, 2]" << QStringLiteral("config.json: must be a JSON object (a Hugging Face config.json), got [1,2]");
    }
    void badInput()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QCOMPARE(QString::fromStdString(firstError(text.toStdString())), error);
    }

    // Python's json writes float('inf') and float('nan') as Infinity and NaN, and transformers reads them back
    // (json.loads): nvidia's Nemotron-H configs hold "time_step_limit": [0.0, Infinity]. The importer reads them
    // outside strings and leaves them alone inside strings.
    void pythonNonFiniteNumbersAreRead_data()
    {
        QTest::addColumn<QString>("extra");
        QTest::newRow("Infinity in a list (Nemotron-H's time_step_limit)") << R"(, "time_step_limit": [0.0, Infinity])";
        QTest::newRow("-Infinity and NaN as values") << R"(, "a": -Infinity, "b": NaN, "c": [NaN, -Infinity])";
        QTest::newRow("the words inside strings stay text") << R"(, "note": "NaN, Infinity and -Infinity")";
        QTest::newRow("a string \"N\" beside a NaN keeps both") << R"(, "n": "N", "m": NaN, "o": {"p": "N"})";
        // A plain literal: moc misreads a backslash inside a raw string.
        QTest::newRow("an escaped quote before the word") << ", \"q\": \"say \\\"NaN\\\"\", \"r\": Infinity";
    }
    void pythonNonFiniteNumbersAreRead()
    {
        QFETCH(QString, extra);
        const std::string llama = R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
            "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256)";
        const HfImport imp = parseHfConfig(llama + extra.toStdString() + "}", "config.json");
        QVERIFY2(imp.ok(), imp.errors.empty() ? "" : imp.errors.front().toString().c_str());
        QCOMPARE(countParams(imp.architecture).total, qint64(8030261248)); // Llama 3.1 8B's shape
    }
    // Found by fuzz_hfconfig: a NUL byte ends what the JSON parser reads, so an Infinity after it was rewritten but
    // never came back, and the importer tried new placeholder names for ever (a frozen window on a dropped file).
    void nonFiniteWordAfterTheParsedTextIsAnErrorNotAHang()
    {
        std::string text = "0";
        text.append(31, '\0');
        text.append(22, '\xff');
        text += "Infinity";
        text.append(20, '\xff');
        text.append(12, '\0');
        text += "{";
        const HfImport imp = parseHfConfig(text, "config.json"); // before the fix: never returned
        QVERIFY(!imp.ok());
        QCOMPARE(imp.errors.front().file, std::string("config.json"));
    }

    void pythonNonFiniteNumbersAreNamedWhereAnIntegerIsNeeded_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error");
        QTest::newRow("NaN heads") << "NaN"
                                   << "config.json: /num_attention_heads: must be a positive integer, got NaN";
        QTest::newRow("Infinity heads")
            << "Infinity"
            << "config.json: /num_attention_heads: must be a positive integer, got Infinity";
        QTest::newRow("-Infinity heads")
            << "-Infinity"
            << "config.json: /num_attention_heads: must be a positive integer, got -Infinity";
        QTest::newRow("a bare word that is not Python's stays invalid JSON")
            << "Infinityx"
            << "config.json: not valid JSON: at line 1, column";
    }
    void pythonNonFiniteNumbersAreNamedWhereAnIntegerIsNeeded()
    {
        QFETCH(QString, value);
        QFETCH(QString, error);
        const std::string text = R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, )"
                                 R"("intermediate_size": 14336, "vocab_size": 128256, "num_attention_heads": )" +
                                 value.toStdString() + "}";
        const QString got = QString::fromStdString(firstError(text));
        QVERIFY2(got.startsWith(error), qPrintable(got));
    }
    // Infinity is rewritten in place with the same width, so a later syntax error keeps its column.
    void syntaxErrorAfterInfinityKeepsItsColumn()
    {
        const std::string plain = firstError(R"({"a": 12345678, "b": })");
        const std::string inf = firstError(R"({"a": Infinity, "b": })");
        QCOMPARE(QString::fromStdString(inf), QString::fromStdString(plain));
    }

    void notJsonNamesTheFile()
    {
        const std::string e = firstError("{\"model_type\": ");
        QVERIFY2(QString::fromStdString(e).startsWith(QLatin1String("config.json: not valid JSON: at line 1, column ")),
                 e.c_str());
    }

    // decoder_sparse_step / mlp_only_layers (Qwen) and first_k_dense_replace (DeepSeek) decide how
    // many layers are dense; the architecture keeps that count.
    void moeLayerPatterns_data()
    {
        QTest::addColumn<QString>("extra");
        QTest::addColumn<qint64>("denseLayers");
        QTest::newRow("every layer sparse by default") << QString() << qint64(0);
        QTest::newRow("decoder_sparse_step 2: layers 0 and 2 of 4 dense")
            << R"(, "decoder_sparse_step": 2)" << qint64(2);
        QTest::newRow("mlp_only_layers [0, 3] dense") << R"(, "mlp_only_layers": [0, 3])" << qint64(2);
        QTest::newRow("step 2 and mlp_only_layers [1]: layers 0, 1, 2 dense")
            << R"(, "decoder_sparse_step": 2, "mlp_only_layers": [1])" << qint64(3);
    }
    void moeLayerPatterns()
    {
        QFETCH(QString, extra);
        QFETCH(qint64, denseLayers);
        const std::string text = R"({"model_type": "qwen3_moe", "hidden_size": 256, "num_hidden_layers": 4,
            "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000,
            "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 64)" +
                                 extra.toStdString() + "}";
        const HfImport imp = parseHfConfig(text, "config.json");
        QVERIFY(imp.ok());
        QCOMPARE(imp.architecture.moe.denseLayers, denseLayers);
        QCOMPARE(imp.architecture.moe.denseFfn, qint64(512));
    }
};

QTEST_GUILESS_MAIN(TestHfConfig)
#include "tst_hfconfig.moc"
