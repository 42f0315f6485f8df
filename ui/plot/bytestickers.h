#pragma once
// Axis tickers that label bytes with the core's formatter (units live in one place: core/base/units.h).

#include "units.h"

#include <qcustomplot.h>

namespace trainmem {

/// "2.50 GB" → "2.5 GB": tick labels need no trailing zeros.
QString tickBytes(double bytes, UnitSystem units);

/// Linear bytes axis: steps are 1, 2, 2.5 or 5 times a power of ten of the unit (GB or GiB),
/// so binary units get round GiB ticks too.
class BytesTicker : public QCPAxisTicker
{
public:
    UnitSystem units = UnitSystem::Decimal;

protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

/// Logarithmic bytes axis, one tick per decade (1 GB, 10 GB, 100 GB, 1 TB …).
class LogBytesTicker : public QCPAxisTickerLog
{
public:
    UnitSystem units = UnitSystem::Decimal;

protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
    /// Below 1.6 decades QCPAxisTickerLog (qcustomplot 2.1.0) falls back to evenly spaced linear ticks, which a log
    /// axis crowds together at the top (500, 600 and 700 GB 10 px apart on a 341 px chart). Decimal units take the 1,
    /// 2 and 5 of each decade there instead: 0.3 to 0.4 of a decade apart.
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
};

} // namespace trainmem
