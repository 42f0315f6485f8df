#pragma once
// Offscreen rendering of the charts to image files (the --export-png path and the window's export).

#include "chartkind.h"
#include "gpu.h"
#include "megatronargs.h"
#include "memorybarchart.h"
#include "peers.h"
#include "scenario.h"
#include "tour.h"
#include "units.h"

#include <QImage>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace trainmem {

struct ExportOptions {
    int width = 1600; ///< logical pixels
    int height = 1000;
    double scale = 1.0;     ///< the PNG is width·scale × height·scale pixels
    bool slideTheme = true; ///< light background, large fonts
};

/// What the window adds to a scenario: pinned bars and view choices.
struct ChartExtras {
    std::vector<BarColumn> pins;
    UnitSystem units = UnitSystem::Decimal;
    AxisScale axisScale = AxisScale::Linear;
    std::optional<MegatronArgs> megatron;   ///< the pasted launch for the peers chart (else the scenario's flags)
    std::optional<TourPicture> picture;     ///< a tour step's picture for the bars (else every segment)
    QString title;                          ///< replaces the scenario's name as the title (a tour step's)
    std::optional<MeasuredMemory> measured; ///< a readout, as a bar beside the per-GPU one (issue 32)
};

enum class ExportFormat { Png, Pdf };

/// The width a slide (a dashboard export) draws a chart at, in theme `t` on a slide `width` px wide: the slide's less
/// its margins when the chart is alone or the two are stacked; side by side, the bar chart half of what is left after
/// the gap between them and the context chart the rest. Each chart's header is fitted to it.
int slideChartWidth(const ChartTheme& t, int width, bool sideBySide, bool contextChart);

/// The legend entries of an export that its layout gives less width than their icon and text need (drawn under the
/// next entry or cut), each as “name”: width of needed px; empty when every entry fits (tst_ui_slides).
QStringList squeezedLegendEntries(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const ExportOptions& o,
                                  const ChartExtras& extras);

/// The slide's footer: the inputs and the layout (GPUs, ZeRO, offload, tp/pp/cp/ep) the verdict is for.
QString footerText(const Breakdown& b, const Scenario& s);

/// Renders `kind` for the scenario to a PNG file. Needs a QApplication (any platform,
/// "offscreen" included). Returns false with a message naming the file on failure.
bool exportChartPng(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const QString& file,
                    const ExportOptions& options, QString* error,
                    const std::optional<MegatronArgs>& megatron = std::nullopt,
                    const std::optional<MeasuredMemory>& measured = std::nullopt);

/// The comparison the peers chart and dock show: the pasted launch, or the scenario written as
/// Megatron-LM flags, always as training (both peers estimate training memory).
PeerComparison peerComparisonFor(const Scenario& s, const GpuSpec& gpu, const std::optional<MegatronArgs>& megatron);

/// The same with pins and view choices, as PNG or PDF (vector). The file is replaced atomically.
bool exportChart(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const QString& file, ExportFormat format,
                 const ExportOptions& options, const ChartExtras& extras, QString* error);

/// The tour as a slide deck (issue 11 §4): one dashboard PNG per step, named "01-7b-inference.png" …,
/// each with the step's picture and title, and index.md with every step's title, number and narration.
/// Steps start from the built-in presets and GPUs. `dir` is created if missing; `written` lists the
/// files. On failure returns false with a message naming the file.
bool exportTour(const QString& dir, const ExportOptions& options, QStringList* written, QString* error);
/// \brief A tour step evaluated with the presets and GPUs the app ships (PresetLibrary), as the slides show it.
std::optional<TourStage> shippedTourStage(const TourStep& step);

/// The image exportChart would write as PNG (the clipboard copy uses it).
QImage renderChart(const Scenario& s, const GpuSpec& gpu, ChartKind kind, const ExportOptions& options,
                   const ChartExtras& extras);

} // namespace trainmem
