#include "megatrondialog.h"

#include "accounting.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace trainmem {

MegatronDialog::MegatronDialog(int64_t gpus, QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("megatronDialog"));
    setWindowTitle(tr("Paste Megatron-LM arguments"));
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("Paste Megatron-LM flags, a whole <tt>torchrun … pretrain_gpt.py …</tt> line or a launch "
                      "script (<tt>\\</tt> continuations, quotes and <tt>NAME=value</tt> variables are read). "
                      "The model, batch and parallel layout become the scenario; the "
                      "<i>Compare with Megatron / DeepSpeed</i> dock shows the peers' own estimates."),
                   this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("megatronText"));
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setPlaceholderText(QStringLiteral("torchrun --nproc_per_node 8 pretrain_gpt.py \\\n  --num-layers 32 "
                                              "--hidden-size 4096 --num-attention-heads 32 \\\n"
                                              "  --seq-length 4096 --micro-batch-size 1 --vocab-size 32000 --bf16 …"));
    m_text->setMinimumSize(640, 260);
    layout->addWidget(m_text, 1);
    auto* form = new QFormLayout;
    m_gpus = new QSpinBox(this);
    m_gpus->setObjectName(QStringLiteral("megatronGpus"));
    m_gpus->setRange(1, static_cast<int>(std::min<int64_t>(kMaxGpus, 1'000'000)));
    m_gpus->setValue(static_cast<int>(std::clamp<int64_t>(gpus, 1, 1'000'000)));
    form->addRow(tr("GPUs, if the text gives no --nproc_per_node:"), m_gpus);
    layout->addLayout(form);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("megatronError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->hide();
    layout->addWidget(m_error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Use these arguments"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (read())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void MegatronDialog::setText(const QString& text)
{
    m_text->setPlainText(text);
}

bool MegatronDialog::read()
{
    m_result = parseMegatronArgs(m_text->toPlainText().toStdString(), m_gpus->value(), "pasted text");
    if (m_result.ok()) {
        m_error->hide();
        return true;
    }
    QStringList lines;
    for (const FieldError& e : m_result.errors)
        lines << QString::fromStdString(e.path + ": " + e.message).toHtmlEscaped();
    m_error->setText(tr("<b>These arguments cannot be used:</b><br>%1").arg(lines.join(QStringLiteral("<br>"))));
    m_error->show();
    return false;
}

} // namespace trainmem
