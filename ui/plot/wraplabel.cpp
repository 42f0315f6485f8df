#include "wraplabel.h"

#include <QEvent>

namespace trainmem {

WrapLabel::WrapLabel(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
}

int WrapLabel::heightForWidth(int width) const
{
    if (text() != m_text) {
        m_text = text();
        m_heights = {};
    }
    for (const Measured& m : m_heights)
        if (m.width == width)
            return m.height;
    Measured& slot = m_heights[m_next];
    m_next = (m_next + 1) % m_heights.size();
    slot = {width, QLabel::heightForWidth(width)};
    return slot.height;
}

void WrapLabel::changeEvent(QEvent* e)
{
    // What else changes a text's height: its font, the style (margins, indent) and the contents margins.
    if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange)
        m_heights = {};
    QLabel::changeEvent(e);
}

} // namespace trainmem
