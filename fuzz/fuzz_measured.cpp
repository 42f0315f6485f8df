// libFuzzer target: the memory readout reader of issue 32 (torch.cuda.memory_summary(), nvidia-smi, PyTorch's
// out-of-memory error, torchtune's log, a figure with its statistic) and the comparison with a prediction. Any bytes
// must give readings or structured errors naming the source; every reading must be a finite figure a GPU can hold,
// the compared one among them, and the comparison finite.
#include "accounting.h"
#include "fuzzcheck.h"
#include "measured.h"

#include <algorithm>
#include <cmath>
#include <string_view>

using fuzzcheck::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const trainmem::MeasuredMemory m = trainmem::parseMeasuredMemory(text, "fuzz");
    for (const trainmem::FieldError& e : m.errors)
        require(e.file == "fuzz" && !e.message.empty());
    if (!m.ok())
        return 0;
    require(!m.source.empty());
    for (const trainmem::MeasuredReading& r : m.readings)
        require(std::isfinite(r.bytes) && r.bytes >= 0 && r.bytes <= trainmem::kMaxMeasuredBytes && r.line >= 1);
    require(std::any_of(m.readings.begin(), m.readings.end(), [&](const trainmem::MeasuredReading& r) {
        return r.statistic == m.primary.statistic && r.bytes == m.primary.bytes;
    }));
    for (const trainmem::MeasuredReading& r : m.readings)
        require(r.statistic >= m.primary.statistic);
    const trainmem::Scenario s;
    const trainmem::Breakdown b = trainmem::account(s, trainmem::GpuSpec{});
    const trainmem::MeasuredComparison c = trainmem::compareMeasured(m, b, s);
    require(std::isfinite(c.ratio) && std::isfinite(c.gap) && std::isfinite(c.predicted) && !c.summary.empty());
    require(c.likely.size() <= 3);
    return 0;
}
