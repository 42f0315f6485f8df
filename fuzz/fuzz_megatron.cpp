// libFuzzer target: the Megatron-LM launch reader (shell words, flags, list expressions) and
// everything downstream of it: the scenario it converts to, TrainMem's accounting and the peers'
// own estimates. Any text must give MegatronArgs or structured errors naming the flag; whatever
// parses must convert to a scenario the validator accepts and give finite, non-negative bytes
//.
#include "accounting.h"
#include "fuzzcheck.h"
#include "jsontext.h"
#include "megatronargs.h"
#include "peers.h"

#include <cmath>
#include <cstdlib>
#include <string>

using fuzzcheck::checkSegments;
using fuzzcheck::require;
using fuzzcheck::requireBytes;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    // The window's GPU spin box and --gpus hand a count in; 0 means "not given". Both paths.
    const int64_t gpus = size % 2 ? 8 : 0;
    const trainmem::MegatronParse p = trainmem::parseMegatronArgs(text, gpus, "fuzz.sh");
    for (const trainmem::FieldError& e : p.errors)
        require(!e.message.empty() && e.file == "fuzz.sh" && !e.toString().empty());
    if (!p.ok())
        return 0;
    const trainmem::Scenario s = trainmem::scenarioFromMegatron(p.args, trainmem::Scenario{});
    require(trainmem::validateScenario(s, "").empty()); // a parsed launch must convert to a valid scenario
    const trainmem::GpuSpec gpu;
    const trainmem::Breakdown b = trainmem::account(s, gpu);
    checkSegments(b.perGpu);
    checkSegments(b.singleGpu);
    requireBytes(b.modelStateBytes);

    const trainmem::PeerComparison c = trainmem::comparePeers(p.args, s, gpu);
    const trainmem::MegatronEstimate& m = c.megatron;
    if (m.available) {
        for (double v : {m.weightAndOptimizerBytes, m.activationBytes, m.totalBytes(), m.totalParams, m.activeParams,
                         m.mostLoadedShardParams, m.weights, m.gradients, m.master, m.optimizer, m.activationLayers,
                         m.activationEmbedding, m.activationOutput})
            requireBytes(v);
        require(std::isfinite(m.interleavePenalty) && m.interleavePenalty >= 1);
        checkSegments(trainmem::megatronSegments(m));
    } else {
        require(!m.unavailableReason.empty());
    }
    require(c.deepspeedParams >= 0 && c.deepspeedLargestLayer >= 0);
    for (const trainmem::DeepSpeedEstimate& d : {c.zero2, c.zero3})
        require(d.gpuBytes >= 0 && d.cpuBytes >= 0 && d.largestLayerBytes >= 0);
    for (const auto* variants : {&c.zero2Variants, &c.zero3Variants})
        for (const trainmem::DeepSpeedEstimate& d : *variants)
            require(d.gpuBytes >= 0 && d.cpuBytes >= 0);
    checkSegments(c.trainmem);
    checkSegments(trainmem::deepspeedSegments(c, 2));
    checkSegments(trainmem::deepspeedSegments(c, 3));
    for (const trainmem::PeerDifference& d : c.differences)
        require(std::isfinite(d.trainmemBytes) && std::isfinite(d.peerBytes) && !d.term.empty());
    (void)trainmem::jsonText(trainmem::peersToJson(c));
    return 0;
}
