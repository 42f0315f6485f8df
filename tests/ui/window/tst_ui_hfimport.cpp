// Importing a Hugging Face config.json in the window (issue 9 §1): the File menu's code path and a
// drop, one undo step, a bad file shown in the banner with the current scenario kept, and saving the
// import as a scenario file and as a user preset.
#include "uitestutil.h"

#include "dashboard.h"
#include "errorbanner.h"
#include "mainwindow.h"
#include "scenarioio.h"

#include <QAction>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QUrl>

using namespace trainmem;
using namespace trainmem::uitest;

namespace {

const QString kQwen3 = QStringLiteral(TRAINMEM_HF_DATA "/Qwen3-8B.json");

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

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestUiHfImport)
#include "tst_ui_hfimport.moc"
