#include "ladderchart.h"

#include "bytestickers.h"
#include "cachedtext.h"
#include "fastbars.h"

#include "units.h"

#include <QHelpEvent>
#include <QLocale>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace trainmem {
namespace {

constexpr double kBarWidth = 0.6;

QString bytes(double b)
{
    return QString::fromStdString(formatBytes(b));
}

QString gpuCount(int64_t n)
{
    return n == 1 ? LadderChart::tr("1 GPU")
                  : LadderChart::tr("%1 GPUs").arg(QLocale().toString(static_cast<qlonglong>(n)));
}

} // namespace

LadderChart::LadderChart(QWidget* parent) : LivePlot(parent)
{
    setObjectName(QStringLiteral("ladderChart"));
    setMouseTracking(true);
    setAntialiasedElements(QCP::aeAll);

    m_keyTicker.reset(new QCPAxisTickerText);
    m_valueTicker.reset(new BytesTicker);
    m_valueTicker->setTickCount(6);
    xAxis->setTicker(m_keyTicker);
    xAxis->grid()->setVisible(false);
    xAxis->setSubTicks(false);
    xAxis->setTickLength(0, 0);
    yAxis->setTicker(m_valueTicker);
    yAxis->setLabel(tr("Memory per GPU"));
    yAxis->setSubTicks(false);
    yAxis->grid()->setSubGridVisible(false);

    // The legend gets its own row under the title, so it never hides a bar or a label.
    const ChartHeader header = addChartHeader(this, tr("Every cut has a tax"));
    m_title = header.title;
    m_legendRow = header.legendRow;

    m_bars = addSegmentBars(this, kBarWidth);
    for (int i = 0; i < kSegmentCount; ++i) {
        m_bars[static_cast<size_t>(i)]->setPen(
            QPen(ChartTheme::segmentColor(static_cast<SegmentKind>(i)).darker(130), 1));
        addCachedLegendItem(legend, m_bars[static_cast<size_t>(i)]);
    }

    m_capacity = new QCPItemStraightLine(this);
    m_capacity->setPen(QPen(m_theme.capacity, 2, Qt::DashLine));
    m_capacityText = new CachedTextItem(this);
    m_capacityText->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    m_capacityText->position->setType(QCPItemPosition::ptPlotCoords);
    m_capacityText->setColor(m_theme.capacity);

    m_theme = ChartTheme::fromPalette(palette());
    m_theme.applyToPlot(this);
}

LadderChart::~LadderChart() = default;

void LadderChart::setScenario(const Scenario& s, const GpuSpec& gpu)
{
    m_scenario = s;
    m_gpu = gpu;
    // Unless told otherwise, the ladder climbs to the layout (and GPU count) the verdict uses.
    if (!m_fixedOptions)
        m_options = ladderOptionsFor(s, gpu);
    m_rungs = scaleOutLadder(s, gpu, m_options);
    rebuild();
}

void LadderChart::setOptions(const LadderOptions& options)
{
    m_options = options;
    m_fixedOptions = true;
    m_rungs = scaleOutLadder(m_scenario, m_gpu, m_options);
    rebuild();
}

void LadderChart::setTheme(const ChartTheme& theme)
{
    m_theme = theme;
    m_ownTheme = true;
    rebuild();
}

QCPItemText* LadderChart::taxLabel(int rung) const
{
    return rung >= 0 && rung < static_cast<int>(m_labels.size()) ? m_labels[static_cast<size_t>(rung)] : nullptr;
}

QString LadderChart::rungToolTip(int i) const
{
    if (i < 0 || i >= static_cast<int>(m_rungs.size()))
        return {};
    const LadderRung& r = m_rungs[static_cast<size_t>(i)];
    QStringList lines;
    lines << tr("%1 — %2, %3 per GPU").arg(QString::fromStdString(r.label), gpuCount(r.gpus), bytes(r.perGpu.total()));
    lines << QString::fromStdString(r.description);
    for (SegmentKind k : kAllSegmentKinds) {
        const double v = segmentBytes(r.perGpu, k), gone = segmentBytes(r.removed, k);
        if (v == 0 && gone == 0)
            continue;
        QString line = tr("%1: %2").arg(QString::fromStdString(segmentKindName(k)), bytes(v));
        if (i > 0 && gone > 0)
            line += tr(" (−%1)").arg(bytes(gone));
        else if (i > 0 && gone < 0)
            line += tr(" (+%1)").arg(bytes(-gone));
        lines << line;
    }
    if (r.replicatedBytes > 0)
        lines << tr("Still replicated on every data-parallel GPU: %1").arg(bytes(r.replicatedBytes));
    lines << tr("Tax: %1").arg(QString::fromStdString(r.taxText));
    lines << tr("All traffic per GPU per step: %1 (data %2, tensor %3, pipeline %4, expert %5)")
                 .arg(bytes(r.tax.total()), bytes(r.tax.dataParallel), bytes(r.tax.tensorParallel),
                      bytes(r.tax.pipelineParallel), bytes(r.tax.expertParallel));
    return lines.join(QLatin1Char('\n'));
}

void LadderChart::changeEvent(QEvent* e)
{
    if (e->type() == QEvent::PaletteChange && !m_ownTheme) {
        m_theme = ChartTheme::fromPalette(palette());
        rebuild();
    }
    QCustomPlot::changeEvent(e);
}

void LadderChart::resizeEvent(QResizeEvent* e)
{
    // The legend wraps to the dock's width (one row of nine entries made the window 880 px wide).
    m_theme.fitHeader(legend, m_title, e->size().width(), kSegmentCount);
    // In a low dock (a 700 px high window) the plot needs the legend's row more: the colours are
    // the bar chart's, named in its legend above, and the hover text names every segment.
    showLegendRow(legend, m_legendRow, e->size().height() >= kLegendMinHeight);
    LivePlot::resizeEvent(e);
}

bool LadderChart::arrangeLabels()
{
    // Value ticks at least two and a half font heights apart: a low dock gets fewer.
    const int ticks = std::clamp(static_cast<int>(axisRect()->height() / (m_theme.fontPx * 2.5)), 2, 6);
    if (m_valueTicker->tickCount() != ticks) {
        m_valueTicker->setTickCount(ticks);
        return true;
    }
    // The rung labels, at the settled geometry. Three lines each ("64.2 GB", "−102 GB", "tax +2.82 GB/step") can be
    // wider than a rung on a narrow dock (109 px labels 104 px apart at 1024 px): a smaller font first, down to 0.72
    // of the theme's, so neighbours do not meet.
    const int n = static_cast<int>(m_labels.size());
    if (n == 0)
        return false;
    const double rungPx = n > 1 ? std::fabs(xAxis->coordToPixel(1) - xAxis->coordToPixel(0)) : 1e9;
    for (double scale : {0.9, 0.8, 0.72}) {
        int widest = 0;
        for (QCPItemText* t : m_labels) {
            t->setFont(m_theme.font(scale));
            widest = std::max(widest, static_cast<CachedTextItem*>(t)->pixelBox().width());
        }
        if (widest + 2 <= rungPx)
            break;
    }
    // Then each label above its bar, lifted above what it meets (the capacity label, a neighbour) a few times at
    // most, and left out (the rung's tooltip still has the numbers) when that takes it out of the plot.
    const QRect plot = axisRect()->rect();
    std::vector<QRect> taken{static_cast<CachedTextItem*>(m_capacityText)->pixelBox()};
    auto meets = [&taken](const QRect& box) {
        return std::any_of(taken.begin(), taken.end(), [&box](const QRect& r) { return r.intersects(box); });
    };
    for (int i = 0; i < n; ++i) {
        auto* t = static_cast<CachedTextItem*>(m_labels[static_cast<size_t>(i)]);
        t->position->setCoords(i, m_rungs[static_cast<size_t>(i)].perGpu.total() + m_top * 0.015);
        const QRect natural = t->pixelBox();
        QRect box = natural;
        for (int tries = 0; tries < 3 && meets(box); ++tries) {
            int top = box.top();
            for (const QRect& r : taken)
                if (r.intersects(box))
                    top = std::min(top, r.top());
            box.moveBottom(top - 1);
        }
        const bool fits = plot.contains(box) && !meets(box);
        t->setSkipped(!fits);
        if (!fits)
            continue;
        if (box.bottom() != natural.bottom())
            t->position->setCoords(
                i, yAxis->pixelToCoord(t->position->pixelPosition().y() + (box.bottom() - natural.bottom())));
        taken.push_back(box);
    }
    return false;
}

bool LadderChart::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = rungToolTip(rungAt(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QCustomPlot::event(e);
}

void LadderChart::mouseDoubleClickEvent(QMouseEvent* e)
{
    const int i = rungAt(e->position());
    if (i >= 0) {
        Q_EMIT rungActivated(i);
        Q_EMIT scenarioRequested(m_rungs[static_cast<size_t>(i)].scenario);
    }
    QCustomPlot::mouseDoubleClickEvent(e);
}

int LadderChart::rungAt(const QPointF& pos) const
{
    return barIndexAt(this, pos, static_cast<int>(m_rungs.size()), kBarWidth);
}

void LadderChart::rebuild()
{
    m_theme.applyToPlot(this);
    m_title->setFont(m_theme.font(1.25, true));
    m_title->setTextColor(m_theme.foreground);
    m_title->setText(m_rungs.empty()
                         ? tr("Every cut has a tax")
                         : tr("Every cut has a tax: %1 on %2")
                               .arg(QString::fromStdString(m_scenario.name.empty()
                                                               ? formatCount(static_cast<double>(
                                                                     m_rungs.front().breakdown.model.params.total)) +
                                                                     " model"
                                                               : m_scenario.name),
                                    QString::fromStdString(m_gpu.id)));

    for (QCPItemText* t : m_labels)
        removeItem(t);
    m_labels.clear();
    m_keyTicker->clear();

    const int n = static_cast<int>(m_rungs.size());
    QVector<double> keys(n);
    for (int i = 0; i < n; ++i) {
        keys[i] = i;
        const LadderRung& r = m_rungs[static_cast<size_t>(i)];
        m_keyTicker->addTick(i, r.cut == LadderCut::SingleGpu
                                    ? QString::fromStdString(r.label)
                                    : tr("%1\n%2").arg(QString::fromStdString(r.label), gpuCount(r.gpus)));
    }
    for (int s = 0; s < kSegmentCount; ++s) {
        QVector<double> values(n);
        for (int i = 0; i < n; ++i)
            values[i] = segmentBytes(m_rungs[static_cast<size_t>(i)].perGpu, static_cast<SegmentKind>(s));
        m_bars[static_cast<size_t>(s)]->setData(keys, values, true);
    }

    double top = m_gpu.memoryBytes;
    for (const LadderRung& r : m_rungs)
        top = std::max(top, r.perGpu.total());
    m_top = top;
    for (int i = 0; i < n; ++i) {
        const LadderRung& r = m_rungs[static_cast<size_t>(i)];
        auto* t = new CachedTextItem(this);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        t->position->setType(QCPItemPosition::ptPlotCoords);
        t->position->setCoords(i, r.perGpu.total() + top * 0.015);
        t->setFont(m_theme.font(0.9));
        QString text = bytes(r.perGpu.total());
        if (i > 0) {
            // Below a byte per GPU the change is rounding, not memory.
            const double freed = r.removed.total();
            text += freed >= 1    ? tr("\n−%1").arg(bytes(freed))
                    : freed <= -1 ? tr("\n+%1").arg(bytes(-freed))
                                  : tr("\nno memory saved");
            // The cut's own collective; the tooltip has the whole step's traffic.
            text += r.cutTax >= 1 ? tr("\ntax +%1/step").arg(bytes(r.cutTax)) : tr("\nno new traffic");
        }
        t->setText(text);
        t->setColor(r.fits ? m_theme.fits : m_theme.capacity);
        // An opaque box, so the capacity line passes behind the numbers, not through them.
        t->setBrush(QBrush(m_theme.background));
        t->setPadding(QMargins(3, 1, 3, 1));
        m_labels.push_back(t);
    }

    m_capacity->setPen(QPen(m_theme.capacity, 2, Qt::DashLine));
    m_capacity->point1->setCoords(-1, m_gpu.memoryBytes);
    m_capacity->point2->setCoords(n + 1, m_gpu.memoryBytes);
    m_capacityText->setColor(m_theme.capacity);
    m_capacityText->setFont(m_theme.font(0.9));
    // In the margin right of the last bar, where no rung label goes.
    m_capacityText->position->setCoords(std::max(0, n - 1) + 1.25, m_gpu.memoryBytes);
    m_capacityText->setBrush(QBrush(m_theme.background));
    m_capacityText->setText(tr("%1 · %2").arg(QString::fromStdString(m_gpu.id), bytes(m_gpu.memoryBytes)));

    xAxis->setRange(-0.6, std::max(0, n - 1) + 1.3);
    yAxis->setRange(0, top * 1.22); // headroom for the labels above the tallest bar
    refresh();
}

} // namespace trainmem
