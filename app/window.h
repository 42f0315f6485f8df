#pragma once
#include "cli.h"

namespace trainmem {
/// Opens the main window on the request's scenario (or the remembered state) and runs the event loop.
int runWindow(const CliRequest& request, const PresetLibrary& library);
} // namespace trainmem
