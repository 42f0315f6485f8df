// Importing a Hugging Face config.json in the window (issue 9 §1): the File menu's code path and a
// drop, one undo step, a bad file shown in the banner with the current scenario kept, and saving the
// import as a scenario file and as a user preset. The training configs of issue 32 (torchtune, axolotl, DeepSpeed)
// the same way, with what they set and ignored listed, and a memory readout drawn beside the prediction.
#include "uitestutil.h"

#include "dashboard.h"
#include "errorbanner.h"
#include "mainwindow.h"
#include "measureddialog.h"
#include "scenarioio.h"

#include <QAction>
#include <QLabel>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {

const QString kQwen3 = QStringLiteral(TRAINMEM_HF_DATA "/Qwen3-8B.json");
const QString kData = QStringLiteral(TRAINMEM_TEST_DATA);

void dropFile(MainWindow& w, const QString& path)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
}

} // namespace

class TestUiHfImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }
    void init() { QSettings().clear(); }

    void importReplacesTheModelAsOneUndoStep()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-70b")));
        w.setModalErrors(false);
        QVERIFY(w.action(QStringLiteral("importHfConfig")));
        const Scenario before = w.scenario();
        QSignalSpy spy(&w, &MainWindow::scenarioChanged);
        QVERIFY(w.importHfConfig(kQwen3));
        QCOMPARE(spy.count(), 1);
        // Qwen3-8B: 8,190,735,360 parameters (tst_hfconfig derives it), 16 B each in bf16-mixed Adam.
        QCOMPARE(w.scenario().model.params, qint64(8190735360));
        QCOMPARE(w.dashboard()->state().current.modelStateBytes, 8190735360.0 * 16);
        QCOMPARE(QString::fromStdString(w.scenario().name), QStringLiteral("Qwen3-8B"));
        QCOMPARE(w.scenario().hardware.gpus, before.hardware.gpus); // the setup stays
        QCOMPARE(w.undoStack()->count(), 1);
        w.undoStack()->undo();
        QCOMPARE(scenarioToText(w.scenario()), scenarioToText(before));
        w.undoStack()->redo();
        QCOMPARE(w.scenario().model.params, qint64(8190735360));
    }

    void badConfigShowsTheErrorAndKeepsTheScenario_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("mistyped kv heads named by path")
            << QByteArray(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": "8", "intermediate_size": 14336, "vocab_size": 128256})")
            << QStringLiteral("config.json: /num_key_value_heads: must be a positive integer, got \"8\"");
        QTest::newRow("unknown model type") << QByteArray(R"({"model_type": "bert"})")
                                            << QStringLiteral("/model_type: unsupported model type \"bert\"");
        QTest::newRow("not JSON") << QByteArray("{ nope") << QStringLiteral("config.json: not valid JSON");
    }
    void badConfigShowsTheErrorAndKeepsTheScenario()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString path = m_dir.filePath(QStringLiteral("config.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(content);
        f.close();
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-70b")));
        w.setModalErrors(false);
        const std::string before = scenarioToText(w.scenario());
        QSignalSpy spy(&w, &MainWindow::scenarioChanged);
        QVERIFY(!w.importHfConfig(m_dir.path())); // the folder holding config.json
        QCOMPARE(spy.count(), 0);
        QCOMPARE(w.undoStack()->count(), 0);
        QCOMPARE(scenarioToText(w.scenario()), before);
        QVERIFY(w.errorBanner()->isVisibleTo(&w));
        QVERIFY2(w.errorBanner()->text().contains(expected), qPrintable(w.errorBanner()->text()));
        QVERIFY(w.errorBanner()->text().contains(QStringLiteral("the current scenario is kept")));
    }

    void droppedConfigImports()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        QVERIFY(w.acceptDrops());
        QTemporaryDir folder;
        QVERIFY(QFile::copy(QStringLiteral(TRAINMEM_HF_DATA "/gemma-3-1b.json"),
                            folder.filePath(QStringLiteral("config.json"))));
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(folder.filePath(QStringLiteral("config.json")))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        // Gemma 3 1B: 999,885,952 (keras-hub's gemma3_1b preset).
        QCOMPARE(w.scenario().model.params, qint64(999885952));
    }

    // Nemotron 3 Super's real config.json, with its `Infinity` and its latent MoE, dropped on the window.
    void droppedLatentMoeConfigImports()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        dropFile(w, QStringLiteral(TRAINMEM_HF_DATA "/NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json"));
        // 120,668,687,360 (tst_hfconfig derives it): the experts on 1024 latent channels, 40 Mamba-2 blocks.
        QCOMPARE(w.scenario().model.params, qint64(120668687360));
        QCOMPARE(w.scenario().model.architecture.moe.latent, qint64(1024));
        QCOMPARE(w.scenario().model.architecture.kinds.mamba, qint64(40));
        QCOMPARE(w.dashboard()->state().current.modelStateBytes, 120668687360.0 * 16);
        QVERIFY(!w.errorBanner()->isVisibleTo(&w));
    }

    void importSavesAsScenarioAndUserPreset()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        QVERIFY(w.importHfConfig(kQwen3));
        const QString file = m_dir.filePath(QStringLiteral("qwen3.json"));
        QVERIFY(w.saveFile(file));
        const ScenarioParse saved = PresetLibrary::loadFile(file);
        QVERIFY(saved.ok());
        QCOMPARE(saved.scenario.model.params, qint64(8190735360));

        const QString presets = m_dir.filePath(QStringLiteral("presets"));
        QVERIFY(w.saveUserPreset(presets));
        PresetLibrary lib;
        lib.load(presets);
        const PresetEntry* e = lib.find(QStringLiteral("qwen3-8b"));
        QVERIFY(e);
        QVERIFY(!e->builtIn);
        QCOMPARE(e->scenario.model.params, qint64(8190735360));
    }

    // torchtune's llama3_1/8B_lora_single_device.yaml (tests/data/torchtune, tst_trainconfig reads it key by key):
    // its builder's Llama 3.1 8B, LoRA rank 8, micro-batch 2 × accumulation 8, bf16, full checkpointing, as one undo
    // step, with what it set and what it left listed in the banner.
    void trainingConfigIsOneUndoStep()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        QVERIFY(w.action(QStringLiteral("openTrainingConfig")));
        const Scenario before = w.scenario();
        QVERIFY(w.openTrainingConfig(kData + QStringLiteral("/torchtune/llama3_1-8B_lora_single_device.yaml")));
        const Scenario& s = w.scenario();
        QCOMPARE(w.dashboard()->state().current.model.params.total, qint64(8030261248)); // Llama 3.1 8B
        QCOMPARE(s.training.fineTune, FineTune::Lora);
        QCOMPARE(s.training.loraRank, 8);
        QCOMPARE(s.training.microBatch, 2);
        QCOMPARE(s.training.gradAccum, 8);
        QCOMPARE(s.training.precision, Precision::BF16);
        QCOMPARE(s.training.checkpointing, Checkpointing::Full);
        QCOMPARE(w.undoStack()->count(), 1);
        QVERIFY(w.errorBanner()->isVisible() || !w.isVisible()); // shown when the window is
        QVERIFY(!w.errorBanner()->isError());
        const QString text = w.errorBanner()->text();
        QVERIFY2(text.contains(QStringLiteral("model torchtune.models.llama3_1.lora_llama3_1_8b")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("micro-batch 2")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("LoRA rank 8 on output_proj, q_proj, v_proj, w1, w2, w3")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Ignored (not read by TrainMem): ")) &&
                     text.contains(QStringLiteral("checkpointer")) && text.contains(QStringLiteral("model.lora_alpha")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("loss chunked")) && text.contains(QStringLiteral("framework torchtune")),
                 qPrintable(text));
        QCOMPARE(w.scenario().framework, std::optional<Framework>(Framework::Torchtune));
        w.undoStack()->undo();
        QCOMPARE(scenarioToText(w.scenario()), scenarioToText(before));
    }

    // Dropped: a DeepSpeed JSON sets ZeRO and offload on the current model; an axolotl YAML whose base_model is a
    // Hub id keeps the current model and says so.
    void droppedTrainingConfigs()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        const Scenario start = w.scenario();
        // DeepSpeed's zero3_bf16_cpuoffload_all.json: stage 3, optimizer and parameters to the CPU, bf16.
        dropFile(w, kData + QStringLiteral("/deepspeed/zero3_bf16_cpuoffload_all.json"));
        QCOMPARE(w.scenario().hardware.zeroStage, 3);
        QCOMPARE(w.scenario().hardware.offload, Offload::OptimizerParams);
        QCOMPARE(w.scenario().model.params, start.model.params);
        QCOMPARE(w.undoStack()->count(), 1);
        // axolotl's examples/llama-3/lora-8b.yml: LoRA r32 at 4096 tokens on NousResearch/Meta-Llama-3-8B, which is
        // not on this machine.
        dropFile(w, kData + QStringLiteral("/axolotl/lora-8b.yml"));
        QCOMPARE(w.undoStack()->count(), 2);
        QCOMPARE(w.scenario().training.loraRank, 32);
        QCOMPARE(w.scenario().training.seqLen, 4096);
        QCOMPARE(w.scenario().model.params, start.model.params);
        QVERIFY2(w.errorBanner()->text().contains(
                     QStringLiteral("base_model NousResearch/Meta-Llama-3-8B is not on this machine: the model of the "
                                    "current scenario is used")),
                 qPrintable(w.errorBanner()->text()));
    }

    // A file that is no training config, or a broken one, is named in the banner and the scenario stays.
    void badTrainingConfigKeepsTheScenario()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        const Scenario before = w.scenario();
        QVERIFY(!w.openTrainingConfig(kQwen3)); // a config.json is not a DeepSpeed config
        QVERIFY(w.errorBanner()->isError());
        QVERIFY2(w.errorBanner()->text().contains(QStringLiteral("is not a torchtune or axolotl YAML")),
                 qPrintable(w.errorBanner()->text()));
        const QString path = m_dir.filePath(QStringLiteral("broken.yaml"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("base_model: [unclosed\n");
        f.close();
        QVERIFY(!w.openTrainingConfig(path));
        QVERIFY2(w.errorBanner()->text().contains(QStringLiteral("broken.yaml")) &&
                     w.errorBanner()->text().contains(QStringLiteral("line")),
                 qPrintable(w.errorBanner()->text()));
        QCOMPARE(scenarioToText(w.scenario()), scenarioToText(before));
        QCOMPARE(w.undoStack()->count(), 0);
    }

    // Edit ▸ Paste measured memory…: the dialog reads the text as it is typed, OK draws the figure as a bar after the
    // per-GPU one with the prediction of the same statistic across it; the bar stays when the scenario changes and
    // follows its prediction; Clear removes it.
    void pastedMeasuredMemoryIsABarBesideThePrediction()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        QAction* paste = w.action(QStringLiteral("pasteMeasured"));
        QVERIFY(paste);
        QFile table(kData + QStringLiteral("/readouts/memory_summary-rhel-ai-integrate-ai-into-app.txt"));
        QVERIFY(table.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(table.readAll());
        QString status;
        QTimer::singleShot(0, &w, [&] {
            auto* d = w.findChild<MeasuredDialog*>();
            QVERIFY(d);
            d->editor()->setPlainText(text);
            status = d->statusLabel()->text();
            d->accept();
        });
        paste->trigger();
        QVERIFY2(status.contains(QStringLiteral("torch.cuda.memory_summary(): peak allocated 15.0 GB (GPU 0)")),
                 qPrintable(status));
        const DashboardState& st = w.dashboard()->state();
        QVERIFY(st.measured);
        QCOMPARE(st.measured->measured, 14324.0 * 1024 * 1024); // the Allocated memory row's Peak Usage
        QCOMPARE(st.measured->predicted, predictedFor(st.current.perGpu, MemoryStatistic::PeakAllocated));
        const BarColumn& bar = st.columns.at(3); // after inference, training and per GPU
        QCOMPARE(*bar.measured, st.measured->measured);
        QCOMPARE(bar.predicted, st.measured->predicted);
        QVERIFY(bar.label.startsWith(QStringLiteral("Measured\npeak allocated\ngap ")));
        QVERIFY(w.dashboard()->barChart()->measuredBars()->visible());
        QVERIFY(w.dashboard()->barChart()->predictedMark()->visible());
        QVERIFY(w.dashboard()->measuredLabel()->text().startsWith(QStringLiteral("Measured peak allocated 15.0 GB")));
        QVERIFY(w.action(QStringLiteral("clearMeasured"))->isEnabled());
        // A scenario change keeps the readout and moves the prediction: bf16 weights only halve the model state.
        Scenario s = w.scenario();
        s.training.gradAccum = 4;
        s.training.checkpointing = Checkpointing::Full;
        const double fullBefore = st.measured->predicted;
        w.controlPanel()->setScenario(s);
        Q_EMIT w.controlPanel()->scenarioEdited(s, ControlPanel::Control::Checkpointing, false);
        QVERIFY(w.dashboard()->state().measured);
        QVERIFY(w.dashboard()->state().measured->predicted < fullBefore);
        // The dialog opens again with the text it held.
        QString reopened;
        QTimer::singleShot(0, &w, [&] {
            auto* d = w.findChild<MeasuredDialog*>();
            reopened = d->editor()->toPlainText();
            d->reject();
        });
        paste->trigger();
        QCOMPARE(reopened, text);
        w.action(QStringLiteral("clearMeasured"))->trigger();
        QVERIFY(!w.dashboard()->state().measured);
        QCOMPARE(w.dashboard()->state().columns.size(), size_t(3));
        QVERIFY(!w.dashboard()->barChart()->measuredBars()->visible());
    }

    // A readout file dropped on the window (nvidia-smi's table of 8 A100s: the busiest GPU, 57828 MiB); a text with
    // no figure is named in the banner.
    void droppedReadout()
    {
        MainWindow w(PresetLibrary::instance(), preset(QStringLiteral("chapter-7b")));
        w.setModalErrors(false);
        dropFile(w, kData + QStringLiteral("/readouts/nvidia-smi-gpu-docker-api-readme-8xA100-80GB.txt"));
        QVERIFY(w.dashboard()->state().measured);
        QCOMPARE(w.dashboard()->state().measured->statistic, MemoryStatistic::DeviceUsed);
        QCOMPARE(w.dashboard()->state().measured->measured, 57828.0 * 1024 * 1024);
        QCOMPARE(w.undoStack()->count(), 0); // a readout is not a change of the scenario
        const QString path = m_dir.filePath(QStringLiteral("notes.txt"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("the run was fine\n");
        f.close();
        QVERIFY(!w.openMeasured(path));
        QVERIFY2(w.errorBanner()->text().contains(QStringLiteral("notes.txt: has no memory figure")),
                 qPrintable(w.errorBanner()->text()));
        QVERIFY(w.dashboard()->state().measured); // the last good readout stays
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestUiHfImport)
#include "tst_ui_hfimport.moc"
