#include "cli.h"

#include "chartexport.h"
#include "coreapi.h"
#include "cost.h"
#include "jsontext.h"
#include "peers.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>

namespace trainmem {
namespace {

void print(FILE* to, const QString& text)
{
    const QByteArray b = text.toUtf8();
    std::fwrite(b.constData(), 1, static_cast<size_t>(b.size()), to);
}

// The `peers` object (issue 10): Megatron's and DeepSpeed's own estimates beside TrainMem's, for
// the pasted launch, or else for the scenario written as Megatron flags. Training only: both peers
// estimate training memory.
void addPeers(nlohmann::json& j, const CliRequest& r, const Breakdown& b, const GpuSpec& gpu)
{
    if (r.scenario.training.mode != Mode::Training)
        return;
    const MegatronArgs m = r.megatron ? *r.megatron : megatronFromScenario(r.scenario, b.model.arch);
    nlohmann::json peers = peersToJson(comparePeers(m, r.scenario, gpu));
    peers["from"] = r.megatron ? "--megatron-args" : "the scenario, written as Megatron-LM flags";
    nlohmann::json ignored = nlohmann::json::array(), notes = peers["notes"];
    for (const QString& i : r.megatronIgnored)
        ignored.push_back(i.toStdString());
    for (const QString& n : r.megatronNotes)
        notes.push_back(n.toStdString());
    peers["ignored_flags"] = ignored;
    peers["notes"] = notes;
    j["peers"] = peers;
}

// What --deepspeed-config, --axolotl-config or --torchtune-config read and left (issue 32).
void addTrainingConfig(nlohmann::json& j, const CliRequest& r)
{
    if (!r.trainingConfig)
        return;
    nlohmann::json t{{"option", r.trainingConfig->option.toStdString()},
                     {"file", r.trainingConfig->file.toStdString()},
                     {"read", nlohmann::json::array()},
                     {"ignored", nlohmann::json::array()},
                     {"notes", nlohmann::json::array()}};
    for (const QString& i : r.trainingConfig->read)
        t["read"].push_back(i.toStdString());
    for (const QString& i : r.trainingConfig->ignored)
        t["ignored"].push_back(i.toStdString());
    for (const QString& n : r.trainingConfig->notes)
        t["notes"].push_back(n.toStdString());
    j["training_config"] = t;
}

// --measured beside the prediction of the same statistic (issue 32).
nlohmann::json measuredToJson(const MeasuredMemory& m, const MeasuredComparison& c)
{
    nlohmann::json likely = nlohmann::json::array(), readings = nlohmann::json::array();
    for (const GapTerm& t : c.likely)
        likely.push_back({{"term", segmentKindId(t.kind)}, {"bytes", t.bytes}, {"why", t.why}});
    for (const MeasuredReading& r : m.readings) {
        nlohmann::json x{{"statistic", statisticId(r.statistic)}, {"bytes", r.bytes}, {"line", r.line}};
        if (r.device >= 0)
            x["device"] = r.device;
        readings.push_back(x);
    }
    nlohmann::json j{{"statistic", statisticId(c.statistic)},
                     {"bytes", c.measured},
                     {"predicted_bytes", c.predicted},
                     {"ratio", c.ratio},
                     {"gap_bytes", c.gap},
                     {"agrees", c.agrees},
                     {"source", m.source},
                     {"likely_terms", likely},
                     {"readings", readings},
                     {"notes", m.notes},
                     {"summary", c.summary}};
    if (m.primary.device >= 0)
        j["device"] = m.primary.device;
    return j;
}

} // namespace

int runHeadless(const CliRequest& r, const PresetLibrary& library)
{
    switch (r.action) {
    case CliRequest::Action::Help:
        print(stdout, r.helpText);
        return 0;
    case CliRequest::Action::Version:
        print(stdout, QStringLiteral("%1 %2\n").arg(QCoreApplication::applicationName(),
                                                    QCoreApplication::applicationVersion()));
        return 0;
    case CliRequest::Action::ListPresets: {
        QString out;
        for (const PresetEntry& e : library.presets()) {
            const Breakdown b = account(e.scenario, library.gpuFor(e.scenario));
            out +=
                QStringLiteral("%1  %2  (%3 params%4)%5\n")
                    .arg(QString::fromStdString(e.scenario.id).leftJustified(14),
                         QString::fromStdString(e.scenario.name).leftJustified(40),
                         QString::fromStdString(formatCount(static_cast<double>(b.model.params.total))),
                         b.model.params.active != b.model.params.total
                             ? QStringLiteral(", %1 active")
                                   .arg(QString::fromStdString(formatCount(static_cast<double>(b.model.params.active))))
                             : QString(),
                         e.builtIn ? QString() : QStringLiteral("  [user: %1]").arg(e.file));
        }
        print(stdout, out);
        for (const QString& err : library.errors())
            print(stderr, QStringLiteral("trainmem: warning: %1\n").arg(err));
        return 0;
    }
    case CliRequest::Action::ListGpus: {
        QString out;
        // Columns as wide as the widest id and name (the 2026 entries' names ran past a fixed 30).
        qsizetype idWidth = 0, nameWidth = 0;
        for (const GpuSpec& g : library.gpus().gpus) {
            idWidth = std::max(idWidth, QString::fromStdString(g.id).size());
            nameWidth = std::max(nameWidth, QString::fromStdString(g.name).size());
        }
        for (const GpuSpec& g : library.gpus().gpus)
            out += QStringLiteral("%1  %2  %3  bf16 %4 TFLOP/s  fp8 %5 TFLOP/s  %6\n")
                       .arg(QString::fromStdString(g.id).leftJustified(idWidth),
                            QString::fromStdString(g.name).leftJustified(nameWidth),
                            QString::fromStdString(formatBytes(g.memoryBytes)).rightJustified(7))
                       .arg(g.bf16Tflops, 7, 'f', 1)
                       .arg(g.fp8Tflops > 0 ? QString::number(g.fp8Tflops, 'f', 1) : QStringLiteral("  —"), 7)
                       .arg(g.pricePerHour ? QStringLiteral("$%1/h").arg(*g.pricePerHour, 0, 'f', 2)
                                           : QStringLiteral("price unknown"));
        print(stdout, out);
        return 0;
    }
    case CliRequest::Action::ExportTour: {
        ExportOptions eo;
        eo.width = r.width;
        eo.height = r.height;
        eo.scale = r.scale;
        QStringList written;
        QString error;
        if (!exportTour(r.exportFile, eo, &written, &error)) {
            print(stderr, QStringLiteral("trainmem: --export-tour: %1\n").arg(error));
            return 1;
        }
        print(stdout, QStringLiteral("Wrote the tour as %1 slides (%2×%3 px) and index.md to %4\n")
                          .arg(written.size() - 1)
                          .arg(qRound(r.width * r.scale))
                          .arg(qRound(r.height * r.scale))
                          .arg(QDir(r.exportFile).absolutePath()));
        return 0;
    }
    case CliRequest::Action::Json:
    case CliRequest::Action::Text:
    case CliRequest::Action::ExportPng: {
        QString gpuError;
        const GpuSpec& gpu = library.gpuFor(r.scenario, &gpuError);
        if (!gpuError.isEmpty())
            print(stderr, QStringLiteral("trainmem: warning: %1\n").arg(gpuError));
        for (const QString& w : r.warnings)
            print(stderr, QStringLiteral("trainmem: warning: %1\n").arg(w));
        const Breakdown b = account(r.scenario, gpu);
        if (r.action == CliRequest::Action::Json) {
            const CostReceipt c = computeCost(b.model, r.scenario, gpu);
            nlohmann::json j = breakdownToJson(b, r.scenario, gpu, c);
            addPeers(j, r, b, gpu);
            addTrainingConfig(j, r);
            if (r.measured)
                j["measured"] = measuredToJson(*r.measured, compareMeasured(*r.measured, b, r.scenario));
            print(stdout, QString::fromStdString(jsonText(j, 2)) + QLatin1Char('\n'));
            return 0;
        }
        print(stdout, QString::fromStdString(breakdownToText(b, r.scenario, gpu)));
        if (r.measured)
            print(stdout, QStringLiteral("\n%1\n").arg(
                              QString::fromStdString(compareMeasured(*r.measured, b, r.scenario).summary)));
        if (r.action == CliRequest::Action::Text)
            return 0;
        ExportOptions eo;
        eo.width = r.width;
        eo.height = r.height;
        eo.scale = r.scale;
        QString error;
        if (!exportChartPng(r.scenario, gpu, *chartKindFromName(r.chart), r.exportFile, eo, &error, r.megatron,
                            r.measured)) {
            print(stderr, QStringLiteral("trainmem: --export-png: %1\n").arg(error));
            return 1;
        }
        print(stdout, QStringLiteral("Wrote the %1 chart (%2×%3 px) to %4\n")
                          .arg(r.chart)
                          .arg(qRound(r.width * r.scale))
                          .arg(qRound(r.height * r.scale))
                          .arg(QFileInfo(r.exportFile).absoluteFilePath()));
        return 0;
    }
    case CliRequest::Action::Window:
        break;
    }
    return 0;
}

} // namespace trainmem
