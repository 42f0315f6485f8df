#pragma once
// The charts that can be exported, by the names the command line uses. Qt Core only, so the
// command-line parser (and its fuzzer) need not link the widgets.

#include <QString>

#include <optional>

namespace trainmem {

enum class ChartKind { Bars, Seq, Dashboard, Peers };

/// "bars", "seq", "dashboard", "peers" → ChartKind; nullopt otherwise.
inline std::optional<ChartKind> chartKindFromName(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("bars"))
        return ChartKind::Bars;
    if (n == QLatin1String("seq"))
        return ChartKind::Seq;
    if (n == QLatin1String("dashboard"))
        return ChartKind::Dashboard;
    if (n == QLatin1String("peers"))
        return ChartKind::Peers;
    return std::nullopt;
}

} // namespace trainmem
