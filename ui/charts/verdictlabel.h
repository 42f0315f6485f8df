#pragma once
// The verdict line (README, "The window"): the core's plain sentence, green when it fits, red when it dies.

#include <QLabel>

namespace trainmem {

class VerdictLabel : public QLabel
{
    Q_OBJECT
public:
    explicit VerdictLabel(QWidget* parent = nullptr);

    void setVerdict(const QString& text, bool fits);
    bool fits() const { return m_fits; }
    void setFontScale(double scale);

    /// At least two lines (so a drag that wraps the text does not move the charts), more when the
    /// text needs them at `width`. QLabel's answer, computed once per text and width.
    int heightForWidth(int width) const override;

protected:
    void changeEvent(QEvent* e) override;

private:
    void restyle();

    bool m_fits = false;
    double m_fontScale = 1.0;
    bool m_restyling = false;
    int m_padding = 8;      ///< the style sheet's vertical padding, px
    int m_sidePadding = 12; ///< its horizontal padding, px
    int m_border = 6;       ///< its left border, px (the three become the contents margins)
    mutable QString m_measuredText;
    mutable int m_measuredWidth = -1;
    mutable int m_measuredHeight = 0;
};

} // namespace trainmem
