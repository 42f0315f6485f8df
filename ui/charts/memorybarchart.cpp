#include "memorybarchart.h"

#include "bytestickers.h"
#include "fastbars.h"

#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QLocale>
#include <QMenu>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace trainmem {
namespace {

/// The bar titles' slot share a title may use, and a total's: the rest keeps neighbours apart.
constexpr double kTitleShare = 0.92;
constexpr double kTotalShare = 0.96;

} // namespace

MemoryBarChart::MemoryBarChart(QWidget* parent) : LivePlot(parent)
{
    setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
    setObjectName(QStringLiteral("memoryBarChart"));
    // Bars and grid are axis-aligned: antialiasing them costs time and blurs edges. Text and items keep it.
    setAntialiasedElements(QCP::aeItems | QCP::aeLegend);

    m_keyTicker.reset(new QCPAxisTickerText);
    m_linearTicker.reset(new BytesTicker);
    m_linearTicker->setTickCount(6);
    m_logTicker.reset(new LogBytesTicker);
    m_logTicker->setLogBase(10);
    m_logTicker->setSubTickCount(0);

    xAxis->setTicker(m_keyTicker);
    xAxis->grid()->setVisible(false);
    xAxis->setSubTicks(false);
    yAxis->setTicker(m_linearTicker);
    yAxis->setLabel(tr("Memory per GPU"));
    yAxis->grid()->setSubGridVisible(false);
    yAxis->setSubTicks(false);

    // The legend gets its own row above the plot, so it never hides a bar.
    const ChartHeader header = addChartHeader(this, tr("Where the memory goes"));
    m_title = header.title;
    m_legendRow = header.legendRow;

    m_bars = addSegmentBars(this, kBarWidth);
    for (QCPBars* b : m_bars) {
        b->setStackingGap(0);
        b->setAntialiased(false);
    }
    // A readout (issue 32): one hatched bar, not a stack, and the prediction of its statistic across it.
    m_measuredBars = new FastBars(xAxis, yAxis);
    m_measuredBars->setName(tr("Measured"));
    m_measuredBars->setWidth(kBarWidth);
    m_measuredBars->setAntialiased(false);
    m_measuredBars->removeFromLegend();
    m_measuredBars->setVisible(false);
    m_predictedMark = new QCPItemLine(this);
    m_predictedMark->setVisible(false);
    // The per-GPU bar zoomed (issue 31 §2): an axis rect in the plot's inset layout, on a layer above the legend so
    // that the main plot's grid and items do not cross it.
    addLayer(QStringLiteral("inset"), layer(QStringLiteral("legend")), QCustomPlot::limAbove);
    m_insetPanel = new QCPItemRect(this); // first on the layer: drawn under the inset
    m_insetPanel->setLayer(QStringLiteral("inset"));
    m_insetPanel->setClipToAxisRect(false);
    m_insetPanel->topLeft->setType(QCPItemPosition::ptAbsolute);
    m_insetPanel->bottomRight->setType(QCPItemPosition::ptAbsolute);
    m_insetPanel->setVisible(false);
    m_inset = new QCPAxisRect(this, true);
    m_inset->setLayer(QStringLiteral("inset"));
    m_inset->setRangeDrag(Qt::Orientations());
    m_inset->setRangeZoom(Qt::Orientations());
    for (QCPAxis* a : m_inset->axes()) {
        a->setLayer(QStringLiteral("inset"));
        a->grid()->setVisible(false);
        a->setSubTicks(false);
    }
    m_inset->axis(QCPAxis::atTop)->setVisible(false);
    m_inset->axis(QCPAxis::atRight)->setVisible(false);
    m_insetTicker.reset(new BytesTicker);
    m_insetTicker->setTickCount(3);
    m_inset->axis(QCPAxis::atLeft)->setTicker(m_insetTicker);
    m_insetKeyTicker.reset(new QCPAxisTickerText); // no ticks: the bar is named under the axis, clear of "0 B"
    m_inset->axis(QCPAxis::atBottom)->setTicker(m_insetKeyTicker);
    m_inset->axis(QCPAxis::atBottom)->setTickLabels(false);
    m_inset->axis(QCPAxis::atBottom)->setTicks(false);
    // On two lines: at F5 on a 1024 px projector one line was wider than the inset and ran off the chart.
    m_inset->axis(QCPAxis::atBottom)->setLabel(tr("per GPU,\nzoomed"));
    m_inset->setMinimumMargins(QMargins(0, 15, 4, 0)); // no axis on the right: QCustomPlot's 15 px there cost the bar
    m_inset->axis(QCPAxis::atBottom)->setRange(-0.7, 0.7);
    axisRect()->insetLayout()->addElement(m_inset, QRectF(0.70, 0.04, 0.28, 0.44));
    m_insetBars = addSegmentBars(m_inset->axis(QCPAxis::atBottom), m_inset->axis(QCPAxis::atLeft), kBarWidth);
    for (QCPBars* b : m_insetBars) {
        b->setLayer(QStringLiteral("inset"));
        b->setStackingGap(0);
        b->setAntialiased(false);
    }
    m_insetCapacity = new QCPItemLine(this);
    m_insetCapacity->setLayer(QStringLiteral("inset"));
    m_insetCapacity->setClipAxisRect(m_inset);
    for (QCPItemPosition* p : {m_insetCapacity->start, m_insetCapacity->end})
        p->setAxes(m_inset->axis(QCPAxis::atBottom), m_inset->axis(QCPAxis::atLeft));
    m_predictedText = new CachedTextItem(this);
    m_predictedText->position->setType(QCPItemPosition::ptPlotCoords);
    m_predictedText->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    m_predictedText->setClipToAxisRect(false);
    m_predictedText->setPadding(QMargins(2, 0, 2, 2));
    m_predictedText->setVisible(false);
    for (auto& t : m_totals) {
        t = new CachedTextItem(this);
        t->position->setType(QCPItemPosition::ptPlotCoords);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        t->setClipToAxisRect(false);
        t->setPadding(QMargins(0, 0, 0, 3));
        t->setVisible(false);
    }
    m_pinSeparator = new QCPItemStraightLine(this);
    m_pinSeparator->setVisible(false);
    m_capacityGaps = new QCPItemStraightLine(this); // made first: drawn under the dashes
    m_capacityLine = new QCPItemStraightLine(this);
    m_capacityText = new CachedTextItem(this);
    m_capacityText->position->setType(QCPItemPosition::ptAbsolute); // placed in pixels by placeTotals()
    m_capacityText->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    m_capacityText->setPadding(QMargins(4, 1, 4, 1));
    m_callout = new CachedTextItem(this);
    m_callout->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_callout->position->setCoords(0.02, 0.02);
    m_callout->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_callout->setTextAlignment(Qt::AlignLeft); // fitCallout() may put the value under its label
    m_callout->setPadding(QMargins(6, 2, 6, 2));
    m_callout->setVisible(false);

    showHoverText();
    setTheme(ChartTheme::fromPalette(palette()));
}

MemoryBarChart::~MemoryBarChart() = default;

void MemoryBarChart::setTheme(const ChartTheme& theme)
{
    m_theme = theme;
    theme.applyToPlot(this);
    m_title->setFont(theme.font(1.25, true));
    m_title->setTextColor(theme.foreground);
    xAxis->setTickLabelFont(theme.font(1.0));
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
    applyPens();
    m_callout->setFont(theme.font(2.2, true));
    m_callout->setColor(theme.foreground);
    QColor totalHalo = theme.background;
    totalHalo.setAlpha(200);
    for (CachedTextItem* t : m_totals) {
        t->setFont(theme.font(1.05, true)); // placeTotals() may shrink it to fit the bars
        t->setColor(theme.foreground);
        t->setBrush(totalHalo); // stays readable where it crosses the capacity line
    }
    m_capacityLine->setPen(QPen(theme.capacity, std::max(2.0, theme.fontPx / 7), Qt::DashLine));
    // The dashes' gaps in the background's colour: in the dark theme the capacity colour (0xff6b6b) on the optimizer
    // state's 0xe15759 was the same red, and where the line crossed that segment (the tour's 7B and 70B, F5 and
    // window) it was not there at all.
    m_capacityGaps->setPen(QPen(theme.background, std::max(2.0, theme.fontPx / 7), Qt::SolidLine));
    QColor measured = theme.foreground;
    measured.setAlpha(150);
    m_measuredBars->setBrush(QBrush(measured, Qt::BDiagPattern));
    m_measuredBars->setPen(QPen(theme.foreground, std::max(1.0, theme.fontPx / 9)));
    m_predictedMark->setPen(QPen(theme.foreground, std::max(2.0, theme.fontPx / 6)));
    m_inset->setBackground(QBrush(theme.background));
    m_insetPanel->setBrush(QBrush(theme.background));
    m_insetPanel->setPen(QPen(theme.grid, 1));
    for (QCPAxis* a : m_inset->axes()) {
        a->setBasePen(QPen(theme.foreground, 1));
        a->setTickPen(QPen(theme.foreground, 1));
        a->setTickLabelColor(theme.foreground);
        a->setTickLabelFont(theme.font(0.85));
        a->setLabelFont(theme.font(0.85));
        a->setLabelColor(theme.foreground);
        a->setLabelPadding(qRound(theme.fontPx * 0.2));
    }
    // Room for the bar (62% of the inner width), not QCustomPlot's 50 px: with the slide's tick labels the inset's
    // least width was ~120 px where a 1024 px projector's bar chart gives it 28% of ~280 px.
    m_inset->setMinimumSize(qRound(theme.fontPx * 1.6), 50);
    m_insetCapacity->setPen(QPen(theme.capacity, std::max(2.0, theme.fontPx / 7), Qt::DashLine));
    for (QCPBars* b : m_insetBars)
        b->setPen(QPen(theme.background, 1));
    m_predictedText->setFont(theme.font(0.9));
    m_predictedText->setColor(theme.foreground);
    m_predictedText->setBrush(totalHalo);
    m_pinSeparator->setPen(QPen(theme.grid, std::max(1.0, theme.fontPx / 10)));
    m_capacityText->setFont(theme.font(1.0, true));
    m_capacityText->setColor(theme.capacity);
    QColor halo = theme.background;
    halo.setAlpha(225);
    m_capacityText->setBrush(halo);
    m_legendRow->setMargins(QMargins(0, qRound(theme.fontPx * 0.3), 0, 0));
}

void MemoryBarChart::fitLabelsTo(int widthPx)
{
    m_fitWidth = widthPx;
    if (widthPx <= 0)
        return;
    if (m_columns.empty()) {
        legend->setWrap(m_theme.legendColumns(legend, widthPx, 5));
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        return;
    }
    // Before the first layout the slots are a guess (the plot minus the value labels on the left);
    // arrangeLabels() refits the titles to the slots as laid out.
    if (m_labelSlot < 0)
        applyColumnLabels((widthPx - m_theme.fontPx * 7) / static_cast<double>(m_columns.size()));
    if (m_titles.size() > 1) {
        const QString* shown = &m_titles.back();
        for (const QString& t : m_titles)
            if (m_theme.fitFactor(t, widthPx, 1.25, true) >= 1.25) {
                shown = &t;
                break;
            }
        if (m_title->text() != *shown)
            m_title->setText(*shown);
    }
    m_theme.fitHeader(legend, m_title, widthPx, 5);
}

bool MemoryBarChart::applyColumnLabels(double slotPx)
{
    QString key;
    for (const BarColumn& c : m_columns)
        key += c.label + QChar(0x1e);
    const int slot = std::max(1, qRound(slotPx));
    key += m_theme.font().key();
    if (slot == m_labelSlot && key == m_labelKey)
        return false;
    m_labelSlot = slot;
    m_labelKey = key;
    // A bar's name is never cut (issue 31, the tour at F5 on a 1024×768 projector: "Training pe…", the layout under
    // DeepSeek-V3's bars): each of its lines whole in a smaller type (to kSmallest), then broken once at a space,
    // then at every space it needs. The slide's fonts stop at 12 px, so there the breaks do the work; in the window
    // the type shrinks first, as before, so that the axis does not take the plot's height.
    constexpr double kSmallest = 0.55;
    const double room = slot * kTitleShare;
    QMap<double, QString> ticks;
    auto lay = [&](const QFont& f, int most) {
        bool whole = true;
        ticks.clear();
        for (size_t k = 0; k < m_columns.size(); ++k) {
            QStringList shown;
            for (const QString& line : m_columns[k].label.split(QLatin1Char('\n'))) {
                if (cachedTextWidth(f, line) <= room) {
                    shown << line;
                    continue;
                }
                const QStringList wrapped = wrapLines(line, f, qFloor(room), most);
                // Whole: nothing elided and no word broken inside (the lines give back its words).
                whole = whole && wrapped.join(QLatin1Char(' ')).simplified() == line.simplified();
                shown << wrapped;
            }
            ticks.insert(static_cast<double>(k), shown.join(QLatin1Char('\n')));
        }
        return whole;
    };
    QFont font;
    // Broken, the names may take at most a quarter of the chart's height: a narrow chart of many bars (the Peers dock
    // in the controls' column, 200 px) or a low one (F5 at 1024×768 with the film under the charts) keeps its plot,
    // and elides its names on one line as it did.
    auto tallest = [&] {
        qsizetype lines = 1;
        for (const QString& t : std::as_const(ticks))
            lines = std::max(lines, t.count(QLatin1Char('\n')) + 1);
        return lines;
    };
    qsizetype given = 1; // the lines the names come in
    for (const BarColumn& c : m_columns)
        given = std::max(given, c.label.count(QLatin1Char('\n')) + 1);
    // The type sizes tried, largest first: 1, 0.96, 0.96², … down to kSmallest. A smaller type never makes a name
    // less whole, so the largest that fits is found by halving the range (a handful of layouts, not one a size: the
    // Peers chart's names carry the gap to TrainMem's total and are laid out again on every slider step).
    std::vector<double> factors{1.0};
    while (factors.back() > kSmallest)
        factors.push_back(std::max(kSmallest, factors.back() * 0.96));
    auto fits = [&](size_t i, int most) {
        font = m_theme.font(factors[i]);
        return lay(font, most) &&
               (most == 1 || tallest() <= std::max<qsizetype>(given, height() / 4 / QFontMetrics(font).lineSpacing()));
    };
    std::optional<std::pair<size_t, int>> chosen; // the size and the lines a name may take
    for (const int most : {1, 2, 8}) {
        if (fits(0, most)) {
            chosen = {0, most};
            break;
        }
        size_t bad = 0, good = factors.size() - 1;
        if (!fits(good, most))
            continue;
        while (good - bad > 1) {
            const size_t mid = (bad + good) / 2;
            (fits(mid, most) ? good : bad) = mid;
        }
        chosen = {good, most};
        break;
    }
    font = m_theme.font(chosen ? factors[chosen->first] : kSmallest);
    lay(font, chosen ? chosen->second : 1);
    bool changed = false;
    // Only on change: a new font drops QCustomPlot's cached tick-label pixmaps.
    if (xAxis->tickLabelFont() != font) {
        xAxis->setTickLabelFont(font);
        changed = true;
    }
    if (m_keyTicker->ticks() != ticks) {
        m_keyTicker->setTicks(ticks);
        changed = true;
    }
    return changed;
}

bool MemoryBarChart::arrangeLabels()
{
    const QRect plot = axisRect()->rect();
    bool relayout = false;
    if (!m_columns.empty())
        relayout = applyColumnLabels(std::fabs(xAxis->coordToPixel(1) - xAxis->coordToPixel(0)));
    // The value axis' label, shortened where the plot is lower than it is long.
    relayout = fitValueAxisTitle(m_yLabels) || relayout;
    // Value ticks at least two and a half font heights apart: fewer on a low plot or at large fonts. Counted on the
    // axis rect's height less four font heights for the bars' names, not on the plot's own height: the names' lines
    // change that, their type follows the plot's width, which follows the ticks' labels, and the loop had two ends
    // (DeepSeek-V3's two tour steps, one axis, at F5 over three lines of narration: 9 ticks or 5 by the step before).
    const double span = axisRect()->outerRect().height() - m_theme.fontPx * 4;
    const int ticks = std::clamp(static_cast<int>(span / (m_theme.fontPx * 2.5)), 2, 6);
    QCPAxisTicker* ticker = m_log ? static_cast<QCPAxisTicker*>(m_logTicker.data()) : m_linearTicker.data();
    const int wanted = m_log ? std::min(ticks, m_units == UnitSystem::Decimal ? 8 : 6) : ticks;
    if (ticker->tickCount() != wanted) {
        ticker->setTickCount(wanted);
        relayout = true;
    }
    // Room above the tallest bar for its total (and the capacity label above the line): a share
    // of the plot that grows as the plot gets lower than the font is large.
    const int need = m_totals[0]->boxAt(QPointF(0, 0)).height() + qRound(m_theme.fontPx * 0.4);
    const double fraction =
        plot.height() > 0 ? std::clamp(need / static_cast<double>(plot.height()), 0.15 / 1.15, 0.5) : 0.15 / 1.15;
    // And above the totals, a tour step's number: its box, below its 2% inset, and a gap.
    fitCallout(plot.width());
    const double callout =
        plot.height() > 0
            ? std::clamp((calloutHeight(plot.width()) + m_theme.fontPx * 0.25) / plot.height() + 0.02, 0.0, 0.4)
            : 0.2;
    if (std::fabs(fraction - m_headFraction) > 1e-6 ||
        (m_callout->visible() && std::fabs(callout - m_calloutFraction) > 1e-6)) {
        m_headFraction = fraction;
        m_calloutFraction = callout;
        rebuildRanges();
        relayout = true;
    }
    if (insetWanted() != m_inset->visible()) { // the plot's height decides too
        updateInset();
        relayout = true;
    }
    relayout = placeInset() || relayout; // its margins are known now
    if (!relayout)
        placeTotals();
    return relayout;
}

void MemoryBarChart::fitCallout(int plotWidth)
{
    if (!m_callout->visible() || !m_picture)
        return;
    const auto [font, text] = fittedCallout(QString::fromStdString(m_picture->callout), plotWidth);
    if (m_callout->font() != font)
        m_callout->setFont(font);
    if (m_callout->text() != text)
        m_callout->setText(text);
}

std::pair<QFont, QString> MemoryBarChart::fittedCallout(const QString& whole, int plotWidth) const
{
    // Seen cut off at F5: "Model state (16 B per parameter): 112 GB" at 2.2× the slide font is wider than a
    // 1920 px screen's half. Room: the plot less the callout's inset (2% each side) and its padding.
    const int room = qFloor(plotWidth * 0.96) - m_callout->padding().left() - m_callout->padding().right();
    constexpr double kLarge = 2.2, kOneLabelLine = 1.5, kSmallest = 1.1;
    QString text = whole;
    QFont font = m_theme.font(kLarge, true);
    if (cachedTextWidth(font, whole) > room) {
        // The value under its label ("label: value"): first in a smaller type (to kOneLabelLine), then with the
        // label on two lines (to kSmallest), then elided. The steps are small: fonts come in whole pixels.
        const qsizetype colon = whole.indexOf(QStringLiteral(": "));
        const QString label = colon > 0 ? whole.left(colon + 1) : whole;
        const QString value = colon > 0 ? whole.mid(colon + 2) : QString();
        bool elided = true;
        for (int labelLines = 1; labelLines <= 2 && elided; ++labelLines) {
            const double from = labelLines == 1 ? kLarge : kOneLabelLine,
                         to = labelLines == 1 ? kOneLabelLine : kSmallest;
            for (double factor = from; factor >= to - 1e-9 && elided; factor = std::max(to, factor * 0.96)) {
                font = m_theme.font(factor, true);
                QStringList lines = wrapLines(label, font, room, labelLines, &elided);
                if (!value.isEmpty()) {
                    elided = elided || cachedTextWidth(font, value) > room;
                    lines << QFontMetricsF(font).elidedText(value, Qt::ElideRight, room);
                }
                text = lines.join(QLatin1Char('\n'));
                if (factor <= to)
                    break;
            }
        }
    }
    return {font, text};
}

int MemoryBarChart::calloutHeight(int plotWidth) const
{
    // Measured as CachedTextItem measures its box (TextStamp::bounds), so the step's own callout gets the room it
    // takes; the others' the same way, so steps that share the axis get the same room (issue 31: DeepSeek-V3's two
    // steps compared on two axes, their callouts one and two lines high).
    auto height = [&](const QString& whole) {
        const auto [font, text] = fittedCallout(whole, plotWidth);
        return QFontMetrics(font)
                   .boundingRect(QRect(), Qt::TextDontClip | static_cast<int>(m_callout->textAlignment()), text)
                   .height() +
               m_callout->padding().top() + m_callout->padding().bottom();
    };
    int h = m_callout->boxAt(QPointF(0, 0)).height();
    if (m_picture && m_picture->axisCallouts.size() > 1) // a step alone measures nothing twice
        for (const std::string& c : m_picture->axisCallouts)
            h = std::max(h, height(QString::fromStdString(c)));
    return h;
}

void MemoryBarChart::placeTotals()
{
    const int n = static_cast<int>(m_columns.size());
    const QRect plot = axisRect()->rect();
    const double slot = n > 0 ? std::fabs(xAxis->coordToPixel(1) - xAxis->coordToPixel(0)) : plot.width();
    // One font for every total, shrunk (to 0.7) until the widest fits its slot. Measured from the
    // boxes the totals draw (their cached text bounds), so a step measures no text twice.
    auto widestBox = [&] {
        int widest = 1;
        for (int k = 0; k < n; ++k)
            widest = std::max(widest, m_totals[static_cast<size_t>(k)]->boxAt(QPointF(0, 0)).width());
        return widest;
    };
    const QFont base = m_theme.font(1.05, true);
    const double factor = m_totals[0]->font() == base ? 1.0 : m_totalFactor;
    const double fitted = std::clamp(factor * slot * kTotalShare / widestBox(), 0.7, 1.0);
    if (std::fabs(fitted - factor) > 0.02 || (fitted < 1.0 && widestBox() > slot * kTotalShare)) {
        m_totalFactor = fitted;
        const QFont font = m_theme.font(1.05 * fitted, true);
        for (CachedTextItem* t : m_totals)
            if (t->font() != font)
                t->setFont(font);
    }
    // What the labels must not meet: the header above the plot.
    std::vector<QRect> taken;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem* item = legend->item(i))
            taken.push_back(item->rect());
    taken.push_back(m_title->rect());
    if (m_callout->visible()) // and the tour step's number, top left
        taken.push_back(m_callout->pixelBox());
    if (m_inset->visible()) { // and the zoomed per-GPU bar, top right, on its panel
        const QRect panel = m_inset->outerRect().adjusted(-2, -2, 2, 2);
        m_insetPanel->topLeft->setCoords(panel.topLeft());
        m_insetPanel->bottomRight->setCoords(panel.bottomRight());
        taken.push_back(panel);
    }
    if (m_predictedText->visible()) { // and the prediction on a readout's bar: a total meeting it is lifted
        m_predictedText->setSkipped(false);
        taken.push_back(m_predictedText->pixelBox());
    }
    // Each total starts on top of its bar (a pass before may have lifted it, see below).
    std::vector<QRect> boxes(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
        CachedTextItem* t = m_totals[static_cast<size_t>(k)];
        t->position->setCoords(k, m_columns[static_cast<size_t>(k)].height());
        boxes[static_cast<size_t>(k)] = t->pixelBox();
    }
    // The capacity label at the right end of the line, or the left, above it or under it: the
    // first where no total is; where every spot has one, it goes right and that total yields.
    const double y = yAxis->coordToPixel(m_capacity);
    const int inset = qRound(m_theme.fontPx * 0.25);
    std::vector<LabelSpot> spots{{QPointF(plot.right() - inset, y), Qt::AlignRight | Qt::AlignBottom},
                                 {QPointF(plot.left() + inset, y), Qt::AlignLeft | Qt::AlignBottom},
                                 {QPointF(plot.right() - inset, y + 1), Qt::AlignRight | Qt::AlignTop},
                                 {QPointF(plot.left() + inset, y + 1), Qt::AlignLeft | Qt::AlignTop}};
    // Then in the gaps between bars, right to left, where the ends of the line are taken by bars.
    for (int k = n - 2; k >= 0; --k) {
        const double gapX = xAxis->coordToPixel(k + 0.5);
        spots.push_back({QPointF(gapX, y), Qt::AlignHCenter | Qt::AlignBottom});
        spots.push_back({QPointF(gapX, y + 1), Qt::AlignHCenter | Qt::AlignTop});
    }
    CachedTextItem* capacity = m_capacityText;
    // The bars themselves: the label never covers one (issue 31 §2: it sat on the 223 GB bar of a tour step).
    std::vector<QRect> barRects;
    for (int k = 0; k < n; ++k) {
        const double h = m_columns[static_cast<size_t>(k)].height();
        if (!(h > 0))
            continue;
        const double left = xAxis->coordToPixel(k - kBarWidth / 2), right = xAxis->coordToPixel(k + kBarWidth / 2);
        const double top = yAxis->coordToPixel(h), bottom = yAxis->coordToPixel(m_log ? 1.0 : 0.0);
        barRects.push_back(QRectF(QPointF(std::min(left, right), std::min(top, bottom)),
                                  QPointF(std::max(left, right), std::max(top, bottom)))
                               .toAlignedRect()
                               .intersected(plot));
    }
    std::vector<QRect> withTotals = taken;
    withTotals.insert(withTotals.end(), boxes.begin(), boxes.end());
    withTotals.insert(withTotals.end(), barRects.begin(), barRects.end());
    std::vector<QRect> withBars = taken;
    withBars.insert(withBars.end(), barRects.begin(), barRects.end());
    // The GPU's name goes before a label covers a bar: "80.0 GB" fits a gap "H100 · 80.0 GB" does not.
    const QString shortLabel = QString::fromStdString(formatBytes(m_capacity, m_units));
    // `text` at one of `at`, clear of `obstacles`, no smaller than `minScale`: taken when it fits.
    auto tryPlace = [&](const QString& text, const std::vector<LabelSpot>& at, const std::vector<QRect>& obstacles,
                        double minScale) {
        if (capacity->text() != text)
            capacity->setText(text);
        std::vector<QRect> free = obstacles;
        if (!placeLabel(capacity, at, plot, m_theme.font(1.0, true), free, minScale, m_theme.minFontPx))
            return false;
        taken.push_back(free.back());
        return true;
    };
    bool placed = false;
    for (const QString& text : {m_capacityLabel, shortLabel})
        if ((placed = tryPlace(text, spots, withTotals, 1.0) || tryPlace(text, spots, withBars, 0.8)))
            break;
    if (!placed) {
        // Every bar crosses the line and no gap holds even "80.0 GB" (the 70B on one H100 at a 1024-px slide): the
        // label becomes a key, a dashed stroke in the line's colour before the name, at the plot's right or left edge
        // as high as is free (a tour step's headline takes the top left).
        // Where the whole name is too wide for the room over the shortest bar (the 70B's step at F5 on a 1024×768
        // projector: the key ran over two bars), the key is the capacity alone; the bars' names say which GPU.
        std::vector<LabelSpot> corners;
        const double step = m_theme.fontPx * 1.5;
        for (double top = plot.top() + inset; top + step < y && corners.size() < 40; top += step) {
            corners.push_back({QPointF(plot.right() - inset, top), Qt::AlignRight | Qt::AlignTop});
            corners.push_back({QPointF(plot.left() + inset, top), Qt::AlignLeft | Qt::AlignTop});
        }
        for (const QString& name : {m_capacityLabel, shortLabel})
            if ((placed = tryPlace(QStringLiteral("\u254C\u254C ") + name, corners, withTotals, 0.8)))
                break;
    }
    if (!placed) {
        capacity->setText(m_capacityLabel);
        placeLabel(capacity, spots, plot, m_theme.font(1.0, true), taken, 0.8, m_theme.minFontPx);
    }
    // Totals by importance: the scenario's own per-GPU bar, a readout beside it, training, inference, then the pins.
    std::vector<int> order;
    auto measured = [&](int k) { return m_columns[static_cast<size_t>(k)].measured.has_value(); };
    for (int k : {2, -1, 1, 0})
        if (k < 0) {
            for (int j = 3; j < n; ++j)
                if (measured(j))
                    order.push_back(j);
        } else if (k < n) {
            order.push_back(k);
        }
    for (int k = 3; k < n; ++k)
        if (!measured(k))
            order.push_back(k);
    // A total that meets a label placed before it (a short bar's total on the capacity label) is
    // lifted just above what it meets, a few times at most; it yields only when that leaves the chart.
    for (int k : order) {
        CachedTextItem* t = m_totals[static_cast<size_t>(k)];
        QRect box = boxes[static_cast<size_t>(k)];
        for (int tries = 0; tries < 3 && meetsAny(box, taken); ++tries) {
            int top = box.top();
            for (const QRect& r : taken)
                if (r.intersects(box))
                    top = std::min(top, r.top());
            box.moveBottom(top - 1);
        }
        const bool fits = viewport().contains(box) && plot.top() <= box.bottom() && !meetsAny(box, taken);
        t->setSkipped(!fits);
        if (!fits)
            continue;
        const int lift = box.bottom() - boxes[static_cast<size_t>(k)].bottom();
        if (lift != 0)
            t->position->setCoords(k, yAxis->pixelToCoord(t->position->pixelPosition().y() + lift));
        taken.push_back(box);
    }
}

void MemoryBarChart::resizeEvent(QResizeEvent* e)
{
    m_fitWidth = 0;
    fitLabelsTo(e->size().width());
    m_fitWidth = 0;
    LivePlot::resizeEvent(e);
}

void MemoryBarChart::setTitle(const QString& title)
{
    setTitles({title});
}

void MemoryBarChart::setTitles(const QStringList& titles)
{
    m_titles = titles;
    if (!titles.isEmpty())
        m_title->setText(titles.front());
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
}

void MemoryBarChart::setUnits(UnitSystem units)
{
    m_units = units;
    m_linearTicker->units = units;
    m_logTicker->units = units;
    // Binary units: powers of two, so ticks land on round GiB/TiB.
    m_logTicker->setLogBase(units == UnitSystem::Decimal ? 10 : 2);
    m_logTicker->setTickCount(units == UnitSystem::Decimal ? 8 : 6);
    setColumns(std::vector<BarColumn>(m_columns), m_capacity, m_capacityLabel);
}

void MemoryBarChart::setAxisScale(AxisScale scale)
{
    m_scale = scale;
    rebuildRanges();
}

void MemoryBarChart::setPicture(const std::optional<TourPicture>& picture)
{
    m_picture = picture;
    m_callout->setVisible(picture.has_value() && !picture->callout.empty());
    if (picture)
        m_callout->setText(QString::fromStdString(picture->callout));
    applyPens();
    rebuildRanges();
}

void MemoryBarChart::applyPens()
{
    // The segments a tour step adds are outlined in the text colour; the others keep a hairline
    // in the background colour that separates the stacked segments.
    for (int i = 0; i < kSegmentCount; ++i) {
        const auto k = static_cast<SegmentKind>(i);
        const bool added =
            m_picture && std::find(m_picture->added.begin(), m_picture->added.end(), k) != m_picture->added.end();
        m_bars[static_cast<size_t>(i)]->setPen(added ? QPen(m_theme.foreground, std::max(2.0, m_theme.fontPx / 5))
                                                     : QPen(m_theme.background, 1));
    }
}

void MemoryBarChart::setColumns(const std::vector<BarColumn>& columns, double capacity, const QString& capacityLabel)
{
    m_columns.assign(columns.begin(), columns.begin() + std::min<ptrdiff_t>(ptrdiff_t(columns.size()), kMaxColumns));
    if (m_picture) // a tour step's picture: the segments it has not revealed yet are not drawn or counted
        for (BarColumn& c : m_columns)
            for (SegmentKind k : kAllSegmentKinds)
                if (std::find(m_picture->revealed.begin(), m_picture->revealed.end(), k) == m_picture->revealed.end())
                    setSegmentBytes(c.segments, k, 0);
    m_capacity = capacity;
    m_capacityLabel = capacityLabel;
    const int n = static_cast<int>(m_columns.size());

    QVector<double> keys(n);
    for (int k = 0; k < n; ++k)
        keys[k] = k;
    std::array<bool, kSegmentCount> used{};
    for (int i = 0; i < kSegmentCount; ++i) {
        QVector<double> values(n);
        for (int k = 0; k < n; ++k) {
            values[k] = segmentBytes(m_columns[static_cast<size_t>(k)].segments, static_cast<SegmentKind>(i));
            if (m_columns[static_cast<size_t>(k)].measured)
                values[k] = 0;
            used[static_cast<size_t>(i)] = used[static_cast<size_t>(i)] || values[k] > 0;
        }
        m_bars[static_cast<size_t>(i)]->setData(keys, values, true);
    }
    QVector<double> measuredKeys, measuredValues;
    m_predictedMark->setVisible(false);
    for (int k = 0; k < n; ++k)
        if (const BarColumn& c = m_columns[static_cast<size_t>(k)]; c.measured) {
            measuredKeys << k;
            measuredValues << *c.measured;
            m_predictedMark->start->setCoords(k - kBarWidth * 0.62, c.predicted);
            m_predictedMark->end->setCoords(k + kBarWidth * 0.62, c.predicted);
            m_predictedMark->setVisible(c.predicted > 0);
            m_predictedText->setText(tr("TrainMem %1").arg(QString::fromStdString(formatBytes(c.predicted, m_units))));
            m_predictedText->position->setCoords(k, c.predicted);
        }
    m_predictedText->setVisible(m_predictedMark->visible());
    m_measuredBars->setData(measuredKeys, measuredValues, true);
    m_measuredBars->setVisible(!measuredKeys.isEmpty());
    // The legend lists the segments some bar has, in stacking order (top of the stack last). With
    // LoRA adapters the weights are the frozen base (core/memory/terms.cpp names it the same way).
    bool legendChanged = legend->itemCount() != static_cast<int>(std::count(used.begin(), used.end(), true));
    QCPBars* weights = m_bars[static_cast<size_t>(SegmentKind::Weights)];
    const QString weightsName = used[static_cast<size_t>(SegmentKind::Adapters)]
                                    ? QCoreApplication::translate("trainmem", termInfo(SegmentKind::Weights).frozenName)
                                    : segmentName(SegmentKind::Weights);
    if (weights->name() != weightsName) {
        weights->setName(weightsName);
        legendChanged = true;
    }
    for (int i = 0; i < kSegmentCount && !legendChanged; ++i)
        legendChanged = used[static_cast<size_t>(i)] != m_bars[static_cast<size_t>(i)]->visible();
    if (legendChanged) {
        legend->clearItems();
        for (int i = 0; i < kSegmentCount; ++i) {
            m_bars[static_cast<size_t>(i)]->setVisible(used[static_cast<size_t>(i)]);
            if (used[static_cast<size_t>(i)])
                addCachedLegendItem(legend, m_bars[static_cast<size_t>(i)]);
        }
    }

    // The titles for the slots of the last layout (arrangeLabels() refits them if those changed).
    if (m_labelSlot >= 0)
        applyColumnLabels(m_labelSlot);
    for (int k = 0; k < kMaxColumns; ++k) {
        QCPItemText* t = m_totals[static_cast<size_t>(k)];
        t->setVisible(k < n);
        if (k < n) {
            const double total = m_columns[static_cast<size_t>(k)].height();
            t->setText(QString::fromStdString(formatBytes(total, m_units)));
            t->position->setCoords(k, total);
        }
    }
    m_capacityText->setText(capacityLabel);
    fitLabelsTo(m_fitWidth > 0 ? m_fitWidth : width());
    const auto firstPin = std::find_if(m_columns.begin(), m_columns.end(), [](const BarColumn& c) { return c.pinned; });
    m_pinSeparator->setVisible(firstPin != m_columns.begin() && firstPin != m_columns.end());
    const double sepX = static_cast<double>(firstPin - m_columns.begin()) - 0.5;
    m_pinSeparator->point1->setCoords(sepX, 0);
    m_pinSeparator->point2->setCoords(sepX, 1);
    rebuildRanges();
}

void MemoryBarChart::rebuildRanges()
{
    // A tour step that shares its axis with others reaches their tallest bar too.
    double top = std::max(m_capacity, m_picture ? m_picture->axisTop : 0.0), smallest = m_capacity;
    for (const BarColumn& c : m_columns) {
        const double t = std::max(c.height(), c.predicted);
        top = std::max(top, t);
        if (t > 0)
            smallest = std::min(smallest, t);
    }
    const bool log = m_scale == AxisScale::Logarithmic;
    m_yLabels = log ? QStringList{tr("Memory per GPU (log: totals, not segment shares)"), tr("Memory per GPU (log)"),
                                  tr("Log scale")}
                    : QStringList{tr("Memory per GPU"), tr("Memory")};
    if (!m_yLabels.contains(yAxis->label())) // only on a change: a new label re-lays out the axis
        yAxis->setLabel(m_yLabels.front());
    m_log = log;
    // The top of the axis leaves m_headFraction of the plot above the tallest bar (arrangeLabels()
    // sizes it for the totals' font): linearly top·(1 + h), on the log axis the same share of decades.
    const double head = m_headFraction / (1 - m_headFraction);
    if (log) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(m_logTicker);
        const double lower = std::pow(10.0, std::floor(std::log10(std::max(smallest, 1.0) / 3)));
        yAxis->setRange(lower, top * std::max(4.0, std::pow(top / lower, head)));
    } else {
        yAxis->setScaleType(QCPAxis::stLinear);
        yAxis->setTicker(m_linearTicker);
        // A tour step's number sits top left, above the totals: m_calloutFraction more of the plot above the
        // tallest bar, so that the share above it is f = head fraction + callout fraction, top·(1 + head + x)
        // with f·(1 + head + x) = head + x.
        double extra = 0;
        if (m_callout->visible()) {
            const double f = std::min(0.8, m_headFraction + m_calloutFraction);
            extra = std::max(0.0, (f * (1 + head) - head) / (1 - f));
        }
        yAxis->setRange(0, top * (1 + head + extra));
    }
    // On a log axis the stack starts at 1 byte (below the visible range) instead of at 0.
    m_bars[0]->setBaseValue(log ? 1.0 : 0.0);
    xAxis->setRange(-0.6, std::max<double>(1, static_cast<double>(m_columns.size())) - 0.4);
    updateInset();
    m_capacityLine->point1->setCoords(-1, m_capacity);
    m_capacityLine->point2->setCoords(1, m_capacity);
    m_capacityGaps->point1->setCoords(-1, m_capacity);
    m_capacityGaps->point2->setCoords(1, m_capacity);
    m_capacityText->setVisible(!m_capacityLabel.isEmpty());
}

bool MemoryBarChart::insetWanted() const
{
    // The scenario's own per-GPU bar (column 2), when on the linear axis it would be a sliver: under kInsetShare of
    // the axis as set (a tour step's number above the bars included), or lower than kInsetPixels on the plot as last
    // laid out, where its segments cannot be told apart (the tour's step 4 at 1024 × 768: 58.5 GB on a 2.6 TB axis,
    // under 4 px, drawn as nothing).
    const bool perGpu = m_columns.size() > 2 && !m_columns[2].measured && !m_columns[2].pinned;
    const double total = perGpu ? m_columns[2].segments.total() : 0;
    const double upper = yAxis->range().upper;
    if (m_log || total <= 0 || upper <= 0)
        return false;
    const int plot = axisRect()->rect().height();
    return total < kInsetShare * upper || (plot > 0 && total / upper * plot < kInsetPixels);
}

void MemoryBarChart::updateInset()
{
    const double total = m_columns.size() > 2 ? m_columns[2].segments.total() : 0;
    const bool shown = insetWanted();
    m_inset->setVisible(shown);
    for (QCPAxis* a : {m_inset->axis(QCPAxis::atLeft), m_inset->axis(QCPAxis::atBottom)})
        a->setVisible(shown);
    m_insetCapacity->setVisible(shown);
    m_insetPanel->setVisible(shown);
    for (int i = 0; i < kSegmentCount; ++i) {
        QCPBars* b = m_insetBars[static_cast<size_t>(i)];
        b->setVisible(shown);
        if (shown)
            b->setData({0.0}, {segmentBytes(m_columns[2].segments, static_cast<SegmentKind>(i))}, true);
    }
    if (!shown)
        return;
    m_insetTicker->units = m_units;
    placeInset();
    m_inset->axis(QCPAxis::atLeft)->setRange(0, std::max(total, m_capacity) * 1.15);
    m_insetCapacity->start->setCoords(-0.7, m_capacity);
    m_insetCapacity->end->setCoords(0.7, m_capacity);
}

bool MemoryBarChart::placeInset()
{
    if (!m_inset->visible())
        return false;
    // Under a tour step's number (top left, m_calloutFraction of the plot), which can run wide.
    const double top = m_callout->visible() ? std::min(0.5, m_calloutFraction + 0.03) : 0.04;
    // 28% of the plot at the right, or as much as the inset needs (its margins as last laid out and its least inner
    // width), still ending 2% short of the plot's right edge: QCustomPlot widens an inset to its least width
    // rightwards, off the chart (issue 31 §2, F5 on a 1024 × 768 projector).
    const int plotWidth = axisRect()->rect().width();
    const QMargins m = m_inset->margins();
    const double least =
        plotWidth > 0 ? (m_inset->minimumSize().width() + m.left() + m.right() + 1) / static_cast<double>(plotWidth)
                      : 0;
    const double width = std::clamp(least, 0.28, 0.5);
    const QRectF place(0.98 - width, top, width, std::min(0.44, 0.96 - top));
    QCPLayoutInset* layout = axisRect()->insetLayout();
    for (int i = 0; i < layout->elementCount(); ++i)
        if (const QRectF now = layout->insetRect(i);
            layout->elementAt(i) == m_inset &&
            (std::fabs(now.left() - place.left()) > 1e-3 || std::fabs(now.top() - place.top()) > 1e-3 ||
             std::fabs(now.width() - place.width()) > 1e-3 || std::fabs(now.height() - place.height()) > 1e-3)) {
            layout->setInsetRect(i, place);
            return true;
        }
    return false;
}

int MemoryBarChart::columnAt(const QPointF& pos) const
{
    return barIndexAt(this, pos, static_cast<int>(m_columns.size()), kBarWidth);
}

QString MemoryBarChart::hoverText(const QPointF& pos) const
{
    const int k = columnAt(pos);
    if (k < 0)
        return {};
    const BarColumn& c = m_columns[static_cast<size_t>(k)];
    const double value = yAxis->pixelToCoord(pos.y());
    if (c.measured)
        return value <= std::max(*c.measured, c.predicted) * (m_log ? 3 : 1.1) ? c.hover.toHtmlEscaped() : QString();
    const double total = c.segments.total();
    const QLocale locale;
    auto bytes = [&](double b) { return QString::fromStdString(formatBytes(b, m_units)); };
    QString title = c.label;
    title.replace(QLatin1Char('\n'), QStringLiteral(" · "));
    double base = 0;
    for (int i = 0; i < kSegmentCount; ++i) {
        const auto seg = static_cast<SegmentKind>(i);
        const double v = segmentBytes(c.segments, seg);
        if (v > 0 && value >= base && value <= base + v) {
            return tr("<b>%1</b><br><b>%2: %3</b> (%4% of %5)<br>%6 bytes<br><i>%7</i>")
                .arg(title.toHtmlEscaped(), segmentName(seg), bytes(v))
                .arg(total > 0 ? 100 * v / total : 0, 0, 'f', 1)
                .arg(bytes(total), locale.toString(static_cast<qlonglong>(std::llround(v))), segmentExplanation(seg));
        }
        base += v;
    }
    if (value > total && value < total * (m_log ? 3 : 1.1))
        return tr("<b>%1</b><br>Total: %2<br>%3 bytes")
            .arg(title.toHtmlEscaped(), bytes(total), locale.toString(static_cast<qlonglong>(std::llround(total))));
    return {};
}

void MemoryBarChart::contextMenuEvent(QContextMenuEvent* e)
{
    const int k = columnAt(e->pos());
    const bool anyPinned = std::any_of(m_columns.begin(), m_columns.end(), [](const BarColumn& c) { return c.pinned; });
    if (!anyPinned)
        return;
    QMenu menu(this);
    if (k >= 0 && m_columns[static_cast<size_t>(k)].pinned) {
        int pinIndex = 0;
        for (int i = 0; i < k; ++i)
            pinIndex += m_columns[static_cast<size_t>(i)].pinned ? 1 : 0;
        QString label = m_columns[static_cast<size_t>(k)].label;
        label.replace(QLatin1Char('\n'), QLatin1Char(' '));
        menu.addAction(tr("Unpin “%1”").arg(label), this, [this, pinIndex] { Q_EMIT unpinRequested(pinIndex); });
    }
    menu.addAction(tr("Clear all pinned bars"), this, &MemoryBarChart::clearPinsRequested);
    menu.exec(e->globalPos());
}

} // namespace trainmem
