#pragma once
// One training step as a film (issue 11 §1): the busiest GPU's memory over the step, a stacked area
// by segment from the core's StepTimeline (core/memory/timeline.h), with the phases under the axis, the
// peak marked and named, the GPU's capacity line, and the phase a tour step plays shaded.

#include "chartpanel.h"
#include "charttheme.h"
#include "liveplot.h"
#include "timeline.h"
#include "tour.h"
#include "units.h"

#include <QWidget>

#include <array>
#include <optional>
#include <vector>

namespace trainmem {

/// A band the film stacks: a memory term, in the table's order (core/memory/terms.h), with two terms split in two
/// parts: the gradient buffer into what the backward pass has written and what waits, the activations into
/// the tape and what the backward rebuilds. A new term gets its band, name and colour from the table.
struct TimelineBand {
    SegmentKind term = SegmentKind::Weights;
    bool second = false; ///< the gradients still waiting, or the rebuilt part of the activations
    friend bool operator==(const TimelineBand&, const TimelineBand&) = default;
};
/// Every band, bottom to top.
std::vector<TimelineBand> timelineBands();
/// The bytes of band `b` in sample `x`.
double bandBytes(const TimelineSample& x, TimelineBand b);

/// What the chart shows.
struct TimelineChartData {
    StepTimeline timeline;
    int64_t pipelineStages = 1;
    QString capacityLabel; ///< "H100 · 80 GB"
};

/// The film of scenario `s` on `gpu` (the dashboard's dock and the export use it).
TimelineChartData timelineChartData(const Scenario& s, const GpuSpec& gpu, const Breakdown& b,
                                    UnitSystem units = UnitSystem::Decimal);

/// \brief `d` with only the `revealed` segments (a tour build-up step's "so far", issue 31 §1): the others are 0 in
/// every sample, the peak is of what remains, and the bars' total is that of `bars` (the per-GPU bar) so far.
void revealOnly(TimelineChartData& d, const std::vector<SegmentKind>& revealed, const Segments& bars);

/// \brief Whether a tour picture hides some segments (a build-up step) rather than showing them all.
bool isBuildUp(const std::optional<TourPicture>& picture);

class TimelineChart : public LivePlot
{
    Q_OBJECT
public:
    explicit TimelineChart(QWidget* parent = nullptr);
    ~TimelineChart() override;

    void setData(const TimelineChartData& data);
    void setUnits(UnitSystem units);
    void setTheme(const ChartTheme& theme);
    void setTitle(const QString& title);
    /// Fits the legend and title to a chart this wide (exports call it).
    void fitLabelsTo(int widthPx);
    /// Leaves the title out of the layout (the dock's title bar and sentence say it).
    void hideTitle();
    /// Shades the first phase of `kind` (a tour step plays it); nullopt shades none.
    void setPlayedPhase(std::optional<StepPhaseKind> kind);
    std::optional<StepPhaseKind> playedPhase() const { return m_played; }

    static QString bandName(TimelineBand b, bool training);
    static QColor bandColor(TimelineBand b);
    /// "Peak: backward of layer 32 · 138 GB".
    QString peakText() const;
    QString hoverText(const QPointF& pos) const override;

    // Read-back for tests.
    QCPGraph* band(SegmentKind term, bool second = false) const;
    QCPGraph* peakPoint() const { return m_peak; }
    CachedTextItem* peakLabel() const { return m_peakText; }
    CachedTextItem* capacityLabel() const { return m_capacityText; }
    QCPItemRect* playedRect() const { return m_playedRect; }
    QCPAxisTickerText* phaseTicker() const { return m_phaseTicker.data(); }
    const TimelineChartData& data() const { return m_data; }

protected:
    void resizeEvent(QResizeEvent* e) override;
    bool arrangeLabels() override;

private:
    void rebuild();
    /// Phase names under the axis: whole where they fit their phase, short, or none. True when changed.
    bool applyPhaseTicks();

    std::vector<TimelineBand> m_bandKinds;
    std::vector<QCPGraph*> m_bands; ///< one per band of m_bandKinds
    std::vector<bool> m_shownBands; ///< the bands in the legend
    QCPGraph* m_boundaries = nullptr;
    QCPGraph* m_peak = nullptr;
    CachedTextItem* m_peakText = nullptr;
    QCPItemStraightLine* m_capacityLine = nullptr;
    CachedTextItem* m_capacityText = nullptr;
    QCPItemRect* m_playedRect = nullptr;
    std::array<QCPItemRect*, 2> m_veils{}; ///< over the phases before and after the played one
    QCPTextElement* m_title = nullptr;
    QCPLayoutGrid* m_legendRow = nullptr;
    QSharedPointer<QCPAxisTickerText> m_phaseTicker;
    QStringList m_phaseLabels; ///< the labels the ticker has now
    QVector<double> m_phaseKeys;
    TimelineChartData m_data;
    UnitSystem m_units = UnitSystem::Decimal;
    ChartTheme m_theme;
    std::optional<StepPhaseKind> m_played;
    QString m_peakFull; ///< peakText() of the data drawn, made once a rebuild() for the label's layout
    int m_fitWidth = 0;
    bool m_customTitle = false;
    bool m_titleShown = true;
};

/// The "One training step" dock: a sentence on the peak against the per-GPU bar, and the chart.
class TimelinePanel : public ChartPanel
{
    Q_OBJECT
public:
    explicit TimelinePanel(QWidget* parent = nullptr);

    /// `b` is account(s, gpu), the dashboard's breakdown.
    void setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b, UnitSystem units);
    /// A tour step's picture: a build-up step's film shows only what its bars show so far (nullopt: everything).
    void setPicture(const std::optional<TourPicture>& picture);
    TimelineChart* chart() const { return m_chart; }

protected:
    void recompute() override;
    void applyTheme(const ChartTheme& theme) override;

private:
    TimelineChart* m_chart = nullptr;
    Scenario m_scenario;
    GpuSpec m_gpu;
    Breakdown m_breakdown;
    UnitSystem m_units = UnitSystem::Decimal;
    std::optional<TourPicture> m_picture;
};

} // namespace trainmem
