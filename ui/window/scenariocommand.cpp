#include "scenariocommand.h"

namespace trainmem {

ScenarioCommand::ScenarioCommand(Scenario before, Scenario after, int mergeId, const QString& text, Apply apply)
    : m_before(std::move(before)), m_after(std::move(after)), m_mergeId(mergeId), m_apply(std::move(apply))
{
    setText(text);
}

void ScenarioCommand::undo()
{
    m_apply(m_before);
}

void ScenarioCommand::redo()
{
    m_apply(m_after);
}

bool ScenarioCommand::mergeWith(const QUndoCommand* other)
{
    if (other->id() != m_mergeId || m_mergeId < 0)
        return false;
    m_after = static_cast<const ScenarioCommand*>(other)->m_after;
    return true;
}

} // namespace trainmem
