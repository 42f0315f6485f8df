#include "tourpanel.h"

#include "presetlibrary.h"

#include "units.h"

#include <QAction>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace trainmem {

TourPanel::TourPanel(QWidget* parent) : QWidget(parent)
{
    m_presets = [](const std::string& id) -> std::optional<Scenario> {
        if (const PresetEntry* e = PresetLibrary::instance().find(QString::fromStdString(id)))
            return e->scenario;
        return std::nullopt;
    };
    m_gpus = [](const std::string& id) -> std::optional<GpuSpec> {
        if (const GpuSpec* g = PresetLibrary::instance().gpus().find(id))
            return *g;
        return std::nullopt;
    };

    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("tourSteps"));
    // Long titles ("The 2.4T MoE: sparsity does not shrink the optimizer") wrap in a narrow dock instead of
    // being cut off (issue 11 §2); the hover text has them whole too.
    m_list->setWordWrap(true);
    m_list->setTextElideMode(Qt::ElideNone);
    m_list->setResizeMode(QListView::Adjust);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    for (const TourStep& s : chapterTour()) {
        auto* item = new QListWidgetItem(QString::fromStdString(s.title), m_list);
        item->setToolTip(item->text());
    }
    m_title = new QLabel(this);
    m_highlight = new QLabel(this);
    m_highlight->setTextFormat(Qt::PlainText);
    m_figures = new QLabel(this);
    m_figures->setTextFormat(Qt::PlainText);
    // Wrapped, so a long step title or figure wraps in the dock instead of widening the window at
    // every step (issue 14: ~80 px per step).
    for (QLabel* l : {m_title, m_highlight, m_figures})
        l->setWordWrap(true);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("tourText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_position = new QLabel(this);
    m_prevButton = new QPushButton(tr("Previous"), this);
    m_nextButton = new QPushButton(tr("Next"), this);
    m_leaveAction = new QAction(tr("Leave the tour"), this);
    m_leaveAction->setObjectName(QStringLiteral("leaveTour"));
    m_leaveAction->setToolTip(tr("Back to the scenario you had before the tour, in one step (undo brings the tour's "
                                 "step back)"));
    m_leaveAction->setEnabled(false);
    m_leaveButton = new QPushButton(tr("Leave"), this);
    m_leaveButton->setObjectName(QStringLiteral("leaveTourButton"));
    m_leaveButton->setToolTip(m_leaveAction->toolTip());
    m_leaveButton->setEnabled(false);

    m_next = new QAction(tr("Next tour step"), this);
    m_next->setShortcuts({QKeySequence(Qt::Key_PageDown), QKeySequence(Qt::ALT | Qt::Key_Right)});
    m_previous = new QAction(tr("Previous tour step"), this);
    m_previous->setShortcuts({QKeySequence(Qt::Key_PageUp), QKeySequence(Qt::ALT | Qt::Key_Left)});
    for (QAction* a : {m_next, m_previous}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
    }

    // The buttons first: they stay where they are whatever the step's texts, the list or the dock's height do
    // (issue 31 §2: Next jumped ~100 px when a step opened the film); the position under them, so the row is
    // narrow enough for the controls' column on a 1024 px projector.
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_prevButton);
    buttons->addStretch(1);
    buttons->addWidget(m_nextButton);
    auto* where = new QHBoxLayout;
    where->addWidget(m_position, 1);
    where->addWidget(m_leaveButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addLayout(where);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_title);
    layout->addWidget(m_highlight);
    layout->addWidget(m_figures);
    // The explanation scrolls where the dock is short: at 1024 × 768 the longer ones (the cut's tax, QLoRA) were cut
    // mid-line at the dock's bottom (issue 31 §2, seen looking at the tour slide by slide).
    auto* textScroll = new QScrollArea(this);
    textScroll->setObjectName(QStringLiteral("tourTextScroll"));
    textScroll->setFrameShape(QFrame::NoFrame);
    textScroll->setWidgetResizable(true);
    textScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    textScroll->setWidget(m_text);
    // No taller than the label was at its least: the scroll bar's own least height (~70 px) took the film's room.
    textScroll->setMinimumHeight(fontMetrics().lineSpacing() * 2);
    m_text->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    layout->addWidget(textScroll, 2);

    connect(m_next, &QAction::triggered, this, &TourPanel::nextStep);
    connect(m_previous, &QAction::triggered, this, &TourPanel::previousStep);
    connect(m_nextButton, &QPushButton::clicked, this, &TourPanel::nextStep);
    connect(m_prevButton, &QPushButton::clicked, this, &TourPanel::previousStep);
    connect(m_leaveButton, &QPushButton::clicked, m_leaveAction, &QAction::trigger);
    connect(m_leaveAction, &QAction::triggered, this, &TourPanel::leaveRequested);
    // A row chosen with the mouse or the keys is selected too. The list's focus alone makes its first row current
    // without selecting it: that starts nothing (it did at F5, which passed the focus to the list and so replaced
    // the scenario on the slide).
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row != m_step && m_list->item(row)->isSelected())
            setStep(row);
    });
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (m_left || m_list->row(item) != m_step) // back to the step that was left, or the row focus made current
            setStep(m_list->row(item));
    });
    changeEvent(nullptr);
    updateTexts();
}

void TourPanel::setLookups(PresetLookup presets, GpuLookup gpus)
{
    m_presets = std::move(presets);
    m_gpus = std::move(gpus);
    if (m_step >= 0)
        setStep(m_step);
}

int TourPanel::stepCount() const
{
    return static_cast<int>(chapterTour().size());
}

std::vector<SegmentKind> TourPanel::revealedSegments() const
{
    if (!m_stage)
        return {kAllSegmentKinds.begin(), kAllSegmentKinds.end()};
    return m_stage->step->revealed;
}

void TourPanel::setStep(int index)
{
    m_step = std::clamp(index, 0, stepCount() - 1);
    m_left = false;
    m_stage = evaluateTourStep(chapterTour()[static_cast<size_t>(m_step)], m_presets, m_gpus);
    {
        const QSignalBlocker block(m_list);
        m_list->setCurrentRow(m_step);
    }
    updateTexts();
    if (m_stage)
        Q_EMIT scenarioRequested(m_stage->scenario);
    Q_EMIT stepChanged(m_step);
}

void TourPanel::setTouring(bool on)
{
    m_leaveAction->setEnabled(on);
    m_leaveButton->setEnabled(on);
}

void TourPanel::nextStep()
{
    setStep(m_step < 0 ? 0 : m_step + 1);
}

void TourPanel::previousStep()
{
    setStep(std::max(0, m_step - 1));
}

void TourPanel::leave()
{
    if (m_step < 0 || m_left)
        return;
    m_left = true;
    {
        const QSignalBlocker block(m_list);
        m_list->clearSelection();
    }
    updateTexts();
}

QString TourPanel::highlightText() const
{
    return m_highlight->text();
}

QString TourPanel::explanationText() const
{
    return m_text->text();
}

void TourPanel::changeEvent(QEvent* e)
{
    if (!e || e->type() == QEvent::FontChange) {
        QFont big = font();
        big.setPointSizeF(big.pointSizeF() * 1.6);
        big.setBold(true);
        m_highlight->setFont(big);
        QFont title = font();
        title.setBold(true);
        m_title->setFont(title);
    }
    if (e)
        QWidget::changeEvent(e);
}

void TourPanel::updateTexts()
{
    m_prevButton->setEnabled(m_step > 0);
    m_nextButton->setEnabled(m_step < stepCount() - 1);
    m_position->setText(m_step < 0 ? tr("%1 steps").arg(stepCount())
                                   : tr("Step %1 of %2").arg(m_step + 1).arg(stepCount()));
    if (m_step < 0) {
        m_title->setText(tr("The chapter tour"));
        m_highlight->clear();
        m_figures->clear();
        m_text->setText(tr("Press Next (or Page Down) to walk through why training does not fit on one GPU."));
        return;
    }
    const TourStep& step = chapterTour()[static_cast<size_t>(m_step)];
    m_title->setText(QString::fromStdString(step.title));
    if (!m_stage) {
        m_highlight->clear();
        m_figures->clear();
        m_text->setText(tr("This step needs the preset \"%1\", which is not available.")
                            .arg(QString::fromStdString(step.presetId)));
        return;
    }
    if (m_left) {
        // Another scenario is on screen: this step's numbers no longer describe it (issue 14).
        m_highlight->clear();
        m_figures->clear();
        m_text->setText(tr("You left the tour for another scenario. Press Next or Previous (Page Down / Page Up), or "
                           "pick a step, to go on."));
        return;
    }
    const TourHighlight& h = m_stage->highlight;
    auto value = [](double bytes, const std::string& text) {
        return QString::fromStdString(text.empty() ? formatBytes(bytes) : text);
    };
    m_highlight->setText(tr("%1: %2").arg(QString::fromStdString(h.label), value(h.bytes, h.valueText)));
    QStringList lines;
    for (size_t i = 1; i < h.figures.size(); ++i)
        lines << tr("%1: %2").arg(QString::fromStdString(h.figures[i].label),
                                  value(h.figures[i].bytes, h.figures[i].valueText));
    m_figures->setText(lines.join(QLatin1Char('\n')));
    m_text->setText(QString::fromStdString(h.text));
}

} // namespace trainmem
