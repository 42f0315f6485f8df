#pragma once
// Every remembered setting, each key defined once (keys in settings.cpp). Backed by QSettings
// with the organisation and application names main() sets.

#include "apptheme.h"
#include "chartexport.h"
#include "memorybarchart.h"
#include "scenario.h"
#include "units.h"

#include <QByteArray>
#include <QSettings>
#include <QString>

#include <memory>
#include <optional>

namespace trainmem {

class Settings
{
public:
    /// Bump when the dock/toolbar layout changes so an old saved state is ignored.
    static constexpr int kWindowStateVersion = 1;

    Settings();
    /// An explicit file, e.g. for tests.
    explicit Settings(const QString& iniFile);

    std::optional<Scenario> lastScenario() const;
    void setLastScenario(const Scenario& s);

    QByteArray geometry() const;
    void setGeometry(const QByteArray& g);
    /// Empty when the saved state has another version.
    QByteArray windowState() const;
    void setWindowState(const QByteArray& state);
    QByteArray splitterState() const;
    void setSplitterState(const QByteArray& state);

    UnitSystem units() const;
    void setUnits(UnitSystem u);
    AxisScale axisScale() const;
    void setAxisScale(AxisScale a);
    /// View ▸ Theme; System when unset or unknown.
    ThemeChoice theme() const;
    void setTheme(ThemeChoice t);

    QString lastDirectory() const;
    void setLastDirectory(const QString& dir);

    ExportOptions exportOptions() const;
    void setExportOptions(const ExportOptions& o);
    ChartKind exportChart() const;
    void setExportChart(ChartKind k);

    void sync();

private:
    std::unique_ptr<QSettings> m_s;
};

} // namespace trainmem
