#include "narrationlabel.h"

#include "labellayout.h"

#include <QEvent>
#include <QTextBoundaryFinder>

namespace trainmem {

NarrationLabel::NarrationLabel(QWidget* parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("narration"));
    setTextFormat(Qt::PlainText);
    setAlignment(Qt::AlignHCenter | Qt::AlignVCenter);
    // The lines are broken here, at the label's width (refit): QLabel's own wrapping would neither stop at two
    // lines nor elide. Its width is the dashboard's, never the text's, so a long narration cannot widen the window.
    setWordWrap(false);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    setVisible(false);
    setFontScale(1.0);
}

QString NarrationLabel::joined(const QString& heading, const QString& text)
{
    if (heading.isEmpty() || text.isEmpty())
        return heading + text;
    return tr("%1 — %2").arg(heading, text);
}

void NarrationLabel::setNarration(const QString& heading, const QString& text)
{
    if (heading == m_heading && text == m_text)
        return; // outside the tour every edit clears it: touch nothing then
    m_heading = heading;
    m_text = text;
    setToolTip(narration());
    m_fittedWidth = -1;
    refit();
    setVisible(!narration().isEmpty());
}

void NarrationLabel::setFontScale(double scale)
{
    m_fontScale = scale;
    // The verdict's size (VerdictLabel::restyle), not bold: the narration is read, the verdict is a headline.
    QFont f = font();
    f.setPointSizeF(QFont().pointSizeF() * 1.25 * scale);
    setFont(f); // refits through the FontChange
}

void NarrationLabel::resizeEvent(QResizeEvent* e)
{
    QLabel::resizeEvent(e);
    refit();
}

void NarrationLabel::changeEvent(QEvent* e)
{
    QLabel::changeEvent(e);
    if (e->type() == QEvent::FontChange) {
        m_fittedWidth = -1;
        refit();
    }
}

int NarrationLabel::maxLines() const
{
    return window()->height() >= kTallWindow ? kMaxLines : 2;
}

void NarrationLabel::refit()
{
    // A pixel to spare: QTextLayout measures in fractions, the label draws in whole pixels.
    const int width = contentsRect().width() - 2 * margin() - 1;
    if (width == m_fittedWidth && maxLines() == m_fittedLines)
        return;
    m_fittedWidth = width;
    m_fittedLines = maxLines();
    // The text's whole sentences, as many as fit, with an ellipsis when some are left out (issue 31 §2: it stopped at
    // "…= 16 bytes." as if that were all); the whole text elided when not even the first one does.
    std::vector<int> ends;
    QTextBoundaryFinder sentences(QTextBoundaryFinder::Sentence, m_text);
    while (sentences.toNextBoundary() > 0)
        ends.push_back(static_cast<int>(sentences.position()));
    QStringList lines;
    bool elided = true;
    const QString whole = m_text.trimmed();
    for (auto end = ends.rbegin(); end != ends.rend() && elided; ++end) {
        const QString shown = m_text.left(*end).trimmed();
        lines = wrapLines(joined(m_heading, shown.size() < whole.size() ? shown + QStringLiteral(" …") : shown), font(),
                          width, maxLines(), &elided);
    }
    if (elided)
        lines = wrapLines(narration(), font(), width, maxLines());
    const QString fitted = lines.join(QLatin1Char('\n'));
    if (fitted != text())
        setText(fitted); // a new line count changes the height: setText() asks the layout again
}

} // namespace trainmem
