#include "verdictlabel.h"

#include <QEvent>

namespace trainmem {

VerdictLabel::VerdictLabel(QWidget* parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("verdict"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    restyle();
}

void VerdictLabel::setVerdict(const QString& text, bool fits)
{
    const bool restyleNeeded = fits != m_fits;
    m_fits = fits;
    setText(text);
    setAccessibleName(fits ? tr("Verdict: fits") : tr("Verdict: dies"));
    if (restyleNeeded)
        restyle();
}

void VerdictLabel::setFontScale(double scale)
{
    m_fontScale = scale;
    restyle();
}

void VerdictLabel::changeEvent(QEvent* e)
{
    if (e->type() == QEvent::PaletteChange && !m_restyling)
        restyle();
    QLabel::changeEvent(e);
}

void VerdictLabel::restyle()
{
    m_restyling = true;
    const QPalette pal = parentWidget() ? parentWidget()->palette() : palette();
    const bool dark = pal.color(QPalette::Window).lightnessF() < 0.5;
    const QColor accent = m_fits ? (dark ? QColor(0x6b, 0xd3, 0x8a) : QColor(0x1b, 0x7f, 0x3a))
                                 : (dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xb0, 0x1e, 0x1e));
    QColor tint = accent;
    tint.setAlpha(dark ? 50 : 28);
    QFont f = font();
    f.setBold(true);
    f.setPointSizeF(QFont().pointSizeF() * 1.25 * m_fontScale);
    setFont(f);
    setStyleSheet(QStringLiteral("QLabel#verdict { background: rgba(%1,%2,%3,%4); border-left: %5px solid %6;"
                                 " padding: %7px %8px; color: %9; }")
                      .arg(tint.red()).arg(tint.green()).arg(tint.blue()).arg(tint.alpha())
                      .arg(qRound(6 * m_fontScale))
                      .arg(accent.name())
                      .arg(qRound(8 * m_fontScale))
                      .arg(qRound(12 * m_fontScale))
                      .arg(pal.color(QPalette::WindowText).name()));
    m_restyling = false;
}

}  // namespace trainmem
