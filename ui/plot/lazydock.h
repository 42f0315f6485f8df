#pragma once
// A dock whose panel goes in only when the dock is first shown. QDockWidget::setWidget() shows its
// content at once, even in a hidden dock, and showing a panel polishes it and lays it out: every
// word-wrapped label shapes its text to answer its size hint. The teaching and comparison docks start
// hidden, and laying out their panels was an eighth of the window's start-up (issue 31, start-up to
// first paint). Until then the panel is the dock's hidden child: it exists, gets the dock's font and
// palette and takes scenarios, but is not laid out.

#include <QDockWidget>

#include <functional>

namespace trainmem {

class LazyDock : public QDockWidget
{
    Q_OBJECT
public:
    /// The dock takes `content` as its child now and as its widget when first shown; `prepare`, if
    /// given, runs just before that (e.g. a scroll area taking its panel).
    LazyDock(const QString& title, QWidget* parent, QWidget* content, std::function<void()> prepare = {});

    void setVisible(bool visible) override;
    /// The panel, in the dock or still waiting to go in.
    QWidget* content() const { return m_content; }
    /// Whether the panel is in the dock yet.
    bool attached() const { return widget() == m_content; }

private:
    void attach(); ///< puts the panel in, once
    QWidget* m_content;
    std::function<void()> m_prepare;
};

} // namespace trainmem
