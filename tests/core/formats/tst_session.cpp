// Session files (issue 31 §3): the scenario with its pinned bars' scenarios, the open docks and the layout; a
// session round-trips field for field, is told from a scenario file by its schema, and every bad field is named
// with its JSON pointer (inside a pin too) while the rest is still read.
#include "scenarioio.h"
#include "session.h"
#include "testdata.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace trainmem;

class TestSession : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrips()
    {
        Session s;
        s.scenario = testdata::preset("chapter-70b");
        s.pins = {testdata::preset("chapter-7b"), testdata::preset("deepseek-v3")};
        s.pins[0].training.seqLen = 32768; // an edited pin stays edited
        s.docks = {"tourDock", "fitMapDock"};
        s.windowState = "AAAA/wAAAAD9AAAAAg==";
        const std::string text = sessionToText(s);
        QVERIFY(looksLikeSession(text));
        QVERIFY(!looksLikeSession(scenarioToText(s.scenario))); // a scenario file is not a session
        const SessionParse back = parseSession(text, "lecture.session.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().toString().c_str());
        QCOMPARE(scenarioToText(back.session.scenario), scenarioToText(s.scenario));
        QCOMPARE(back.session.pins.size(), size_t{2});
        QCOMPARE(back.session.pins[0].training.seqLen, int64_t{32768});
        QCOMPARE(scenarioToText(back.session.pins[1]), scenarioToText(s.pins[1]));
        QCOMPARE(back.session.docks, s.docks);
        QCOMPARE(back.session.windowState, s.windowState);
    }

    void badFieldsAreNamed()
    {
        Session s;
        s.scenario = testdata::preset("chapter-7b");
        s.pins = {testdata::preset("chapter-7b"), testdata::preset("chapter-7b")};
        std::string text = sessionToText(s);
        // The second pin's context made negative, the docks made a number.
        nlohmann::json doc = nlohmann::json::parse(text);
        doc["pins"][1]["training"]["seq_len"] = -4;
        doc["docks"] = 3;
        doc["extra"] = true;
        const SessionParse p = parseSession(doc.dump(), "lecture.session.json");
        QVERIFY(!p.ok());
        QStringList paths;
        for (const FieldError& e : p.errors) {
            QCOMPARE(e.file, std::string("lecture.session.json"));
            paths << QString::fromStdString(e.path);
        }
        QVERIFY2(paths.contains(QStringLiteral("/pins/1/training/seq_len")), qPrintable(paths.join(", ")));
        QVERIFY(paths.contains(QStringLiteral("/docks")));
        QVERIFY(paths.contains(QStringLiteral("/extra")));
        QCOMPARE(p.session.pins.size(), size_t{2}); // the rest is read

        for (const char* bad :
             {"", "[1,2]", "{\"schema\": \"trainmem/scenario@1\"}", "{\"schema\": \"trainmem/session@1\"}",
              "{\"schema\": \"trainmem/session@1\", \"scenario\": {}, \"pins\": {}}"}) {
            const SessionParse q = parseSession(bad, "x.json");
            QVERIFY2(!q.ok(), bad);
            QVERIFY(!q.errors.front().message.empty());
        }
    }
};

QTEST_APPLESS_MAIN(TestSession)
#include "tst_session.moc"
