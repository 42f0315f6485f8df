#include "presetlibrary.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>
#include <optional>

namespace trainmem {

QString toQString(const FieldError& e)
{
    return QString::fromStdString(e.toString());
}

std::optional<FieldError> readUserFile(const QString& path, const char* what, QByteArray& bytes)
{
    if (path.isEmpty()) // QFile would print its own warning first
        return FieldError{"", "", std::string("no file name given; give ") + what + " file"};
    const QFileInfo info(path);
    if (info.exists() && !info.isFile())
        return FieldError{path.toStdString(), "",
                          info.isDir() ? std::string("is a folder; give ") + what + " file"
                                       : std::string("is not a regular file (a device, a pipe or a socket); give ") +
                                             what + " file"};
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return FieldError{path.toStdString(), "", "cannot be read: " + f.errorString().toStdString()};
    const std::string tooLarge = std::string("is larger than 16 MiB; ") + what + " is a few kilobytes";
    if (f.size() > kMaxUserFileBytes)
        return FieldError{path.toStdString(), "", tooLarge};
    bytes = f.read(kMaxUserFileBytes + 1);
    if (bytes.size() > kMaxUserFileBytes) {
        bytes.clear();
        return FieldError{path.toStdString(), "", tooLarge};
    }
    return std::nullopt;
}

QString saveFailure(const QString& path, const QString& reason)
{
    const QFileInfo info(path);
    if (!info.exists())
        return QStringLiteral("%1: cannot be written: %2").arg(path, reason);
    // QSaveFile writes a new file beside the target and renames it over: an existing file that the folder will
    // not take a new file beside (/proc/version: "No such file or directory") is named as such.
    return QStringLiteral("%1: cannot be replaced: a new file is written beside it and renamed over it, and its "
                          "folder %2 refused that (%3)")
        .arg(path, info.absolutePath(), reason);
}

QString openForSave(QSaveFile& f)
{
    if (const QString unsafe = unsafeSaveTarget(f.fileName()); !unsafe.isEmpty())
        return unsafe;
    return f.open(QIODevice::WriteOnly) ? QString() : saveFailure(f.fileName(), f.errorString());
}

QString saveUserFile(const QString& path, const QByteArray& bytes)
{
    QSaveFile f(path);
    if (const QString error = openForSave(f); !error.isEmpty())
        return error;
    if (f.write(bytes) != bytes.size() || !f.commit())
        return QStringLiteral("%1: cannot be written: %2").arg(path, f.errorString());
    return {};
}

QString unsafeSaveTarget(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists() || info.isFile())
        return {};
    return info.isDir() ? QStringLiteral("%1: is a folder").arg(path)
                        : QStringLiteral("%1: is not a regular file (a device, a pipe or a socket); TrainMem saves "
                                         "only to regular files")
                              .arg(path);
}

namespace {

std::string_view view(const QByteArray& bytes)
{
    return {bytes.constData(), static_cast<size_t>(bytes.size())};
}

} // namespace

ScenarioParse PresetLibrary::loadFile(const QString& path)
{
    QByteArray bytes;
    if (std::optional<FieldError> e = readUserFile(path, "a scenario", bytes)) {
        ScenarioParse out;
        out.errors.push_back(std::move(*e));
        return out;
    }
    return parseScenario(view(bytes), path.toStdString());
}

HfImport PresetLibrary::loadHfConfig(const QString& path, QString* label)
{
    QFileInfo info(path);
    if (info.isDir())
        info = QFileInfo(QDir(path).filePath(QStringLiteral("config.json")));
    const QString file = info.filePath();
    if (label)
        *label = info.fileName() == QLatin1String("config.json") ? info.dir().dirName() : info.completeBaseName();
    QByteArray bytes;
    if (std::optional<FieldError> e = readUserFile(file, "a config.json", bytes)) {
        HfImport out;
        out.errors.push_back(std::move(*e));
        return out;
    }
    return parseHfConfig(view(bytes), file.toStdString());
}

FieldErrors PresetLibrary::importHfConfig(const QString& path, const Scenario& base, Scenario& out)
{
    QString label;
    const HfImport imported = loadHfConfig(path, &label);
    if (!imported.ok())
        return imported.errors;
    out = scenarioWithHfModel(base, imported, label.toStdString());
    return {};
}

QString PresetLibrary::userPresetDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/presets");
}

void PresetLibrary::addFrom(const QString& dir, bool builtIn)
{
    const QDir d(dir);
    const QStringList files = d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString& name : files) {
        if (name == QLatin1String("gpus.json"))
            continue;
        const QString path = d.filePath(name);
        ScenarioParse p = loadFile(path);
        if (p.ok())
            if (std::optional<FieldError> e = unknownGpu(p.scenario, path))
                p.errors.push_back(std::move(*e));
        if (!p.ok()) {
            for (const FieldError& e : p.errors) {
                m_errors << toQString(e);
                if (!builtIn)
                    m_skipped[QFileInfo(name).completeBaseName()] << toQString(e);
            }
            continue;
        }
        if (p.scenario.id.empty())
            p.scenario.id = QFileInfo(name).completeBaseName().toStdString();
        // A user preset with a built-in's id replaces it.
        auto same = std::find_if(m_presets.begin(), m_presets.end(),
                                 [&](const PresetEntry& e) { return e.scenario.id == p.scenario.id; });
        PresetEntry entry;
        entry.scenario = std::move(p.scenario);
        entry.file = path;
        entry.builtIn = builtIn;
        if (same != m_presets.end())
            *same = std::move(entry);
        else
            m_presets.push_back(std::move(entry));
    }
}

void PresetLibrary::load(const QString& userDir)
{
    m_presets.clear();
    m_errors.clear();
    m_skipped.clear();
    QFile gpus(QStringLiteral(":/presets/gpus.json"));
    if (gpus.open(QIODevice::ReadOnly)) {
        const QByteArray bytes = gpus.readAll();
        m_gpus = parseGpuCatalog(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())),
                                 ":/presets/gpus.json");
        for (const FieldError& e : m_gpus.errors)
            m_errors << toQString(e);
    } else {
        m_errors << QStringLiteral(":/presets/gpus.json: missing from the resources");
    }
    addFrom(QStringLiteral(":/presets"), true);
    if (!userDir.isEmpty() && QDir(userDir).exists())
        addFrom(userDir, false);
}

bool PresetLibrary::isUnedited(const Scenario& s) const
{
    const PresetEntry* e = s.id.empty() ? nullptr : find(QString::fromStdString(s.id));
    return e && e->scenario == s;
}

const PresetEntry* PresetLibrary::find(const QString& id) const
{
    const std::string key = id.toStdString();
    for (const PresetEntry& e : m_presets)
        if (e.scenario.id == key)
            return &e;
    return nullptr;
}

const GpuSpec& PresetLibrary::gpuFor(const Scenario& s, QString* error) const
{
    if (const GpuSpec* g = m_gpus.find(s.hardware.gpu))
        return *g;
    const GpuSpec& fallback = m_gpus.gpus.empty() ? m_fallbackGpu : m_gpus.gpus.front();
    if (error)
        *error = QStringLiteral("/hardware/gpu: unknown GPU \"%1\"; using %2")
                     .arg(QString::fromStdString(s.hardware.gpu), QString::fromStdString(fallback.id));
    return fallback;
}

std::optional<FieldError> PresetLibrary::unknownGpu(const Scenario& s, const QString& file) const
{
    if (m_gpus.gpus.empty() || m_gpus.find(s.hardware.gpu))
        return std::nullopt;
    return FieldError{file.toStdString(), "/hardware/gpu", unknownGpuMessage(s.hardware.gpu)};
}

std::string PresetLibrary::unknownGpuMessage(const std::string& id) const
{
    std::string known;
    for (const GpuSpec& g : m_gpus.gpus)
        known += (known.empty() ? "" : ", ") + g.id;
    return "unknown GPU \"" + id + "\" (known: " + known + ")";
}

const PresetLibrary& PresetLibrary::instance()
{
    static const PresetLibrary lib = [] {
        PresetLibrary l;
        l.load();
        return l;
    }();
    return lib;
}

} // namespace trainmem
