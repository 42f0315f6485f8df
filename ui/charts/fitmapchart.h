#pragma once
// The fit map (issue 11 §3): model size (x, log, 1B … 10T) against context length (y, log, 512 … 1M) for the
// current recipe, layout and GPU, each cell coloured by the GPUs it needs (1, 2–8, 9–64, 65–1024, more, never),
// the "fits on one GPU" boundary drawn along the cells, and the current scenario marked. Every number is the
// core's fitMap() (core/memory/fitmap.h); the chart maps cells to colours. The dock computes nothing while hidden.

#include "chartpanel.h"
#include "charttheme.h"
#include "fitmap.h"
#include "gpu.h"
#include "liveplot.h"

#include <QWidget>

#include <array>
#include <optional>
#include <utility>

class QLabel;

namespace trainmem {

/// What the chart shows: the map and the scenario it was made for.
struct FitMapChartData {
    FitMap map;
    double currentParams = 0; ///< the scenario's total parameters
    int64_t currentSeq = 0;   ///< its context
    GpusToFit current;        ///< its own minGpusToFit (its architecture, not the size rule's)
    QString gpuName;          ///< "H100"
    QString layout;           ///< "ZeRO-3 at tp 8 · pp 4", for the hover text
};

/// The map of scenario `s` on `gpu`, with the scenario's own count (the panel and the export use it). `map`, when
/// given, is fitMap(s, gpu) already computed (a context step does not change it: every row sets its own context).
FitMapChartData fitMapChartData(const Scenario& s, const GpuSpec& gpu, const FitMap* map = nullptr);

class FitMapChart : public LivePlot
{
    Q_OBJECT
public:
    explicit FitMapChart(QWidget* parent = nullptr);
    ~FitMapChart() override;

    void setData(const FitMapChartData& data);
    void setTheme(const ChartTheme& theme);
    void setTitle(const QString& title);
    /// Fits the legend and title to a chart this wide (exports call it).
    void fitLabelsTo(int widthPx);
    /// Leaves the title out of the layout (the dock's title bar and sentence say it), for a low dock.
    void hideTitle();

    /// One fixed colour per band, the same on screen and on slides.
    static QColor bandColor(FitBand b);
    /// The legend's name of a band ("2–8 GPUs").
    static QString bandName(FitBand b);
    /// The hover text at a point in widget coordinates; empty outside the map.
    QString hoverText(const QPointF& pos) const override;
    /// The cell under a point, or false outside the map.
    bool cellAt(const QPointF& pos, size_t* column, size_t* row) const;

    // Read-back for tests: the plotted objects themselves.
    QCPColorMap* colorMap() const { return m_map; }
    QCPCurve* boundary() const { return m_boundary; }
    QCPGraph* marker() const { return m_marker; }
    CachedTextItem* markerText() const { return m_markerText; }
    const FitMapChartData& data() const { return m_data; }

protected:
    void resizeEvent(QResizeEvent* e) override;
    bool arrangeLabels() override;

private:
    void rebuild();
    /// The legend lists the bands the map has, in their fixed order, then the boundary when drawn and the marker.
    void updateLegend();

    QCPColorMap* m_map = nullptr;
    std::array<QCPBars*, kFitBandCount> m_swatches{}; ///< no data: the legend's colour squares
    std::array<bool, kFitBandCount> m_legendBands{};  ///< the bands the legend lists
    QCPCurve* m_boundaryHalo = nullptr;
    QCPCurve* m_boundary = nullptr;
    QCPGraph* m_marker = nullptr;
    CachedTextItem* m_markerText = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPLayoutGrid* m_legendRow = nullptr;
    QSharedPointer<QCPAxisTickerText> m_seqTicker;
    bool m_thinSeqTicks = false; ///< 256k left out: the plot is too low for two octaves between labels
    bool m_titleShown = true;
    FitMapChartData m_data;
    ChartTheme m_theme;
    int m_fitWidth = 0; ///< an export's width; 0 follows the widget
};

/// The "Fit map" dock: a sentence on where one GPU stops at the current context, and the chart.
class FitMapPanel : public ChartPanel
{
    Q_OBJECT
public:
    explicit FitMapPanel(QWidget* parent = nullptr);

    void setScenario(const Scenario& s, const GpuSpec& gpu);
    FitMapChart* chart() const { return m_chart; }

protected:
    void recompute() override;
    void applyTheme(const ChartTheme& theme) override;

private:
    FitMapChart* m_chart = nullptr;
    Scenario m_scenario;
    GpuSpec m_gpu;
    /// The scenario and GPU the chart's map was computed for, their context left out: a context-slider step moves
    /// only the marker and the sentence (the grid took 2–3 ms of each step, issue 31's performance).
    std::optional<std::pair<Scenario, GpuSpec>> m_mapFor;
};

} // namespace trainmem
