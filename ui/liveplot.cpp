#include "liveplot.h"

#include <QPaintEvent>

namespace trainmem {
namespace {

/// An RGB32 buffer that QCustomPlot "clears" to the plot's background colour: nothing under it
/// shows through, so painting it is a copy, not a blend.
class OpaqueBuffer final : public QCPAbstractPaintBuffer
{
public:
    OpaqueBuffer(const QCustomPlot* plot, const QSize& size, double dpr) : QCPAbstractPaintBuffer(size, dpr), m_plot(plot)
    {
        OpaqueBuffer::reallocateBuffer();
    }

    QCPPainter* startPainting() override
    {
        auto* painter = new QCPPainter(&m_image);
        return painter;
    }

    void draw(QCPPainter* painter) const override
    {
        if (painter && painter->isActive())
            painter->drawImage(0, 0, m_image);
    }

    void clear(const QColor& color) override
    {
        // QCustomPlot asks for transparent; opaque is the point of this buffer.
        m_image.fill(color.alpha() == 255 ? color : background());
    }

protected:
    void reallocateBuffer() override
    {
        setInvalidated();
        const QSize px = (QSizeF(mSize) * mDevicePixelRatio).toSize();
        m_image = QImage(px.expandedTo(QSize(1, 1)), QImage::Format_RGB32);
        m_image.setDevicePixelRatio(mDevicePixelRatio);
        m_image.fill(background());  // shown as is if a paint comes before the first replot
    }

private:
    QColor background() const
    {
        const QBrush bg = m_plot->background();
        return bg.style() == Qt::SolidPattern ? bg.color() : QColor(Qt::white);
    }

    const QCustomPlot* m_plot;
    QImage m_image;
};

}  // namespace

LivePlot::LivePlot(QWidget* parent) : QCustomPlot(parent)
{
    // One buffer for all layers: the overlay (empty in these charts) is buffered by default.
    if (QCPLayer* overlay = layer(QStringLiteral("overlay")))
        overlay->setMode(QCPLayer::lmLogical);
    // setupPaintBuffers() creates a buffer only when the list is empty, so this one is kept.
    mPaintBuffers.clear();
    mPaintBuffers.append(QSharedPointer<QCPAbstractPaintBuffer>(new OpaqueBuffer(this, viewport().size(), bufferDevicePixelRatio())));
    // The buffer covers the widget: Qt need not paint what is beneath it first.
    setAttribute(Qt::WA_OpaquePaintEvent);
}

LivePlot::~LivePlot() = default;

void LivePlot::paintEvent(QPaintEvent* event)
{
    Q_UNUSED(event)
    QCPPainter painter(this);
    if (!painter.isActive())
        return;
    for (const QSharedPointer<QCPAbstractPaintBuffer>& buffer : std::as_const(mPaintBuffers))
        buffer->draw(&painter);
}

}  // namespace trainmem
