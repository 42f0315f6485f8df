#include "controlpanel.h"

#include "coreapi.h"
#include "elidingcombobox.h"
#include "logsliderfield.h"
#include "presetlibrary.h"
#include "tour.h"
#include "units.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>

namespace trainmem {
namespace {

// The optimizer box's item for bitsandbytes' paged 8-bit AdamW: Adam8bit with its state paged (issue 30 §2).
constexpr int kPagedAdam8bit = 1000;

template <typename E> void selectData(QComboBox* box, E value)
{
    const QSignalBlocker block(box);
    box->setCurrentIndex(std::max(0, box->findData(static_cast<int>(value))));
}

// QSpinBox::setValue repaints even when the value is the same, and setRange re-lays out the
// panel: the window sets every control on every edit, so set only what differs.
void setSpin(QSpinBox* box, int value)
{
    if (box->value() != value) {
        const QSignalBlocker block(box);
        box->setValue(value);
    }
}

void setSpinRange(QSpinBox* box, int min, int max)
{
    if (box->minimum() != min || box->maximum() != max) {
        const QSignalBlocker block(box);
        box->setRange(min, max);
    }
}

template <typename E> E dataOf(const QComboBox* box)
{
    return static_cast<E>(box->currentData().toInt());
}

QString countText(int64_t n)
{
    return QString::fromStdString(formatCount(static_cast<double>(n)));
}

std::optional<int64_t> parseCountText(const QString& t)
{
    return parseCount(t.toStdString());
}

QGroupBox* group(const QString& title, QFormLayout*& form, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // A label goes above its field when the two do not fit side by side: the panel narrows for a
    // 1024 px wide window instead of setting the window's least width (issue 14).
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    return box;
}

} // namespace

ControlPanel::ControlPanel(const PresetLibrary& library, QWidget* parent) : QWidget(parent), m_library(library)
{
    setObjectName(QStringLiteral("controlPanel"));
    build();
    // A combo box is as wide as its longest entry at least ("Selective (recompute attention)"): it
    // keeps that as its preferred width but may be narrower, eliding, so the panel's least width
    // is its labels', not its longest entry's (a set minimum overrides the minimum size hint).
    for (QComboBox* box : findChildren<QComboBox*>())
        box->setMinimumWidth(box->fontMetrics().averageCharWidth() * 10 + 24);
    // A slider squeezed beside its label is a stub: it keeps room to drag, and the label goes above.
    for (LogSliderField* field : findChildren<LogSliderField*>())
        field->setMinimumWidth(fontMetrics().averageCharWidth() * 24);
    setScenario(m_scenario);
}

void ControlPanel::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    for (QFormLayout* form : findChildren<QFormLayout*>()) {
        int labels = 0, fields = 0;
        for (int row = 0; row < form->rowCount(); ++row) {
            QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole);
            QLayoutItem* field = form->itemAt(row, QFormLayout::FieldRole);
            if (label && field && label->widget() && field->widget()) {
                labels = std::max(labels, label->sizeHint().width());
                fields = std::max(fields, field->widget()->sizeHint().width());
            }
        }
        const QMargins m = form->contentsMargins();
        const int box = form->parentWidget() ? form->parentWidget()->width() : width();
        const bool sideBySide = labels + form->horizontalSpacing() + fields + m.left() + m.right() <= box;
        const auto policy = sideBySide ? QFormLayout::WrapLongRows : QFormLayout::WrapAllRows;
        if (form->rowWrapPolicy() != policy)
            form->setRowWrapPolicy(policy);
    }
}

QString ControlPanel::controlName(Control c)
{
    switch (c) {
    case Control::Preset:
        return tr("Preset");
    case Control::Mode:
        return tr("Mode");
    case Control::Params:
        return tr("Total parameters");
    case Control::ActiveParams:
        return tr("Active parameters");
    case Control::ActiveExperts:
        return tr("Active experts");
    case Control::Precision:
        return tr("Precision");
    case Control::Optimizer:
        return tr("Optimizer");
    case Control::Context:
        return tr("Context length");
    case Control::MicroBatch:
        return tr("Micro-batch");
    case Control::Checkpointing:
        return tr("Checkpointing");
    case Control::Loss:
        return tr("Loss");
    case Control::Framework:
        return tr("Framework");
    case Control::Compile:
        return tr("torch.compile");
    case Control::CompileLoss:
        return tr("Loss compiled");
    case Control::OptimizerInBackward:
        return tr("Optimizer in backward");
    case Control::ActivationOffload:
        return tr("Activation offload");
    case Control::ReshardAfterForward:
        return tr("Reshard after forward");
    case Control::Flash:
        return tr("Flash attention");
    case Control::Gpu:
        return tr("GPU");
    case Control::GpuCount:
        return tr("GPU count");
    case Control::Zero:
        return tr("ZeRO stage");
    case Control::Weights:
        return tr("Inference weights");
    case Control::FineTune:
        return tr("Fine-tuning");
    case Control::LoraRank:
        return tr("LoRA rank");
    case Control::SequenceParallel:
        return tr("Sequence parallel");
    case Control::Offload:
        return tr("Offload");
    case Control::GpusPerNode:
        return tr("GPUs per node");
    case Control::ContextParallel:
        return tr("Context parallel");
    case Control::LoraTargets:
        return tr("LoRA targets");
    case Control::QloraBase:
        return tr("QLoRA base");
    }
    return {};
}

bool ControlPanel::eventFilter(QObject* watched, QEvent* e)
{
    auto* w = qobject_cast<QWidget*>(watched);
    if (e->type() != QEvent::Wheel || !w || w->hasFocus())
        return QWidget::eventFilter(watched, e);
    // To the scroll bar of the scroll area the panel sits in (none: the wheel does nothing here).
    for (QWidget* p = parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
            QCoreApplication::sendEvent(area->verticalScrollBar(), e);
            break;
        }
    return true;
}

void ControlPanel::build()
{
    auto* layout = new QVBoxLayout(this);
    QFormLayout* form = nullptr;

    // Scenario
    QGroupBox* scenarioBox = group(tr("Scenario"), form, this);
    m_preset = new ElidingComboBox(this);
    m_preset->setObjectName(QStringLiteral("preset"));
    // The chapter tour's presets in the tour's order (7B before 70B, not by file name), then the
    // others from the smallest model up (issue 14).
    std::vector<const PresetEntry*> ordered;
    for (const PresetEntry& e : m_library.presets())
        ordered.push_back(&e);
    auto rank = [](const PresetEntry* e) {
        const auto& tour = chapterTour();
        for (size_t i = 0; i < tour.size(); ++i)
            if (tour[i].presetId == e->scenario.id)
                return std::pair<size_t, int64_t>(i, 0);
        return std::pair<size_t, int64_t>(tour.size(), resolveModel(e->scenario.model).params.total);
    };
    std::stable_sort(ordered.begin(), ordered.end(),
                     [&](const PresetEntry* a, const PresetEntry* b) { return rank(a) < rank(b); });
    for (const PresetEntry* ep : ordered) {
        const PresetEntry& e = *ep;
        m_preset->addItem(QString::fromStdString(e.scenario.name.empty() ? e.scenario.id : e.scenario.name),
                          QString::fromStdString(e.scenario.id));
    }
    m_preset->setToolTip(tr("Start from a published model or one of the chapter's examples; every control below "
                            "then edits it."));
    form->addRow(tr("Preset"), m_preset);
    m_description = new QLabel(this);
    m_description->setWordWrap(true);
    m_description->setObjectName(QStringLiteral("presetDescription"));
    m_description->setForegroundRole(QPalette::PlaceholderText);
    form->addRow(m_description);
    m_mode = new ElidingComboBox(this);
    m_mode->setObjectName(QStringLiteral("mode"));
    m_mode->addItem(tr("Training"), static_cast<int>(Mode::Training));
    m_mode->addItem(tr("Inference"), static_cast<int>(Mode::Inference));
    m_mode->setToolTip(tr("Inference needs the weights (and a KV cache); training also keeps gradients, "
                          "optimizer state and the activations for the backward pass."));
    form->addRow(tr("Mode"), m_mode);
    layout->addWidget(scenarioBox);

    // Model
    QGroupBox* modelBox = group(tr("Model"), form, this);
    m_params =
        new LogSliderField(LogSliderField::decadeSteps(1'000'000, 10'000'000'000'000), countText, parseCountText, this);
    m_params->setObjectName(QStringLiteral("params"));
    m_params->setBounds(1, kMaxParams);
    m_params->setToolTips(tr("Total parameters, every expert included: model state scales with this number. "
                             "Type 7B, 70B or 2.4T. On a preset with an architecture this switches to a "
                             "size-only model shaped by the documented rule."));
    form->addRow(tr("Total parameters"), m_params);
    m_active =
        new LogSliderField(LogSliderField::decadeSteps(1'000'000, 10'000'000'000'000), countText, parseCountText, this);
    m_active->setObjectName(QStringLiteral("activeParams"));
    m_active->setToolTips(tr("Parameters used per token (mixture of experts): they set the compute and the "
                             "activations, not the optimizer state. Equal to the total for a dense model."));
    m_activeLabel = new QLabel(tr("Active parameters"), this);
    form->addRow(m_activeLabel, m_active);
    m_experts = new QSpinBox(this);
    m_experts->setObjectName(QStringLiteral("activeExperts"));
    m_experts->setToolTip(tr("Routed experts each token visits (k of E). Every expert still has weights, "
                             "gradients and optimizer state: sparsity buys FLOPs, not memory."));
    m_expertsLabel = new QLabel(tr("Active experts"), this);
    form->addRow(m_expertsLabel, m_experts);
    layout->addWidget(modelBox);

    // Training
    QGroupBox* trainingBox = group(tr("Training"), form, this);
    m_precision = new ElidingComboBox(this);
    m_precision->setObjectName(QStringLiteral("precision"));
    m_precision->addItem(tr("fp32 (4+4 B)"), static_cast<int>(Precision::FP32));
    m_precision->addItem(tr("bf16 mixed (2+2+4 B)"), static_cast<int>(Precision::BF16Mixed));
    m_precision->addItem(tr("fp16 mixed (2+2+4 B)"), static_cast<int>(Precision::FP16Mixed));
    m_precision->addItem(tr("pure bf16 (2+2 B)"), static_cast<int>(Precision::BF16));
    m_precision->addItem(tr("fp8 mixed (DeepSeek)"), static_cast<int>(Precision::FP8Mixed));
    m_precision->setToolTip(tr("How weights, gradients and the master copy are stored. Mixed precision keeps "
                               "16-bit weights and gradients plus an fp32 master copy: with Adam, 16 bytes per "
                               "parameter."));
    form->addRow(tr("Precision"), m_precision);
    m_optimizer = new ElidingComboBox(this);
    m_optimizer->setObjectName(QStringLiteral("optimizer"));
    m_optimizer->addItem(tr("AdamW (2 slots)"), static_cast<int>(Optimizer::AdamW));
    m_optimizer->addItem(tr("Adam (2 slots)"), static_cast<int>(Optimizer::Adam));
    m_optimizer->addItem(tr("SGD (no state)"), static_cast<int>(Optimizer::SGD));
    m_optimizer->addItem(tr("Momentum (1 slot)"), static_cast<int>(Optimizer::SGDMomentum));
    m_optimizer->addItem(tr("Lion (1 slot)"), static_cast<int>(Optimizer::Lion));
    m_optimizer->addItem(tr("Adafactor (factored)"), static_cast<int>(Optimizer::Adafactor));
    m_optimizer->addItem(tr("8-bit Adam"), static_cast<int>(Optimizer::Adam8bit));
    // Issue 30 §2: Muon (AdamW for the embeddings, norms and head) and a paged 8-bit AdamW (state in host-paged
    // unified memory), kPagedAdam8bit standing for Adam8bit with /training/paged_optimizer.
    m_optimizer->addItem(tr("Muon (1 slot)"), static_cast<int>(Optimizer::Muon));
    m_optimizer->addItem(tr("Paged 8-bit AdamW"), kPagedAdam8bit);
    m_optimizer->setToolTip(tr("The optimizer keeps running averages per weight: Adam two (momentum and "
                               "variance), Lion and momentum SGD one, plain SGD none."));
    form->addRow(tr("Optimizer"), m_optimizer);
    m_context = new LogSliderField(
        LogSliderField::octaveSteps(512, 1 << 20), [](int64_t n) { return QString::fromStdString(formatContext(n)); },
        [](const QString& t) { return parseContext(t.toStdString()); }, this);
    m_context->setObjectName(QStringLiteral("context"));
    m_context->setBounds(16, kMaxSeq);
    m_context->setToolTips(tr("Tokens per sequence. Activations grow with it (quadratically for attention scores "
                              "without a fused kernel), and so does the KV cache. Type 8k or 128k."));
    form->addRow(tr("Context length"), m_context);
    m_microBatch = new QSpinBox(this);
    m_microBatch->setObjectName(QStringLiteral("microBatch"));
    m_microBatch->setRange(1, static_cast<int>(std::min<int64_t>(kMaxMicroBatch, 65536)));
    m_microBatch->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    m_microBatch->setToolTip(tr("Sequences each GPU processes at once. Activations, logits and the KV cache grow "
                                "linearly with it; gradient accumulation reaches large batches without it."));
    form->addRow(tr("Micro-batch"), m_microBatch);
    m_checkpointing = new ElidingComboBox(this);
    m_checkpointing->setObjectName(QStringLiteral("checkpointing"));
    m_checkpointing->addItem(tr("None (whole tape)"), static_cast<int>(Checkpointing::None));
    m_checkpointing->addItem(tr("Selective (attention)"), static_cast<int>(Checkpointing::Selective));
    m_checkpointing->addItem(tr("Full (layer inputs)"), static_cast<int>(Checkpointing::Full));
    // torchtitan's per-op selective AC: between selective and full (docs/accounting.md, "Recipes").
    m_checkpointing->addItem(tr("Per-op (torchtitan)"), static_cast<int>(Checkpointing::PerOp));
    m_checkpointing->setToolTip(tr("Activation checkpointing throws parts of the tape away and recomputes them in "
                                   "the backward pass: compute spent to buy memory (Korthikanti et al. 2022). Per-op "
                                   "(torchtitan's selective AC) keeps every other matmul's output and the attention "
                                   "output, between selective and full."));
    form->addRow(tr("Checkpointing"), m_checkpointing);
    // Issue 30 §2: the loss as the run computes it, and a framework whose defaults fill what is left unset.
    m_loss = new ElidingComboBox(this);
    m_loss->setObjectName(QStringLiteral("loss"));
    m_loss->addItem(tr("In place (e + 4 B)"), -1);
    m_loss->addItem(tr("Eager fp32 (12 B)"), static_cast<int>(LossKind::Eager));
    m_loss->addItem(tr("Chunked (torchtune)"), static_cast<int>(LossKind::Chunked));
    m_loss->addItem(tr("Fused (Liger)"), static_cast<int>(LossKind::Fused));
    m_loss->addItem(tr("Vocab-parallel"), static_cast<int>(LossKind::VocabParallel));
    m_loss->addItem(tr("Chunked (LitGPT)"), static_cast<int>(LossKind::Chunked16));
    m_loss->addItem(tr("Loss-parallel (TP)"), static_cast<int>(LossKind::LossParallel));
    m_loss->addItem(tr("Chunked (torchtitan)"), static_cast<int>(LossKind::ChunkedBackward));
    m_loss->setToolTip(tr("How the cross-entropy over the logits is computed, in bytes per logit at its peak: in place "
                          "(the chapter's and Megatron-LM's accounting), eager PyTorch on fp32-upcast logits "
                          "(Hugging Face, torchtitan), chunked (torchtune: one of 8 chunks upcast at a time), fused "
                          "with the output layer (Liger), Megatron's vocab-parallel (split by tensor parallelism), "
                          "LitGPT's chunked cross-entropy in 16 bits (no fp32 upcast, the logits kept through "
                          "backward), PyTorch's loss_parallel() on each rank's slice of the vocabulary (torchtitan "
                          "under tensor parallelism), torchtitan's chunked loss (each of 8 chunks runs its backward "
                          "right after its forward). docs/accounting.md, \"The loss as computed\"."));
    form->addRow(tr("Loss"), m_loss);
    m_framework = new ElidingComboBox(this);
    m_framework->setObjectName(QStringLiteral("framework"));
    m_framework->addItem(tr("None"), -1);
    m_framework->addItem(QStringLiteral("Megatron-LM"), static_cast<int>(Framework::Megatron));
    m_framework->addItem(QStringLiteral("DeepSpeed"), static_cast<int>(Framework::DeepSpeed));
    m_framework->addItem(QStringLiteral("torchtitan"), static_cast<int>(Framework::Torchtitan));
    m_framework->addItem(QStringLiteral("torchtune"), static_cast<int>(Framework::Torchtune));
    m_framework->addItem(QStringLiteral("Hugging Face"), static_cast<int>(Framework::HF));
    m_framework->addItem(QStringLiteral("LitGPT"), static_cast<int>(Framework::LitGPT));
    m_framework->setToolTip(tr("A framework's defaults (its loss, its allocator settings) fill what the scenario "
                               "leaves unset; what you set stays. docs/accounting.md, \"Framework profiles\"."));
    form->addRow(tr("Framework"), m_framework);
    // The recipes (issue 30 §2): each the framework's default unless set here.
    auto recipe = [this, form](QComboBox*& box, const char* name, const QString& label, const QString& tip) {
        box = new ElidingComboBox(this);
        box->setObjectName(QString::fromLatin1(name));
        box->addItem(tr("Default"), -1);
        box->addItem(tr("On"), 1);
        box->addItem(tr("Off"), 0);
        box->setToolTip(tip);
        form->addRow(label, box);
    };
    recipe(m_compile, "compile", tr("torch.compile"),
           tr("The fused kernels rebuild the SwiGLU product and the norms' outputs in backward instead of keeping "
              "them. docs/accounting.md, \"Recipes\"."));
    recipe(m_compileLoss, "compileLoss", tr("Loss compiled"),
           tr("The cross-entropy compiled with the model: its 16-bit logits kept and the fp32 work fused into the "
              "backward kernel. Default: under torch.compile as the framework does (torchtitan compiles its loss; "
              "torchtune only its chunked one). docs/accounting.md, \"The loss as computed\"."));
    recipe(m_optimizerInBackward, "optimizerInBackward", tr("Optimizer in backward"),
           tr("Each parameter is stepped and its gradient freed as soon as it is ready (torchtune's optimizer_in_bwd): "
              "one layer's gradients at a time. Needs gradient accumulation 1."));
    recipe(m_activationOffload, "activationOffload", tr("Activation offload"),
           tr("The tape goes to host memory as forward saves it (torchtune's OffloadActivations); the GPU keeps two "
              "layers in flight. Needs a GPU with host memory in the catalog."));
    recipe(m_reshardAfterForward, "reshardAfterForward", tr("Reshard after forward"),
           tr("FSDP2's reshard_after_forward with ZeRO-3: off keeps every layer's gathered weights from its forward to "
              "its backward."));
    m_flash = new QCheckBox(tr("Fused (flash) attention"), this);
    m_flash->setObjectName(QStringLiteral("flash"));
    m_flash->setToolTip(tr("A fused attention kernel never stores the s×s score matrix, only softmax statistics, "
                           "so attention memory grows linearly with the context."));
    form->addRow(m_flash);
    m_fineTune = new ElidingComboBox(this);
    m_fineTune->setObjectName(QStringLiteral("fineTune"));
    m_fineTune->addItem(tr("Full (all weights)"), static_cast<int>(FineTune::Full));
    m_fineTune->addItem(tr("LoRA (frozen base)"), static_cast<int>(FineTune::Lora));
    m_fineTune->addItem(tr("QLoRA (4-bit base)"), static_cast<int>(FineTune::QLora)); // its format: QLoRA base
    m_fineTune->setToolTip(tr("LoRA freezes the base model and trains small low-rank adapters: the base keeps its "
                              "weights only, no gradients, master copy or optimizer state. QLoRA also stores the "
                              "base in 4 bits. The activations still flow through the whole model."));
    form->addRow(tr("Fine-tuning"), m_fineTune);
    m_loraRank = new QSpinBox(this);
    m_loraRank->setObjectName(QStringLiteral("loraRank"));
    m_loraRank->setRange(1, static_cast<int>(kMaxLoraRank));
    m_loraRank->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    m_loraRank->setToolTip(tr("The adapters' rank r: each adapted d_in → d_out layer gains r·(d_in + d_out) "
                              "trainable parameters."));
    form->addRow(tr("LoRA rank"), m_loraRank);
    m_loraTargets = new ElidingComboBox(this);
    m_loraTargets->setObjectName(QStringLiteral("loraTargets"));
    m_loraTargets->addItem(tr("Attention (q, k, v, o)"), static_cast<int>(LoraTargets::Attention));
    m_loraTargets->addItem(tr("All linear layers"), static_cast<int>(LoraTargets::All));
    m_loraTargets->setToolTip(tr("Which layers carry adapters: the attention projections, or every linear layer "
                                 "of attention and MLP (experts included)."));
    form->addRow(tr("LoRA targets"), m_loraTargets);
    m_qloraBase = new ElidingComboBox(this);
    m_qloraBase->setObjectName(QStringLiteral("qloraBase"));
    m_qloraBase->addItem(tr("NF4 (4.13 bits)"), static_cast<int>(QloraBase::NF4));
    m_qloraBase->addItem(tr("MXFP4 as published"), static_cast<int>(QloraBase::MXFP4));
    m_qloraBase->addItem(tr("NVFP4 as published"), static_cast<int>(QloraBase::NVFP4));
    m_qloraBase->setToolTip(tr("The frozen base under QLoRA: bitsandbytes' NF4 (QLoRA's own), or a checkpoint trained "
                               "as published in MXFP4 (gpt-oss: its experts, 4.25 bits) or NVFP4 (ModelOpt: 4.5 "
                               "bits); the embeddings, head and norms stay in 16 bits."));
    form->addRow(tr("QLoRA base"), m_qloraBase);
    layout->addWidget(trainingBox);

    // Hardware
    QGroupBox* hardwareBox = group(tr("Hardware"), form, this);
    m_gpu = new ElidingComboBox(this);
    m_gpu->setObjectName(QStringLiteral("gpu"));
    for (const GpuSpec& g : m_library.gpus().gpus) {
        m_gpu->addItem(
            tr("%1 (%2)").arg(QString::fromStdString(g.id), QString::fromStdString(formatBytes(g.memoryBytes))),
            QString::fromStdString(g.id));
        // Each entry's name, and its caveat (V100 has no BF16; no public price), on hover.
        QString tip = QString::fromStdString(g.name);
        if (!g.note.empty())
            tip += QLatin1Char('\n') + QString::fromStdString(g.note);
        if (!g.pricePerHour)
            tip += QLatin1Char('\n') + tr("No public price: set your own in the cost receipt.");
        m_gpu->setItemData(m_gpu->count() - 1, tip, Qt::ToolTipRole);
    }
    m_gpu->setToolTip(tr("The accelerator type: its memory is the red capacity line on both charts."));
    form->addRow(tr("GPU"), m_gpu);
    m_gpuCount = new QSpinBox(this);
    m_gpuCount->setObjectName(QStringLiteral("gpuCount"));
    m_gpuCount->setRange(1, static_cast<int>(std::min<int64_t>(kMaxGpus, 10'000'000)));
    m_gpuCount->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    m_gpuCount->setToolTip(tr("GPUs sharing the job. More GPUs only reduce per-GPU memory when something is "
                              "sharded (ZeRO, tensor or pipeline parallelism): every cut has a communication tax."));
    form->addRow(tr("GPU count"), m_gpuCount);
    m_zero = new ElidingComboBox(this);
    m_zero->setObjectName(QStringLiteral("zero"));
    m_zero->addItem(tr("0: replicate all"), 0);
    m_zero->addItem(tr("1: shard optimizer"), 1);
    m_zero->addItem(tr("2: + gradients"), 2);
    m_zero->addItem(tr("3: + weights (FSDP)"), 3);
    m_zero->setToolTip(tr("ZeRO data parallelism (Rajbhandari et al. 2019) splits the model state across the GPUs "
                          "instead of copying it: stage 1 the optimizer, 2 also gradients, 3 also weights."));
    form->addRow(tr("ZeRO stage"), m_zero);
    m_offload = new ElidingComboBox(this);
    m_offload->setObjectName(QStringLiteral("offload"));
    m_offload->addItem(tr("None (all on GPU)"), static_cast<int>(Offload::None));
    m_offload->addItem(tr("Optimizer to CPU"), static_cast<int>(Offload::Optimizer));
    m_offload->addItem(tr("Optimizer + weights"), static_cast<int>(Offload::OptimizerParams));
    m_offload->setToolTip(
        tr("ZeRO-Offload (Ren et al. 2021) keeps the fp32 master weights, the optimizer state and the fp32 gradients "
           "in the host's memory and runs the optimizer step on the CPU; with the weights offloaded too "
           "(ZeRO-Infinity) only the layer being computed is on the GPU. The GPU bars shrink, the host's memory per "
           "node fills (the verdict says when it runs out) and PCIe traffic joins the communication tax. Needs "
           "ZeRO 1 or higher, 3 for the weights: choosing it raises the ZeRO stage."));
    form->addRow(tr("Offload"), m_offload);
    m_gpusPerNode = new QSpinBox(this);
    m_gpusPerNode->setObjectName(QStringLiteral("gpusPerNode"));
    m_gpusPerNode->setRange(1, static_cast<int>(kMaxGpusPerNode));
    m_gpusPerNode->setToolTip(tr("GPUs sharing one host (a DGX/HGX node has 8): the host's memory holds the "
                                 "offloaded state of all of them."));
    form->addRow(tr("GPUs per node"), m_gpusPerNode);
    m_sequenceParallel = new QCheckBox(tr("Sequence parallel"), this);
    m_sequenceParallel->setObjectName(QStringLiteral("sequenceParallel"));
    m_sequenceParallel->setToolTip(
        tr("Megatron sequence parallelism (Korthikanti et al. 2022): with tensor parallelism, the norms' and "
           "dropout's activations are split across the tensor-parallel GPUs too (34·sbh/t instead of "
           "10·sbh + 24·sbh/t), for the same communication. Needs tensor parallelism (tp > 1)."));
    form->addRow(m_sequenceParallel);
    m_contextParallel = new ElidingComboBox(this);
    m_contextParallel->setObjectName(QStringLiteral("contextParallel"));
    m_contextParallel->setToolTip(
        tr("Context parallelism: each GPU holds 1/cp of the sequence's tokens in every activation; attention passes "
           "keys and values around a ring of cp GPUs (a communication tax). GPUs = tp·pp·cp·dp, and 2·cp must "
           "divide the context length."));
    form->addRow(tr("Context parallel"), m_contextParallel);
    m_weights = new ElidingComboBox(this);
    m_weights->setObjectName(QStringLiteral("weights"));
    m_weights->addItem(tr("bf16 (2 B/weight)"), static_cast<int>(InferenceWeights::BF16));
    m_weights->addItem(tr("int8 (1 B/weight)"), static_cast<int>(InferenceWeights::INT8));
    m_weights->addItem(tr("int4 (4.16 bits)"), static_cast<int>(InferenceWeights::INT4));
    m_weights->addItem(tr("MXFP4 (4.25 bits)"), static_cast<int>(InferenceWeights::MXFP4));
    m_weights->addItem(tr("NVFP4 (4.5 bits)"), static_cast<int>(InferenceWeights::NVFP4));
    m_weights->setToolTip(
        tr("How served weights are stored: int8 or a 4-bit format roughly halves or quarters the linear layers; "
           "embeddings, the output head, norms and routers stay 16-bit, and the formats' scales are counted. MXFP4 "
           "on a mixture-of-experts model quantises the experts only, as gpt-oss ships. Training always keeps "
           "higher precision."));
    form->addRow(tr("Inference weights"), m_weights);
    layout->addWidget(hardwareBox);
    layout->addStretch(1);
    // A control takes the wheel only once clicked or tabbed to (eventFilter); until then the wheel scrolls the panel.
    for (QWidget* w : findChildren<QWidget*>())
        if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QAbstractSlider*>(w)) {
            w->setFocusPolicy(Qt::StrongFocus);
            w->installEventFilter(this);
        }

    // Every control edits the scenario; the window decides what happens next.
    connect(m_preset, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        if (const PresetEntry* e = m_library.find(m_preset->itemData(i).toString()))
            edit(Control::Preset, false, [e](Scenario& s) { s = e->scenario; });
    });
    auto combo = [this](QComboBox* box, Control c, auto apply) {
        connect(box, qOverload<int>(&QComboBox::currentIndexChanged), this, [this, box, c, apply](int) {
            edit(c, false, [box, apply](Scenario& s) { apply(s, box->currentData().toInt()); });
        });
    };
    combo(m_mode, Control::Mode, [](Scenario& s, int v) { s.training.mode = static_cast<Mode>(v); });
    combo(m_precision, Control::Precision,
          [](Scenario& s, int v) { s.training.precision = static_cast<Precision>(v); });
    combo(m_optimizer, Control::Optimizer, [](Scenario& s, int v) {
        s.training.pagedOptimizer = v == kPagedAdam8bit;
        s.training.optimizer = v == kPagedAdam8bit ? Optimizer::Adam8bit : static_cast<Optimizer>(v);
    });
    combo(m_checkpointing, Control::Checkpointing,
          [](Scenario& s, int v) { s.training.checkpointing = static_cast<Checkpointing>(v); });
    combo(m_loss, Control::Loss, [](Scenario& s, int v) {
        s.training.loss = v < 0 ? std::nullopt : std::optional<LossKind>(static_cast<LossKind>(v));
    });
    combo(m_framework, Control::Framework, [](Scenario& s, int v) {
        s.framework = v < 0 ? std::nullopt : std::optional<Framework>(static_cast<Framework>(v));
    });
    auto onOff = [](int v) { return v < 0 ? std::nullopt : std::optional<bool>(v == 1); };
    combo(m_compile, Control::Compile, [onOff](Scenario& s, int v) { s.training.compile = onOff(v); });
    combo(m_compileLoss, Control::CompileLoss, [onOff](Scenario& s, int v) { s.training.compileLoss = onOff(v); });
    combo(m_optimizerInBackward, Control::OptimizerInBackward,
          [onOff](Scenario& s, int v) { s.training.optimizerInBackward = onOff(v); });
    combo(m_activationOffload, Control::ActivationOffload,
          [onOff](Scenario& s, int v) { s.training.activationOffload = onOff(v); });
    combo(m_reshardAfterForward, Control::ReshardAfterForward,
          [onOff](Scenario& s, int v) { s.hardware.reshardAfterForward = onOff(v); });
    combo(m_fineTune, Control::FineTune, [](Scenario& s, int v) {
        s.training.fineTune = static_cast<FineTune>(v);
        if (s.training.fineTune != FineTune::QLora) // the base's format is QLoRA's: back to nf4 with it
            s.training.qloraBase = QloraBase::NF4;
    });
    combo(m_loraTargets, Control::LoraTargets, [](Scenario& s, int v) {
        s.training.loraTargets = static_cast<LoraTargets>(v);
        s.training.loraModules = 0; // a choice here replaces a PEFT module list
    });
    combo(m_qloraBase, Control::QloraBase,
          [](Scenario& s, int v) { s.training.qloraBase = static_cast<QloraBase>(v); });
    combo(m_zero, Control::Zero, [](Scenario& s, int v) { s.hardware.zeroStage = v; });
    combo(m_offload, Control::Offload, [](Scenario& s, int v) { s.hardware.offload = static_cast<Offload>(v); });
    combo(m_weights, Control::Weights,
          [](Scenario& s, int v) { s.training.inferenceWeights = static_cast<InferenceWeights>(v); });
    connect(m_gpu, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int) {
        const std::string id = m_gpu->currentData().toString().toStdString();
        edit(Control::Gpu, false, [id](Scenario& s) { s.hardware.gpu = id; });
    });
    connect(m_sequenceParallel, &QCheckBox::toggled, this, [this](bool on) {
        edit(Control::SequenceParallel, false, [on](Scenario& s) { s.training.sequenceParallel = on; });
    });
    connect(m_contextParallel, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        const int64_t cp = m_contextParallel->itemData(i).toLongLong();
        edit(Control::ContextParallel, false, [cp](Scenario& s) { s.hardware.cp = cp; });
    });
    connect(m_flash, &QCheckBox::toggled, this,
            [this](bool on) { edit(Control::Flash, false, [on](Scenario& s) { s.training.flashAttention = on; }); });

    connect(m_params, &LogSliderField::valueEdited, this, [this](int64_t v, bool continuous) {
        // Dense stays dense; a sparse model keeps its active count (up to the new total).
        const ResolvedModel m = resolveModel(m_scenario.model);
        const int64_t active = m.params.active >= m.params.total ? v : std::min(m.params.active, v);
        edit(Control::Params, continuous, [v, active](Scenario& s) {
            s.model.hasArchitecture = false;
            s.model.params = v;
            s.model.activeParams = active;
            s.model.publishedTotal.reset();
            s.model.publishedActive.reset();
        });
    });
    connect(m_active, &LogSliderField::valueEdited, this, [this](int64_t v, bool continuous) {
        const int64_t total = resolveModel(m_scenario.model).params.total;
        edit(Control::ActiveParams, continuous, [v, total](Scenario& s) {
            s.model.hasArchitecture = false;
            s.model.params = total;
            s.model.activeParams = std::min(v, total);
            s.model.publishedTotal.reset();
            s.model.publishedActive.reset();
        });
    });
    connect(m_experts, qOverload<int>(&QSpinBox::valueChanged), this, [this](int k) {
        edit(Control::ActiveExperts, true, [k](Scenario& s) {
            s.model.architecture.moe.activeExperts = k;
            s.model.publishedActive.reset();
        });
    });
    connect(m_context, &LogSliderField::valueEdited, this, [this](int64_t v, bool continuous) {
        edit(Control::Context, continuous, [v](Scenario& s) { s.training.seqLen = v; });
    });
    connect(m_microBatch, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { edit(Control::MicroBatch, true, [v](Scenario& s) { s.training.microBatch = v; }); });
    connect(m_loraRank, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { edit(Control::LoraRank, true, [v](Scenario& s) { s.training.loraRank = v; }); });
    // Typed counts commit on Enter, not per keystroke: "2048" must not pass through 2, whose layout
    // (below) would lose the preset's tensor and pipeline split on the way.
    m_gpuCount->setKeyboardTracking(false);
    connect(m_gpuCount, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { edit(Control::GpuCount, true, [v](Scenario& s) { s = withGpuCount(std::move(s), v); }); });
    for (LogSliderField* f : {m_params, m_active, m_context})
        connect(f, &LogSliderField::editFinished, this, &ControlPanel::editFinished);
    connect(m_gpusPerNode, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { edit(Control::GpusPerNode, true, [v](Scenario& s) { s.hardware.gpusPerNode = v; }); });
    for (QSpinBox* b : {m_experts, m_microBatch, m_loraRank, m_gpuCount, m_gpusPerNode})
        connect(b, &QSpinBox::editingFinished, this, &ControlPanel::editFinished);
}

void ControlPanel::edit(Control c, bool continuous, const std::function<void(Scenario&)>& change)
{
    Scenario next = m_scenario;
    change(next);
    // A new model can have fewer layers or no experts: keep the layout one validateScenario() accepts.
    next = withValidLayout(std::move(next));
    // Offload needs its ZeRO stage (DeepSpeed's rule): choosing it raises the stage, anything else (a lower
    // stage) lowers the offload, so the window never makes a scenario validateScenario() refuses.
    next = withValidOffload(std::move(next), c == Control::Offload);
    m_scenario = next;
    updateEnabled();
    Q_EMIT scenarioEdited(next, c, continuous);
}

void ControlPanel::setScenario(const Scenario& s)
{
    m_scenario = s;
    const ResolvedModel m = resolveModel(s.model);
    {
        // An edited preset is no longer the preset: the box says "Custom" (naming where it came
        // from) and the preset's description goes, instead of claiming "The chapter's 7B" at 1T (issue 14).
        const QSignalBlocker block(m_preset);
        const int i = m_preset->findData(QString::fromStdString(s.id));
        const bool unedited = i >= 0 && m_library.isUnedited(s);
        const QString placeholder = i >= 0 ? tr("Custom (from %1)").arg(m_preset->itemText(i)) : tr("Custom");
        if (m_preset->placeholderText() != placeholder)
            m_preset->setPlaceholderText(placeholder);
        if (m_preset->currentIndex() != (unedited ? i : -1))
            m_preset->setCurrentIndex(unedited ? i : -1);
        const QString description = unedited ? QString::fromStdString(s.description) : QString();
        if (m_description->text() != description)
            m_description->setText(description);
        if (m_description->isVisibleTo(this) == description.isEmpty())
            m_description->setVisible(!description.isEmpty());
    }
    selectData(m_mode, s.training.mode);
    m_params->setValue(m.params.total);
    m_active->setBounds(1, m.params.total);
    m_active->setValue(m.params.active);
    const MoeConfig& moe = s.model.architecture.moe;
    setSpinRange(m_experts, 1, static_cast<int>(std::max<int64_t>(1, moe.experts)));
    setSpin(m_experts, static_cast<int>(std::max<int64_t>(1, moe.activeExperts)));
    selectData(m_precision, s.training.precision);
    if (s.training.pagedOptimizer && s.training.optimizer == Optimizer::Adam8bit)
        selectData(m_optimizer, kPagedAdam8bit);
    else
        selectData(m_optimizer, s.training.optimizer);
    m_context->setValue(s.training.seqLen);
    setSpin(m_microBatch, static_cast<int>(s.training.microBatch));
    selectData(m_checkpointing, s.training.checkpointing);
    selectData(m_fineTune, s.training.fineTune);
    setSpin(m_loraRank, static_cast<int>(std::clamp<int64_t>(s.training.loraRank, 1, kMaxLoraRank)));
    selectData(m_loraTargets, s.training.loraTargets);
    selectData(m_qloraBase, s.training.qloraBase);
    {
        // The unset choice says which loss it means: the framework's, else the chapter's in-place e + 4 B.
        const std::optional<LossKind> profile = s.framework ? frameworkDefaults(*s.framework).loss : std::nullopt;
        const int at = profile ? m_loss->findData(static_cast<int>(*profile)) : -1;
        m_loss->setItemText(0, at > 0 ? tr("Default: %1").arg(m_loss->itemText(at)) : tr("In place (e + 4 B)"));
    }
    selectData(m_loss, s.training.loss ? static_cast<int>(*s.training.loss) : -1);
    selectData(m_framework, s.framework ? static_cast<int>(*s.framework) : -1);
    auto onOff = [](const std::optional<bool>& v) { return v ? (*v ? 1 : 0) : -1; };
    selectData(m_compile, onOff(s.training.compile));
    selectData(m_compileLoss, onOff(s.training.compileLoss));
    selectData(m_optimizerInBackward, onOff(s.training.optimizerInBackward));
    selectData(m_activationOffload, onOff(s.training.activationOffload));
    selectData(m_reshardAfterForward, onOff(s.hardware.reshardAfterForward));
    if (s.training.loraModules != 0) { // a PEFT list from a file or --lora-targets: named, neither of the two choices
        const QSignalBlocker block(m_loraTargets);
        m_loraTargets->setCurrentIndex(-1);
        m_loraTargets->setPlaceholderText(QString::fromStdString(loraModulesList(s.training.loraModules)));
    }
    {
        const QSignalBlocker block(m_flash);
        m_flash->setChecked(s.training.flashAttention);
    }
    {
        const QSignalBlocker block(m_gpu);
        m_gpu->setCurrentIndex(
            std::max(0, m_gpu->findData(QString::fromStdString(s.hardware.gpu), Qt::UserRole, Qt::MatchFixedString)));
    }
    setSpin(m_gpuCount, static_cast<int>(s.hardware.gpus));
    selectData(m_zero, s.hardware.zeroStage);
    selectData(m_offload, s.hardware.offload);
    setSpin(m_gpusPerNode, static_cast<int>(std::clamp<int64_t>(s.hardware.gpusPerNode, 1, kMaxGpusPerNode)));
    {
        const QSignalBlocker block(m_sequenceParallel);
        const bool on = s.training.sequenceParallelEffective(s.hardware.tp);
        if (m_sequenceParallel->isChecked() != on)
            m_sequenceParallel->setChecked(on);
    }
    updateContextParallelChoices();
    selectData(m_weights, s.training.inferenceWeights);
    updateEnabled();
}

void ControlPanel::updateContextParallelChoices()
{
    // The degrees withValidLayout() keeps: cp divides gpus/(tp·pp) and 2·cp divides the context. Up to 64
    // entries; the list is rebuilt only when it changes (a slider step must not re-lay out the panel).
    const HardwareSetup& hw = m_scenario.hardware;
    const int64_t ranks = std::max<int64_t>(1, hw.gpus / std::max<int64_t>(1, hw.tp * hw.pp));
    const int64_t seq = std::clamp<int64_t>(m_scenario.training.seqLen, 1, kMaxSeq);
    QList<qlonglong> valid;
    for (int64_t c = 1; c <= std::min<int64_t>(ranks, 1024) && valid.size() < 64; ++c)
        if (ranks % c == 0 && (c == 1 || seq % (2 * c) == 0))
            valid.push_back(c);
    if (!valid.contains(hw.cp)) // a file's cp beyond the list's reach is still shown as it is
        valid.insert(std::upper_bound(valid.begin(), valid.end(), static_cast<qlonglong>(hw.cp)), hw.cp);
    bool same = m_contextParallel->count() == valid.size();
    for (int i = 0; same && i < valid.size(); ++i)
        same = m_contextParallel->itemData(i).toLongLong() == valid[i];
    const QSignalBlocker block(m_contextParallel);
    if (!same) {
        m_contextParallel->clear();
        for (qlonglong c : valid)
            m_contextParallel->addItem(c == 1 ? tr("1 (off)") : QString::number(c), c);
    }
    const int i = std::max(0, m_contextParallel->findData(static_cast<qlonglong>(hw.cp)));
    if (m_contextParallel->currentIndex() != i)
        m_contextParallel->setCurrentIndex(i);
}

void ControlPanel::updateEnabled()
{
    const bool moeArch = m_scenario.model.hasArchitecture && m_scenario.model.architecture.isMoe();
    m_experts->setVisible(moeArch);
    m_expertsLabel->setVisible(moeArch);
    m_active->setVisible(!moeArch);
    m_activeLabel->setVisible(!moeArch);
    const bool training = m_scenario.training.mode == Mode::Training;
    for (QWidget* w : std::initializer_list<QWidget*>{m_precision, m_optimizer, m_checkpointing, m_loss, m_fineTune,
                                                      m_zero, m_offload})
        w->setEnabled(training);
    for (QWidget* w : std::initializer_list<QWidget*>{m_compile, m_compileLoss, m_activationOffload})
        w->setEnabled(training);
    // The optimizer step in backward leaves nothing to accumulate: with grad_accum > 1 (a preset's or a file's) the
    // scenario would be refused, so the choice waits for grad_accum 1 (it stays enabled while on, to turn it off).
    m_optimizerInBackward->setEnabled(
        training && (m_scenario.training.gradAccum <= 1 || m_optimizerInBackward->currentData().toInt() == 1));
    m_reshardAfterForward->setEnabled(training && m_scenario.hardware.zeroStage >= 3);
    // Rank and targets mean something only with adapters (serving ignores the fine-tuning choice).
    for (QWidget* w : std::initializer_list<QWidget*>{m_loraRank, m_loraTargets})
        w->setEnabled(m_scenario.training.adapters());
    // The base's format is QLoRA's (nf4 otherwise, which a file may not change: validateScenario refuses it).
    m_qloraBase->setEnabled(m_scenario.training.adapters() && m_scenario.training.fineTune == FineTune::QLora);
    m_weights->setEnabled(!training);
    // Sequence parallel splits what tensor parallelism leaves whole: nothing to split at tp 1.
    m_sequenceParallel->setEnabled(m_scenario.hardware.tp > 1);
    m_contextParallel->setEnabled(m_contextParallel->count() > 1);
}

void ControlPanel::setFontScale(double scale)
{
    QFont f;
    f.setPointSizeF(QFont().pointSizeF() * scale);
    setFont(f);
}

} // namespace trainmem
