// The activation tape against Korthikanti et al. 2022 and its generalisations (core/memory/activations.h).
#include "activations.h"
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
