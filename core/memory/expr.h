#pragma once
// A formula that evaluates and prints itself in the same pass, so the number a chart draws and the
// formula the drill-down shows come from one expression and cannot drift apart (core/memory/terms.cpp).
//
// Each memory term is written once, as a function template over the expression type:
//   NumExpr  carries only the value: account() on the live path, no strings, no allocation;
//   TextExpr carries the value, the symbolic text ("s·b·h") and the text with the numbers
//            substituted ("2048·1·12288"): the drill-down.
// Both types have the same operators and factories, so one function body serves both. The
// operators parenthesise by precedence: `sym("s", s) * sym("b", b) * (34 + 5 * sym("a", a))`
// prints "s·b·(34 + 5·a)".

#include "units.h"

#include <string>
#include <type_traits>
#include <utility>

namespace trainmem {

/// \brief Numbers only: what account() evaluates.
struct NumExpr {
    static constexpr bool kText = false;
    double value = 0;

    constexpr NumExpr() = default;
    constexpr NumExpr(double v) : value(v) {} // NOLINT(google-explicit-constructor): literals in formulas

    /// A named quantity ("s" = 2048).
    static constexpr NumExpr sym(const char*, double v) { return v; }
    /// Bytes per element or per parameter, printed "2 B".
    static constexpr NumExpr bytes(const char*, double v) { return v; }
    /// A quantity already in bytes, printed "1.20 GB".
    static constexpr NumExpr total(const char*, double v) { return v; }
    /// Free text: `symbolic` and `substituted` (strings, or callables returning one, so that no
    /// text is built here) are what the drill-down shows for the value `v`.
    template <class A, class B> static constexpr NumExpr text(A&&, B&&, double v) { return v; }
    /// a then b with their own separators in the symbolic and the substituted text (a product).
    static constexpr NumExpr mul(NumExpr a, NumExpr b, const char*, const char*) { return a.value * b.value; }
    /// a divided by b, with its own separators (" / ").
    static constexpr NumExpr div(NumExpr a, NumExpr b, const char*, const char*) { return a.value / b.value; }
};

constexpr NumExpr operator+(NumExpr a, NumExpr b)
{
    return a.value + b.value;
}
constexpr NumExpr operator-(NumExpr a, NumExpr b)
{
    return a.value - b.value;
}
constexpr NumExpr operator*(NumExpr a, NumExpr b)
{
    return a.value * b.value;
}
constexpr NumExpr operator/(NumExpr a, NumExpr b)
{
    return a.value / b.value;
}

/// \brief The value with both texts: what the drill-down shows.
struct TextExpr {
    static constexpr bool kText = true;
    enum Precedence { Sum, Product, Atom };
    double value = 0;
    std::string symbolic, substituted;
    Precedence precedence = Atom;

    TextExpr() = default;
    TextExpr(double v) : value(v), symbolic(formatNumber(v)), substituted(symbolic) {} // NOLINT: literals
    TextExpr(double v, std::string sym, std::string sub, Precedence p = Atom)
        : value(v), symbolic(std::move(sym)), substituted(std::move(sub)), precedence(p)
    {
    }

    static TextExpr sym(const char* name, double v) { return {v, name, formatNumber(v)}; }
    static TextExpr bytes(const char* name, double v) { return {v, name, formatNumber(v) + " B"}; }
    static TextExpr total(const char* name, double v) { return {v, name, formatBytes(v)}; }
    template <class A, class B> static TextExpr text(A&& symbolic, B&& substituted, double v)
    {
        return {v, str(symbolic), str(substituted)};
    }
    /// A string, or what a callable returns.
    template <class F> static std::string str(F&& f)
    {
        if constexpr (std::is_invocable_v<F>)
            return std::string(f());
        else
            return std::string(f);
    }
    static TextExpr mul(const TextExpr& a, const TextExpr& b, const char* symSep, const char* subSep)
    {
        return {a.value * b.value, a.operand(Product, false) + symSep + b.operand(Product, false),
                a.operand(Product, true) + subSep + b.operand(Product, true), Product};
    }

    static TextExpr div(const TextExpr& a, const TextExpr& b, const char* symSep, const char* subSep)
    {
        return {a.value / b.value, a.operand(Product, false) + symSep + b.operand(Atom, false),
                a.operand(Product, true) + subSep + b.operand(Atom, true), Product};
    }

    /// This expression as an operand of an operator of precedence `p`, parenthesised if it binds looser.
    std::string operand(Precedence p, bool numbers) const
    {
        const std::string& t = numbers ? substituted : symbolic;
        return precedence < p ? "(" + t + ")" : t;
    }
};

inline TextExpr operator+(const TextExpr& a, const TextExpr& b)
{
    return {a.value + b.value, a.symbolic + " + " + b.symbolic, a.substituted + " + " + b.substituted, TextExpr::Sum};
}
inline TextExpr operator-(const TextExpr& a, const TextExpr& b)
{
    return {a.value - b.value, a.symbolic + " − " + b.operand(TextExpr::Product, false),
            a.substituted + " − " + b.operand(TextExpr::Product, true), TextExpr::Sum};
}
inline TextExpr operator*(const TextExpr& a, const TextExpr& b)
{
    return TextExpr::mul(a, b, "·", "·");
}
inline TextExpr operator/(const TextExpr& a, const TextExpr& b)
{
    return {a.value / b.value, a.operand(TextExpr::Product, false) + "/" + b.operand(TextExpr::Atom, false),
            a.operand(TextExpr::Product, true) + "/" + b.operand(TextExpr::Atom, true), TextExpr::Product};
}

/// \brief a · b with spaces, as the model-state and KV formulas read ("b_w · P").
template <class X> X dot(const X& a, const X& b)
{
    return X::mul(a, b, " · ", " · ");
}
/// \brief a × b, for "per layer × layers" ("s·b·h·(34 + …) × L").
template <class X> X times(const X& a, const X& b)
{
    return X::mul(a, b, " × ", " × ");
}

/// \brief a / b with spaces ("… · 2 B / t").
template <class X> X over(const X& a, const X& b)
{
    return X::div(a, b, " / ", " / ");
}

/// \brief What a term says about itself besides its formula; numbers-only evaluation ignores it,
/// and never calls the callables it is given, so no text is built on the live path.
template <class X> struct TermNotes {
    template <class F> void title(F&&) {}
    template <class F> void assume(F&&) {}
    template <class F> void source(F&&) {}
};

template <> struct TermNotes<TextExpr> {
    std::string titleText, assumptions, sourceText;
    template <class F> void title(F&& f) { titleText = TextExpr::str(f); }
    template <class F> void assume(F&& f) { assumptions = TextExpr::str(f); }
    template <class F> void source(F&& f) { sourceText = TextExpr::str(f); }
};

} // namespace trainmem
