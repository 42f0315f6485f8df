#include "bytestickers.h"

#include <QRegularExpression>

#include <cmath>

namespace trainmem {

QString tickBytes(double bytes, UnitSystem units)
{
    QString s = QString::fromStdString(formatBytes(bytes, units));
    static const QRegularExpression trailing(QStringLiteral("(\\.\\d*?)0+ "));
    s.replace(trailing, QStringLiteral("\\1 "));
    s.replace(QStringLiteral(". "), QStringLiteral(" "));
    return s;
}

double BytesTicker::getTickStep(const QCPRange& range)
{
    const double base = units == UnitSystem::Decimal ? 1000.0 : 1024.0;
    double unit = 1;
    while (range.size() / unit >= base && unit < 1e21)
        unit *= base;
    const double exact = range.size() / unit / (mTickCount + 1e-10);
    return cleanMantissa(exact) * unit;
}

QString BytesTicker::getTickLabel(double tick, const QLocale&, QChar, int)
{
    // Ticks near zero can come out as ±1e-7 from floating-point stepping.
    return tickBytes(std::fabs(tick) < 1e-3 ? 0.0 : tick, units);
}

QString LogBytesTicker::getTickLabel(double tick, const QLocale&, QChar, int)
{
    return tickBytes(tick, units);
}

QVector<double> LogBytesTicker::createTickVector(double tickStep, const QCPRange& range)
{
    const bool decimal = logBase() == 10.0;
    if (!decimal || !(range.lower > 0 && range.upper > range.lower) || std::log10(range.upper / range.lower) >= 1.6)
        return QCPAxisTickerLog::createTickVector(tickStep, range);
    QVector<double> ticks;
    // From the decade below the range to the one above it, so the ticks just outside are there for the sub-ticks.
    for (double decade = std::pow(10.0, std::floor(std::log10(range.lower)) - 1); decade <= range.upper * 10;
         decade *= 10)
        for (double m : {1.0, 2.0, 5.0})
            ticks.push_back(m * decade);
    return ticks;
}

} // namespace trainmem
