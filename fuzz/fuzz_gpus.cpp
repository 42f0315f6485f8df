// libFuzzer target: the GPU catalog reader. Every GPU it accepts has finite, positive figures.
#include "gpu.h"

#include <cmath>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const trainmem::GpuCatalog c = trainmem::parseGpuCatalog(text, "gpus.json");
    for (const trainmem::GpuSpec& g : c.gpus)
        if (!(std::isfinite(g.memoryBytes) && g.memoryBytes > 0 && g.bf16Tflops > 0 && !g.id.empty()))
            std::abort();
    return 0;
}
