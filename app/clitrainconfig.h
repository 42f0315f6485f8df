#pragma once
// The command line's training configs (issue 32): --deepspeed-config, --axolotl-config, --torchtune-config.
// The files are read as the window reads them (ui/presets/trainingconfigfiles.h); this part puts what was ignored
// and what is not modelled on stderr and in --json's training_config.

#include "cli.h"
#include "trainingconfigfiles.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <QString>

#include <optional>

namespace trainmem {

/// The three options, for the command line's parser.
struct TrainingConfigOptions {
    QCommandLineOption deepspeed{
        QStringLiteral("deepspeed-config"),
        QStringLiteral("A DeepSpeed config JSON: ZeRO stage, offload, bf16/fp16, optimizer, micro-batch, accumulation "
                       "and train batch (\"auto\" leaves the setting as it is). The other options win over it."),
        QStringLiteral("file")};
    QCommandLineOption axolotl{
        QStringLiteral("axolotl-config"),
        QStringLiteral("An axolotl config YAML: the base model (a local folder; a Hub id needs --hf-config or "
                       "--preset), adapter, LoRA, sequence, batch, checkpointing, precision, optimizer, FSDP and its "
                       "deepspeed: file. The other options win over it."),
        QStringLiteral("file")};
    QCommandLineOption torchtune{
        QStringLiteral("torchtune-config"),
        QStringLiteral("A torchtune recipe config YAML: the model builder, LoRA, batch, dtype, checkpointing, "
                       "optimizer and sequence length. The other options win over it."),
        QStringLiteral("file")};

    QList<QCommandLineOption> all() const { return {deepspeed, axolotl, torchtune}; }
    /// The files given; `hfConfig` and `startingModel` as in TrainingConfigFlags.
    TrainingConfigFlags given(const QCommandLineParser& p, bool hfConfig, const QString& startingModel) const
    {
        return {p.value(deepspeed), p.value(axolotl), p.value(torchtune), hfConfig, startingModel, true};
    }
};

/// \brief Reads the files and applies them to `r.scenario` (before the overrides, which win over them); the ignored
/// keys and the notes go to `r.warnings`. Returns the merged config, or nullopt with `error` set.
std::optional<TrainingConfig> readTrainingConfigs(const TrainingConfigFlags& flags, CliRequest& r, QString& error);

/// \brief What depends on the overrides: DeepSpeed's train_batch_size (micro-batch · accumulation · data-parallel
/// GPUs, the one the file leaves out worked out as DeepSpeed does) and the note on LoRA targets TrainMem does not
/// express. Returns false with `error` set.
bool finishTrainingConfig(const TrainingConfig& c, const OverrideFlags& given, CliRequest& r, QString& error);

} // namespace trainmem
