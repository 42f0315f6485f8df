// libFuzzer target: the Hugging Face config.json importer and everything downstream of it.
// Any bytes must give an architecture or structured errors naming the file and the JSON pointer;
// whatever imports must become a scenario the validator accepts, resolve to sound parameter
// counts and account to finite, non-negative segments.
#include "accounting.h"
#include "fuzzcheck.h"
#include "hfconfig.h"
#include "params.h"

#include <cmath>
#include <cstdlib>
#include <string_view>

using fuzzcheck::checkSegments;
using fuzzcheck::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const trainmem::HfImport imp = trainmem::parseHfConfig(text, "config.json");
    for (const trainmem::FieldError& e : imp.errors)
        require(!e.message.empty() && e.file == "config.json");
    if (!imp.ok())
        return 0;
    const trainmem::Scenario s = trainmem::scenarioWithHfModel(trainmem::Scenario{}, imp, "fuzz");
    require(trainmem::validateScenario(s, "").empty()); // an import must be a scenario the app accepts
    const trainmem::ResolvedModel r = trainmem::resolveModel(s.model);
    const trainmem::ParamCount& pc = r.params;
    require(pc.total > 0 && pc.total <= trainmem::kMaxParams);
    require(pc.active > 0 && pc.active <= pc.total);
    require(pc.embedding >= 0 && pc.embedding <= pc.total);
    require(pc.routedExperts >= 0 && pc.routedExperts <= pc.total);
    const trainmem::GpuSpec gpu;
    const trainmem::Breakdown b = trainmem::account(r, s, gpu);
    checkSegments(b.perGpu);
    checkSegments(b.singleGpu);
    require(std::isfinite(b.modelStateBytes) && b.modelStateBytes >= 0);
    return 0;
}
