#pragma once
// The scale-out ladder as a chart (issue 4 item 3): one stacked bar per rung (1 GPU, ZeRO-1/2/3,
// + tensor, + pipeline, + expert parallel), memory per GPU by segment in the bar chart's colours,
// the GPU's capacity as a line, and above each bar its total and the communication tax the cut adds.
// Every number comes from core/teach/ladder.h.

#include "ladder.h"

#include "charttheme.h"

#include "liveplot.h"

#include <array>
#include <vector>

namespace trainmem {

class BytesTicker;

class LadderChart : public LivePlot
{
    Q_OBJECT
public:
    explicit LadderChart(QWidget* parent = nullptr);
    ~LadderChart() override;

    /// Rebuilds the ladder for the scenario's model on `gpu`, with ladderOptionsFor() unless
    /// setOptions() fixed the degrees.
    void setScenario(const Scenario& s, const GpuSpec& gpu);
    void setOptions(const LadderOptions& options);
    const LadderOptions& options() const { return m_options; }
    void setTheme(const ChartTheme& theme);

    // Read-back for tests.
    const std::vector<LadderRung>& rungs() const { return m_rungs; }
    QCPBars* bars(SegmentKind s) const { return m_bars[static_cast<size_t>(s)]; }
    QCPItemText* taxLabel(int rung) const;
    QCPItemStraightLine* capacityLine() const { return m_capacity; }
    /// The hover text of rung `i`: per-segment bytes, what the cut removed and its tax.
    QString rungToolTip(int i) const;

Q_SIGNALS:
    /// The user double-clicked rung `index`: show its layout in the main window.
    void scenarioRequested(const trainmem::Scenario& scenario);
    void rungActivated(int index);

protected:
    void changeEvent(QEvent* e) override;
    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    bool arrangeLabels() override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;

private:
    static constexpr int kLegendMinHeight = 280; ///< below this the legend's row goes to the plot

    void rebuild();
    int rungAt(const QPointF& pos) const;

    std::array<QCPBars*, kSegmentCount> m_bars{};
    std::vector<QCPItemText*> m_labels;
    QCPItemStraightLine* m_capacity = nullptr;
    QCPItemText* m_capacityText = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPLayoutGrid* m_legendRow = nullptr;
    QSharedPointer<QCPAxisTickerText> m_keyTicker;
    QSharedPointer<BytesTicker> m_valueTicker;
    LadderOptions m_options;
    bool m_fixedOptions = false;
    ChartTheme m_theme;
    bool m_ownTheme = false;
    Scenario m_scenario;
    GpuSpec m_gpu;
    std::vector<LadderRung> m_rungs;
    double m_top = 0; ///< the tallest bar or the capacity, whichever is higher: the labels sit 1.5% of it above a bar
};

} // namespace trainmem
