// libFuzzer target: the scenario loader and everything downstream of it.
// Any input must parse to a scenario or to structured errors, and whatever parses must account
// to finite, non-negative segments whose total is their sum.
#include "accounting.h"
#include "cost.h"
#include "fuzzcheck.h"
#include "jsontext.h"
#include "report.h"
#include "scenarioio.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <string_view>

using fuzzcheck::checkSegments;
using fuzzcheck::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const trainmem::ScenarioParse p = trainmem::parseScenario(text, "fuzz.json");
    for (const trainmem::FieldError& e : p.errors)
        require(!e.message.empty() && e.file == "fuzz.json");
    const trainmem::GpuSpec gpu;
    const trainmem::Breakdown b = trainmem::account(p.scenario, gpu);
    checkSegments(b.perGpu);
    checkSegments(b.singleGpu);
    require(std::isfinite(b.modelStateBytes) && b.modelStateBytes >= 0);
    const trainmem::CostReceipt c = trainmem::computeCost(b.model, p.scenario, gpu);
    require(std::isfinite(c.gpuHours) && c.gpuHours >= 0);
    (void)trainmem::jsonText(trainmem::breakdownToJson(b, p.scenario, gpu, c));
    if (p.ok()) {
        // What parsed cleanly must save and load back to the same scenario.
        const std::string saved = trainmem::scenarioToText(p.scenario);
        const trainmem::ScenarioParse again = trainmem::parseScenario(saved, "saved.json");
        require(again.ok());
        require(trainmem::scenarioToText(again.scenario) == saved);
        if (size < 512) { // sweeps are the expensive part; keep the fuzzer fast
            const trainmem::ContextSweep sw = trainmem::sweepContext(p.scenario, gpu, 1);
            for (const auto& curve : sw.totalPerGpu)
                for (double v : curve)
                    require(std::isfinite(v) && v >= 0);
        }
    }
    return 0;
}
