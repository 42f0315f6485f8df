#pragma once
// Units live here: bytes and counts inside, text only at the edges.

#include <cstdint>
#include <optional>
#include <string>

namespace trainmem {

enum class UnitSystem { Decimal, Binary }; ///< GB/TB (the chapter's convention) or GiB/TiB

/// \brief "112 GB", "1.12 TB", "38.4 TB"; three significant digits.
std::string formatBytes(double bytes, UnitSystem units = UnitSystem::Decimal);
/// \brief "7B", "671B", "2.4T", "124M".
std::string formatCount(double count);
/// \brief "2.79M", "5.58", "16.4k": three significant digits with a suffix, as receipts are quoted.
std::string formatCountPrecise(double count);
/// \brief A number as it reads in a formula: "96", "7,000,000,000", "0.05", "1.333".
std::string formatNumber(double v);
/// \brief The digits of `n` grouped by thousands with commas: "99,980".
std::string groupDigits(unsigned long long n);
/// \brief "1.4×", "14×": how many times one quantity is another.
std::string formatRatio(double ratio);
/// \brief "×0.5", "×12": a factor a change multiplies memory by.
std::string formatFactor(double factor);
/// \brief "64%" of a whole; "19.1%" with `decimals` = 1.
std::string formatPercent(double fraction, int decimals = 0);
/// \brief "+3%", "-12%": a change, signed.
std::string formatPercentChange(double fraction);
/// \brief "8k", "128k", "1M" for context lengths (binary k = 1024).
std::string formatContext(int64_t tokens);

/// \brief Parses a count such as "7e9", "7B", "70b", "2.4T", "350M", "1200000".
/// Suffixes are decimal (k=1e3, M=1e6, B/G=1e9, T=1e12). Returns nullopt for anything else,
/// including negative, non-finite or non-integral results.
std::optional<int64_t> parseCount(const std::string& text);
/// \brief Parses a context length: like parseCount, but k/M are binary ("128k" = 131072),
/// as context lengths are quoted.
std::optional<int64_t> parseContext(const std::string& text);

} // namespace trainmem
