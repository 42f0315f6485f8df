#include "measureddialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace trainmem {

MeasuredDialog::MeasuredDialog(QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("measuredDialog"));
    setWindowTitle(tr("Paste measured memory"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Paste what the GPU showed: the text of <tt>torch.cuda.memory_summary()</tt>, of <tt>nvidia-smi</tt>, "
           "PyTorch's out-of-memory error, torchtune's memory stats, or a figure with its statistic "
           "(<tt>peak allocated 61.2 GiB</tt>). It is drawn beside the prediction of the same statistic, and stays "
           "while you change the scenario to see what explains the gap."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("measuredText"));
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setPlaceholderText(QStringLiteral("| Allocated memory      |  14322 MiB |  22370 MiB | …\n"
                                              "or   peak reserved 70.2 GiB"));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap); // tables keep their columns
    m_text->setMinimumSize(560, 220);
    layout->addWidget(m_text, 1);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("measuredStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Show beside the prediction"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (read())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_text->toPlainText().trimmed().isEmpty())
            read();
        else
            m_status->clear();
    });
}

void MeasuredDialog::setText(const QString& text)
{
    m_text->setPlainText(text);
}

bool MeasuredDialog::read()
{
    const QByteArray text = m_text->toPlainText().toUtf8();
    m_result = parseMeasuredMemory(std::string_view(text.constData(), static_cast<size_t>(text.size())), "pasted text");
    if (m_result.ok()) {
        const MeasuredReading& r = m_result.primary;
        QString line =
            tr("Read as %1: %2 %3")
                .arg(QString::fromStdString(m_result.source), QString::fromStdString(statisticName(r.statistic)),
                     QString::fromStdString(formatBytes(r.bytes)));
        if (r.device >= 0)
            line += tr(" (GPU %1)").arg(r.device);
        QStringList lines{line};
        for (const std::string& n : m_result.notes)
            lines << QString::fromStdString(n);
        m_status->setStyleSheet(QString());
        m_status->setText(lines.join(QLatin1Char('\n')));
        return true;
    }
    QStringList lines;
    for (const FieldError& e : m_result.errors)
        lines << QString::fromStdString(e.path.empty() ? e.message : e.path + ": " + e.message);
    m_status->setStyleSheet(QStringLiteral("color: #b00020"));
    m_status->setText(tr("This text cannot be used: %1").arg(lines.join(QLatin1Char('\n'))));
    return false;
}

} // namespace trainmem
