#pragma once
// Reading and writing scenario files ("schema": "trainmem/scenario@1"), from and to strings.
// The file format is documented field by field in docs/scenario-format.md.

#include "errors.h"
#include "scenario.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace trainmem {

inline constexpr const char* kScenarioSchema = "trainmem/scenario@1";

/// \brief A parsed scenario and the problems found. Bad fields keep their defaults, so a
/// caller may still use `scenario`; `ok()` says whether the file was clean.
struct ScenarioParse {
    Scenario scenario;
    FieldErrors errors;
    bool ok() const { return errors.empty(); }
};

/// \brief Parses scenario JSON text. `file` names the source in every error.
ScenarioParse parseScenario(std::string_view text, const std::string& file);
/// \brief Whether `text` reads as a Hugging Face config.json rather than a scenario: it names a "model_type" and has
/// no "schema" (a scenario's first field). parseScenario answers such a text with one error saying so; the window
/// imports such a dropped file as a config.json whatever its name.
bool looksLikeHfConfigText(std::string_view text);
/// \brief Parses an already-decoded JSON value (e.g. a preset embedded in a larger document).
ScenarioParse parseScenarioJson(const nlohmann::json& doc, const std::string& file);

/// \brief The scenario as JSON, every field written (defaults included) so a saved file documents itself.
nlohmann::json scenarioToJson(const Scenario& s);
/// \brief Pretty-printed scenarioToJson with a trailing newline.
std::string scenarioToText(const Scenario& s);

} // namespace trainmem
