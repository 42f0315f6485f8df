#include "verdictlabel.h"

#include <QApplication>

#include <QAction>
#include <QClipboard>
#include <QEvent>
#include <QFontMetrics>
#include <QGuiApplication>

#include <algorithm>
#include <cmath>

namespace trainmem {

VerdictLabel::VerdictLabel(QWidget* parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("verdict"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    // Not selectable: a selectable QLabel lays its text out as a document, which on every new
    // verdict (every step of a drag) cost more than drawing a chart. Copying is an action instead.
    setTextInteractionFlags(Qt::NoTextInteraction);
    auto* copy = new QAction(tr("Copy verdict"), this);
    copy->setObjectName(QStringLiteral("copyVerdict"));
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] { QGuiApplication::clipboard()->setText(text()); });
    addAction(copy);
    setContextMenuPolicy(Qt::ActionsContextMenu);
    setToolTip(tr("Right-click to copy the verdict."));
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

int VerdictLabel::heightForWidth(int width) const
{
    if (width != m_measuredWidth || text() != m_measuredText) {
        // QLabel's own answer, for a plain-text, word-wrapped label without a text control: the
        // text's box at the width inside the contents margins (the style sheet's border and
        // padding) and the margin, less the indent a framed label gets (an 'x'), which also pads
        // vertically when top or bottom aligned. Remembered, since the fence asks on every step.
        const QMargins m = contentsMargins();
        const QFontMetrics fm(font());
        int indent = this->indent();
        if (indent < 0 && frameWidth() > 0)
            indent = fm.horizontalAdvance(QLatin1Char('x')) - 2 * margin();
        int hextra = 2 * margin(), vextra = 2 * margin();
        if (indent > 0) {
            hextra += alignment() & (Qt::AlignLeft | Qt::AlignRight) ? indent : 0;
            vextra += alignment() & (Qt::AlignTop | Qt::AlignBottom) ? indent : 0;
        }
        const int flags = static_cast<int>(alignment() & ~(Qt::AlignVCenter | Qt::AlignHCenter)) | Qt::TextWordWrap;
        const QRect box =
            fm.boundingRect(0, 0, std::max(0, width - hextra - m.left() - m.right()), 2000, flags, text());
        m_measuredHeight = std::max(minimumHeight(), box.height() + vextra + m.top() + m.bottom());
        m_measuredWidth = width;
        m_measuredText = text();
    }
    return m_measuredHeight;
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
    // The application's palette, not the parent's: on a theme switch the parent may get its PaletteChange after this
    // label (the verdict kept dark text on the dark theme), and the label's own palette carries the style sheet.
    const QPalette pal = QApplication::palette(this);
    const bool dark = pal.color(QPalette::Window).lightnessF() < 0.5;
    const QColor accent = m_fits ? (dark ? QColor(0x6b, 0xd3, 0x8a) : QColor(0x1b, 0x7f, 0x3a))
                                 : (dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xb0, 0x1e, 0x1e));
    QColor tint = accent;
    tint.setAlpha(dark ? 50 : 28);
    QFont f = font();
    f.setBold(true);
    f.setPointSizeF(QFont().pointSizeF() * 1.25 * m_fontScale);
    setFont(f);
    m_padding = qRound(8 * m_fontScale);
    m_sidePadding = qRound(12 * m_fontScale);
    m_border = qRound(6 * m_fontScale);
    // Room for two lines whatever the text: a verdict that wraps while a slider is dragged must not
    // resize (and so re-lay out and repaint) the charts under it, or make them jump.
    setMinimumHeight(2 * QFontMetrics(f).lineSpacing() + 2 * m_padding + 2);
    m_measuredWidth = -1;
    setStyleSheet(QStringLiteral("QLabel#verdict { background: rgba(%1,%2,%3,%4); border-left: %5px solid %6;"
                                 " padding: %7px %8px; color: %9; }")
                      .arg(tint.red())
                      .arg(tint.green())
                      .arg(tint.blue())
                      .arg(tint.alpha())
                      .arg(m_border)
                      .arg(accent.name())
                      .arg(m_padding)
                      .arg(m_sidePadding)
                      .arg(pal.color(QPalette::WindowText).name()));
    m_restyling = false;
}

} // namespace trainmem
