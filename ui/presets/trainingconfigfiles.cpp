#include "trainingconfigfiles.h"

#include "params.h"
#include "presetlibrary.h"
#include "scenarioio.h"

#include <QDir>
#include <QFileInfo>

namespace trainmem {
namespace {

QString joinErrors(const QString& prefix, const FieldErrors& errors)
{
    QStringList lines;
    for (size_t i = 0; i < errors.size() && i < kMaxListedErrors; ++i)
        lines << prefix + QString::fromStdString(errors[i].toString());
    if (errors.size() > kMaxListedErrors)
        lines << prefix + QString::fromStdString(moreErrors("", errors.size() - kMaxListedErrors).toString());
    return lines.join(QLatin1Char('\n'));
}

// "--axolotl-config: " on the command line, nothing in the window (its messages name the file).
QString prefixFor(const TrainingConfigFlags& flags, const QString& option)
{
    return flags.optionNames ? option + QStringLiteral(": ") : QString();
}

// One file read through the bounded reader and parsed; errors are named by `prefix` and the file.
std::optional<TrainingConfig> readOne(const QString& prefix, const QString& path,
                                      TrainingConfig (*parse)(std::string_view, const std::string&), QString& error)
{
    QByteArray bytes;
    if (const std::optional<FieldError> e = readUserFile(path, "a training config", bytes)) {
        error = joinErrors(prefix, {*e});
        return std::nullopt;
    }
    TrainingConfig c =
        parse(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), path.toStdString());
    if (!c.ok()) {
        error = joinErrors(prefix, c.errors);
        return std::nullopt;
    }
    return c;
}

// base_model as a folder (or a config.json) on disk: as written when absolute, else beside the YAML, else from
// the current folder (where transformers' from_pretrained looks). Empty when it is not on disk (a Hub id).
QString localModel(const QString& baseModel, const QString& yaml)
{
    const QStringList candidates =
        QFileInfo(baseModel).isAbsolute()
            ? QStringList{baseModel}
            : QStringList{QFileInfo(yaml).dir().filePath(baseModel), QDir::current().filePath(baseModel)};
    for (const QString& c : candidates) {
        const QFileInfo info(c);
        if ((info.isDir() && QFileInfo(QDir(c).filePath(QStringLiteral("config.json"))).exists()) ||
            (info.isFile() && info.fileName().endsWith(QLatin1String(".json"))))
            return c;
    }
    return {};
}

// The axolotl YAML's model: a Hugging Face config wins; then a local base_model; then the starting model.
bool axolotlModel(const TrainingConfigFlags& flags, TrainingConfig& c, Scenario& scenario, QString& error)
{
    const QString prefix = prefixFor(flags, QStringLiteral("--axolotl-config"));
    const QString base = QString::fromStdString(c.baseModel);
    if (flags.hfConfig) {
        if (!base.isEmpty())
            c.notes.push_back("base_model " + c.baseModel + ": the model of --hf-config is used");
        return true;
    }
    const QString local = base.isEmpty() ? QString() : localModel(base, flags.axolotl);
    if (!local.isEmpty()) {
        Scenario imported;
        const FieldErrors errors = PresetLibrary::importHfConfig(local, scenario, imported);
        if (!errors.empty()) {
            error = joinErrors(prefix, errors);
            return false;
        }
        scenario = imported;
        return true;
    }
    if (!flags.startingModel.isEmpty()) {
        if (!base.isEmpty())
            c.notes.push_back("base_model " + c.baseModel + " is not on this machine: the model of " +
                              flags.startingModel.toStdString() + " is used");
        return true;
    }
    const QString where = prefix + flags.axolotl + QStringLiteral(": /base_model: ");
    error = base.isEmpty()
                ? where + QStringLiteral("is required, or pass --hf-config with the model's config.json or --preset")
                : where + QStringLiteral("\"%1\" is a Hugging Face Hub id, and TrainMem reads no network: pass "
                                         "--hf-config with the model's config.json (or its downloaded folder), or "
                                         "--preset with the same model")
                              .arg(base);
    return false;
}

} // namespace

std::optional<TrainingConfigRead> readTrainingConfigFiles(const TrainingConfigFlags& flags, const Scenario& base,
                                                          QString& error)
{
    if (!flags.axolotl.isEmpty() && !flags.torchtune.isEmpty()) {
        error = QStringLiteral("--axolotl-config and --torchtune-config: give one or the other");
        return std::nullopt;
    }
    TrainingConfigRead out;
    out.scenario = base;
    std::optional<TrainingConfig> ds;
    const QString dsOption = QStringLiteral("--deepspeed-config");
    if (!flags.deepspeed.isEmpty() &&
        !(ds = readOne(prefixFor(flags, dsOption), flags.deepspeed, parseDeepSpeedConfig, error)))
        return std::nullopt;
    std::optional<TrainingConfig> c;
    out.option = dsOption;
    if (!flags.torchtune.isEmpty()) {
        out.option = QStringLiteral("--torchtune-config");
        if (!(c = readOne(prefixFor(flags, out.option), flags.torchtune, parseTorchtuneConfig, error)))
            return std::nullopt;
        if (flags.hfConfig && c->architecture)
            c->notes.push_back("the model of --hf-config is used, not " + c->modelName + "'s");
    } else if (!flags.axolotl.isEmpty()) {
        out.option = QStringLiteral("--axolotl-config");
        const QString prefix = prefixFor(flags, out.option);
        if (!(c = readOne(prefix, flags.axolotl, parseAxolotlConfig, error)))
            return std::nullopt;
        if (!c->deepspeedPath.empty() && ds) {
            c->notes.push_back("deepspeed: " + c->deepspeedPath + " is not read: --deepspeed-config is used");
        } else if (!c->deepspeedPath.empty()) {
            const QString yamlDir = QFileInfo(flags.axolotl).dir().path();
            const QString dsPath = QFileInfo(QString::fromStdString(c->deepspeedPath)).isAbsolute()
                                       ? QString::fromStdString(c->deepspeedPath)
                                       : QDir(yamlDir).filePath(QString::fromStdString(c->deepspeedPath));
            QString dsError;
            const std::optional<TrainingConfig> named = readOne(
                prefix + flags.axolotl + QStringLiteral(": /deepspeed: "), dsPath, parseDeepSpeedConfig, dsError);
            if (!named) {
                error = dsError;
                return std::nullopt;
            }
            mergeDeepSpeed(*c, *named);
        }
        if (!axolotlModel(flags, *c, out.scenario, error))
            return std::nullopt;
    }
    if (c && ds)
        mergeDeepSpeed(*c, *ds);
    else if (ds)
        c = ds;
    // The file's settings, on the scenario (and the model) read so far; the overrides come after.
    out.scenario = applyTrainingConfig(out.scenario, *c, flags.hfConfig);
    out.config = std::move(*c);
    return out;
}

bool finishTrainingConfig(const TrainingConfig& c, const OverrideFlags& given, Scenario& s, QStringList& notes,
                          QString& error)
{
    const QString where = QString::fromStdString(c.format) + QStringLiteral(": ") + QString::fromStdString(c.file);
    if (c.globalBatch && !given.gradAccum) {
        // DeepSpeed's rule (deepspeed/runtime/config.py, _set_batch_related_parameters): train_batch_size =
        // train_micro_batch_size_per_gpu · gradient_accumulation_steps · data-parallel world size; of the three
        // the file leaves out, DeepSpeed works out one (the accumulation defaulting to 1 when two are missing).
        const int64_t tb = *c.globalBatch;
        const int64_t layout = s.hardware.tp * s.hardware.pp * s.hardware.cp;
        const int64_t dp = s.hardware.gpus % layout == 0 ? s.hardware.gpus / layout : 1;
        const bool microKnown = c.microBatch || given.batch, accumKnown = c.gradAccum.has_value();
        auto refuse = [&](const QString& what) {
            error = where + QStringLiteral(": /train_batch_size: %1, got %2").arg(what).arg(tb);
            return false;
        };
        if (microKnown && accumKnown) {
            const int64_t perDp = s.training.microBatch * s.training.gradAccum;
            const int64_t worlds = tb % perDp == 0 ? tb / perDp : 0;
            if (given.gpus && worlds != dp)
                notes << QStringLiteral("train_batch_size %1 is not micro-batch × accumulation × the %2 "
                                        "data-parallel GPUs of --gpus; --gpus is used")
                             .arg(tb)
                             .arg(dp);
            else if (!given.gpus && (worlds < 1 || worlds > kMaxGpus / layout))
                return refuse(QStringLiteral("must be micro-batch (%1) × accumulation (%2) × the data-parallel GPUs")
                                  .arg(s.training.microBatch)
                                  .arg(s.training.gradAccum));
            else if (!given.gpus) {
                s = withGpuCount(std::move(s), worlds * layout);
                notes << QStringLiteral("train_batch_size %1 = %2 × %3 × %4 data-parallel GPUs")
                             .arg(tb)
                             .arg(s.training.microBatch)
                             .arg(s.training.gradAccum)
                             .arg(worlds);
            }
        } else if (microKnown) {
            std::string why;
            const std::optional<int64_t> m = gradAccumForGlobalBatch(s, tb, &why);
            if (!m)
                return refuse(QString::fromStdString(why));
            s.training.gradAccum = *m;
        } else {
            const int64_t accum = accumKnown ? s.training.gradAccum : 1;
            if (tb % (accum * dp) != 0 || tb / (accum * dp) > kMaxMicroBatch)
                return refuse(QStringLiteral("must be accumulation (%1) × %2 data-parallel GPUs × a micro-batch of at "
                                             "most %3")
                                  .arg(accum)
                                  .arg(dp)
                                  .arg(kMaxMicroBatch));
            s.training.microBatch = tb / (accum * dp);
            s.training.gradAccum = accum;
        }
    }
    if (s.model.hasArchitecture) {
        const std::string loraNote = loraTargetsNote(resolveModel(s.model).arch, c, s.training);
        if (!loraNote.empty())
            notes << QString::fromStdString(loraNote);
    }
    return true;
}

std::optional<TrainingConfigKind> detectTrainingConfig(const QString& path)
{
    QByteArray bytes;
    if (readUserFile(path, "a training config", bytes))
        return std::nullopt;
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool yaml = suffix == QLatin1String("yaml") || suffix == QLatin1String("yml");
    if (yaml)
        return bytes.contains("_component_") ? TrainingConfigKind::Torchtune : TrainingConfigKind::Axolotl;
    if (suffix != QLatin1String("json"))
        return std::nullopt;
    // A Hugging Face config or a scenario is not a DeepSpeed config, whatever else it holds.
    for (const char* other : {"\"architectures\"", "\"model_type\"", "\"hardware\"", "\"training\""})
        if (bytes.contains(other))
            return std::nullopt;
    for (const char* key :
         {"\"zero_optimization\"", "\"train_micro_batch_size_per_gpu\"", "\"train_batch_size\"",
          "\"gradient_accumulation_steps\"", "\"zero_allow_untested_optimizer\"", "\"gradient_clipping\""})
        if (bytes.contains(key))
            return TrainingConfigKind::DeepSpeed;
    return std::nullopt;
}

bool looksLikeHfConfig(const QString& path)
{
    if (QFileInfo(path).suffix().toLower() != QLatin1String("json"))
        return false;
    QByteArray bytes;
    if (readUserFile(path, "a Hugging Face config", bytes))
        return false;
    return looksLikeHfConfigText(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
}

} // namespace trainmem
