#pragma once
// Megatron-LM's --pipeline-model-parallel-layout (issue 33): which layers each pipeline stage builds, written as a
// string such as "Et*3|(tt|)*29,m|L" (docs/user-guide/features/pipeline_parallel_layout.md and
// megatron/core/transformer/pipeline_parallel_layer_layout.py at d98e8a64ddf34856e74b24714e3bedb2f5a39553).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

/// \brief One stage of a layout (a model chunk): what it builds. Stage k of pp·vpp is the chunk vpp_rank = k / pp
/// of pipeline rank k % pp, as PipelineParallelLayerLayout lays the flat list out.
struct LayoutStage {
    int64_t embedding = 0; ///< E
    int64_t decoders = 0;  ///< t: transformer layers
    int64_t mtp = 0;       ///< m: multi-token-prediction layers
    int64_t loss = 0;      ///< L
    bool operator==(const LayoutStage&) const = default;
};

/// The longest layout text read, and the most layers and separators it may unroll to: 61-layer DeepSeek-V3's
/// "Et*3|(tt|)*29,m|L" is 17 characters and unrolls to 96.
inline constexpr size_t kMaxLayoutText = 4096;
inline constexpr size_t kMaxLayoutUnrolled = 40'000;

/// \brief The stages of a layout string, or why it cannot be read.
struct LayoutParse {
    std::vector<LayoutStage> stages;
    std::string error;
};

/// \brief Parses a layout as PipelineParallelLayerLayout.parse_str_to_list does: commas dropped, "(…)*n" then "x*n"
/// unrolled once each, stages split at '|', and E, t, m, L the only layer characters.
LayoutParse parsePipelineLayout(std::string_view text);

/// \brief The virtual stages per pipeline rank a layout gives on `pp` ranks (its stages over pp, as arguments.py
/// sets them), or 0 when pp does not divide its stages.
int64_t layoutVirtualStages(const std::vector<LayoutStage>& stages, int64_t pp);

/// \brief Why `stages` cannot be the layout of a model with `layers` transformer layers and `mtpLayers` MTP layers on
/// `pp` pipeline ranks with `vpp` virtual stages each, as Megatron-LM's arguments.py and validate_layer_layout
/// assert, or an empty string.
std::string pipelineLayoutProblem(const std::vector<LayoutStage>& stages, int64_t layers, int64_t mtpLayers, int64_t pp,
                                  int64_t vpp);

/// \brief The pipeline rank whose stages hold the MTP layers (get_mtp_ranks), or -1 when none does or `pp` does not
/// divide the stages.
int64_t layoutMtpRank(const std::vector<LayoutStage>& stages, int64_t pp);

/// \brief Megatron-LM's pretty_repr of a layout, one line per run of pipeline ranks that build the same, e.g.
/// "rank 0: embedding, 3 layers | 2 layers".
std::vector<std::string> describePipelineLayout(const std::vector<LayoutStage>& stages, int64_t pp);

} // namespace trainmem
