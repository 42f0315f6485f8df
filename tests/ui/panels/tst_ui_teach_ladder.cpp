// The ladder chart plots the core's rungs, annotates the tax, and renders for slides.
#include "ladderchart.h"
#include "testdata.h"
#include "units.h"

#include <QSignalSpy>
#include <QtTest>

using namespace trainmem;

Q_DECLARE_METATYPE(trainmem::Scenario)

class TestUiTeachLadder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<trainmem::Scenario>(); }

    void barsAreTheRungs()
    {
        LadderChart chart;
        LadderOptions o;
        o.dataParallel = 8;
        o.tensorParallel = 2;
        o.pipelineParallel = 2;
        chart.setOptions(o);
        chart.setScenario(testdata::preset("chapter-7b"), testdata::gpu("H100"));
        QCOMPARE(chart.rungs().size(), size_t(6));
        QCPBars* w = chart.bars(SegmentKind::Weights);
        QCOMPARE(w->data()->size(), 6);
        QCOMPARE(w->data()->at(0)->value, 14e9);                                 // 1 GPU
        QCOMPARE(w->data()->at(3)->value, 1.75e9);                               // ZeRO-3 on 8
        QCOMPARE(chart.bars(SegmentKind::Optimizer)->data()->at(1)->value, 7e9); // ZeRO-1 shards the moments
        QCOMPARE(chart.capacityLine()->point1->value(), 80e9);
        // ZeRO-3's label names the extra half all-reduce it costs; ZeRO-2 adds no traffic.
        const QString zero3 = chart.taxLabel(3)->text();
        const QString extra = QString::fromStdString(formatBytes(0.5 * 2 * 2 * 7e9 * 7 / 8)); // half an all-reduce more
        QVERIFY2(zero3.contains(QStringLiteral("tax +%1/step").arg(extra)), qPrintable(zero3));
        QVERIFY(chart.taxLabel(2)->text().contains(QStringLiteral("no new traffic")));
        QVERIFY(chart.rungToolTip(1).contains(QStringLiteral("Still replicated")));
    }

    void doubleClickRequestsTheRung()
    {
        LadderChart chart;
        chart.resize(900, 500);
        chart.setScenario(testdata::preset("chapter-7b"), testdata::gpu("H100"));
        chart.replot();
        QSignalSpy spy(&chart, &LadderChart::scenarioRequested);
        const int x = static_cast<int>(chart.xAxis->coordToPixel(3));
        const int y = static_cast<int>(chart.yAxis->coordToPixel(1e9));
        QTest::mouseDClick(&chart, Qt::LeftButton, Qt::NoModifier, QPoint(x, y));
        QCOMPARE(spy.count(), 1);
        const auto s = spy.at(0).at(0).value<Scenario>();
        QCOMPARE(s.hardware.zeroStage, 3);
        QCOMPARE(s.hardware.gpus, qint64(8));
    }

    void rendersForSlides()
    {
        LadderChart chart;
        chart.setTheme(ChartTheme::slide(1600, 900));
        chart.setScenario(testdata::preset("mixtral-8x7b"), testdata::gpu("H100"));
        const QString file = QStringLiteral(TRAINMEM_TEST_OUTPUT_DIR "/ladder-mixtral.png");
        QVERIFY(chart.savePng(file, 1600, 900));
        QImage img(file);
        QCOMPARE(img.size(), QSize(1600, 900));
        QCOMPARE(chart.rungs().back().cut, LadderCut::Expert);
    }
};

QTEST_MAIN(TestUiTeachLadder)
#include "tst_ui_teach_ladder.moc"
