#pragma once
// The compute and cost receipt (docs/accounting.md, "Receipts"): tokens, MFU, GPU type and count,
// price → FLOPs, GPU-hours, dollars and days, from core/teach/cost.h.

#include "cost.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace trainmem {

class ReceiptPanel : public QWidget
{
    Q_OBJECT
public:
    /// Uses the shared PresetLibrary's GPU catalog.
    explicit ReceiptPanel(QWidget* parent = nullptr);
    void setCatalog(const GpuCatalog& catalog);

    /// Shows the scenario's cost inputs and receipt; emits nothing.
    void setScenario(const Scenario& s, const GpuSpec& gpu);
    const Scenario& scenario() const { return m_scenario; }
    const CostReceipt& receipt() const { return m_receipt; }

    // The editors and results, for tests.
    QDoubleSpinBox* tokensEditor() const { return m_tokens; }
    QDoubleSpinBox* mfuEditor() const { return m_mfu; }
    QComboBox* gpuEditor() const { return m_gpu; }
    QSpinBox* gpusEditor() const { return m_count; }
    QDoubleSpinBox* priceEditor() const { return m_price; }
    QString gpuHoursText() const;
    QString costText() const;
    QString daysText() const;
    QString flopsText() const;
    /// One line per phase when the scenario lists published phases (pre-training first), else empty.
    QStringList phaseLines() const;

Q_SIGNALS:
    /// The user edited a cost input; the scenario carries the new tokens, MFU, GPU, count and price.
    void scenarioRequested(const trainmem::Scenario& scenario);

private:
    void edited();
    void recompute();
    const GpuSpec* currentGpu() const;

    GpuCatalog m_catalog;
    QDoubleSpinBox* m_tokens = nullptr;
    QDoubleSpinBox* m_mfu = nullptr;
    QComboBox* m_gpu = nullptr;
    QSpinBox* m_count = nullptr;
    QDoubleSpinBox* m_price = nullptr;
    QLabel* m_flopsPerToken = nullptr;
    QLabel* m_flops = nullptr;
    QLabel* m_hours = nullptr;
    QLabel* m_cost = nullptr;
    QLabel* m_days = nullptr;
    QLabel* m_phases = nullptr; ///< pre-training, then each published phase (DeepSeek-V3 Table 1)
    QLabel* m_note = nullptr;
    Scenario m_scenario;
    GpuSpec m_fallback;
    CostReceipt m_receipt;
    bool m_updating = false;
};

} // namespace trainmem
