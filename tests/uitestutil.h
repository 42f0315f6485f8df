#pragma once
// Helpers shared by the UI suites: presets by id, and reading values back from QCustomPlot objects.

#include "cachedtext.h"
#include "chartpanel.h"
#include "coreapi.h"
#include "liveplot.h"
#include "mainwindow.h"
#include "presetlibrary.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>

#include <qcustomplot.h>

#include <QtTest>

namespace trainmem::uitest {

inline Scenario preset(const QString& id)
{
    const PresetEntry* e = PresetLibrary::instance().find(id);
    if (!e)
        qFatal("preset %s missing from the resources", qPrintable(id));
    return e->scenario;
}

inline const GpuSpec& gpuOf(const Scenario& s)
{
    return PresetLibrary::instance().gpuFor(s);
}

/// The value of `bars` at `key`; NaN when the key is absent.
inline double barValue(const QCPBars* bars, double key)
{
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        if (it->key == key)
            return it->value;
    return std::numeric_limits<double>::quiet_NaN();
}

inline std::vector<double> graphValues(const QCPGraph* g)
{
    std::vector<double> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        out.push_back(it->value);
    return out;
}

inline std::vector<double> graphKeys(const QCPGraph* g)
{
    std::vector<double> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        out.push_back(it->key);
    return out;
}

/// Distinct colours in an image, counted on a grid of samples (enough to tell a chart from a blank).
inline int distinctColours(const QImage& image)
{
    QSet<QRgb> seen;
    const int step = std::max(1, std::min(image.width(), image.height()) / 200);
    for (int y = 0; y < image.height(); y += step)
        for (int x = 0; x < image.width(); x += step)
            seen.insert(image.pixel(x, y));
    return static_cast<int>(seen.size());
}

/// A font's size in pixels (a point size at 96 dpi).
inline double fontPx(const QFont& f)
{
    return f.pixelSize() > 0 ? f.pixelSize() : f.pointSizeF() * 96.0 / 72.0;
}

/// The texts a chart draws in a font smaller than `px` ("legend 10 px"); empty when none. Looks at the legend and
/// its entries, the visible axes' tick labels and titles, the text elements of the layout and the text items.
inline QStringList textsSmallerThan(const QCustomPlot* plot, double px)
{
    QStringList out;
    auto check = [&](const QString& what, const QFont& f) {
        if (fontPx(f) + 0.01 < px)
            out << QStringLiteral("%1 %2 px").arg(what).arg(fontPx(f));
    };
    if (plot->legend && plot->legend->visible()) {
        for (int i = 0; i < plot->legend->itemCount(); ++i)
            if (plot->legend->item(i) && plot->legend->item(i)->visible())
                check(QStringLiteral("legend entry %1").arg(i), plot->legend->item(i)->font());
    }
    for (QCPAxisRect* r : plot->axisRects())
        for (QCPAxis* a : r->axes())
            if (a->visible()) {
                if (a->tickLabels())
                    check(QStringLiteral("tick labels"), a->tickLabelFont());
                if (!a->label().isEmpty())
                    check(a->label(), a->labelFont());
            }
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
        if (auto* t = e ? qobject_cast<QCPTextElement*>(e) : nullptr; t && t->visible() && !t->text().isEmpty())
            check(t->text(), t->font());
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->visible() && !t->text().isEmpty()) {
            if (auto* c = qobject_cast<CachedTextItem*>(t); c && c->skipped())
                continue; // not drawn
            check(t->text(), t->font());
        }
    return out;
}

/// What is wrong with a chart's labels: one outside its bounds, or two that meet; empty when none.
inline QStringList labelProblems(const LivePlot* chart)
{
    QStringList problems;
    const ChartLabels labels = chart->labelRects();
    auto show = [](const ChartLabel& l) {
        QString t = l.text;
        t.replace(QLatin1Char('\n'), QLatin1Char('|'));
        return QStringLiteral("“%1” (%2,%3 %4×%5)")
            .arg(t)
            .arg(l.rect.x())
            .arg(l.rect.y())
            .arg(l.rect.width())
            .arg(l.rect.height());
    };
    for (size_t i = 0; i < labels.size(); ++i) {
        if (!labels[i].bounds.contains(labels[i].rect))
            problems << QStringLiteral("%1 outside %2,%3 %4×%5")
                            .arg(show(labels[i]))
                            .arg(labels[i].bounds.x())
                            .arg(labels[i].bounds.y())
                            .arg(labels[i].bounds.width())
                            .arg(labels[i].bounds.height());
        for (size_t j = i + 1; j < labels.size(); ++j)
            if (labels[i].rect.intersects(labels[j].rect))
                problems << QStringLiteral("%1 meets %2").arg(show(labels[i]), show(labels[j]));
    }
    return problems;
}

/// Shows `w` as a user gets it, errors to the banner only. Check QTest::currentTestFailed() after.
inline void showWindow(MainWindow& w)
{
    w.setModalErrors(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

/// Opens the panel dock `name` of a shown window from its View menu action, checking what every panel dock
/// promises: hidden at first with nothing computed, listed in a menu, computed once when shown. `*dock` and
/// `*panel` are set; check QTest::currentTestFailed() after.
template <class Panel> void openPanelDock(MainWindow& w, const QString& name, QDockWidget** dock, Panel** panel)
{
    *dock = w.findChild<QDockWidget*>(name);
    QVERIFY(*dock);
    QVERIFY((*dock)->isHidden());
    *panel = (*dock)->findChild<Panel*>();
    QVERIFY(*panel);
    QCOMPARE((*panel)->recomputeCount(), 0); // hidden: nothing computed
    bool inMenu = false;
    for (QAction* m : w.menuBar()->actions())
        if (m->menu())
            inMenu = inMenu || m->menu()->actions().contains((*dock)->toggleViewAction());
    QVERIFY(inMenu);
    (*dock)->toggleViewAction()->trigger();
    QVERIFY((*dock)->isVisible());
    QCOMPARE((*panel)->recomputeCount(), 1);
}

} // namespace trainmem::uitest
