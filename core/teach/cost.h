#pragma once
// Compute and cost receipt (docs/accounting.md, "Receipts"; Kaplan et al. 2020).

#include "gpu.h"
#include "params.h"
#include "scenario.h"

#include <vector>

namespace trainmem {

/// \brief What training on `tokens` costs.
struct CostReceipt {
    double flopsPerToken = 0; ///< 6·active + 6·L·s·d_attn (Kaplan et al. 2020, §2.1, ×3 for training)
    double totalFlops = 0;
    double peakFlopsPerGpu = 0; ///< dense peak for the precision (fp8 peak for fp8-mixed when the GPU has it)
    double mfu = 0;
    double pretrainingGpuHours = 0; ///< the tokens' FLOPs at the MFU
    std::vector<CostPhase> phases;  ///< the scenario's other phases, their published GPU-hours
    double gpuHours = 0;            ///< pre-training plus the other phases
    double pricePerGpuHour = 0;     ///< the scenario's, or the GPU's typical price when 0
    /// False when the scenario sets no price and the catalog has none for the GPU: pricePerGpuHour and costUsd are
    /// then 0 and mean "unknown", never $0 (every display says "price unknown: set your own").
    bool priceKnown = true;
    double costUsd = 0;
    double wallClockDays = 0; ///< on the scenario's GPU count
};

/// \brief FLOPs, GPU-hours, dollars and days for a scenario.
CostReceipt computeCost(const ResolvedModel& m, const Scenario& s, const GpuSpec& gpu);

} // namespace trainmem
