#include "logsliderfield.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace trainmem {

std::vector<int64_t> LogSliderField::decadeSteps(int64_t from, int64_t to)
{
    // Round mantissas that hit the chapter's sizes: 7B, 70B, 2.4T, 1.8T, 175B is typed.
    static constexpr double kMantissas[] = {1.0, 1.2, 1.5, 1.8, 2.0, 2.4, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0};
    std::vector<int64_t> out;
    for (double decade = static_cast<double>(from); decade < static_cast<double>(to) * 0.999; decade *= 10)
        for (double m : kMantissas)
            out.push_back(static_cast<int64_t>(std::llround(m * decade)));
    out.push_back(to);
    return out;
}

std::vector<int64_t> LogSliderField::octaveSteps(int64_t from, int64_t to)
{
    std::vector<int64_t> out;
    for (int64_t v = from; v < to; v *= 2) {
        out.push_back(v);
        out.push_back(v + v / 2);
    }
    out.push_back(to);
    return out;
}

LogSliderField::LogSliderField(std::vector<int64_t> steps, Format format, Parse parse, QWidget* parent)
    : QWidget(parent), m_steps(std::move(steps)), m_format(std::move(format)), m_parse(std::move(parse))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setRange(0, static_cast<int>(m_steps.size()) - 1);
    m_slider->setPageStep(3);
    m_slider->setTracking(true); // valueChanged on every step of a drag, not only on release
    m_edit = new QLineEdit(this);
    m_edit->setMaximumWidth(fontMetrics().horizontalAdvance(QStringLiteral("00000.0k")) + 16);
    m_edit->setAlignment(Qt::AlignRight);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_edit);
    m_value = m_steps.empty() ? 0 : m_steps.front();

    connect(m_slider, &QSlider::valueChanged, this, [this](int pos) {
        const int64_t v = std::clamp(m_steps[static_cast<size_t>(pos)], m_min, m_max);
        m_value = v;
        m_edit->setText(m_format(v));
        if (m_invalidShown) {
            m_invalidShown = false;
            m_edit->setStyleSheet(QString());
            m_edit->setToolTip(m_toolTip);
        }
        Q_EMIT valueEdited(v, m_slider->isSliderDown());
    });
    connect(m_slider, &QSlider::sliderReleased, this, &LogSliderField::editFinished);
    connect(m_edit, &QLineEdit::editingFinished, this, &LogSliderField::commitText);
}

void LogSliderField::setBounds(int64_t min, int64_t max)
{
    m_min = min;
    m_max = max;
}

void LogSliderField::setToolTips(const QString& text)
{
    m_toolTip = text;
    m_slider->setToolTip(text);
    m_edit->setToolTip(text);
    setToolTip(text);
}

void LogSliderField::setValue(int64_t v)
{
    // The window sets every control on every edit: when nothing changed, touch nothing, or the
    // line edit repaints and a style sheet reset re-polishes it and re-lays out the panel.
    const QString text = m_format(v);
    if (v == m_value && !m_invalidShown && m_edit->text() == text)
        return;
    m_value = v;
    const double lv = std::log(static_cast<double>(std::max<int64_t>(v, 1)));
    size_t best = 0;
    for (size_t i = 1; i < m_steps.size(); ++i)
        if (std::fabs(std::log(static_cast<double>(m_steps[i])) - lv) <
            std::fabs(std::log(static_cast<double>(m_steps[best])) - lv))
            best = i;
    const QSignalBlocker block(m_slider);
    m_slider->setValue(static_cast<int>(best));
    if (m_edit->text() != text)
        m_edit->setText(text);
    if (m_invalidShown) {
        m_invalidShown = false;
        m_edit->setStyleSheet(QString());
        m_edit->setToolTip(m_toolTip);
    }
}

void LogSliderField::commitText()
{
    const QString text = m_edit->text().trimmed();
    if (text == m_format(m_value))
        return;
    const std::optional<int64_t> v = m_parse(text);
    if (!v) {
        showInvalid(tr("“%1” is not a number such as 7B, 2.4T or 128k.").arg(text));
        return;
    }
    if (*v < m_min || *v > m_max) {
        showInvalid(tr("%1 is outside %2 … %3.").arg(text, m_format(m_min), m_format(m_max)));
        return;
    }
    setValue(*v);
    Q_EMIT valueEdited(*v, false);
    Q_EMIT editFinished();
}

void LogSliderField::showInvalid(const QString& why)
{
    m_invalidShown = true;
    m_edit->setStyleSheet(QStringLiteral("QLineEdit { border: 2px solid #c0392b; }"));
    m_edit->setToolTip(why + QLatin1Char('\n') + m_toolTip);
    QToolTip::showText(m_edit->mapToGlobal(QPoint(0, m_edit->height())), why, m_edit);
}

} // namespace trainmem
