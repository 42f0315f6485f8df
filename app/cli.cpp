#include "cli.h"

#include "accounting.h"
#include "chartkind.h"
#include "clitrainconfig.h"
#include "lora.h"
#include "report.h"
#include "units.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>

#include <cmath>
#include <cstdio>

namespace trainmem {
namespace {

struct Options {
    QCommandLineOption json{QStringLiteral("json"), QStringLiteral("Print the full breakdown as JSON and exit.")};
    QCommandLineOption text{QStringLiteral("text"), QStringLiteral("Print the breakdown as a table and exit.")};
    QCommandLineOption preset{QStringLiteral("preset"),
                              QStringLiteral("Start from a built-in or user preset (see --list-presets)."),
                              QStringLiteral("id")};
    QCommandLineOption scenario{QStringLiteral("scenario"), QStringLiteral("Start from a scenario JSON file."),
                                QStringLiteral("file")};
    QCommandLineOption hfConfig{
        QStringLiteral("hf-config"),
        QStringLiteral("Use the model of a Hugging Face config.json (the file, or a folder holding one); the rest of "
                       "the setup comes from the preset or scenario and the other options."),
        QStringLiteral("path")};
    QCommandLineOption exportPng{QStringLiteral("export-png"),
                                 QStringLiteral("Render a chart to a PNG file offscreen and exit."),
                                 QStringLiteral("file")};
    QCommandLineOption exportTour{QStringLiteral("export-tour"),
                                  QStringLiteral("Write the chapter tour as slides: one PNG per step and index.md with "
                                                 "the narration, into a folder, and exit."),
                                  QStringLiteral("folder")};
    QCommandLineOption chart{
        QStringLiteral("chart"),
        QStringLiteral(
            "Chart to export: bars, seq, dashboard (default), peers (Megatron and DeepSpeed beside TrainMem), ranks "
            "(memory per GPU of each pipeline stage), fitmap (GPUs needed by model size and context) or timeline (one "
            "training step: memory over time, phase by phase)."),
        QStringLiteral("bars|seq|dashboard|peers|ranks|fitmap|timeline"), QStringLiteral("dashboard")};
    QCommandLineOption width{QStringLiteral("width"), QStringLiteral("Export width in pixels (default 1600)."),
                             QStringLiteral("px"), QStringLiteral("1600")};
    QCommandLineOption height{QStringLiteral("height"), QStringLiteral("Export height in pixels (default 1000)."),
                              QStringLiteral("px"), QStringLiteral("1000")};
    QCommandLineOption scale{QStringLiteral("scale"),
                             QStringLiteral("Export scale factor, e.g. 2 for a high-DPI slide (default 1)."),
                             QStringLiteral("factor"), QStringLiteral("1")};
    QCommandLineOption params{
        QStringLiteral("params"),
        QStringLiteral("Total parameters: 7e9, 7B, 70b, 2.4T. Replaces a preset's architecture with the size rule."),
        QStringLiteral("count")};
    QCommandLineOption activeParams{QStringLiteral("active-params"),
                                    QStringLiteral("Active parameters per token (mixture of experts)."),
                                    QStringLiteral("count")};
    QCommandLineOption mode{QStringLiteral("mode"), QStringLiteral("training or inference."), QStringLiteral("mode")};
    QCommandLineOption precision{QStringLiteral("precision"),
                                 QStringLiteral("fp32, bf16-mixed, fp16-mixed, bf16 or fp8-mixed."),
                                 QStringLiteral("recipe")};
    QCommandLineOption optimizer{
        QStringLiteral("optimizer"),
        QStringLiteral("adamw, adam, sgd, sgd-momentum, lion, adafactor, adam8bit, muon (Muon with AdamW for "
                       "embeddings, norms and head), paged-adamw8bit or paged-adamw."),
        QStringLiteral("name")};
    QCommandLineOption weights{
        QStringLiteral("weights"),
        QStringLiteral("Inference weight format: bf16, int8, int4 (GPTQ/AWQ, group 128), mxfp4 (on a MoE "
                       "model the experts only, as gpt-oss) or nvfp4; embeddings, head, "
                       "norms and routers stay 16-bit."),
        QStringLiteral("format")};
    QCommandLineOption seq{QStringLiteral("seq"), QStringLiteral("Context length in tokens: 8192, 8k, 128k, 1M."),
                           QStringLiteral("tokens")};
    QCommandLineOption batch{QStringLiteral("batch"), QStringLiteral("Micro-batch size (sequences per GPU per step)."),
                             QStringLiteral("n")};
    QCommandLineOption checkpointing{QStringLiteral("checkpointing"),
                                     QStringLiteral("Activation checkpointing: none, selective, full or per-op "
                                                    "(torchtitan's per-op selective: every other matmul's output "
                                                    "kept)."),
                                     QStringLiteral("mode")};
    QCommandLineOption finetune{
        QStringLiteral("finetune"),
        QStringLiteral("Fine-tuning: full (every parameter), lora (adapters on a frozen base) "
                       "or qlora (adapters on a 4-bit base: NF4, or MXFP4/NVFP4 with --qlora-base)."),
        QStringLiteral("full|lora|qlora")};
    QCommandLineOption loraRank{QStringLiteral("lora-rank"), QStringLiteral("LoRA rank r, 1-4096 (default 16)."),
                                QStringLiteral("n")};
    QCommandLineOption loraTargets{
        QStringLiteral("lora-targets"),
        QStringLiteral(
            "Layers with adapters: attn (q, k, v, o), all (every linear of attention and MLP, experts included) or a "
            "list of modules as PEFT names them, e.g. q_proj,v_proj (q_proj k_proj v_proj o_proj gate_proj up_proj "
            "down_proj, MLA's q_a_proj q_b_proj kv_a_proj_with_mqa kv_b_proj, Gated DeltaNet's in_proj_qkvz "
            "in_proj_ba out_proj, Mamba-2's in_proj out_proj, a latent MoE's fc1_latent_proj fc2_latent_proj)."),
        QStringLiteral("attn|all|LIST")};
    QCommandLineOption loss{
        QStringLiteral("loss"),
        QStringLiteral("How the cross-entropy is computed: eager (PyTorch on fp32-upcast logits, as transformers and "
                       "torchtitan), chunked (torchtune, 8 chunks), fused (Liger's fused linear cross-entropy), "
                       "vocab-parallel (Megatron-LM), chunked-16bit (LitGPT's chunked_cross_entropy: 128-token "
                       "chunks, no fp32 upcast), loss-parallel (PyTorch's loss_parallel() on the V/t slice, "
                       "torchtitan under tensor parallelism) or chunked-backward (torchtitan's ChunkedLossWrapper: "
                       "8 chunks, each chunk's backward right after its forward). Default: the framework's, else the "
                       "chapter's e + 4 B per logit."),
        QStringLiteral("eager|chunked|fused|vocab-parallel|chunked-16bit|loss-parallel|chunked-backward")};
    QCommandLineOption framework{
        QStringLiteral("framework"),
        QStringLiteral("Take a framework's defaults (its cross-entropy, its allocator setting) for what is not set "
                       "otherwise: megatron, deepspeed, torchtitan, torchtune, hf or litgpt."),
        QStringLiteral("megatron|deepspeed|torchtitan|torchtune|hf|litgpt")};
    QCommandLineOption expandableSegments{
        QStringLiteral("expandable-segments"),
        QStringLiteral("PyTorch's caching allocator with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the "
                       "reserve over allocated memory is at most a 20 MiB and a 2 MiB page. Default: the framework's, "
                       "else off."),
        QStringLiteral("on|off")};
    QCommandLineOption compile{
        QStringLiteral("compile"),
        QStringLiteral(
            "torch.compile of the model: the fused kernels rebuild the SwiGLU product and the norms' outputs "
            "in backward instead of keeping them. Default: the framework's, else off."),
        QStringLiteral("on|off")};
    QCommandLineOption compileLoss{
        QStringLiteral("compile-loss"),
        QStringLiteral("The cross-entropy compiled with the model: its 16-bit logits kept and the fp32 work fused into "
                       "the backward kernel (2e per logit). Default: under --compile as the framework does "
                       "(torchtitan compiles its loss; torchtune only its chunked one), else off."),
        QStringLiteral("on|off")};
    QCommandLineOption optimizerInBackward{
        QStringLiteral("optimizer-in-backward"),
        QStringLiteral("Step each parameter as soon as its gradient is ready and free it (torchtune's "
                       "optimizer_in_bwd): one layer's gradients at a time; needs --grad-accum 1. Default: off."),
        QStringLiteral("on|off")};
    QCommandLineOption activationOffload{
        QStringLiteral("activation-offload"),
        QStringLiteral("Keep the activation tape in host memory (torchtune's OffloadActivations): the GPU holds the "
                       "two layers in flight; needs a GPU whose catalog gives a host. Default: off."),
        QStringLiteral("on|off")};
    QCommandLineOption reshardAfterForward{
        QStringLiteral("reshard-after-forward"),
        QStringLiteral("FSDP2's reshard_after_forward with ZeRO-3: off keeps every layer's gathered weights from its "
                       "forward to its backward. Default: the framework's, else on."),
        QStringLiteral("on|off")};
    QCommandLineOption qloraDoubleQuant{
        QStringLiteral("qlora-double-quant"),
        QStringLiteral("QLoRA's absmax constants double-quantised (on, QLoRA's recipe) or one fp32 constant per 64 "
                       "weights (off: bitsandbytes without compress_statistics, LitGPT's bnb.nf4). Default: on."),
        QStringLiteral("on|off")};
    QCommandLineOption qloraBase{
        QStringLiteral("qlora-base"),
        QStringLiteral("With --finetune qlora: the frozen base's format, bitsandbytes' NF4 (nf4, QLoRA's own) or a "
                       "checkpoint trained as published in MXFP4 (gpt-oss: its experts) or NVFP4 (ModelOpt). "
                       "Default: nf4."),
        QStringLiteral("nf4|mxfp4|nvfp4")};
    QCommandLineOption litgptHeldBatch{
        QStringLiteral("litgpt-held-batch"),
        QStringLiteral("With --framework litgpt and QLoRA: the micro-batch before the peak was as long as this one, so "
                       "its 4-bit inputs and logits, which LitGPT and bitsandbytes before 0.43.2 still hold, meet "
                       "this one's forward (on), or the peak step had none before it (off: LitGPT runs the longest "
                       "sample first, data of mixed lengths). Default: on."),
        QStringLiteral("on|off")};
    QCommandLineOption litgptFp32Norm{
        QStringLiteral("litgpt-fp32-norm"),
        QStringLiteral("With --framework litgpt: its RMSNorm upcasts to fp32 (on: LitGPT from 6178c7c, October 2023, "
                       "on) or computes in 16 bits (off: LitGPT before it). Default: on."),
        QStringLiteral("on|off")};
    QCommandLineOption fsdpFlatWrap{
        QStringLiteral("fsdp-flat-wrap"),
        QStringLiteral(
            "FSDP1 wrapped the model as loaded (use_orig_params=False, as fsdp_qlora's train.py): with ZeRO-3 "
            "the caching allocator keeps one layer's and the embeddings' unsharded blocks from the wrap. "
            "Default off."),
        QStringLiteral("on|off")};
    QCommandLineOption fsdpRoot{
        QStringLiteral("fsdp-root"),
        QStringLiteral(
            "What the FSDP2 wrap keeps gathered beside the layers at ZeRO-3: none; head (the output head and "
            "final norm, forward to backward: torchtitan's default); embeddings+head (the root unit, "
            "forward to the end of backward: torchtune's default). Default: the framework's, else none."),
        QStringLiteral("none|head|embeddings+head")};
    QCommandLineOption fsdpNoSync{
        QStringLiteral("fsdp-no-sync"),
        QStringLiteral("Gradient accumulation inside FSDP1's no_sync() (Lightning Fabric's no_backward_sync, as LitGPT "
                       "accumulates): with ZeRO-2/3 and grad_accum > 1 the gradients are held unsharded; under LoRA "
                       "each layer's flat parameter (frozen base and adapters) has one. Default off."),
        QStringLiteral("on|off")};
    QCommandLineOption flash{QStringLiteral("flash"), QStringLiteral("Fused (flash) attention: on or off."),
                             QStringLiteral("on|off")};
    QCommandLineOption gpu{QStringLiteral("gpu"), QStringLiteral("GPU type (see --list-gpus)."), QStringLiteral("id")};
    QCommandLineOption gpus{QStringLiteral("gpus"), QStringLiteral("Number of GPUs."), QStringLiteral("n")};
    QCommandLineOption zero{QStringLiteral("zero"), QStringLiteral("ZeRO stage 0-3 (3 = FSDP)."),
                            QStringLiteral("stage")};
    QCommandLineOption offload{
        QStringLiteral("offload"),
        QStringLiteral("ZeRO-Offload to host memory: none, optimizer (fp32 master, optimizer state and gradients; "
                       "needs --zero 1-3) or optimizer+params (the 16-bit weights too; needs --zero 3)."),
        QStringLiteral("none|optimizer|optimizer+params")};
    QCommandLineOption gpusPerNode{QStringLiteral("gpus-per-node"),
                                   QStringLiteral("GPUs sharing one host's memory (default 8)."), QStringLiteral("n")};
    QCommandLineOption tp{QStringLiteral("tp"), QStringLiteral("Tensor-parallel degree."), QStringLiteral("n")};
    QCommandLineOption pp{QStringLiteral("pp"), QStringLiteral("Pipeline-parallel degree."), QStringLiteral("n")};
    QCommandLineOption ep{QStringLiteral("ep"), QStringLiteral("Expert-parallel degree."), QStringLiteral("n")};
    QCommandLineOption etp{QStringLiteral("etp"),
                           QStringLiteral("Expert tensor-parallel degree: how many ways each routed expert's matrices "
                                          "are split (default: --tp, as Megatron-LM)."),
                           QStringLiteral("n")};
    QCommandLineOption vpp{QStringLiteral("vpp"),
                           QStringLiteral("Virtual pipeline stages per GPU (interleaved 1F1B); 1 = plain 1F1B."),
                           QStringLiteral("n")};
    QCommandLineOption sp{QStringLiteral("sp"),
                          QStringLiteral("Megatron sequence parallelism (needs --tp above 1): norms and dropout "
                                         "activations split by tp too. Default on."),
                          QStringLiteral("on|off")};
    QCommandLineOption cp{QStringLiteral("cp"),
                          QStringLiteral("Context-parallel degree: each GPU holds seq/cp tokens of every activation "
                                         "(ring attention); GPUs = tp·pp·cp·dp."),
                          QStringLiteral("n")};
    QCommandLineOption gradAccum{QStringLiteral("grad-accum"),
                                 QStringLiteral("Micro-batches per optimizer step (gradient accumulation): the "
                                                "pipeline's tapes in flight and the communication tax."),
                                 QStringLiteral("n")};
    QCommandLineOption globalBatch{
        QStringLiteral("global-batch"),
        QStringLiteral("Sequences per optimizer step, micro-batch × data parallel × grad-accum (sets --grad-accum)."),
        QStringLiteral("n")};
    QCommandLineOption tokens{QStringLiteral("tokens"),
                              QStringLiteral("Training tokens for the cost receipt: 15T, 1.4e12."),
                              QStringLiteral("count")};
    QCommandLineOption mfu{QStringLiteral("mfu"), QStringLiteral("Model FLOPs utilisation for the cost receipt, 0-1."),
                           QStringLiteral("fraction")};
    QCommandLineOption price{QStringLiteral("price"), QStringLiteral("USD per GPU-hour for the cost receipt."),
                             QStringLiteral("usd")};
    QCommandLineOption listPresets{QStringLiteral("list-presets"), QStringLiteral("List the presets and exit.")};
    QCommandLineOption megatron{
        QStringLiteral("megatron-args"),
        QStringLiteral(
            "Megatron-LM flags, a torchrun … pretrain_gpt.py line or a shell script (@FILE reads a file): the model, "
            "batch and layout come from them, and --json adds Megatron's and DeepSpeed's own estimates."),
        QStringLiteral("flags")};
    TrainingConfigOptions training; // --deepspeed-config, --axolotl-config, --torchtune-config
    QCommandLineOption measured{
        QStringLiteral("measured"),
        QStringLiteral("What the GPU showed, put beside the prediction of the same statistic: a file (- reads standard "
                       "input) with the text of torch.cuda.memory_summary(), nvidia-smi, PyTorch's out-of-memory "
                       "error, or a figure with its statistic (\"peak allocated 61.2 GiB\")."),
        QStringLiteral("file")};
    QCommandLineOption listGpus{QStringLiteral("list-gpus"), QStringLiteral("List the GPU catalog and exit.")};

    void addTo(QCommandLineParser& p) const
    {
        p.addOptions({json,         text,
                      preset,       scenario,
                      hfConfig,     exportPng,
                      exportTour,   chart,
                      width,        height,
                      scale,        params,
                      activeParams, mode,
                      precision,    optimizer,
                      weights,      seq,
                      batch,        checkpointing,
                      finetune,     loraRank,
                      loraTargets,  loss,
                      framework,    expandableSegments,
                      flash,        gpu,
                      gpus,         zero,
                      offload,      gpusPerNode,
                      tp,           pp,
                      ep,           etp,
                      vpp,          sp,
                      cp,           gradAccum,
                      globalBatch,  tokens,
                      mfu,          price,
                      megatron,     listPresets,
                      listGpus,     measured});
        p.addOptions({compile, compileLoss, optimizerInBackward, activationOffload, reshardAfterForward, fsdpFlatWrap,
                      fsdpNoSync, fsdpRoot, qloraDoubleQuant, litgptFp32Norm, qloraBase, litgptHeldBatch});
        p.addOptions(training.all());
    }
};

QString fail(const QString& option, const QString& message)
{
    return QStringLiteral("--%1: %2").arg(option, message);
}

// Each override: read, check, apply; the first error ends parsing with a message naming the option.
class Overrides
{
public:
    Overrides(const QCommandLineParser& p, Scenario& s) : m_p(p), m_s(s) {}
    QString error;

    bool count(const QCommandLineOption& o, int64_t min, int64_t max, auto apply, bool context = false)
    {
        if (!error.isEmpty() || !m_p.isSet(o))
            return false;
        const QString name = o.names().constFirst();
        const QString v = m_p.value(o);
        std::optional<int64_t> n = context ? parseContext(v.toStdString()) : parseCount(v.toStdString());
        if (!n) {
            bool number = false;
            const double d = v.trimmed().toDouble(&number);
            if (number && d <= 0)
                error = fail(name, QStringLiteral("must be a positive integer, got %1").arg(v));
            else if (number && d > static_cast<double>(max))
                error = fail(name, QStringLiteral("must be between %1 and %2, got %3").arg(min).arg(max).arg(v));
            else
                error =
                    fail(name, QStringLiteral("must be a whole number such as 8192, 7B or 2.4T, got \"%1\"").arg(v));
            return false;
        }
        if (*n < min || *n > max) {
            error = fail(name, QStringLiteral("must be between %1 and %2, got %3").arg(min).arg(max).arg(v));
            return false;
        }
        apply(*n);
        return true;
    }

    bool fraction(const QCommandLineOption& o, double min, double max, double& out)
    {
        if (!error.isEmpty() || !m_p.isSet(o))
            return false;
        bool ok = false;
        const double d = m_p.value(o).toDouble(&ok);
        if (!ok || !std::isfinite(d) || d < min || d > max) {
            error = fail(
                o.names().constFirst(),
                QStringLiteral("must be a number between %1 and %2, got \"%3\"").arg(min).arg(max).arg(m_p.value(o)));
            return false;
        }
        out = d;
        return true;
    }

    // `out` is the enumeration or an optional of it; set only to a valid name.
    template <typename E, typename Parse>
    void choice(const QCommandLineOption& o, E& out, Parse parse, const std::string& names)
    {
        if (!error.isEmpty() || !m_p.isSet(o))
            return;
        const auto v = parse(m_p.value(o).toStdString());
        if (!v) {
            error =
                fail(o.names().constFirst(),
                     QStringLiteral("must be one of %1, got \"%2\"").arg(QString::fromStdString(names), m_p.value(o)));
            return;
        }
        out = *v;
    }

    /// on|off (true|false, 1|0, any case) into `out`, a bool or an optional one (unset: the framework's default).
    template <typename B> bool onOff(const QCommandLineOption& o, B& out)
    {
        if (!error.isEmpty() || !m_p.isSet(o))
            return false;
        const QString v = m_p.value(o).toLower();
        if (v == QLatin1String("on") || v == QLatin1String("true") || v == QLatin1String("1"))
            out = true;
        else if (v == QLatin1String("off") || v == QLatin1String("false") || v == QLatin1String("0"))
            out = false;
        else
            error = fail(o.names().constFirst(), QStringLiteral("must be on or off, got \"%1\"").arg(m_p.value(o)));
        return error.isEmpty();
    }

private:
    const QCommandLineParser& m_p;
    Scenario& m_s;
};

// --megatron-args: the launch becomes the scenario (the GPU type, overhead and cost stay).
// --measured FILE, or - for standard input (read to kMaxMeasuredText and a byte more, so that a longer text is
// cut with a note rather than read whole).
bool readMeasured(const QString& value, CliRequest& r, QString& error)
{
    QByteArray bytes;
    std::string source = value.toStdString();
    if (value == QLatin1String("-")) {
        QFile in;
        if (!in.open(stdin, QIODevice::ReadOnly)) {
            error = fail(QStringLiteral("measured"), QStringLiteral("standard input cannot be read"));
            return false;
        }
        bytes = in.read(static_cast<qint64>(kMaxMeasuredText) + 1);
        source = "standard input";
    } else if (const std::optional<FieldError> e = readUserFile(value, "a memory readout", bytes)) {
        error = fail(QStringLiteral("measured"), QString::fromStdString(e->toString()));
        return false;
    }
    MeasuredMemory m =
        parseMeasuredMemory(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), source);
    if (!m.ok()) {
        QStringList lines;
        for (size_t i = 0; i < m.errors.size() && i < kMaxListedErrors; ++i)
            lines << fail(QStringLiteral("measured"), QString::fromStdString(m.errors[i].toString()));
        error = lines.join(QLatin1Char('\n'));
        return false;
    }
    for (const std::string& n : m.notes)
        r.warnings << QStringLiteral("--measured: %1").arg(QString::fromStdString(n));
    r.measured = std::move(m);
    return true;
}

bool readMegatron(const QString& value, int64_t gpus, CliRequest& r, QString& error)
{
    QString text = value;
    std::string source = "--megatron-args";
    if (value.startsWith(QLatin1Char('@'))) {
        QByteArray bytes;
        if (const std::optional<FieldError> e = readUserFile(value.mid(1), "a Megatron-LM launch", bytes)) {
            error = fail(QStringLiteral("megatron-args"), QString::fromStdString(e->toString()));
            return false;
        }
        text = QString::fromUtf8(bytes);
        source = value.mid(1).toStdString();
    }
    const MegatronParse parsed = parseMegatronArgs(text.toStdString(), gpus, source);
    if (!parsed.ok()) {
        QStringList lines;
        for (const FieldError& e : parsed.errors)
            lines << QString::fromStdString(e.toString());
        error = lines.join(QLatin1Char('\n'));
        return false;
    }
    r.megatron = parsed.args;
    r.scenario = scenarioFromMegatron(parsed.args, r.scenario);
    r.scenarioGiven = true;
    for (const std::string& i : parsed.ignored)
        r.megatronIgnored << QString::fromStdString(i);
    for (const std::string& n : parsed.notes)
        r.megatronNotes << QString::fromStdString(n);
    if (!r.megatronIgnored.isEmpty())
        r.warnings << QStringLiteral("--megatron-args: ignored (not used by the estimates): %1")
                          .arg(r.megatronIgnored.join(QStringLiteral(", ")));
    return true;
}

} // namespace

CliOutcome parseCommandLine(const QStringList& arguments, const PresetLibrary& library)
{
    CliOutcome out;
    CliRequest& r = out.request;
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("TrainMem shows why training a large model does not fit on one GPU.\n"
                                               "Without a headless option it opens the window."));
    const QCommandLineOption help = p.addHelpOption();
    const QCommandLineOption version = p.addVersionOption();
    const Options o;
    o.addTo(p);
    r.helpText = p.helpText();
    if (!p.parse(arguments)) {
        out.ok = false;
        out.error = p.errorText();
        return out;
    }
    if (!p.positionalArguments().isEmpty()) {
        out.ok = false;
        out.error = QStringLiteral("unexpected argument \"%1\"").arg(p.positionalArguments().constFirst());
        return out;
    }
    if (p.isSet(help)) {
        r.action = CliRequest::Action::Help;
        return out;
    }
    if (p.isSet(version)) {
        r.action = CliRequest::Action::Version;
        return out;
    }
    if (p.isSet(o.listPresets)) {
        r.action = CliRequest::Action::ListPresets;
        return out;
    }
    if (p.isSet(o.listGpus)) {
        r.action = CliRequest::Action::ListGpus;
        return out;
    }

    // The starting scenario: a file, a preset, or the default preset.
    if (p.isSet(o.scenario) && p.isSet(o.preset)) {
        out.ok = false;
        out.error = QStringLiteral("--preset and --scenario: give one or the other");
        return out;
    }
    if (p.isSet(o.scenario)) {
        ScenarioParse parsed = PresetLibrary::loadFile(p.value(o.scenario));
        // An unknown GPU is refused as --gpu refuses one, unless --gpu replaces it.
        if (parsed.ok() && !p.isSet(o.gpu))
            if (std::optional<FieldError> e = library.unknownGpu(parsed.scenario, p.value(o.scenario)))
                parsed.errors.push_back(std::move(*e));
        if (!parsed.ok()) {
            out.ok = false;
            QStringList lines;
            for (const FieldError& e : parsed.errors)
                lines << toQString(e);
            out.error = lines.join(QLatin1Char('\n'));
            return out;
        }
        r.scenario = parsed.scenario;
        r.scenarioGiven = true;
    } else {
        const QString id = p.isSet(o.preset) ? p.value(o.preset) : QString::fromLatin1(PresetLibrary::kDefaultPresetId);
        const PresetEntry* e = library.find(id);
        if (!e) {
            QStringList ids;
            for (const PresetEntry& pe : library.presets())
                ids << QString::fromStdString(pe.scenario.id);
            out.ok = false;
            out.error =
                QStringLiteral("--preset: unknown preset \"%1\" (known: %2)").arg(id, ids.join(QStringLiteral(", ")));
            return out;
        }
        r.scenario = e->scenario;
        r.scenarioGiven = p.isSet(o.preset);
        for (const QString& skipped : library.skippedUserPreset(id))
            r.warnings << QStringLiteral("the user preset %1 was skipped (%2); using the built-in").arg(id, skipped);
    }

    // The model of a Hugging Face config replaces the starting scenario's; the overrides then apply.
    if (p.isSet(o.hfConfig)) {
        Scenario imported;
        const FieldErrors errors = PresetLibrary::importHfConfig(p.value(o.hfConfig), r.scenario, imported);
        if (!errors.empty()) {
            out.ok = false;
            QStringList lines;
            for (const FieldError& e : errors)
                lines << toQString(e);
            out.error = lines.join(QLatin1Char('\n'));
            return out;
        }
        r.scenario = imported;
        r.scenarioGiven = true;
    }

    // Training configs: after the model of --hf-config, before the overrides, which win over them.
    const TrainingConfigFlags trainingFlags =
        o.training.given(p, p.isSet(o.hfConfig),
                         p.isSet(o.preset)     ? QStringLiteral("--preset ") + p.value(o.preset)
                         : p.isSet(o.scenario) ? QStringLiteral("--scenario ") + p.value(o.scenario)
                                               : QString());
    std::optional<TrainingConfig> training;
    if (trainingFlags.any() && p.isSet(o.megatron)) {
        out.ok = false;
        out.error = QStringLiteral("--megatron-args and a training config: give one or the other");
        return out;
    }
    if (trainingFlags.any() && !(training = readTrainingConfigs(trainingFlags, r, out.error))) {
        out.ok = false;
        return out;
    }

    Scenario& s = r.scenario;
    Overrides ov(p, s);
    // A size override replaces the architecture: the size rule makes the shape (docs/accounting.md).
    const int64_t presetTotal = s.model.hasArchitecture ? s.model.params : s.model.params;
    const int64_t presetActive = s.model.activeParams > 0 ? s.model.activeParams : s.model.params;
    bool sizeChanged = false;
    int64_t total = presetTotal, active = presetActive;
    if (ov.count(o.params, 1, kMaxParams, [&](int64_t n) {
            total = n;
            active = p.isSet(o.activeParams) ? active : n;
        }))
        sizeChanged = true;
    if (ov.count(o.activeParams, 1, kMaxParams, [&](int64_t n) { active = n; }))
        sizeChanged = true;
    if (sizeChanged) {
        if (active > total) {
            out.ok = false;
            out.error = fail(QStringLiteral("active-params"),
                             QStringLiteral("must not exceed the total parameters (%1), got %2")
                                 .arg(QString::fromStdString(formatCount(static_cast<double>(total))),
                                      QString::fromStdString(formatCount(static_cast<double>(active)))));
            return out;
        }
        s.model.hasArchitecture = false;
        s.model.params = total;
        s.model.activeParams = active;
        s.model.publishedTotal.reset();
        s.model.publishedActive.reset();
    }
    ov.choice(o.mode, s.training.mode, modeFromString, modeNames());
    ov.choice(o.precision, s.training.precision, precisionFromString, precisionNames());
    // paged-adamw8bit and paged-adamw (bitsandbytes' PagedAdamW8bit, PagedAdamW): the optimizer with its state in
    // unified memory (issue 30 §2); any other name is an optimizer and not paged.
    if (ov.error.isEmpty() && p.isSet(o.optimizer)) {
        const std::string v = p.value(o.optimizer).toLower().toStdString();
        const bool paged = v == "paged-adamw8bit" || v == "paged-adamw";
        if (paged)
            s.training.optimizer = v == "paged-adamw" ? Optimizer::AdamW : Optimizer::Adam8bit;
        else if (const std::optional<Optimizer> opt = optimizerFromString(v))
            s.training.optimizer = *opt;
        else
            ov.error = fail(QStringLiteral("optimizer"),
                            QStringLiteral("must be one of %1|paged-adamw8bit|paged-adamw, got \"%2\"")
                                .arg(QString::fromStdString(optimizerNames()), p.value(o.optimizer)));
        s.training.pagedOptimizer = paged;
    }
    ov.choice(o.weights, s.training.inferenceWeights, inferenceWeightsFromString, inferenceWeightsNames());
    ov.choice(o.checkpointing, s.training.checkpointing, checkpointingFromString, checkpointingNames());
    ov.choice(o.finetune, s.training.fineTune, fineTuneFromString, fineTuneNames());
    ov.choice(o.qloraBase, s.training.qloraBase, qloraBaseFromString, qloraBaseNames());
    ov.count(o.loraRank, 1, kMaxLoraRank, [&](int64_t n) { s.training.loraRank = n; });
    // attn or all, or a PEFT module list (issue 30 §2): the list replaces the named set, a name clears the list.
    if (ov.error.isEmpty() && p.isSet(o.loraTargets)) {
        const std::string v = p.value(o.loraTargets).toStdString();
        std::string why;
        if (const std::optional<LoraTargets> t = loraTargetsFromString(v)) {
            s.training.loraTargets = *t;
            s.training.loraModules = 0;
        } else if (const std::optional<uint32_t> m = loraModulesFromList(v, &why)) {
            s.training.loraModules = *m;
        } else {
            ov.error = fail(QStringLiteral("lora-targets"),
                            QStringLiteral("must be attn, all or a list of modules such as q_proj,v_proj: %1")
                                .arg(QString::fromStdString(why)));
        }
    }
    ov.choice(o.loss, s.training.loss, lossKindFromString, lossKindNames());
    ov.choice(o.fsdpRoot, s.hardware.fsdpRoot, fsdpRootFromString, fsdpRootNames());
    ov.choice(o.framework, s.framework, frameworkFromString, frameworkNames());
    // The recipes (issue 30 §2): on or off, each replacing the framework's default.
    ov.onOff(o.compile, s.training.compile);
    ov.onOff(o.compileLoss, s.training.compileLoss);
    ov.onOff(o.optimizerInBackward, s.training.optimizerInBackward);
    ov.onOff(o.activationOffload, s.training.activationOffload);
    ov.onOff(o.reshardAfterForward, s.hardware.reshardAfterForward);
    ov.onOff(o.qloraDoubleQuant, s.training.qloraDoubleQuant);
    ov.onOff(o.litgptFp32Norm, s.training.litgptFp32Norm);
    ov.onOff(o.litgptHeldBatch, s.training.litgptHeldBatch);
    ov.onOff(o.fsdpFlatWrap, s.hardware.fsdpFlatWrap);
    ov.onOff(o.fsdpNoSync, s.hardware.fsdpNoSync);
    ov.onOff(o.expandableSegments, s.hardware.expandableSegments);
    ov.count(
        o.seq, 1, kMaxSeq, [&](int64_t n) { s.training.seqLen = n; }, true);
    ov.count(o.batch, 1, kMaxMicroBatch, [&](int64_t n) { s.training.microBatch = n; });
    // --gpus alone keeps the file's tp/pp/ep as far as they still divide it (the core's rule, as in the
    // window); --tp/--pp given too are taken as asked and checked below.
    ov.count(o.gpus, 1, kMaxGpus, [&](int64_t n) { s = withGpuCount(std::move(s), n); });
    ov.count(o.zero, 0, 3, [&](int64_t n) { s.hardware.zeroStage = static_cast<int>(n); });
    ov.choice(o.offload, s.hardware.offload, offloadFromString, offloadNames());
    ov.count(o.gpusPerNode, 1, kMaxGpusPerNode, [&](int64_t n) { s.hardware.gpusPerNode = n; });
    ov.count(o.tp, 1, kMaxGpus, [&](int64_t n) { s.hardware.tp = n; });
    ov.count(o.pp, 1, kMaxGpus, [&](int64_t n) { s.hardware.pp = n; });
    ov.count(o.ep, 1, kMaxGpus, [&](int64_t n) { s.hardware.ep = n; });
    ov.count(o.etp, 1, kMaxGpus, [&](int64_t n) { s.hardware.etp = n; });
    ov.count(o.vpp, 1, kMaxLayers, [&](int64_t n) { s.hardware.vpp = n; });
    ov.count(o.cp, 1, kMaxGpus, [&](int64_t n) { s.hardware.cp = n; });
    if (ov.onOff(o.sp, s.training.sequenceParallel)) {
        // Sequence parallelism splits what tensor parallelism leaves whole; at tp 1 there is nothing to
        // split (Megatron-LM turns it off there), so asking for it is a mistake worth naming.
        if (s.training.sequenceParallel && s.hardware.tp <= 1)
            ov.error =
                fail(QStringLiteral("sp"),
                     QStringLiteral("on needs tensor parallelism: it splits the norms' and dropout's activations "
                                    "across the --tp ranks, and tp is 1 (add --tp 2 or more)"));
    }
    ov.count(o.gradAccum, 1, 1'000'000, [&](int64_t n) { s.training.gradAccum = n; });
    if (ov.error.isEmpty() && p.isSet(o.gradAccum) && p.isSet(o.globalBatch))
        ov.error = QStringLiteral("--grad-accum and --global-batch: give one or the other");
    // After --gpus/--tp/--pp/--batch, so that dp and the micro-batch are the ones used.
    ov.count(o.globalBatch, 1, kMaxGlobalBatch, [&](int64_t n) {
        std::string why;
        if (const std::optional<int64_t> m = gradAccumForGlobalBatch(s, n, &why))
            s.training.gradAccum = *m;
        else
            ov.error = fail(QStringLiteral("global-batch"), QString::fromStdString(why));
    });
    ov.count(o.tokens, 0, static_cast<int64_t>(1e18), [&](int64_t n) { s.cost.tokens = static_cast<double>(n); });
    ov.fraction(o.mfu, 1e-6, 1, s.cost.mfu);
    ov.fraction(o.price, 0, 1e6, s.cost.pricePerGpuHour);
    ov.onOff(o.flash, s.training.flashAttention);
    if (ov.error.isEmpty() && p.isSet(o.gpu)) {
        const GpuSpec* g = library.gpus().find(p.value(o.gpu).toStdString());
        if (!g) {
            ov.error = fail(QStringLiteral("gpu"),
                            QString::fromStdString(library.unknownGpuMessage(p.value(o.gpu).toStdString())));
        } else {
            s.hardware.gpu = g->id;
        }
    }
    // Adapter options that would change nothing are refused rather than silently dropped.
    if (ov.error.isEmpty() && p.isSet(o.finetune) && s.training.fineTune != FineTune::Full &&
        s.training.mode == Mode::Inference)
        ov.error = fail(QStringLiteral("finetune"),
                        QStringLiteral("%1 applies to training; serving reads the merged weights (add --mode training)")
                            .arg(p.value(o.finetune)));
    for (const QCommandLineOption* litgpt : {&o.litgptFp32Norm, &o.litgptHeldBatch})
        if (ov.error.isEmpty() && p.isSet(*litgpt) && s.framework != Framework::LitGPT)
            ov.error = fail(litgpt->names().constFirst(), QStringLiteral("applies only with --framework litgpt"));
    for (const QCommandLineOption* lora : {&o.loraRank, &o.loraTargets})
        if (ov.error.isEmpty() && p.isSet(*lora) && s.training.fineTune == FineTune::Full)
            ov.error = fail(lora->names().constFirst(), QStringLiteral("applies only with --finetune lora or qlora"));
    // Serving computes no loss: a loss named for it contradicts the mode (issue 30, "Bad input": both named).
    if (ov.error.isEmpty() && s.training.mode == Mode::Inference && p.isSet(o.loss))
        ov.error = QStringLiteral("--loss %1 and --mode inference: serving computes no loss; give --mode training or "
                                  "leave out --loss")
                       .arg(p.value(o.loss));
    if (!ov.error.isEmpty()) {
        out.ok = false;
        out.error = ov.error;
        return out;
    }
    const OverrideFlags given{p.isSet(o.gradAccum) || p.isSet(o.globalBatch), p.isSet(o.gpus), p.isSet(o.batch)};
    if (training && !finishTrainingConfig(*training, given, r, out.error)) {
        out.ok = false;
        return out;
    }
    if (p.isSet(o.megatron) &&
        !readMegatron(p.value(o.megatron), p.isSet(o.gpus) ? s.hardware.gpus : 0, r, out.error)) {
        out.ok = false;
        return out;
    }
    if (p.isSet(o.measured) && !readMeasured(p.value(o.measured), r, out.error)) {
        out.ok = false;
        return out;
    }
    // Cross-option checks (gpus a multiple of tp·pp, and so on), named by option; then what needs a host, on the
    // catalog's GPU (issue 30 §2: a paged optimizer or activation offloading on a GPU without one).
    FieldErrors semantic = validateScenario(s, "");
    if (semantic.empty())
        if (const GpuSpec* g = library.gpus().find(s.hardware.gpu)) {
            semantic = validateHost(s, *g, "");
            if (!semantic.empty()) {
                const FieldError& e = semantic.front();
                const bool paged = e.path == "/training/paged_optimizer";
                out.ok = false;
                out.error =
                    QStringLiteral("--%1 and --gpu %2 (%3): %4")
                        .arg(paged ? (p.isSet(o.optimizer) ? QStringLiteral("optimizer ") + p.value(o.optimizer)
                                                           : QStringLiteral("optimizer (paged, from the scenario)"))
                                   : QStringLiteral("activation-offload"),
                             QString::fromStdString(s.hardware.gpu), QString::fromStdString(e.path),
                             QString::fromStdString(e.message));
                return out;
            }
        }
    if (!semantic.empty()) {
        out.ok = false;
        const FieldError& e = semantic.front();
        QString option = QString::fromStdString(e.path.substr(e.path.rfind('/') + 1));
        if (option == QLatin1String("zero_stage"))
            option = QStringLiteral("zero");
        else if (option == QLatin1String("seq_len"))
            option = QStringLiteral("seq");
        else if (option == QLatin1String("micro_batch"))
            option = QStringLiteral("batch");
        else if (option == QLatin1String("grad_accum"))
            option = QStringLiteral("grad-accum");
        else if (option == QLatin1String("expert_tensor_parallel"))
            option = QStringLiteral("etp");
        else if (option == QLatin1String("context_parallel"))
            option = QStringLiteral("cp");
        else // every other field is its option's name with dashes (qlora_base: --qlora-base)
            option.replace(QLatin1Char('_'), QLatin1Char('-'));
        out.error = QStringLiteral("--%1 (%2): %3")
                        .arg(option, QString::fromStdString(e.path), QString::fromStdString(e.message));
        return out;
    }
    for (const QCommandLineOption* override : {&o.params,    &o.activeParams, &o.mode,
                                               &o.precision, &o.optimizer,    &o.weights,
                                               &o.seq,       &o.batch,        &o.checkpointing,
                                               &o.finetune,  &o.loraRank,     &o.loraTargets,
                                               &o.loss,      &o.framework,    &o.expandableSegments,
                                               &o.flash,     &o.gpu,          &o.gpus,
                                               &o.zero,      &o.offload,      &o.gpusPerNode,
                                               &o.tp,        &o.pp,           &o.ep,
                                               &o.etp,       &o.vpp,          &o.sp,
                                               &o.cp,        &o.gradAccum,    &o.globalBatch,
                                               &o.tokens,    &o.mfu,          &o.price})
        r.scenarioGiven = r.scenarioGiven || p.isSet(*override);
    for (const QCommandLineOption* recipe :
         {&o.compile, &o.compileLoss, &o.optimizerInBackward, &o.activationOffload, &o.reshardAfterForward})
        r.scenarioGiven = r.scenarioGiven || p.isSet(*recipe);

    if (p.isSet(o.exportPng) && p.isSet(o.exportTour)) {
        out.ok = false;
        out.error = fail(QStringLiteral("export-tour"),
                         QStringLiteral("writes the tour's own slides; give it or --export-png, not both"));
        return out;
    }
    if (p.isSet(o.exportPng) || p.isSet(o.exportTour)) {
        const bool tour = p.isSet(o.exportTour);
        r.action = tour ? CliRequest::Action::ExportTour : CliRequest::Action::ExportPng;
        r.exportFile = p.value(tour ? o.exportTour : o.exportPng);
        r.chart = p.value(o.chart);
        if (tour && r.exportFile.isEmpty()) {
            out.ok = false;
            out.error = fail(QStringLiteral("export-tour"), QStringLiteral("needs a folder"));
            return out;
        }
        if (chartKindFromName(r.chart) == std::nullopt) {
            out.ok = false;
            out.error =
                fail(QStringLiteral("chart"),
                     QStringLiteral("must be bars, seq, dashboard, peers, ranks, fitmap or timeline, got \"%1\"")
                         .arg(r.chart));
            return out;
        }
        bool okW = false, okH = false, okS = false;
        r.width = p.value(o.width).toInt(&okW);
        r.height = p.value(o.height).toInt(&okH);
        r.scale = p.value(o.scale).toDouble(&okS);
        if (!okW || r.width < 200 || r.width > 16384) {
            out.ok = false;
            out.error = fail(QStringLiteral("width"),
                             QStringLiteral("must be 200 to 16384 pixels, got \"%1\"").arg(p.value(o.width)));
        } else if (!okH || r.height < 150 || r.height > 16384) {
            out.ok = false;
            out.error = fail(QStringLiteral("height"),
                             QStringLiteral("must be 150 to 16384 pixels, got \"%1\"").arg(p.value(o.height)));
        } else if (!okS || !std::isfinite(r.scale) || r.scale < 0.25 || r.scale > 8) {
            out.ok = false;
            out.error =
                fail(QStringLiteral("scale"), QStringLiteral("must be 0.25 to 8, got \"%1\"").arg(p.value(o.scale)));
        } else if (!exportSizeAllowed(r.width, r.height, r.scale)) {
            out.ok = false;
            out.error = fail(QStringLiteral("scale"),
                             QStringLiteral("%1×%2 at scale %3 is %4 × %5 pixels; an export is at most %6")
                                 .arg(r.width)
                                 .arg(r.height)
                                 .arg(p.value(o.scale))
                                 .arg(qRound64(r.width * r.scale))
                                 .arg(qRound64(r.height * r.scale))
                                 .arg(exportSizeLimitText()));
        }
    } else if (p.isSet(o.json)) {
        r.action = CliRequest::Action::Json;
    } else if (p.isSet(o.text)) {
        r.action = CliRequest::Action::Text;
    }
    return out;
}

} // namespace trainmem
