#pragma once
// JSON to text without exceptions: strings from files may hold invalid UTF-8, which
// nlohmann::json::dump() would throw on; they are written with U+FFFD instead.

#include <nlohmann/json.hpp>

#include <string>

namespace trainmem {

/// \brief j.dump(indent), replacing invalid UTF-8 instead of throwing.
inline std::string jsonText(const nlohmann::json& j, int indent = -1)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace detail {
// Writes j compactly until `out` passes `stop` characters. Every level of nesting writes a bracket
// before it descends, so the recursion is never deeper than `stop`.
inline void jsonSnippetInto(const nlohmann::json& j, std::string& out, size_t stop)
{
    if (out.size() > stop)
        return;
    if (j.is_array() || j.is_object()) {
        out += j.is_array() ? '[' : '{';
        bool first = true;
        for (auto it = j.begin(); it != j.end() && out.size() <= stop; ++it) {
            if (!first)
                out += ',';
            first = false;
            if (j.is_object())
                out += jsonText(nlohmann::json(it.key())) + ':';
            jsonSnippetInto(it.value(), out, stop);
        }
        out += j.is_array() ? ']' : '}';
        return;
    }
    out += jsonText(j);
}
} // namespace detail

/// \brief j's compact text cut to `limit` characters ("..." ending a cut one) for error messages.
/// dump() recurses once per nesting level, so a file nested 300000 deep ("[[[[…") would overflow the
/// stack; this stops writing (and descending) at the cut. Same text as jsonText(j) when it fits.
inline std::string jsonSnippet(const nlohmann::json& j, size_t limit = 40)
{
    std::string out;
    detail::jsonSnippetInto(j, out, limit);
    if (out.size() > limit)
        out = out.substr(0, limit - 3) + "...";
    return out;
}

/// \brief nlohmann's exception text without its "[json.exception.x.y] " tag, keeping
/// "at line L, column C" for parse errors.
inline std::string jsonErrorText(const nlohmann::json::exception& e)
{
    std::string what = e.what();
    if (const auto at = what.find("at line"); at != std::string::npos)
        return what.substr(at);
    if (const auto tag = what.find("] "); tag != std::string::npos)
        return what.substr(tag + 2);
    return what;
}

} // namespace trainmem
