#pragma once
// What the accounting says, in words and as JSON (the --json output, docs/accounting.md and README "Command line").

#include "accounting.h"
#include "cost.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace trainmem {

/// \brief The plain-words verdict with its numbers, e.g.
/// "Dies: 112 GB of model state is 1.4× one H100 (80 GB); it needs 2 GPUs with ZeRO-3."
std::string verdict(const Breakdown& b, const Scenario& s, const GpuSpec& gpu);
/// \brief The verdict of a tour step that builds the memory up a kind at a time (issue 31 §1): what the bars show so
/// far, `bytes` on one `gpu`, not the whole scenario ("So far it fits: 14.0 GB on one H100 (80.0 GB, 18% used).").
std::string soFarVerdict(double bytes, const GpuSpec& gpu);

/// \brief The full --json document: breakdown, GPU, fit, parallel layout, tax, cost, resolved scenario.
nlohmann::json breakdownToJson(const Breakdown& b, const Scenario& s, const GpuSpec& gpu, const CostReceipt& cost);

/// \brief A short human-readable table of the breakdown, for the terminal.
std::string breakdownToText(const Breakdown& b, const Scenario& s, const GpuSpec& gpu);
/// \brief The same breakdown as a Markdown table (issue 31 §3: Edit ▸ Copy breakdown as Markdown): a heading line
/// with the model and setup, one row per term of the busiest GPU with its bytes and share, the total, the GPU, and the
/// verdict under it.
std::string breakdownToMarkdown(const Breakdown& b, const Scenario& s, const GpuSpec& gpu);
/// \brief The busiest GPU's terms as CSV (RFC 4180): `term,label,bytes,share`, one row per term, then `total` and
/// `gpu_memory`; bytes are whole numbers.
std::string breakdownToCsv(const Breakdown& b, const Scenario& s, const GpuSpec& gpu);

} // namespace trainmem
