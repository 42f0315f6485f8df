#pragma once
// Edit ▸ Paste measured memory… (issue 32): a text box for what the GPU showed — torch.cuda.memory_summary(),
// nvidia-smi, PyTorch's out-of-memory error, torchtune's log, or a figure with its statistic. What the text reads as
// is shown as it is typed; OK keeps it, and errors name the line and keep the dialog open.

#include "measured.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;

namespace trainmem {

class MeasuredDialog : public QDialog
{
    Q_OBJECT
public:
    explicit MeasuredDialog(QWidget* parent = nullptr);

    void setText(const QString& text);
    QPlainTextEdit* editor() const { return m_text; }
    QLabel* statusLabel() const { return m_status; }
    /// The last reading (valid after accept()).
    const MeasuredMemory& result() const { return m_result; }

    /// Reads the text and says what it read or what is wrong; true when it can be used.
    bool read();

private:
    QPlainTextEdit* m_text = nullptr;
    QLabel* m_status = nullptr;
    MeasuredMemory m_result;
};

} // namespace trainmem
