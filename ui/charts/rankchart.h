#pragma once
// The per-rank grid (issue 13): one stacked bar per distinct rank kind of the layout (pipeline stage 0,
// the middle stages that hold the same bytes, the last stage), on the memory chart's axes and colours,
// the busiest outlined, so a user sees why stage 0 dies while stage 7 has room. The numbers are the
// core's rankKinds(); the busiest bar is account()'s per-GPU bar. The dock computes nothing while hidden.

#include "chartpanel.h"
#include "gpu.h"
#include "memorybarchart.h"

#include <QWidget>

#include <vector>

class QLabel;

namespace trainmem {

class RankChart : public MemoryBarChart
{
    Q_OBJECT
public:
    explicit RankChart(QWidget* parent = nullptr);

    /// Shows `ranks` (rankKinds(), stage 0 first) of a `pp`-stage pipeline; runs of middle stages are
    /// joined to fit the columns (about one per 130 px, at least 3, at most kMaxColumns; a resize that
    /// changes that count regroups). `capacity` is one GPU's memory.
    void setRanks(const std::vector<RankKind>& ranks, int64_t pp, double capacity, const QString& capacityLabel);
    /// The columns a chart this wide gets.
    static int columnBudget(int widthPx);

    /// The kinds drawn, one per bar (after joining), and the busiest one's column.
    const std::vector<RankKind>& shown() const { return m_shown; }
    int busiestColumn() const { return m_busiest; }
    QCPItemRect* busiestMark() const { return m_mark; }

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void rebuild();
    int budget() const { return columnBudget(fitWidth() > 0 ? fitWidth() : width()); }

    std::vector<RankKind> m_ranks;
    int64_t m_pp = 1;
    double m_capacityBytes = 0;
    QString m_capacityName;
    int m_budget = 0; ///< the column budget m_shown was grouped for
    std::vector<RankKind> m_shown;
    int m_busiest = -1;
    QCPItemRect* m_mark = nullptr;
};

/// "Stage 0", "Stages 1–4", with what the kind holds ("embedding", "head + logits").
QString rankTitle(const RankKind& r);

/// The "Ranks" dock: a sentence on the busiest and the roomiest rank, and the chart.
class RanksPanel : public ChartPanel
{
    Q_OBJECT
public:
    explicit RanksPanel(QWidget* parent = nullptr);

    void setScenario(const Scenario& s, const GpuSpec& gpu);
    void setUnits(UnitSystem units);
    RankChart* chart() const { return m_chart; }

protected:
    void recompute() override;
    void applyTheme(const ChartTheme& theme) override;

private:
    RankChart* m_chart = nullptr;
    Scenario m_scenario;
    GpuSpec m_gpu;
    UnitSystem m_units = UnitSystem::Decimal;
};

} // namespace trainmem
