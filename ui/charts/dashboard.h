#pragma once
// The charts and the verdict of one scenario, and the one update path that feeds them:
// Scenario → core (account, sweepContext, verdict) → Breakdown → charts.

#include "coreapi.h"
#include "memorybarchart.h"
#include "sequencechart.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QSplitter;
class QTimer;

namespace trainmem {

class LayoutFence;
class NarrationLabel;
class VerdictLabel;

/// Everything the dashboard draws, computed by the core for one scenario.
struct DashboardState {
    Breakdown current;   ///< the scenario as given
    Breakdown inference; ///< the same model served (mode = inference)
    Breakdown training;  ///< the same model trained (mode = training)
    ContextSweep sweep;
    QString verdict;
    QString capacityLabel;          ///< "H100 · 80 GB"
    std::vector<BarColumn> columns; ///< inference, training, per GPU, then the pins
    SequenceChartData sequence;
    std::optional<MeasuredComparison> measured; ///< a readout beside the prediction (issue 32)
};

/// Points per octave of the context sweep: 4 gives 45 points from 512 to 1M, smooth on a log axis.
inline constexpr int kSweepPointsPerOctave = 4;

/// Runs the core for `s` and lays out the bars (pins appended after the three views).
/// `sweep`, when given, is reused instead of sweeping again (it must be for this scenario and GPU).
/// `measured`, when given, adds its bar after the per-GPU one.
DashboardState computeDashboard(const Scenario& s, const GpuSpec& gpu, const std::vector<BarColumn>& pins,
                                UnitSystem units = UnitSystem::Decimal, const ContextSweep* sweep = nullptr,
                                const MeasuredMemory* measured = nullptr);
/// The verdict line a view shows and whether it is green: the scenario's, or during a tour step that builds the memory
/// up a kind at a time what its bars show so far (issue 31 §1: "So far 14.0 GB" under "Dies: 112 GB" contradicted).
struct ShownVerdict {
    QString text;
    bool fits = false;
};
ShownVerdict shownVerdict(const DashboardState& st, const std::optional<TourPicture>& picture, const GpuSpec& gpu);
/// The bar of a readout beside the prediction of the same statistic.
BarColumn measuredColumn(const MeasuredComparison& c);
/// A pinned bar for the scenario's own view (its per-GPU memory), labelled by size and hardware.
BarColumn pinColumn(const Scenario& s, const Breakdown& b);

class Dashboard : public QWidget
{
    Q_OBJECT
public:
    /// The pause after the last edit before the antialiased redraw (and the panels' fences let go).
    static constexpr int kSettleMs = 150;
    explicit Dashboard(QWidget* parent = nullptr);

    /// The one update path: recompute with the core, update every chart, queue one replot each.
    void showScenario(const Scenario& s, const GpuSpec& gpu);

    bool addPin(); ///< pins the current scenario; false when kMaxPinned are pinned
    void removePin(int index);
    void clearPins();
    const std::vector<BarColumn>& pins() const { return m_pins; }
    /// The scenario of each pinned bar, left to right (a session file keeps them).
    const std::vector<Scenario>& pinnedScenarios() const { return m_pinScenarios; }
    /// Pins `s` computed on `gpu` (a session's pins); false when kMaxPinned are pinned.
    bool pinScenario(const Scenario& s, const GpuSpec& gpu);
    /// What the GPU showed (Edit ▸ Paste measured memory…), kept across scenario changes so that an edit shows
    /// whether it explains the gap; nullopt removes it.
    void setMeasured(const std::optional<MeasuredMemory>& measured);
    const std::optional<MeasuredMemory>& measured() const { return m_measured; }
    QLabel* measuredLabel() const { return m_measuredNote; }

    void setUnits(UnitSystem units);
    UnitSystem units() const { return m_units; }
    void setAxisScale(AxisScale scale);
    AxisScale axisScale() const { return m_axisScale; }
    void setFontScale(double scale);
    /// A tour step's picture on the bars (revealed segments, the added ones outlined, its number);
    /// nullopt shows every segment again.
    void setPicture(const std::optional<TourPicture>& picture);
    /// Narration under the charts, for the tour in presentation mode ("3. 70B is about 1.1 TB" and its
    /// explanation, fitted to two lines); both empty hides it.
    void setNarration(const QString& heading, const QString& text);

    MemoryBarChart* barChart() const { return m_bars; }
    SequenceChart* sequenceChart() const { return m_seq; }
    VerdictLabel* verdictLabel() const { return m_verdict; }
    QLabel* warningsLabel() const { return m_warnings; }
    NarrationLabel* narrationLabel() const { return m_narration; }
    const DashboardState& state() const { return m_state; }
    QSplitter* splitter() const { return m_splitter; }

Q_SIGNALS:
    void pinsChanged(int count);
    /// setPicture() was called: a tour step's picture (barChart()->picture()) or none.
    void pictureChanged();

protected:
    void changeEvent(QEvent* e) override;

private:
    void applyTheme();
    void redraw();
    void settle();

    static constexpr int kChartMinWidth = 393;
    static constexpr int kChartMinHeight = 300;

    VerdictLabel* m_verdict = nullptr;
    LayoutFence* m_verdictFence = nullptr;
    QLabel* m_warnings = nullptr;
    QLabel* m_measuredNote = nullptr; ///< the readout against the prediction, and what may explain the gap
    std::optional<MeasuredMemory> m_measured;
    QSplitter* m_splitter = nullptr;
    MemoryBarChart* m_bars = nullptr;
    SequenceChart* m_seq = nullptr;
    NarrationLabel* m_narration = nullptr;
    DashboardState m_state;
    Scenario m_scenario;
    GpuSpec m_gpu;
    std::optional<TourPicture> m_picture; ///< the tour step's (setPicture), for the verdict during a build-up
    Scenario m_sweepScenario;             ///< the scenario the cached sweep was made for, its context set to 0
    GpuSpec m_sweepGpu;                   ///< and its GPU
    std::vector<BarColumn> m_pins;
    std::vector<Scenario> m_pinScenarios; ///< m_pins' scenarios
    UnitSystem m_units = UnitSystem::Decimal;
    AxisScale m_axisScale = AxisScale::Linear;
    double m_fontScale = 1.0;
    QTimer* m_settle = nullptr;
    QCP::AntialiasedElements m_barsAntialiased; ///< the charts' antialiasing, restored after a drag
    QCP::AntialiasedElements m_seqAntialiased;
};

} // namespace trainmem
