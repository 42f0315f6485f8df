#include "userguide.h"

#include <QDesktopServices>
#include <QFile>
#include <QHBoxLayout>
#include <QListWidget>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QUrl>

namespace trainmem {

namespace {

/// Where the build put the pages (ui/window/CMakeLists.txt): the repository's layout under this prefix.
const QString kRoot = QStringLiteral(":/guide/");

} // namespace

UserGuide::UserGuide(QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("userGuide"));
    setWindowTitle(tr("TrainMem user guide"));
    m_contents = new QListWidget(this);
    m_contents->setObjectName(QStringLiteral("guideContents"));
    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("guideBrowser"));
    m_browser->setOpenLinks(false); // links between pages resolve here; web links go to the browser
    auto* splitter = new QSplitter(this);
    splitter->addWidget(m_contents);
    splitter->addWidget(m_browser);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({200, 700});
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(splitter);
    resize(960, 700);

    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https")) {
            QDesktopServices::openUrl(url);
            return;
        }
        // A page of the guide, relative to the page shown ("docs/accounting.md" from the README).
        const QUrl target = m_browser->source().resolved(url);
        QString page = target.path();
        if (page.startsWith(kRoot.mid(1))) // ":/guide/…" parses as the path "/guide/…" of a "qrc"-less URL
            page = page.mid(kRoot.size() - 1);
        else if (page.startsWith(QLatin1String("/guide/")))
            page = page.mid(7);
        openPage(page);
    });
    connect(m_contents, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { showSection(item->text()); });
    connect(m_contents, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) { showSection(item->text()); });
    openPage(QStringLiteral("README.md"));
}

void UserGuide::openPage(const QString& page)
{
    const QString path = kRoot + page;
    if (!QFile::exists(path)) {
        m_browser->setMarkdown(tr("**%1** is not part of the built-in guide.").arg(page));
        return;
    }
    m_browser->setSource(QUrl(QStringLiteral("qrc") + path), QTextDocument::MarkdownResource);
    fillContents();
}

void UserGuide::fillContents()
{
    m_contents->clear();
    for (QTextBlock b = m_browser->document()->begin(); b.isValid(); b = b.next())
        if (const int level = b.blockFormat().headingLevel(); level >= 1 && level <= 2 && !b.text().isEmpty())
            m_contents->addItem(b.text());
}

bool UserGuide::showSection(const QString& title)
{
    for (QTextBlock b = m_browser->document()->begin(); b.isValid(); b = b.next()) {
        if (b.blockFormat().headingLevel() > 0 && b.text() == title) {
            QTextCursor c(b);
            m_browser->setTextCursor(c);
            // The heading at the top of the view, not merely somewhere in it.
            m_browser->verticalScrollBar()->setValue(m_browser->verticalScrollBar()->maximum());
            m_browser->ensureCursorVisible();
            return true;
        }
    }
    return false;
}

} // namespace trainmem
