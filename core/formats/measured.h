#pragma once
// What the GPU showed, beside what TrainMem predicts (issue 32): the text of torch.cuda.memory_summary(), of
// nvidia-smi (its table or --query-gpu CSV), of PyTorch's out-of-memory error, of torchtune's memory-stats log, or a
// number with its statistic, read into the statistic it measures; and the comparison with the prediction of the same
// statistic. docs/scenario-format.md ("Measured memory") lists what is read.

#include "accounting.h"
#include "errors.h"
#include "segmentkind.h"
#include "timeline.h"

#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

/// \brief What a readout measures, from the smallest to the largest (each holds the one before it).
enum class MemoryStatistic {
    PeakAllocated, ///< torch.cuda.max_memory_allocated(): the tensors at their peak
    PeakReserved,  ///< torch.cuda.max_memory_reserved(): the caching allocator's segments at their peak
    DeviceUsed,    ///< nvidia-smi's "used": the process's whole footprint, the CUDA context included
};
/// "peak_allocated", "peak_reserved", "device_used" (--json's measured.statistic).
const char* statisticId(MemoryStatistic s);
/// "peak allocated", "peak reserved", "in use on the GPU (nvidia-smi)".
std::string statisticName(MemoryStatistic s);

/// \brief One figure found in the text.
struct MeasuredReading {
    MemoryStatistic statistic = MemoryStatistic::PeakAllocated;
    double bytes = 0;
    int device = -1; ///< the GPU it is of, when the text says (-1: not said)
    int line = 0;    ///< 1-based line of the text it was read from
};

/// \brief A readout, read.
struct MeasuredMemory {
    /// What the text is: "torch.cuda.memory_summary()", "nvidia-smi", "nvidia-smi --query-gpu",
    /// "PyTorch's out-of-memory error", "a figure with its statistic".
    std::string source;
    std::vector<MeasuredReading> readings; ///< every figure found, in text order
    /// The one compared: the smallest statistic the text gives (the one the accounting predicts most directly), the
    /// largest figure of it (the busiest GPU, the highest of several logs).
    MeasuredReading primary;
    std::vector<std::string> notes; ///< how the primary was chosen, what was left
    FieldErrors errors;
    bool ok() const { return errors.empty() && !readings.empty(); }
};

/// The largest readout text read, in bytes (a pasted log of a whole run is cut to its first 4 MB).
inline constexpr size_t kMaxMeasuredText = 4u << 20;
/// The largest figure taken: 1 PB on one GPU is past any GPU made.
inline constexpr double kMaxMeasuredBytes = 1e15;

/// \brief Reads a readout. `file` names the source in every error ("-", "pasted text", a path).
MeasuredMemory parseMeasuredMemory(std::string_view text, const std::string& file);

/// \brief A term that may explain a gap, and why.
struct GapTerm {
    SegmentKind kind = SegmentKind::Activations;
    double bytes = 0; ///< the term's predicted bytes on the busiest GPU
    std::string why;  ///< what makes it differ on a real run
};

/// \brief The readout beside the prediction of the same statistic.
struct MeasuredComparison {
    MemoryStatistic statistic = MemoryStatistic::PeakAllocated;
    double measured = 0;
    double predicted = 0;        ///< the busiest GPU's terms that statistic holds
    double ratio = 0;            ///< measured / predicted
    double gap = 0;              ///< measured − predicted
    bool agrees = false;         ///< within kAgreement of the prediction
    std::vector<GapTerm> likely; ///< at most three terms that could explain the gap, the likeliest first
    std::string summary;         ///< one paragraph: the two figures, the gap and the terms
};

/// A readout within this share of the prediction agrees with it.
inline constexpr double kAgreement = 0.05;

/// \brief The bytes of `perGpu` the statistic holds: peak allocated, every term but the CUDA context and the
/// allocator's reserve; peak reserved, every term but the context; in use on the GPU, every term.
double predictedFor(const Segments& perGpu, MemoryStatistic s);
/// \brief Statistic `stat` as the tools report it, from toolsView() (core/memory/timeline.h): peak allocated and
/// reserved of its moment (the film's peak under --framework torchtune, else the bars), the device's view its
/// `device` (the verdict's figure, never below the reserved).
double predictedStatistic(const ToolsView& v, MemoryStatistic stat);

/// \brief `m`'s primary figure against the busiest GPU of `b`; the summary's sizes in `units`.
MeasuredComparison compareMeasured(const MeasuredMemory& m, const Breakdown& b, const Scenario& s,
                                   UnitSystem units = UnitSystem::Decimal);

} // namespace trainmem
