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
    /// Thins the context tick labels to fit a plot this many pixels wide (exports call it).
    void fitTicksTo(int widthPx);

    // Read-back for tests.
    QCPGraph* curve(Checkpointing mode) const { return m_curves[static_cast<size_t>(mode)]; }
    QCPGraph* floorGraph() const { return m_floor; }
    QCPGraph* currentPoint() const { return m_current; }
    QCPItemRect* diesRegion() const { return m_dies; }
    QCPItemStraightLine* capacityLine() const { return m_capacityLine; }
    QCPItemStraightLine* crossoverLine() const { return m_crossLine; }
    QCPItemText* crossoverText() const { return m_crossText; }
    const SequenceChartData& data() const { return m_data; }

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void rebuild();

    std::array<QCPGraph*, 3> m_curves{};
    QCPGraph* m_floor = nullptr;
    QCPGraph* m_current = nullptr;
    QCPItemRect* m_dies = nullptr;
    QCPItemText* m_diesText = nullptr;
    QCPItemStraightLine* m_capacityLine = nullptr;
    QCPItemText* m_capacityText = nullptr;
    QCPItemStraightLine* m_marker = nullptr;
    QCPItemText* m_markerText = nullptr;
    QCPItemTracer* m_anchor = nullptr; ///< the current point, parent of its label
    QCPItemStraightLine* m_crossLine = nullptr;
    QCPItemText* m_crossText = nullptr;
    QCPTextElement* m_title = nullptr;
    QSharedPointer<QCPAxisTickerText> m_seqTicker;
    QSharedPointer<LogBytesTicker> m_bytesTicker;
    SequenceChartData m_data;
    UnitSystem m_units = UnitSystem::Decimal;
    ChartTheme m_theme;
    int m_tickStride = 1;
    int m_fitWidth = 0; ///< an export's width; 0 follows the widget
};

} // namespace trainmem
