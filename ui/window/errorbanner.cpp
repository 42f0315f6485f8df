#include "errorbanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace trainmem {

ErrorBanner::ErrorBanner(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("errorBanner"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 6, 6);
    m_icon = new QLabel(this);
    auto* icon = m_icon;
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_close = new QToolButton(this);
    m_close->setAutoRaise(true);
    m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    m_close->setToolTip(tr("Dismiss"));
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
}

void ErrorBanner::showError(const QString& title, const QStringList& details)
{
    present(true, title, details);
}

void ErrorBanner::showInfo(const QString& title, const QStringList& details)
{
    present(false, title, details);
}

void ErrorBanner::present(bool error, const QString& title, const QStringList& details)
{
    m_error = error;
    setStyleSheet(error ? QStringLiteral("QFrame#errorBanner { background: rgba(192,57,43,40); border: 1px solid "
                                         "#c0392b; border-radius: 4px; }")
                        : QStringLiteral("QFrame#errorBanner { background: rgba(41,128,185,30); border: 1px solid "
                                         "#2980b9; border-radius: 4px; }"));
    m_icon->setPixmap(
        style()->standardIcon(error ? QStyle::SP_MessageBoxWarning : QStyle::SP_MessageBoxInformation).pixmap(24, 24));
    QStringList lines{title};
    lines << details;
    m_label->setText(lines.join(QLatin1Char('\n')));
    QFrame::show();
}

QString ErrorBanner::text() const
{
    return m_label->text();
}

} // namespace trainmem
