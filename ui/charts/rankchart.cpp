#include "rankchart.h"

#include <QLabel>

#include <algorithm>

namespace trainmem {

QString rankTitle(const RankKind& r)
{
    const QString stages = r.lastStage > r.firstStage ? RankChart::tr("Stages %1–%2").arg(r.firstStage).arg(r.lastStage)
                                                      : RankChart::tr("Stage %1").arg(r.firstStage);
    switch (r.stage) {
    case PipelineStage::Only:
        return RankChart::tr("Every rank");
    case PipelineStage::First:
        return RankChart::tr("%1 · embedding").arg(stages);
    case PipelineStage::Last:
        return RankChart::tr("%1 · head + logits").arg(stages);
    case PipelineStage::Middle:
        break;
    }
    return stages;
}

RankChart::RankChart(QWidget* parent) : MemoryBarChart(parent)
{
    setObjectName(QStringLiteral("rankChart"));
    setTitle(tr("Memory per GPU, rank by rank"));
    m_mark = new QCPItemRect(this);
    m_mark->setPen(QPen(QColor(0xd0, 0x10, 0x60), 2.5, Qt::DashLine));
    m_mark->setBrush(Qt::NoBrush);
    m_mark->setSelectable(false);
    m_mark->setVisible(false);
}

int RankChart::columnBudget(int widthPx)
{
    return std::clamp(widthPx / 130, 3, kMaxColumns);
}

void RankChart::setRanks(const std::vector<RankKind>& ranks, int64_t pp, double capacity, const QString& capacityLabel)
{
    m_ranks = ranks;
    m_pp = pp;
    m_capacityBytes = capacity;
    m_capacityName = capacityLabel;
    rebuild();
}

void RankChart::resizeEvent(QResizeEvent* e)
{
    MemoryBarChart::resizeEvent(e);
    if (!m_ranks.empty() && budget() != m_budget)
        rebuild();
}

void RankChart::rebuild()
{
    m_budget = budget();
    const int64_t pp = m_pp;
    m_shown = groupRankKinds(m_ranks, static_cast<size_t>(m_budget));
    std::vector<BarColumn> cols;
    cols.reserve(m_shown.size());
    m_busiest = -1;
    // An uneven split (issue 33) is what sets the ends apart: then each column says its layers.
    const bool uneven = std::any_of(m_ranks.begin(), m_ranks.end(),
                                    [&](const RankKind& r) { return r.layers != m_ranks.front().layers; });
    for (const RankKind& r : m_shown) {
        BarColumn c;
        // Title, then the GPUs of this kind and the tapes they hold; a joined run says its bytes are its first stage's.
        c.label = rankTitle(r) + QLatin1Char('\n') + (r.gpus == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(r.gpus));
        if (pp > 1)
            c.label += tr(" · %1 in flight").arg(QString::fromStdString(formatNumber(r.inflight)));
        QStringList last;
        if (uneven)
            last << tr("%1 layers").arg(QString::fromStdString(formatNumber(r.layers)));
        if (r.merged)
            last << tr("(stage %1 shown)").arg(r.firstStage);
        else if (r.busiest && m_shown.size() > 1)
            last << tr("busiest");
        if (!last.isEmpty())
            c.label += QLatin1Char('\n') + last.join(QStringLiteral(" · "));
        c.segments = r.bytes;
        if (r.busiest)
            m_busiest = static_cast<int>(cols.size());
        cols.push_back(std::move(c));
    }
    setColumns(cols, m_capacityBytes, m_capacityName);
    // The busiest bar, outlined from its base to its top (1 byte on a log axis).
    m_mark->setVisible(m_busiest >= 0 && m_shown.size() > 1);
    if (m_busiest >= 0) {
        const double base = isLogarithmic() ? 1.0 : 0.0;
        const double top = m_shown[static_cast<size_t>(m_busiest)].bytes.total();
        m_mark->topLeft->setCoords(m_busiest - kBarWidth / 2 - 0.04, std::max(top, base));
        m_mark->bottomRight->setCoords(m_busiest + kBarWidth / 2 + 0.04, base);
    }
}

RanksPanel::RanksPanel(QWidget* parent)
    : ChartPanel(QStringLiteral("ranksPanel"), QStringLiteral("ranksSummary"), parent)
{
    m_chart = new RankChart(this);
    setChart(m_chart, 240);
}

void RanksPanel::setScenario(const Scenario& s, const GpuSpec& gpu)
{
    m_scenario = s;
    m_gpu = gpu;
    invalidate();
}

void RanksPanel::setUnits(UnitSystem units)
{
    m_units = units;
    m_chart->setUnits(units);
    invalidate();
}

void RanksPanel::applyTheme(const ChartTheme& theme)
{
    m_chart->setTheme(theme);
}

void RanksPanel::recompute()
{
    const ResolvedModel model = resolveModel(m_scenario.model);
    const std::vector<RankKind> ranks = rankKinds(model, m_scenario);
    const ParallelLayout layout = parallelLayout(m_scenario, model);
    const QString capacity = QString::fromStdString(formatBytes(m_gpu.memoryBytes, m_units));
    m_chart->setRanks(ranks, layout.pp, m_gpu.memoryBytes,
                      QStringLiteral("%1 · %2").arg(QString::fromStdString(m_gpu.id), capacity));

    // The sentence: the busiest kind against the GPU, and the one with the most room.
    const auto busiest = std::find_if(ranks.begin(), ranks.end(), [](const RankKind& r) { return r.busiest; });
    const auto roomiest = std::min_element(ranks.begin(), ranks.end(), [](const RankKind& a, const RankKind& b) {
        return a.bytes.total() < b.bytes.total();
    });
    auto bytes = [this](double b) { return QString::fromStdString(formatBytes(b, m_units)); };
    QString text;
    if (busiest == ranks.end() || ranks.size() == 1) {
        text = layout.pp > 1 ? tr("Every pipeline stage holds the same: %1 per GPU of %2.")
                                   .arg(bytes(ranks.empty() ? 0 : ranks.front().bytes.total()), capacity)
                             : tr("No pipeline: every one of the %1 GPUs holds the same share, %2 of %3.")
                                   .arg(layout.gpus)
                                   .arg(bytes(ranks.empty() ? 0 : ranks.front().bytes.total()), capacity);
    } else {
        const double used = busiest->bytes.total(), least = roomiest->bytes.total();
        text = tr("<b>%1 is the busiest:</b> %2 per GPU of %3 (%4). ")
                   .arg(rankTitle(*busiest), bytes(used), capacity,
                        used <= m_gpu.memoryBytes ? tr("fits") : tr("%1 over").arg(bytes(used - m_gpu.memoryBytes)));
        text += least <= m_gpu.memoryBytes
                    ? tr("%1 needs %2 and has %3 to spare: the layout is sized by its busiest rank.")
                          .arg(rankTitle(*roomiest), bytes(least), bytes(m_gpu.memoryBytes - least))
                    : tr("Even %1, the lightest, needs %2.").arg(rankTitle(*roomiest), bytes(least));
    }
    summary()->setText(text);
}

} // namespace trainmem
