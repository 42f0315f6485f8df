#include "fixespanel.h"

#include "units.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace trainmem {

FixesPanel::FixesPanel(QWidget* parent) : QWidget(parent)
{
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_list = new QTreeWidget(this);
    // Two columns, the change wrapped over lines with its price under it: four columns in a side
    // dock clipped every change to "1 → 18 H100 with Ze…" (issue 14).
    m_list->setColumnCount(2);
    m_list->setHeaderLabels({tr("Change and what it costs"), tr("Per GPU after")});
    m_list->setRootIsDecorated(false);
    m_list->setWordWrap(true);
    m_list->setTextElideMode(Qt::ElideNone);
    m_list->setUniformRowHeights(false);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_apply = new QPushButton(tr("Apply this change"), this);
    m_apply->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_apply, 0, Qt::AlignRight);

    connect(m_list, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* item) { m_apply->setEnabled(item != nullptr); });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* item) { applyFix(m_list->indexOfTopLevelItem(item)); });
    connect(m_apply, &QPushButton::clicked, this,
            [this] { applyFix(m_list->indexOfTopLevelItem(m_list->currentItem())); });
}

void FixesPanel::setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b)
{
    m_fixes = cheapestFixes(s, gpu, b);
    m_list->clear();
    const QString perGpu = QString::fromStdString(formatBytes(b.perGpu.total()));
    const QString cap = QString::fromStdString(formatBytes(gpu.memoryBytes));
    if (b.fits)
        m_status->setText(tr("Fits: %1 of %2 per GPU. Nothing to fix.").arg(perGpu, cap));
    else if (m_fixes.empty())
        m_status->setText(tr("Dies: %1 per GPU on a %2 GPU, and no single change makes it fit. Combine changes, "
                             "e.g. checkpointing with more GPUs or a shorter context.")
                              .arg(perGpu, cap));
    else
        m_status->setText(m_fixes.size() == 1
                              ? tr("Dies: %1 per GPU on a %2 GPU. One single change makes it fit:").arg(perGpu, cap)
                              : tr("Dies: %1 per GPU on a %2 GPU. %3 single changes make it fit, cheapest first:")
                                    .arg(perGpu, cap, QString::number(m_fixes.size())));
    for (const Fix& f : m_fixes) {
        auto* item = new QTreeWidgetItem(m_list);
        const QString change = QString::fromStdString(f.title + ": " + f.change);
        const QString price =
            tr("%1 — %2").arg(QString::fromStdString(fixTierName(f.tier)), QString::fromStdString(f.cost));
        item->setText(0, change + QLatin1Char('\n') + price);
        item->setText(1, QString::fromStdString(formatBytes(f.after.perGpu.total())));
        item->setToolTip(0, change + QLatin1Char('\n') + price);
    }
    m_apply->setEnabled(false);
}

QString FixesPanel::statusText() const
{
    return m_status->text();
}

void FixesPanel::applyFix(int index)
{
    if (index < 0 || index >= static_cast<int>(m_fixes.size()))
        return;
    Q_EMIT scenarioRequested(m_fixes[static_cast<size_t>(index)].scenario);
}

} // namespace trainmem
