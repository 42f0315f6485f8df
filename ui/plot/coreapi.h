#pragma once
// The core headers the widgets use, in one place.

#include "accounting.h"
#include "measured.h"
#include "report.h"
#include "units.h"
