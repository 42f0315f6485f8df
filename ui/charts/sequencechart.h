#pragma once
// Memory per GPU against context length (README, "The window"): one curve per checkpointing mode from the
// core's ContextSweep, the model-state floor, the capacity line with the "dies" region above it,
// a marker at the current context and the crossover where activations pass model state.

#include "charttheme.h"
#include "coreapi.h"
#include "units.h"

#include "liveplot.h"

#include <array>

namespace trainmem {

class LogBytesTicker;

/// What the chart shows; every number comes from the core.
struct SequenceChartData {
    ContextSweep sweep;
    double currentSeq = 4096;
    double currentTotal = 0; ///< perGpu.total() of the scenario at currentSeq
    Checkpointing checkpointing = Checkpointing::None;
    bool inference = false;
    QString gpuName;       ///< "H100", for "Out of memory on one H100"
    int64_t gpus = 1;      ///< the run's GPUs: past 1 the shade reads "Out of memory on each H100"
    QString capacityLabel; ///< "H100 · 80 GB"; the capacity itself is sweep.capacity
};

class SequenceChart : public LivePlot
{
    Q_OBJECT
public:
    explicit SequenceChart(QWidget* parent = nullptr);
    ~SequenceChart() override;

    void setData(const SequenceChartData& data);
    void setUnits(UnitSystem units);
    void setTheme(const ChartTheme& theme);
    void setTitle(const QString& title);
    /// Fits the legend and title to a chart this wide (exports call it); the context ticks get a
    /// first guess, thinned to the laid-out axis by arrangeLabels().
    void fitTicksTo(int widthPx);

    // Read-back for tests.
    QCPGraph* curve(Checkpointing mode) const { return m_curves[static_cast<size_t>(mode)]; }
    QCPGraph* floorGraph() const { return m_floor; }
    QCPGraph* currentPoint() const { return m_current; }
    QCPItemRect* diesRegion() const { return m_dies; }
    QCPItemStraightLine* capacityLine() const { return m_capacityLine; }
    QCPItemStraightLine* crossoverLine() const { return m_crossLine; }
    QCPItemStraightLine* markerLine() const { return m_marker; }
    CachedTextItem* crossoverText() const { return m_crossText; }
    CachedTextItem* diesText() const { return m_diesText; }
    CachedTextItem* capacityText() const { return m_capacityText; }
    CachedTextItem* markerText() const { return m_markerText; }
    const SequenceChartData& data() const { return m_data; }

protected:
    void resizeEvent(QResizeEvent* e) override;
    bool arrangeLabels() override;

private:
    void rebuild();
    void orderLegend();
    /// Labels every stride-th power of two, the smallest stride at which the widest label and a
    /// gap fit into `octavePx` pixels per doubling. True when the labels changed.
    bool applyTickStride(double octavePx);

    std::array<QCPGraph*, 4> m_curves{}; ///< indexed by Checkpointing; per-op's drawn only when it is the scenario's
    QCPGraph* m_floor = nullptr;
    QCPGraph* m_current = nullptr;
    QCPItemRect* m_dies = nullptr;
    CachedTextItem* m_diesText = nullptr;
    QCPItemStraightLine* m_capacityLine = nullptr;
    CachedTextItem* m_capacityText = nullptr;
    QCPItemStraightLine* m_marker = nullptr;
    CachedTextItem* m_markerText = nullptr;
    QCPItemStraightLine* m_crossLine = nullptr;
    CachedTextItem* m_crossText = nullptr;
    QCPTextElement* m_title = nullptr;
    QSharedPointer<QCPAxisTickerText> m_seqTicker;
    QSharedPointer<LogBytesTicker> m_bytesTicker;
    SequenceChartData m_data;
    UnitSystem m_units = UnitSystem::Decimal;
    ChartTheme m_theme;
    int m_tickStride = 0;      ///< 0 until the labels are made
    bool m_laidOut = false;    ///< a layout has measured the axis; before it the stride is a guess
    int m_fitWidth = 0;        ///< an export's width; 0 follows the widget
    double m_markerSeq = 4096; ///< where the marker is (the context clamped to the sweep)
};

} // namespace trainmem
