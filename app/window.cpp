#include "window.h"

#include "mainwindow.h"
#include "settings.h"

#include <QApplication>
#include <QIcon>
#include <QStatusBar>

namespace trainmem {

int runWindow(const CliRequest& request, const PresetLibrary& library)
{
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/trainmem.svg")));
    // The command line wins, then what the user last had, then the default preset.
    Scenario initial = request.scenario;
    if (!request.scenarioGiven) {
        if (const std::optional<Scenario> last = Settings().lastScenario())
            initial = *last;
        else if (const PresetEntry* e = library.find(QString::fromLatin1(PresetLibrary::kDefaultPresetId)))
            initial = e->scenario;
    }
    MainWindow window(library, initial);
    window.show();
    for (const QString& w : request.warnings)
        window.statusBar()->showMessage(w, 8000);
    return QApplication::exec();
}

}  // namespace trainmem
