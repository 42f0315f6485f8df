#include "layoutfence.h"

#include <QEvent>
#include <QResizeEvent>

#include <algorithm>

namespace trainmem {

LayoutFence::LayoutFence(QWidget* child, QWidget* parent) : QWidget(parent), m_child(child)
{
    m_child->setParent(this);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_height = neededHeight(std::max(1, m_child->sizeHint().width()));
}

int LayoutFence::neededHeight(int width) const
{
    // The child's heightForWidth() must be cheap: it is asked on every change of its text.
    const int h = m_child->hasHeightForWidth() ? m_child->heightForWidth(width) : m_child->sizeHint().height();
    return std::max(h, m_child->minimumHeight());
}

QSize LayoutFence::sizeHint() const
{
    return {m_child->sizeHint().width(), m_height};
}

QSize LayoutFence::minimumSizeHint() const
{
    return {0, m_height};
}

void LayoutFence::refit()
{
    if (m_child->isHidden())
        return;
    const int h = neededHeight(width() > 0 ? width() : m_child->sizeHint().width());
    if (h > m_height || (h < m_height && !m_held)) {
        m_height = h;
        updateGeometry(); // the one case that needs the window's layout
    }
}

void LayoutFence::setHeld(bool held)
{
    m_held = held;
    if (!held)
        refit();
}

bool LayoutFence::event(QEvent* e)
{
    // Posted by the child's updateGeometry(), since the fence has no layout to take it.
    if (e->type() == QEvent::LayoutRequest)
        refit();
    return QWidget::event(e);
}

void LayoutFence::resizeEvent(QResizeEvent* e)
{
    m_child->setGeometry(QRect(QPoint(0, 0), e->size()));
    refit();
    QWidget::resizeEvent(e);
}

} // namespace trainmem
