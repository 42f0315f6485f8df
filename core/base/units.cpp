#include "units.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace trainmem {
namespace {

std::string threeDigits(double v, const char* unit)
{
    char buf[64];
    const double a = std::fabs(v);
    if (a >= 100 || a == 0)
        std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
    else if (a >= 10)
        std::snprintf(buf, sizeof buf, "%.1f %s", v, unit);
    else
        std::snprintf(buf, sizeof buf, "%.2f %s", v, unit);
    return buf;
}

std::optional<int64_t> parseScaled(const std::string& text, bool binaryContext)
{
    if (text.empty() || text.size() > 64)
        return std::nullopt;
    // Spaces around the number are dropped; inside it they are refused ("8 8" is not 88). Digit groups may be
    // separated by ',' or '_' ("8,192", "1_000").
    const auto isSpace = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    const auto from = std::find_if_not(text.begin(), text.end(), isSpace);
    const auto to = std::find_if_not(text.rbegin(), text.rend(), isSpace).base();
    std::string s;
    for (auto it = from; it < to; ++it) {
        if (isSpace(*it))
            return std::nullopt;
        if (*it != '_' && *it != ',')
            s += *it;
    }
    if (s.empty())
        return std::nullopt;
    double scale = 1;
    const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(s.back())));
    if (std::isalpha(static_cast<unsigned char>(last)) && last != 'e') {
        switch (last) {
        case 'k':
            scale = binaryContext ? 1024.0 : 1e3;
            break;
        case 'm':
            scale = binaryContext ? 1048576.0 : 1e6;
            break;
        case 'b':
        case 'g':
            scale = 1e9;
            break;
        case 't':
            scale = 1e12;
            break;
        default:
            return std::nullopt;
        }
        s.pop_back();
    }
    // Decimal digits, a fraction and an exponent only: strtod would also take "0x10" (16), "inf" and "nan".
    if (std::any_of(s.begin(), s.end(), [](char c) {
            return !std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' && c != '+' &&
                   c != '-';
        }))
        return std::nullopt;
    if (s.empty())
        return std::nullopt;
    const char* begin = s.c_str();
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end != begin + s.size() || !std::isfinite(v) || v < 0)
        return std::nullopt;
    const double r = v * scale;
    if (!std::isfinite(r) || r > 9.0e18)
        return std::nullopt;
    const double rounded = std::round(r);
    if (std::fabs(rounded - r) > 1e-6 * std::max(1.0, r))
        return std::nullopt; // "1.5" parameters is not a count
    if (rounded == 0 && r != 0)
        return std::nullopt; // "1e-9" is not 0
    return static_cast<int64_t>(rounded);
}

} // namespace

std::string formatBytes(double bytes, UnitSystem units)
{
    if (!std::isfinite(bytes))
        return "—";
    const double base = units == UnitSystem::Decimal ? 1000.0 : 1024.0;
    static constexpr std::array<const char*, 7> dec{"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    static constexpr std::array<const char*, 7> bin{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const auto& names = units == UnitSystem::Decimal ? dec : bin;
    double v = bytes;
    size_t i = 0;
    while (std::fabs(v) >= base * 0.9995 && i + 1 < names.size()) {
        v /= base;
        ++i;
    }
    if (i == 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f B", v);
        return buf;
    }
    return threeDigits(v, names[i]);
}

std::string formatCount(double count)
{
    if (!std::isfinite(count))
        return "—";
    struct Step {
        double scale;
        const char* suffix;
    };
    static constexpr std::array<Step, 4> steps{{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}}};
    for (const auto& st : steps) {
        if (std::fabs(count) >= st.scale * 0.9995) {
            const double v = count / st.scale;
            char buf[32];
            if (v >= 100 || std::fabs(v - std::round(v)) < 0.005)
                std::snprintf(buf, sizeof buf, "%.0f%s", v, st.suffix);
            else if (v >= 10)
                std::snprintf(buf, sizeof buf, "%.1f%s", v, st.suffix);
            else
                std::snprintf(buf, sizeof buf, "%.2g%s", v, st.suffix);
            return buf;
        }
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", count);
    return buf;
}

std::string formatCountPrecise(double count)
{
    if (!std::isfinite(count))
        return "—";
    struct Step {
        double scale;
        const char* suffix;
    };
    static constexpr std::array<Step, 4> steps{{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}}};
    char buf[48];
    for (const auto& st : steps)
        if (std::fabs(count) >= st.scale) {
            std::snprintf(buf, sizeof buf, "%.3g%s", count / st.scale, st.suffix);
            return buf;
        }
    std::snprintf(buf, sizeof buf, "%.3g", count);
    return buf;
}

std::string groupDigits(unsigned long long n)
{
    const std::string digits = std::to_string(n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string formatNumber(double v)
{
    // Small integers plainly, large ones grouped by thousands, fractions with four significant digits.
    char buf[64];
    if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e18) {
        const long long n = std::llround(v);
        if (std::llabs(n) < 1'000'000) {
            std::snprintf(buf, sizeof buf, "%lld", n);
            return buf;
        }
        return (n < 0 ? "-" : "") + groupDigits(static_cast<unsigned long long>(std::llabs(n)));
    }
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string formatRatio(double ratio)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, ratio < 10 ? "%.1f×" : "%.0f×", ratio);
    return buf;
}

std::string formatFactor(double factor)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, factor < 10 ? "×%.2g" : "×%.0f", factor);
    return buf;
}

std::string formatPercent(double fraction, int decimals)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f%%", std::clamp(decimals, 0, 6), 100 * fraction);
    return buf;
}

std::string formatPercentChange(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.0f%%", 100 * fraction);
    return buf;
}

std::string formatContext(int64_t tokens)
{
    char buf[32];
    if (tokens >= 1048576 && tokens % 1048576 == 0)
        std::snprintf(buf, sizeof buf, "%lldM", static_cast<long long>(tokens / 1048576));
    else if (tokens >= 1024 && tokens % 1024 == 0)
        std::snprintf(buf, sizeof buf, "%lldk", static_cast<long long>(tokens / 1024));
    else
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(tokens));
    return buf;
}

std::optional<int64_t> parseCount(const std::string& text)
{
    return parseScaled(text, false);
}
std::optional<int64_t> parseContext(const std::string& text)
{
    return parseScaled(text, true);
}

} // namespace trainmem
