// Issue 33: Megatron-LM's --pipeline-model-parallel-layout, read as PipelineParallelLayerLayout reads it
// (megatron/core/transformer/pipeline_parallel_layer_layout.py at d98e8a64ddf34856e74b24714e3bedb2f5a39553).
// The layouts are Megatron-LM's own, from that commit:
//   docs/user-guide/features/pipeline_parallel_layout.md: "Et*3|(tt|)*29,m|L", DeepSeek-V3 (61 layers, 1 MTP) on
//     PP 16 × VPP 2, with the doc's rank table; and "E||t|L" ("Empty stages are allowed").
//   tests/functional_tests/test_cases/mixtral/deepseekv3_proxy_flex_tp1pp4emp16etp1cp1_release/model_config.yaml:
//     "Et*2|(tt|)*5t|tmL" on pp 4 for its 14-layer proxy with --mtp-num-layers 1.
//   tests/unit_tests/pipeline_parallel/test_pipeline_layout.py test_forward_vpp: "E|t*3|(t|)*5mL",
//     "E|t*3|(t|)*4tm|L", "E|t*3|(t|)*3tt|m|L" on pp 4 × vpp 2 for 8 layers and one MTP layer.
#include "pipelinelayout.h"
#include "scenario.h"

#include <QtTest>

#include <numeric>

using namespace trainmem;

namespace {

QStringList rows(const std::vector<LayoutStage>& stages, int64_t pp)
{
    QStringList out;
    for (const std::string& r : describePipelineLayout(stages, pp))
        out << QString::fromStdString(r);
    return out;
}

PipelineSplit layoutSplit(const char* text)
{
    PipelineSplit s;
    if (!setPipelineLayout(s, text).empty())
        qFatal("the test's layout is refused: %s", text);
    return s;
}

} // namespace

class TestPipelineLayout : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void megatronsLayoutsRead_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<qint64>("layers");
        QTest::addColumn<qint64>("mtp");
        QTest::addColumn<qint64>("pp");
        QTest::addColumn<QStringList>("ranks");
        // The doc's table: PP 0 "embedding + 3 × decoder | 2 × decoder", 1~13 "2 × decoder | 2 × decoder",
        // 14 "2 × decoder | mtp", 15 "2 × decoder | loss". 32 stages: [Ettt], 29 × [tt], [m], [L].
        QTest::newRow("DeepSeek-V3 on PP 16 × VPP 2 = the doc's rank table")
            << "Et*3|(tt|)*29,m|L" << qint64(61) << qint64(1) << qint64(16)
            << QStringList{"rank 0: embedding + 3 layers | 2 layers", "ranks 1–13: 2 layers | 2 layers",
                           "rank 14: 2 layers | 1 MTP layer", "rank 15: 2 layers | loss"};
        // "Ett|" + 5 × "tt|" + "t|tmL": [Ett], 5 × [tt], [t], [tmL]; rank r holds stages r and r + 4.
        QTest::newRow("the 14-layer DeepSeek-V3 proxy on pp 4")
            << "Et*2|(tt|)*5t|tmL" << qint64(14) << qint64(1) << qint64(4)
            << QStringList{"rank 0: embedding + 2 layers | 2 layers", "rank 1: 2 layers | 2 layers",
                           "rank 2: 2 layers | 1 layer", "rank 3: 2 layers | 1 layer + 1 MTP layer + loss"};
        QTest::newRow("MTP with the last decoder layer on the last rank")
            << "E|t*3|(t|)*5mL" << qint64(8) << qint64(1) << qint64(4)
            << QStringList{"rank 0: embedding | 1 layer", "rank 1: 3 layers | 1 layer", "rank 2: 1 layer | 1 layer",
                           "rank 3: 1 layer | 1 MTP layer + loss"};
        QTest::newRow("MTP in the second last stage with a decoder layer")
            << "E|t*3|(t|)*4tm|L" << qint64(8) << qint64(1) << qint64(4)
            << QStringList{"rank 0: embedding | 1 layer", "rank 1: 3 layers | 1 layer",
                           "rank 2: 1 layer | 1 layer + 1 MTP layer", "rank 3: 1 layer | loss"};
        QTest::newRow("MTP in the second last stage alone")
            << "E|t*3|(t|)*3tt|m|L" << qint64(8) << qint64(1) << qint64(4)
            << QStringList{"rank 0: embedding | 1 layer", "rank 1: 3 layers | 2 layers",
                           "rank 2: 1 layer | 1 MTP layer", "rank 3: 1 layer | loss"};
        QTest::newRow("an empty stage is allowed")
            << "E||t|L" << qint64(1) << qint64(0) << qint64(4)
            << QStringList{"rank 0: embedding", "rank 1: (empty)", "rank 2: 1 layer", "rank 3: loss"};
    }
    void megatronsLayoutsRead()
    {
        QFETCH(QString, layout);
        QFETCH(qint64, layers);
        QFETCH(qint64, mtp);
        QFETCH(qint64, pp);
        QFETCH(QStringList, ranks);
        const LayoutParse p = parsePipelineLayout(layout.toStdString());
        QVERIFY2(p.error.empty(), p.error.c_str());
        const int64_t vpp = static_cast<int64_t>(p.stages.size()) / pp;
        QCOMPARE(pipelineLayoutProblem(p.stages, layers, mtp, pp, vpp), std::string());
        QCOMPARE(rows(p.stages, pp), ranks);
        // Each rank's layers add up to the model's, as get_num_layers_to_build counts them per virtual stage.
        PipelineSplit split;
        QCOMPARE(setPipelineLayout(split, layout.toStdString()), std::string());
        int64_t total = 0;
        for (int64_t i = 0; i < pp; ++i) {
            const std::vector<int64_t> chunks = chunkLayersOnStage(split, layers, pp, vpp, i);
            QCOMPARE(int64_t(chunks.size()), vpp);
            QCOMPARE(std::accumulate(chunks.begin(), chunks.end(), int64_t(0)), layersOnStage(split, layers, pp, i));
            total += layersOnStage(split, layers, pp, i);
        }
        QCOMPARE(total, layers);
        QCOMPARE(pipelineSplitProblem(split, layers, pp, vpp, mtp), std::string());
    }

    void theDocsLayoutPlacesEachRanksLayers()
    {
        // DeepSeek-V3 on PP 16: rank 0 builds 3 + 2 = 5 layers, ranks 1–15 2 + 2 = 4 but rank 14 (2, then MTP)
        // and rank 15 (2, then the loss): 5 + 13·4 + 2 + 2 = 61. The MTP layer is rank 14's (get_mtp_ranks).
        const PipelineSplit s = layoutSplit("Et*3|(tt|)*29,m|L");
        QCOMPARE(layersOnStage(s, 61, 16, 0), int64_t(5));
        QCOMPARE(layersOnStage(s, 61, 16, 7), int64_t(4));
        QCOMPARE(layersOnStage(s, 61, 16, 14), int64_t(2));
        QCOMPARE(layersOnStage(s, 61, 16, 15), int64_t(2));
        QCOMPARE(chunkLayersOnStage(s, 61, 16, 2, 0), (std::vector<int64_t>{3, 2}));
        QCOMPARE(chunkLayersOnStage(s, 61, 16, 2, 14), (std::vector<int64_t>{2, 0}));
        QCOMPARE(layoutMtpRank(s.stages, 16), int64_t(14));
        // With pp 8 the same 32 stages are 4 virtual stages per rank: stage 30 (m) is rank 6's last.
        QCOMPARE(pipelineLayoutProblem(s.stages, 61, 1, 8, 4), std::string());
        QCOMPARE(layoutMtpRank(s.stages, 8), int64_t(6));
    }

    void badLayoutsAreNamed_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("error");
        QTest::newRow("empty") << ""
                               << "is empty: it needs at least \"E…|…L\" (E embedding, t transformer layer, m MTP "
                                  "layer, L loss)";
        QTest::newRow("an unknown layer, with its stage")
            << "Et*3|x|L"
            << "has 'x' in stage 1, which is not a layer: the layers are E (embedding), t (transformer layer), m (MTP "
               "layer) and L (loss), stages are split by |, and \"t*3\" or \"(tt|)*2\" repeat";
        QTest::newRow("a space is not cosmetic, a comma is")
            << "Et, t| L"
            << "has ' ' in stage 0, which is not a layer: the layers are E (embedding), t (transformer layer), m (MTP "
               "layer) and L (loss), stages are split by |, and \"t*3\" or \"(tt|)*2\" repeat";
        QTest::newRow("not beginning with the embedding") << "tE|L"
                                                          << "must begin with the embedding E, begins with t";
        QTest::newRow("not ending with the loss") << "Et|t"
                                                  << "must end with the loss L, ends with t";
        QTest::newRow("two embeddings") << "EEt|L"
                                        << "must hold the embedding E once, holds it 2 times";
        QTest::newRow("a decoder after MTP")
            << "Etm|tL"
            << "has a transformer layer t after an MTP layer m (stage 1): Megatron-LM places the decoder layers before "
               "the MTP layers";
        QTest::newRow("only separators") << "||"
                                         << "holds no layers";
        // Python would build a string of 10^12 characters; the reader stops at the limit.
        QTest::newRow("a repeat beyond the limit") << "Et*999999999999|L"
                                                   << "unrolls to more than 40000 layers and stage separators";
        QTest::newRow("nested repeats beyond the limit") << "E(t*200|)*300L"
                                                         << "unrolls to more than 40000 layers and stage separators";
        QTest::newRow("a nested parenthesis is left as Python's re.sub leaves it")
            << "E((t)*2)*3|L"
            << "has '(' in stage 0, which is not a layer: the layers are E (embedding), t (transformer layer), m (MTP "
               "layer) and L (loss), stages are split by |, and \"t*3\" or \"(tt|)*2\" repeat";
        QTest::newRow("a text longer than read")
            << QString(5000, QLatin1Char('t')) << "is 5000 characters long, more than the 4096 read";
    }
    void badLayoutsAreNamed()
    {
        QFETCH(QString, layout);
        QFETCH(QString, error);
        const LayoutParse p = parsePipelineLayout(layout.toStdString());
        QCOMPARE(QString::fromStdString(p.error), error);
        QVERIFY(p.stages.empty());
        // A refused text leaves the split as it was.
        PipelineSplit s = layoutSplit("Et|L");
        QCOMPARE(QString::fromStdString(setPipelineLayout(s, layout.toStdString())),
                 layout.isEmpty() ? QString() : error);
        QCOMPARE(s.hasLayout(), !layout.isEmpty());
    }

    void layoutsThatDoNotFitTheModel_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<qint64>("layers");
        QTest::addColumn<qint64>("mtp");
        QTest::addColumn<qint64>("pp");
        QTest::addColumn<qint64>("vpp");
        QTest::addColumn<QString>("error");
        QTest::newRow("pp does not divide the stages")
            << "Et*3|(tt|)*29,m|L" << qint64(61) << qint64(1) << qint64(5) << qint64(1)
            << "has 32 stages, which pp 5 does not divide (Megatron-LM's arguments.py asserts it)";
        QTest::newRow("vpp other than the layout's")
            << "Et*3|(tt|)*29,m|L" << qint64(61) << qint64(1) << qint64(16) << qint64(4)
            << "gives 32/16 = 2 virtual stages per pipeline rank, but vpp is 4 (transformer_config.py asserts they "
               "agree)";
        QTest::newRow("layers other than the model's") << "Et*3|(tt|)*29,m|L" << qint64(60) << qint64(1) << qint64(16)
                                                       << qint64(2) << "places 61 transformer layers, the model has 60";
        QTest::newRow("MTP layers the model has not") << "Et*3|(tt|)*29,m|L" << qint64(61) << qint64(0) << qint64(16)
                                                      << qint64(2) << "places 1 MTP layer, the model has 0";
        QTest::newRow("MTP in a rank's first virtual stage")
            << "Et*4|tm|L|" << qint64(5) << qint64(1) << qint64(2) << qint64(2)
            << "puts MTP layers in virtual stage 0 of pipeline rank 1; Megatron-LM keeps them in a rank's last "
               "virtual stage (1)";
        QTest::newRow("MTP layers in two stages")
            << "Et*4|tm|mL" << qint64(5) << qint64(2) << qint64(3) << qint64(1)
            << "splits the 2 MTP layers over stages; Megatron-LM builds them all in one virtual stage";
    }
    void layoutsThatDoNotFitTheModel()
    {
        QFETCH(QString, layout);
        QFETCH(qint64, layers);
        QFETCH(qint64, mtp);
        QFETCH(qint64, pp);
        QFETCH(qint64, vpp);
        QFETCH(QString, error);
        const PipelineSplit s = layoutSplit(layout.toUtf8().constData());
        QCOMPARE(QString::fromStdString(pipelineLayoutProblem(s.stages, layers, mtp, pp, vpp)), error);
        QCOMPARE(QString::fromStdString(pipelineSplitProblem(s, layers, pp, vpp, mtp)), error);
    }

    // transformer_config.py at d98e8a6 raises when a layout comes with the other split arguments.
    void aLayoutStandsAlone()
    {
        PipelineSplit s = layoutSplit("Et*3|(tt|)*29,m|L");
        s.firstLayers = 5;
        QCOMPARE(QString::fromStdString(pipelineSplitProblem(s, 61, 16, 2, 1)),
                 QStringLiteral("a pipeline layout cannot be combined with first/last stage layers or the embedding or "
                                "loss in the split (transformer_config.py raises on it)"));
        QCOMPARE(QString(pipelineSplitField(s)), QStringLiteral("/hardware/pipeline_layout"));
    }

    // Issue 33 left "an uneven split with a virtual pipeline" refused as not modelled. get_num_layers_to_build
    // gives each of the rank's vpp chunks its layers / vpp, one less on the first rank's first chunk for the
    // embedding (the last rank's last for the loss), and asserts the division.
    void anUnevenSplitWithAVirtualPipeline()
    {
        PipelineSplit uneven;
        uneven.firstLayers = 8;
        uneven.lastLayers = 6;
        // 62 layers on pp 8: (62 − 14)/6 = 8 on the middle ranks; vpp 2 gives chunks of 4, 4 and 3.
        QCOMPARE(pipelineSplitProblem(uneven, 62, 8, 2, 0), std::string());
        QCOMPARE(chunkLayersOnStage(uneven, 62, 8, 2, 0), (std::vector<int64_t>{4, 4}));
        QCOMPARE(chunkLayersOnStage(uneven, 62, 8, 2, 7), (std::vector<int64_t>{3, 3}));
        // 7 on the first rank does not split in two.
        uneven.firstLayers = 7;
        QCOMPARE(
            QString::fromStdString(pipelineSplitProblem(uneven, 61, 8, 2, 0)),
            QStringLiteral("7 layers on pipeline rank 0 must divide by vpp 2 (get_num_layers_to_build asserts it)"));
        // The embedding and loss as a layer's worth each: (62 + 2)/8 = 8 per rank, 4 per chunk, the ends one less.
        PipelineSplit ends;
        ends.embedding = ends.loss = true;
        QCOMPARE(pipelineSplitProblem(ends, 62, 8, 2, 0), std::string());
        QCOMPARE(chunkLayersOnStage(ends, 62, 8, 2, 0), (std::vector<int64_t>{3, 4}));
        QCOMPARE(chunkLayersOnStage(ends, 62, 8, 2, 3), (std::vector<int64_t>{4, 4}));
        QCOMPARE(chunkLayersOnStage(ends, 62, 8, 2, 7), (std::vector<int64_t>{4, 3}));
        QCOMPARE(layersOnStage(ends, 62, 8, 0), int64_t(7));
    }
};

QTEST_GUILESS_MAIN(TestPipelineLayout)
#include "tst_pipelinelayout.moc"
