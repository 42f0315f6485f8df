// trainmem: the window, or a headless mode (--json, --text, --export-png, --list-*).
#include "cli.h"
#include "presetlibrary.h"
#include "window.h"

#include <QApplication>
#include <QCoreApplication>

#include <cstdio>
#include <memory>

namespace {

bool wantsHeadless(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        for (const char* flag : {"--json", "--text", "--export-png", "--export-tour", "--list-presets", "--list-gpus",
                                 "--help", "-h", "--version", "-v", "--help-all"})
            if (a == flag || a.startsWith(QByteArray(flag) + '='))
                return true;
    }
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication::setOrganizationName(QStringLiteral("TrainMem"));
    QCoreApplication::setOrganizationDomain(QStringLiteral("trainmem.org"));
    QCoreApplication::setApplicationName(QStringLiteral("trainmem"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TRAINMEM_VERSION));

    const bool headless = wantsHeadless(argc, argv);
    // Headless modes must work with no display: render offscreen unless told otherwise.
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationDisplayName(QStringLiteral("TrainMem"));
    QGuiApplication::setDesktopFileName(
        QStringLiteral("org.trainmem.TrainMem")); // Wayland matches the window to its .desktop entry

    const trainmem::PresetLibrary& library = trainmem::PresetLibrary::instance();
    const trainmem::CliOutcome parsed = trainmem::parseCommandLine(QCoreApplication::arguments(), library);
    if (!parsed.ok) {
        std::fprintf(stderr, "trainmem: %s\n\n%s", qPrintable(parsed.error), qPrintable(parsed.request.helpText));
        return 2;
    }
    if (parsed.request.action != trainmem::CliRequest::Action::Window)
        return trainmem::runHeadless(parsed.request, library);
    return trainmem::runWindow(parsed.request, library);
}
