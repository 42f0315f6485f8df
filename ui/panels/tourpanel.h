#pragma once
// The guided chapter tour (issue 4 item 1): a step list with previous/next (PageUp/PageDown, as
// presenter remotes send, and Alt+Left/Alt+Right). Each step asks the window for its scenario and
// says which segments the bar chart should reveal; the words and numbers come from core/teach/tour.h.

#include "tour.h"

#include <QWidget>

#include <optional>

class QAction;
class QLabel;
class QListWidget;
class QPushButton;

namespace trainmem {

class TourPanel : public QWidget
{
    Q_OBJECT
public:
    /// Uses the shared PresetLibrary for presets and GPUs.
    explicit TourPanel(QWidget* parent = nullptr);
    /// Replaces where presets and GPUs come from (tests, or a library loaded elsewhere).
    void setLookups(PresetLookup presets, GpuLookup gpus);

    int stepCount() const;
    int currentStep() const { return m_step; }
    /// The evaluated current step; empty before the first setStep() or when its preset is missing.
    const std::optional<TourStage>& currentStage() const { return m_stage; }
    /// Segments the bar chart should show at this step (all of them outside the programmer picture).
    std::vector<SegmentKind> revealedSegments() const;

    QAction* nextAction() const { return m_next; }
    QAction* previousAction() const { return m_previous; }
    /// "Leave the tour": back to the scenario before it, in one step (issue 31 §3); enabled while the tour runs.
    QAction* leaveAction() const { return m_leaveAction; }
    /// The window now shows the tour's scenario (true) or the tour was left or not begun (false).
    void setTouring(bool on);

    // Read-back for tests.
    QString highlightText() const;
    QString explanationText() const;

public Q_SLOTS:
    /// Goes to step `index` (clamped) and emits scenarioRequested and stepChanged.
    void setStep(int index);
    void nextStep();
    void previousStep();
    /// The window shows a scenario the tour did not set: say so instead of the step's stale numbers.
    void leave();
    bool hasLeft() const { return m_left; }

Q_SIGNALS:
    /// The window should show this scenario (it is the step's, ready to use).
    void scenarioRequested(const trainmem::Scenario& scenario);
    /// The step changed; revealedSegments() and currentStage() describe it.
    void stepChanged(int index);
    /// The teacher leaves the tour: the window goes back to the scenario it showed before the tour.
    void leaveRequested();

protected:
    void changeEvent(QEvent* e) override;

private:
    void updateTexts();

    PresetLookup m_presets;
    GpuLookup m_gpus;
    QListWidget* m_list = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_highlight = nullptr;
    QLabel* m_figures = nullptr;
    QLabel* m_text = nullptr;
    QLabel* m_position = nullptr;
    QPushButton* m_prevButton = nullptr;
    QPushButton* m_nextButton = nullptr;
    QPushButton* m_leaveButton = nullptr;
    QAction* m_leaveAction = nullptr;
    QAction* m_next = nullptr;
    QAction* m_previous = nullptr;
    std::optional<TourStage> m_stage;
    int m_step = -1;
    bool m_left = false; ///< another scenario replaced the step's
};

} // namespace trainmem
