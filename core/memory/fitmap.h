#pragma once
// The fit map (issue 11 §3): GPUs needed over model size × context length for one scenario's recipe,
// layout and GPU. Every cell is Breakdown::minGpusToFit of the scenario with that size and context
// (docs/accounting.md, "The fit map"; tests/core/memory/tst_fitmap.cpp compares every cell with account()).

#include "accounting.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainmem {

/// The map's axes: model size 1B … 10T, context kSweepMinSeq … kSweepMaxSeq (512 … 1M).
inline constexpr double kFitMapMinParams = 1e9;
inline constexpr double kFitMapMaxParams = 1e13;
inline constexpr int kFitMapParamsPerDecade = 15;
inline constexpr int kFitMapSeqPerOctave = 4;

/// \brief The map's colours: how many GPUs a cell needs, in the bands issue 11 names.
enum class FitBand {
    One,      ///< fits on one GPU
    UpTo8,    ///< 2–8: one node
    UpTo64,   ///< 9–64
    UpTo1024, ///< 65–1024
    More,     ///< more than 1024 (or more than kMaxGpus: minGpusToFit 0 while the working set fits)
    Never,    ///< no count fits: the working set alone exceeds one GPU (serving: no split fits)
};
inline constexpr size_t kFitBandCount = static_cast<size_t>(FitBand::Never) + 1;
/// \brief The largest GPU count of each band below More.
inline constexpr std::array<int64_t, 4> kFitBandTop{1, 8, 64, 1024};

/// \brief The band of a cell that needs `gpus` (Breakdown::minGpusToFit) with `never` as gpusToFit() says.
FitBand fitBand(int64_t gpus, bool never);

/// \brief Model sizes (columns) and contexts (rows) of a map.
struct FitMapAxes {
    std::vector<int64_t> params; ///< total parameters, ascending
    std::vector<int64_t> seq;    ///< tokens, ascending
};

/// \brief The default axes: `perDecade` sizes per decade from 1B to 10T and `perOctave` contexts per doubling from
/// 512 to 1M, both evenly spaced on a log axis (the chart draws cell i at the i-th step). Under context parallel
/// `cp` every context is rounded to a multiple of 2·cp (Megatron-LM's chunks, as the context sweep does), so that
/// each row keeps the scenario's cp; a large cp can then repeat a short context in neighbouring rows.
FitMapAxes fitMapAxes(int64_t cp = 1, int perDecade = kFitMapParamsPerDecade, int perOctave = kFitMapSeqPerOctave);

/// \brief The model of a column: a size-only model (docs/accounting.md, Shape rule) of `totalParams`; dense stays
/// dense, a mixture of experts keeps `current`'s active share.
ModelSpec fitMapModel(const ResolvedModel& current, int64_t totalParams);

/// \brief The layer kinds a column's made-up shape of `layers` layers takes from `current` (issue 29 §2): the same
/// shares of sliding-window, chunked, linear-attention and Mamba-2 layers among the layers that have a token mixer,
/// with the same window, chunk and state widths, so that a hybrid model's map keeps its bounded caches and states
/// at every size. None for a model without kinds.
LayerKinds fitMapKinds(const ResolvedModel& current, int64_t layers);

/// \brief The scenario a cell describes: `s` with fitMapModel() of `totalParams` and context `seq`.
Scenario fitMapScenario(const Scenario& s, int64_t totalParams, int64_t seq);

/// \brief GPUs needed on every cell of the axes.
struct FitMap {
    FitMapAxes axes;
    std::vector<int64_t> gpus;  ///< minGpusToFit, column by column: index column · rows + row
    std::vector<FitBand> bands; ///< the same cells' bands
    /// Per column: how many rows, from the shortest context up, fit on one GPU before the first that does not
    /// (the "fits on one GPU" boundary lies above that many rows).
    std::vector<size_t> oneGpuRows;

    size_t columns() const { return axes.params.size(); }
    size_t rows() const { return axes.seq.size(); }
    int64_t gpusAt(size_t column, size_t row) const { return gpus[column * rows() + row]; }
    FitBand bandAt(size_t column, size_t row) const { return bands[column * rows() + row]; }
};

/// \brief The map of `s` on `gpu` over `axes`: one gpusToFit() per cell, one resolved model per column.
FitMap fitMap(const Scenario& s, const GpuSpec& gpu, const FitMapAxes& axes);
/// \brief The same over fitMapAxes() for the scenario's context parallel.
FitMap fitMap(const Scenario& s, const GpuSpec& gpu);

} // namespace trainmem
