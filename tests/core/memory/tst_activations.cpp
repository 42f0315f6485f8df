// The activation tape against Korthikanti et al. 2022 and its generalisations (core/memory/activations.h).
#include "activations.h"
#include "lora.h"
#include "testdata.h"

#include <QtTest>

using namespace trainmem;

namespace {

Architecture gpt3()
{
    return testdata::preset("gpt3-175b").model.architecture;
}

ActivationInputs inputs(double s, double b, Checkpointing c, bool flash = false, double tp = 1, bool sp = true)
{
    ActivationInputs in;
    in.seq = s;
    in.microBatch = b;
    in.checkpointing = c;
    in.flashAttention = flash;
    in.tp = tp;
    in.sequenceParallel = sp;
    return in;
}

} // namespace

class TestActivations : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void korthikanti_data()
    {
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<double>("tp");
        QTest::addColumn<bool>("sp");
        QTest::addColumn<double>("expected");
        const double sbh = 2048.0 * 1 * 12288;
        QTest::newRow("GPT-3 175B s=2048 b=1, no recompute: sbh(34+5as/h) = 2,868,903,936")
            << int(Checkpointing::None) << 1.0 << true << 2868903936.0;
        QTest::newRow("selective recompute: 34sbh = 855,638,016")
            << int(Checkpointing::Selective) << 1.0 << true << 34 * sbh;
        QTest::newRow("tp=8 without sequence parallel: sbh(10 + 24/t + 5as/(ht))")
            << int(Checkpointing::None) << 8.0 << false << sbh * (10 + 24.0 / 8 + 5 * 96 * 2048 / (12288.0 * 8));
        QTest::newRow("tp=8 with sequence parallel: sbh(34/t + 5as/(ht))")
            << int(Checkpointing::None) << 8.0 << true << sbh * (34.0 / 8 + 5 * 96 * 2048 / (12288.0 * 8));
        QTest::newRow("tp=8, sequence parallel, selective: 34sbh/t")
            << int(Checkpointing::Selective) << 8.0 << true << 34 * sbh / 8;
    }
    void korthikanti()
    {
        QFETCH(int, checkpointing);
        QFETCH(double, tp);
        QFETCH(bool, sp);
        QFETCH(double, expected);
        const LayerActivations l =
            layerActivations(gpt3(), false, inputs(2048, 1, Checkpointing(checkpointing), false, tp, sp));
        testdata::compareBytes(l.total(), expected);
    }

    void korthikantiClosedForm()
    {
        QCOMPARE(korthikantiLayerBytes(2048, 1, 12288, 96), 2868903936.0);
        // The terms: attention 11sbh + 5as²b, MLP 19sbh, norms 4sbh.
        const LayerActivations l = layerActivations(gpt3(), false, inputs(2048, 1, Checkpointing::None));
        const double sbh = 2048.0 * 12288;
        QCOMPARE(l.attention + l.dropout / 2, 11 * sbh);
        QCOMPARE(l.scores, 5 * 96 * 2048.0 * 2048.0);
        QCOMPARE(l.mlp + l.dropout / 2, 19 * sbh);
        QCOMPARE(l.norms, 4 * sbh);
    }

    void flashKeepsOnlySoftmaxStatistics()
    {
        const LayerActivations l = layerActivations(gpt3(), false, inputs(2048, 1, Checkpointing::None, true));
        QCOMPARE(l.scores, 4.0 * 96 * 2048); // fp32 log-sum-exp per head and row
        testdata::compareBytes(l.total(), 34 * 2048.0 * 12288 + 4.0 * 96 * 2048);
    }

    void scoresGrowQuadratically()
    {
        const Architecture a = gpt3();
        const double at8k = layerActivations(a, false, inputs(8192, 1, Checkpointing::None)).scores;
        const double at16k = layerActivations(a, false, inputs(16384, 1, Checkpointing::None)).scores;
        QCOMPARE(at16k / at8k, 4.0);
    }

    // Llama 3 8B: GQA (8 KV heads of 128), SwiGLU f=14336, no dropout, flash attention.
    void gqaSwiglu()
    {
        const Architecture a = testdata::preset("llama3-8b").model.architecture;
        const double s = 8192, sb = s;
        const LayerActivations l = layerActivations(a, false, inputs(s, 1, Checkpointing::None, true));
        // input 2sbh + Q,K 2sb(4096+1024) + V 2sb·1024 + out-proj input 2sb·4096
        QCOMPARE(l.attention, sb * (2 * 4096 + 2 * (4096 + 1024) + 2 * 1024 + 2 * 4096));
        // input 2sbh + fused gate‖up 4sbf + down input 2sbf
        QCOMPARE(l.mlp, sb * (2 * 4096 + 6 * 14336));
        QCOMPARE(l.norms, sb * 4 * 4096);
        QCOMPARE(l.dropout, 0.0);
        QCOMPARE(l.scores, 4.0 * 32 * sb);
        QCOMPARE(l.total(), 1141899264.0);
    }

    // LitGPT's layer with a frozen base (--framework litgpt under LoRA/QLoRA; litgpt/model.py and lora.py at 43c4432,
    // docs/accounting.md "Framework profiles"), Llama 2 7B: h = 4096, 32 heads of 128 (a·d = 4096), f = 11008, bf16,
    // s = 1304 (the resource tables' longest sample), b = 1, LoRA on q and v. Per token:
    //   norms     2·(4h + 4)                 = 2·16,388          = 32,776 (the fp32 input and 1/rms of each)
    //   attention 4·e·a·d                    = 8·4096            = 32,768 (q, k, v, the kernel's output)
    //           + 2·e·a·d                    = 4·4096            = 16,384 (MHA: v's view keeps qkv, q's and k's part)
    //           + e·(a·d + kv·d)             = 2·8192            = 16,384 (zero_pad's index_copy source, q and v)
    //                                                              65,536
    //   scores    4·a                        = 128                        (the fp32 log-sum-exp)
    //   mlp       3·e·f                      = 6·11008           = 66,048 (fc_1's output, silu's, fc_2's)
    //   dropout   (1 + e)·h, the fused qkv's = 3·4096            = 12,288 (mask and output)
    //   total 176,776 B, · 1304 = 230,515,904 B a layer.
    // QLoRA (bitsandbytes keeps every 4-bit linear's input): attention + e·h + e·a·d = 16,384, mlp + e·h + e·f =
    // 30,208:
    //   223,368 B, · 1304 = 291,271,872 B. Korthikanti's terms (the default): attention 2·(h + 3h + h) = 40,960,
    //   scores 128, mlp 2·h + 6·f = 74,240, norms 4h = 16,384: 131,712 B, · 1304 = 171,752,448 B.
    // Every projection adapted (q, k, v, o, gate, up, down): dropout 3·(h + a·d + h + h + f) = 82,176 B a token, and
    // zero_pad returns its input as it is: attention 32,768 + 16,384 = 49,152.
    // With GQA (8 KV heads of 128, Llama 3 8B's: kv·d = 1024), the reshape copies v and the qkv output goes; q and v
    // adapted: attention 32,768 + e·(4096 + 1024) = 43,008.
    void litgptsLoraLayerOfLlama2_7B()
    {
        Architecture a;
        a.hidden = 4096;
        a.layers = 32;
        a.heads = 32;
        a.kvHeads = 32;
        a.headDim = 128;
        a.ffn = 11008;
        a.vocab = 32000;
        ActivationInputs in = inputs(1304, 1, Checkpointing::None, true);
        QCOMPARE(layerActivations(a, false, in).total(), 171752448.0);
        in.litgptTape = true;
        in.loraModules = kLoraQ | kLoraV;
        const LayerActivations lora = layerActivations(a, false, in);
        QCOMPARE(lora.norms, 1304.0 * 32776);
        QCOMPARE(lora.attention, 1304.0 * 65536);
        QCOMPARE(lora.scores, 1304.0 * 128);
        QCOMPARE(lora.mlp, 1304.0 * 66048);
        QCOMPARE(lora.dropout, 1304.0 * 12288);
        QCOMPARE(lora.total(), 230515904.0);
        in.bnb4bit = true;
        const LayerActivations qlora = layerActivations(a, false, in);
        QCOMPARE(qlora.attention, 1304.0 * 81920);
        QCOMPARE(qlora.mlp, 1304.0 * 96256);
        QCOMPARE(qlora.total(), 291271872.0);
        in.bnb4bit = false;
        Architecture gqa = a;
        gqa.kvHeads = 8;
        QCOMPARE(layerActivations(gqa, false, in).attention, 1304.0 * 43008);
        in.loraModules = kLoraQ | kLoraK | kLoraV | kLoraO | kLoraGate | kLoraUp | kLoraDown;
        QCOMPARE(layerActivations(a, false, in).dropout, 1304.0 * 82176);
        QCOMPARE(layerActivations(a, false, in).attention, 1304.0 * 49152);
        // LitGPT before 6178c7c (8641822, the resource tables): RMSNorm in 16 bits keeps its input and 1/rms,
        // 2·(e·h + e) = 2·(8192 + 2) = 16,388 B a token.
        in.litgptFp32Norm = false;
        QCOMPARE(layerActivations(a, false, in).norms, 1304.0 * 16388);
        in.litgptFp32Norm = true;
        // Outside what the derivation read (a checkpointed layer, tensor parallel), the default tape.
        ActivationInputs plain = in;
        plain.litgptTape = false;
        in.checkpointing = plain.checkpointing = Checkpointing::Full;
        QCOMPARE(layerActivations(a, false, in).total(), layerActivations(a, false, plain).total());
        in.checkpointing = plain.checkpointing = Checkpointing::None;
        in.tp = plain.tp = 2;
        QCOMPARE(layerActivations(a, false, in).total(), layerActivations(a, false, plain).total());
    }

    // torchtune's Llama layer (`--framework torchtune`; core/memory/activations.cpp torchtuneTape, docs/accounting.md
    // "Framework profiles"), for Llama 3.2 3B as tests/data/hf/Llama-3.2-3B.json gives it: h = 3072, 24 query heads of
    // d = 128 (a·d = 3072), 8 KV heads, f = 8192; s = 4096, b = 2 (sb = 8192 tokens), bf16 (e = 2). Per token:
    //   eager    norms 2·(4h fp32 input + 4 1/rms + 2h normalised) = 2·(12,288 + 4 + 6,144) = 36,872
    //            attention 2h norm output + 4·2·a·d (q; k, v at all 24 heads; the kernel's output) = 6,144 + 24,576
    //            = 30,720; log-sum-exp 4·24 = 96; FFN 2h norm output + 4·2f (gate, silu, up, product) = 6,144 + 65,536
    //            = 71,680: 139,368 B, · 8192 = 1,141,702,656 B a layer;
    //   compiled norms 2·(2h input + 4) = 12,296; attention 30,720; 96; FFN 6,144 + 3·2f (gate, up, product) = 55,296:
    //            98,408 B, · 8192 = 806,158,336 B a layer;
    //   default  (Korthikanti's terms, no profile) attention 2h + 2(q + k) + 2v + 2·a·d = 6,144 + 8,192 + 2,048 + 6,144
    //            = 22,528; FFN 2h + 6f = 55,296; norms 4h = 12,288; 96: 90,208 B, · 8192 = 738,983,936 B.
    void torchtunesLlamaLayerOfLlama32_3B()
    {
        Architecture a;
        a.hidden = 3072;
        a.layers = 28;
        a.heads = 24;
        a.kvHeads = 8;
        a.headDim = 128;
        a.ffn = 8192;
        a.vocab = 128256;
        ActivationInputs in = inputs(4096, 2, Checkpointing::None, true);
        QCOMPARE(layerActivations(a, false, in).total(), 738983936.0);
        in.torchtuneTape = true;
        const LayerActivations eager = layerActivations(a, false, in);
        QCOMPARE(eager.norms, 8192.0 * 36872);
        QCOMPARE(eager.attention, 8192.0 * 30720);
        QCOMPARE(eager.scores, 8192.0 * 96);
        QCOMPARE(eager.mlp, 8192.0 * 71680);
        QCOMPARE(eager.total(), 1141702656.0);
        // Full checkpointing rebuilds the same layer in backward (core/memory/terms.cpp takes the no-checkpointing
        // tape for it); its own per-layer term is the same call.
        in.checkpointing = Checkpointing::Full;
        QCOMPARE(layerActivations(a, false, in).total(), 1141702656.0);
        in.checkpointing = Checkpointing::None;
        in.compiled = true;
        const LayerActivations compiled = layerActivations(a, false, in);
        QCOMPARE(compiled.norms, 8192.0 * 12296);
        QCOMPARE(compiled.mlp, 8192.0 * 55296);
        QCOMPARE(compiled.total(), 806158336.0);
        // Outside what the derivation read, the default tape: tensor parallel, selective recomputation.
        in.compiled = false;
        in.tp = 2;
        ActivationInputs plain = in;
        plain.torchtuneTape = false;
        QCOMPARE(layerActivations(a, false, in).total(), layerActivations(a, false, plain).total());
        in.tp = 1;
        in.checkpointing = plain.checkpointing = Checkpointing::Selective;
        plain.tp = 1;
        QCOMPARE(layerActivations(a, false, in).total(), layerActivations(a, false, plain).total());
    }

    // Mixtral: each token's MLP tape is k=2 experts' worth plus router logits.
    void moeScalesWithActiveExperts()
    {
        const Architecture a = testdata::preset("mixtral-8x7b").model.architecture;
        const double sb = 4096;
        const LayerActivations l = layerActivations(a, true, inputs(4096, 1, Checkpointing::Selective, true));
        const double perExpert = 2 * sb * 4096 + 6 * sb * 14336;
        QCOMPARE(l.mlp, 2 * sb * 4096 + 4 * sb * 8 + 2 * perExpert);
    }

    void fp8CachesLinearInputsInOneByte()
    {
        const Architecture a = gpt3();
        ActivationInputs in = inputs(2048, 1, Checkpointing::Selective);
        const double bf16 = layerActivations(a, false, in).total();
        in.fp8LinearInputs = true;
        const double fp8 = layerActivations(a, false, in).total();
        // Linear inputs: QKV input h, out-proj input h, MLP input h, second linear input 4h: 7sbh at 2 → 1 byte.
        QCOMPARE(bf16 - fp8, 7 * 2048.0 * 12288);
    }

    // DeepSeek-V3 §3.2.3: selective recompute with MLA reruns the up-projections and RMSNorms.
    void mlaSelectiveRecomputesUpProjections()
    {
        const Architecture a = testdata::preset("deepseek-v3").model.architecture;
        const double sb = 4096;
        ActivationInputs in = inputs(4096, 1, Checkpointing::None, true);
        const LayerActivations none = layerActivations(a, false, in);
        in.checkpointing = Checkpointing::Selective;
        const LayerActivations sel = layerActivations(a, false, in);
        // Kept either way: out-projection input 2·sb·(128·128) and the latents 2·2·sb·(1536 + 512).
        QCOMPARE(sel.attention, 2 * sb * 128 * 128 + 4 * sb * (1536 + 512));
        // Dropped: QKV input 2sbh, Q and K 2·sb·2·(128·192), V 2·sb·(128·128).
        QCOMPARE(none.attention - sel.attention, 2 * sb * 7168 + 2 * sb * 2 * 128 * 192 + 2 * sb * 128 * 128);
        QCOMPARE(none.mlp - sel.mlp, 2 * sb * 7168); // the MLP block input (an RMSNorm output)
    }

    void fullCheckpointKeepsLayerInput()
    {
        QCOMPARE(layerInputCheckpoint(gpt3(), inputs(2048, 1, Checkpointing::Full)), 2 * 2048.0 * 12288);
        QCOMPARE(layerInputCheckpoint(gpt3(), inputs(2048, 1, Checkpointing::Full, false, 8, true)),
                 2 * 2048.0 * 12288 / 8);
    }
};

QTEST_GUILESS_MAIN(TestActivations)
#include "tst_activations.moc"
