#pragma once
// File ▸ Paste Megatron-LM arguments…: a text box for flags, a torchrun line or a launch script.
// OK reads them with the core's parser; errors name the flag and keep the dialog open.

#include "megatronargs.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QSpinBox;

namespace trainmem {

class MegatronDialog : public QDialog
{
    Q_OBJECT
public:
    /// `gpus` is offered as the GPU count for text that gives none.
    explicit MegatronDialog(int64_t gpus, QWidget* parent = nullptr);

    void setText(const QString& text);
    QPlainTextEdit* editor() const { return m_text; }
    QLabel* errorLabel() const { return m_error; }
    /// The last reading (valid after accept()).
    const MegatronParse& result() const { return m_result; }

    /// Reads the text; true when it is valid (then accept() follows).
    bool read();

private:
    QPlainTextEdit* m_text = nullptr;
    QSpinBox* m_gpus = nullptr;
    QLabel* m_error = nullptr;
    MegatronParse m_result;
};

} // namespace trainmem
