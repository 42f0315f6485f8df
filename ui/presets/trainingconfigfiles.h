#pragma once
// The training config files (issue 32) as the command line and the window open them: the core reads the text
// (trainconfig.h); this part reads the files (readUserFile), finds what they point to (an axolotl base_model folder,
// its deepspeed: file), and works out DeepSpeed's train_batch_size on the scenario. Qt Core only.

#include "trainconfig.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace trainmem {

/// The files given, and who gives the model when the files do not.
struct TrainingConfigFlags {
    QString deepspeed;     ///< a DeepSpeed JSON, empty when not given
    QString axolotl;       ///< an axolotl YAML
    QString torchtune;     ///< a torchtune recipe YAML
    bool hfConfig = false; ///< a Hugging Face config.json gave the model: it wins over the file's
    /// What the model falls back to when an axolotl base_model is not on this machine ("--preset llama3-8b",
    /// "the current scenario"); empty: such a file is refused, naming the Hub id and what to pass.
    QString startingModel;
    /// How errors and notes name the file's format: the command line's option ("--axolotl-config"), or, when false,
    /// nothing (the window names the file).
    bool optionNames = true;
    bool any() const { return !deepspeed.isEmpty() || !axolotl.isEmpty() || !torchtune.isEmpty(); }
};

/// What the files did to a scenario.
struct TrainingConfigRead {
    TrainingConfig config; ///< the files merged
    QString option;    ///< the main file's format: "--torchtune-config" (the YAML's when a DeepSpeed file comes too)
    Scenario scenario; ///< the starting scenario with the file's model (when it gives one) and settings
};

/// \brief Reads the files and applies them to `base` (before any override, which wins over them). Returns nullopt
/// with `error` set (every line naming the file and the key).
std::optional<TrainingConfigRead> readTrainingConfigFiles(const TrainingConfigFlags& flags, const Scenario& base,
                                                          QString& error);

/// The overrides that decide how DeepSpeed's train_batch_size is used.
struct OverrideFlags {
    bool gradAccum = false; ///< --grad-accum or --global-batch: train_batch_size is not used
    bool gpus = false;      ///< --gpus
    bool batch = false;     ///< --batch
};

/// \brief What depends on the overrides: DeepSpeed's train_batch_size (micro-batch · accumulation · data-parallel
/// GPUs, the one the file leaves out worked out as DeepSpeed does) and the note on LoRA targets TrainMem does not
/// express; notes are appended to `notes`. Returns false with `error` set.
bool finishTrainingConfig(const TrainingConfig& c, const OverrideFlags& given, Scenario& s, QStringList& notes,
                          QString& error);

/// The formats of training config a file can be.
enum class TrainingConfigKind { DeepSpeed, Axolotl, Torchtune };

/// \brief Which training config `path` holds, from its text: a torchtune recipe names torchtune components, a
/// DeepSpeed JSON has DeepSpeed's keys (zero_optimization, train_micro_batch_size_per_gpu, …), any other YAML is read
/// as axolotl's. nullopt for a JSON that is no DeepSpeed config (a scenario, a config.json) or a file not read.
std::optional<TrainingConfigKind> detectTrainingConfig(const QString& path);

/// \brief Whether `path` is a Hugging Face config.json under another name (a downloaded "llama-3-8b-config.json"): a
/// .json whose text names a "model_type" and is no TrainMem scenario (no "schema"). False for a file not read.
bool looksLikeHfConfig(const QString& path);

} // namespace trainmem
