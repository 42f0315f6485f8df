#pragma once
// The GPU catalog (presets/gpus.json): what one accelerator holds and how fast it multiplies.

#include "errors.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

/// \brief One accelerator type.
struct GpuSpec {
    std::string id;            ///< "H100", short enough for a sentence
    std::string name;          ///< "NVIDIA H100 SXM 80GB"
    double memoryBytes = 80e9; ///< marketed capacity in decimal bytes (the chapter's convention)
    double bf16Tflops = 989;   ///< dense peak, no sparsity
    double fp8Tflops = 1979;   ///< dense peak, 0 when the GPU has no fp8 tensor cores
    /// Typical cloud USD per GPU-hour; unset when no public price was found (B300, MI355X, …): the cost receipt then
    /// asks for the user's own price instead of showing a dollar figure.
    std::optional<double> pricePerHour = 2.0;
    /// Host (CPU) memory of one node of these GPUs, decimal bytes (a DGX H100: 2 TB); 0 when the catalog
    /// gives none, and then offloaded state is not checked against it.
    double hostMemoryBytes = 0;
    std::string source;
    std::string note; ///< a caveat (V100: no BF16 tensor cores; the figure is fp16's)

    bool operator==(const GpuSpec&) const = default;
};

/// \brief Result of reading a catalog: the valid GPUs and an error for each bad one.
struct GpuCatalog {
    std::vector<GpuSpec> gpus;
    std::vector<FieldError> errors;
    /// Finds a GPU by id or name, case-insensitively; nullptr when absent.
    const GpuSpec* find(std::string_view idOrName) const;
};

/// \brief Parses presets/gpus.json text (schema "trainmem/gpus@1"). `file` names it in errors.
GpuCatalog parseGpuCatalog(std::string_view text, const std::string& file);

} // namespace trainmem
