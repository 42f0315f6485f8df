#include "units.h"

#include <QtTest>

using namespace trainmem;

class TestUnits : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parseCount_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("value");
        QTest::newRow("7e9 is seven billion") << "7e9" << true << qint64(7'000'000'000);
        QTest::newRow("7B is seven billion") << "7B" << true << qint64(7'000'000'000);
        QTest::newRow("70b lower case") << "70b" << true << qint64(70'000'000'000);
        QTest::newRow("2.4T is 2.4 trillion") << "2.4T" << true << qint64(2'400'000'000'000);
        QTest::newRow("671B") << "671B" << true << qint64(671'000'000'000);
        QTest::newRow("350M") << "350M" << true << qint64(350'000'000);
        QTest::newRow("plain integer") << "124439808" << true << qint64(124439808);
        QTest::newRow("underscores") << "7_000_000" << true << qint64(7'000'000);
        QTest::newRow("negative rejected") << "-4" << false << qint64(0);
        QTest::newRow("fraction rejected") << "1.5" << false << qint64(0);
        QTest::newRow("words rejected") << "seven" << false << qint64(0);
        QTest::newRow("unknown suffix rejected") << "7X" << false << qint64(0);
        QTest::newRow("empty rejected") << "" << false << qint64(0);
        QTest::newRow("inf rejected") << "inf" << false << qint64(0);
        QTest::newRow("nan rejected") << "nan" << false << qint64(0);
        QTest::newRow("overflow rejected") << "1e30" << false << qint64(0);
        // Issue 33 §4: no silent reinterpretation.
        QTest::newRow("commas group digits") << "8,192" << true << qint64(8192);
        QTest::newRow("spaces around are dropped") << " 8 " << true << qint64(8);
        QTest::newRow("a space inside is not 88") << "8 8" << false << qint64(0);
        QTest::newRow("hexadecimal is not 16") << "0x10" << false << qint64(0);
        QTest::newRow("hexadecimal float rejected") << "0x1p4" << false << qint64(0);
        QTest::newRow("1e-9 is not 0") << "1e-9" << false << qint64(0);
        QTest::newRow("zero is zero") << "0" << true << qint64(0);
    }
    void parseCount()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, value);
        const auto got = trainmem::parseCount(text.toStdString());
        QCOMPARE(got.has_value(), valid);
        if (valid)
            QCOMPARE(*got, value);
    }

    void parseContext_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("value");
        QTest::newRow("8k is 8192") << "8k" << qint64(8192);
        QTest::newRow("128k is 131072") << "128k" << qint64(131072);
        QTest::newRow("1M is 1048576") << "1M" << qint64(1048576);
        QTest::newRow("plain 4096") << "4096" << qint64(4096);
    }
    void parseContext()
    {
        QFETCH(QString, text);
        QFETCH(qint64, value);
        QCOMPARE(*trainmem::parseContext(text.toStdString()), value);
    }

    void formatBytes_data()
    {
        QTest::addColumn<double>("bytes");
        QTest::addColumn<bool>("binary");
        QTest::addColumn<QString>("text");
        QTest::newRow("7B x 16 B = 112 GB") << 112e9 << false << "112 GB";
        QTest::newRow("70B x 16 B = 1.12 TB") << 1.12e12 << false << "1.12 TB";
        QTest::newRow("2.4T x 16 B = 38.4 TB") << 38.4e12 << false << "38.4 TB";
        QTest::newRow("14 GB of bf16 weights") << 14e9 << false << "14.0 GB";
        QTest::newRow("80 GiB") << 85899345920.0 << true << "80.0 GiB";
        QTest::newRow("small bytes") << 512.0 << false << "512 B";
    }
    void formatBytes()
    {
        QFETCH(double, bytes);
        QFETCH(bool, binary);
        QFETCH(QString, text);
        QCOMPARE(
            QString::fromStdString(trainmem::formatBytes(bytes, binary ? UnitSystem::Binary : UnitSystem::Decimal)),
            text);
    }

    void formatCountAndContext()
    {
        QCOMPARE(QString::fromStdString(formatCount(7e9)), QStringLiteral("7B"));
        QCOMPARE(QString::fromStdString(formatCount(2.4e12)), QStringLiteral("2.4T"));
        QCOMPARE(QString::fromStdString(formatCount(671e9)), QStringLiteral("671B"));
        QCOMPARE(QString::fromStdString(formatContext(131072)), QStringLiteral("128k"));
        QCOMPARE(QString::fromStdString(formatContext(1048576)), QStringLiteral("1M"));
        QCOMPARE(QString::fromStdString(formatContext(512)), QStringLiteral("512"));
    }
};

QTEST_GUILESS_MAIN(TestUnits)
#include "tst_units.moc"
