#include "clitrainconfig.h"

namespace trainmem {
namespace {

// A note on stderr and in --json's training_config.
void note(CliRequest& r, const QString& text)
{
    r.trainingConfig->notes << text;
    r.warnings << r.trainingConfig->option + QStringLiteral(": ") + text;
}

void report(const QString& option, const TrainingConfig& c, CliRequest& r)
{
    CliRequest::TrainingConfigReport& t = r.trainingConfig.emplace();
    t.option = option;
    t.file = QString::fromStdString(c.file);
    for (const std::string& k : describeTrainingConfig(c))
        t.read << QString::fromStdString(k);
    for (const std::string& k : c.ignored)
        t.ignored << QString::fromStdString(k);
    if (!t.ignored.isEmpty())
        r.warnings << QStringLiteral("%1: ignored (not read by TrainMem): %2")
                          .arg(option, t.ignored.join(QStringLiteral(", ")));
    for (const std::string& n : c.notes)
        note(r, QString::fromStdString(n));
}

} // namespace

std::optional<TrainingConfig> readTrainingConfigs(const TrainingConfigFlags& flags, CliRequest& r, QString& error)
{
    std::optional<TrainingConfigRead> read = readTrainingConfigFiles(flags, r.scenario, error);
    if (!read)
        return std::nullopt;
    r.scenario = std::move(read->scenario);
    r.scenarioGiven = true;
    report(read->option, read->config, r);
    return std::move(read->config);
}

bool finishTrainingConfig(const TrainingConfig& c, const OverrideFlags& given, CliRequest& r, QString& error)
{
    QStringList notes;
    if (!finishTrainingConfig(c, given, r.scenario, notes, error))
        return false;
    for (const QString& n : notes)
        note(r, n);
    return true;
}

} // namespace trainmem
