#include "peerschart.h"

#include "cachedtext.h"

#include <QLocale>

#include <cmath>

namespace trainmem {

SegmentKind segmentOfTerm(const std::string& t)
{
    // The peers' difference terms are the table's JSON keys, plus DeepSpeed's gathered layer (drawn
    // with the workspace, where TrainMem counts it).
    for (SegmentKind k : kAllSegmentKinds)
        if (t == termInfo(k).key)
            return k;
    return SegmentKind::Workspace; // "gathered_layer"
}

PeersChart::PeersChart(QWidget* parent) : MemoryBarChart(parent)
{
    // The shorter ones for a dock that shares the controls' column on a 1024 px projector (issue 31 §2).
    setTitles({tr("Megatron-LM and DeepSpeed beside TrainMem"), tr("Megatron-LM, DeepSpeed, TrainMem"),
               tr("Peers beside TrainMem")});
}

QString PeersChart::peerOf(int column) const
{
    if (column == kMegatron)
        return QStringLiteral("megatron");
    if (column == kDeepSpeed)
        return m_stage == 3 ? QStringLiteral("deepspeed_zero3") : QStringLiteral("deepspeed_zero2");
    return {};
}

const PeerDifference* PeersChart::differenceAt(int column, SegmentKind s) const
{
    const std::string peer = peerOf(column).toStdString();
    for (const PeerDifference& d : m_c.differences)
        if (d.peer == peer && segmentOfTerm(d.term) == s)
            return &d;
    return nullptr;
}

void PeersChart::setComparison(const PeerComparison& c, int deepspeedStage, double capacity,
                               const QString& capacityLabel)
{
    m_c = c;
    m_stage = deepspeedStage == 3 ? 3 : 2;
    std::vector<BarColumn> cols(3);
    cols[kMegatron].label = c.megatron.available ? tr("Megatron-LM\nestimate") : tr("Megatron-LM\n(no estimate)");
    cols[kMegatron].segments = c.megatron.available ? trainmem::megatronSegments(c.megatron) : Segments{};
    cols[kDeepSpeed].label = tr("DeepSpeed ZeRO-%1\nestimate").arg(m_stage);
    cols[kDeepSpeed].segments = trainmem::deepspeedSegments(c, m_stage);
    cols[kTrainMem].label = tr("TrainMem\nthis launch");
    cols[kTrainMem].segments = c.trainmem;
    // Each peer's label carries the gap to TrainMem's total.
    for (int column : {kMegatron, kDeepSpeed}) {
        const double peerTotal = cols[static_cast<size_t>(column)].segments.total();
        if (peerTotal <= 0)
            continue;
        const double gap = c.trainmem.total() - peerTotal;
        cols[static_cast<size_t>(column)].label +=
            QLatin1Char('\n') + (gap >= 0 ? tr("TrainMem: %1 more").arg(QString::fromStdString(formatBytes(gap)))
                                          : tr("TrainMem: %1 less").arg(QString::fromStdString(formatBytes(-gap))));
    }
    setColumns(cols, capacity, capacityLabel);

    // Outline every peer segment whose term differs by more than 2% of the larger total; a term
    // the peer leaves out (0 bytes) is outlined on TrainMem's bar.
    for (QCPItemRect* r : m_marks)
        removeItem(r);
    m_marks.clear();
    m_highlighted.clear();
    const bool log = isLogarithmic();
    auto outline = [&](int column, SegmentKind seg) {
        double base = log ? 1.0 : 0.0;
        for (int i = 0; i < static_cast<int>(seg); ++i)
            base += segmentBytes(cols[static_cast<size_t>(column)].segments, static_cast<SegmentKind>(i));
        const double v = segmentBytes(cols[static_cast<size_t>(column)].segments, seg);
        auto* r = new QCPItemRect(this);
        r->topLeft->setCoords(column - kBarWidth / 2, base + v);
        r->bottomRight->setCoords(column + kBarWidth / 2, std::max(base, log ? 1.0 : 0.0));
        QPen pen(QColor(0xd0, 0x10, 0x60), 2.5, Qt::DashLine);
        r->setPen(pen);
        r->setBrush(Qt::NoBrush);
        r->setSelectable(false);
        m_marks.push_back(r);
        m_highlighted.emplace_back(column, seg);
    };
    for (int column : {kMegatron, kDeepSpeed}) {
        const double peerTotal = cols[static_cast<size_t>(column)].segments.total();
        if (peerTotal <= 0)
            continue;
        const double scale = std::max(peerTotal, c.trainmem.total());
        for (int i = 0; i < kSegmentCount; ++i) {
            const auto seg = static_cast<SegmentKind>(i);
            const PeerDifference* d = differenceAt(column, seg);
            if (!d || std::fabs(d->trainmemBytes - d->peerBytes) < 0.02 * scale)
                continue;
            if (segmentBytes(cols[static_cast<size_t>(column)].segments, seg) > 0)
                outline(column, seg);
            else if (segmentBytes(c.trainmem, seg) > 0 && std::find(m_highlighted.begin(), m_highlighted.end(),
                                                                    std::pair{kTrainMem, seg}) == m_highlighted.end())
                outline(kTrainMem, seg);
        }
    }
}

QString PeersChart::hoverText(const QPointF& pos) const
{
    QString base = MemoryBarChart::hoverText(pos);
    const int k = barIndexAt(this, pos, static_cast<int>(columns().size()), kBarWidth);
    if (base.isEmpty() || k < 0)
        return base;
    const double value = yAxis->pixelToCoord(pos.y());
    const Segments& g = columns()[static_cast<size_t>(k)].segments;
    double stack = 0;
    for (int i = 0; i < kSegmentCount; ++i) {
        const auto seg = static_cast<SegmentKind>(i);
        const double v = segmentBytes(g, seg);
        if (v > 0 && value >= stack && value <= stack + v) {
            QStringList reasons;
            for (int column : {kMegatron, kDeepSpeed}) {
                if (k != kTrainMem && k != column)
                    continue;
                if (const PeerDifference* d = differenceAt(column, seg))
                    reasons << tr("<b>vs %1:</b> TrainMem %2, %1 %3<br>%4")
                                   .arg(column == kMegatron ? tr("Megatron") : tr("DeepSpeed ZeRO-%1").arg(m_stage),
                                        QString::fromStdString(formatBytes(d->trainmemBytes)),
                                        QString::fromStdString(formatBytes(d->peerBytes)),
                                        QString::fromStdString(d->reason).toHtmlEscaped());
            }
            if (!reasons.isEmpty())
                base += QStringLiteral("<hr>") + reasons.join(QStringLiteral("<br><br>"));
            return QStringLiteral("<div style='max-width:520px'>%1</div>").arg(base);
        }
        stack += v;
    }
    return base;
}

} // namespace trainmem
