// libFuzzer target: the training config readers of issue 32 (DeepSpeed JSON, axolotl and torchtune YAML) and what
// applies them. The same bytes go to all three (JSON is YAML too, so one input can be both an axolotl file and the
// DeepSpeed file it names). Any bytes must give settings or structured errors naming the file; whatever reads
// cleanly must apply to a scenario the validator accepts and account to finite, non-negative segments.
#include "accounting.h"
#include "fuzzcheck.h"
#include "trainconfig.h"

#include <cmath>
#include <string_view>

using fuzzcheck::checkSegments;
using fuzzcheck::require;

namespace {

void checkErrors(const trainmem::TrainingConfig& c, const char* file)
{
    require(c.file == file);
    for (const trainmem::FieldError& e : c.errors)
        require(!e.message.empty() && e.file == file);
    for (const std::string& i : c.ignored)
        require(!i.empty());
}

// A clean read applied to the default scenario must be one the app accepts, and account soundly.
void checkApplied(const trainmem::TrainingConfig& c)
{
    if (!c.ok())
        return;
    const trainmem::Scenario s = trainmem::applyTrainingConfig(trainmem::Scenario{}, c);
    require(trainmem::validateScenario(s, "").empty());
    const trainmem::GpuSpec gpu;
    const trainmem::Breakdown b = trainmem::account(s, gpu);
    checkSegments(b.perGpu);
    require(std::isfinite(b.modelStateBytes) && b.modelStateBytes >= 0);
    if (s.model.hasArchitecture) {
        const std::string note = trainmem::loraTargetsNote(s.model.architecture, c, s.training);
        require(note.empty() || note.rfind("LoRA on ", 0) == 0);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const trainmem::TrainingConfig ds = trainmem::parseDeepSpeedConfig(text, "ds.json");
    checkErrors(ds, "ds.json");
    checkApplied(ds);
    const trainmem::TrainingConfig tt = trainmem::parseTorchtuneConfig(text, "tune.yaml");
    checkErrors(tt, "tune.yaml");
    checkApplied(tt);
    trainmem::TrainingConfig ax = trainmem::parseAxolotlConfig(text, "axolotl.yml");
    checkErrors(ax, "axolotl.yml");
    if (ax.ok() && ds.ok()) {
        trainmem::mergeDeepSpeed(ax, ds);
        checkApplied(ax);
    } else {
        checkApplied(ax);
    }
    return 0;
}
