#include "chartpanel.h"

#include "charttheme.h"
#include "layoutfence.h"
#include "liveplot.h"

#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>

namespace trainmem {

ChartPanel::ChartPanel(const QString& objectName, const QString& summaryName, QWidget* parent) : QWidget(parent)
{
    setObjectName(objectName);
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName(summaryName);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The sentence changes on every step of a drag: fenced, so that only a change in its line count re-lays out
    // the window (a bare QLabel re-laid out the main window on every step: 4.4 ms a step with the film shown).
    layout->addWidget(new LayoutFence(m_summary, this));
}

void ChartPanel::setChart(LivePlot* chart, int minimumHeight)
{
    m_chart = chart;
    chart->setMinimumHeight(minimumHeight);
    static_cast<QVBoxLayout*>(layout())->addWidget(chart, 1);
}

void ChartPanel::invalidate()
{
    m_dirty = true;
    if (isVisible())
        compute();
}

void ChartPanel::compute()
{
    m_dirty = false;
    ++m_recomputes;
    recompute();
    if (m_chart)
        m_chart->refresh();
}

void ChartPanel::setFontScale(double scale)
{
    m_fontScale = scale;
    QFont f = font();
    f.setPointSizeF(QFont().pointSizeF() * scale);
    m_summary->setFont(f);
    retheme();
}

void ChartPanel::retheme()
{
    applyTheme(ChartTheme::fromPalette(palette(), m_fontScale));
    if (m_chart)
        m_chart->refresh();
}

void ChartPanel::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (m_dirty)
        compute();
}

void ChartPanel::changeEvent(QEvent* e)
{
    if (e->type() == QEvent::PaletteChange) // dark mode: the charts paint their own backgrounds
        retheme();
    QWidget::changeEvent(e);
}

} // namespace trainmem
