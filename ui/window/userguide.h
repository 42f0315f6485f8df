#pragma once
// Help ▸ User guide (issue 31 §3): the README's sections and the docs it links to, built into the program so that
// the guide works offline and always matches the build. A contents list on the left jumps to a section; links
// between the pages stay inside the guide, web links open in the browser.

#include <QDialog>

class QListWidget;
class QTextBrowser;

namespace trainmem {

class UserGuide : public QDialog
{
    Q_OBJECT
public:
    explicit UserGuide(QWidget* parent = nullptr);

    /// Shows a page of the guide: "README.md" (the start), "docs/accounting.md", …
    void openPage(const QString& page);
    /// Scrolls to the first heading reading `title` on the current page; false when there is none.
    bool showSection(const QString& title);

    QTextBrowser* browser() const { return m_browser; }
    QListWidget* contents() const { return m_contents; }

private:
    void fillContents();

    QListWidget* m_contents = nullptr;
    QTextBrowser* m_browser = nullptr;
};

} // namespace trainmem
