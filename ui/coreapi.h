#pragma once
// The core headers for Qt code. core/recipe.h has a field named `slots`, which Qt's keyword macro
// would erase once any Qt object header is in; include the core through here, with it lifted.

#pragma push_macro("slots")
#undef slots
#include "accounting.h"
#include "report.h"
#include "units.h"
#pragma pop_macro("slots")
