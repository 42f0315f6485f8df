#include "peerspanel.h"

#include "chartexport.h"
#include "charttheme.h"
#include "dashboard.h"
#include "layoutfence.h"
#include "megatrondialog.h"
#include "peerschart.h"
#include "scenarioio.h"
#include "units.h"
#include "wraplabel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace trainmem {

PeersPanel::PeersPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("peersPanel"));
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    m_paste = new QPushButton(tr("Paste Megatron-LM…"), this); // short: the controls' column at 1024 px
    m_paste->setToolTip(tr("Paste the arguments of a Megatron-LM launch (pretrain_gpt.py …)"));
    m_paste->setObjectName(QStringLiteral("pasteMegatronButton"));
    row->addWidget(m_paste);
    row->addStretch(1);
    layout->addLayout(row);
    row = new QHBoxLayout; // two rows: narrow enough for the controls' column at 1024 px (issue 31 §2)
    row->addWidget(new QLabel(tr("DeepSpeed:"), this));
    m_stage = new QComboBox(this);
    m_stage->setObjectName(QStringLiteral("peersStage"));
    m_stage->addItem(tr("ZeRO-2"), 2);
    m_stage->addItem(tr("ZeRO-3"), 3);
    row->addWidget(m_stage);
    row->addStretch(1);
    layout->addLayout(row);
    m_source = new WrapLabel;
    m_source->setObjectName(QStringLiteral("peersSource"));
    m_sourceFence = new LayoutFence(m_source, this);
    layout->addWidget(m_sourceFence);
    m_chart = new PeersChart(this);
    // At the controls' 200 px its legend is one column of nine rows: this keeps the plot 120 px or more under it
    // (the panel scrolls; at 220 px the plot was a 40 px strip).
    m_chart->setMinimumHeight(360);
    m_chart->setTheme(ChartTheme::fromPalette(palette())); // the desktop's dark mode too
    layout->addWidget(m_chart, 3);
    // Megatron-LM's printed line and the reason below the table change on every slider step, the notes above with
    // the context: each sits in a fence, so the dock is laid out again only when one needs another height.
    m_printed = new WrapLabel;
    m_printed->setObjectName(QStringLiteral("peersPrinted"));
    m_printed->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_printedFence = new LayoutFence(m_printed, this);
    layout->addWidget(m_printedFence);
    auto* row2 = new QHBoxLayout;
    row2->addWidget(new QLabel(tr("Why they differ, term by term:"), this));
    m_peer = new QComboBox(this);
    m_peer->setObjectName(QStringLiteral("peersPeer"));
    m_peer->addItem(tr("Megatron-LM"), QStringLiteral("megatron"));
    m_peer->addItem(tr("DeepSpeed ZeRO-2"), QStringLiteral("deepspeed_zero2"));
    m_peer->addItem(tr("DeepSpeed ZeRO-3"), QStringLiteral("deepspeed_zero3"));
    row2->addStretch(1);
    layout->addLayout(row2);
    row2 = new QHBoxLayout;
    row2->addWidget(m_peer);
    row2->addStretch(1);
    layout->addLayout(row2);
    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName(QStringLiteral("peersTable"));
    m_table->setHorizontalHeaderLabels({tr("Term"), tr("TrainMem"), tr("Peer"), tr("TrainMem\n− peer")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    fitTableColumns();
    layout->addWidget(m_table, 2);
    m_why = new WrapLabel;
    m_why->setObjectName(QStringLiteral("peersWhy"));
    m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_why->setMinimumHeight(m_why->fontMetrics().lineSpacing() * 5);
    m_why->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_whyFence = new LayoutFence(m_why, this);
    layout->addWidget(m_whyFence);
    // Narrow enough to share the left column with the controls on a 1024 px projector (issue 31 §2): the dashboard
    // beside it keeps 790 px of the 1024.
    setMinimumWidth(200);
    m_settle = new QTimer(this);
    m_settle->setSingleShot(true);
    m_settle->setInterval(Dashboard::kSettleMs);
    connect(m_settle, &QTimer::timeout, this, [this] {
        for (LayoutFence* f : {m_sourceFence, m_printedFence, m_whyFence})
            f->setHeld(false);
    });

    connect(m_paste, &QPushButton::clicked, this, &PeersPanel::pasteDialog);
    connect(m_stage, &QComboBox::currentIndexChanged, this, [this] {
        m_chart->setComparison(m_comparison, m_stage->currentData().toInt(), m_gpu.memoryBytes,
                               QStringLiteral("%1 · %2").arg(QString::fromStdString(m_gpu.id),
                                                             QString::fromStdString(formatBytes(m_gpu.memoryBytes))));
        m_chart->refresh();
        m_peer->setCurrentIndex(m_stage->currentData().toInt() == 3 ? 2 : 1);
    });
    connect(m_peer, &QComboBox::currentIndexChanged, this, &PeersPanel::fillTable);
    connect(m_table, &QTableWidget::currentCellChanged, this, &PeersPanel::showWhy);
}

void PeersPanel::showWhy(int row)
{
    const QTableWidgetItem* it = row >= 0 ? m_table->item(row, 0) : nullptr;
    m_why->setText(
        it ? tr("<b>%1:</b> %2").arg(it->text().toHtmlEscaped(), it->data(Qt::UserRole).toString().toHtmlEscaped())
           : QString());
}

void PeersPanel::pasteDialog()
{
    MegatronDialog dialog(m_scenario.hardware.gpus, this);
    // Issue 31 §3: the dialog reopens with the last text, pasted or typed, so a launch is fixed, not retyped.
    if (!m_lastPasteText.isEmpty())
        dialog.setText(m_lastPasteText);
    const int answer = dialog.exec();
    m_lastPasteText = dialog.editor()->toPlainText();
    if (answer != QDialog::Accepted)
        return;
    const Scenario produced = scenarioFromMegatron(dialog.result().args, m_scenario);
    setPasted(dialog.result(), produced);
    Q_EMIT scenarioRequested(produced, tr("Paste Megatron-LM arguments"));
}

void PeersPanel::setPasted(const MegatronParse& parse, const Scenario& produced)
{
    m_pasted = parse;
    m_pastedScenario = scenarioToText(produced);
    m_dirty = true;
}

std::optional<MegatronArgs> PeersPanel::pastedArgs() const
{
    if (m_pasted && scenarioToText(m_scenario) == m_pastedScenario)
        return m_pasted->args;
    return std::nullopt;
}

void PeersPanel::setScenario(const Scenario& s, const GpuSpec& gpu)
{
    m_scenario = s;
    m_gpu = gpu;
    m_dirty = true;
    if (!isVisible())
        return;
    for (LayoutFence* f : {m_sourceFence, m_printedFence, m_whyFence})
        f->setHeld(true);
    m_settle->start();
    recompute();
}

void PeersPanel::fitTableColumns()
{
    // The figures' columns as wide as their header or a figure, whichever is wider, set once per font: stretched
    // evenly in the controls' 200 px column (a 1024 px projector) they cut every header ("ainMe", "Mem –"), and
    // sized to their contents they would be measured on every slider step. The term's column is as wide as its
    // names; where the dock is narrower than the four the table scrolls sideways rather than cut a header.
    QHeaderView* h = m_table->horizontalHeader();
    const QFontMetrics fm(m_table->font());
    const int figure = fm.horizontalAdvance(QStringLiteral("\u221299.9 GB")) + 2 * fm.averageCharWidth();
    h->setSectionResizeMode(0, QHeaderView::ResizeToContents); // its names change with the rows, not per step
    for (int c = 1; c < m_table->columnCount(); ++c) {
        h->setSectionResizeMode(c, QHeaderView::Fixed);
        h->resizeSection(c, std::max(h->sectionSizeHint(c), figure));
    }
    h->setStretchLastSection(true); // a wide dock's room
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    // Five terms in view: in the scrolling panel under the chart's least height it was squeezed to one row.
    m_table->setMinimumHeight(h->sizeHint().height() + 5 * m_table->verticalHeader()->defaultSectionSize() +
                              2 * m_table->frameWidth() + m_table->horizontalScrollBar()->sizeHint().height());
}

void PeersPanel::changeEvent(QEvent* e)
{
    if (e->type() == QEvent::FontChange)
        fitTableColumns();
    if (e->type() == QEvent::PaletteChange) {
        m_chart->setTheme(ChartTheme::fromPalette(palette()));
        m_chart->refresh();
    }
    QWidget::changeEvent(e);
}

void PeersPanel::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (m_dirty)
        recompute();
}

void PeersPanel::recompute()
{
    m_dirty = false;
    const std::optional<MegatronArgs> pasted = pastedArgs();
    m_usingPaste = pasted.has_value();
    m_comparison = peerComparisonFor(m_scenario, m_gpu, pasted);
    QStringList lines;
    if (m_usingPaste) {
        lines << tr("<b>From the pasted Megatron-LM arguments.</b>");
        if (!m_pasted->ignored.empty()) {
            QStringList ignored;
            for (const std::string& i : m_pasted->ignored)
                ignored << QString::fromStdString(i).toHtmlEscaped();
            lines << tr("Ignored (not used by the estimates): %1").arg(ignored.join(QStringLiteral(", ")));
        }
        for (const std::string& n : m_pasted->notes)
            lines << QString::fromStdString(n).toHtmlEscaped();
    } else {
        lines << (m_pasted
                      ? tr("<b>From the current scenario</b>, written as Megatron-LM flags (the pasted arguments no "
                           "longer match it).")
                      : tr("<b>From the current scenario</b>, written as Megatron-LM flags. Paste a launch command to "
                           "compare your own run."));
    }
    if (m_scenario.training.mode != Mode::Training)
        lines << tr("Both peers estimate training; the scenario is compared as training.");
    for (const std::string& n : m_comparison.notes)
        lines << tr("Not modelled by TrainMem: %1").arg(QString::fromStdString(n).toHtmlEscaped());
    m_source->setText(lines.join(QStringLiteral("<br>")));
    m_printed->setText(
        m_comparison.megatron.available
            ? tr("Megatron-LM prints: <tt>%1</tt>").arg(QString::fromStdString(m_comparison.megatron.printed))
            : QString::fromStdString(m_comparison.megatron.unavailableReason));
    {
        const QSignalBlocker block(m_stage);
        m_stage->setCurrentIndex(m_scenario.hardware.zeroStage == 3 ? 1 : 0);
    }
    m_chart->setComparison(m_comparison, m_stage->currentData().toInt(), m_gpu.memoryBytes,
                           QStringLiteral("%1 · %2").arg(QString::fromStdString(m_gpu.id),
                                                         QString::fromStdString(formatBytes(m_gpu.memoryBytes))));
    m_chart->refresh();
    fillTable();
}

void PeersPanel::fillTable()
{
    const std::string peer = m_peer->currentData().toString().toStdString();
    std::vector<const PeerDifference*> rows;
    for (const PeerDifference& d : m_comparison.differences)
        if (d.peer == peer)
            rows.push_back(&d);
    m_table->setRowCount(static_cast<int>(rows.size()) + 1);
    // A slider step changes a few numbers: the cells are kept and only the texts that differ are set, so the view
    // repaints those cells instead of rebuilding 40 items and their layout on every step.
    auto cell = [this](int r, int c, const QString& text, const QString& why, bool bold) {
        QTableWidgetItem* it = m_table->item(r, c);
        if (!it) {
            it = new QTableWidgetItem;
            if (c >= 1 && c <= 3)
                it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, c, it);
        }
        if (it->text() != text)
            it->setText(text);
        if (it->data(Qt::UserRole).toString() != why) {
            it->setData(Qt::UserRole, why);
            it->setToolTip(QStringLiteral("<div style='max-width:520px'>%1</div>").arg(why.toHtmlEscaped()));
        }
        if (it->font().bold() != bold) {
            QFont f = it->font();
            f.setBold(bold);
            it->setFont(f);
        }
    };
    auto bytes = [](double b) { return QString::fromStdString(formatBytes(b)); };
    auto signedBytes = [&](double b) {
        return (b >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + bytes(std::fabs(b));
    };
    double tm = 0, pe = 0;
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const PeerDifference& d = *rows[static_cast<size_t>(r)];
        tm += d.trainmemBytes;
        pe += d.peerBytes;
        const QString reason = QString::fromStdString(d.reason);
        const QString items[] = {QString::fromStdString(d.term), bytes(d.trainmemBytes), bytes(d.peerBytes),
                                 signedBytes(d.trainmemBytes - d.peerBytes)};
        for (int c = 0; c < 4; ++c)
            cell(r, c, items[c], reason, false);
    }
    const int last = static_cast<int>(rows.size());
    const QString total[] = {tr("total per GPU"), bytes(tm), bytes(pe), signedBytes(tm - pe)};
    const QString totalWhy =
        rows.empty() ? tr("No estimate from this peer.") : tr("The terms above add up to the whole gap.");
    for (int c = 0; c < 4; ++c)
        cell(last, c, total[c], totalWhy, true);
    // The term with the largest gap is explained first.
    int largest = 0;
    for (int r = 1; r < last; ++r)
        if (std::fabs(rows[static_cast<size_t>(r)]->trainmemBytes - rows[static_cast<size_t>(r)]->peerBytes) >
            std::fabs(rows[static_cast<size_t>(largest)]->trainmemBytes -
                      rows[static_cast<size_t>(largest)]->peerBytes))
            largest = r;
    m_table->setCurrentCell(last > 0 ? largest : 0, 0);
    showWhy(m_table->currentRow()); // the same row's reason may have changed (no currentCellChanged then)
}

} // namespace trainmem
