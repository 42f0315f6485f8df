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

}  // namespace trainmem
