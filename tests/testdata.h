#pragma once
// Helpers shared by the core suites: read a preset or models.json from the source tree.
#include "accounting.h"
#include "hfconfig.h"
#include "scenarioio.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace testdata {

inline std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline trainmem::Scenario preset(const std::string& id)
{
    const std::string path = std::string(TRAINMEM_PRESETS_DIR) + "/" + id + ".json";
    const trainmem::ScenarioParse p = trainmem::parseScenario(readFile(path), path);
    if (!p.ok())
        qFatal("preset %s does not parse: %s", id.c_str(), p.errors.front().toString().c_str());
    return p.scenario;
}

/// Every built-in preset's id, sorted: the scenario files of presets/ (not the GPU catalog or models.json).
inline std::vector<std::string> presetIds()
{
    std::vector<std::string> ids;
    for (const auto& e : std::filesystem::directory_iterator(TRAINMEM_PRESETS_DIR)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() == ".json" && name != "gpus.json" && name != "models.json")
            ids.push_back(e.path().stem().string());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

inline trainmem::GpuCatalog gpus()
{
    const std::string path = std::string(TRAINMEM_PRESETS_DIR) + "/gpus.json";
    return trainmem::parseGpuCatalog(readFile(path), path);
}

inline trainmem::GpuSpec gpu(const std::string& id)
{
    const trainmem::GpuCatalog c = gpus();
    const trainmem::GpuSpec* g = c.find(id);
    if (!g)
        qFatal("no GPU %s in the catalog", id.c_str());
    return *g;
}

/// DeepSeek-V3 as its report trains it (2048 H800-class GPUs, tp 1, ep 64, 32 micro-batches) on `pp` stages,
/// with `first` and `last` layers on the end stages (0: the even split).
inline trainmem::Scenario deepseekV3OnPipeline(int64_t pp, int64_t first = 0, int64_t last = 0)
{
    trainmem::Scenario s = preset("deepseek-v3");
    s.hardware.gpus = 2048;
    s.hardware.tp = 1;
    s.hardware.pp = pp;
    s.hardware.ep = 64;
    s.training.gradAccum = 32;
    s.hardware.split.firstLayers = first;
    s.hardware.split.lastLayers = last;
    return s;
}

/// A size-only scenario: the chapter's way of speaking ("a 7B model").
inline trainmem::Scenario sized(int64_t params, int64_t active = 0)
{
    trainmem::Scenario s;
    s.model.hasArchitecture = false;
    s.model.params = params;
    s.model.activeParams = active;
    return s;
}

inline void compareBytes(double actual, double expected, double relTol = 1e-9)
{
    QVERIFY2(std::abs(actual - expected) <= relTol * std::max(1.0, std::abs(expected)),
             qPrintable(QStringLiteral("got %1, expected %2").arg(actual, 0, 'f', 0).arg(expected, 0, 'f', 0)));
}

#ifdef TRAINMEM_HF_DATA
/// The model of tests/data/hf/<name>.json, trained (the rest of the scenario at its defaults).
inline trainmem::Scenario hfTraining(const std::string& name)
{
    using namespace trainmem;
    const HfImport imp = parseHfConfig(readFile(std::string(TRAINMEM_HF_DATA "/") + name + ".json"), "config.json");
    Scenario s = scenarioWithHfModel(Scenario{}, imp, name);
    s.training.mode = Mode::Training;
    return s;
}

/// torchtune's README runs of Llama 3.2 3B (tests/data/measured/torchtune-llama3_2-3b-*): the model from its
/// config.json, trained in bf16 at s = 4096, b = 2, with the chunked loss, compiled.
inline trainmem::Scenario torchtuneLlama32_3B()
{
    using namespace trainmem;
    Scenario s = hfTraining("Llama-3.2-3B");
    s.training.precision = Precision::BF16;
    s.training.seqLen = 4096;
    s.training.microBatch = 2;
    s.training.loss = LossKind::Chunked;
    s.training.compile = true;
    return s;
}
#endif

} // namespace testdata
