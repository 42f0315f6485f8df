#pragma once
// "Cheapest change to fit" (issue 4 item 5): for a scenario that dies, the single changes that make
// it fit, cheapest first, each with what it costs; Apply sends the changed scenario to the window.
// The list and its order come from core/teach/fixes.h; every entry was verified with account().

#include "fixes.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTreeWidget;
class QPushButton;

namespace trainmem {

class FixesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit FixesPanel(QWidget* parent = nullptr);

    /// The scenario to fix, with the breakdown the caller already computed for it (the dashboard's).
    void setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b);
    /// The same, computing the breakdown (for a panel used on its own).
    void setScenario(const Scenario& s, const GpuSpec& gpu) { setScenario(s, gpu, account(s, gpu)); }
    const std::vector<Fix>& fixes() const { return m_fixes; }

    // Read-back for tests.
    QTreeWidget* list() const { return m_list; }
    QString statusText() const;

public Q_SLOTS:
    /// Emits scenarioRequested with fix `index`'s scenario.
    void applyFix(int index);

Q_SIGNALS:
    void scenarioRequested(const trainmem::Scenario& scenario);

private:
    QLabel* m_status = nullptr;
    QTreeWidget* m_list = nullptr;
    QPushButton* m_apply = nullptr;
    std::vector<Fix> m_fixes;
};

} // namespace trainmem
