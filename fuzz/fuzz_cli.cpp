// libFuzzer target: the command-line parser. The input is split on NUL/newline into arguments;
// parsing must either succeed with a valid scenario or fail with a message, never crash.
#include "accounting.h"
#include "cli.h"

#include <QCoreApplication>

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    static QCoreApplication app(*argc, *argv); // resources and QString need a Qt core
    (void)trainmem::PresetLibrary::instance();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    QStringList args{QStringLiteral("trainmem")};
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    for (const QByteArray& part : bytes.split('\n'))
        if (args.size() < 64)
            args << QString::fromUtf8(part);
    const trainmem::PresetLibrary& lib = trainmem::PresetLibrary::instance();
    const trainmem::CliOutcome o = trainmem::parseCommandLine(args, lib);
    if (!o.ok) {
        if (o.error.isEmpty())
            std::abort();
        return 0;
    }
    if (!trainmem::validateScenario(o.request.scenario, "").empty())
        std::abort(); // the parser must not hand on a scenario the validator rejects
    const trainmem::Breakdown b = trainmem::account(o.request.scenario, lib.gpuFor(o.request.scenario));
    if (!std::isfinite(b.perGpu.total()) || b.perGpu.total() < 0)
        std::abort();
    return 0;
}
