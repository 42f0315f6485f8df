#include "receiptpanel.h"

#include "layoutfence.h"
#include "presetlibrary.h"
#include "units.h"
#include "wraplabel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>

#include <cmath>

namespace trainmem {
namespace {

// A result line: word-wrapped ("$55.5M at $2.00 per GPU-hour" wraps in the controls' column at 1024 px), its text new
// on every context step. In a fence, so that the form is laid out again only when a result needs another height.
QLabel* result(QLabel*& label)
{
    label = new WrapLabel;
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    return label;
}

// Three significant figures with a k/M/B suffix ("2.79M"), as the chapter quotes its receipts.
QString short3(double v)
{
    return QString::fromStdString(formatCountPrecise(v));
}

QString usd(double v)
{
    return QStringLiteral("$") + short3(v);
}

} // namespace

ReceiptPanel::ReceiptPanel(QWidget* parent) : QWidget(parent)
{
    m_tokens = new QDoubleSpinBox(this);
    m_tokens->setRange(0, 1e6); // trillions of tokens; the core caps at 1e18 tokens
    m_tokens->setDecimals(3);
    m_tokens->setSuffix(tr(" T tokens"));
    m_mfu = new QDoubleSpinBox(this);
    m_mfu->setRange(0.01, 100);
    m_mfu->setDecimals(2);
    m_mfu->setSuffix(tr(" % MFU"));
    m_gpu = new QComboBox(this);
    m_gpu->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gpu->setMinimumContentsLength(12);
    m_count = new QSpinBox(this);
    m_count->setRange(1, 10'000'000);
    m_count->setSuffix(tr(" GPUs"));
    m_price = new QDoubleSpinBox(this);
    m_price->setRange(0, 1e6);
    m_price->setDecimals(2);
    m_price->setPrefix(tr("$"));
    m_price->setSuffix(tr(" per GPU-hour"));
    m_price->setSpecialValueText(tr("catalog price"));

    auto fenced = [this](QLabel*& label) { return new LayoutFence(result(label), this); };
    LayoutFence* flopsPerToken = fenced(m_flopsPerToken);
    LayoutFence* flops = fenced(m_flops);
    LayoutFence* hours = fenced(m_hours);
    LayoutFence* cost = fenced(m_cost);
    LayoutFence* days = fenced(m_days);
    m_phases = new QLabel(this);
    m_phases->setTextFormat(Qt::PlainText);
    m_phases->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);

    auto* form = new QFormLayout(this);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows); // narrow enough for the controls' column at 1024 px
    form->addRow(tr("Training tokens"), m_tokens);
    form->addRow(tr("Model FLOPs utilisation"), m_mfu);
    form->addRow(tr("GPU"), m_gpu);
    form->addRow(tr("GPU count"), m_count);
    form->addRow(tr("Price"), m_price);
    form->addRow(tr("FLOPs per token"), flopsPerToken);
    form->addRow(tr("Training FLOPs"), flops);
    form->addRow(tr("GPU-hours"), hours);
    form->addRow(QString(), m_phases);
    form->addRow(tr("Cost"), cost);
    form->addRow(tr("Wall clock"), days);
    form->addRow(m_note);

    setCatalog(PresetLibrary::instance().gpus());
    connect(m_tokens, &QDoubleSpinBox::valueChanged, this, &ReceiptPanel::edited);
    connect(m_mfu, &QDoubleSpinBox::valueChanged, this, &ReceiptPanel::edited);
    connect(m_gpu, &QComboBox::currentIndexChanged, this, &ReceiptPanel::edited);
    connect(m_count, &QSpinBox::valueChanged, this, &ReceiptPanel::edited);
    connect(m_price, &QDoubleSpinBox::valueChanged, this, &ReceiptPanel::edited);
    recompute();
}

void ReceiptPanel::setCatalog(const GpuCatalog& catalog)
{
    m_catalog = catalog;
    const QSignalBlocker block(m_gpu);
    m_gpu->clear();
    for (const GpuSpec& g : m_catalog.gpus)
        m_gpu->addItem(QString::fromStdString(g.id), QString::fromStdString(g.id));
}

const GpuSpec* ReceiptPanel::currentGpu() const
{
    const GpuSpec* g = m_catalog.find(m_gpu->currentData().toString().toStdString());
    return g ? g : &m_fallback;
}

void ReceiptPanel::setScenario(const Scenario& s, const GpuSpec& gpu)
{
    m_scenario = s;
    m_fallback = gpu;
    m_updating = true;
    m_tokens->setValue(s.cost.tokens / 1e12);
    m_mfu->setValue(s.cost.mfu * 100);
    int row = m_gpu->findData(QString::fromStdString(gpu.id));
    if (row < 0) {
        m_gpu->addItem(QString::fromStdString(gpu.id), QString::fromStdString(gpu.id));
        m_catalog.gpus.push_back(gpu);
        row = m_gpu->count() - 1;
    }
    m_gpu->setCurrentIndex(row);
    m_count->setValue(static_cast<int>(std::clamp<int64_t>(s.hardware.gpus, 1, 10'000'000)));
    m_price->setValue(s.cost.pricePerGpuHour);
    m_updating = false;
    recompute();
}

void ReceiptPanel::edited()
{
    if (m_updating)
        return;
    m_scenario.cost.tokens = m_tokens->value() * 1e12;
    m_scenario.cost.mfu = m_mfu->value() / 100;
    m_scenario.hardware.gpu = currentGpu()->id;
    // The GPU count goes through the core's rule, so tp·pp still divides it (a 405B preset with
    // tp 8 · pp 16 set to 1 GPU here used to make a scenario that Open refused).
    m_scenario = withGpuCount(std::move(m_scenario), m_count->value());
    m_scenario.cost.pricePerGpuHour = m_price->value();
    recompute();
    Q_EMIT scenarioRequested(m_scenario);
}

QString ReceiptPanel::gpuHoursText() const
{
    return m_hours->text();
}
QString ReceiptPanel::costText() const
{
    return m_cost->text();
}
QString ReceiptPanel::daysText() const
{
    return m_days->text();
}
QString ReceiptPanel::flopsText() const
{
    return m_flops->text();
}
QStringList ReceiptPanel::phaseLines() const
{
    return m_phases->text().isEmpty() ? QStringList() : m_phases->text().split(QLatin1Char('\n'));
}

void ReceiptPanel::recompute()
{
    const GpuSpec& gpu = *currentGpu();
    m_receipt = computeCost(resolveModel(m_scenario.model), m_scenario, gpu);
    const QLocale loc;
    m_flopsPerToken->setText(tr("%1 FLOP").arg(loc.toString(m_receipt.flopsPerToken, 'g', 4)));
    m_flops->setText(tr("%1 FLOP").arg(loc.toString(m_receipt.totalFlops, 'g', 4)));
    m_hours->setText(tr("%1 %2-hours").arg(short3(m_receipt.gpuHours), QString::fromStdString(gpu.id)));
    // A run with published phases besides pre-training shows one line each (issue 13): the
    // pre-training hours computed from the tokens, the others as the report gives them.
    QStringList phases;
    if (!m_receipt.phases.empty()) {
        phases << tr("Pre-training (%1 tokens): %2 %3-hours, computed")
                      .arg(QString::fromStdString(formatCount(m_scenario.cost.tokens)),
                           short3(m_receipt.pretrainingGpuHours), QString::fromStdString(gpu.id));
        for (const CostPhase& p : m_receipt.phases)
            phases << tr("%1: %2 %3-hours, as published")
                          .arg(QString::fromStdString(p.name), short3(p.gpuHours), QString::fromStdString(gpu.id));
    }
    m_phases->setText(phases.join(QLatin1Char('\n')));
    m_phases->setVisible(!phases.isEmpty());
    // A GPU without a public price shows no dollar figure, never $0: the user sets the price above.
    m_cost->setText(
        m_receipt.priceKnown
            ? tr("%1 at $%2 per GPU-hour").arg(usd(m_receipt.costUsd), loc.toString(m_receipt.pricePerGpuHour, 'f', 2))
            : tr("Price unknown for the %1: set your own price per GPU-hour").arg(QString::fromStdString(gpu.id)));
    const int64_t n = std::max<int64_t>(m_scenario.hardware.gpus, 1);
    m_days->setText(
        n == 1 ? tr("%1 days on one GPU").arg(loc.toString(m_receipt.wallClockDays, 'f', 1))
               : tr("%1 days on %2 GPUs")
                     .arg(loc.toString(m_receipt.wallClockDays, 'f', 1), loc.toString(static_cast<qlonglong>(n))));
    m_note->setText(
        tr("FLOPs ≈ 6 × active parameters × tokens plus attention (Kaplan et al. 2020); GPU-hours = FLOPs ÷ "
           "(%1 TFLOP/s peak × MFU).")
            .arg(loc.toString(m_receipt.peakFlopsPerGpu / 1e12, 'f', 1)));
}

} // namespace trainmem
