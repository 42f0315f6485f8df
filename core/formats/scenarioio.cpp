#include "scenarioio.h"

#include "accounting.h"
#include "lora.h"
#include "params.h"
#include "units.h"

#include "jsontext.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <initializer_list>
#include <set>

namespace trainmem {
namespace {

using nlohmann::json;

// At most 40 characters of the value, written without dump()'s unbounded recursion (jsontext.h).
std::string describe(const json& v)
{
    return jsonSnippet(v, 40);
}

// Reads fields of one JSON object, recording an error with its JSON pointer for each bad one.
class Reader
{
public:
    Reader(const std::string& file, FieldErrors& errors) : m_file(file), m_errors(errors) {}

    void error(const std::string& path, const std::string& message)
    {
        if (m_errors.size() >= kMaxListedErrors) {
            ++m_unlisted;
            return;
        }
        m_errors.push_back({m_file, path, message});
    }
    size_t errorCount() const { return m_errors.size() + m_unlisted; }
    /// Errors counted but not listed (kMaxListedErrors).
    size_t unlisted() const { return m_unlisted; }

    // Flags keys the format does not define, so a typo ("seqlen") does not pass silently.
    void onlyKeys(const json& obj, const std::string& path, std::initializer_list<const char*> keys)
    {
        const std::set<std::string> known(keys.begin(), keys.end());
        for (const auto& [k, v] : obj.items()) {
            if (!known.count(k)) {
                std::string list;
                for (const char* key : keys)
                    list += (list.empty() ? "" : ", ") + std::string(key);
                error(path + "/" + k, "unknown field (known: " + list + ")");
            }
        }
    }

    bool object(const json& parent, const char* key, const std::string& path, const json*& out)
    {
        out = nullptr;
        if (!parent.contains(key))
            return false;
        const json& v = parent.at(key);
        if (!v.is_object()) {
            error(path + "/" + key, "must be an object, got " + describe(v));
            return false;
        }
        out = &v;
        return true;
    }

    // Integers accept JSON numbers and count strings ("7B", "2.4T", "128k" for contexts).
    void integer(const json& obj, const char* key, const std::string& path, int64_t& out, int64_t min, int64_t max,
                 bool context = false)
    {
        if (!obj.contains(key))
            return;
        const json& v = obj.at(key);
        const std::string where = path + "/" + key;
        std::optional<int64_t> value;
        if (v.is_number_integer()) {
            if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
                value.reset();
            else
                value = v.get<int64_t>();
        } else if (v.is_number_float()) {
            const double d = v.get<double>();
            if (std::isfinite(d) && d == std::round(d) && std::fabs(d) < 9e18)
                value = static_cast<int64_t>(d);
        } else if (v.is_string()) {
            value = context ? parseContext(v.get<std::string>()) : parseCount(v.get<std::string>());
        }
        const std::string range = min == 1 ? "a positive integer" : "an integer";
        if (!value) {
            error(where, "must be " + range + ", got " + describe(v));
            return;
        }
        if (*value < min || *value > max) {
            if (*value < min && min >= 0 && *value <= 0)
                error(where, "must be " + range + ", got " + std::to_string(*value));
            else
                error(where, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                                 std::to_string(*value));
            return;
        }
        out = *value;
    }

    void integer(const json& obj, const char* key, const std::string& path, int& out, int min, int max)
    {
        int64_t v = out;
        integer(obj, key, path, v, min, max);
        out = static_cast<int>(v);
    }

    void number(const json& obj, const char* key, const std::string& path, double& out, double min, double max)
    {
        if (!obj.contains(key))
            return;
        const json& v = obj.at(key);
        const std::string where = path + "/" + key;
        double d = 0;
        if (v.is_number()) {
            d = v.get<double>();
        } else if (v.is_string()) {
            const auto c = parseCount(v.get<std::string>());
            if (!c) {
                error(where, "must be a number, got " + describe(v));
                return;
            }
            d = static_cast<double>(*c);
        } else {
            error(where, "must be a number, got " + describe(v));
            return;
        }
        if (!std::isfinite(d) || d < min || d > max) {
            error(where,
                  "must be between " + jsonText(json(min)) + " and " + jsonText(json(max)) + ", got " + describe(v));
            return;
        }
        out = d;
    }

    void boolean(const json& obj, const char* key, const std::string& path, bool& out)
    {
        if (!obj.contains(key))
            return;
        const json& v = obj.at(key);
        if (!v.is_boolean()) {
            error(path + "/" + key, "must be true or false, got " + describe(v));
            return;
        }
        out = v.get<bool>();
    }

    /// A switch that may be left out (the framework's default then): set only where the file gives true or false.
    void boolean(const json& obj, const char* key, const std::string& path, std::optional<bool>& out)
    {
        bool on = false;
        boolean(obj, key, path, on); // names what is wrong, if anything
        if (obj.contains(key) && obj.at(key).is_boolean())
            out = on;
    }

    void text(const json& obj, const char* key, const std::string& path, std::string& out)
    {
        if (!obj.contains(key))
            return;
        const json& v = obj.at(key);
        if (!v.is_string()) {
            error(path + "/" + key, "must be a string, got " + describe(v));
            return;
        }
        out = v.get<std::string>();
    }

    // `out` is the enumeration or an optional of it (left unset when the key is absent); set only to a valid name.
    template <typename E, typename Parse>
    void choice(const json& obj, const char* key, const std::string& path, E& out, Parse parse,
                const std::string& names)
    {
        if (!obj.contains(key))
            return;
        const json& v = obj.at(key);
        const auto parsed = v.is_string() ? parse(v.get<std::string>()) : std::nullopt;
        if (!parsed) {
            error(path + "/" + key, "must be one of " + names + ", got " + describe(v));
            return;
        }
        out = *parsed;
    }

private:
    std::string m_file;
    FieldErrors& m_errors;
    size_t m_unlisted = 0;
};

// Layers whose token mixer is not full attention (issue 29 §2; docs/scenario-format.md): counts of each kind, the
// sliding window and the chunk, and the Gated DeltaNet widths. The layers they leave are full attention.
void readLayerKinds(Reader& r, const json& j, const std::string& p, Architecture& a)
{
    const json* k = nullptr;
    if (!r.object(j, "layer_kinds", p, k))
        return;
    const std::string kp = p + "/layer_kinds";
    r.onlyKeys(*k, kp,
               {"sliding", "sliding_window", "chunked", "chunk_size", "linear", "linear_attention", "mamba", "mamba2",
                "ffn_only", "mixer_only", "full_head_dim", "full_kv_heads", "full_k_eq_v", "kv_shared_sliding",
                "kv_shared_full", "kv_shared_ffn"});
    LayerKinds& m = a.kinds;
    r.integer(*k, "sliding", kp, m.sliding, 0, kMaxLayers);
    r.integer(*k, "sliding_window", kp, m.window, 1, kMaxSeq);
    r.integer(*k, "chunked", kp, m.chunked, 0, kMaxLayers);
    r.integer(*k, "chunk_size", kp, m.chunk, 1, kMaxSeq);
    r.integer(*k, "linear", kp, m.linear, 0, kMaxLayers);
    // The full-attention layers' own shape (Gemma 4's global_head_dim, num_global_key_value_heads,
    // attention_k_eq_v); absent: the model's.
    r.integer(*k, "full_head_dim", kp, m.fullHeadDim, 1, 65536);
    r.integer(*k, "full_kv_heads", kp, m.fullKvHeads, 1, 65536);
    r.boolean(*k, "full_k_eq_v", kp, m.fullKeyIsValue);
    // Layers that reuse an earlier layer's K and V (Gemma 4 E2B, E4B) and their MLP width (0: the model's).
    r.integer(*k, "kv_shared_sliding", kp, m.kvSharedSliding, 0, kMaxLayers);
    r.integer(*k, "kv_shared_full", kp, m.kvSharedFull, 0, kMaxLayers);
    r.integer(*k, "kv_shared_ffn", kp, m.kvSharedFfn, 1, 16 * kMaxHidden);
    if (m.kvSharedSliding > 0 && m.kvSharedSliding >= m.sliding)
        r.error(kp + "/kv_shared_sliding", "must leave a sliding layer that computes its own keys and values (" +
                                               std::to_string(m.sliding) + " sliding), got " +
                                               std::to_string(m.kvSharedSliding));
    if (m.fullKvHeads > 0 && a.heads > 0 && a.heads % m.fullKvHeads != 0)
        r.error(kp + "/full_kv_heads",
                "must divide heads (" + std::to_string(a.heads) + "), got " + std::to_string(m.fullKvHeads));
    if (m.sliding > 0 && !k->contains("sliding_window"))
        r.error(kp + "/sliding_window", "is required when there are sliding-window layers");
    if (m.chunked > 0 && !k->contains("chunk_size"))
        r.error(kp + "/chunk_size", "is required when there are chunked-attention layers");
    const json* g = nullptr;
    if (r.object(*k, "linear_attention", kp, g)) {
        const std::string gp = kp + "/linear_attention";
        r.onlyKeys(*g, gp, {"key_heads", "key_head_dim", "value_heads", "value_head_dim", "conv_kernel"});
        LinearAttentionConfig& c = m.linearAttention;
        r.integer(*g, "key_heads", gp, c.keyHeads, 1, 65536);
        r.integer(*g, "key_head_dim", gp, c.keyHeadDim, 1, 65536);
        r.integer(*g, "value_heads", gp, c.valueHeads, 1, 65536);
        r.integer(*g, "value_head_dim", gp, c.valueHeadDim, 1, 65536);
        r.integer(*g, "conv_kernel", gp, c.convKernel, 1, 1024);
        if (c.valueHeads % c.keyHeads != 0)
            r.error(gp + "/value_heads", "must be a multiple of key_heads (" + std::to_string(c.keyHeads) + "), got " +
                                             std::to_string(c.valueHeads));
    } else if (m.linear > 0) {
        r.error(kp + "/linear_attention", "is required when there are linear-attention layers");
    }
    r.integer(*k, "mamba", kp, m.mamba, 0, kMaxLayers);
    r.integer(*k, "ffn_only", kp, m.ffnOnly, 0, kMaxLayers);
    r.integer(*k, "mixer_only", kp, m.mixerOnly, 0, kMaxLayers);
    const json* s = nullptr;
    if (r.object(*k, "mamba2", kp, s)) {
        const std::string sp = kp + "/mamba2";
        r.onlyKeys(
            *s, sp,
            {"heads", "head_dim", "state_size", "groups", "conv_kernel", "conv_bias", "proj_bias", "ssm_state_bytes"});
        Mamba2Config& c = m.mamba2;
        r.integer(*s, "heads", sp, c.heads, 1, 65536);
        r.integer(*s, "head_dim", sp, c.headDim, 1, 65536);
        r.integer(*s, "state_size", sp, c.stateSize, 1, 65536);
        r.integer(*s, "groups", sp, c.groups, 1, 65536);
        r.integer(*s, "conv_kernel", sp, c.convKernel, 1, 1024);
        r.boolean(*s, "conv_bias", sp, c.convBias);
        r.boolean(*s, "proj_bias", sp, c.projBias);
        r.integer(*s, "ssm_state_bytes", sp, c.ssmStateBytes, 1, 8);
    } else if (m.mamba > 0) {
        r.error(kp + "/mamba2", "is required when there are Mamba-2 layers");
    }
    const int64_t other = m.sliding + m.chunked + m.linear + m.mamba + m.ffnOnly;
    if (a.layers > 0 && other > a.layers)
        r.error(kp, "counts " + std::to_string(other) + " sliding, chunked, linear, Mamba-2 and FFN-only layers for " +
                        std::to_string(a.layers) + " layers; the full-attention layers are what they leave");
    if (a.layers > 0 && m.kvSharedFull > 0 && m.kvSharedFull >= a.layersOfKind(LayerKind::Full))
        r.error(kp + "/kv_shared_full", "must leave a full-attention layer that computes its own keys and values (" +
                                            std::to_string(a.layersOfKind(LayerKind::Full)) + " full), got " +
                                            std::to_string(m.kvSharedFull));
    if (a.layers > 0 && m.mixerOnly > a.layers - m.ffnOnly)
        r.error(kp + "/mixer_only", "must not exceed the layers that have a token mixer (" +
                                        std::to_string(a.layers - m.ffnOnly) + "), got " + std::to_string(m.mixerOnly));
}

void readArchitecture(Reader& r, const json& j, const std::string& p, Architecture& a)
{
    r.onlyKeys(j, p,
               {"layers",
                "hidden",
                "heads",
                "kv_heads",
                "head_dim",
                "ffn",
                "ffn_kind",
                "vocab",
                "max_positions",
                "learned_positions",
                "tied_embeddings",
                "bias",
                "attention_bias",
                "mlp_bias",
                "norm",
                "norms_per_layer",
                "qk_norm",
                "attention_sinks",
                "head_bias",
                "attention",
                "mla",
                "moe",
                "dropout",
                "mtp_layers",
                "vision_params",
                "audio_params",
                "per_layer_input",
                "per_layer_vocab",
                "layer_kinds",
                "gated_attention"});
    for (const char* required : {"layers", "hidden", "heads"})
        if (!j.contains(required))
            r.error(p + "/" + required, "is required in an architecture");
    r.integer(j, "layers", p, a.layers, 1, kMaxLayers);
    r.integer(j, "hidden", p, a.hidden, 1, kMaxHidden);
    r.integer(j, "heads", p, a.heads, 1, 65536);
    r.integer(j, "kv_heads", p, a.kvHeads, 1, 65536);
    r.integer(j, "head_dim", p, a.headDim, 1, 65536);
    r.integer(j, "ffn", p, a.ffn, 1, 16 * kMaxHidden);
    r.choice(j, "ffn_kind", p, a.ffnKind, ffnKindFromString, "gelu|swiglu");
    r.integer(j, "vocab", p, a.vocab, 1, 100'000'000);
    r.integer(j, "max_positions", p, a.maxPositions, 0, kMaxSeq);
    r.boolean(j, "learned_positions", p, a.learnedPositions);
    r.boolean(j, "tied_embeddings", p, a.tiedEmbeddings);
    r.boolean(j, "bias", p, a.bias);
    if (j.contains("attention_bias")) {
        AttentionBias ab = AttentionBias::None;
        const size_t before = r.errorCount();
        r.choice(j, "attention_bias", p, ab, attentionBiasFromString, "none|qkv|all");
        if (r.errorCount() == before)
            a.attentionBias = ab;
    }
    if (j.contains("mlp_bias")) {
        bool mb = false;
        const size_t before = r.errorCount();
        r.boolean(j, "mlp_bias", p, mb);
        if (r.errorCount() == before)
            a.mlpBias = mb;
    }
    r.choice(j, "norm", p, a.norm, normKindFromString, "layernorm|rmsnorm");
    r.integer(j, "norms_per_layer", p, a.normsPerLayer, 0, 8);
    r.choice(j, "qk_norm", p, a.qkNorm, qkNormFromString, "none|head|full");
    r.integer(j, "mtp_layers", p, a.mtpLayers, 0, kMaxLayers);
    r.integer(j, "vision_params", p, a.visionParams, 0, kMaxParams);
    r.integer(j, "audio_params", p, a.audioParams, 0, kMaxParams);
    // Gemma 4's per-layer embeddings (E2B, E4B): their width and the table's tokens, both or neither.
    r.integer(j, "per_layer_input", p, a.perLayerInput, 1, kMaxHidden);
    r.integer(j, "per_layer_vocab", p, a.perLayerVocab, 1, 100'000'000);
    if ((a.perLayerInput > 0) != (a.perLayerVocab > 0))
        r.error(p + (a.perLayerInput > 0 ? "/per_layer_vocab" : "/per_layer_input"),
                "is required with " + std::string(a.perLayerInput > 0 ? "per_layer_input" : "per_layer_vocab") +
                    " (Gemma 4's per-layer embeddings: their width and the table's tokens)");
    r.boolean(j, "attention_sinks", p, a.attentionSinks);
    r.boolean(j, "head_bias", p, a.headBias);
    r.boolean(j, "gated_attention", p, a.gatedAttention);
    readLayerKinds(r, j, p, a);
    bool dropout = false;
    if (j.contains("dropout")) {
        r.boolean(j, "dropout", p, dropout);
        if (j.at("dropout").is_boolean())
            a.dropout = dropout;
    }
    // Without head_dim the head size is hidden/heads: 8192 heads on hidden 4096 gave 0 and dropped the attention
    // weights (issue 33 §5).
    if (a.headDim == 0 && a.heads > 0 && a.hidden > 0 && a.hidden % a.heads != 0)
        r.error(p + "/heads", "must divide hidden (" + std::to_string(a.hidden) +
                                  ") unless head_dim is given (the head size is hidden/heads), got " +
                                  std::to_string(a.heads));
    if (a.kvHeads > 0 && a.heads > 0 && a.heads % a.kvHeads != 0)
        r.error(p + "/kv_heads",
                "must divide heads (" + std::to_string(a.heads) + "), got " + std::to_string(a.kvHeads));
    // Attention kind: given, or read off the head counts.
    a.attention = a.kvHeadsOrDefault() == a.heads ? AttentionKind::MHA : AttentionKind::GQA;
    r.choice(j, "attention", p, a.attention, attentionKindFromString, "mha|gqa|mla");
    const json* mla = nullptr;
    if (r.object(j, "mla", p, mla)) {
        const std::string mp = p + "/mla";
        r.onlyKeys(*mla, mp,
                   {"q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "index_heads",
                    "index_head_dim", "index_topk"});
        r.integer(*mla, "q_lora_rank", mp, a.mla.qLoraRank, 0, kMaxHidden);
        r.integer(*mla, "kv_lora_rank", mp, a.mla.kvLoraRank, 1, kMaxHidden);
        r.integer(*mla, "qk_rope_head_dim", mp, a.mla.qkRopeHeadDim, 0, 65536);
        r.integer(*mla, "qk_nope_head_dim", mp, a.mla.qkNopeHeadDim, 1, 65536);
        r.integer(*mla, "v_head_dim", mp, a.mla.vHeadDim, 1, 65536);
        // DeepSeek-V3.2's sparse-attention indexer (docs/accounting.md, Layer kinds): 0 heads = none.
        r.integer(*mla, "index_heads", mp, a.mla.indexHeads, 0, 65536);
        r.integer(*mla, "index_head_dim", mp, a.mla.indexHeadDim, 1, 65536);
        r.integer(*mla, "index_topk", mp, a.mla.indexTopk, 1, kMaxSeq);
    }
    if (a.attention == AttentionKind::MLA && !mla)
        r.error(p + "/mla", "is required when attention is \"mla\"");
    const json* moe = nullptr;
    if (r.object(j, "moe", p, moe)) {
        const std::string mp = p + "/moe";
        r.onlyKeys(*moe, mp,
                   {"experts", "active_experts", "shared_experts", "expert_ffn", "dense_layers", "dense_ffn",
                    "score_correction_bias", "shared_expert_gate", "dense_beside", "router_scales", "latent"});
        for (const char* required : {"experts", "active_experts", "expert_ffn"})
            if (!moe->contains(required))
                r.error(mp + "/" + required, "is required in a moe block");
        r.integer(*moe, "experts", mp, a.moe.experts, 1, 65536);
        r.integer(*moe, "active_experts", mp, a.moe.activeExperts, 1, 65536);
        r.integer(*moe, "shared_experts", mp, a.moe.sharedExperts, 0, 65536);
        r.integer(*moe, "expert_ffn", mp, a.moe.expertFfn, 1, 16 * kMaxHidden);
        r.integer(*moe, "dense_layers", mp, a.moe.denseLayers, 0, kMaxLayers);
        r.integer(*moe, "dense_ffn", mp, a.moe.denseFfn, 0, 16 * kMaxHidden);
        r.boolean(*moe, "score_correction_bias", mp, a.moe.scoreCorrectionBias);
        r.boolean(*moe, "shared_expert_gate", mp, a.moe.sharedExpertGate);
        r.integer(*moe, "dense_beside", mp, a.moe.denseBeside, 0, 16 * kMaxHidden);
        r.boolean(*moe, "router_scales", mp, a.moe.routerScales);
        r.integer(*moe, "latent", mp, a.moe.latent, 0, kMaxHidden);
        if (a.moe.activeExperts > a.moe.experts)
            r.error(mp + "/active_experts", "must not exceed experts (" + std::to_string(a.moe.experts) + "), got " +
                                                std::to_string(a.moe.activeExperts));
        if (a.moe.denseLayers > a.layers)
            r.error(mp + "/dense_layers", "must not exceed layers (" + std::to_string(a.layers) + "), got " +
                                              std::to_string(a.moe.denseLayers));
    }
    // Documented defaults for the FFN width.
    if (a.ffn <= 0) {
        if (a.isMoe() && a.moe.denseFfn > 0)
            a.ffn = a.moe.denseFfn;
        else if (a.ffnKind == FfnKind::Gelu)
            a.ffn = 4 * a.hidden;
        else
            a.ffn = ((8 * a.hidden / 3 + 255) / 256) * 256;
    }
}

// A Hugging Face config.json given where a scenario belongs (--scenario, File ▸ Open): one error that says what the
// file is and what reads it, instead of one unknown field per key (or Python's Infinity as bad JSON).
FieldError hfConfigGivenAsScenario(const std::string& file)
{
    return {file, "/model_type",
            "names a Hugging Face model: this is a config.json, not a scenario; read it with --hf-config (in the "
            "window: File ▸ Import Hugging Face config…, or drop it on the window)"};
}

} // namespace

bool looksLikeHfConfigText(std::string_view text)
{
    return text.find("\"model_type\"") != std::string_view::npos && text.find("\"schema\"") == std::string_view::npos;
}

ScenarioParse parseScenario(std::string_view text, const std::string& file)
{
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) { // parse_error, and out_of_range for numbers beyond a double
        ScenarioParse out;
        out.errors.push_back(looksLikeHfConfigText(text) ? hfConfigGivenAsScenario(file)
                                                         : FieldError{file, "", "not valid JSON: " + jsonErrorText(e)});
        return out;
    }
    return parseScenarioJson(doc, file);
}

ScenarioParse parseScenarioJson(const json& doc, const std::string& file)
{
    ScenarioParse out;
    Reader r(file, out.errors);
    Scenario& s = out.scenario;
    if (!doc.is_object()) {
        r.error("", "must be a JSON object, got " + describe(doc));
        return out;
    }
    if (doc.contains("model_type") && !doc.contains("schema")) {
        out.errors.push_back(hfConfigGivenAsScenario(file));
        return out;
    }
    r.onlyKeys(doc, "",
               {"schema", "id", "name", "description", "source", "framework", "model", "training", "hardware", "cost"});
    r.choice(doc, "framework", "", s.framework, frameworkFromString, frameworkNames()); // set only when valid
    if (!doc.contains("schema"))
        r.error("/schema", std::string("is required and must be \"") + kScenarioSchema + "\"");
    else if (!doc.at("schema").is_string() || doc.at("schema").get<std::string>() != kScenarioSchema)
        r.error("/schema", std::string("must be \"") + kScenarioSchema + "\", got " + describe(doc.at("schema")));
    r.text(doc, "id", "", s.id);
    r.text(doc, "name", "", s.name);
    r.text(doc, "description", "", s.description);
    r.text(doc, "source", "", s.source);

    const json* model = nullptr;
    if (!r.object(doc, "model", "", model)) {
        if (!doc.contains("model"))
            r.error("/model", "is required (an architecture or params)");
    } else {
        const std::string p = "/model";
        r.onlyKeys(*model, p,
                   {"architecture", "params", "active_params", "published_params", "published_active_params"});
        const json* arch = nullptr;
        if (r.object(*model, "architecture", p, arch)) {
            s.model.hasArchitecture = true;
            readArchitecture(r, *arch, p + "/architecture", s.model.architecture);
        } else if (!model->contains("params")) {
            r.error(p + "/params", "is required when there is no architecture");
        }
        r.integer(*model, "params", p, s.model.params, 1, kMaxParams);
        r.integer(*model, "active_params", p, s.model.activeParams, 0, kMaxParams);
        int64_t published = 0;
        if (model->contains("published_params")) {
            r.integer(*model, "published_params", p, published, 1, kMaxParams);
            if (published > 0)
                s.model.publishedTotal = published;
        }
        if (model->contains("published_active_params")) {
            published = 0;
            r.integer(*model, "published_active_params", p, published, 1, kMaxParams);
            if (published > 0)
                s.model.publishedActive = published;
        }
        if (!s.model.hasArchitecture && s.model.activeParams > s.model.params)
            r.error(p + "/active_params", "must not exceed params (" + std::to_string(s.model.params) + "), got " +
                                              std::to_string(s.model.activeParams));
        if (s.model.hasArchitecture) {
            const ParamCount c = countParams(s.model.architecture);
            if (c.total > kMaxParams || c.total <= 0)
                r.error(p + "/architecture",
                        "describes " + formatCount(static_cast<double>(c.total)) + " parameters; the limit is 10^15");
            s.model.params = c.total;
            s.model.activeParams = c.active;
        }
    }

    std::optional<int64_t> globalBatch; // sequences per optimizer step: sets grad_accum below
    const json* training = nullptr;
    if (r.object(doc, "training", "", training)) {
        const std::string p = "/training";
        TrainingSetup& t = s.training;
        r.onlyKeys(*training, p,
                   {"mode",
                    "precision",
                    "optimizer",
                    "seq_len",
                    "micro_batch",
                    "grad_accum",
                    "global_batch",
                    "checkpointing",
                    "flash_attention",
                    "sequence_parallel",
                    "inference_weights",
                    "finetune",
                    "lora_rank",
                    "lora_targets",
                    "loss",
                    "compile",
                    "compile_loss",
                    "optimizer_in_backward",
                    "activation_offload",
                    "paged_optimizer",
                    "qlora_double_quant",
                    "litgpt_fp32_norm",
                    "qlora_base",
                    "litgpt_held_batch"});
        r.choice(*training, "mode", p, t.mode, modeFromString, modeNames());
        r.choice(*training, "precision", p, t.precision, precisionFromString, precisionNames());
        r.choice(*training, "optimizer", p, t.optimizer, optimizerFromString, optimizerNames());
        r.integer(*training, "seq_len", p, t.seqLen, 1, kMaxSeq, true);
        r.integer(*training, "micro_batch", p, t.microBatch, 1, kMaxMicroBatch);
        r.integer(*training, "grad_accum", p, t.gradAccum, 1, 1'000'000);
        if (training->contains("global_batch")) {
            globalBatch = 0;
            r.integer(*training, "global_batch", p, *globalBatch, 1, kMaxGlobalBatch);
            if (training->contains("grad_accum"))
                r.error(p + "/global_batch", "give grad_accum or global_batch, not both");
        }
        r.choice(*training, "checkpointing", p, t.checkpointing, checkpointingFromString, checkpointingNames());
        r.boolean(*training, "flash_attention", p, t.flashAttention);
        r.boolean(*training, "sequence_parallel", p, t.sequenceParallel);
        r.choice(*training, "inference_weights", p, t.inferenceWeights, inferenceWeightsFromString,
                 inferenceWeightsNames());
        r.choice(*training, "finetune", p, t.fineTune, fineTuneFromString, fineTuneNames());
        r.integer(*training, "lora_rank", p, t.loraRank, 1, kMaxLoraRank);
        // attn or all, or a PEFT module list such as "q_proj,v_proj" (issue 30 §2).
        if (const auto it = training->find("lora_targets");
            it != training->end() && it->is_string() && !loraTargetsFromString(it->get<std::string>())) {
            std::string why;
            if (const std::optional<uint32_t> m = loraModulesFromList(it->get<std::string>(), &why))
                t.loraModules = *m;
            else
                r.error(p + "/lora_targets", "must be " + loraTargetsNames() + " or a list of modules: " + why);
        } else {
            r.choice(*training, "lora_targets", p, t.loraTargets, loraTargetsFromString, loraTargetsNames());
        }
        r.choice(*training, "loss", p, t.loss, lossKindFromString, lossKindNames()); // left out: the framework's
        // The recipes (issue 30 §2): left out, each is the framework's default.
        r.boolean(*training, "compile", p, t.compile);
        r.boolean(*training, "compile_loss", p, t.compileLoss);
        r.boolean(*training, "optimizer_in_backward", p, t.optimizerInBackward);
        r.boolean(*training, "activation_offload", p, t.activationOffload);
        r.boolean(*training, "paged_optimizer", p, t.pagedOptimizer);
        r.boolean(*training, "qlora_double_quant", p, t.qloraDoubleQuant);
        r.choice(*training, "qlora_base", p, t.qloraBase, qloraBaseFromString, qloraBaseNames());
        // LitGPT's own switches mean something only under its profile.
        for (const auto& [key, field] : {std::pair<const char*, bool*>{"litgpt_fp32_norm", &t.litgptFp32Norm},
                                         {"litgpt_held_batch", &t.litgptHeldBatch}}) {
            r.boolean(*training, key, p, *field);
            if (training->contains(key) && s.framework != Framework::LitGPT)
                r.error(p + "/" + key, "applies only with \"framework\": \"litgpt\"");
        }
    }

    const json* hardware = nullptr;
    if (r.object(doc, "hardware", "", hardware)) {
        const std::string p = "/hardware";
        HardwareSetup& h = s.hardware;
        r.onlyKeys(*hardware, p,
                   {"gpu",
                    "gpus",
                    "zero_stage",
                    "tp",
                    "pp",
                    "ep",
                    "vpp",
                    "expert_tensor_parallel",
                    "context_parallel",
                    "offload",
                    "gpus_per_node",
                    "framework_bytes",
                    "fragmentation",
                    "first_stage_layers",
                    "last_stage_layers",
                    "embedding_in_pipeline_split",
                    "loss_in_pipeline_split",
                    "pipeline_layout",
                    "expandable_segments",
                    "reshard_after_forward",
                    "fsdp_flat_wrap",
                    "fsdp_no_sync",
                    "fsdp_root"});
        r.text(*hardware, "gpu", p, h.gpu);
        r.integer(*hardware, "gpus", p, h.gpus, 1, kMaxGpus);
        r.integer(*hardware, "zero_stage", p, h.zeroStage, 0, 3);
        r.integer(*hardware, "tp", p, h.tp, 1, kMaxGpus);
        r.integer(*hardware, "pp", p, h.pp, 1, kMaxGpus);
        r.integer(*hardware, "ep", p, h.ep, 1, kMaxGpus);
        r.integer(*hardware, "vpp", p, h.vpp, 1, kMaxLayers);
        r.integer(*hardware, "expert_tensor_parallel", p, h.etp, 1, kMaxGpus);
        r.integer(*hardware, "context_parallel", p, h.cp, 1, kMaxGpus);
        r.choice(*hardware, "offload", p, h.offload, offloadFromString, offloadNames());
        r.integer(*hardware, "gpus_per_node", p, h.gpusPerNode, 1, kMaxGpusPerNode);
        r.number(*hardware, "framework_bytes", p, h.frameworkBytes, 0, 1e12);
        r.number(*hardware, "fragmentation", p, h.fragmentation, 0, 1);
        r.boolean(*hardware, "expandable_segments", p, h.expandableSegments);
        r.boolean(*hardware, "reshard_after_forward", p, h.reshardAfterForward);
        r.boolean(*hardware, "fsdp_flat_wrap", p, h.fsdpFlatWrap);
        r.boolean(*hardware, "fsdp_no_sync", p, h.fsdpNoSync);
        // Left out: the framework's.
        r.choice(*hardware, "fsdp_root", p, h.fsdpRoot, fsdpRootFromString, fsdpRootNames());
        r.integer(*hardware, "first_stage_layers", p, h.split.firstLayers, 1, kMaxLayers);
        r.integer(*hardware, "last_stage_layers", p, h.split.lastLayers, 1, kMaxLayers);
        r.boolean(*hardware, "embedding_in_pipeline_split", p, h.split.embedding);
        r.boolean(*hardware, "loss_in_pipeline_split", p, h.split.loss);
        std::string layout;
        r.text(*hardware, "pipeline_layout", p, layout);
        if (const std::string why = setPipelineLayout(h.split, layout); !why.empty())
            r.error(p + "/pipeline_layout", why);
        // As Megatron-LM's arguments.py, the layout gives the virtual stages when vpp is not set.
        if (const int64_t v = layoutVirtualStages(h.split.stages, h.pp); v > 0 && !hardware->contains("vpp"))
            h.vpp = v;
    }

    const json* cost = nullptr;
    if (r.object(doc, "cost", "", cost)) {
        const std::string p = "/cost";
        r.onlyKeys(*cost, p, {"tokens", "mfu", "price_per_gpu_hour", "other_phases"});
        r.number(*cost, "tokens", p, s.cost.tokens, 0, 1e18);
        r.number(*cost, "mfu", p, s.cost.mfu, 1e-6, 1);
        r.number(*cost, "price_per_gpu_hour", p, s.cost.pricePerGpuHour, 0, 1e6);
        // Published phases after pre-training: [{"name": "context extension", "gpu_hours": 119000}, …].
        if (cost->contains("other_phases")) {
            const json& list = cost->at("other_phases");
            const std::string lp = p + "/other_phases";
            if (!list.is_array())
                r.error(lp, "must be a list of {\"name\", \"gpu_hours\"}, got " + describe(list));
            else if (list.size() > kMaxCostPhases)
                r.error(lp,
                        "lists " + std::to_string(list.size()) + " phases; at most " + std::to_string(kMaxCostPhases));
            else
                for (size_t i = 0; i < list.size(); ++i) {
                    const std::string ip = lp + "/" + std::to_string(i);
                    if (!list[i].is_object()) {
                        r.error(ip, "must be an object {\"name\", \"gpu_hours\"}, got " + describe(list[i]));
                        continue;
                    }
                    r.onlyKeys(list[i], ip, {"name", "gpu_hours"});
                    CostPhase phase;
                    if (!list[i].contains("name") || !list[i].contains("gpu_hours")) {
                        r.error(ip, "needs both name and gpu_hours");
                        continue;
                    }
                    r.text(list[i], "name", ip, phase.name);
                    r.number(list[i], "gpu_hours", ip, phase.gpuHours, 0, 1e12);
                    s.cost.otherPhases.push_back(phase);
                }
        }
    }

    // global_batch = micro_batch · dp · grad_accum (Megatron-LM's --global-batch-size): it must divide.
    if (globalBatch && *globalBatch > 0) {
        std::string why;
        if (const std::optional<int64_t> m = gradAccumForGlobalBatch(s, *globalBatch, &why))
            s.training.gradAccum = *m;
        else
            r.error("/training/global_batch", why);
    }

    // Cross-field rules (divisibility and ranges that depend on each other).
    for (FieldError& e : validateScenario(s, file)) {
        bool already = false;
        for (const FieldError& have : out.errors)
            already = already || have.path == e.path;
        if (!already)
            out.errors.push_back(std::move(e));
    }
    if (r.unlisted() > 0)
        out.errors.push_back(moreErrors(file, r.unlisted()));
    return out;
}

json scenarioToJson(const Scenario& s)
{
    json j;
    j["schema"] = kScenarioSchema;
    j["id"] = s.id;
    j["name"] = s.name;
    if (!s.description.empty())
        j["description"] = s.description;
    if (!s.source.empty())
        j["source"] = s.source;
    json model;
    if (s.model.hasArchitecture) {
        const Architecture& a = s.model.architecture;
        json arch = {{"layers", a.layers},
                     {"hidden", a.hidden},
                     {"heads", a.heads},
                     {"kv_heads", a.kvHeadsOrDefault()},
                     {"head_dim", a.headDimOrDefault()},
                     {"ffn", a.ffn},
                     {"ffn_kind", toString(a.ffnKind)},
                     {"vocab", a.vocab},
                     {"tied_embeddings", a.tiedEmbeddings},
                     {"bias", a.bias},
                     {"attention_bias", toString(a.attentionBiasOrDefault())},
                     {"mlp_bias", a.mlpBiasOrDefault()},
                     {"norm", toString(a.norm)},
                     {"norms_per_layer", a.normsPerLayer},
                     {"qk_norm", toString(a.qkNorm)},
                     {"attention", toString(a.attention)},
                     {"dropout", a.dropoutOrDefault()}};
        if (a.learnedPositions || a.maxPositions > 0) {
            arch["max_positions"] = a.maxPositions;
            arch["learned_positions"] = a.learnedPositions;
        }
        if (a.attention == AttentionKind::MLA)
            arch["mla"] = {{"q_lora_rank", a.mla.qLoraRank},
                           {"kv_lora_rank", a.mla.kvLoraRank},
                           {"qk_rope_head_dim", a.mla.qkRopeHeadDim},
                           {"qk_nope_head_dim", a.mla.qkNopeHeadDim},
                           {"v_head_dim", a.mla.vHeadDim}};
        if (a.attention == AttentionKind::MLA && a.mla.indexHeads > 0) { // written only with an indexer
            arch["mla"]["index_heads"] = a.mla.indexHeads;
            arch["mla"]["index_head_dim"] = a.mla.indexHeadDim;
            arch["mla"]["index_topk"] = a.mla.indexTopk;
        }
        if (a.isMoe())
            arch["moe"] = {{"experts", a.moe.experts},
                           {"active_experts", a.moe.activeExperts},
                           {"shared_experts", a.moe.sharedExperts},
                           {"expert_ffn", a.moe.expertFfn},
                           {"dense_layers", a.moe.denseLayers},
                           {"dense_ffn", a.moe.denseFfn},
                           {"score_correction_bias", a.moe.scoreCorrectionBias},
                           {"shared_expert_gate", a.moe.sharedExpertGate}};
        if (a.isMoe() && a.moe.denseBeside > 0) // written only when set (Gemma 4)
            arch["moe"]["dense_beside"] = a.moe.denseBeside;
        if (a.isMoe() && a.moe.routerScales)
            arch["moe"]["router_scales"] = true;
        if (a.isMoe() && a.moe.latent > 0) // written only when set (Nemotron 3 Super)
            arch["moe"]["latent"] = a.moe.latent;
        if (a.mtpLayers > 0)
            arch["mtp_layers"] = a.mtpLayers;
        if (a.attentionSinks) // written only when set: files of the models without sinks stay as they were
            arch["attention_sinks"] = true;
        if (a.headBias)
            arch["head_bias"] = true;
        if (a.visionParams > 0) // a multimodal wrapper's vision tower and projector (hfconfig.cpp)
            arch["vision_params"] = a.visionParams;
        if (a.audioParams > 0) // Gemma 4 E2B/E4B's audio tower and projector (hfconfig.cpp)
            arch["audio_params"] = a.audioParams;
        if (a.perLayerInput > 0) {
            arch["per_layer_input"] = a.perLayerInput;
            arch["per_layer_vocab"] = a.perLayerVocab;
        }
        if (a.gatedAttention)
            arch["gated_attention"] = true;
        if (a.kinds.any()) { // written only when set, as the sinks
            json kinds = json::object();
            if (a.kinds.sliding > 0) {
                kinds["sliding"] = a.kinds.sliding;
                kinds["sliding_window"] = a.kinds.window;
            }
            if (a.kinds.chunked > 0) {
                kinds["chunked"] = a.kinds.chunked;
                kinds["chunk_size"] = a.kinds.chunk;
            }
            if (a.kinds.mamba > 0) {
                const Mamba2Config& m = a.kinds.mamba2;
                kinds["mamba"] = a.kinds.mamba;
                kinds["mamba2"] = {{"heads", m.heads},       {"head_dim", m.headDim},       {"state_size", m.stateSize},
                                   {"groups", m.groups},     {"conv_kernel", m.convKernel}, {"conv_bias", m.convBias},
                                   {"proj_bias", m.projBias}};
                if (m.ssmStateBytes != 4) // left out when fp32 (Nemotron-H's cache)
                    kinds["mamba2"]["ssm_state_bytes"] = m.ssmStateBytes;
            }
            const std::pair<const char*, int64_t> counts[] = {{"ffn_only", a.kinds.ffnOnly},
                                                              {"mixer_only", a.kinds.mixerOnly},
                                                              {"full_head_dim", a.kinds.fullHeadDim},
                                                              {"full_kv_heads", a.kinds.fullKvHeads},
                                                              {"kv_shared_sliding", a.kinds.kvSharedSliding},
                                                              {"kv_shared_full", a.kinds.kvSharedFull},
                                                              {"kv_shared_ffn", a.kinds.kvSharedFfn}};
            for (const auto& [key, n] : counts)
                if (n > 0)
                    kinds[key] = n;
            if (a.kinds.fullKeyIsValue)
                kinds["full_k_eq_v"] = true;
            if (a.kinds.linear > 0) {
                const LinearAttentionConfig& g = a.kinds.linearAttention;
                kinds["linear"] = a.kinds.linear;
                kinds["linear_attention"] = {{"key_heads", g.keyHeads},
                                             {"key_head_dim", g.keyHeadDim},
                                             {"value_heads", g.valueHeads},
                                             {"value_head_dim", g.valueHeadDim},
                                             {"conv_kernel", g.convKernel}};
            }
            arch["layer_kinds"] = kinds;
        }
        model["architecture"] = arch;
    } else {
        model["params"] = s.model.params;
        model["active_params"] = s.model.activeParams > 0 ? s.model.activeParams : s.model.params;
    }
    if (s.model.publishedTotal)
        model["published_params"] = *s.model.publishedTotal;
    if (s.model.publishedActive)
        model["published_active_params"] = *s.model.publishedActive;
    j["model"] = model;
    const TrainingSetup& t = s.training;
    j["training"] = {{"mode", toString(t.mode)},
                     {"precision", toString(t.precision)},
                     {"optimizer", toString(t.optimizer)},
                     {"seq_len", t.seqLen},
                     {"micro_batch", t.microBatch},
                     {"grad_accum", t.gradAccum},
                     {"checkpointing", toString(t.checkpointing)},
                     {"flash_attention", t.flashAttention},
                     {"sequence_parallel", t.sequenceParallel},
                     {"inference_weights", toString(t.inferenceWeights)}};
    // Written only when they differ from the defaults, so that a full fine-tune's file is what it
    // was before LoRA existed, and every value still round-trips.
    if (t.fineTune != FineTune::Full || t.loraRank != kDefaultLoraRank || t.loraTargets != LoraTargets::Attention ||
        t.loraModules != 0) {
        j["training"]["finetune"] = toString(t.fineTune);
        j["training"]["lora_rank"] = t.loraRank;
        j["training"]["lora_targets"] = t.loraModules != 0 ? loraModulesList(t.loraModules) : toString(t.loraTargets);
    }
    if (t.loss)
        j["training"]["loss"] = toString(*t.loss); // left out when unset: the framework's, or the chapter's
    if (t.compile)
        j["training"]["compile"] = *t.compile; // the recipes: left out when unset (the framework's)
    if (t.compileLoss)
        j["training"]["compile_loss"] = *t.compileLoss;
    if (t.optimizerInBackward)
        j["training"]["optimizer_in_backward"] = *t.optimizerInBackward;
    if (t.activationOffload)
        j["training"]["activation_offload"] = *t.activationOffload;
    if (t.pagedOptimizer)
        j["training"]["paged_optimizer"] = true;
    if (!t.qloraDoubleQuant)
        j["training"]["qlora_double_quant"] = false; // left out when true (QLoRA's recipe)
    if (t.qloraBase != QloraBase::NF4)
        j["training"]["qlora_base"] = toString(t.qloraBase); // left out when nf4 (QLoRA's own)
    if (!t.litgptHeldBatch)
        j["training"]["litgpt_held_batch"] = false; // left out when true (fixed-length data)
    if (!t.litgptFp32Norm)
        j["training"]["litgpt_fp32_norm"] = false; // left out when true (LitGPT from 6178c7c on)
    if (s.framework)
        j["framework"] = toString(*s.framework);
    const HardwareSetup& h = s.hardware;
    j["hardware"] = {{"gpu", h.gpu},
                     {"gpus", h.gpus},
                     {"zero_stage", h.zeroStage},
                     {"tp", h.tp},
                     {"pp", h.pp},
                     {"ep", h.ep},
                     {"vpp", h.vpp},
                     {"framework_bytes", h.frameworkBytes},
                     {"fragmentation", h.fragmentation}};
    if (h.etp > 0)
        j["hardware"]["expert_tensor_parallel"] = h.etp; // unset means tp
    if (h.cp > 1)
        j["hardware"]["context_parallel"] = h.cp; // left out, it is 1
    if (h.offload != Offload::None)
        j["hardware"]["offload"] = toString(h.offload); // left out, it is none
    if (h.gpusPerNode != kDefaultGpusPerNode)
        j["hardware"]["gpus_per_node"] = h.gpusPerNode; // left out, it is 8
    if (h.expandableSegments)
        j["hardware"]["expandable_segments"] = *h.expandableSegments; // left out when unset
    if (h.reshardAfterForward)
        j["hardware"]["reshard_after_forward"] = *h.reshardAfterForward; // left out when unset
    if (h.fsdpFlatWrap)
        j["hardware"]["fsdp_flat_wrap"] = *h.fsdpFlatWrap; // left out when unset (the framework's default)
    if (h.fsdpNoSync)
        j["hardware"]["fsdp_no_sync"] = *h.fsdpNoSync;
    if (h.fsdpRoot)
        j["hardware"]["fsdp_root"] = toString(*h.fsdpRoot); // left out when unset (the framework's)
    // The pipeline split only when it is not the even one.
    if (h.split.firstLayers > 0)
        j["hardware"]["first_stage_layers"] = h.split.firstLayers;
    if (h.split.lastLayers > 0)
        j["hardware"]["last_stage_layers"] = h.split.lastLayers;
    if (h.split.embedding)
        j["hardware"]["embedding_in_pipeline_split"] = true;
    if (h.split.loss)
        j["hardware"]["loss_in_pipeline_split"] = true;
    if (h.split.hasLayout())
        j["hardware"]["pipeline_layout"] = h.split.layout;
    j["cost"] = {{"tokens", s.cost.tokens}, {"mfu", s.cost.mfu}, {"price_per_gpu_hour", s.cost.pricePerGpuHour}};
    if (!s.cost.otherPhases.empty()) {
        json phases = json::array();
        for (const CostPhase& p : s.cost.otherPhases)
            phases.push_back({{"name", p.name}, {"gpu_hours", p.gpuHours}});
        j["cost"]["other_phases"] = phases;
    }
    return j;
}

std::string scenarioToText(const Scenario& s)
{
    return jsonText(scenarioToJson(s), 2) + "\n";
}

} // namespace trainmem
