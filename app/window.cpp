#include "window.h"

#include "mainwindow.h"
#include "peerspanel.h"
#include "settings.h"

#include <QApplication>
#include <QDockWidget>
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
    if (request.megatron) {
        // --megatron-args opens the comparison dock on the pasted launch.
        MegatronParse parse;
        parse.args = *request.megatron;
        for (const QString& i : request.megatronIgnored)
            parse.ignored.push_back(i.toStdString());
        for (const QString& n : request.megatronNotes)
            parse.notes.push_back(n.toStdString());
        window.peers()->setPasted(parse, window.scenario());
        window.peers()->setScenario(window.scenario(), library.gpuFor(window.scenario()));
        if (auto* dock = window.findChild<QDockWidget*>(QStringLiteral("peersDock")))
            dock->show();
    }
    if (request.measured) // --measured: the readout beside the prediction
        window.setMeasured(*request.measured);
    window.show();
    for (const QString& w : request.warnings)
        window.statusBar()->showMessage(w, 8000);
    return QApplication::exec();
}

} // namespace trainmem
