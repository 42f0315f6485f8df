// The "Compare with Megatron / DeepSpeed" dock, its paste dialog and the peers export (issue 10),
// on the offscreen platform. The numbers are the core's (tst_peers checks them to the byte); here
// the widgets must show exactly those, with every difference's reason reachable.
#include "chartexport.h"
#include "mainwindow.h"
#include "megatrondialog.h"
#include "peerschart.h"
#include "peerspanel.h"
#include "uitestutil.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {
constexpr const char* kLlama2 =
    "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n --num-layers 32 --hidden-size 4096 --ffn-hidden-size 11008 \\\n"
    " --num-attention-heads 32 --swiglu --normalization RMSNorm --untie-embeddings-and-output-weights \\\n"
    " --disable-bias-linear --position-embedding-type rope --vocab-size 32000 --seq-length 4096 --micro-batch-size 1 "
    "\\\n"
    " --global-batch-size 1024 --tensor-model-parallel-size 2 --sequence-parallel --recompute-activations \\\n"
    " --use-distributed-optimizer --bf16 --lr 3e-4";
}

class TestUiPeers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void dialogRejectsBadTextAndNamesTheFlag();
    void panelShowsThePeersNumbersAndReasons();
    void pastedArgsFollowTheScenario();
    void windowHasTheActionAndTheDock();
    void exportDrawsThePeersChart();
    void pasteDialogReopensWithTheLastText();
    void aSliderStepUpdatesTheCellsItHas();
};

void TestUiPeers::dialogRejectsBadTextAndNamesTheFlag()
{
    MegatronDialog d(8);
    d.setText(QStringLiteral("--num-layers many --hidden-size 4096"));
    QVERIFY(!d.read());
    QVERIFY(!d.errorLabel()->isHidden());
    QVERIFY2(d.errorLabel()->text().contains(QStringLiteral("--num-layers: must be an integer, got &quot;many&quot;")),
             qPrintable(d.errorLabel()->text()));
    d.setText(QString::fromLatin1(kLlama2));
    QVERIFY(d.read());
    QVERIFY(d.errorLabel()->isHidden());
    QCOMPARE(d.result().args.numLayers, qint64(32));
    QCOMPARE(d.result().args.worldSize, qint64(8)); // torchrun's, not the box's
}

void TestUiPeers::panelShowsThePeersNumbersAndReasons()
{
    const MegatronParse parse = parseMegatronArgs(kLlama2);
    QVERIFY(parse.ok());
    const Scenario s = scenarioFromMegatron(parse.args, preset(QStringLiteral("llama2-7b")));
    PeersPanel panel;
    panel.resize(1200, 900);
    panel.setPasted(parse, s);
    panel.setScenario(s, gpuOf(s));
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.pastedArgs().has_value());
    QVERIFY(panel.sourceLabel()->text().contains(QStringLiteral("--lr 3e-4")));

    PeersChart* chart = panel.chart();
    QCOMPARE(chart->columns().size(), size_t(3));
    // Megatron's bar is its own total (30,324,068,352 + 8,021,622,784), DeepSpeed ZeRO-2's its gpu_bytes.
    QCOMPARE(chart->columns()[PeersChart::kMegatron].segments.total(), 30324068352.0 + 8021622784.0);
    QCOMPARE(std::llround(chart->columns()[PeersChart::kDeepSpeed].segments.total()), 28638266368LL);
    QCOMPARE(chart->columns()[PeersChart::kTrainMem].segments.total(), account(s, gpuOf(s)).perGpu.total());
    QVERIFY(!chart->highlighted().empty());
    QVERIFY(chart->columns()[PeersChart::kMegatron].label.contains(QStringLiteral("TrainMem: ")));

    // The Megatron table: one row per term (the nine of the table but the KV cache, which training has
    // none of) plus the total, each with its reason as tooltip.
    QTableWidget* t = panel.table();
    QCOMPARE(panel.peerChoice()->currentData().toString(), QStringLiteral("megatron"));
    QCOMPARE(t->rowCount(), 10);
    QCOMPARE(t->item(1, 0)->text(), QStringLiteral("gradients"));
    QVERIFY(t->item(1, 0)->toolTip().contains(QStringLiteral("fp32 main gradients")));
    t->setCurrentCell(1, 0);
    QVERIFY2(panel.whyLabel()->text().contains(QStringLiteral("fp32 main gradients")),
             qPrintable(panel.whyLabel()->text()));

    // Hovering Megatron's gradient segment gives the term's reason.
    const Segments& m = chart->columns()[PeersChart::kMegatron].segments;
    const double y = m.weights + m.gradients / 2;
    const QPointF pos(chart->xAxis->coordToPixel(PeersChart::kMegatron), chart->yAxis->coordToPixel(y));
    const QString tip = chart->hoverText(pos);
    QVERIFY2(tip.contains(QStringLiteral("vs Megatron")) && tip.contains(QStringLiteral("fp32 main gradients")),
             qPrintable(tip));

    // ZeRO-3 moves DeepSpeed's bar to its stage-3 figure and the table to its terms.
    panel.stageChoice()->setCurrentIndex(1);
    QCOMPARE(std::llround(chart->columns()[PeersChart::kDeepSpeed].segments.total()), 15685723136LL);
    QCOMPARE(panel.peerChoice()->currentData().toString(), QStringLiteral("deepspeed_zero3"));
    bool gathered = false;
    for (int r = 0; r < t->rowCount(); ++r)
        gathered = gathered || t->item(r, 0)->text() == QStringLiteral("gathered_layer");
    QVERIFY(gathered);
}

void TestUiPeers::pastedArgsFollowTheScenario()
{
    const MegatronParse parse = parseMegatronArgs(kLlama2);
    const Scenario s = scenarioFromMegatron(parse.args, preset(QStringLiteral("llama2-7b")));
    PeersPanel panel;
    panel.setPasted(parse, s);
    panel.setScenario(s, gpuOf(s));
    QVERIFY(panel.pastedArgs().has_value());
    Scenario edited = s;
    edited.training.seqLen = 8192;
    panel.setScenario(edited, gpuOf(edited));
    QVERIFY(!panel.pastedArgs().has_value());
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.sourceLabel()->text().contains(QStringLiteral("no longer match")));
    QCOMPARE(panel.comparison().args.seqLength, qint64(8192));
}

void TestUiPeers::windowHasTheActionAndTheDock()
{
    MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("mixtral-8x7b")));
    w.setModalErrors(false);
    QVERIFY(w.action(QStringLiteral("pasteMegatron")));
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("peersDock"));
    QVERIFY(dock);
    dock->show();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // The dock follows the window's scenario: Mixtral's experts reach Megatron's count.
    QVERIFY(w.peers()->comparison().args.numExperts.has_value());
    QCOMPARE(w.peers()->comparison().args.numExperts.value_or(0), qint64(8));
}

void TestUiPeers::exportDrawsThePeersChart()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("peers.png"));
    const MegatronParse parse = parseMegatronArgs(kLlama2);
    const Scenario s = scenarioFromMegatron(parse.args, preset(QStringLiteral("llama2-7b")));
    ExportOptions o;
    o.width = 1920;
    o.height = 1080;
    QString error;
    QVERIFY2(exportChartPng(s, gpuOf(s), ChartKind::Peers, file, o, &error, parse.args), qPrintable(error));
    QImage img(file);
    QCOMPARE(img.size(), QSize(1920, 1080));
    // The highlight colour of the difference outlines is on the image.
    bool outline = false;
    for (int y = 0; y < img.height() && !outline; y += 2)
        for (int x = 0; x < img.width() && !outline; x += 2)
            outline = img.pixelColor(x, y) == QColor(0xd0, 0x10, 0x60);
    QVERIFY(outline);
    QCOMPARE(chartKindFromName(QStringLiteral("peers")), std::optional<ChartKind>(ChartKind::Peers));
}

// Issue 31 §3: the paste dialog opened empty every time, so a launch with one wrong flag was pasted again from
// scratch. It reopens with what it last held, whether it was accepted or cancelled.
void TestUiPeers::pasteDialogReopensWithTheLastText()
{
    PeersPanel panel;
    const Scenario s = preset(QStringLiteral("llama2-7b"));
    panel.setScenario(s, gpuOf(s));
    auto* paste = panel.findChild<QPushButton*>(QStringLiteral("pasteMegatronButton"));
    QVERIFY(paste);
    QString seen = QStringLiteral("(the dialog did not open)");
    auto answer = [&](const QString& type) {
        QTimer::singleShot(0, &panel, [&, type] {
            auto* d = qobject_cast<MegatronDialog*>(QApplication::activeModalWidget());
            if (!d)
                return;
            seen = d->editor()->toPlainText();
            if (!type.isEmpty())
                d->setText(type);
            d->reject();
        });
        paste->click();
    };
    answer(QString::fromLatin1(kLlama2)); // the first time it is empty; the launch is typed, then cancelled
    QCOMPARE(seen, QString());
    answer(QString());
    QCOMPARE(seen, QString::fromLatin1(kLlama2));
}

// Issue 31's slider step: a step sets the texts of the cells the table has (it rebuilt all 40 items before), and
// the reason below follows the selected row.
void TestUiPeers::aSliderStepUpdatesTheCellsItHas()
{
    Scenario s = preset(QStringLiteral("chapter-7b"));
    PeersPanel panel;
    panel.resize(700, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setScenario(s, gpuOf(s));
    QTableWidget* t = panel.table();
    const int rows = t->rowCount();
    int activations = -1;
    for (int r = 0; r < rows; ++r)
        if (t->item(r, 0)->text() == QStringLiteral("activations"))
            activations = r;
    QVERIFY(activations >= 0);
    const QTableWidgetItem* cell = t->item(activations, 1);
    const QString before = cell->text();
    t->setCurrentCell(activations, 0);

    s.training.seqLen *= 4; // four times the tape
    panel.setScenario(s, gpuOf(s));
    QCOMPARE(t->rowCount(), rows);
    QCOMPARE(t->item(activations, 1), cell); // the same item, its text set
    QVERIFY2(cell->text() != before, qPrintable(cell->text()));
    QCOMPARE(cell->text(), QString::fromStdString(formatBytes(account(s, gpuOf(s)).perGpu.activations)));
    const int row = t->currentRow();
    QVERIFY(panel.whyLabel()->text().contains(t->item(row, 0)->text().toHtmlEscaped()));
    QVERIFY(panel.whyLabel()->text().contains(t->item(row, 0)->data(Qt::UserRole).toString().toHtmlEscaped()));
}

QTEST_MAIN(TestUiPeers)
#include "tst_ui_peers.moc"
