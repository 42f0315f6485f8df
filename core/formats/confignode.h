#pragma once
// One tree for the JSON and YAML of the training configs (trainconfig.h), so that the three readers check types
// and list ignored keys one way. JSON is decoded by nlohmann/json, YAML by yaml-cpp; neither leaks into this
// header. Internal to core/formats.

#include "errors.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

/// A value of a config file as written.
struct ConfigNode {
    enum class Kind { Null, Scalar, List, Map };
    Kind kind = Kind::Null;
    std::string text;                ///< a scalar as written ("8", "True", "bf16"); JSON's true/false/numbers as dumped
    bool quoted = false;             ///< a JSON string or a quoted YAML scalar: never a number or a boolean
    int line = 0;                    ///< 1-based line of a YAML value; 0 in JSON (nlohmann keeps no positions)
    std::string key;                 ///< the key this value stands under in its map (empty in a list)
    std::vector<ConfigNode> entries; ///< a map's values in file order, or a list's items
};

/// Deeper values than this are not read (no config key TrainMem reads is more than three deep); they become
/// an empty map, so a file nested a million deep cannot exhaust the stack.
inline constexpr int kMaxConfigDepth = 64;

/// \brief Decodes JSON into `out`; a syntax error names the line and column.
std::optional<FieldError> loadJsonConfig(std::string_view text, const std::string& file, ConfigNode& out);
/// \brief Decodes YAML (the first document) into `out`; a syntax error names the line and column.
std::optional<FieldError> loadYamlConfig(std::string_view text, const std::string& file, ConfigNode& out);

struct TrainingConfig;
class ConfigMap;
/// \brief A training config read from `text` (JSON when `json`, else YAML) by `read`, which gets the top-level
/// map; a syntax error or a top level that is not a map ends it with that error. Defined in trainconfig.cpp.
TrainingConfig readConfig(std::string_view text, const std::string& file, const char* format, bool json,
                          void (*read)(ConfigMap& top, TrainingConfig& c));

/// \brief The value as an error message shows it: a quoted scalar in quotes, a list or a map by its kind.
std::string describeConfig(const ConfigNode& n);

/// Reads the keys of one map: each getter marks its key read and checks its type, naming the key's path in an
/// error ("/zero_optimization/stage: must be 0, 1, 2 or 3, got \"x\""); ignored() lists the keys left unread.
/// An empty value (YAML's `key:` or `~`, JSON's null) counts as not set.
class ConfigMap
{
public:
    ConfigMap(const ConfigNode* node, std::string path, std::string file, FieldErrors& errors);

    /// The value of `key`, marked read; nullptr when absent or empty.
    const ConfigNode* find(const std::string& key);
    /// The sub-map under `key` (an empty one when absent; a type error when it is not a map).
    ConfigMap map(const std::string& key);
    /// True when `key` holds "auto" (the launcher fills it in): marked read, nothing to set.
    bool isAuto(const std::string& key);
    std::optional<int64_t> integer(const std::string& key, int64_t min, int64_t max);
    /// true/false (YAML 1.1's yes/no/on/off too, as PyYAML reads them); with `autoOk` "auto" gives nullopt.
    std::optional<bool> flag(const std::string& key, bool autoOk = false);
    std::optional<std::string> text(const std::string& key);
    /// A list of strings (a YAML list or a single string).
    std::optional<std::vector<std::string>> strings(const std::string& key);

    void error(const std::string& key, const std::string& message);
    /// The keys not read and not empty, as dotted paths under `prefix` ("model.lora_alpha"), appended to `out`.
    void ignored(std::vector<std::string>& out) const;
    bool isMap() const { return m_node && m_node->kind == ConfigNode::Kind::Map; }

private:
    const ConfigNode* m_node;
    std::string m_path; ///< JSON pointer of this map ("" or "/zero_optimization")
    std::string m_file;
    FieldErrors* m_errors;
    std::vector<bool> m_read;
};

} // namespace trainmem
