#pragma once
// The charts' common base: a QCustomPlot that draws every layer into one opaque buffer and paints
// that buffer as a plain copy. QCustomPlot's default clears two transparent buffers per replot
// (the layers and an empty "overlay"), fills the widget and the axis rect with the background and
// then alpha-blends both buffers: five passes over every pixel. This is one fill and one copy,
// which is most of what a slider step costs (bench/: see README "Performance").

#include <qcustomplot.h>

namespace trainmem {

class LivePlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit LivePlot(QWidget* parent = nullptr);
    ~LivePlot() override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace trainmem
