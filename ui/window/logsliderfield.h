#pragma once
// A slider over a table of round values spaced evenly on a log scale, with a typed entry beside it
// ("7B", "2.4T", "128k"). The slider emits on every step while dragging.

#include <QWidget>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

class QLineEdit;
class QSlider;

namespace trainmem {

class LogSliderField : public QWidget
{
    Q_OBJECT
public:
    using Format = std::function<QString(int64_t)>;
    using Parse = std::function<std::optional<int64_t>(const QString&)>;

    LogSliderField(std::vector<int64_t> steps, Format format, Parse parse, QWidget* parent = nullptr);

    /// Shows `v` without emitting; the slider goes to the nearest step on the log scale.
    void setValue(int64_t v);
    int64_t value() const { return m_value; }
    /// Values typed beyond [min, max] are refused with a message.
    void setBounds(int64_t min, int64_t max);
    void setToolTips(const QString& text);

    QSlider* slider() const { return m_slider; }
    QLineEdit* edit() const { return m_edit; }
    const std::vector<int64_t>& steps() const { return m_steps; }

    /// 1, 1.2, 1.5, 2, 2.4, 3, 4, 5, 6, 7, 8 … per decade, from `from` to `to` (both powers of ten).
    static std::vector<int64_t> decadeSteps(int64_t from, int64_t to);
    /// Powers of two and their 1.5× midpoints from `from` to `to` (powers of two).
    static std::vector<int64_t> octaveSteps(int64_t from, int64_t to);

Q_SIGNALS:
    /// The user changed the value; `continuous` while a slider drag is under way.
    void valueEdited(int64_t value, bool continuous);
    /// A drag ended or a typed value was accepted: the next edit starts a new undo step.
    void editFinished();

private:
    void commitText();
    void showInvalid(const QString& why);

    std::vector<int64_t> m_steps;
    Format m_format;
    Parse m_parse;
    QSlider* m_slider = nullptr;
    QLineEdit* m_edit = nullptr;
    int64_t m_value = 0;
    int64_t m_min = 1;
    int64_t m_max = INT64_MAX;
    QString m_toolTip;
    bool m_invalidShown = false; ///< the red border and the reason are up
};

} // namespace trainmem
