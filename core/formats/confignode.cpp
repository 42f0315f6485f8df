#include "confignode.h"

#include "jsontext.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>

namespace trainmem {
namespace {

void fromJson(const nlohmann::json& j, ConfigNode& out, int depth)
{
    if (j.is_null())
        return;
    if (j.is_object() || j.is_array()) {
        out.kind = j.is_object() ? ConfigNode::Kind::Map : ConfigNode::Kind::List;
        if (depth >= kMaxConfigDepth)
            return;
        for (auto it = j.begin(); it != j.end(); ++it) {
            out.entries.emplace_back();
            out.entries.back().key = j.is_object() ? it.key() : std::string();
            fromJson(it.value(), out.entries.back(), depth + 1);
        }
        return;
    }
    out.kind = ConfigNode::Kind::Scalar;
    out.quoted = j.is_string();
    out.text = j.is_string() ? j.get<std::string>() : jsonText(j);
}

// yaml-cpp tags a quoted scalar "!" and a plain one "?" (its NodeBuilder); only a plain one may be a number.
void fromYaml(const YAML::Node& n, ConfigNode& out, int depth)
{
    out.line = n.Mark().line + 1;
    if (!n.IsDefined() || n.IsNull())
        return;
    if (n.IsScalar()) {
        out.kind = ConfigNode::Kind::Scalar;
        out.text = n.Scalar();
        out.quoted = n.Tag() == "!";
        return;
    }
    out.kind = n.IsMap() ? ConfigNode::Kind::Map : ConfigNode::Kind::List;
    if (depth >= kMaxConfigDepth)
        return;
    for (auto it = n.begin(); it != n.end(); ++it) {
        if (n.IsMap()) {
            // A complex key ({a: 1}: x) is no key TrainMem reads; it is listed by its kind.
            const std::string key = it->first.IsScalar() ? it->first.Scalar() : "(a non-text key)";
            out.entries.emplace_back();
            out.entries.back().key = key;
            fromYaml(it->second, out.entries.back(), depth + 1);
        } else {
            out.entries.emplace_back();
            fromYaml(*it, out.entries.back(), depth + 1);
        }
    }
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

} // namespace

std::optional<FieldError> loadJsonConfig(std::string_view text, const std::string& file, ConfigNode& out)
{
    out = ConfigNode{};
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        return FieldError{file, "", "not valid JSON: " + jsonErrorText(e)};
    }
    fromJson(doc, out, 0);
    if (out.kind != ConfigNode::Kind::Map)
        return FieldError{file, "", "must be a JSON object, got " + describeConfig(out)};
    return std::nullopt;
}

std::optional<FieldError> loadYamlConfig(std::string_view text, const std::string& file, ConfigNode& out)
{
    out = ConfigNode{};
    try {
        const YAML::Node doc = YAML::Load(std::string(text));
        fromYaml(doc, out, 0);
    } catch (const YAML::Exception& e) {
        // yaml-cpp counts lines and columns from 0; editors from 1.
        const std::string where = e.mark.is_null() ? std::string("")
                                                   : "line " + std::to_string(e.mark.line + 1) + ", column " +
                                                         std::to_string(e.mark.column + 1);
        return FieldError{file, where, "not valid YAML: " + (e.msg.empty() ? std::string(e.what()) : e.msg)};
    }
    if (out.kind != ConfigNode::Kind::Map)
        return FieldError{file, "", "must be a YAML mapping of keys to values, got " + describeConfig(out)};
    return std::nullopt;
}

std::string describeConfig(const ConfigNode& n)
{
    switch (n.kind) {
    case ConfigNode::Kind::Null:
        return "nothing";
    case ConfigNode::Kind::List:
        return "a list";
    case ConfigNode::Kind::Map:
        return "a mapping";
    case ConfigNode::Kind::Scalar:
        break;
    }
    std::string t = n.text.size() > 40 ? n.text.substr(0, 37) + "..." : n.text;
    return n.quoted ? "\"" + t + "\"" : t;
}

ConfigMap::ConfigMap(const ConfigNode* node, std::string path, std::string file, FieldErrors& errors)
    : m_node(node), m_path(std::move(path)), m_file(std::move(file)), m_errors(&errors),
      m_read(node ? node->entries.size() : 0, false)
{
}

const ConfigNode* ConfigMap::find(const std::string& key)
{
    if (!isMap())
        return nullptr;
    // The last of repeated keys wins, as PyYAML and Python's json module read them.
    const ConfigNode* found = nullptr;
    for (size_t i = 0; i < m_node->entries.size(); ++i)
        if (m_node->entries[i].key == key) {
            m_read[i] = true;
            found = &m_node->entries[i];
        }
    return found && found->kind != ConfigNode::Kind::Null ? found : nullptr;
}

ConfigMap ConfigMap::map(const std::string& key)
{
    const ConfigNode* n = find(key);
    if (n && n->kind != ConfigNode::Kind::Map) {
        error(key, "must be a mapping of keys to values, got " + describeConfig(*n));
        n = nullptr;
    }
    return ConfigMap(n, m_path + "/" + key, m_file, *m_errors);
}

bool ConfigMap::isAuto(const std::string& key)
{
    const ConfigNode* n = find(key);
    return n && n->kind == ConfigNode::Kind::Scalar && n->text == "auto";
}

std::optional<int64_t> ConfigMap::integer(const std::string& key, int64_t min, int64_t max)
{
    const ConfigNode* n = find(key);
    if (!n)
        return std::nullopt;
    int64_t v = 0;
    const std::string& t = n->text;
    const bool number = n->kind == ConfigNode::Kind::Scalar && !n->quoted && !t.empty() &&
                        std::from_chars(t.data(), t.data() + t.size(), v).ptr == t.data() + t.size();
    if (!number || v < min || v > max) {
        error(key, "must be a whole number from " + groupDigits(static_cast<size_t>(min)) + " to " +
                       groupDigits(static_cast<size_t>(max)) + ", got " + describeConfig(*n));
        return std::nullopt;
    }
    return v;
}

std::optional<bool> ConfigMap::flag(const std::string& key, bool autoOk)
{
    const ConfigNode* n = find(key);
    if (!n)
        return std::nullopt;
    if (n->kind == ConfigNode::Kind::Scalar) {
        if (autoOk && n->text == "auto")
            return std::nullopt;
        const std::string t = lower(n->text);
        if (!n->quoted && (t == "true" || t == "yes" || t == "on"))
            return true;
        if (!n->quoted && (t == "false" || t == "no" || t == "off"))
            return false;
    }
    error(key, std::string("must be true or false") + (autoOk ? " or \"auto\"" : "") + ", got " + describeConfig(*n));
    return std::nullopt;
}

std::optional<std::string> ConfigMap::text(const std::string& key)
{
    const ConfigNode* n = find(key);
    if (!n)
        return std::nullopt;
    if (n->kind != ConfigNode::Kind::Scalar) {
        error(key, "must be a text value, got " + describeConfig(*n));
        return std::nullopt;
    }
    return n->text;
}

std::optional<std::vector<std::string>> ConfigMap::strings(const std::string& key)
{
    const ConfigNode* n = find(key);
    if (!n)
        return std::nullopt;
    if (n->kind == ConfigNode::Kind::Scalar)
        return std::vector<std::string>{n->text};
    std::vector<std::string> out;
    if (n->kind == ConfigNode::Kind::List)
        for (const ConfigNode& item : n->entries) {
            if (item.kind != ConfigNode::Kind::Scalar) {
                error(key, "must be a list of names, got an item that is " + describeConfig(item));
                return std::nullopt;
            }
            out.push_back(item.text);
        }
    else {
        error(key, "must be a list of names, got " + describeConfig(*n));
        return std::nullopt;
    }
    return out;
}

void ConfigMap::error(const std::string& key, const std::string& message)
{
    const int line = [&] {
        if (!isMap())
            return 0;
        for (const ConfigNode& v : m_node->entries)
            if (v.key == key)
                return v.line;
        return 0;
    }();
    m_errors->push_back(
        {m_file, m_path + "/" + key, line > 0 ? message + " (line " + std::to_string(line) + ")" : message});
}

void ConfigMap::ignored(std::vector<std::string>& out) const
{
    if (!isMap())
        return;
    std::string prefix = m_path.empty() ? "" : m_path.substr(1) + ".";
    std::replace(prefix.begin(), prefix.end(), '/', '.');
    for (size_t i = 0; i < m_node->entries.size(); ++i)
        if (!m_read[i] && m_node->entries[i].kind != ConfigNode::Kind::Null)
            out.push_back(prefix + (m_node->entries[i].key.empty() ? "\"\"" : m_node->entries[i].key));
}

} // namespace trainmem
