#pragma once
// The controls (README, "The window"): every input of a Scenario. The panel edits a copy of the window's
// scenario and emits it; it holds no other state and does no accounting.

#include "scenario.h"

#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace trainmem {

class LogSliderField;
class PresetLibrary;

class ControlPanel : public QWidget
{
    Q_OBJECT
public:
    /// Which control made an edit: consecutive continuous edits of one control merge into one undo step.
    enum class Control {
        Preset,
        Mode,
        Params,
        ActiveParams,
        ActiveExperts,
        Precision,
        Optimizer,
        Context,
        MicroBatch,
        Checkpointing,
        Flash,
        Gpu,
        GpuCount,
        Zero,
        Weights,
        FineTune,
        LoraRank,
        LoraTargets,
        SequenceParallel,
        ContextParallel,
        Offload,
        GpusPerNode,
        Loss,
        Framework,
        Compile,
        CompileLoss,
        OptimizerInBackward,
        ActivationOffload,
        ReshardAfterForward,
        QloraBase
    };
    Q_ENUM(Control)

    explicit ControlPanel(const PresetLibrary& library, QWidget* parent = nullptr);
    /// The control's label, for undo texts ("Undo Context length").
    static QString controlName(Control c);

    /// Shows `s` in every control without emitting anything.
    void setScenario(const Scenario& s);
    const Scenario& scenario() const { return m_scenario; }
    void setFontScale(double scale);

    QComboBox* presetBox() const { return m_preset; }
    QComboBox* modeBox() const { return m_mode; }
    LogSliderField* paramsField() const { return m_params; }
    LogSliderField* activeField() const { return m_active; }
    QSpinBox* activeExpertsBox() const { return m_experts; }
    QComboBox* precisionBox() const { return m_precision; }
    QComboBox* optimizerBox() const { return m_optimizer; }
    LogSliderField* contextField() const { return m_context; }
    QSpinBox* microBatchBox() const { return m_microBatch; }
    QComboBox* checkpointingBox() const { return m_checkpointing; }
    QCheckBox* flashBox() const { return m_flash; }
    QComboBox* fineTuneBox() const { return m_fineTune; }
    QSpinBox* loraRankBox() const { return m_loraRank; }
    QComboBox* loraTargetsBox() const { return m_loraTargets; }
    QComboBox* qloraBaseBox() const { return m_qloraBase; }
    QComboBox* gpuBox() const { return m_gpu; }
    QSpinBox* gpuCountBox() const { return m_gpuCount; }
    QComboBox* zeroBox() const { return m_zero; }
    QCheckBox* sequenceParallelBox() const { return m_sequenceParallel; }
    QComboBox* contextParallelBox() const { return m_contextParallel; }
    QComboBox* offloadBox() const { return m_offload; }
    QSpinBox* gpusPerNodeBox() const { return m_gpusPerNode; }
    QComboBox* weightsBox() const { return m_weights; }

Q_SIGNALS:
    void scenarioEdited(const trainmem::Scenario& s, trainmem::ControlPanel::Control control, bool continuous);
    /// A drag or a typed edit ended.
    void editFinished();

protected:
    /// Below the width where every label and its field's full text fit side by side, each label goes above its
    /// field, so that a 1024 px window shows "bf16 mixed (2+2+4 B)" whole instead of "bf16 mixe" (issue 31 §2).
    void resizeEvent(QResizeEvent* e) override;
    /// The mouse wheel over a control that has no focus scrolls the panel instead of changing the control (a wheel
    /// turned to scroll the Controls dock set the optimizer to Paged 8-bit AdamW on the way down).
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void build();
    void edit(Control c, bool continuous, const std::function<void(Scenario&)>& change);
    void setSize(int64_t total, int64_t active);
    void updateEnabled();
    void updateContextParallelChoices();

    const PresetLibrary& m_library;
    Scenario m_scenario;
    QComboBox* m_preset = nullptr;
    QComboBox* m_mode = nullptr;
    LogSliderField* m_params = nullptr;
    QLabel* m_activeLabel = nullptr;
    LogSliderField* m_active = nullptr;
    QLabel* m_expertsLabel = nullptr;
    QSpinBox* m_experts = nullptr;
    QComboBox* m_precision = nullptr;
    QComboBox* m_optimizer = nullptr;
    LogSliderField* m_context = nullptr;
    QSpinBox* m_microBatch = nullptr;
    QComboBox* m_checkpointing = nullptr;
    QComboBox* m_loss = nullptr;      ///< issue 30: the cross-entropy as computed
    QComboBox* m_framework = nullptr; ///< issue 30: a framework profile
    /// Issue 30 §2's recipes: the framework's default (-1), on (1) or off (0).
    QComboBox* m_compile = nullptr;
    QComboBox* m_compileLoss = nullptr;
    QComboBox* m_optimizerInBackward = nullptr;
    QComboBox* m_activationOffload = nullptr;
    QComboBox* m_reshardAfterForward = nullptr;
    QCheckBox* m_flash = nullptr;
    QComboBox* m_fineTune = nullptr;
    QSpinBox* m_loraRank = nullptr;
    QComboBox* m_loraTargets = nullptr;
    QComboBox* m_qloraBase = nullptr;
    QComboBox* m_gpu = nullptr;
    QSpinBox* m_gpuCount = nullptr;
    QComboBox* m_zero = nullptr;
    QCheckBox* m_sequenceParallel = nullptr;
    QComboBox* m_offload = nullptr;         ///< ZeRO-Offload (issue 9 §3)
    QSpinBox* m_gpusPerNode = nullptr;      ///< GPUs sharing one host's memory
    QComboBox* m_contextParallel = nullptr; ///< the valid cp degrees for the current GPUs and context
    QComboBox* m_weights = nullptr;
    QLabel* m_description = nullptr;
};

} // namespace trainmem
