#pragma once
// Importing a Hugging Face config.json: the architecture it describes, counted the way
// `sum(p.numel() for p in model.parameters())` counts the model transformers builds from it.
// How each family maps onto the architecture fields is documented in docs/accounting.md.

#include "errors.h"
#include "scenario.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

/// \brief What a config.json describes, and the problems found (each named by its JSON pointer).
struct HfImport {
    Architecture architecture;
    std::string modelType;  ///< "llama", "qwen3_moe", …
    std::string dtype;      ///< torch_dtype (or the newer "dtype") as written; empty when absent
    std::string nameOrPath; ///< _name_or_path when the file has one
    /// The weight format the checkpoint ships in, where it is one TrainMem serves exactly: gpt-oss's
    /// quantization_config {"quant_method": "mxfp4"}, its experts in MXFP4 and the rest 16-bit.
    std::optional<InferenceWeights> shippedWeights;
    FieldErrors errors;
    bool ok() const { return errors.empty(); }
};

/// \brief The model_type values the importer reads, in the order the docs list them.
const std::vector<std::string>& hfModelTypes();

/// \brief Parses config.json text. `file` names the source in every error ("config.json: /hidden_size: …").
HfImport parseHfConfig(std::string_view text, const std::string& file);

/// \brief `base` with its model replaced by the import: the training, hardware and cost setup stay,
/// id/name/description/source describe the import (`label` is the model's name, e.g. its folder),
/// torch_dtype becomes the inference weight format when it maps (bfloat16, float16 -> bf16; a shipped format such as
/// gpt-oss's MXFP4 experts wins over it), and an expert-parallel degree the new model cannot use falls back to 1.
Scenario scenarioWithHfModel(const Scenario& base, const HfImport& imported, const std::string& label);

} // namespace trainmem
