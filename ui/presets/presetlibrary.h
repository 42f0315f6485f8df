#pragma once
// Built-in presets (Qt resources under :/presets), user presets (AppDataLocation/presets) and the
// GPU catalog. Parsing is the core's; this class only finds and reads the files.

#include "gpu.h"
#include "hfconfig.h"
#include "scenarioio.h"

#include <QHash>
#include <QSaveFile>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace trainmem {

struct PresetEntry {
    Scenario scenario;
    QString file; ///< ":/presets/llama3-70b.json" or a path on disk
    bool builtIn = true;
};

class PresetLibrary
{
public:
    /// The preset the app starts on when there is no remembered state.
    static constexpr const char* kDefaultPresetId = "chapter-7b";

    /// Reads built-in presets, the GPU catalog and (if `userDir` is not empty) user presets.
    /// Bad files are skipped and reported in errors(); the rest load.
    void load(const QString& userDir = userPresetDir());

    const std::vector<PresetEntry>& presets() const { return m_presets; }
    const PresetEntry* find(const QString& id) const;
    /// True when `s` is its preset exactly (same id, nothing edited); false for a custom scenario.
    bool isUnedited(const Scenario& s) const;
    const GpuCatalog& gpus() const { return m_gpus; }
    /// The GPU a scenario names, or the first in the catalog (with a message in `error`).
    const GpuSpec& gpuFor(const Scenario& s, QString* error = nullptr) const;
    /// One message per bad file or field ("file: /path: message").
    const QStringList& errors() const { return m_errors; }
    /// The messages of the user preset files named `id`.json that were skipped as bad: a built-in of that id is
    /// used instead, and the command line says so (issue 33 §7).
    QStringList skippedUserPreset(const QString& id) const { return m_skipped.value(id); }
    /// The error for a scenario whose GPU the catalog does not hold, naming the ones it does; nothing when it holds
    /// it. A scenario file or user preset with an unknown GPU is refused as --gpu refuses one (issue 33 §7).
    std::optional<FieldError> unknownGpu(const Scenario& s, const QString& file) const;
    /// "unknown GPU \"h999\" (known: H100, …)": what --gpu and a scenario file say of an id the catalog lacks.
    std::string unknownGpuMessage(const std::string& id) const;

    /// Reads and parses one scenario file; I/O failures come back as errors naming the file.
    static ScenarioParse loadFile(const QString& path);
    /// Reads a Hugging Face config.json, or the config.json inside a folder. `label` receives the
    /// model's name as the files suggest it (the folder's name, or the file's when not config.json).
    static HfImport loadHfConfig(const QString& path, QString* label = nullptr);
    /// `base` with the model of the Hugging Face config at `path` (scenarioWithHfModel); errors name the file.
    static FieldErrors importHfConfig(const QString& path, const Scenario& base, Scenario& out);
    /// AppDataLocation + "/presets".
    static QString userPresetDir();

    /// The library every part of the app shares, loaded on first use.
    static const PresetLibrary& instance();

private:
    void addFrom(const QString& dir, bool builtIn);

    std::vector<PresetEntry> m_presets;
    GpuCatalog m_gpus;
    GpuSpec m_fallbackGpu;
    QStringList m_errors;
    QHash<QString, QStringList> m_skipped; ///< by the file's base name
};

QString toQString(const FieldError& e);

/// The most a user's file (a scenario, a config.json, a Megatron-LM launch) may hold; real ones are kilobytes.
inline constexpr qint64 kMaxUserFileBytes = 16 * 1024 * 1024;

/// \brief A user's file read whole, or the error that says why not. Only a regular file (or a link to one) is
/// opened: a pipe would wait for a writer forever and a device never ends. At most kMaxUserFileBytes are read,
/// whatever the file's size says (a device or a /proc file says 0). `what` names such a file ("a scenario").
std::optional<FieldError> readUserFile(const QString& path, const char* what, QByteArray& bytes);

/// \brief Why `path` must not be saved over, or an empty string. An atomic save (QSaveFile) renames a new file
/// over the target, so a device, a pipe or a socket there would be replaced by a regular file: it is refused.
QString unsafeSaveTarget(const QString& path);

/// \brief Why an atomic save to `path` failed, from QSaveFile's `reason`, in words that fit an existing target.
QString saveFailure(const QString& path, const QString& reason);

/// \brief Opens `f` for an atomic save of a user's file: refuses a target that is not a regular file
/// (unsafeSaveTarget) and words a failure with saveFailure. Returns the error, or an empty string.
QString openForSave(QSaveFile& f);
/// \brief `bytes` saved atomically to `path` through openForSave; the error, or an empty string.
QString saveUserFile(const QString& path, const QByteArray& bytes);

} // namespace trainmem
