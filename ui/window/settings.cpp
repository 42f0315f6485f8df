#include "settings.h"

#include "scenarioio.h"

#include <QDir>

namespace trainmem {
namespace {

// The keys, all of them, once.
enum class Key {
    LastScenario,
    Geometry,
    WindowState,
    WindowStateVersion,
    SplitterState,
    Units,
    AxisScale,
    LastDirectory,
    ExportWidth,
    ExportHeight,
    ExportScale,
    ExportChart,
    Theme
};

QString key(Key k)
{
    switch (k) {
    case Key::LastScenario:
        return QStringLiteral("scenario/last");
    case Key::Geometry:
        return QStringLiteral("window/geometry");
    case Key::WindowState:
        return QStringLiteral("window/state");
    case Key::WindowStateVersion:
        return QStringLiteral("window/stateVersion");
    case Key::SplitterState:
        return QStringLiteral("window/splitter");
    case Key::Units:
        return QStringLiteral("view/units");
    case Key::AxisScale:
        return QStringLiteral("view/memoryAxis");
    case Key::Theme:
        return QStringLiteral("view/theme");
    case Key::LastDirectory:
        return QStringLiteral("files/lastDirectory");
    case Key::ExportWidth:
        return QStringLiteral("export/width");
    case Key::ExportHeight:
        return QStringLiteral("export/height");
    case Key::ExportScale:
        return QStringLiteral("export/scale");
    case Key::ExportChart:
        return QStringLiteral("export/chart");
    }
    return {};
}

} // namespace

Settings::Settings() : m_s(std::make_unique<QSettings>()) {}

Settings::Settings(const QString& iniFile) : m_s(std::make_unique<QSettings>(iniFile, QSettings::IniFormat)) {}

std::optional<Scenario> Settings::lastScenario() const
{
    const QByteArray text = m_s->value(key(Key::LastScenario)).toByteArray();
    if (text.isEmpty())
        return std::nullopt;
    const ScenarioParse p =
        parseScenario(std::string_view(text.constData(), static_cast<size_t>(text.size())), "<settings>");
    if (!p.ok())
        return std::nullopt; // a stale or hand-edited value: start from the default preset
    return p.scenario;
}

void Settings::setLastScenario(const Scenario& s)
{
    m_s->setValue(key(Key::LastScenario), QByteArray::fromStdString(scenarioToText(s)));
}

QByteArray Settings::geometry() const
{
    return m_s->value(key(Key::Geometry)).toByteArray();
}
void Settings::setGeometry(const QByteArray& g)
{
    m_s->setValue(key(Key::Geometry), g);
}

QByteArray Settings::windowState() const
{
    if (m_s->value(key(Key::WindowStateVersion), -1).toInt() != kWindowStateVersion)
        return {};
    return m_s->value(key(Key::WindowState)).toByteArray();
}

void Settings::setWindowState(const QByteArray& state)
{
    m_s->setValue(key(Key::WindowState), state);
    m_s->setValue(key(Key::WindowStateVersion), kWindowStateVersion);
}

QByteArray Settings::splitterState() const
{
    return m_s->value(key(Key::SplitterState)).toByteArray();
}
void Settings::setSplitterState(const QByteArray& state)
{
    m_s->setValue(key(Key::SplitterState), state);
}

UnitSystem Settings::units() const
{
    return m_s->value(key(Key::Units)).toString() == QLatin1String("binary") ? UnitSystem::Binary : UnitSystem::Decimal;
}

void Settings::setUnits(UnitSystem u)
{
    m_s->setValue(key(Key::Units), u == UnitSystem::Binary ? QStringLiteral("binary") : QStringLiteral("decimal"));
}

AxisScale Settings::axisScale() const
{
    const QString v = m_s->value(key(Key::AxisScale)).toString();
    // "auto" (before issue 14) switched stacked bars to a log axis by itself; it reads as linear now.
    return v == QLatin1String("log") ? AxisScale::Logarithmic : AxisScale::Linear;
}

void Settings::setAxisScale(AxisScale a)
{
    m_s->setValue(key(Key::AxisScale), a == AxisScale::Logarithmic ? QStringLiteral("log") : QStringLiteral("linear"));
}

ThemeChoice Settings::theme() const
{
    return parseThemeName(m_s->value(key(Key::Theme)).toString()).value_or(ThemeChoice::System);
}

void Settings::setTheme(ThemeChoice t)
{
    m_s->setValue(key(Key::Theme), themeName(t));
}

QString Settings::lastDirectory() const
{
    return m_s->value(key(Key::LastDirectory), QDir::homePath()).toString();
}
void Settings::setLastDirectory(const QString& dir)
{
    m_s->setValue(key(Key::LastDirectory), dir);
}

ExportOptions Settings::exportOptions() const
{
    ExportOptions o;
    o.width = std::clamp(m_s->value(key(Key::ExportWidth), o.width).toInt(), 200, 16384);
    o.height = std::clamp(m_s->value(key(Key::ExportHeight), o.height).toInt(), 150, 16384);
    o.scale = std::clamp(m_s->value(key(Key::ExportScale), o.scale).toDouble(), 0.25, 8.0);
    return o;
}

void Settings::setExportOptions(const ExportOptions& o)
{
    m_s->setValue(key(Key::ExportWidth), o.width);
    m_s->setValue(key(Key::ExportHeight), o.height);
    m_s->setValue(key(Key::ExportScale), o.scale);
}

ChartKind Settings::exportChart() const
{
    return chartKindFromName(m_s->value(key(Key::ExportChart)).toString()).value_or(ChartKind::Dashboard);
}

void Settings::setExportChart(ChartKind k)
{
    m_s->setValue(key(Key::ExportChart), chartKindName(k));
}

void Settings::sync()
{
    m_s->sync();
}

} // namespace trainmem
