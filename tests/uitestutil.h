#pragma once
// Helpers shared by the UI suites: presets by id, and reading values back from QCustomPlot objects.

#include "coreapi.h"
#include "liveplot.h"
#include "presetlibrary.h"

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

} // namespace trainmem::uitest
