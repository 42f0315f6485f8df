#pragma once
// The verdict line (DESIGN.md §5): the core's plain sentence, green when it fits, red when it dies.

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

protected:
    void changeEvent(QEvent* e) override;

private:
    void restyle();

    bool m_fits = false;
    double m_fontScale = 1.0;
    bool m_restyling = false;
};

}  // namespace trainmem
