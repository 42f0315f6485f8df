#pragma once
// The guided chapter tour as data: each step sets a scenario and names the number it makes its
// point with. Every number is computed by account() at run time, never typed in, so the tests
// (tests/core/teach/tst_tour.cpp) can assert the chapter's figures through the tour itself.

#include "accounting.h"
#include "gpu.h"
#include "scenario.h"
#include "segmentkind.h"
#include "timeline.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace trainmem {

/// \brief Finds a preset by id (the UI reads Qt resources, the tests read presets/).
using PresetLookup = std::function<std::optional<Scenario>(const std::string& id)>;
/// \brief Finds a GPU by id in the catalog.
using GpuLookup = std::function<std::optional<GpuSpec>(const std::string& id)>;

/// \brief A number shown next to the highlighted one (e.g. active vs total).
struct TourFigure {
    TourFigure(std::string l, double b, std::string v = {}) : label(std::move(l)), bytes(b), valueText(std::move(v)) {}
    std::string label;
    double bytes = 0;
    std::string valueText; ///< shown instead of the bytes when the number is not memory ("2.79M H800-hours")
};

/// \brief What a step says, with the numbers the core computed for it.
struct TourHighlight {
    std::string label;               ///< "Model state of 7B training"
    double bytes = 0;                ///< the highlighted number
    std::string valueText;           ///< shown instead of `bytes` when the number is not memory (the cost receipt)
    std::vector<TourFigure> figures; ///< side-by-side numbers, the highlighted one first
    std::string text;                ///< the explanation, numbers included
};

/// \brief One step of the tour.
struct TourStep {
    std::string id;                           ///< stable, for tests and settings ("7b-training")
    std::string title;                        ///< "7B training dies on one H100"
    std::string presetId;                     ///< the preset it starts from; empty for a size-only model
    std::function<void(Scenario&)> configure; ///< changes applied on top of the preset
    std::vector<SegmentKind> revealed;        ///< segments the bar chart shows at this step
    std::vector<SegmentKind> added;           ///< segments this step adds to the picture (outlined); empty elsewhere
    std::optional<StepPhaseKind> phase;       ///< the phase of the step's film it plays (issue 11 §2), if any
    std::function<TourHighlight(const Scenario&, const Breakdown&, const GpuSpec&)> highlight;
    /// Steps with the same non-empty axis share the bar chart's value axis: a class compares their bars' heights
    /// from one slide to the next (issue 31: DeepSeek-V3's two steps drew the same bars on two axes).
    std::string axis;
};

/// \brief A step made concrete: its scenario, GPU, breakdown and highlight.
struct TourStage {
    const TourStep* step = nullptr;
    Scenario scenario;
    GpuSpec gpu;
    Breakdown breakdown;
    TourHighlight highlight;
    double axisTop = 0;                    ///< the tallest bar of the steps sharing its axis (0: none shared)
    std::vector<std::string> axisCallouts; ///< their callouts, the step's own among them, for the room above the bars
};

/// \brief What the charts show at a step (issue 11 §2): only the revealed segments, the ones the
/// step adds outlined, and the step's number in large type ("So far: 56.0 GB").
struct TourPicture {
    std::vector<SegmentKind> revealed;
    std::vector<SegmentKind> added;
    std::string callout;
    std::optional<StepPhaseKind> phase;    ///< the phase the timeline shades
    double axisTop = 0;                    ///< the value axis reaches at least this (the steps sharing it)
    std::vector<std::string> axisCallouts; ///< room above the bars for the tallest of these callouts
};
TourPicture tourPicture(const TourStage& stage);
/// \brief The step's number in large type: "label: value" ("So far: 56.0 GB").
std::string tourCallout(const TourHighlight& h);
/// \brief What `kinds` of `g` add up to: the bars' "so far" during a build-up step.
double revealedBytes(const Segments& g, const std::vector<SegmentKind>& kinds);
/// \brief The tallest of the bars the chart draws at this stage (inference and training on one GPU, the scenario per
/// GPU), counting only the revealed segments.
double tallestTourBar(const TourStage& stage);

/// \brief "01-7b-inference": the file name (without extension) of step `index` in an exported deck.
std::string tourSlideName(size_t index, const TourStep& step);

/// \brief The chapter's steps, in order (the source chapter, as docs/accounting.md tells it).
const std::vector<TourStep>& chapterTour();

/// \brief Index of the step with this id, or nullopt.
std::optional<size_t> tourStepIndex(const std::string& id);

/// \brief The step's scenario: the preset (or a size-only 7B default) with the step's changes.
/// Returns nullopt when the preset is missing.
std::optional<Scenario> tourScenario(const TourStep& step, const PresetLookup& presets);

/// \brief Sets up and evaluates one step. Returns nullopt when its preset or GPU is missing.
std::optional<TourStage> evaluateTourStep(const TourStep& step, const PresetLookup& presets, const GpuLookup& gpus);

} // namespace trainmem
