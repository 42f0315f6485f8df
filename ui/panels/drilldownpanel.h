#pragma once
// Formula drill-down (issue 4 item 2): a bar segment or a curve as its formula, the formula with
// the current numbers, the result, its assumptions and its source. All text comes from core/teach/explain.h.

#include "explain.h"

#include "charttheme.h"

#include <QWidget>

#include <variant>

class QComboBox;
class QLabel;

namespace trainmem {

class DrillDownPanel : public QWidget
{
    Q_OBJECT
public:
    using Item = std::variant<SegmentKind, CurveKind>;

    explicit DrillDownPanel(QWidget* parent = nullptr);

    /// The scenario whose numbers are substituted, with the breakdown the caller already computed
    /// for it (the dashboard's); recomputes the shown explanation.
    void setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b);
    /// The same, computing the breakdown (for a panel used on its own).
    void setScenario(const Scenario& s, const GpuSpec& gpu) { setScenario(s, gpu, account(s, gpu)); }
    const Explanation& explanation() const { return m_explanation; }
    Item item() const { return m_item; }

    // Read-back for tests.
    QString formulaText() const;
    QString substitutedText() const;
    QString resultText() const;

public Q_SLOTS:
    void showSegment(trainmem::SegmentKind k);
    void showCurve(trainmem::CurveKind c);

private:
    void show(const Item& item);
    void refresh();

    QComboBox* m_picker = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_formula = nullptr;
    QLabel* m_substituted = nullptr;
    QLabel* m_result = nullptr;
    QLabel* m_assumptions = nullptr;
    QLabel* m_source = nullptr;
    Scenario m_scenario;
    GpuSpec m_gpu;
    Breakdown m_breakdown;
    bool m_hasScenario = false;
    Item m_item = SegmentKind::Weights;
    Explanation m_explanation;
};

} // namespace trainmem
