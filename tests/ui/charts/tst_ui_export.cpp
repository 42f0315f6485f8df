// Headless export (the --export-png path and the window's): the asked size, not blank, errors named.
#include "uitestutil.h"

#include "chartexport.h"

#include <QTemporaryDir>

using namespace trainmem;
using namespace trainmem::uitest;

class TestUiExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void pngHasAskedSizeAndIsNotBlank_data();
    void pngHasAskedSizeAndIsNotBlank();
    void pdfIsWritten_data();
    void pdfIsWritten();
    void chartNames_data();
    void chartNames();
    void failuresNameTheFile_data();
    void failuresNameTheFile();
    void slideThemeIsLight();

private:
    QTemporaryDir m_dir;
};

void TestUiExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestUiExport::pngHasAskedSizeAndIsNotBlank_data()
{
    QTest::addColumn<QString>("presetId");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<double>("scale");
    QTest::newRow("dashboard 1600×1000 for a 16:10 slide")
        << "chapter-7b" << int(ChartKind::Dashboard) << 1600 << 1000 << 1.0;
    QTest::newRow("bars 800×600 at scale 2 is 1600×1200 pixels")
        << "chapter-70b" << int(ChartKind::Bars) << 800 << 600 << 2.0;
    QTest::newRow("seq 1200×700") << "llama3-70b" << int(ChartKind::Seq) << 1200 << 700 << 1.0;
    QTest::newRow("dashboard portrait 900×1400 stacks the charts")
        << "deepseek-v3" << int(ChartKind::Dashboard) << 900 << 1400 << 1.0;
    QTest::newRow("bars for the 38 TB model at 1920×1080")
        << "qwen3.8-book" << int(ChartKind::Bars) << 1920 << 1080 << 1.0;
    QTest::newRow("small 400×300 at scale 0.5") << "chapter-7b" << int(ChartKind::Seq) << 400 << 300 << 0.5;
}

void TestUiExport::pngHasAskedSizeAndIsNotBlank()
{
    QFETCH(QString, presetId);
    QFETCH(int, kind);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(double, scale);
    const Scenario s = preset(presetId);
    const QString file = m_dir.filePath(QStringLiteral("%1-%2.png").arg(presetId).arg(kind));
    ExportOptions o;
    o.width = width;
    o.height = height;
    o.scale = scale;
    QString error;
    QVERIFY2(exportChartPng(s, gpuOf(s), static_cast<ChartKind>(kind), file, o, &error), qPrintable(error));
    QImage image;
    QVERIFY(image.load(file, "PNG"));
    QCOMPARE(image.width(), qRound(width * scale));
    QCOMPARE(image.height(), qRound(height * scale));
    // SegmentKind colours, text and antialiasing: a drawn chart has hundreds of colours; a blank has one.
    const int colours = distinctColours(image);
    QVERIFY2(colours > 40, qPrintable(QStringLiteral("only %1 colours").arg(colours)));
    // The weights' blue is on every bars chart (the first segment of every bar).
    if (static_cast<ChartKind>(kind) != ChartKind::Seq) {
        bool blue = false;
        const QRgb weights = ChartTheme::segmentColor(SegmentKind::Weights).rgb();
        for (int y = 0; y < image.height() && !blue; y += 2)
            for (int x = 0; x < image.width() && !blue; x += 2)
                blue = image.pixel(x, y) == weights;
        QVERIFY(blue);
    }
}

void TestUiExport::pdfIsWritten_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("bars as PDF") << int(ChartKind::Bars);
    QTest::newRow("seq as PDF") << int(ChartKind::Seq);
    QTest::newRow("dashboard as PDF") << int(ChartKind::Dashboard);
}

void TestUiExport::pdfIsWritten()
{
    QFETCH(int, kind);
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    const QString file = m_dir.filePath(QStringLiteral("chart%1.pdf").arg(kind));
    QString error;
    QVERIFY2(exportChart(s, gpuOf(s), static_cast<ChartKind>(kind), file, ExportFormat::Pdf, ExportOptions{},
                         ChartExtras{}, &error),
             qPrintable(error));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(5) == "%PDF-");
    QVERIFY(f.size() > 4000);
}

void TestUiExport::chartNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("kind"); // -1: refused
    QTest::newRow("bars") << "bars" << int(ChartKind::Bars);
    QTest::newRow("seq") << "seq" << int(ChartKind::Seq);
    QTest::newRow("dashboard") << "dashboard" << int(ChartKind::Dashboard);
    QTest::newRow("case does not matter") << "Bars" << int(ChartKind::Bars);
    QTest::newRow("pie is refused") << "pie" << -1;
    QTest::newRow("empty is refused") << "" << -1;
}

void TestUiExport::chartNames()
{
    QFETCH(QString, name);
    QFETCH(int, kind);
    const std::optional<ChartKind> k = chartKindFromName(name);
    QCOMPARE(k.has_value(), kind >= 0);
    if (k)
        QCOMPARE(static_cast<int>(*k), kind);
}

void TestUiExport::failuresNameTheFile_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("scale");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing folder") << m_dir.filePath(QStringLiteral("nope/chart.png")) << 1.0 << "does not exist";
    QTest::newRow("too large for a PNG") << m_dir.filePath(QStringLiteral("huge.png")) << 40.0 << "out of range";
    QTest::newRow("no file name") << QString() << 1.0 << "no file name";
}

void TestUiExport::failuresNameTheFile()
{
    QFETCH(QString, file);
    QFETCH(double, scale);
    QFETCH(QString, expected);
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    ExportOptions o;
    o.scale = scale;
    QString error;
    QVERIFY(!exportChartPng(s, gpuOf(s), ChartKind::Bars, file, o, &error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    if (!file.isEmpty())
        QVERIFY2(error.contains(file), qPrintable(error));
}

void TestUiExport::slideThemeIsLight()
{
    const Scenario s = preset(QStringLiteral("chapter-7b"));
    ExportOptions o;
    o.width = 800;
    o.height = 500;
    const QImage image = renderChart(s, gpuOf(s), ChartKind::Dashboard, o, ChartExtras{});
    QCOMPARE(image.pixelColor(2, 2), QColor(Qt::white));
    QCOMPARE(image.pixelColor(image.width() - 3, image.height() / 2), QColor(Qt::white));
}

QTEST_MAIN(TestUiExport)
#include "tst_ui_export.moc"
