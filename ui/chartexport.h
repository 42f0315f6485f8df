#pragma once
// Offscreen rendering of the charts to image files (the --export-png path and the window's export).

#include "gpu.h"
#include "scenario.h"

#include <QString>

#include <optional>

namespace trainmem {

enum class ChartKind { Bars, Seq, Dashboard };

/// "bars", "seq", "dashboard" → ChartKind; nullopt otherwise.
std::optional<ChartKind> chartKindFromName(const QString& name);

struct ExportOptions {
    int width = 1600;    ///< logical pixels
    int height = 1000;
    double scale = 1.0;  ///< the PNG is width·scale × height·scale pixels
    bool slideTheme = true;  ///< light background, large fonts
};

/// Renders `kind` for the scenario to a PNG file. Needs a QApplication (any platform,
/// "offscreen" included). Returns false with a message naming the file on failure.
bool exportChartPng(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const QString& file,
                    const ExportOptions& options, QString* error);

}  // namespace trainmem
