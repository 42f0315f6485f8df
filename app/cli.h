#pragma once
// The command line (README, "Command line"): one parser for the window and the headless modes.

#include "measured.h"
#include "megatronargs.h"
#include "presetlibrary.h"
#include "scenario.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace trainmem {

struct CliRequest {
    enum class Action { Window, Json, Text, ExportPng, ExportTour, ListPresets, ListGpus, Help, Version };
    Action action = Action::Window;
    Scenario scenario;
    bool scenarioGiven = false; ///< --preset, --scenario or an override was given
    QString exportFile;         ///< --export-png's file, or --export-tour's folder
    QString chart = QStringLiteral("dashboard");
    int width = 1600;
    int height = 1000;
    double scale = 1.0;
    QString helpText;
    QStringList warnings;                 ///< printed to stderr, not fatal
    std::optional<MegatronArgs> megatron; ///< --megatron-args, read (the scenario is made from it)
    QStringList megatronIgnored;          ///< flags of --megatron-args TrainMem does not read
    QStringList megatronNotes;            ///< assumptions made reading them
    /// What --deepspeed-config, --axolotl-config or --torchtune-config read (issue 32); --json carries it as
    /// training_config.
    struct TrainingConfigReport {
        QString option;      ///< "--torchtune-config" (the YAML's when a DeepSpeed file comes with it)
        QString file;        ///< as given
        QStringList read;    ///< the settings the files set (describeTrainingConfig)
        QStringList ignored; ///< keys not read
        QStringList notes;   ///< read but not modelled, and the assumptions made
    };
    std::optional<TrainingConfigReport> trainingConfig;
    std::optional<MeasuredMemory> measured; ///< --measured: what the GPU showed, beside the prediction (issue 32)
};

struct CliOutcome {
    bool ok = true;
    CliRequest request;
    QString error; ///< "--seq: must be a positive integer, got -4"
};

/// Parses arguments (argv[0] first). Overrides apply on top of the preset or scenario file.
CliOutcome parseCommandLine(const QStringList& arguments, const PresetLibrary& library);

/// Runs a headless action, writing to stdout/stderr. Returns the process exit code.
int runHeadless(const CliRequest& request, const PresetLibrary& library);

} // namespace trainmem
