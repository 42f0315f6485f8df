#pragma once
// The "Compare with Megatron / DeepSpeed" dock (issue 10): the three bars, the difference terms
// of the chosen peer with their reasons, Megatron's printed line, and what was ignored or assumed.
// It compares the pasted launch while the scenario is still the one made from it, and the current
// scenario written as Megatron-LM flags otherwise. Hidden, it computes nothing.

#include "gpu.h"
#include "megatronargs.h"
#include "peers.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTimer;

namespace trainmem {

class LayoutFence;
class PeersChart;

class PeersPanel : public QWidget
{
    Q_OBJECT
public:
    explicit PeersPanel(QWidget* parent = nullptr);

    void setScenario(const Scenario& s, const GpuSpec& gpu);
    /// A reading of pasted text and the scenario made from it (set before that scenario is applied).
    void setPasted(const MegatronParse& parse, const Scenario& produced);
    /// The pasted arguments while they still describe the current scenario.
    std::optional<MegatronArgs> pastedArgs() const;

    PeersChart* chart() const { return m_chart; }
    QTableWidget* table() const { return m_table; }
    QComboBox* peerChoice() const { return m_peer; }
    QComboBox* stageChoice() const { return m_stage; }
    QLabel* sourceLabel() const { return m_source; }
    QLabel* whyLabel() const { return m_why; }
    const PeerComparison& comparison() const { return m_comparison; }

    /// File ▸ Paste Megatron-LM arguments…: the dialog; on OK, scenarioRequested with the launch's scenario.
    void pasteDialog();

Q_SIGNALS:
    /// The scenario made from pasted arguments, for the window's undo stack.
    void scenarioRequested(const trainmem::Scenario& s, const QString& text);

protected:
    void showEvent(QShowEvent* e) override;
    /// A theme switch (View ▸ Theme, the desktop's dark mode): the chart paints its own background, so recolour it.
    void changeEvent(QEvent* e) override;

private:
    void recompute();
    void fitTableColumns();
    void fillTable();
    void showWhy(int row);

    PeersChart* m_chart = nullptr;
    QComboBox* m_stage = nullptr;
    QComboBox* m_peer = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_source = nullptr;
    QLabel* m_printed = nullptr;
    QLabel* m_why = nullptr;
    QPushButton* m_paste = nullptr;
    Scenario m_scenario;
    GpuSpec m_gpu;
    std::optional<MegatronParse> m_pasted;
    std::string m_pastedScenario; ///< scenarioToText of the scenario made from the paste
    QString m_lastPasteText;      ///< what the paste dialog last held, offered again when it reopens
    bool m_usingPaste = false;
    bool m_dirty = true;
    /// While edits keep coming (a slider drag) the three fences only grow, as the dashboard's verdict does: a line
    /// that wraps once more mid-drag moves the table once, not back and forth. Released kSettleMs after the last.
    LayoutFence* m_sourceFence = nullptr;
    LayoutFence* m_printedFence = nullptr;
    LayoutFence* m_whyFence = nullptr;
    QTimer* m_settle = nullptr;
    PeerComparison m_comparison;
};

} // namespace trainmem
