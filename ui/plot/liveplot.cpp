#include "liveplot.h"

#include "fastgrid.h"

#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QToolTip>

namespace trainmem {
namespace {

/// What replot() draws into: nothing is kept, since the paint event draws the layers itself.
/// One pixel, so QCustomPlot's per-replot clear costs nothing.
class DiscardBuffer final : public QCPAbstractPaintBuffer
{
public:
    DiscardBuffer() : QCPAbstractPaintBuffer(QSize(1, 1), 1.0), m_image(1, 1, QImage::Format_RGB32) {}

    QCPPainter* startPainting() override { return new QCPPainter(&m_image); }
    void draw(QCPPainter*) const override {}
    void clear(const QColor&) override {}

protected:
    void reallocateBuffer() override {}

private:
    QImage m_image;
};

} // namespace

LivePlot::LivePlot(QWidget* parent) : QCustomPlot(parent)
{
    // One buffer for all layers (the overlay is buffered by default), and setupPaintBuffers()
    // creates one only when the list is empty, so this one is kept.
    if (QCPLayer* overlay = layer(QStringLiteral("overlay")))
        overlay->setMode(QCPLayer::lmLogical);
    mPaintBuffers.clear();
    mPaintBuffers.append(QSharedPointer<QCPAbstractPaintBuffer>(new DiscardBuffer));
    // Grids as fills (see fastgrid.h): QCPGrid keeps the settings, on a layer that is not drawn.
    addLayer(QStringLiteral("qcpGrids"), layer(QStringLiteral("background")), QCustomPlot::limBelow);
    if (QCPLayer* hidden = layer(QStringLiteral("qcpGrids"))) {
        hidden->setVisible(false);
        hidden->setMode(QCPLayer::lmLogical);
    }
    for (QCPAxis* axis : axisRect()->axes()) {
        axis->grid()->setLayer(QStringLiteral("qcpGrids"));
        new FastGrid(axis);
    }
    // Legend entries are CachedLegendItems, added by the charts (addCachedLegendItem).
    setAutoAddPlottableToLegend(false);
    // The paint covers the widget: Qt need not paint what is beneath it first.
    setAttribute(Qt::WA_OpaquePaintEvent);
    // replot() (QCustomPlot's own, on a resize) draws every layer into the discarded buffer: the text shaped, the
    // curves stroked, all thrown away, and the paint it queues draws them again. Its layers are hidden while it
    // runs, so it only lays out. At start-up that was 9 replots and a tenth of the time to the first paint.
    connect(this, &QCustomPlot::beforeReplot, this, [this] {
        m_hiddenForReplot.clear();
        for (int i = 0; i < layerCount(); ++i)
            if (QCPLayer* l = layer(i); l->visible()) {
                l->setVisible(false);
                m_hiddenForReplot.push_back(l);
            }
    });
    connect(this, &QCustomPlot::afterReplot, this, [this] {
        for (QCPLayer* l : m_hiddenForReplot)
            l->setVisible(true);
        m_hiddenForReplot.clear();
    });
}

LivePlot::~LivePlot() = default;

bool LivePlot::fitValueAxisTitle(const QStringList& titles)
{
    QString title;
    for (const QString& t : titles)
        if (cachedTextWidth(yAxis->labelFont(), t) <= axisRect()->height()) {
            title = t;
            break;
        }
    if (yAxis->label() == title)
        return false;
    yAxis->setLabel(title);
    return true;
}

void LivePlot::showHoverText()
{
    setMouseTracking(true);
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const QString text = hoverText(e->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(), text, this);
    });
}

void LivePlot::refresh()
{
    update();
}

QSize LivePlot::minimumSizeHint() const
{
    return {minimumWidth(), QCustomPlot::minimumSizeHint().height()};
}

void LivePlot::updateLayout()
{
    QCustomPlot::updateLayout();
    // Until the decisions settle: a change can change the geometry the next decision is made for (the film's
    // memory-axis title dropped on a low plot widens it, and its phase names then fit differently). A chart
    // places its items on the pass that changes nothing, at the settled geometry.
    for (int pass = 0; pass < kMaxLayoutPasses && arrangeLabels(); ++pass)
        QCustomPlot::updateLayout();
}

void LivePlot::paintEvent(QPaintEvent* event)
{
    Q_UNUSED(event)
    QElapsedTimer timer;
    timer.start();
    QCPPainter painter(this);
    if (!painter.isActive())
        return;
    painter.fillRect(rect(), mBackgroundBrush.style() == Qt::NoBrush ? QBrush(Qt::white) : mBackgroundBrush);
    draw(&painter); // lays out, then every layer in order
    m_lastPaintMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    ++m_paints;
}

} // namespace trainmem
