#pragma once
// A word-wrapped QLabel whose heightForWidth() is remembered for its text at the last few widths. QLabel lays its
// text out again on every call (for rich text a whole QTextDocument), and a layout asks several times per
// activation: a dock with three such labels spent half of a slider step there (the Peers dock, issue 31). Put it in
// a LayoutFence when its text changes on every step.

#include <QLabel>

#include <array>

namespace trainmem {

class WrapLabel : public QLabel
{
    Q_OBJECT
public:
    explicit WrapLabel(QWidget* parent = nullptr);

    int heightForWidth(int width) const override;

protected:
    void changeEvent(QEvent* e) override;

private:
    struct Measured {
        int width = -1;
        int height = 0;
    };
    mutable QString m_text; ///< the text the heights below are for
    mutable std::array<Measured, 4> m_heights{};
    mutable size_t m_next = 0;
};

} // namespace trainmem
