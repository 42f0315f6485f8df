#pragma once
// Undo keeps snapshots of the one Scenario: each command holds the state before and after.
// Consecutive steps of one slider or spin box merge into one command: the window gives them the
// same merge id until the drag ends.

#include "scenario.h"

#include <QUndoCommand>

#include <functional>

namespace trainmem {

class ScenarioCommand : public QUndoCommand
{
public:
    using Apply = std::function<void(const Scenario&)>;

    /// `mergeId` < 0 never merges; a command merges into the previous one with the same id.
    ScenarioCommand(Scenario before, Scenario after, int mergeId, const QString& text, Apply apply);

    void undo() override;
    void redo() override;
    int id() const override { return m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override;

    const Scenario& after() const { return m_after; }

private:
    Scenario m_before;
    Scenario m_after;
    int m_mergeId = -1;
    Apply m_apply;
};

} // namespace trainmem
