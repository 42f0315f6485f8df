// The DeepSpeed config reader (trainconfig.h). Keys and defaults as DeepSpeed reads them, deepspeedai/DeepSpeed
// at edaa7221267243c7be7fb49c5d5f5c4fb97b4641: deepspeed/runtime/zero/config.py (stage, default 0),
// deepspeed/runtime/zero/offload_config.py (offload_param / offload_optimizer "device": none, cpu, nvme),
// deepspeed/runtime/config.py (bf16/fp16 "enabled", train_batch_size = train_micro_batch_size_per_gpu ·
// gradient_accumulation_steps · world size, optimizer "type"). "auto" is the Hugging Face integration's
// placeholder (transformers' integrations/deepspeed.py fills it from the Trainer): the scenario keeps its own.
#include "confignode.h"
#include "trainconfig.h"

#include <algorithm>
#include <cctype>

namespace trainmem {
namespace {

// The optimizer types DeepSpeed builds (config.py's DEEPSPEED_OPTIMIZERS) that TrainMem's optimizers express.
std::optional<Optimizer> deepSpeedOptimizer(std::string type)
{
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
    // DeepSpeed's "Adam" is AdamW unless adam_w_mode is false; both keep two fp32 moments.
    if (type == "adam" || type == "adamw")
        return type == "adam" ? Optimizer::Adam : Optimizer::AdamW;
    if (type == "lion")
        return Optimizer::Lion;
    return std::nullopt;
}

// "none", "cpu" or "nvme"; nullopt when absent or bad (then an error names it).
std::optional<std::string> offloadDevice(ConfigMap& m)
{
    std::optional<std::string> device = m.text("device");
    if (device && *device != "none" && *device != "cpu" && *device != "nvme") {
        m.error("device", "must be cpu, nvme or none, got \"" + *device + "\"");
        device.reset();
    }
    return device;
}

void readDeepSpeed(ConfigMap& top, TrainingConfig& c)
{
    const std::string& file = c.file;
    ConfigMap zero = top.map("zero_optimization");
    if (const ConfigNode* stage = zero.find("stage")) {
        if (stage->kind == ConfigNode::Kind::Scalar && !stage->quoted && stage->text.size() == 1 &&
            stage->text[0] >= '0' && stage->text[0] <= '3')
            c.zeroStage = stage->text[0] - '0';
        else
            zero.error("stage", "must be 0, 1, 2 or 3, got " + describeConfig(*stage));
    }
    ConfigMap optimizerOffload = zero.map("offload_optimizer");
    ConfigMap paramOffload = zero.map("offload_param");
    std::optional<std::string> optDevice = offloadDevice(optimizerOffload);
    std::optional<std::string> paramDevice = offloadDevice(paramOffload);
    // The deprecated booleans zero/config.py still turns into offload_optimizer / offload_param on the cpu.
    if (zero.flag("cpu_offload").value_or(false) && !optDevice)
        optDevice = "cpu";
    if (zero.flag("cpu_offload_param").value_or(false) && !paramDevice)
        paramDevice = "cpu";
    const bool opt = optDevice && *optDevice != "none", param = paramDevice && *paramDevice != "none";
    const int stage = c.zeroStage.value_or(0); // DeepSpeed's default stage
    if (opt && stage < 1)
        c.errors.push_back(
            {file, "/zero_optimization/offload_optimizer/device",
             "needs ZeRO stage 1, 2 or 3 (ZeRO-Offload), and the file's stage is " + std::to_string(stage)});
    else if (param && stage < 3)
        c.errors.push_back({file, "/zero_optimization/offload_param/device",
                            "needs ZeRO stage 3 (DeepSpeed offloads parameters only there), and the file's stage is " +
                                std::to_string(stage)});
    else if (opt)
        c.offload = param ? Offload::OptimizerParams : Offload::Optimizer;
    else if (param)
        c.notes.push_back("offload_param without offload_optimizer is read but not modelled: TrainMem offloads the "
                          "parameters only together with the optimizer; counted as no offload");
    else if (optDevice || paramDevice)
        c.offload = Offload::None;
    if ((optDevice && *optDevice == "nvme") || (paramDevice && *paramDevice == "nvme"))
        c.notes.push_back("offload to nvme (ZeRO-Infinity) is counted as host memory: TrainMem does not model NVMe");

    // bf16 and fp16 "enabled": true, false or "auto".
    ConfigMap bf16 = top.map("bf16"), fp16 = top.map("fp16");
    const std::optional<bool> bf = bf16.flag("enabled", true), fp = fp16.flag("enabled", true);
    if (bf.value_or(false) && fp.value_or(false))
        c.errors.push_back({file, "/fp16/enabled",
                            "must not be true together with /bf16/enabled (DeepSpeed refuses "
                            "both)"});
    else if (bf.value_or(false))
        c.precision = Precision::BF16Mixed;
    else if (fp.value_or(false))
        c.precision = Precision::FP16Mixed;
    else if ((bf || fp) && !bf16.isAuto("enabled") && !fp16.isAuto("enabled"))
        c.precision = Precision::FP32; // switched off explicitly and nothing else on

    ConfigMap optimizer = top.map("optimizer");
    if (const std::optional<std::string> type = optimizer.text("type")) {
        c.optimizer = deepSpeedOptimizer(*type);
        if (!c.optimizer)
            optimizer.error("type", "names an optimizer TrainMem cannot map: \"" + *type +
                                        "\" (TrainMem maps Adam, AdamW and Lion)");
    }

    if (!top.isAuto("train_micro_batch_size_per_gpu"))
        c.microBatch = top.integer("train_micro_batch_size_per_gpu", 1, kMaxMicroBatch);
    if (!top.isAuto("gradient_accumulation_steps"))
        c.gradAccum = top.integer("gradient_accumulation_steps", 1, 1'000'000);
    if (!top.isAuto("train_batch_size"))
        c.globalBatch = top.integer("train_batch_size", 1, kMaxGlobalBatch);

    for (const ConfigMap* m : {&top, &zero, &optimizerOffload, &paramOffload, &bf16, &fp16, &optimizer})
        m->ignored(c.ignored);
}

} // namespace

TrainingConfig parseDeepSpeedConfig(std::string_view text, const std::string& file)
{
    return readConfig(text, file, "--deepspeed-config", true, readDeepSpeed);
}

} // namespace trainmem
