#pragma once
// The tour's narration under the charts in presentation mode (issue 11 §2): the chart is the slide and this
// line says what it shows, in large type. It is fitted to its width in at most two lines (three on a tall screen): the
// heading and as many whole sentences of the text as fit, elided only when not even the first one does, so a long step
// never pushes the charts off the screen nor runs past its edge.

#include <QLabel>

namespace trainmem {

class NarrationLabel : public QLabel
{
    Q_OBJECT
public:
    explicit NarrationLabel(QWidget* parent = nullptr);

    /// "3. 70B is about 1.1 TB" and its explanation; shown fitted to the width, the whole as the hover text.
    /// Both empty hides the label.
    void setNarration(const QString& heading, const QString& text);
    /// The whole narration, "heading — text".
    QString narration() const { return joined(m_heading, m_text); }
    /// The presentation mode's scale (1.4 at F5); the type is larger than the window's by this much and more.
    void setFontScale(double scale);

    /// Three lines where the window is at least kTallWindow px high (a 768 px projector and up), else two: with
    /// two, a 1920 × 1080 slide kept only the first sentence of four steps ("The tax is communication. …") and a
    /// 1024 × 768 one of ten; with three, none and seven.
    int maxLines() const;
    static constexpr int kMaxLines = 3;
    static constexpr int kTallWindow = 700;

protected:
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    static QString joined(const QString& heading, const QString& text);
    void refit();

    QString m_heading;
    QString m_text;
    double m_fontScale = 1.0;
    int m_fittedWidth = -1;
    int m_fittedLines = 0;
};

} // namespace trainmem
