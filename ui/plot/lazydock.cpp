#include "lazydock.h"

namespace trainmem {

LazyDock::LazyDock(const QString& title, QWidget* parent, QWidget* content, std::function<void()> prepare)
    : QDockWidget(title, parent), m_content(content), m_prepare(std::move(prepare))
{
    // A child that is not explicitly hidden would be shown with the dock, outside its layout, before
    // setVisible() below puts it in.
    m_content->setParent(this);
    m_content->hide();
}

void LazyDock::attach()
{
    if (widget() == m_content)
        return;
    if (m_prepare) {
        const std::function<void()> prepare = std::move(m_prepare);
        m_prepare = nullptr;
        prepare();
    }
    setWidget(m_content); // shows it
}

void LazyDock::setVisible(bool visible)
{
    // Every way a dock comes up goes through here: show(), its toggle action, restoreState(), a tab raised.
    if (visible)
        attach();
    QDockWidget::setVisible(visible);
}

} // namespace trainmem
