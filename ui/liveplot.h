#pragma once
// The charts' common base: a QCustomPlot that draws its layers straight into the window at paint
// time. QCustomPlot's own replot() draws every layer into two transparent buffers (the layers and
// an empty "overlay"), and its paint event then fills the widget and alpha-blends both buffers
// onto it: at 600×870 px that pixel traffic, not the drawing, was most of a slider step. Here a
// live update is "draw at the next paint": one background fill and the layers, nothing copied.
// replot() still works for QCustomPlot's own calls (a resize, say): it lays out, draws into a
// one-pixel buffer that is thrown away, and queues a paint. Exports do not use it (toPainter).

#include "cachedtext.h"

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

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int m_paints = 0;
    double m_lastPaintMs = 0;
};

} // namespace trainmem
