#pragma once
// Stacked memory bars (README, "The window"): one bar per view (inference, training on one GPU, per GPU
// after sharding, pinned scenarios), one fixed colour per segment, the GPU's capacity as a line.
// The chart only maps bytes to plot coordinates; every number comes from the core's Breakdown.

#include "charttheme.h"
#include "coreapi.h"
#include "tour.h"
#include "units.h"

#include "liveplot.h"

#include <QString>

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace trainmem {

class BytesTicker;
class LogBytesTicker;

/// One bar: a title under it and the per-GPU segments it stacks, or a figure measured on a GPU (issue 32), drawn
/// whole, with the prediction of the same statistic marked across it.
struct BarColumn {
    QString label;
    Segments segments;
    bool pinned = false;
    std::optional<double> measured{}; ///< a readout's bytes: the bar is this figure, not segments
    double predicted = 0;             ///< with `measured`: what TrainMem predicts for the same statistic
    QString hover{};                  ///< with `measured`: the comparison, for the hover text
    double height() const { return measured ? *measured : segments.total(); }
};

/// Stacked bars are linear unless the user picks log: on a log axis segment heights are not their
/// share of the bar (1.3 of 9.9 TB filled half a bar), so the chart never switches by itself (issue 14).
enum class AxisScale { Linear, Logarithmic };

class MemoryBarChart : public LivePlot
{
    Q_OBJECT
public:
    /// Three views of the current scenario plus up to this many pinned ones.
    static constexpr int kMaxPinned = 8;
    static constexpr int kMaxColumns = 3 + kMaxPinned;

    explicit MemoryBarChart(QWidget* parent = nullptr);
    ~MemoryBarChart() override;

    /// Replaces the bars. `capacity` is one GPU's memory; `capacityLabel` names it ("H100 · 80 GB").
    void setColumns(const std::vector<BarColumn>& columns, double capacity, const QString& capacityLabel);
    void setUnits(UnitSystem units);
    void setAxisScale(AxisScale scale);
    void setTheme(const ChartTheme& theme);
    void setTitle(const QString& title);
    /// Titles from longest to shortest: the chart shows the first that fits its width at full size (a narrow
    /// dock), else the last in a smaller font.
    void setTitles(const QStringList& titles);
    QCPTextElement* titleElement() const { return m_title; }
    /// A tour step's picture (issue 11 §2): the bars stack only its revealed segments, the ones it
    /// adds are outlined, and its number is drawn in large type; nullopt shows every segment.
    /// Applies to the columns set next (setColumns).
    void setPicture(const std::optional<TourPicture>& picture);
    const std::optional<TourPicture>& picture() const { return m_picture; }
    CachedTextItem* calloutLabel() const { return m_callout; }
    /// Fits the legend and title to a chart this wide (exports call it); the bar titles get a first
    /// guess, refitted to the laid-out slots by arrangeLabels().
    void fitLabelsTo(int widthPx);
    int fitWidth() const { return m_fitWidth; } ///< 0 until fitLabelsTo()

    // Read-back for tests and hover: the plotted objects themselves.
    QCPBars* bars(SegmentKind s) const { return m_bars[static_cast<size_t>(s)]; }
    const std::vector<BarColumn>& columns() const { return m_columns; }
    QCPItemStraightLine* capacityLine() const { return m_capacityLine; }
    QCPBars* measuredBars() const { return m_measuredBars; }
    QCPItemLine* predictedMark() const { return m_predictedMark; }     ///< across the measured bar, at the prediction
    CachedTextItem* predictedLabel() const { return m_predictedText; } ///< "TrainMem 138 GB" on the mark
    /// The per-GPU bar to its own scale, top right (issue 31 §2), shown when on the linear axis it is under
    /// kInsetShare of the axis (DeepSeek-V3's 76 GB per GPU on a 12.5 TB axis); its bars stack the same segments.
    QCPAxisRect* inset() const { return m_inset; }
    QCPBars* insetBars(SegmentKind s) const { return m_insetBars[static_cast<size_t>(s)]; }
    static constexpr double kInsetShare = 0.04;
    /// …or when it would be lower than this on the plot.
    static constexpr double kInsetPixels = 12;
    CachedTextItem* totalLabel(int column) const { return m_totals[static_cast<size_t>(column)]; }
    CachedTextItem* capacityText() const { return m_capacityText; }
    bool isLogarithmic() const { return m_log; }
    /// The hover text for a point in widget coordinates; empty outside the bars.
    QString hoverText(const QPointF& pos) const override;
    /// Bar width in key units (bar k is centred on key k).
    static constexpr double kBarWidth = 0.62;

Q_SIGNALS:
    /// The user asked (context menu) to remove pinned bar `pinIndex` (0 = first pinned).
    void unpinRequested(int pinIndex);
    void clearPinsRequested();

protected:
    void resizeEvent(QResizeEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    bool arrangeLabels() override;

private:
    void rebuildRanges();
    void applyPens();
    int columnAt(const QPointF& pos) const;
    /// The bar titles for slots `slotPx` wide: the font shrinks (to 0.55) until the widest line
    /// fits, then longer lines are elided (the hover text has them whole). True when they changed.
    bool applyColumnLabels(double slotPx);
    /// The capacity label where it meets no total, then each total that fits and meets nothing
    /// placed before it, the per-GPU bar's first.
    void placeTotals();
    /// The tour step's number in its large type when it fits the plot's width; else its label over its
    /// value, in a type shrunk (to half) until the longer line fits, elided past that.
    void fitCallout(int plotWidth);
    /// The font and lines `whole` takes as a callout in a plot this wide.
    std::pair<QFont, QString> fittedCallout(const QString& whole, int plotWidth) const;
    /// The room the callouts of the steps sharing the axis take above the bars: the highest of their boxes.
    int calloutHeight(int plotWidth) const;

    std::array<QCPBars*, kSegmentCount> m_bars{};
    QCPBars* m_measuredBars = nullptr;
    QCPItemLine* m_predictedMark = nullptr;
    QCPAxisRect* m_inset = nullptr;
    std::array<QCPBars*, kSegmentCount> m_insetBars{};
    QCPItemLine* m_insetCapacity = nullptr;
    QCPItemRect* m_insetPanel = nullptr; ///< behind the inset and its tick labels, so the main grid does not cross them
    QSharedPointer<BytesTicker> m_insetTicker;
    QSharedPointer<QCPAxisTickerText> m_insetKeyTicker;
    bool insetWanted() const;
    void updateInset();
    bool placeInset();
    CachedTextItem* m_predictedText = nullptr;
    std::array<CachedTextItem*, kMaxColumns> m_totals{};
    QCPItemStraightLine* m_capacityLine = nullptr;
    QCPItemStraightLine* m_capacityGaps = nullptr; ///< under the dashes, in the background's colour
    CachedTextItem* m_capacityText = nullptr;
    CachedTextItem* m_callout = nullptr; ///< the tour step's number, top left of the plot
    std::optional<TourPicture> m_picture;
    QCPItemStraightLine* m_pinSeparator = nullptr; ///< between the scenario's bars and the pins
    QSharedPointer<QCPAxisTickerText> m_keyTicker;
    QSharedPointer<BytesTicker> m_linearTicker;
    QSharedPointer<LogBytesTicker> m_logTicker;
    QCPLayoutGrid* m_legendRow = nullptr;
    QCPTextElement* m_title = nullptr;
    QStringList m_titles; ///< setTitles(): the first that fits is shown
    std::vector<BarColumn> m_columns;
    double m_capacity = 80e9;
    QString m_capacityLabel;
    UnitSystem m_units = UnitSystem::Decimal;
    AxisScale m_scale = AxisScale::Linear;
    ChartTheme m_theme;
    bool m_log = false;
    int m_fitWidth = 0;
    int m_labelSlot = -1;                ///< the slot width (px) the bar titles were fitted to
    QString m_labelKey;                  ///< and the titles they were fitted from
    double m_headFraction = 0.15 / 1.15; ///< the share of the plot's height above the tallest bar
    double m_calloutFraction = 0.2;      ///< and the tour callout's share above that (arrangeLabels() sizes it)
    double m_totalFactor = 1.0;          ///< the totals' font, as a share of their theme font
    QStringList m_yLabels;               ///< the value axis' label, long to short: the first that fits is shown
};

} // namespace trainmem
