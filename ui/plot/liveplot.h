#pragma once
// The charts' common base: a QCustomPlot that draws its layers straight into the window at paint
// time. QCustomPlot's own replot() draws every layer into two transparent buffers (the layers and
// an empty "overlay"), and its paint event then fills the widget and alpha-blends both buffers
// onto it: at 600×870 px that pixel traffic, not the drawing, was most of a slider step. Here a
// live update is "draw at the next paint": one background fill and the layers, nothing copied.
// replot() still works for QCustomPlot's own calls (a resize, say): it lays out, with its layers
// hidden so that nothing is drawn, and queues a paint. Exports do not use it (toPainter).

#include "cachedtext.h"
#include "labellayout.h"

#include <qcustomplot.h>

namespace trainmem {

class LivePlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit LivePlot(QWidget* parent = nullptr);
    ~LivePlot() override;

    /// The live path: the chart is drawn, with its current data, at the next paint.
    void refresh();

    /// Paints so far, and the wall time of the last one in ms (the bench reads both).
    int paintCount() const { return m_paints; }
    double lastPaintMs() const { return m_lastPaintMs; }

    /// Every text the chart drew at its last layout, in widget pixels, from the geometry that
    /// placed it (labellayout.h); tests check that each lies inside its bounds and none meets another.
    virtual ChartLabels labelRects() const { return chartLabels(this); }

    /// The hover text at a point in widget coordinates; empty shows none. Charts that have one call
    /// showHoverText() once.
    virtual QString hoverText(const QPointF& pos) const
    {
        Q_UNUSED(pos)
        return {};
    }

protected:
    /// QCustomPlot's least size is that of its layout as last fitted: a legend wrapped for a wide
    /// chart, or ticks laid out before the first resize, would hold the window that wide (a ladder
    /// dock shown before the window made it 1120 px at 1024 × 700). A live chart refits its labels
    /// to the width it gets (arrangeLabels), so only its least height and an explicit minimum count.
    QSize minimumSizeHint() const override;
    void paintEvent(QPaintEvent* event) override;
    /// QCustomPlot's layout, then arrangeLabels(); once more when that changed what the layout
    /// depends on. Runs before every draw, on screen and in files (toPainter), so labels are
    /// placed for the pixels they are drawn at.
    void updateLayout() override;
    /// Places the chart's labels for the geometry just laid out; true when it changed tick labels,
    /// fonts or ranges, so the layout has to run again. Called on every paint: keep it to a few
    /// rectangles, and set nothing that did not change.
    virtual bool arrangeLabels() { return false; }
    /// Gives the left value axis the first of `titles` its plot is tall enough for, or none (a low dock, a crowded
    /// slide: the ticks still say bytes). True when that changed the title, so the layout has to run again.
    bool fitValueAxisTitle(const QStringList& titles);
    /// Shows hoverText() as a tool tip while the mouse moves over the chart.
    void showHoverText();

private:
    static constexpr int kMaxLayoutPasses = 3;
    QList<QCPLayer*> m_hiddenForReplot; ///< the layers replot() does not draw, shown again after it
    int m_paints = 0;
    double m_lastPaintMs = 0;
};

} // namespace trainmem
