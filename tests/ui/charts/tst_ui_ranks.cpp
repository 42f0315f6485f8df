// The per-rank grid's dock and export (issue 13), on the offscreen platform. The numbers are the
// core's rankKinds() (tst_ranks derives them by hand); here the chart must draw exactly those, mark
// the busiest, fit its labels, and the window must offer the dock hidden and fill it when shown.
#include "chartexport.h"
#include "mainwindow.h"
#include "rankchart.h"
#include "testdata.h"
#include "uitestutil.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {

Scenario llama2Pp8()
{
    Scenario s = preset(QStringLiteral("llama2-7b"));
    s.hardware.gpus = 32;
    s.hardware.pp = 8;
    s.training.gradAccum = 4; // stages 0; 1–4; 5; 6; 7 (tst_ranks)
    return s;
}

} // namespace

class TestUiRanks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void chartDrawsTheCoresKinds()
    {
        const Scenario s = llama2Pp8();
        const std::vector<RankKind> ranks = rankKinds(resolveModel(s.model), s);
        RankChart chart;
        chart.resize(900, 560);
        chart.setRanks(ranks, 8, gpuOf(s).memoryBytes, QStringLiteral("H100 · 80 GB"));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        QCOMPARE(chart.columns().size(), size_t(5));
        for (size_t k = 0; k < ranks.size(); ++k) {
            QCOMPARE(chart.columns()[k].segments.total(), ranks[k].bytes.total());
            for (SegmentKind seg : kAllSegmentKinds)
                QCOMPARE(barValue(chart.bars(seg), double(k)), segmentBytes(ranks[k].bytes, seg));
        }
        QVERIFY(chart.columns()[1].label.startsWith(QStringLiteral("Stages 1–4")));
        QVERIFY(chart.columns()[1].label.contains(QStringLiteral("16 GPUs")));
        QVERIFY(chart.columns()[0].label.contains(QStringLiteral("embedding")));
        QVERIFY(chart.columns()[4].label.contains(QStringLiteral("head + logits")));
        // The busiest (stage 0) is outlined, and it is the window's per-GPU bar.
        QCOMPARE(chart.busiestColumn(), 0);
        QVERIFY(chart.busiestMark()->visible());
        QCOMPARE(chart.columns()[0].segments.total(), account(s, gpuOf(s)).perGpu.total());
        const QStringList problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // Issue 33: with an uneven split the columns say their layers (DeepSeek-V3's 7 + 6·8 + 6), and the labels fit;
    // with the even split they do not repeat the same number under every column.
    void unevenColumnsSayTheirLayers()
    {
        Scenario s = testdata::deepseekV3OnPipeline(8, 7, 6);
        s.hardware.zeroStage = 1;
        const std::vector<RankKind> ranks = rankKinds(resolveModel(s.model), s);
        RankChart chart;
        chart.resize(1600, 800);
        chart.setRanks(ranks, 8, gpuOf(s).memoryBytes, QStringLiteral("H800 · 80 GB"));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        QCOMPARE(chart.columns().size(), size_t(8));
        QVERIFY2(chart.columns()[0].label.endsWith(QStringLiteral("\n7 layers · busiest")),
                 qPrintable(chart.columns()[0].label));
        QVERIFY2(chart.columns()[3].label.endsWith(QStringLiteral("\n8 layers")), qPrintable(chart.columns()[3].label));
        QVERIFY2(chart.columns()[7].label.endsWith(QStringLiteral("\n6 layers")), qPrintable(chart.columns()[7].label));
        const QStringList problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        const Scenario even = testdata::deepseekV3OnPipeline(8);
        chart.setRanks(rankKinds(resolveModel(even.model), even), 8, gpuOf(even).memoryBytes, QStringLiteral("H800"));
        for (const BarColumn& c : chart.columns())
            QVERIFY2(!c.label.contains(QStringLiteral("layers")), qPrintable(c.label));
    }

    // Sixteen stages do not fit eleven columns: runs of middle stages, each shown by its largest; a
    // narrower chart gets fewer, wider columns (regrouped on resize).
    void manyStagesAreJoined()
    {
        Scenario s = preset(QStringLiteral("deepseek-v3"));
        s.hardware.gpus = 2048;
        s.hardware.tp = 1;
        s.hardware.pp = 16;
        s.hardware.ep = 64;
        s.training.gradAccum = 32;
        RankChart chart;
        chart.resize(1920, 900);
        chart.setRanks(rankKinds(resolveModel(s.model), s), 16, gpuOf(s).memoryBytes, QStringLiteral("H800"));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.grab();
        QCOMPARE(chart.columns().size(), size_t(MemoryBarChart::kMaxColumns));
        // 14 middle kinds in 9 runs: the later runs join two stages, shown by the first.
        QVERIFY(chart.columns()[1].label.startsWith(QStringLiteral("Stage 1\n")));
        QVERIFY2(chart.columns()[9].label.contains(QStringLiteral("(stage 13 shown)")),
                 qPrintable(chart.columns()[9].label));
        QStringList problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

        // At 1024 px: 7 columns, the 14 middle stages in 5 runs, the busiest still marked.
        QCOMPARE(RankChart::columnBudget(1024), 7);
        chart.resize(1024, 600);
        QTest::qWait(0);
        chart.grab();
        QCOMPARE(chart.columns().size(), size_t(7));
        QVERIFY2(chart.columns()[1].label.startsWith(QStringLiteral("Stages 1–2")),
                 qPrintable(chart.columns()[1].label));
        QVERIFY(chart.busiestColumn() >= 0);
        QCOMPARE(chart.shown()[static_cast<size_t>(chart.busiestColumn())].busiest, true);
        problems = labelProblems(&chart);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void windowOffersTheDockHidden()
    {
        MainWindow w(PresetLibrary::instance(), llama2Pp8());
        showWindow(w);
        QDockWidget* dock = nullptr;
        RanksPanel* panel = nullptr;
        openPanelDock(w, QStringLiteral("ranksDock"), &dock, &panel);
        if (QTest::currentTestFailed())
            return;
        // Five kinds (stage 0, three middle kinds, the last), joined if the dock is too narrow for five.
        QCOMPARE(panel->chart()->columns().size(),
                 std::min<size_t>(5, size_t(RankChart::columnBudget(panel->chart()->width()))));
        QVERIFY2(panel->summary()->text().contains(QStringLiteral("Stage 0 · embedding is the busiest")),
                 qPrintable(panel->summary()->text()));
        // The roomiest rank, found here from the core, is named with what it needs. For 7B at pp 8 it is a
        // middle stage: the last one also holds the head and the fp32 logits.
        const Scenario s = llama2Pp8();
        const std::vector<RankKind> ranks = rankKinds(resolveModel(s.model), s);
        const auto roomiest = std::min_element(ranks.begin(), ranks.end(), [](const RankKind& a, const RankKind& b) {
            return a.bytes.total() < b.bytes.total();
        });
        QCOMPARE(int(roomiest->stage), int(PipelineStage::Middle));
        QVERIFY2(panel->summary()->text().contains(rankTitle(*roomiest) + QStringLiteral(" needs")),
                 qPrintable(panel->summary()->text()));
    }

    void exportDrawsTheRanks()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("ranks.png"));
        const Scenario s = llama2Pp8();
        ExportOptions o;
        o.width = 1920;
        o.height = 1080;
        QString error;
        QVERIFY2(exportChartPng(s, gpuOf(s), ChartKind::Ranks, file, o, &error), qPrintable(error));
        const QImage img(file);
        QCOMPARE(img.size(), QSize(1920, 1080));
        bool outline = false; // the busiest bar's outline colour is on the image
        for (int y = 0; y < img.height() && !outline; y += 2)
            for (int x = 0; x < img.width() && !outline; x += 2)
                outline = img.pixelColor(x, y) == QColor(0xd0, 0x10, 0x60);
        QVERIFY(outline);
        QCOMPARE(chartKindFromName(QStringLiteral("ranks")), std::optional<ChartKind>(ChartKind::Ranks));
        QCOMPARE(chartKindName(ChartKind::Ranks), QStringLiteral("ranks"));
    }
};

QTEST_MAIN(TestUiRanks)
#include "tst_ui_ranks.moc"
