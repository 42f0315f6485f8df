#pragma once
// The charts that can be exported, by the names the command line uses. Qt Core only, so the
// command-line parser (and its fuzzer) need not link the widgets.

#include <QString>

#include <optional>

namespace trainmem {

enum class ChartKind { Bars, Seq, Dashboard, Peers, Ranks, FitMap, Timeline };

/// The largest image an export draws: each side at most kMaxExportSide pixels and kMaxExportPixels in all, 8192²,
/// 256 MiB of 32-bit pixels (issue 33 §6: 4096² at scale 8 took 58 s and 4.2 GB, a 16384² fit map 1 GB).
inline constexpr double kMaxExportSide = 32768;
inline constexpr double kMaxExportPixels = 8192.0 * 8192.0;

/// True when width × height logical pixels at `scale` stay within both limits.
inline bool exportSizeAllowed(double width, double height, double scale)
{
    const double w = width * scale, h = height * scale;
    return w >= 1 && h >= 1 && w <= kMaxExportSide && h <= kMaxExportSide && w * h <= kMaxExportPixels;
}

/// What an export may not exceed, in words.
inline QString exportSizeLimitText()
{
    return QStringLiteral("32768 pixels a side and 67 megapixels in all (8192 × 8192, 256 MiB of image memory)");
}

/// The command line's name of `k`.
inline QString chartKindName(ChartKind k)
{
    switch (k) {
    case ChartKind::Bars:
        return QStringLiteral("bars");
    case ChartKind::Seq:
        return QStringLiteral("seq");
    case ChartKind::Peers:
        return QStringLiteral("peers");
    case ChartKind::Ranks:
        return QStringLiteral("ranks");
    case ChartKind::FitMap:
        return QStringLiteral("fitmap");
    case ChartKind::Timeline:
        return QStringLiteral("timeline");
    case ChartKind::Dashboard:
        break;
    }
    return QStringLiteral("dashboard");
}

/// "bars", "seq", "dashboard", "peers", "ranks", "fitmap", "timeline" → ChartKind; nullopt otherwise.
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
    if (n == QLatin1String("ranks"))
        return ChartKind::Ranks;
    if (n == QLatin1String("fitmap"))
        return ChartKind::FitMap;
    if (n == QLatin1String("timeline"))
        return ChartKind::Timeline;
    return std::nullopt;
}

} // namespace trainmem
