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
    /// The same strip in the information colours: what a file opened set and left (a training config).
    void showInfo(const QString& title, const QStringList& details);
    bool isError() const { return m_error; }
    QString text() const;

private:
    QLabel* m_label = nullptr;
    QToolButton* m_close = nullptr;
    QLabel* m_icon = nullptr;
    bool m_error = true;
    void present(bool error, const QString& title, const QStringList& details);
};

} // namespace trainmem
