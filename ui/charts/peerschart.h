#pragma once
// The peers side by side (issue 10): Megatron-LM's estimate, DeepSpeed's and TrainMem's as three
// stacked bars on the memory chart's axes and colours. Each peer segment that differs from
// TrainMem's by a visible amount is outlined, the gap is written under the peer's bar, and the
// hover text gives the difference term's reason from the core (peers.h).

#include "memorybarchart.h"
#include "peers.h"

#include <vector>

namespace trainmem {

class PeersChart : public MemoryBarChart
{
    Q_OBJECT
public:
    static constexpr int kMegatron = 0, kDeepSpeed = 1, kTrainMem = 2;

    explicit PeersChart(QWidget* parent = nullptr);

    /// Shows `c` with DeepSpeed's ZeRO-`deepspeedStage` (2 or 3) estimate.
    void setComparison(const PeerComparison& c, int deepspeedStage, double capacity, const QString& capacityLabel);

    /// The core's peer name for a bar ("megatron", "deepspeed_zero2", …); empty for TrainMem's.
    QString peerOf(int column) const;

    QString hoverText(const QPointF& pos) const override;
    /// The outlined segments, by column (for tests): one rectangle per highlighted term.
    const std::vector<std::pair<int, SegmentKind>>& highlighted() const { return m_highlighted; }

private:
    const PeerDifference* differenceAt(int column, SegmentKind s) const;

    PeerComparison m_c;
    int m_stage = 2;
    std::vector<QCPItemRect*> m_marks;
    std::vector<std::pair<int, SegmentKind>> m_highlighted;
};

/// The segment a difference term belongs to ("gathered_layer" is drawn as workspace).
SegmentKind segmentOfTerm(const std::string& term);

} // namespace trainmem
