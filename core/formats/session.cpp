#include "session.h"

#include "scenarioio.h"

#include <nlohmann/json.hpp>

namespace trainmem {

namespace {

constexpr size_t kMaxPins = 64;  ///< far above the window's eight: a bigger array is not a session
constexpr size_t kMaxDocks = 64; ///< the window has ten docks

void addPrefixed(FieldErrors& out, const FieldErrors& in, const std::string& prefix)
{
    for (FieldError e : in) {
        e.path = prefix + e.path;
        out.push_back(std::move(e));
    }
}

} // namespace

bool looksLikeSession(std::string_view text)
{
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    return doc.is_object() && doc.contains("schema") && doc["schema"].is_string() &&
           doc["schema"].get<std::string>() == kSessionSchema;
}

SessionParse parseSession(std::string_view text, const std::string& file)
{
    SessionParse out;
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        out.errors.push_back({file, "", std::string("not valid JSON: ") + e.what()});
        return out;
    }
    if (!doc.is_object()) {
        out.errors.push_back({file, "", "a session is a JSON object"});
        return out;
    }
    if (!doc.contains("schema") || !doc["schema"].is_string() || doc["schema"].get<std::string>() != kSessionSchema) {
        out.errors.push_back({file, "/schema", std::string("must be \"") + kSessionSchema + "\""});
        return out;
    }
    for (const auto& [key, value] : doc.items())
        if (key != "schema" && key != "scenario" && key != "pins" && key != "docks" && key != "window_state")
            out.errors.push_back({file, "/" + key, "unknown field (scenario, pins, docks and window_state are read)"});
    if (!doc.contains("scenario")) {
        out.errors.push_back({file, "/scenario", "missing: the session's scenario"});
    } else {
        ScenarioParse p = parseScenarioJson(doc["scenario"], file);
        addPrefixed(out.errors, p.errors, "/scenario");
        out.session.scenario = std::move(p.scenario);
    }
    if (doc.contains("pins")) {
        const nlohmann::json& pins = doc["pins"];
        if (!pins.is_array()) {
            out.errors.push_back({file, "/pins", "must be an array of scenarios"});
        } else if (pins.size() > kMaxPins) {
            out.errors.push_back(
                {file, "/pins",
                 "at most " + std::to_string(kMaxPins) + " pinned scenarios, got " + std::to_string(pins.size())});
        } else {
            for (size_t i = 0; i < pins.size(); ++i) {
                ScenarioParse p = parseScenarioJson(pins[i], file);
                addPrefixed(out.errors, p.errors, "/pins/" + std::to_string(i));
                out.session.pins.push_back(std::move(p.scenario));
            }
        }
    }
    if (doc.contains("docks")) {
        const nlohmann::json& docks = doc["docks"];
        if (!docks.is_array() || docks.size() > kMaxDocks) {
            out.errors.push_back(
                {file, "/docks", "must be an array of at most " + std::to_string(kMaxDocks) + " dock names"});
        } else {
            for (size_t i = 0; i < docks.size(); ++i) {
                if (!docks[i].is_string())
                    out.errors.push_back({file, "/docks/" + std::to_string(i), "must be a dock's name (a string)"});
                else
                    out.session.docks.push_back(docks[i].get<std::string>());
            }
        }
    }
    if (doc.contains("window_state")) {
        if (!doc["window_state"].is_string())
            out.errors.push_back({file, "/window_state", "must be a string (the window's layout in base64)"});
        else
            out.session.windowState = doc["window_state"].get<std::string>();
    }
    return out;
}

std::string sessionToText(const Session& s)
{
    nlohmann::json doc; // keys in alphabetical order, as scenario files write theirs
    doc["schema"] = kSessionSchema;
    doc["scenario"] = scenarioToJson(s.scenario);
    doc["pins"] = nlohmann::json::array();
    for (const Scenario& p : s.pins)
        doc["pins"].push_back(scenarioToJson(p));
    doc["docks"] = s.docks;
    if (!s.windowState.empty())
        doc["window_state"] = s.windowState;
    return doc.dump(2) + "\n";
}

} // namespace trainmem
