#include "exportdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

namespace trainmem {
namespace {
constexpr int kTourSlides = -1; // the chart box's entry for the tour's slides (no ChartKind)
} // namespace

ExportDialog::ExportDialog(ChartKind kind, const ExportOptions& options, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export chart"));
    auto* form = new QFormLayout(this);
    m_chart = new QComboBox(this);
    m_chart->addItem(tr("Dashboard (verdict and both charts)"), static_cast<int>(ChartKind::Dashboard));
    m_chart->addItem(tr("Stacked memory bars"), static_cast<int>(ChartKind::Bars));
    m_chart->addItem(tr("Memory against context length"), static_cast<int>(ChartKind::Seq));
    m_chart->addItem(tr("Megatron-LM and DeepSpeed beside TrainMem"), static_cast<int>(ChartKind::Peers));
    m_chart->addItem(tr("Memory per GPU, rank by rank"), static_cast<int>(ChartKind::Ranks));
    m_chart->addItem(tr("Fit map: GPUs needed by model size and context"), static_cast<int>(ChartKind::FitMap));
    m_chart->addItem(tr("One training step: memory over time"), static_cast<int>(ChartKind::Timeline));
    m_chart->addItem(tr("The chapter tour as slides (one PNG per step and index.md)"), kTourSlides);
    m_chart->setCurrentIndex(m_chart->findData(static_cast<int>(kind)));
    m_chart->setToolTip(tr("The dashboard puts the verdict above both charts, ready for one slide."));
    form->addRow(tr("Chart"), m_chart);

    m_sizePreset = new QComboBox(this);
    m_sizePreset->addItem(tr("Custom"), QSize());
    m_sizePreset->addItem(tr("Slide 16:9 (1920 × 1080)"), QSize(1920, 1080));
    m_sizePreset->addItem(tr("Slide 16:10 (1600 × 1000)"), QSize(1600, 1000));
    m_sizePreset->addItem(tr("Slide 4:3 (1600 × 1200)"), QSize(1600, 1200));
    m_sizePreset->addItem(tr("Half slide (960 × 720)"), QSize(960, 720));
    m_sizePreset->setToolTip(tr("Common slide sizes; width and height below can be set freely."));
    form->addRow(tr("Size"), m_sizePreset);

    m_width = new QSpinBox(this);
    m_width->setRange(200, 16384);
    m_width->setSuffix(tr(" px"));
    m_width->setValue(options.width);
    m_width->setToolTip(tr("Width in logical pixels; fonts scale with the size."));
    m_height = new QSpinBox(this);
    m_height->setRange(150, 16384);
    m_height->setSuffix(tr(" px"));
    m_height->setValue(options.height);
    m_height->setToolTip(tr("Height in logical pixels."));
    m_scale = new QDoubleSpinBox(this);
    m_scale->setRange(0.25, 8);
    m_scale->setSingleStep(0.5);
    m_scale->setDecimals(2);
    m_scale->setValue(options.scale);
    m_scale->setToolTip(tr("Pixel density: 2 renders twice as many pixels each way, sharp on high-DPI projectors."
                           " PDF is vector and ignores it."));
    form->addRow(tr("Width"), m_width);
    form->addRow(tr("Height"), m_height);
    form->addRow(tr("Scale"), m_scale);
    m_summary = new QLabel(this);
    form->addRow(m_summary);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_sizePreset, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        const QSize size = m_sizePreset->itemData(i).toSize();
        if (size.isValid()) {
            m_width->setValue(size.width());
            m_height->setValue(size.height());
        }
    });
    for (QSpinBox* b : {m_width, m_height})
        connect(b, qOverload<int>(&QSpinBox::valueChanged), this, &ExportDialog::updateSummary);
    connect(m_scale, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &ExportDialog::updateSummary);
    updateSummary();
}

void ExportDialog::updateSummary()
{
    const ExportOptions o = options();
    const bool tooBig = !exportSizeAllowed(o.width, o.height, o.scale);
    m_summary->setText(
        tooBig ? tr("Too large: an export is at most %1.").arg(exportSizeLimitText())
               : tr("The PNG will be %1 × %2 pixels.").arg(qRound(o.width * o.scale)).arg(qRound(o.height * o.scale)));
}

ChartKind ExportDialog::chart() const
{
    return tourSlides() ? ChartKind::Dashboard : static_cast<ChartKind>(m_chart->currentData().toInt());
}

bool ExportDialog::tourSlides() const
{
    return m_chart->currentData().toInt() == kTourSlides;
}

ExportOptions ExportDialog::options() const
{
    ExportOptions o;
    o.width = m_width->value();
    o.height = m_height->value();
    o.scale = m_scale->value();
    return o;
}

} // namespace trainmem
