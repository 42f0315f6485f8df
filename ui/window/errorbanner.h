#pragma once
// A non-blocking error strip above the charts: the message stays until dismissed, the app keeps
// working on the last good state (used for bad scenario files and failed exports).

#include <QFrame>

class QLabel;
class QToolButton;

namespace trainmem {

class ErrorBanner : public QFrame
{
    Q_OBJECT
public:
    explicit ErrorBanner(QWidget* parent = nullptr);

    void showError(const QString& title, const QStringList& details);
    QString text() const;

private:
    QLabel* m_label = nullptr;
    QToolButton* m_close = nullptr;
};

} // namespace trainmem
