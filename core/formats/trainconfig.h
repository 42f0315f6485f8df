#pragma once
// The training configs fine-tuners already have (issue 32): a DeepSpeed JSON, an axolotl YAML and a torchtune
// recipe YAML, read into the settings they fix. What each format's keys become, which are listed as ignored and
// what is read but not modelled is in docs/scenario-format.md ("Training configs").

#include "errors.h"
#include "scenario.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

/// \brief What one training config sets. A field is unset when the file leaves it out, leaves it empty or says
/// "auto" (the value the launcher fills in): the scenario keeps its own then.
struct TrainingConfig {
    std::string format; ///< "--deepspeed-config", "--axolotl-config" or "--torchtune-config"
    std::string file;

    // The model: a torchtune builder fixes an architecture; axolotl names a Hub id or a local folder.
    std::optional<Architecture> architecture;
    std::string modelName;     ///< the torchtune builder ("torchtune.models.llama3_1.lora_llama3_1_8b")
    std::string baseModel;     ///< axolotl's base_model as written
    std::string deepspeedPath; ///< axolotl's deepspeed: as written (relative to the YAML's folder)

    std::optional<Precision> precision;
    std::optional<Optimizer> optimizer;
    std::optional<int64_t> seqLen;
    std::optional<int64_t> microBatch;
    std::optional<int64_t> gradAccum;
    std::optional<int64_t> globalBatch; ///< DeepSpeed's train_batch_size: micro-batch · GPUs · accumulation
    std::optional<Checkpointing> checkpointing;
    std::optional<bool> flashAttention;
    std::optional<FineTune> fineTune;
    std::optional<int64_t> loraRank;
    std::optional<LoraTargets> loraTargets;
    /// The projections the file adapts, in torchtune's names: q_proj, k_proj, v_proj, output_proj, w1 (gate),
    /// w2 (down), w3 (up), output (the head). Empty when the file names none (a full fine-tune).
    std::set<std::string> loraModules;
    std::optional<int> zeroStage;
    std::optional<Offload> offload;
    /// torchtune's recipe switches (issue 30 §2): compile, optimizer_in_bwd, enable_activation_offloading.
    std::optional<bool> compile;
    std::optional<bool> optimizerInBackward;
    std::optional<bool> activationOffload;
    bool pagedOptimizer = false; ///< bitsandbytes' Paged* optimizers: their state in unified memory, paged to the host
    /// The cross-entropy the file's loss computes (torchtune's `loss._component_`), as --loss names it.
    std::optional<LossKind> loss;
    /// The framework that runs the file (a torchtune recipe config: torchtune), as --framework names it: its
    /// defaults and order of frees (docs/accounting.md, "Framework profiles").
    std::optional<Framework> framework;
    /// The allocator setting the tool that runs the file makes (axolotl: expandable segments).
    std::optional<bool> expandableSegments;
    /// torchtune's distributed recipes: fsdp_reshard_after_forward (the layers'), and what custom_sharded_layers leaves
    /// in the root unit that FSDP2 keeps gathered (--fsdp-root).
    std::optional<bool> reshardAfterForward;
    std::optional<FsdpRoot> fsdpRoot;

    std::vector<std::string> ignored; ///< keys TrainMem does not read, as paths ("checkpointer", "model.lora_alpha")
    std::vector<std::string> notes;   ///< settings read but not modelled, and the assumptions made
    FieldErrors errors;

    bool ok() const { return errors.empty(); }
};

/// \brief What `c` sets, one setting a line in the scenario's words ("micro-batch 2", "LoRA rank 8 on q_proj,
/// v_proj"), in the order of the window's controls: the window and --json's training_config list it as read.
std::vector<std::string> describeTrainingConfig(const TrainingConfig& c);

/// \brief Reads a DeepSpeed config (JSON): zero_optimization.stage, offload_optimizer/offload_param.device,
/// bf16/fp16.enabled, the optimizer type, train_micro_batch_size_per_gpu, gradient_accumulation_steps and
/// train_batch_size. `file` names the source in every error.
TrainingConfig parseDeepSpeedConfig(std::string_view text, const std::string& file);

/// \brief Reads an axolotl config (YAML). base_model and deepspeed: are kept as written for the caller to
/// resolve (a folder, a Hub id, a file beside the YAML).
TrainingConfig parseAxolotlConfig(std::string_view text, const std::string& file);

/// \brief Reads a torchtune recipe config (YAML); its model builder becomes an architecture.
TrainingConfig parseTorchtuneConfig(std::string_view text, const std::string& file);

/// \brief The torchtune model builders the reader maps, as written in a config's model._component_.
const std::vector<std::string>& torchtuneBuilders();

/// \brief Folds a DeepSpeed config named by an axolotl YAML into it: the YAML's own keys win where both set one
/// (axolotl passes them to the Trainer, which fills DeepSpeed's "auto"), and a conflict becomes a note.
void mergeDeepSpeed(TrainingConfig& into, const TrainingConfig& deepspeed);

/// \brief `base` with what `c` sets: its architecture (when it has one and `keepModel` is false), the training
/// setup, the ZeRO stage and the offload. train_batch_size is not applied here: it needs the GPU count the
/// command line may still change (see gradAccumForGlobalBatch).
Scenario applyTrainingConfig(const Scenario& base, const TrainingConfig& c, bool keepModel = false);

/// \brief The file's LoRA projections as a PEFT module set (TrainingSetup::loraModules) when they are neither
/// TrainMem's attn nor all set and each has a PEFT name (the head has none): counted exactly (issue 30).
std::optional<uint32_t> exactLoraModules(const TrainingConfig& c);
/// \brief The trainable adapter parameters the file's projections imply on `a`: r·(d_in + d_out) for each adapted
/// linear of every layer (Hu et al. 2021 §4.1), and r·(h + V) for the output head. nullopt for a model whose
/// projections are not the dense q/k/v/o + gate/up/down of Llama (mixture of experts, MLA) or without modules.
std::optional<int64_t> fileLoraParams(const Architecture& a, int64_t rank, const std::set<std::string>& modules);

/// \brief A note for a file whose adapted projections TrainMem's two target sets (attn: q, k, v, o; all: those and
/// the MLP) do not hold exactly, with both trainable counts on `a`; empty when they match.
std::string loraTargetsNote(const Architecture& a, const TrainingConfig& c, const TrainingSetup& used);

} // namespace trainmem
