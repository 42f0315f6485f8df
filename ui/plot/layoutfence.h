#pragma once
// A container for one widget whose size hint changes often, like the verdict, which gets new text
// on every slider step. A QLabel's setText() invalidates every layout up to the window, so each
// step re-laid out the dashboard and the main window (and repainted the dock separator). The fence
// has no layout of its own: the child's geometry requests stop here, and the window is re-laid out
// only when the height the child needs at the current width actually changes. The child's
// heightForWidth() is asked on every change, so it has to be cheap (QLabel's is not: VerdictLabel
// has its own).

#include <QWidget>

namespace trainmem {

class LayoutFence : public QWidget
{
    Q_OBJECT
public:
    /// Reparents `child` into the fence, which then sizes it to fill the fence.
    explicit LayoutFence(QWidget* child, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    QWidget* child() const { return m_child; }
    /// While held (a slider is being dragged) the fence grows when the child needs more room but
    /// does not shrink, so the widgets under it move at most once per drag; released, it refits.
    void setHeld(bool held);

protected:
    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    int neededHeight(int width) const;
    void refit();

    QWidget* m_child;
    int m_height = 0;
    bool m_held = false;
};

} // namespace trainmem
