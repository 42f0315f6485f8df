#include "dashboard.h"

#include "presetlibrary.h"

#include "layoutfence.h"
#include "narrationlabel.h"
#include "timelinechart.h"
#include "verdictlabel.h"

#include <QEvent>
#include <QLabel>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

namespace trainmem {
namespace {

QString hardwareText(const Scenario& s, bool sharded)
{
    const HardwareSetup& hw = s.hardware;
    const QString gpu = QString::fromStdString(hw.gpu);
    if (!sharded || hw.gpus <= 1)
        return Dashboard::tr("1 × %1").arg(gpu);
    QStringList cuts;
    if (hw.zeroStage > 0 && s.training.mode == Mode::Training)
        cuts << Dashboard::tr("ZeRO-%1").arg(hw.zeroStage);
    if (s.training.mode == Mode::Training && hw.offloadsOptimizer()) // ZeRO-Offload: what went to host memory
        cuts << (hw.offloadsParams() ? Dashboard::tr("opt+W→CPU") : Dashboard::tr("opt→CPU"));
    if (hw.tp > 1)
        cuts << Dashboard::tr("TP%1").arg(hw.tp);
    if (hw.pp > 1)
        cuts << Dashboard::tr("PP%1").arg(hw.pp);
    if (hw.ep > 1)
        cuts << Dashboard::tr("EP%1").arg(hw.ep);
    const QString count = Dashboard::tr("%1 × %2").arg(hw.gpus).arg(gpu);
    // One line per idea, so labels stay narrow under crowded bars.
    return cuts.isEmpty() ? count : count + QLatin1Char('\n') + cuts.join(QStringLiteral(" · "));
}

QString sizeText(const Breakdown& b)
{
    const auto total = static_cast<double>(b.model.params.total);
    const auto active = static_cast<double>(b.model.params.active);
    QString t = QString::fromStdString(formatCount(total));
    if (active > 0 && active < total)
        t += Dashboard::tr("\n%1 active").arg(QString::fromStdString(formatCount(active)));
    return t;
}

} // namespace

ShownVerdict shownVerdict(const DashboardState& st, const std::optional<TourPicture>& picture, const GpuSpec& gpu)
{
    if (!isBuildUp(picture))
        return {st.verdict, st.current.fits};
    const double soFar = revealedBytes(st.current.perGpu, picture->revealed);
    return {QString::fromStdString(soFarVerdict(soFar, gpu)), soFar <= gpu.memoryBytes};
}

BarColumn measuredColumn(const MeasuredComparison& c)
{
    BarColumn col;
    const QString statistic = c.statistic == MemoryStatistic::PeakAllocated  ? Dashboard::tr("peak allocated")
                              : c.statistic == MemoryStatistic::PeakReserved ? Dashboard::tr("peak reserved")
                                                                             : Dashboard::tr("nvidia-smi used");
    const QString gap = c.predicted > 0
                            ? Dashboard::tr("gap %1").arg(QString::fromStdString(formatPercentChange(c.ratio - 1)))
                            : QString();
    col.label = Dashboard::tr("Measured\n%1\n%2").arg(statistic, gap);
    col.measured = c.measured;
    col.predicted = c.predicted;
    col.hover = QString::fromStdString(c.summary);
    return col;
}

DashboardState computeDashboard(const Scenario& s, const GpuSpec& gpu, const std::vector<BarColumn>& pins,
                                UnitSystem units, const ContextSweep* sweep, const MeasuredMemory* measured)
{
    DashboardState st;
    const ResolvedModel model = resolveModel(s.model);
    st.current = account(model, s, gpu);
    Scenario other = s;
    const bool training = s.training.mode == Mode::Training;
    other.training.mode = training ? Mode::Inference : Mode::Training;
    (training ? st.inference : st.training) = account(model, other, gpu);
    (training ? st.training : st.inference) = st.current;
    st.sweep = sweep ? *sweep : sweepContext(s, gpu, kSweepPointsPerOctave);
    st.verdict = QString::fromStdString(verdict(st.current, s, gpu));
    st.capacityLabel = Dashboard::tr("%1 · %2").arg(QString::fromStdString(gpu.id),
                                                    QString::fromStdString(formatBytes(gpu.memoryBytes, units)));

    st.columns.push_back({Dashboard::tr("Inference\n%1").arg(hardwareText(s, false)), st.inference.singleGpu, false});
    st.columns.push_back({Dashboard::tr("Training\n%1").arg(hardwareText(s, false)), st.training.singleGpu, false});
    st.columns.push_back({(training ? Dashboard::tr("Training per GPU\n%1") : Dashboard::tr("Inference per GPU\n%1"))
                              .arg(hardwareText(s, true)),
                          st.current.perGpu, false});
    if (measured && measured->ok()) {
        st.measured = compareMeasured(*measured, st.current, s, units);
        st.columns.push_back(measuredColumn(*st.measured));
    }
    int n = 0;
    for (const BarColumn& p : pins) {
        st.columns.push_back(p);
        st.columns.back().label = Dashboard::tr("Pin %1: %2").arg(++n).arg(p.label);
    }

    st.sequence.sweep = st.sweep;
    st.sequence.currentSeq = static_cast<double>(s.training.seqLen);
    st.sequence.currentTotal = st.current.perGpu.total();
    st.sequence.checkpointing = s.training.checkpointing;
    st.sequence.inference = !training;
    st.sequence.gpuName = QString::fromStdString(gpu.id);
    st.sequence.gpus = s.hardware.gpus;
    st.sequence.capacityLabel = st.capacityLabel;
    return st;
}

BarColumn pinColumn(const Scenario& s, const Breakdown& b)
{
    const QString mode = s.training.mode == Mode::Training ? Dashboard::tr("training") : Dashboard::tr("inference");
    // A preset (or tour step) pinned as it is goes by its name; an edited one by its size (issue 14).
    const QString name = PresetLibrary::instance().isUnedited(s) ? QString::fromStdString(s.name) : QString();
    return {Dashboard::tr("%1\n%2\n%3").arg(name.isEmpty() ? sizeText(b) : name, mode, hardwareText(s, true)), b.perGpu,
            true};
}

Dashboard::Dashboard(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("dashboard"));
    m_settle = new QTimer(this);
    m_settle->setSingleShot(true);
    m_settle->setInterval(kSettleMs);
    connect(m_settle, &QTimer::timeout, this, &Dashboard::settle);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(
        0, 8, 0, 8); // no side margins: a 1024 px screen with a window frame has room for the least width (issue 31 §2)
    m_verdict = new VerdictLabel(this);
    m_warnings = new QLabel(this);
    m_warnings->setObjectName(QStringLiteral("warnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setVisible(false);
    m_measuredNote = new QLabel(this);
    m_measuredNote->setObjectName(QStringLiteral("measuredNote"));
    m_measuredNote->setWordWrap(true);
    m_measuredNote->setTextFormat(Qt::PlainText);
    m_measuredNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_measuredNote->setVisible(false);
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_bars = new MemoryBarChart(m_splitter);
    m_seq = new SequenceChart(m_splitter);
    // Enough for a plot of about 300 × 200 px beside the axes, title and legend: in a 1024 × 700
    // window the controls and docks give way before the charts do (issue 14).
    m_bars->setMinimumSize(kChartMinWidth, kChartMinHeight);
    m_seq->setMinimumSize(kChartMinWidth, kChartMinHeight);
    m_splitter->addWidget(m_bars);
    m_splitter->addWidget(m_seq);
    m_splitter->setChildrenCollapsible(false);
    // The verdict's text changes on every step of a drag: fenced, so that re-lays out nothing
    // unless it needs another line.
    m_verdictFence = new LayoutFence(m_verdict, this);
    layout->addWidget(m_verdictFence);
    layout->addWidget(m_warnings);
    layout->addWidget(m_measuredNote);
    layout->addWidget(m_splitter, 1);
    m_narration = new NarrationLabel(this); // hidden until the tour narrates a slide
    layout->addWidget(m_narration);

    connect(m_bars, &MemoryBarChart::unpinRequested, this, &Dashboard::removePin);
    connect(m_bars, &MemoryBarChart::clearPinsRequested, this, &Dashboard::clearPins);
    applyTheme();
}

void Dashboard::showScenario(const Scenario& s, const GpuSpec& gpu)
{
    m_scenario = s;
    m_gpu = gpu;
    // Dragging the context slider moves only the marker: the sweep covers every context already,
    // so it is reused when nothing but the context changed (the sweep is 187 accountings).
    Scenario keyed = s;
    keyed.training.seqLen = 0;
    const bool reuse = keyed == m_sweepScenario && gpu == m_sweepGpu && !m_state.sweep.seq.empty();
    m_state = computeDashboard(s, gpu, m_pins, m_units, reuse ? &m_state.sweep : nullptr,
                               m_measured ? &*m_measured : nullptr);
    m_sweepScenario = std::move(keyed);
    m_sweepGpu = gpu;
    redraw();
}

void Dashboard::redraw()
{
    m_bars->setColumns(m_state.columns, m_gpu.memoryBytes, m_state.capacityLabel);
    m_seq->setData(m_state.sequence);
    const ShownVerdict shown = shownVerdict(m_state, m_picture, m_gpu);
    m_verdict->setVerdict(shown.text, shown.fits);
    QStringList notes;
    for (const FieldError& w : m_state.current.warnings)
        notes << QString::fromStdString(w.path + ": " + w.message);
    m_warnings->setText(notes.join(QLatin1Char('\n')));
    m_warnings->setVisible(!notes.isEmpty());
    const QString measured = m_state.measured ? QString::fromStdString(m_state.measured->summary) : QString();
    if (m_measuredNote->text() != measured) // a drag re-lays out the dashboard only when the text changes
        m_measuredNote->setText(measured);
    m_measuredNote->setVisible(m_state.measured.has_value());
    // Live preview: while edits keep coming (a slider being dragged), draw without antialiasing,
    // which halves the replot (bench/: 2.4 → 1.4 ms for the curves); once edits pause for
    // kSettleMs, draw once more with it. QCustomPlot's setNoAntialiasingOnDrag does the same for
    // its own mouse drags.
    if (!m_settle->isActive()) {
        // setNotAntialiasedElements() also clears those elements from the antialiased set, so keep
        // the charts' own choice to restore in settle().
        m_barsAntialiased = m_bars->antialiasedElements();
        m_seqAntialiased = m_seq->antialiasedElements();
    }
    m_bars->setNotAntialiasedElements(QCP::aeAll);
    m_seq->setNotAntialiasedElements(QCP::aeAll);
    m_verdictFence->setHeld(true); // a verdict that needs a third line mid-drag moves the charts once
    m_settle->start();
    m_bars->refresh();
    m_seq->refresh();
}

void Dashboard::settle()
{
    m_verdictFence->setHeld(false);
    m_bars->setNotAntialiasedElements(QCP::aeNone);
    m_seq->setNotAntialiasedElements(QCP::aeNone);
    m_bars->setAntialiasedElements(m_barsAntialiased);
    m_seq->setAntialiasedElements(m_seqAntialiased);
    m_bars->refresh();
    m_seq->refresh();
}

bool Dashboard::addPin()
{
    if (static_cast<int>(m_pins.size()) >= MemoryBarChart::kMaxPinned)
        return false;
    m_pins.push_back(pinColumn(m_scenario, m_state.current));
    m_pinScenarios.push_back(m_scenario);
    showScenario(m_scenario, m_gpu);
    Q_EMIT pinsChanged(static_cast<int>(m_pins.size()));
    return true;
}

void Dashboard::removePin(int index)
{
    if (index < 0 || index >= static_cast<int>(m_pins.size()))
        return;
    m_pins.erase(m_pins.begin() + index);
    m_pinScenarios.erase(m_pinScenarios.begin() + index);
    showScenario(m_scenario, m_gpu);
    Q_EMIT pinsChanged(static_cast<int>(m_pins.size()));
}

bool Dashboard::pinScenario(const Scenario& s, const GpuSpec& gpu)
{
    if (static_cast<int>(m_pins.size()) >= MemoryBarChart::kMaxPinned)
        return false;
    m_pins.push_back(pinColumn(s, account(s, gpu)));
    m_pinScenarios.push_back(s);
    showScenario(m_scenario, m_gpu);
    Q_EMIT pinsChanged(static_cast<int>(m_pins.size()));
    return true;
}

void Dashboard::clearPins()
{
    if (m_pins.empty())
        return;
    m_pins.clear();
    m_pinScenarios.clear();
    showScenario(m_scenario, m_gpu);
    Q_EMIT pinsChanged(0);
}

void Dashboard::setMeasured(const std::optional<MeasuredMemory>& measured)
{
    m_measured = measured;
    showScenario(m_scenario, m_gpu);
}

void Dashboard::setUnits(UnitSystem units)
{
    m_units = units;
    m_bars->setUnits(units);
    m_seq->setUnits(units);
    showScenario(m_scenario, m_gpu);
}

void Dashboard::setAxisScale(AxisScale scale)
{
    m_axisScale = scale;
    m_bars->setAxisScale(scale);
    m_bars->refresh();
}

void Dashboard::setPicture(const std::optional<TourPicture>& picture)
{
    m_picture = picture;
    m_bars->setPicture(picture);
    // A build-up step's bars show "so far"; the context chart cannot, so it steps aside (issue 31 §1).
    m_seq->setVisible(!isBuildUp(picture));
    redraw();
    Q_EMIT pictureChanged();
}

void Dashboard::setNarration(const QString& heading, const QString& text)
{
    m_narration->setNarration(heading, text);
}

void Dashboard::setFontScale(double scale)
{
    m_fontScale = scale;
    applyTheme();
}

void Dashboard::applyTheme()
{
    const ChartTheme theme = ChartTheme::fromPalette(palette(), m_fontScale);
    m_bars->setTheme(theme);
    m_seq->setTheme(theme);
    m_verdict->setFontScale(m_fontScale);
    m_narration->setFontScale(m_fontScale);
    QFont small = font();
    small.setPointSizeF(QFont().pointSizeF() * 0.95 * m_fontScale);
    m_warnings->setFont(small);
    m_measuredNote->setFont(small);
    m_bars->refresh();
    m_seq->refresh();
}

void Dashboard::changeEvent(QEvent* e)
{
    // Dark mode and theme switches: the charts paint their own backgrounds, so recolour them.
    if (e->type() == QEvent::PaletteChange)
        applyTheme();
    QWidget::changeEvent(e);
}

} // namespace trainmem
