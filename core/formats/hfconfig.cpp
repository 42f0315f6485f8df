#include "hfconfig.h"

#include "accounting.h"
#include "params.h"
#include "units.h"

#include "jsontext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

// Each family below reads the fields its transformers configuration class defines and builds the
// modules its modeling file builds. Sources, huggingface/transformers at commit
// 00b676f8f0489b88652a31d70751cc540dd06305 (src/transformers/models/<family>/modeling_<family>.py):
//   llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe: q/k/v/o, gate/up/down, two RMSNorms
//     per layer, a final norm, embed_tokens and lm_head (tied when tie_word_embeddings);
//   gemma, gemma2, gemma3_text: GemmaRMSNorm (one weight of h), gated GELU with three matrices,
//     gemma2/gemma3 four norms per layer, gemma3 q_norm/k_norm of head_dim;
//   phi3: fused qkv_proj and gate_up_proj (same counts as separate matrices);
//   gpt2: wte, wpe, LayerNorms with bias, Conv1D c_attn/c_proj/c_fc with bias, lm_head tied to wte;
//   gpt_neox: embed_in, embed_out (untied), LayerNorms with bias, query_key_value/dense with bias
//     (attention_bias), dense_h_to_4h/dense_4h_to_h with bias;
//   olmo2: q_norm over heads·head_dim and k_norm over kv_heads·head_dim, post-attention and
//     post-feedforward norms (no pre-norms);
//   deepseek_v2, deepseek_v3: MLA projections, MoE with shared experts of
//     moe_intermediate_size·n_shared_experts, the first first_k_dense_replace layers dense. V3's
//     router keeps e_score_correction_bias as a buffer (register_buffer), not a parameter, so it is
//     not counted; its num_nextn_predict_layers multi-token-prediction modules are not built by transformers
//     either: they become Architecture::mtpLayers, outside the count, trained only in full training.
//   phi (modeling_phi.py @ 0faeaf39a9176bb1581969e51565851bfcc2dc98): parallel attention and MLP on one
//     input_layernorm (LayerNorm), q/k/v/dense and fc1/fc2 with biases, optional q/k LayerNorms of head_dim
//     (qk_layernorm), final_layernorm, untied lm_head with a bias;
//   smollm3 (modeling_smollm3.py; defaults from configuration_smollm3.py @
//     008e574391258935f3ecc3035c882e73bbcac419): llama's modules (its NoPE layers only skip the rotation, no
//     weights), tied by default, num_key_value_heads default 4;
//   olmoe (modeling_olmoe.py, the OlmoeAttention of 008e574391258935f3ecc3035c882e73bbcac419): q_norm over
//     hidden_size and k_norm over kv_heads·head_dim (OLMo 2's full-width norms), every layer MoE of
//     intermediate_size experts, router without bias, untied;
//   starcoder2 (modeling_starcoder2.py: mistral's attention with bias=use_bias, a GELU MLP c_fc/c_proj with
//     bias=use_bias, LayerNorms with bias, tied by default);
//   seed_oss (modeling_seed_oss.py): llama's modules with q/k/v biases (attention_bias) and the output
//     projection's apart (attention_out_bias), head_dim default 128, untied;
//   cohere2 (modeling_cohere2.py): parallel attention and MLP on one input_layernorm, a CohereLayerNorm with a
//     weight and no bias (counted as an RMSNorm: h weights), q/k/v/o with bias=attention_bias, SwiGLU without
//     bias, tied; logit_scale is a number, not a parameter;
//   exaone4 (modeling_exaone4.py): per-head q_norm/k_norm, the two norms after attention and after the MLP
//     (post_attention_layernorm, post_feedforward_layernorm; no pre-norms, as olmo2), untied;
//   gpt_bigcode (modeling_gpt_bigcode.py): gpt2's modules with multi-query attention (multi_query, default true):
//     c_attn Linear(h, h + 2·head_dim) with bias, c_proj, c_fc/c_proj MLP with biases, LayerNorms, tied wte;
//   qwen3_5_text (Qwen3.5's language model; modular_qwen3_5.py @ 8940358af7421e958995b05136ca14ce54bef39c):
//     Qwen3_5DecoderLayer is qwen3_next's layer with a dense Qwen3_5MLP of intermediate_size in every layer, and its
//     Gated DeltaNet splits in_proj_qkvz/in_proj_ba into in_proj_qkv, in_proj_z, in_proj_b, in_proj_a (the same
//     parameters); the qwen3_5 and qwen3_5_moe wrappers hold it under text_config (their vision tower below);
//   kimi_k2 (Moonshot's Kimi K2, and the text_config of Kimi K2.5's kimi_k25 wrapper): deepseek_v3's modules.
//     "Kimi-K2 reuses the DeepSeekV3CausalLM architecture [...] we set "model_type": "kimi_k2"" (Moonshot's deploy
//     guidance, docs/deploy_guidance.md §Others); transformers has no kimi_k2 class, and its deepseek_v3 keeps
//     e_score_correction_bias as a buffer. (DeepSeek's remote modeling_deepseek.py, which Kimi's repository ships,
//     makes it a parameter: 384 a MoE layer, 23,040 in all, not counted here.)
//   gemma4_text (Gemma 4's language model, the text_config of a gemma4 file; modeling_gemma4.py @
//     c308a309e651a7e033f683353f3f75aa66d29502): Gemma 3's layer whose full-attention layers have their own head
//     size and K/V heads (and no v_proj under attention_k_eq_v), and with enable_moe_block experts, a scaled router
//     and three more norms beside the dense MLP in every layer (readGemma4, readGemma4LayerKinds below).

namespace trainmem {
namespace {

using nlohmann::json;

// At most 40 characters of the value, written without dump()'s unbounded recursion (jsontext.h).
// dump() writes a non-finite number as null; the file wrote Infinity or NaN.
std::string describe(const json& v)
{
    if (v.is_number_float() && !std::isfinite(v.get<double>()))
        return std::isnan(v.get<double>()) ? "NaN" : (v.get<double>() > 0 ? "Infinity" : "-Infinity");
    return jsonSnippet(v, 40);
}

// Python's json module writes float('inf') and float('nan') as the bare words Infinity, -Infinity and NaN, and
// transformers reads config.json with it (PretrainedConfig._dict_from_json_file: json.loads), so configs hold
// them: nvidia's Nemotron-H files have "time_step_limit": [0.0, Infinity]. nlohmann/json refuses the words (and
// reports 1e999 as an overflow). Outside strings each word becomes a placeholder string, padded with spaces to
// the word's width so every later column in an error message stays where it was, and the placeholders are
// turned into the numbers after parsing. Words inside strings are left alone.
struct NonFinite {
    std::string_view word;
    double value;
};
const NonFinite kNonFinite[] = {{"NaN", std::numeric_limits<double>::quiet_NaN()},
                                {"Infinity", std::numeric_limits<double>::infinity()},
                                {"-Infinity", -std::numeric_limits<double>::infinity()}};
constexpr size_t kNonFiniteKinds = 3;

// Rewrites the words outside strings; placeholders[k] stands for kNonFinite[k]. Returns how many of each.
std::array<size_t, kNonFiniteKinds> rewriteNonFinite(std::string& text,
                                                     const std::array<std::string, kNonFiniteKinds>& placeholders)
{
    std::array<size_t, kNonFiniteKinds> counts{};
    bool inString = false;
    auto isWordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    auto wordAt = [&](size_t at, std::string_view word) {
        return text.compare(at, word.size(), word) == 0 &&
               (at + word.size() == text.size() || !isWordChar(text[at + word.size()])) &&
               (at == 0 || !isWordChar(text[at - 1]));
    };
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i; // the escaped character, a quote included
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            continue;
        }
        for (size_t k = 0; k < kNonFiniteKinds; ++k) {
            const std::string_view word = kNonFinite[k].word;
            if (!wordAt(i, word))
                continue;
            std::string quoted = "\"" + placeholders[k] + "\"";
            if (quoted.size() < word.size())
                quoted.append(word.size() - quoted.size(), ' ');
            text.replace(i, word.size(), quoted);
            i += quoted.size() - 1;
            ++counts[k];
            break;
        }
    }
    return counts;
}

// Turns the placeholder strings into their numbers when each occurs exactly as often as it was written (else a
// string of the file itself equals a placeholder and the caller tries others). Iterative: a config nests a few
// levels, a hostile file thousands.
bool restoreNonFinite(json& doc, const std::array<std::string, kNonFiniteKinds>& placeholders,
                      const std::array<size_t, kNonFiniteKinds>& expected)
{
    std::array<std::vector<json*>, kNonFiniteKinds> found;
    std::vector<json*> stack{&doc};
    while (!stack.empty()) {
        json* j = stack.back();
        stack.pop_back();
        if (j->is_string()) {
            for (size_t k = 0; k < kNonFiniteKinds; ++k)
                if (j->get_ref<const std::string&>() == placeholders[k])
                    found[k].push_back(j);
        } else if (j->is_structured()) {
            for (auto& child : *j)
                stack.push_back(&child);
        }
    }
    for (size_t k = 0; k < kNonFiniteKinds; ++k)
        if (found[k].size() != expected[k])
            return false;
    for (size_t k = 0; k < kNonFiniteKinds; ++k)
        for (json* j : found[k])
            *j = kNonFinite[k].value;
    return true;
}

// Parses config.json as Python's json.loads does (NaN, Infinity and -Infinity allowed); throws json::exception.
json parsePythonJson(std::string_view text)
{
    // Placeholders no wider than the words ("N", "I", "M" in quotes), unless the file has such a string already.
    // Longer names if the file holds such a string; when the placeholders still do not all come back (the
    // words sat where the parser never looked: fuzzing found a file that looped here for ever), the text is
    // parsed as it is, so that the parser names what is wrong.
    for (int attempt = 0; attempt < 3; ++attempt) {
        std::array<std::string, kNonFiniteKinds> placeholders{"N", "I", "M"};
        if (attempt > 0)
            for (auto& p : placeholders)
                p += std::to_string(attempt) + "-trainmem-nonfinite";
        std::string copy(text);
        const auto counts = rewriteNonFinite(copy, placeholders);
        json doc = json::parse(copy);
        if (counts == std::array<size_t, kNonFiniteKinds>{} || restoreNonFinite(doc, placeholders, counts))
            return doc;
    }
    return json::parse(text);
}

// Reads the fields of one config object; `base` prefixes every JSON pointer ("" or "/text_config").
class HfReader
{
public:
    HfReader(const json& j, std::string base, std::string file, FieldErrors& errors)
        : m_j(j), m_base(std::move(base)), m_file(std::move(file)), m_errors(errors)
    {
    }

    void error(const std::string& key, const std::string& message)
    {
        m_errors.push_back({m_file, m_base + (key.empty() ? "" : "/" + key), message});
    }
    // JSON null means "not set" in these files (head_dim, q_lora_rank, n_inner, …).
    bool has(const char* key) const { return m_j.contains(key) && !m_j.at(key).is_null(); }
    /// The key is written as null (not set, where the class's default would otherwise apply).
    bool isNull(const char* key) const { return m_j.contains(key) && m_j.at(key).is_null(); }
    const json& at(const char* key) const { return m_j.at(key); }

    /// A whole number in [min, max]; `required` reports a missing field, otherwise `fallback` is used.
    int64_t integer(const char* key, bool required, int64_t fallback, int64_t min, int64_t max)
    {
        if (!has(key)) {
            if (required)
                error(key, "is required");
            return fallback;
        }
        const json& v = at(key);
        std::optional<int64_t> n;
        if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
            n = v.get<int64_t>();
        else if (v.is_number_float() && std::isfinite(v.get<double>()) &&
                 v.get<double>() == std::round(v.get<double>()) && std::fabs(v.get<double>()) < 9e18)
            n = static_cast<int64_t>(v.get<double>());
        const std::string kind = min >= 1 ? "a positive integer" : "a non-negative integer";
        if (!n || (*n < min && *n <= 0)) {
            error(key, "must be " + kind + ", got " + describe(v));
            return fallback;
        }
        if (*n < min || *n > max) {
            error(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                           std::to_string(*n));
            return fallback;
        }
        return *n;
    }

    bool flag(const char* key, bool fallback)
    {
        if (!has(key))
            return fallback;
        if (!at(key).is_boolean()) {
            error(key, "must be true or false, got " + describe(at(key)));
            return fallback;
        }
        return at(key).get<bool>();
    }

    double fraction(const char* key, double fallback)
    {
        if (!has(key))
            return fallback;
        if (!at(key).is_number()) {
            error(key, "must be a number, got " + describe(at(key)));
            return fallback;
        }
        return at(key).get<double>();
    }

    std::string text(const char* key)
    {
        if (!has(key))
            return {};
        if (!at(key).is_string()) {
            error(key, "must be a string, got " + describe(at(key)));
            return {};
        }
        return at(key).get<std::string>();
    }

    /// Layer indices (mlp_only_layers), each checked against the layer count.
    std::set<int64_t> layerList(const char* key, int64_t layers)
    {
        std::set<int64_t> out;
        if (!has(key))
            return out;
        if (!at(key).is_array()) {
            error(key, "must be a list of layer indices, got " + describe(at(key)));
            return out;
        }
        const json& list = at(key);
        for (size_t i = 0; i < list.size(); ++i) {
            const json& v = list[i];
            if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= layers) {
                m_errors.push_back(
                    {m_file, m_base + "/" + key + "/" + std::to_string(i),
                     "must be a layer index from 0 to " + std::to_string(layers - 1) + ", got " + describe(v)});
                continue;
            }
            out.insert(v.get<int64_t>());
        }
        return out;
    }

    /// layer_types (transformers' per-layer attention kinds, configuration_utils.py layer_type_validation):
    /// one of `allowed` for each of the `layers` layers. Returns how many layers have each kind, in the
    /// order of `allowed` (all zero when the file has no list, or a wrong one).
    std::vector<int64_t> layerKinds(const char* key, int64_t layers, const std::vector<std::string>& allowed)
    {
        std::vector<int64_t> counts(allowed.size(), 0);
        if (!has(key))
            return counts;
        if (!at(key).is_array()) {
            error(key, "must be a list of layer kinds, got " + describe(at(key)));
            return counts;
        }
        const json& list = at(key);
        if (static_cast<int64_t>(list.size()) != layers) {
            error(key, "has " + std::to_string(list.size()) + (list.size() == 1 ? " entry" : " entries") + " for " +
                           std::to_string(layers) + " layers (num_hidden_layers); it needs one a layer");
            return counts;
        }
        std::string known;
        for (const std::string& k : allowed)
            known += (known.empty() ? "" : ", ") + k;
        std::vector<int64_t> seen(allowed.size(), 0);
        bool bad = false;
        for (size_t i = 0; i < list.size(); ++i) {
            const json& v = list[i];
            const auto it =
                v.is_string() ? std::find(allowed.begin(), allowed.end(), v.get<std::string>()) : allowed.end();
            if (it == allowed.end()) {
                m_errors.push_back({m_file, m_base + "/" + key + "/" + std::to_string(i),
                                    "unknown layer kind " + describe(v) + " at layer " + std::to_string(i) +
                                        " (known: " + known + ")"});
                bad = true;
                continue;
            }
            ++seen[static_cast<size_t>(it - allowed.begin())];
        }
        return bad ? counts : seen;
    }

private:
    const json& m_j;
    std::string m_base;
    std::string m_file;
    FieldErrors& m_errors;
};

enum class Family {
    Llama,
    Mistral,
    Mixtral,
    Qwen2,
    Qwen2Moe,
    Qwen3,
    Qwen3Moe,
    Gemma,
    Gemma2,
    Gemma3,
    Phi3,
    Gpt2,
    GptNeoX,
    Olmo2,
    DeepseekV2,
    DeepseekV3,
    GptOss,
    Phi,
    SmolLM3,
    Olmoe,
    Starcoder2,
    SeedOss,
    Cohere2,
    Exaone4,
    GptBigCode,
    Llama4,
    Glm4Moe,
    MiniMaxM2,
    GraniteMoe,
    Falcon,
    Qwen3Next,
    NemotronH,
    Qwen3_5,
    Qwen3_5Moe,
    GlmMoeDsa,
    Gemma4,
    GraniteMoeHybrid
};

const std::vector<std::pair<std::string, Family>>& families()
{
    static const std::vector<std::pair<std::string, Family>> list{{"llama", Family::Llama},
                                                                  {"mistral", Family::Mistral},
                                                                  {"mixtral", Family::Mixtral},
                                                                  {"qwen2", Family::Qwen2},
                                                                  {"qwen2_moe", Family::Qwen2Moe},
                                                                  {"qwen3", Family::Qwen3},
                                                                  {"qwen3_moe", Family::Qwen3Moe},
                                                                  {"gemma", Family::Gemma},
                                                                  {"gemma2", Family::Gemma2},
                                                                  {"gemma3_text", Family::Gemma3},
                                                                  {"phi3", Family::Phi3},
                                                                  {"gpt2", Family::Gpt2},
                                                                  {"gpt_neox", Family::GptNeoX},
                                                                  {"olmo2", Family::Olmo2},
                                                                  {"deepseek_v2", Family::DeepseekV2},
                                                                  {"deepseek_v3", Family::DeepseekV3},
                                                                  // Moonshot's Kimi K2 (and Kimi K2.5's
                                                                  // text_config): DeepSeek-V3 under its own name.
                                                                  {"kimi_k2", Family::DeepseekV3},
                                                                  // DeepSeek-V3.2: V3's modules and, in every
                                                                  // layer's attention, the sparse-attention indexer.
                                                                  {"deepseek_v32", Family::DeepseekV3},
                                                                  {"gpt_oss", Family::GptOss},
                                                                  {"phi", Family::Phi},
                                                                  {"smollm3", Family::SmolLM3},
                                                                  {"olmoe", Family::Olmoe},
                                                                  {"starcoder2", Family::Starcoder2},
                                                                  {"seed_oss", Family::SeedOss},
                                                                  {"cohere2", Family::Cohere2},
                                                                  {"exaone4", Family::Exaone4},
                                                                  {"gpt_bigcode", Family::GptBigCode},
                                                                  // Llama 4's text_config (inside a llama4 wrapper)
                                                                  {"llama4_text", Family::Llama4},
                                                                  {"glm4_moe", Family::Glm4Moe},
                                                                  {"minimax_m2", Family::MiniMaxM2},
                                                                  // IBM's Granite MoE
                                                                  {"granitemoe", Family::GraniteMoe},
                                                                  {"falcon", Family::Falcon},
                                                                  // Qwen3-VL's text_configs: Qwen3's and Qwen3-MoE's
                                                                  // modules (modeling_qwen3_vl.py,
                                                                  // modeling_qwen3_vl_moe.py)
                                                                  {"qwen3_vl_text", Family::Qwen3},
                                                                  {"qwen3_vl_moe_text", Family::Qwen3Moe},
                                                                  // Qwen2.5-VL's language model: Qwen2's modules
                                                                  // (modeling_qwen2_5_vl.py)
                                                                  {"qwen2_5_vl_text", Family::Qwen2},
                                                                  {"qwen3_next", Family::Qwen3Next},
                                                                  {"nemotron_h", Family::NemotronH},
                                                                  // Qwen3.5's language model (the text_config of a
                                                                  // qwen3_5 file): qwen3_next's layers, a dense MLP.
                                                                  {"qwen3_5_text", Family::Qwen3_5},
                                                                  {"qwen3_5_moe_text", Family::Qwen3_5Moe},
                                                                  // GLM-5: DeepSeek-V3.2's MLA, indexer and MoE
                                                                  {"glm_moe_dsa", Family::GlmMoeDsa},
                                                                  // Gemma 4's language model (the text_config of a
                                                                  // gemma4 file)
                                                                  {"gemma4_text", Family::Gemma4},
                                                                  // IBM's Granite 4.0 H: Mamba-2 and attention
                                                                  // layers, each with a MoE (or dense) MLP
                                                                  {"granitemoehybrid", Family::GraniteMoeHybrid}};
    return list;
}

std::optional<Family> familyOf(const std::string& type)
{
    for (const auto& [name, f] : families())
        if (name == type)
            return f;
    return std::nullopt;
}

// Multimodal wrappers: a config.json whose model_type names the whole model, the language model under text_config
// and the vision tower under vision_config. The language model is read as its family; the vision tower and the
// projector are counted apart (Architecture::visionParams) by `vision`, from the wrapper's modeling file.
enum class VisionTower { None, Llama4, Qwen3VL, Qwen3_5, Qwen25VL, Gemma3, Pixtral, MoonViT, Gemma4 };
struct Wrapper {
    const char* type;
    const char* textType; ///< the text_config's model_type when the file leaves it out
    VisionTower vision;
    /// The wrapper's text configuration class's sizes where they differ from the family's (0: the family's rule).
    int64_t hidden = 0, layers = 0, heads = 0, vocab = 0, ffn = 0, kvHeads = 0;
};
const std::vector<Wrapper>& wrappers()
{
    static const std::vector<Wrapper> list{
        {"llama4", "llama4_text", VisionTower::Llama4},
        // Qwen3VLTextConfig's defaults (configuration_qwen3_vl.py @
        // e1b551679e267be053b45581cbabd028a14defd2)
        {"qwen3_vl", "qwen3_vl_text", VisionTower::Qwen3VL, 4096, 32, 32, 151936, 22016, 32},
        {"qwen3_vl_moe", "qwen3_vl_moe_text", VisionTower::Qwen3VL},
        // Qwen3.5's language model is its own family (Qwen3_5TextConfig's defaults are the family's)
        {"qwen3_5", "qwen3_5_text", VisionTower::Qwen3_5},
        {"qwen3_5_moe", "qwen3_5_moe_text", VisionTower::Qwen3_5},
        // Qwen2.5-VL's files keep the language model's fields at the top level
        // (Qwen2_5_VLConfig @ aa0dc95c2f288788c2cf06eb3e17bb182cea66d0), newer ones
        // under text_config: either is read.
        {"qwen2_5_vl", "qwen2_5_vl_text", VisionTower::Qwen25VL, 8192, 80, 64, 152064, 29568, 8},
        {"gemma3", "gemma3_text", VisionTower::Gemma3},
        // Mistral Small 3.1/3.2: a Mistral language model and a Pixtral tower
        {"mistral3", "mistral", VisionTower::Pixtral},
        // Kimi K2.5: Kimi K2's language model and Moonshot's MoonViT tower
        // (remote code; no transformers class)
        {"kimi_k25", "kimi_k2", VisionTower::MoonViT},
        // Gemma 4: its own language model and vision encoder (modeling_gemma4.py)
        {"gemma4", "gemma4_text", VisionTower::Gemma4}};
    return list;
}
const Wrapper* wrapperOf(const std::string& type)
{
    for (const Wrapper& w : wrappers())
        if (type == w.type)
            return &w;
    return nullptr;
}

std::string supportedList()
{
    std::string out;
    for (const auto& [name, f] : families())
        out += (out.empty() ? "" : ", ") + name;
    for (const Wrapper& w : wrappers())
        out += std::string(", ") + w.type;
    return out;
}

// The layers whose FFN is a mixture of experts, counted from the patterns the configs use:
// Qwen (modeling_qwen2_moe.py, modeling_qwen3_moe.py): layer i is sparse when i is not in
// mlp_only_layers and (i + 1) % decoder_sparse_step == 0; DeepSeek (modeling_deepseek_v2.py):
// when i >= first_k_dense_replace and i % moe_layer_freq == 0. Parameters and activations depend on
// how many layers are dense, not where they sit, so the architecture keeps the count.
int64_t qwenMoeLayers(int64_t layers, int64_t step, const std::set<int64_t>& mlpOnly)
{
    int64_t n = 0;
    for (int64_t i = 0; i < layers; ++i)
        n += !mlpOnly.count(i) && (i + 1) % step == 0;
    return n;
}

int64_t deepseekMoeLayers(int64_t layers, int64_t firstDense, int64_t freq)
{
    int64_t n = 0;
    for (int64_t i = 0; i < layers; ++i)
        n += i >= firstDense && i % freq == 0;
    return n;
}

// The sizes a family's configuration class defaults, for the families whose config.json may leave them out
// (transformers fills them in: PreTrainedConfig subclasses are dataclasses with these defaults). 0: required.
struct SizeDefaults {
    int64_t hidden = 0, layers = 0, heads = 0, vocab = 0, ffn = 0;
    int64_t kvHeads = 0; ///< 0: the family's rule below
};
SizeDefaults sizeDefaults(Family f)
{
    switch (f) {
    case Family::Gemma3: // Gemma3TextConfig, configuration_gemma3.py @ 008f5c8c29be84d4721dc6d1e0fcd72300580be4;
                         // the multimodal gemma3 files' text_config leaves most of these out
        return {2304, 26, 8, 262208, 9216};
    case Family::GptOss: // configuration_gpt_oss.py @ 02b8f42b4240dddea1b27c45d2dc95fb2682f841 (gpt-oss-120b)
        return {2880, 36, 64, 201088, 2880};
    case Family::Olmoe: // configuration_olmoe.py @ 008e574391258935f3ecc3035c882e73bbcac419
        return {2048, 16, 16, 50304, 2048};
    case Family::GptBigCode: // configuration_gpt_bigcode.py @ 05ff2e98e4461ece6e706435e2a57834bb4f985f (n_inner
                             // null: 4·n_embd, n_positions 1024)
        return {768, 12, 12, 50257, 0};
    case Family::Exaone4: // configuration_exaone4.py @ 008e574391258935f3ecc3035c882e73bbcac419
        return {4096, 32, 32, 102400, 16384};
    case Family::Cohere2: // configuration_cohere2.py @ 008e574391258935f3ecc3035c882e73bbcac419
        return {8192, 40, 64, 256000, 22528};
    case Family::SeedOss: // configuration_seed_oss.py @ 008e574391258935f3ecc3035c882e73bbcac419
        return {4096, 64, 80, 155136, 27648};
    case Family::Starcoder2: // configuration_starcoder2.py @ 008e574391258935f3ecc3035c882e73bbcac419
        return {3072, 30, 24, 49152, 12288};
    case Family::SmolLM3: // configuration_smollm3.py @ 008e574391258935f3ecc3035c882e73bbcac419 (SmolLM3-3B)
        return {2048, 36, 16, 128256, 11008};
    case Family::Llama4: // Llama4TextConfig, configuration_llama4.py @ 008e574391258935f3ecc3035c882e73bbcac419
                         // (Llama 4 Scout's text model)
        return {5120, 48, 40, 202048, 8192};
    case Family::Glm4Moe: // Glm4MoeConfig, configuration_glm4_moe.py @ 008e574391258935f3ecc3035c882e73bbcac419
                          // (GLM-4.5-Air's sizes)
        return {4096, 46, 96, 151552, 10944};
    case Family::MiniMaxM2: // MiniMaxM2Config, modular_minimax_m2.py @ 001f85b38fb432858ace93f18622f07cec46d874
        return {3072, 62, 48, 200064, 1536};
    case Family::GraniteMoe: // GraniteMoeConfig, configuration_granitemoe.py @
                             // 546b1438deb6f79c35f482f58fa5c8838451e47e
        return {4096, 32, 32, 32000, 11008};
    case Family::Falcon: // FalconConfig (falcon-7b's sizes; ffn_hidden_size null: 4·hidden)
        return {4544, 32, 71, 65024, 0};
    case Family::Qwen3Next: // configuration_qwen3_next.py @ 249ef8164cfbd8e288c2f6d8395539b9e90e8300
        return {2048, 48, 16, 151936, 5632};
    case Family::Qwen3_5: // Qwen3_5TextConfig, modular_qwen3_5.py @ 8940358af7421e958995b05136ca14ce54bef39c
        return {4096, 32, 16, 248320, 12288};
    case Family::Qwen3_5Moe: // Qwen3_5MoeTextConfig, modular_qwen3_5_moe.py @ e36255cb9af68ea2c16fefd6b1c798882cafda16
                             // (it has no intermediate_size: every layer is MoE; 512 stands in, unused)
        return {2048, 40, 16, 248320, 512};
    case Family::GlmMoeDsa: // GlmMoeDsaConfig, configuration_glm_moe_dsa.py @ 598881bceccfbc4ec888e43df68dc235415426bf
                            // (GLM-5's sizes)
        return {6144, 78, 64, 154880, 12288};
    case Family::Gemma4: // Gemma4TextConfig, configuration_gemma4.py @ 008e574391258935f3ecc3035c882e73bbcac419
        return {2304, 30, 8, 262144, 9216, 4};
    case Family::NemotronH: // configuration_nemotron_h.py @ cfeb552ef0cb77b59ff08da07698ecaad5f7b5ba (the layers
                            // are the pattern's; 4 is its default layers_block_type's)
        return {4096, 4, 32, 131072, 21504};
    case Family::GraniteMoeHybrid: // GraniteMoeHybridConfig, configuration_granitemoehybrid.py @
                                   // 4f7e1d467f2615fe8de4a089a8b90cf861bea4d7 (intermediate_size: the experts')
        return {4096, 32, 32, 32000, 11008};
    default:
        return {};
    }
}

// Layers of `layers` whose index i has (i + 1) % period != 0: the layer_types transformers fills for gpt-oss and
// Gemma 2 (period 2: sliding, full, sliding, …), Gemma 3 (sliding_window_pattern, 6) and Qwen3-Next
// (full_attention_interval, 4: three linear, one full).
int64_t layersOffPeriod(int64_t layers, int64_t period)
{
    return period > 0 ? layers - layers / period : 0;
}

// The layer kinds (issue 29 §2): how many layers attend through a sliding window, or through Gated DeltaNet, read
// from layer_types (transformers' per-layer kinds, configuration_utils.py layer_type_validation) or, where the file
// has none, the pattern the family's configuration class fills in:
//   gpt_oss: GptOssConfig (configuration_gpt_oss.py @ 828a27fd326e49d4a1c4b08210bfd32c107facc9) layer_types
//     "sliding_attention" if (i + 1) % 2 else "full_attention", sliding_window 128;
//   gemma2: Gemma2DecoderLayer's is_sliding = not bool(layer_idx % 2) (modeling_gemma2.py before layer_types), the
//     same alternation; sliding_window 4096 (configuration_gemma2.py @ 19f5346140749359823ef26c4183bd8f1aed3db7);
//   gemma3_text: sliding unless (i + 1) % sliding_window_pattern == 0, pattern 6, sliding_window 4096
//     (configuration_gemma3.py @ d98ac17cc00f337eeee9a1e2380072dc8cafabd4: "HybridCache to work with 5:1");
//   mistral: every layer attends through sliding_window, default 4096, null for none (configuration_mistral.py @
//     0b07a74c673bdf8fbd472a1c7df139b357495414);
//   qwen3_next: "linear_attention" if (i + 1) % full_attention_interval else "full_attention", interval 4, and
//     the Gated DeltaNet widths linear_* (configuration_qwen3_next.py @ 249ef8164cfbd8e288c2f6d8395539b9e90e8300);
//   cohere2: "sliding_attention" if (i + 1) % sliding_window_pattern else "full_attention", the pattern 4 (a kwarg
//     older files still write), sliding_window 4096 (Cohere2Config.__post_init__, configuration_cohere2.py @
//     008e574391258935f3ecc3035c882e73bbcac419): three sliding layers, then one full;
//   exaone4: the same rule, sliding_window_pattern 4 and sliding_window 4096 (Exaone4Config.__post_init__,
//     configuration_exaone4.py @ 008e574391258935f3ecc3035c882e73bbcac419; a null sliding_window leaves no
//     sliding layer). EXAONE 4.0's own files write layer_types beside a pattern string ("LLLG"), read as above.
// Another family's layer_types is read the same way (Qwen3 and Qwen2 write one, all full attention unless
// use_sliding_window). A sliding kind with no window in the file or the class is counted as full attention.
// Gemma 4's layer kinds (issue 29 §2). Gemma4TextConfig.__post_init__ (configuration_gemma4.py @
// 008e574391258935f3ecc3035c882e73bbcac419): layer_types as written, or "sliding_attention" unless (i + 1) % 6 == 0;
// either way the last layer is forced to "full_attention"; sliding_window 512, (w // 2) + 1 under
// use_bidirectional_attention "all". Gemma4TextAttention (modeling_gemma4.py @
// c308a309e651a7e033f683353f3f75aa66d29502) gives a full-attention layer its own shape: head_dim global_head_dim
// ("config.global_head_dim if not self.is_sliding and config.global_head_dim else config.head_dim"; 512 when the file
// leaves it out, the config's kwargs.pop default), num_global_key_value_heads K/V heads when attention_k_eq_v, and then
// no v_proj ("value_states = ... if self.v_proj is not None else key_states").
void readGemma4LayerKinds(HfReader& r, Architecture& a)
{
    const std::vector<int64_t> kinds = r.layerKinds("layer_types", a.layers, {"full_attention", "sliding_attention"});
    // Each layer's kind, as __post_init__ leaves layer_types (a wrong list has been reported: all full then).
    std::vector<bool> isFull(static_cast<size_t>(std::max<int64_t>(a.layers, 0)), true);
    const bool listed = r.has("layer_types") && kinds[0] + kinds[1] == a.layers;
    for (int64_t i = 0; i < a.layers; ++i)
        isFull[static_cast<size_t>(i)] =
            listed ? r.at("layer_types")[static_cast<size_t>(i)] == "full_attention" : (i + 1) % 6 == 0;
    if (!isFull.empty() && (listed || !r.has("layer_types")))
        isFull.back() = true; // "Forcing last layer to `full_attention`"
    else if (r.has("layer_types"))
        std::fill(isFull.begin(), isFull.end(), true);
    const int64_t sliding = static_cast<int64_t>(std::count(isFull.begin(), isFull.end(), false));
    // The E2B and E4B models' KV sharing (Gemma4TextAttention: is_kv_shared_layer = layer_idx >=
    // num_hidden_layers - num_kv_shared_layers > 0, each reading the last earlier non-shared layer of its own type,
    // which must exist; Gemma4TextMLP doubles intermediate_size there under use_double_wide_mlp). Defaults 0 and false
    // (Gemma4TextConfig, configuration_gemma4.py @ 008e574391258935f3ecc3035c882e73bbcac419).
    const int64_t shared = r.integer("num_kv_shared_layers", false, 0, 0, kMaxLayers);
    if (shared > 0 && shared >= a.layers) {
        r.error("num_kv_shared_layers", "must leave at least one layer that computes its own keys and values (" +
                                            std::to_string(a.layers) + " layers), got " + std::to_string(shared));
    } else if (shared > 0) {
        int64_t sharedFull = 0, sharedSliding = 0;
        bool ownFull = false, ownSliding = false;
        for (int64_t i = 0; i < a.layers; ++i) {
            const bool full = isFull[static_cast<size_t>(i)];
            if (i < a.layers - shared)
                (full ? ownFull : ownSliding) = true;
            else
                ++(full ? sharedFull : sharedSliding);
        }
        if ((sharedFull > 0 && !ownFull) || (sharedSliding > 0 && !ownSliding))
            r.error("num_kv_shared_layers",
                    "leaves no earlier " + std::string(sharedFull > 0 && !ownFull ? "full-attention" : "sliding") +
                        " layer for the shared layers of that kind to take their keys and values from");
        a.kinds.kvSharedFull = sharedFull;
        a.kinds.kvSharedSliding = sharedSliding;
        if (r.flag("use_double_wide_mlp", false))
            a.kinds.kvSharedFfn = 2 * a.ffn;
    }
    int64_t window = r.integer("sliding_window", false, 512, 1, INT64_MAX);
    if (r.has("use_bidirectional_attention") && r.at("use_bidirectional_attention") == "all")
        window = window / 2 + 1; // "due to fa we set exclusive bounds"
    if (sliding > 0) {
        a.kinds.sliding = sliding;
        a.kinds.window = std::min(window, kMaxSeq);
    }
    const bool keyIsValue = r.flag("attention_k_eq_v", false);
    const int64_t globalHeadDim = r.integer("global_head_dim", false, 512, 0, 65536);
    const int64_t fullKv = keyIsValue ? r.integer("num_global_key_value_heads", false, a.kvHeadsOrDefault(), 1, 65536)
                                      : a.kvHeadsOrDefault();
    if (a.heads > 0 && a.heads % fullKv != 0)
        r.error("num_global_key_value_heads",
                "must divide num_attention_heads (" + std::to_string(a.heads) + "), got " + std::to_string(fullKv));
    if (globalHeadDim > 0 && globalHeadDim != a.headDimOrDefault())
        a.kinds.fullHeadDim = globalHeadDim;
    if (fullKv != a.kvHeadsOrDefault())
        a.kinds.fullKvHeads = fullKv;
    a.kinds.fullKeyIsValue = keyIsValue;
}

void readLayerKinds(HfReader& r, Family f, Architecture& a)
{
    if (f == Family::NemotronH || f == Family::GraniteMoeHybrid)
        return; // their blocks are read with their family (readNemotronH, readGraniteMoeHybrid)
    if (f == Family::Qwen3Next || f == Family::Qwen3_5 || f == Family::Qwen3_5Moe) {
        const std::vector<int64_t> kinds =
            r.layerKinds("layer_types", a.layers, {"linear_attention", "full_attention"});
        if (r.has("layer_types"))
            a.kinds.linear = kinds[0];
        else
            a.kinds.linear = layersOffPeriod(a.layers, r.integer("full_attention_interval", false, 4, 1, kMaxLayers));
        LinearAttentionConfig& g = a.kinds.linearAttention;
        g.keyHeads = r.integer("linear_num_key_heads", false, 16, 1, 65536);
        g.keyHeadDim = r.integer("linear_key_head_dim", false, 128, 1, 65536);
        g.valueHeads = r.integer("linear_num_value_heads", false, 32, 1, 65536);
        g.valueHeadDim = r.integer("linear_value_head_dim", false, 128, 1, 65536);
        g.convKernel = r.integer("linear_conv_kernel_dim", false, 4, 1, 1024);
        // fix_query_key_value_ordering groups the value heads under the key heads.
        if (g.valueHeads % g.keyHeads != 0)
            r.error("linear_num_value_heads", "must be a multiple of linear_num_key_heads (" +
                                                  std::to_string(g.keyHeads) + "), got " +
                                                  std::to_string(g.valueHeads));
        return;
    }
    if (f == Family::Llama4) {
        // Llama4TextConfig.__post_init__ (configuration_llama4.py @ 008e574391258935f3ecc3035c882e73bbcac419):
        // layer_types "chunked_attention" where no_rope_layers is 1, else "full_attention"; no_rope_layers defaults to
        // (i + 1) % no_rope_layer_interval != 0, interval 4: three chunked (RoPE) layers, then one full (NoPE) layer.
        // attention_chunk_size 8192.
        const std::vector<int64_t> kinds =
            r.layerKinds("layer_types", a.layers, {"chunked_attention", "full_attention"});
        const int64_t chunked =
            r.has("layer_types")
                ? kinds[0]
                : layersOffPeriod(a.layers, r.integer("no_rope_layer_interval", false, 4, 1, kMaxLayers));
        const int64_t chunk = r.integer("attention_chunk_size", false, 8192, 1, INT64_MAX);
        if (chunked > 0) {
            a.kinds.chunked = chunked;
            a.kinds.chunk = std::min(chunk, kMaxSeq);
        }
        return;
    }
    if (f == Family::Gemma4) {
        readGemma4LayerKinds(r, a);
        return;
    }
    // gpt-oss's files list sliding_attention first; the message names the kinds in the file's order.
    const bool slidingFirst = f == Family::GptOss;
    const std::vector<int64_t> kinds =
        r.layerKinds("layer_types", a.layers,
                     slidingFirst ? std::vector<std::string>{"sliding_attention", "full_attention"}
                                  : std::vector<std::string>{"full_attention", "sliding_attention"});
    int64_t sliding = 0;
    if (r.has("layer_types"))
        sliding = kinds[slidingFirst ? 0 : 1];
    else if (f == Family::GptOss || f == Family::Gemma2)
        sliding = layersOffPeriod(a.layers, 2);
    else if (f == Family::Gemma3)
        sliding = layersOffPeriod(a.layers, r.integer("sliding_window_pattern", false, 6, 1, kMaxLayers));
    else if (f == Family::Mistral)
        sliding = a.layers;
    else if ((f == Family::Cohere2 || f == Family::Exaone4) && !r.isNull("sliding_window"))
        sliding = layersOffPeriod(a.layers, r.integer("sliding_window_pattern", false, 4, 1, kMaxLayers));
    const bool window4096 = f == Family::Gemma2 || f == Family::Gemma3 || f == Family::Mistral ||
                            f == Family::Cohere2 || f == Family::Exaone4;
    const int64_t defaultWindow = f == Family::GptOss ? 128 : window4096 ? 4096 : 0;
    // null means no window (Mistral 7B v0.2 on); absent, the class's default.
    const bool nullWindow = r.isNull("sliding_window");
    const int64_t window = nullWindow ? 0 : r.integer("sliding_window", false, defaultWindow, 1, INT64_MAX);
    if (sliding > 0 && window > 0) {
        a.kinds.sliding = sliding;
        a.kinds.window = std::min(window, kMaxSeq);
    }
}

// Nemotron-H (issue 29 §2): a stack of blocks, each one norm and ONE mixer, named by a character of
// hybrid_override_pattern (or the layers_block_type list newer files write): M a Mamba-2 mixer, * attention, - an
// MLP, E a mixture of experts (configuration_nemotron_h.py @ cfeb552ef0cb77b59ff08da07698ecaad5f7b5ba
// _pattern_to_list; NVIDIA's 8B/47B/56B checkpoints use -, whose block is one NemotronHMLP of intermediate_size).
// Modules as modeling_nemotron_h.py @ 897753a012bfa6dac8c0ae3281f23a2fc1e72db6 builds them: NemotronHMamba2Mixer
// (params.cpp mambaParams); NemotronHAttention's q/k/v/o without bias; NemotronHMLP up_proj and down_proj with
// relu² between (not gated: counted as the two-matrix FFN); NemotronHMoE's n_routed_experts experts of the same
// two matrices of moe_intermediate_size, one shared NemotronHMLP of moe_shared_expert_intermediate_size and a router
// E × h (its e_score_correction_bias a buffer, not counted). Defaults are NemotronHConfig's: 128 Mamba heads of 64,
// state 128, 8 groups, conv 4 with a bias, no projection bias; 8 experts of 7688, 2 a token, shared 7688; the
// default blocks M, E, *, E.
void readNemotronH(HfReader& r, Architecture& a)
{
    std::string pattern = "ME*E";
    const char* key = "hybrid_override_pattern";
    if (r.has("hybrid_override_pattern")) {
        pattern = r.text("hybrid_override_pattern");
    } else if (r.has("layers_block_type")) {
        key = "layers_block_type";
        pattern.clear();
        const std::vector<std::pair<std::string, char>> names{
            {"mamba", 'M'}, {"attention", '*'}, {"mlp", '-'}, {"moe", 'E'}};
        const bool list = r.at("layers_block_type").is_array();
        if (!list)
            r.error(key, "must be a list of block types (mamba, attention, mlp, moe)");
        for (size_t i = 0; list && i < r.at(key).size(); ++i) {
            const auto& v = r.at(key)[i];
            char c = '?';
            for (const auto& [n, ch] : names)
                if (v.is_string() && v.get<std::string>() == n)
                    c = ch;
            if (c == '?')
                r.error(std::string(key) + "/" + std::to_string(i), "unknown layer kind " + describe(v) + " at layer " +
                                                                        std::to_string(i) +
                                                                        " (known: mamba, attention, mlp, moe)");
            pattern += c;
        }
    }
    int64_t mamba = 0, attention = 0, mlp = 0, moe = 0;
    bool bad = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
        switch (pattern[i]) {
        case 'M':
            ++mamba;
            break;
        case '*':
            ++attention;
            break;
        case '-':
            ++mlp;
            break;
        case 'E':
            ++moe;
            break;
        case '?':
            bad = true; // named above
            break;
        default:
            r.error(key, "unknown layer kind '" + std::string(1, pattern[i]) + "' at layer " + std::to_string(i) +
                             " (known: M Mamba-2, * attention, - MLP, E MoE)");
            bad = true;
        }
    }
    const int64_t n = static_cast<int64_t>(pattern.size());
    if (n == 0 || n > kMaxLayers) {
        r.error(key, "must name between 1 and " + std::to_string(kMaxLayers) + " layers, got " + std::to_string(n));
        return;
    }
    if (r.has("num_hidden_layers") && a.layers != n) {
        r.error(key, "has " + std::to_string(n) + " layers for " + std::to_string(a.layers) +
                         " layers (num_hidden_layers); it needs one a layer");
        return;
    }
    if (bad)
        return;
    a.layers = n;
    a.normsPerLayer = 1;       // NemotronHBlock: one norm before its one mixer
    a.dropout = false;         // hidden_dropout 0.0 (NemotronHConfig)
    a.ffnKind = FfnKind::Gelu; // relu², two matrices (up, down), not gated
    a.kinds.mamba = mamba;
    a.kinds.ffnOnly = mlp + moe;
    a.kinds.mixerOnly = mamba + attention;
    Mamba2Config& m = a.kinds.mamba2;
    m.heads = r.integer("mamba_num_heads", false, 128, 1, 65536);
    m.headDim = r.integer("mamba_head_dim", false, 64, 1, 65536);
    m.stateSize = r.integer("ssm_state_size", false, 128, 1, 65536);
    m.groups = r.integer(r.has("n_groups") ? "n_groups" : "mamba_n_groups", false, 8, 1, 65536);
    m.convKernel = r.integer(r.has("conv_kernel") ? "conv_kernel" : "mamba_d_conv", false, 4, 1, 1024);
    m.convBias = r.flag(r.has("use_conv_bias") ? "use_conv_bias" : "mamba_conv_bias", true);
    m.projBias = r.flag("use_bias", false);
    if (m.heads % m.groups != 0)
        r.error("n_groups",
                "must divide mamba_num_heads (" + std::to_string(m.heads) + "), got " + std::to_string(m.groups));
    if (moe > 0) {
        // NVIDIA's LatentMoE (Nemotron 3 Super; NemotronHMoE in modeling_nemotron_h.py @
        // 008d9e9577b0eb0149aa6bb0c44da582b10e0b6e): with moe_latent_size (NemotronHConfig's default None) the routed
        // experts read and write that width, between fc1_latent_proj and fc2_latent_proj (bias=mlp_bias).
        if (r.has("moe_latent_size") && !r.isNull("moe_latent_size"))
            a.moe.latent = r.integer("moe_latent_size", false, 0, 1, kMaxHidden);
        a.moe.experts = r.integer("n_routed_experts", false, 8, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 2, 1, 65536);
        a.moe.expertFfn = r.integer("moe_intermediate_size", false, 7688, 1, 16 * kMaxHidden);
        const int64_t shared = r.integer("moe_shared_expert_intermediate_size", false, 7688, 0, 16 * kMaxHidden);
        if (shared % a.moe.expertFfn != 0)
            r.error("moe_shared_expert_intermediate_size",
                    "must be a multiple of moe_intermediate_size (" + std::to_string(a.moe.expertFfn) +
                        ") for TrainMem's shared-expert count, got " + std::to_string(shared));
        else
            a.moe.sharedExperts = shared / a.moe.expertFfn;
        a.moe.denseLayers = mlp;
        a.moe.denseFfn = a.ffn;
    }
}

// IBM's Granite 4.0 H (granitemoehybrid, issue 29 §1). GraniteMoeHybridDecoderLayer (modular_granitemoehybrid.py @
// 023633dd63876e9f65e733a9f547952052b63d6a; the generated modeling_granitemoehybrid.py @
// 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e spells the modules out): input_layernorm and post_attention_layernorm
// (RMSNorm of h), then ONE token mixer by layer_types[i], "mamba" or "attention", then the MLP:
//   - GraniteMoeHybridMambaLayer (Bamba's Mamba-2 mixer): d_inner = mamba_expand·h, conv_dim = d_inner +
//     2·mamba_n_groups·mamba_d_state; in_proj Linear(h, d_inner + conv_dim + mamba_n_heads, bias=mamba_proj_bias),
//     conv1d of conv_dim channels and mamba_d_conv taps with bias=mamba_conv_bias, dt_bias, A_log and D of
//     mamba_n_heads, a gated RMSNorm of d_inner, out_proj Linear(d_inner, h, bias=mamba_proj_bias): Nemotron-H's
//     mixer (params.cpp mambaParams), its SSM and conv states the cache's (HybridMambaAttentionDynamicCache:
//     conv_states [b, conv_dim, d_conv], ssm_states [b, heads, d_head, d_state]);
//   - GraniteMoeHybridAttention: q/k/v/o of hidden_size / num_attention_heads a head, bias=attention_bias; no rotary
//     table (position_embedding_type "rope" builds a rotary embedding of buffers only, "nope" none);
//   - the MLP: block_sparse_moe "if config.num_local_experts > 0" (num_local_experts experts of intermediate_size,
//     input_linear [E, 2f, h] and output_linear [E, h, f], a SwiGLU expert's count, router Linear(h, E) without
//     bias), plus shared_mlp, a GraniteMoeHybridMLP of shared_intermediate_size (input_linear Linear(h, 2·f_s),
//     output_linear Linear(f_s, h), no bias) on every token; num_local_experts 0 leaves shared_mlp alone, a dense
//     SwiGLU MLP (Granite 4.0 H Micro, the 1B and 350M models).
// GraniteMoeHybridConfig (configuration_granitemoehybrid.py @ 4f7e1d467f2615fe8de4a089a8b90cf861bea4d7) fills what the
// file leaves out: 8 experts, 2 a token, shared 1024, mamba_n_heads 128, mamba_n_groups 1, mamba_d_state 256,
// mamba_d_head "auto" (d_inner / heads; it raises unless heads·d_head = d_inner), mamba_d_conv 4, mamba_expand 2,
// conv bias on, projection bias off, untied embeddings; layers_block_type is an alias of layer_types, and with no list
// every layer is Mamba-2 ("self.layer_types if self.layer_types else ["mamba"] * self.num_hidden_layers").
// time_step_limit and the multipliers are numbers, not parameters.
void readGraniteMoeHybrid(HfReader& r, Architecture& a)
{
    const int64_t experts = r.integer("num_local_experts", false, 8, 0, 65536);
    const int64_t shared = r.integer("shared_intermediate_size", false, 1024, 0, 16 * kMaxHidden);
    if (experts > 0) {
        a.moe.experts = experts;
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 2, 1, 65536);
        a.moe.expertFfn = a.ffn;
        a.moe.denseBeside = shared; // shared_mlp beside the experts, on every token's path
    } else if (shared <= 0) {
        r.error("shared_intermediate_size",
                "must be positive when num_local_experts is 0 (the dense MLP's width), got " + std::to_string(shared));
    } else {
        a.ffn = shared; // the dense model's one MLP
    }

    const char* key = r.has("layer_types") || !r.has("layers_block_type") ? "layer_types" : "layers_block_type";
    a.kinds.mamba =
        r.has(key) ? r.layerKinds(key, a.layers, {"mamba", "attention"})[0] : std::max<int64_t>(a.layers, 0);

    Mamba2Config& m = a.kinds.mamba2;
    const int64_t expand = r.integer("mamba_expand", false, 2, 1, 64);
    const int64_t inner = expand * a.hidden;
    m.heads = r.integer("mamba_n_heads", false, 128, 1, 65536);
    if (inner % m.heads != 0)
        r.error("mamba_n_heads", "must divide mamba_expand · hidden_size (" + std::to_string(inner) + "), got " +
                                     std::to_string(m.heads));
    m.headDim = inner / m.heads;
    if (r.has("mamba_d_head") && !(r.at("mamba_d_head").is_string() && r.at("mamba_d_head") == "auto")) {
        const int64_t d = r.integer("mamba_d_head", false, m.headDim, 1, 65536);
        if (d * m.heads != inner)
            r.error("mamba_d_head", "times mamba_n_heads (" + std::to_string(m.heads) +
                                        ") must be mamba_expand · hidden_size (" + std::to_string(inner) + "), got " +
                                        std::to_string(d));
    }
    m.stateSize = r.integer("mamba_d_state", false, 256, 1, 65536);
    m.groups = r.integer("mamba_n_groups", false, 1, 1, 65536);
    m.convKernel = r.integer("mamba_d_conv", false, 4, 1, 1024);
    m.convBias = r.flag("mamba_conv_bias", true);
    m.projBias = r.flag("mamba_proj_bias", false);
    // HybridMambaAttentionDynamicCache keeps ssm_states in the model's dtype, not NemotronH's float32
    // (modeling_granitemoehybrid.py @ 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e): 16 bits, as the KV cache here.
    m.ssmStateBytes = 2;
    if (m.heads % m.groups != 0)
        r.error("mamba_n_groups",
                "must divide mamba_n_heads (" + std::to_string(m.heads) + "), got " + std::to_string(m.groups));
}

// Gemma 4's decoder layer (Gemma4TextDecoderLayer, modeling_gemma4.py @ c308a309e651a7e033f683353f3f75aa66d29502):
// Gemma 3's four norms around attention and a gated-GELU Gemma4TextMLP of intermediate_size; with enable_moe_block,
// every layer also holds, beside that MLP, a Gemma4TextRouter (a norm without weights, proj Linear(h, E) without bias,
// scale [h], per_expert_scale [E]), Gemma4TextExperts (gate_up_proj [E, 2·moe_intermediate_size, h], down_proj
// [E, h, moe_intermediate_size]) and three more norms (post_feedforward_layernorm_1 and _2,
// pre_feedforward_layernorm_2). layer_scalar is a buffer, not a parameter. Defaults: Gemma4TextConfig
// (configuration_gemma4.py @ 008e574391258935f3ecc3035c882e73bbcac419); num_experts, top_k_experts and
// moe_intermediate_size have none (the experts cannot be built without them).
// The E2B and E4B models' features (Gemma4TextModel, Gemma4TextDecoderLayer, Gemma4TextAttention, Gemma4TextMLP):
// per-layer embeddings, hidden_size_per_layer_input wide (Gemma4TextConfig's default 256; the 26B-A4B and 31B files
// write 0) over vocab_size_per_layer_input tokens (default 262,144); the last num_kv_shared_layers layers (default 0)
// attend with the K and V of the last earlier layer of their kind and have no K/V projections or cache; under
// use_double_wide_mlp (default false) their MLP is twice intermediate_size.
void readGemma4(HfReader& r, Architecture& a)
{
    a.perLayerInput = r.integer("hidden_size_per_layer_input", false, 256, 0, kMaxHidden);
    if (a.perLayerInput > 0)
        a.perLayerVocab = r.integer("vocab_size_per_layer_input", false, 262144, 1, 100'000'000);
    if (r.flag("enable_moe_block", false)) {
        a.moe.experts = r.integer("num_experts", true, 0, 1, 65536);
        a.moe.activeExperts = r.integer("top_k_experts", true, 0, 1, 65536);
        a.moe.expertFfn = r.integer("moe_intermediate_size", true, 0, 1, 16 * kMaxHidden);
        a.moe.denseBeside = a.ffn;
        a.moe.routerScales = true;
        a.normsPerLayer = 7;
    }
}

// Gemma 4's audio tower, a Universal Speech Model conformer, and its projector into the text model
// (modeling_gemma4.py @ c308a309e651a7e033f683353f3f75aa66d29502; defaults Gemma4AudioConfig, configuration_gemma4.py
// @ 351f643ab9f582c01026b6d75aab3e2c5a8338cd: hidden_size 1024, 12 layers, 8 heads, conv_kernel_size 5,
// subsampling_conv_channels [128, 32], output_proj_dims 1536). Gemma4AudioSubSampleConvProjection: two Conv2d 3×3
// without bias (1 -> c0, c0 -> c1), each with a LayerNorm without bias, and input_proj_linear Linear((c0 / 4)·c1, h)
// without bias. Each Gemma4AudioLayer: two Gemma4AudioFeedForward (Linear(h, 4h), Linear(4h, h), two norms),
// Gemma4AudioAttention (q, k, v and post Linear(h, h), relative_k_proj Linear(h, h), per_dim_scale of h / heads),
// Gemma4AudioLightConv1d (linear_start Linear(h, 2h), linear_end Linear(h, h), a depthwise conv of h·K, two norms) and
// three norms; every Gemma4ClippableLinear is an nn.Linear without bias (its clipping bounds are buffers).
// output_proj Linear(h, output_proj_dims) with bias; embed_audio (Gemma4MultimodalEmbedder) Linear(output_proj_dims,
// text hidden) without bias beside a norm without weight.
int64_t gemma4AudioParams(HfReader& au, int64_t textH)
{
    const double h = static_cast<double>(au.integer("hidden_size", false, 1024, 1, kMaxHidden));
    const double layers = static_cast<double>(au.integer("num_hidden_layers", false, 12, 0, kMaxLayers));
    const int64_t heads = au.integer("num_attention_heads", false, 8, 1, 65536);
    const double kernel = static_cast<double>(au.integer("conv_kernel_size", false, 5, 1, 1024));
    const double out = static_cast<double>(au.integer("output_proj_dims", false, 1536, 1, kMaxHidden));
    double c0 = 128, c1 = 32;
    if (au.has("subsampling_conv_channels")) {
        const json& c = au.at("subsampling_conv_channels");
        auto channels = [](const json& n) {
            return n.is_number_integer() && n.get<int64_t>() >= 1 && n.get<int64_t>() <= 1 << 16;
        };
        if (c.is_array() && c.size() == 2 && channels(c[0]) && channels(c[1])) {
            c0 = static_cast<double>(c[0].get<int64_t>());
            c1 = static_cast<double>(c[1].get<int64_t>());
        } else {
            au.error("subsampling_conv_channels", "must be two channel counts of 1 to 65536, got " + describe(c));
        }
    }
    const double headDim = std::floor(h / static_cast<double>(heads));
    double p = 9 * c0 + c0 + 9 * c0 * c1 + c1 + std::floor(c0 / 4) * c1 * h;
    p += layers * (24 * h * h + 9 * h + h * kernel + headDim);
    p += h * out + out + out * static_cast<double>(textH);
    return static_cast<int64_t>(p);
}

void readFamily(HfReader& r, Family f, Architecture& a, HfImport& out, const SizeDefaults* wrapperDefaults = nullptr)
{
    const SizeDefaults d = wrapperDefaults ? *wrapperDefaults : sizeDefaults(f);
    // GPTBigCode (SantaCoder, StarCoder 1) keeps GPT-2's names and modules (configuration_gpt_bigcode.py maps
    // hidden_size to n_embd, …); its attention is multi-query by default: c_attn projects to h + 2·head_dim.
    const bool gpt2 = f == Family::Gpt2 || f == Family::GptBigCode;
    const bool deepseek = f == Family::DeepseekV2 || f == Family::DeepseekV3 || f == Family::GlmMoeDsa;
    const bool gemma = f == Family::Gemma || f == Family::Gemma2 || f == Family::Gemma3 || f == Family::Gemma4;
    const bool qwenMoe =
        f == Family::Qwen2Moe || f == Family::Qwen3Moe || f == Family::Qwen3Next || f == Family::Qwen3_5Moe;

    // Sizes: GPT-2 names them n_embd/n_layer/n_head/n_inner/n_positions (configuration_gpt2.py).
    a.hidden = r.integer(gpt2 ? "n_embd" : "hidden_size", d.hidden == 0, d.hidden, 1, kMaxHidden);
    a.layers = r.integer(gpt2 ? "n_layer" : "num_hidden_layers", d.layers == 0, d.layers, 1, kMaxLayers);
    a.heads = r.integer(gpt2 ? "n_head" : "num_attention_heads", d.heads == 0, d.heads, 1, 65536);
    a.vocab = r.integer("vocab_size", d.vocab == 0, d.vocab, 1, 100'000'000);
    // Only GPT-2 learns a table of positions; for rotary models the context limit is recorded, capped
    // at the longest context the accounting takes.
    a.maxPositions = gpt2 ? r.integer("n_positions", false, 1024, 1, kMaxSeq)
                          : std::min(r.integer("max_position_embeddings", false, 0, 1, INT64_MAX), kMaxSeq);
    if (gpt2) {
        // n_inner null means 4·n_embd (modeling_gpt2.py GPT2Block).
        a.ffn = r.integer("n_inner", false, 4 * a.hidden, 1, 16 * kMaxHidden);
    } else if (f == Family::Falcon) {
        // FalconMLP: dense_h_to_4h / dense_4h_to_h of 4·hidden_size (FalconConfig.ffn_hidden_size in newer files).
        a.ffn = r.integer("ffn_hidden_size", false, 4 * a.hidden, 1, 16 * kMaxHidden);
    } else {
        // DeepSeek's intermediate_size is the dense layers' width; an all-MoE model may leave it out.
        a.ffn = r.integer("intermediate_size", d.ffn == 0 && !(deepseek && r.has("n_routed_experts")), d.ffn, 1,
                          16 * kMaxHidden);
    }
    // SmolLM3Config's and Gemma3TextConfig's num_key_value_heads default to 4, GptOssConfig's to 8, the others' to
    // the heads.
    if (f == Family::GptBigCode)
        a.kvHeads = r.flag("multi_query", true) ? 1 : a.heads;
    // Llama4TextConfig, Glm4MoeConfig and MiniMaxM2Config default to 8 as well.
    const bool eightKv = f == Family::GptOss || f == Family::SeedOss || f == Family::Llama4 || f == Family::Glm4Moe ||
                         f == Family::MiniMaxM2;
    if (f == Family::Falcon) {
        // FalconAttention (modeling_falcon.py @ 44272086ad6636711ce99155bf7d03f0cf95e8f4): one fused query_key_value
        // of (heads + 2·kv_heads)·head_dim rows; kv_heads is num_kv_heads under new_decoder_architecture (Falcon-40B,
        // 180B), 1 under multi_query (FalconConfig's default, Falcon-7B), else the heads.
        if (r.flag("new_decoder_architecture", false))
            a.kvHeads = r.integer("num_kv_heads", false, a.heads, 1, 65536);
        else
            a.kvHeads = r.flag("multi_query", true) ? 1 : a.heads;
    } else if (!gpt2 && !deepseek)
        a.kvHeads = r.integer("num_key_value_heads", false,
                              d.kvHeads > 0                                                                  ? d.kvHeads
                              : f == Family::SmolLM3 || f == Family::Gemma3 || f == Family::Qwen3_5          ? 4
                              : eightKv || f == Family::NemotronH                                            ? 8
                              : f == Family::Starcoder2 || f == Family::Qwen3Next || f == Family::Qwen3_5Moe ? 2
                                                                                                             : a.heads,
                              1, 65536);

    // head_dim: given, or the family's default (Gemma 256, Qwen3 128), or hidden / heads.
    // (GemmaConfig, Gemma2Config, Gemma3TextConfig: 256; Qwen3Config: 128; Qwen3MoeConfig has none.)
    // Llama4TextConfig and MiniMaxM2Config: 128 as well; Qwen3NextConfig and Qwen3.5's 256.
    const bool headDim128 = f == Family::Qwen3 || f == Family::SeedOss || f == Family::Llama4 ||
                            f == Family::MiniMaxM2 || f == Family::NemotronH;
    const int64_t defaultHeadDim = gemma || f == Family::Qwen3Next || f == Family::Qwen3_5 || f == Family::Qwen3_5Moe
                                       ? 256
                                   : headDim128          ? 128
                                   : f == Family::GptOss ? 64
                                                         : 0;
    // GraniteMoeHybridAttention takes hidden_size / num_attention_heads whatever the file says (its head_dim, below).
    if (!gpt2 && !deepseek && f != Family::GraniteMoeHybrid && r.has("head_dim"))
        a.headDim = r.integer("head_dim", false, 0, 1, 65536);
    else if (defaultHeadDim > 0)
        a.headDim = defaultHeadDim;
    const bool explicitHeadDim = a.headDim > 0;
    if (!explicitHeadDim && !deepseek && a.hidden > 0 && a.heads > 0) {
        if (a.hidden % a.heads != 0)
            r.error(gpt2 ? "n_head" : "num_attention_heads",
                    "must divide " + std::string(gpt2 ? "n_embd" : "hidden_size") + " (" + std::to_string(a.hidden) +
                        ") when there is no head_dim, got " + std::to_string(a.heads));
        else
            a.headDim = a.hidden / a.heads;
    }
    if (a.kvHeads > 0 && a.heads > 0 && a.heads % a.kvHeads != 0)
        r.error("num_key_value_heads",
                "must divide num_attention_heads (" + std::to_string(a.heads) + "), got " + std::to_string(a.kvHeads));

    // Embedding tying: each configuration class's default.
    // FalconConfig keeps PretrainedConfig's default (tied): FalconForCausalLM ties lm_head to word_embeddings.
    const bool tiedDefault =
        gemma || gpt2 || f == Family::SmolLM3 || f == Family::Starcoder2 || f == Family::Cohere2 || f == Family::Falcon;
    a.tiedEmbeddings = r.flag("tie_word_embeddings", tiedDefault);

    const bool layerNorm =
        gpt2 || f == Family::GptNeoX || f == Family::Phi || f == Family::Starcoder2 || f == Family::Falcon;
    a.norm = layerNorm ? NormKind::LayerNorm : NormKind::RMSNorm;
    a.ffnKind = layerNorm ? FfnKind::Gelu : FfnKind::SwiGLU;
    // Gemma 2/3 norm before and after attention and FFN; Phi runs attention and MLP in parallel on one
    // input_layernorm (PhiDecoderLayer).
    a.normsPerLayer = (f == Family::Gemma2 || f == Family::Gemma3 || f == Family::Gemma4) ? 4
                      : (f == Family::Phi || f == Family::Cohere2)                        ? 1
                                                                                          : 2;
    a.learnedPositions = gpt2;

    // Biases, as each modeling file builds them.
    switch (f) {
    case Family::Gpt2:
    case Family::GptBigCode:
        a.bias = true;
        break;
    case Family::GptNeoX:
        a.mlpBias = true;
        a.attentionBias = r.flag("attention_bias", true) ? AttentionBias::All : AttentionBias::None;
        break;
    case Family::Qwen2:
    case Family::Qwen2Moe:
        a.attentionBias = r.flag("qkv_bias", true) ? AttentionBias::Qkv : AttentionBias::None;
        break;
    case Family::Llama:
    case Family::SmolLM3:
        a.attentionBias = r.flag("attention_bias", false) ? AttentionBias::All : AttentionBias::None;
        a.mlpBias = r.flag("mlp_bias", false);
        break;
    case Family::Qwen3:
    case Family::Qwen3Moe:
    case Family::Qwen3Next:
    case Family::Qwen3_5:
    case Family::Qwen3_5Moe:
    case Family::Olmoe:
    case Family::Cohere2:
    case Family::Exaone4:
    case Family::Gemma:
    case Family::Gemma2:
    case Family::Gemma3:
    case Family::Gemma4: // Gemma4TextAttention: q/k/v/o with bias=attention_bias
    case Family::Olmo2:
        a.attentionBias = r.flag("attention_bias", false) ? AttentionBias::All : AttentionBias::None;
        break;
    case Family::DeepseekV2:
    case Family::DeepseekV3:
    case Family::GlmMoeDsa:
        if (r.flag("attention_bias", false))
            r.error("attention_bias",
                    "true is not supported for MLA attention (every published DeepSeek config has false)");
        break;
    case Family::GptOss:
        // GptOssConfig.attention_bias defaults to True: q/k/v/o with bias; the experts' gate_up_proj and
        // down_proj carry biases too (gate_up_proj_bias, down_proj_bias).
        a.attentionBias = r.flag("attention_bias", true) ? AttentionBias::All : AttentionBias::None;
        a.mlpBias = true;
        a.attentionSinks = true;
        break;
    case Family::Phi:
        // modeling_phi.py: q/k/v/dense Linear(bias=True), fc1/fc2 with bias, lm_head Linear(h, V, bias=True).
        a.attentionBias = AttentionBias::All;
        a.mlpBias = true;
        a.headBias = true;
        break;
    case Family::Starcoder2: {
        // use_bias (default true) on q/k/v/o (Starcoder2Attention) and on c_fc/c_proj (Starcoder2MLP).
        const bool bias = r.flag("use_bias", true);
        a.attentionBias = bias ? AttentionBias::All : AttentionBias::None;
        a.mlpBias = bias;
        break;
    }
    case Family::SeedOss: {
        // SeedOssAttention: q/k/v with bias=attention_bias (default true), o_proj with bias=attention_out_bias
        // (default false); the MLP's bias is mlp_bias.
        const bool qkv = r.flag("attention_bias", true);
        const bool outBias = r.flag("attention_out_bias", false);
        if (outBias && !qkv)
            r.error("attention_out_bias",
                    "true without attention_bias is not supported (no published Seed-OSS has it)");
        a.attentionBias = outBias ? AttentionBias::All : qkv ? AttentionBias::Qkv : AttentionBias::None;
        a.mlpBias = r.flag("mlp_bias", false);
        break;
    }
    case Family::Llama4:
        // Llama4TextAttention: q/k/v/o with bias=attention_bias (default false); its qk_norm is an L2 norm without
        // weights (Llama4TextL2Norm).
        a.attentionBias = r.flag("attention_bias", false) ? AttentionBias::All : AttentionBias::None;
        break;
    case Family::Glm4Moe:
        // Glm4MoeAttention: q/k/v with bias=attention_bias (default false; GLM-4.5 sets true), o_proj without.
        a.attentionBias = r.flag("attention_bias", false) ? AttentionBias::Qkv : AttentionBias::None;
        break;
    case Family::GraniteMoe:
    case Family::GraniteMoeHybrid:
        // GraniteMoeAttention is LlamaAttention: q/k/v/o with bias=attention_bias (default false); so is
        // GraniteMoeHybridAttention (modeling_granitemoehybrid.py @ 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e).
        a.attentionBias = r.flag("attention_bias", false) ? AttentionBias::All : AttentionBias::None;
        break;
    case Family::Falcon: {
        // query_key_value, dense and the MLP's two linears all take bias=config.bias (default false).
        // FalconDecoderLayer: ln_attn and ln_mlp under new_decoder_architecture, else input_layernorm, and
        // post_attention_layernorm unless parallel_attn (default true); then ln_f. Rotary or ALiBi positions: no
        // position table.
        a.bias = r.flag("bias", false);
        const bool newArch = r.flag("new_decoder_architecture", false);
        a.normsPerLayer = newArch || !r.flag("parallel_attn", true) ? 2 : 1;
        a.dropout = r.fraction("hidden_dropout", 0.0) > 0;
        break;
    }
    case Family::MiniMaxM2: // MiniMaxM2Attention: q/k/v/o without bias
    case Family::Mistral:
    case Family::Mixtral:
    case Family::Phi3:
        break;
    case Family::NemotronH:
        // NemotronHAttention: q/k/v/o without bias; NemotronHMLP and the experts: up and down with mlp_bias.
        a.mlpBias = r.flag("mlp_bias", false);
        break;
    }

    if (f == Family::Qwen3 || f == Family::Qwen3Moe || f == Family::Gemma3 || f == Family::Gemma4 ||
        f == Family::Exaone4 || f == Family::Qwen3Next || f == Family::Qwen3_5 || f == Family::Qwen3_5Moe)
        a.qkNorm = QkNorm::PerHead;
    else if (f == Family::Olmo2 || f == Family::Olmoe || f == Family::MiniMaxM2)
        a.qkNorm =
            QkNorm::Full; // MiniMaxM2Attention is FlexOlmo's: q_norm over heads·head_dim, k_norm kv_heads·head_dim
    else if (f == Family::Glm4Moe && r.flag("use_qk_norm", false))
        a.qkNorm = QkNorm::PerHead; // Glm4MoeRMSNorm(head_dim) on queries and keys
    else if (f == Family::Phi && r.flag("qk_layernorm", false))
        a.qkNorm = QkNorm::PerHead; // q_layernorm, k_layernorm: LayerNorm(head_dim) with bias
    // Qwen3-Next's and Qwen3.5's attention is gated: q_proj yields the query and a gate of the same width
    // (Qwen3NextAttention; Qwen3_5Attention is the same module).
    if (f == Family::Qwen3Next || f == Family::Qwen3_5 || f == Family::Qwen3_5Moe)
        a.gatedAttention = true;

    // Dropout: GPT-2 trains with resid_pdrop 0.1 by default, GPT-NeoX with hidden_dropout 0.
    if (gpt2)
        a.dropout = r.fraction("resid_pdrop", 0.1) > 0;
    else if (f == Family::GptNeoX)
        a.dropout = r.fraction("hidden_dropout", 0.0) > 0;
    else if (f == Family::Phi)
        a.dropout = r.fraction("resid_pdrop", 0.0) > 0; // PhiConfig's default 0.0, phi-2 trains with 0.1
    else if (f == Family::Starcoder2)
        a.dropout = r.fraction("residual_dropout", 0.0) > 0;
    else if (f == Family::SeedOss)
        a.dropout = r.fraction("residual_dropout", 0.1) > 0; // SeedOssConfig's default 0.1

    a.attention = a.kvHeadsOrDefault() == a.heads ? AttentionKind::MHA : AttentionKind::GQA;

    if (f == Family::GlmMoeDsa) {
        // GLM-5 (modeling_glm_moe_dsa.py @ 5641c8e222119b102b4c2a401aea3a751145173a): DeepSeek-V3.2's modules under
        // other sizes. GlmMoeDsaAttention is MLA (q_a_proj, q_a_layernorm, q_b_proj to heads·(nope + rope),
        // kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj to heads·(nope + v), o_proj) with a GlmMoeDsaIndexer in every
        // layer (wq_b Linear(q_lora_rank, index_n_heads·index_head_dim), wk Linear(h, index_head_dim), k_norm
        // LayerNorm(index_head_dim) with a bias, weights_proj Linear(h, index_n_heads)); GlmMoeDsaMoE holds
        // n_routed_experts experts of moe_intermediate_size (gate_up_proj, down_proj), a shared GlmMoeDsaMLP of
        // moe_intermediate_size·n_shared_experts and a router weight [E, h] whose e_score_correction_bias is a buffer;
        // the layers mlp_layer_types calls "dense" hold a GlmMoeDsaMLP of intermediate_size. Defaults
        // (GlmMoeDsaConfig, configuration_glm_moe_dsa.py @ 598881bceccfbc4ec888e43df68dc235415426bf): q_lora_rank
        // 2048 (null: q_proj from h), kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 192, v_head_dim 256,
        // index_n_heads 32, index_head_dim 128, index_topk 2048, 256 experts of 2048, 8 a token, 1 shared,
        // mlp_layer_types 3 dense then sparse (first_k_dense_replace is not read by that class). The model builds
        // num_hidden_layers layers and ignores the checkpoint's next one (_keys_to_ignore_on_load_unexpected
        // model.layers.78), its multi-token-prediction layer: num_nextn_predict_layers, when the file has it, becomes
        // mtpLayers, outside the count.
        a.attention = AttentionKind::MLA;
        a.kvHeads = a.heads;
        a.mla.qLoraRank = r.integer("q_lora_rank", false, r.isNull("q_lora_rank") ? 0 : 2048, 1, kMaxHidden);
        a.mla.kvLoraRank = r.integer("kv_lora_rank", false, 512, 1, kMaxHidden);
        a.mla.qkNopeHeadDim = r.integer("qk_nope_head_dim", false, 192, 1, 65536);
        a.mla.qkRopeHeadDim = r.integer("qk_rope_head_dim", false, 64, 0, 65536);
        a.mla.vHeadDim = r.integer("v_head_dim", false, 256, 1, 65536);
        a.mla.indexHeads = r.integer("index_n_heads", false, 32, 1, 65536);
        a.mla.indexHeadDim = r.integer("index_head_dim", false, 128, 1, 65536);
        a.mla.indexTopk = r.integer("index_topk", false, 2048, 1, kMaxSeq);
        // GLM-5.2's IndexShare (one indexer for several layers) is written as indexer_types, "full" for a layer with
        // its own indexer and "shared" for one that reuses an earlier layer's selection; this transformers version
        // builds an indexer in every layer. A list of "full" only (NVIDIA's GLM-5.1-NVFP4 writes one) is that same
        // model and is read; "shared" layers are refused until a modeling file that builds them can be cited.
        if (r.has("indexer_types")) {
            const std::vector<int64_t> kinds = r.layerKinds("indexer_types", a.layers, {"full", "shared"});
            if (kinds[1] > 0) {
                const json& list = r.at("indexer_types");
                const auto first = std::find(list.begin(), list.end(), "shared") - list.begin();
                r.error("indexer_types", "is not supported yet with \"shared\" layers (" + std::to_string(kinds[1]) +
                                             " of " + std::to_string(a.layers) + ", the first at layer " +
                                             std::to_string(first) + "): indexers shared between layers");
            }
        }
        a.mtpLayers = r.integer("num_nextn_predict_layers", false, 0, 0, kMaxLayers);
        a.moe.experts = r.integer("n_routed_experts", false, 256, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 8, 1, 65536);
        a.moe.expertFfn = r.integer("moe_intermediate_size", false, 2048, 1, 16 * kMaxHidden);
        a.moe.sharedExperts = r.integer("n_shared_experts", false, 1, 0, 65536);
        if (r.has("mlp_layer_types"))
            a.moe.denseLayers = r.layerKinds("mlp_layer_types", a.layers, {"dense", "sparse"})[0];
        else
            a.moe.denseLayers = std::min<int64_t>(3, a.layers);
        a.moe.denseFfn = a.ffn;
    } else if (deepseek) {
        a.attention = AttentionKind::MLA;
        a.kvHeads = a.heads;
        a.mla.qLoraRank = r.integer("q_lora_rank", false, 0, 1, kMaxHidden); // null: q_proj from h
        a.mla.kvLoraRank = r.integer("kv_lora_rank", true, 512, 1, kMaxHidden);
        a.mla.qkNopeHeadDim = r.integer("qk_nope_head_dim", true, 128, 1, 65536);
        a.mla.qkRopeHeadDim = r.integer("qk_rope_head_dim", true, 64, 0, 65536);
        a.mla.vHeadDim = r.integer("v_head_dim", true, 128, 1, 65536);
        a.mtpLayers = r.integer("num_nextn_predict_layers", false, 0, 0, kMaxLayers);
        // DeepSeek-V3.2 (deepseek_v32): index_n_heads, index_head_dim, index_topk (its config.json, vendored in
        // huggingface/transformers src/transformers/models/deepseek_v32/deepseek_files/config.json @
        // a10b6fa874989cba1c451be928aa86ce59475d9c: 64, 128, 2048).
        if (r.has("index_n_heads")) {
            a.mla.indexHeads = r.integer("index_n_heads", false, 64, 1, 65536);
            a.mla.indexHeadDim = r.integer("index_head_dim", false, 128, 1, 65536);
            a.mla.indexTopk = r.integer("index_topk", false, 2048, 1, kMaxSeq);
        }
        if (r.has("n_routed_experts")) {
            a.moe.experts = r.integer("n_routed_experts", false, 0, 1, 65536);
            a.moe.activeExperts = r.integer("num_experts_per_tok", true, 1, 1, 65536);
            a.moe.expertFfn = r.integer("moe_intermediate_size", true, 1, 1, 16 * kMaxHidden);
            a.moe.sharedExperts = r.integer("n_shared_experts", false, 0, 0, 65536);
            const int64_t firstDense = r.integer("first_k_dense_replace", false, 0, 0, kMaxLayers);
            const int64_t freq = r.integer("moe_layer_freq", false, 1, 1, kMaxLayers);
            a.moe.denseLayers = a.layers - deepseekMoeLayers(a.layers, firstDense, freq);
            if (a.moe.denseLayers > 0 && a.ffn <= 0)
                r.error("intermediate_size", "is required when some layers are dense (first_k_dense_replace)");
            a.moe.denseFfn = a.ffn;
            if (a.ffn <= 0)
                a.ffn = a.moe.expertFfn;
        }
    } else if (f == Family::GptOss) {
        // Every layer is MoE: num_local_experts experts of intermediate_size (GptOssExperts holds them as
        // two stacked parameters, gate_up_proj [E, h, 2f] and down_proj [E, f, h], with their biases), and a
        // router Linear(h, E) with a bias (GptOssTopKRouter): one per expert, counted as the router bias
        // (MoeConfig::scoreCorrectionBias, the same E parameters a layer).
        a.moe.experts =
            r.integer(r.has("num_local_experts") ? "num_local_experts" : "num_experts", false, 128, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 4, 1, 65536);
        a.moe.expertFfn = a.ffn;
        a.moe.scoreCorrectionBias = true;
    } else if (f == Family::Llama4) {
        // Llama4TextMoe (modeling_llama4.py @ 000c33fdfde12e1ffafbfcdb3c926df5727a00b6): num_local_experts experts of
        // intermediate_size stacked as gate_up_proj [E, h, 2f] and down_proj [E, f, h], a router Linear(h, E)
        // without bias choosing num_experts_per_tok (top-1 in Scout and Maverick), and one shared expert
        // Llama4TextMLP(intermediate_size). The layers not in moe_layers have a dense Llama4TextMLP of
        // intermediate_size_mlp (Maverick interleaves them: interleave_moe_layer_step 2). moe_layers defaults to
        // every interleave_moe_layer_step-th layer from step−1 (Llama4TextConfig.__post_init__).
        a.moe.experts = r.integer("num_local_experts", false, 16, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 1, 1, 65536);
        a.moe.expertFfn = a.ffn;
        a.moe.sharedExperts = 1;
        a.moe.denseFfn = r.integer("intermediate_size_mlp", false, 16384, 1, 16 * kMaxHidden);
        int64_t moeLayers = 0;
        if (r.has("moe_layers")) {
            moeLayers = static_cast<int64_t>(r.layerList("moe_layers", std::max<int64_t>(a.layers, 1)).size());
        } else {
            const int64_t step = r.integer("interleave_moe_layer_step", false, 1, 1, kMaxLayers);
            for (int64_t i = step - 1; i < a.layers; i += step)
                ++moeLayers;
        }
        a.moe.denseLayers = a.layers - moeLayers;
    } else if (f == Family::Glm4Moe) {
        // Glm4MoeMoE (modeling_glm4_moe.py @ a0699c971daff96403489086fcfd07469d20b17f): n_routed_experts experts of
        // moe_intermediate_size, a sigmoid router weight [E, h] whose e_score_correction_bias is a buffer (not
        // counted, as deepseek_v3's), and shared experts Glm4MoeMLP(moe_intermediate_size·n_shared_experts); layers
        // below first_k_dense_replace have a dense Glm4MoeMLP(intermediate_size). Glm4MoeModel builds
        // num_hidden_layers layers and ignores the checkpoint's multi-token-prediction layer
        // (_keys_to_ignore_on_load_unexpected model.layers.92 / .46): num_nextn_predict_layers becomes mtpLayers,
        // outside the count, as DeepSeek-V3's. Defaults: Glm4MoeConfig @ 008e574391258935f3ecc3035c882e73bbcac419.
        a.moe.experts =
            r.integer(r.has("n_routed_experts") ? "n_routed_experts" : "num_local_experts", false, 128, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 8, 1, 65536);
        a.moe.expertFfn = r.integer("moe_intermediate_size", false, 1408, 1, 16 * kMaxHidden);
        a.moe.sharedExperts = r.integer("n_shared_experts", false, 1, 0, 65536);
        a.moe.denseLayers = std::min(r.integer("first_k_dense_replace", false, 1, 0, kMaxLayers), a.layers);
        a.moe.denseFfn = a.ffn;
        a.mtpLayers = r.integer(r.has("num_nextn_predict_layers") ? "num_nextn_predict_layers" : "num_mtp_layers",
                                false, 1, 0, kMaxLayers);
    } else if (f == Family::GraniteMoe) {
        // GraniteMoeMoE (modular_granitemoe.py @ 94cb76e8b28f69cd844073ae246c3bd1375d2e0b): input_linear
        // [E, 2f, h] and output_linear [E, h, f] (JetMoe's parallel experts, no bias: a SwiGLU expert's count) and a
        // router Linear(h, E) without bias; every layer MoE, no shared expert. GraniteMoeConfig's defaults 8 experts,
        // 2 a token.
        a.moe.experts = r.integer("num_local_experts", false, 8, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 2, 1, 65536);
        a.moe.expertFfn = a.ffn;
    } else if (f == Family::MiniMaxM2) {
        // MiniMaxM2SparseMoeBlock (modular_minimax_m2.py @ 001f85b38fb432858ace93f18622f07cec46d874): Mixtral's
        // experts (num_local_experts of intermediate_size) and router Linear(h, E) without bias, a sigmoid router
        // whose e_score_correction_bias is a buffer (not counted); no shared expert. MiniMax's own multi-token
        // prediction modules (use_mtp, num_mtp_modules) are not built by transformers and not counted.
        a.moe.experts =
            r.integer(r.has("num_local_experts") ? "num_local_experts" : "num_experts", false, 256, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 8, 1, 65536);
        a.moe.expertFfn = a.ffn;
    } else if (f == Family::NemotronH) {
        readNemotronH(r, a);
    } else if (f == Family::GraniteMoeHybrid) {
        readGraniteMoeHybrid(r, a);
    } else if (f == Family::Gemma4) {
        readGemma4(r, a);
    } else if (f == Family::Olmoe) {
        // Every layer MoE: num_experts experts of intermediate_size (OlmoeSparseMoeBlock), a router h·E without
        // bias, no shared expert; OlmoeConfig's defaults 64 experts, 8 a token.
        a.moe.experts =
            r.integer(r.has("num_local_experts") ? "num_local_experts" : "num_experts", false, 64, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", false, 8, 1, 65536);
        a.moe.expertFfn = a.ffn;
    } else if (f == Family::Mixtral) {
        a.moe.experts = r.integer("num_local_experts", true, 0, 1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", true, 0, 1, 65536);
        a.moe.expertFfn = a.ffn; // every MixtralBlockSparseTop2MLP has intermediate_size
    } else if (qwenMoe) {
        // Newer transformers maps num_experts to num_local_experts (configuration_qwen3_moe.py attribute_map).
        // Qwen3NextConfig defaults them (512 experts, 10 a token, 512 wide), Qwen3_5MoeTextConfig too (256, 8, 512:
        // modular_qwen3_5_moe.py @ e36255cb9af68ea2c16fefd6b1c798882cafda16, whose every layer is a
        // Qwen3NextSparseMoeBlock); the older classes' files all give them.
        const bool next = f == Family::Qwen3Next || f == Family::Qwen3_5Moe;
        const bool q35 = f == Family::Qwen3_5Moe;
        a.moe.experts = r.integer(r.has("num_local_experts") ? "num_local_experts" : "num_experts", !next,
                                  q35    ? 256
                                  : next ? 512
                                         : 0,
                                  1, 65536);
        a.moe.activeExperts = r.integer("num_experts_per_tok", !next, q35 ? 8 : next ? 10 : 0, 1, 65536);
        a.moe.expertFfn = r.integer("moe_intermediate_size", !next, next ? 512 : 0, 1, 16 * kMaxHidden);
        const int64_t step = r.integer("decoder_sparse_step", false, 1, 1, kMaxLayers);
        const std::set<int64_t> mlpOnly = r.layerList("mlp_only_layers", std::max<int64_t>(a.layers, 1));
        a.moe.denseLayers = a.layers - qwenMoeLayers(a.layers, step, mlpOnly);
        a.moe.denseFfn = a.ffn;
        if (f == Family::Qwen2Moe || next) {
            // One shared expert of shared_expert_intermediate_size behind a sigmoid gate h -> 1. It is
            // the same count (and the same activations) as that width in expert-sized pieces. (Qwen3-Next's
            // Qwen3NextSparseMoeBlock: shared_expert and shared_expert_gate, the same modules; default 512.)
            const int64_t shared =
                r.integer("shared_expert_intermediate_size", false, next ? 512 : 5632, 0, 16 * kMaxHidden);
            a.moe.sharedExpertGate = true;
            if (a.moe.expertFfn > 0 && shared % a.moe.expertFfn != 0)
                r.error("shared_expert_intermediate_size",
                        "must be a multiple of moe_intermediate_size (" + std::to_string(a.moe.expertFfn) +
                            ") for TrainMem's shared-expert count, got " + std::to_string(shared));
            else if (a.moe.expertFfn > 0)
                a.moe.sharedExperts = shared / a.moe.expertFfn;
        }
    }
    // Per-layer attention kinds (issue 29 §2): layer_types where the file has it, else the family's pattern.
    readLayerKinds(r, f, a);
    if (a.isMoe() && a.moe.activeExperts > a.moe.experts)
        r.error("num_experts_per_tok", "must not exceed the number of experts (" + std::to_string(a.moe.experts) +
                                           "), got " + std::to_string(a.moe.activeExperts));
    if (a.isMoe() && a.moe.denseLayers >= a.layers) {
        // Every layer dense: count it as the dense model it is.
        a.moe = MoeConfig{};
    }
    out.dtype = r.text(r.has("torch_dtype") ? "torch_dtype" : "dtype");
    out.nameOrPath = r.text("_name_or_path");
    // gpt-oss ships its experts in MXFP4 (quantization_config {"quant_method": "mxfp4", "modules_to_not_convert":
    // attention, router, embeddings, head}): TrainMem's mxfp4 format, the experts only. Other quantisation configs
    // (FP8 blocks, compressed-tensors with their ignore lists) have no exact match here and are left to --weights.
    if (r.has("quantization_config") && r.at("quantization_config").is_object() && a.isMoe()) {
        const json& q = r.at("quantization_config");
        if (q.contains("quant_method") && q.at("quant_method") == "mxfp4")
            out.shippedWeights = InferenceWeights::MXFP4;
    }
}

// The vision tower and projector of a multimodal wrapper, as its modeling file builds them from vision_config
// (`v`, whose missing fields take the vision configuration class's defaults) and the language model's width `textH`.
// Every Linear below has a bias unless said otherwise; a LayerNorm has a weight and a bias.
int64_t visionParams(HfReader& v, HfReader& top, VisionTower tower, int64_t textH)
{
    auto layerNorm = [](double w) { return 2 * w; };
    auto linear = [](double in, double out, bool bias) { return in * out + (bias ? out : 0); };
    // The pre-norm ViT block of Qwen3VLVisionBlock and MoonViTEncoderLayer: two LayerNorms, a fused qkv
    // Linear(hv, 3hv) and the output projection, an MLP hv → inter → hv; every Linear with a bias.
    auto vitBlock = [&](double hv, double inter) {
        return 2 * layerNorm(hv) + linear(hv, 3 * hv, true) + linear(hv, hv, true) + linear(hv, inter, true) +
               linear(inter, hv, true);
    };
    // The patch merger of Qwen3VLVisionPatchMerger and Kimi K2.5's PatchMergerMLP: a LayerNorm over `norm`, then
    // Linear(merged, merged) and Linear(merged, out) with biases (merged: the width of m² patches side by side).
    auto patchMerger = [&](double norm, double merged, double out) {
        return layerNorm(norm) + linear(merged, merged, true) + linear(merged, out, true);
    };
    double p = 0;
    switch (tower) {
    case VisionTower::None:
        return 0;
    case VisionTower::Llama4: {
        // Llama4VisionModel (modeling_llama4.py @ 000c33fdfde12e1ffafbfcdb3c926df5727a00b6; defaults
        // Llama4VisionConfig, configuration_llama4.py @ 008e574391258935f3ecc3035c882e73bbcac419): an unfold patch
        // embedding Linear(C·p², hv) without bias, class_embedding [hv], positional_embedding_vlm
        // [(image/p)² + 1, hv], layernorm_pre/post, num_hidden_layers encoder layers (q/k/v/o with bias, fc1/fc2
        // with bias, two LayerNorms), the vision adapter's MLP fc1 Linear(intermediate_size, projector_input_dim)
        // and fc2 Linear(projector_output_dim, projector_output_dim), both without bias; then
        // Llama4MultiModalProjector linear_1 Linear(vision_output_dim, text hidden) without bias.
        const double hv = static_cast<double>(v.integer("hidden_size", false, 768, 1, kMaxHidden));
        const double layers = static_cast<double>(v.integer("num_hidden_layers", false, 34, 0, kMaxLayers));
        const double inter = static_cast<double>(v.integer("intermediate_size", false, 5632, 1, 16 * kMaxHidden));
        const double channels = static_cast<double>(v.integer("num_channels", false, 3, 1, 64));
        const double patch = static_cast<double>(v.integer("patch_size", false, 14, 1, 4096));
        const double image = static_cast<double>(v.integer("image_size", false, 448, 1, 1 << 20));
        const double projIn = static_cast<double>(v.integer("projector_input_dim", false, 4096, 1, 16 * kMaxHidden));
        const double projOut = static_cast<double>(v.integer("projector_output_dim", false, 4096, 1, 16 * kMaxHidden));
        const double outDim = static_cast<double>(v.integer("vision_output_dim", false, 7680, 1, 16 * kMaxHidden));
        const double side = std::floor(image / patch);
        p += channels * patch * patch * hv + hv + (side * side + 1) * hv + 2 * layerNorm(hv);
        p +=
            layers * (4 * linear(hv, hv, true) + linear(hv, inter, true) + linear(inter, hv, true) + 2 * layerNorm(hv));
        p += linear(inter, projIn, false) + linear(projOut, projOut, false);
        p += linear(outDim, static_cast<double>(textH), false);
        break;
    }
    case VisionTower::Qwen3VL:
    case VisionTower::Qwen3_5: {
        // Qwen3VLVisionModel (modeling_qwen3_vl.py @ 00709b862bb8f14a5435bb7195592579168496e4; defaults
        // Qwen3VLVisionConfig, configuration_qwen3_vl.py @ e1b551679e267be053b45581cbabd028a14defd2): a Conv3d patch
        // embedding (C·t·p² → hv, with bias), pos_embed Embedding(num_position_embeddings, hv), depth blocks
        // (vitBlock), the merger (patchMerger over hv, m = spatial_merge_size) and one deepstack merger per
        // deepstack_visual_indexes entry (the same, with its LayerNorm over hv·m²). Its projector is the mergers.
        // Qwen3.5's Qwen3_5VisionModel (modular_qwen3_5.py @ 009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9; qwen3_5_moe's
        // is the same class, modular_qwen3_5_moe.py @ 0960594cbcb31be634ec36a76818155c591aafb4) is
        // Qwen3VLVisionModel with deepstack_merger_list deleted, and Qwen3_5VisionConfig is Qwen3VLVisionConfig
        // without deepstack_visual_indexes: no deepstack mergers, whatever the file says.
        const double hv = static_cast<double>(v.integer("hidden_size", false, 1152, 1, kMaxHidden));
        const double depth = static_cast<double>(v.integer("depth", false, 27, 0, kMaxLayers));
        const double inter = static_cast<double>(v.integer("intermediate_size", false, 4304, 1, 16 * kMaxHidden));
        const double channels = static_cast<double>(v.integer("in_channels", false, 3, 1, 64));
        const double patch = static_cast<double>(v.integer("patch_size", false, 16, 1, 4096));
        const double temporal = static_cast<double>(v.integer("temporal_patch_size", false, 2, 1, 64));
        const double merge = static_cast<double>(v.integer("spatial_merge_size", false, 2, 1, 64));
        const double out = static_cast<double>(v.integer("out_hidden_size", false, 3584, 1, kMaxHidden));
        const double positions = static_cast<double>(v.integer("num_position_embeddings", false, 2304, 0, 100'000'000));
        double deepstack = tower == VisionTower::Qwen3VL ? 3 : 0; // Qwen3VLVisionConfig's [8, 16, 24]
        if (tower == VisionTower::Qwen3VL && v.has("deepstack_visual_indexes")) {
            if (v.at("deepstack_visual_indexes").is_array())
                deepstack = static_cast<double>(v.at("deepstack_visual_indexes").size());
            else
                v.error("deepstack_visual_indexes",
                        "must be a list of layer indices, got " + describe(v.at("deepstack_visual_indexes")));
        }
        const double merged = hv * merge * merge;
        p += channels * temporal * patch * patch * hv + hv + positions * hv;
        p += depth * vitBlock(hv, inter);
        p += patchMerger(hv, merged, out) + deepstack * patchMerger(merged, merged, out);
        break;
    }
    case VisionTower::Qwen25VL: {
        // Qwen2_5_VisionTransformerPretrainedModel (modeling_qwen2_5_vl.py @ efa7189c5546a94e8c1194b2ccc6669e0f7ad65e;
        // defaults Qwen25VisionConfig, configuration_qwen2_5_vl.py @ aa0dc95c2f288788c2cf06eb3e17bb182cea66d0): a
        // Conv3d patch embedding without bias, depth blocks of two Qwen2RMSNorm(hv), qkv Linear(hv, 3hv) and proj
        // with bias, a gated MLP gate/up/down with bias; the merger: ln_q Qwen2RMSNorm(hv), Linear(hv·m², hv·m²),
        // Linear(hv·m², out_hidden_size). No position table (rotary positions).
        const double hv = static_cast<double>(v.integer("hidden_size", false, 3584, 1, kMaxHidden));
        const double depth = static_cast<double>(v.integer("depth", false, 32, 0, kMaxLayers));
        const double inter = static_cast<double>(v.integer("intermediate_size", false, 3420, 1, 16 * kMaxHidden));
        const double channels = static_cast<double>(v.integer("in_channels", false, 3, 1, 64));
        const double patch = static_cast<double>(v.integer("patch_size", false, 14, 1, 4096));
        const double temporal = static_cast<double>(v.integer("temporal_patch_size", false, 2, 1, 64));
        const double merge = static_cast<double>(v.integer("spatial_merge_size", false, 2, 1, 64));
        const double out = static_cast<double>(v.integer("out_hidden_size", false, 3584, 1, kMaxHidden));
        const double merged = hv * merge * merge;
        p += channels * temporal * patch * patch * hv;
        p += depth * (2 * hv + linear(hv, 3 * hv, true) + linear(hv, hv, true) + 2 * linear(hv, inter, true) +
                      linear(inter, hv, true));
        p += hv + linear(merged, merged, true) + linear(merged, out, true);
        break;
    }
    case VisionTower::Pixtral: {
        // PixtralVisionModel (modeling_pixtral.py @ 4a1e279ebe65c9e7f1b035dd5e47a5c4b48f5087; defaults
        // PixtralVisionConfig): patch_conv Conv2d(C, hv, p) without bias, ln_pre PixtralRMSNorm(hv), and
        // num_hidden_layers blocks of attention_norm and ffn_norm (RMSNorm), q/k/v/o and a gated MLP gate/up/down,
        // all without bias. Mistral3MultiModalProjector (modular_mistral3.py @
        // 70721ef4d93c5ac0c18bc7356060b9e46dcea687; Mistral3Config @ ae005ce12a086176742fbf6c8364782a27085c85): norm
        // RMSNorm(hv), patch_merger merging_layer Linear(hv·m², hv) without bias, linear_1 Linear(hv·feature layers,
        // text hidden) and linear_2 Linear(text hidden, text hidden), with bias=multimodal_projector_bias (default
        // false).
        const double hv = static_cast<double>(v.integer("hidden_size", false, 1024, 1, kMaxHidden));
        const double layers = static_cast<double>(v.integer("num_hidden_layers", false, 24, 0, kMaxLayers));
        const double inter = static_cast<double>(v.integer("intermediate_size", false, 4096, 1, 16 * kMaxHidden));
        const double channels = static_cast<double>(v.integer("num_channels", false, 3, 1, 64));
        const double patch = static_cast<double>(v.integer("patch_size", false, 16, 1, 4096));
        const double merge = static_cast<double>(top.integer("spatial_merge_size", false, 2, 1, 64));
        const bool projBias = top.flag("multimodal_projector_bias", false);
        double featureLayers = 1; // vision_feature_layer: one index, or a list whose features are concatenated
        if (top.has("vision_feature_layer") && top.at("vision_feature_layer").is_array())
            featureLayers = std::max<double>(1, static_cast<double>(top.at("vision_feature_layer").size()));
        const double th = static_cast<double>(textH);
        p += channels * patch * patch * hv + hv;
        p += layers * (2 * hv + 4 * hv * hv + 3 * hv * inter);
        p += hv + hv * merge * merge * hv + linear(hv * featureLayers, th, projBias) + linear(th, th, projBias);
        break;
    }
    case VisionTower::Gemma3: {
        // SiglipVisionModel (modeling_siglip.py @ 1c51a62f5861390e994db1464e8a51f6d7fbacbc; defaults
        // SiglipVisionConfig, which Gemma3Config uses when vision_config is absent, configuration_gemma3.py @
        // 008f5c8c29be84d4721dc6d1e0fcd72300580be4): a Conv2d patch embedding (C·p² → hv, with bias),
        // position_embedding Embedding((image/p)², hv), num_hidden_layers encoder layers (q/k/v/out_proj, fc1/fc2,
        // two LayerNorms), post_layernorm, and the attention-pooling head unless vision_use_head is false (Gemma 3's
        // files set it false): probe [hv], nn.MultiheadAttention (in_proj 3hv² + 3hv, out_proj), a LayerNorm and
        // an MLP. Gemma3MultiModalProjector (modeling_gemma3.py): mm_input_projection_weight [hv, text hidden] and
        // mm_soft_emb_norm Gemma3RMSNorm(hv).
        const double hv = static_cast<double>(v.integer("hidden_size", false, 768, 1, kMaxHidden));
        const double layers = static_cast<double>(v.integer("num_hidden_layers", false, 12, 0, kMaxLayers));
        const double inter = static_cast<double>(v.integer("intermediate_size", false, 3072, 1, 16 * kMaxHidden));
        const double channels = static_cast<double>(v.integer("num_channels", false, 3, 1, 64));
        const double patch = static_cast<double>(v.integer("patch_size", false, 16, 1, 4096));
        const double image = static_cast<double>(v.integer("image_size", false, 224, 1, 1 << 20));
        const double side = std::floor(image / patch);
        const double mlp = linear(hv, inter, true) + linear(inter, hv, true);
        p += channels * patch * patch * hv + hv + side * side * hv;
        p += layers * (4 * linear(hv, hv, true) + mlp + 2 * layerNorm(hv));
        p += layerNorm(hv);
        if (v.flag("vision_use_head", true))
            p += hv + 3 * hv * hv + 3 * hv + linear(hv, hv, true) + layerNorm(hv) + mlp;
        p += hv * static_cast<double>(textH) + hv;
        break;
    }
    case VisionTower::Gemma4: {
        // Gemma4VisionModel (modeling_gemma4.py @ c308a309e651a7e033f683353f3f75aa66d29502; defaults
        // Gemma4VisionConfig, configuration_gemma4.py @ 008e574391258935f3ecc3035c882e73bbcac419):
        // Gemma4VisionPatchEmbedder's input_proj Linear(3·p², hv) without bias and position_embedding_table
        // [2, position_embedding_size, hv]; num_hidden_layers Gemma4VisionEncoderLayers, each four Gemma4RMSNorm(hv),
        // q/k/v/o Gemma4ClippableLinear (an nn.Linear without bias, whatever attention_bias says) of
        // heads·head_dim and kv_heads·head_dim, q_norm and k_norm of head_dim (v_norm has no weight) and a gated MLP
        // gate/up/down without bias; the pooler has no weights, and std_bias, std_scale and the clipping bounds are
        // buffers. Gemma4MultimodalEmbedder (embed_vision): a norm without weight and embedding_projection
        // Linear(hv, text hidden) without bias.
        const double hv = static_cast<double>(v.integer("hidden_size", false, 768, 1, kMaxHidden));
        const double layers = static_cast<double>(v.integer("num_hidden_layers", false, 16, 0, kMaxLayers));
        const double heads = static_cast<double>(v.integer("num_attention_heads", false, 12, 1, 65536));
        const double kv = static_cast<double>(v.integer("num_key_value_heads", false, 12, 1, 65536));
        const double hd = static_cast<double>(v.integer("head_dim", false, 64, 1, 65536));
        const double inter = static_cast<double>(v.integer("intermediate_size", false, 3072, 1, 16 * kMaxHidden));
        const double patch = static_cast<double>(v.integer("patch_size", false, 16, 1, 4096));
        const double positions =
            static_cast<double>(v.integer("position_embedding_size", false, 10240, 1, 100'000'000));
        p += 3 * patch * patch * hv + 2 * positions * hv;
        p += layers * (4 * hv + 2 * hv * heads * hd + 2 * hv * kv * hd + 2 * hd + 3 * hv * inter);
        p += hv * static_cast<double>(textH);
        break;
    }
    case VisionTower::MoonViT: {
        // Kimi K2.5's remote code, modeling_kimi_k25.py (no transformers class; Moonshot's file as Ascend/MindSpeed-MM
        // vendors it, mindspeed_mm/fsdp/models/kimik2_5/modeling_kimi_k25.py @
        // 008e75c60fcdab4413c640be4450b8f836c7eae3; defaults KimiK25VisionConfig's, which the vt_* names keep).
        // MoonViT3dPretrainedModel: MoonVision3dPatchEmbed's Conv2d(3, hv, p) with bias and its learned
        // Learnable2DInterpPosEmbDivided_fixed weight [init_pos_emb_height, init_pos_emb_width, hv] (the time
        // table is a buffer), vt_num_hidden_layers MoonViTEncoderLayers (vitBlock: attn_bias true, MLP2 with bias),
        // the encoder's final_layernorm; the 2-D rotary table is a buffer and tpool_patch_merger has no weights.
        // mm_projector by mm_projector_type: "patchmerger" PatchMergerMLP (patchMerger over mm_hidden_size, m² =
        // merge_kernel_size's product, out text_hidden_size), "mlp" MLP (LayerNorm, Linear(mm, text),
        // Linear(text, text)), "identity" none. text_hidden_size is 7168 in KimiK25VisionConfig (Kimi K2's width);
        // a file that leaves it out gets the language model's, which the projector must feed.
        const double hv = static_cast<double>(v.integer("vt_hidden_size", false, 1152, 1, kMaxHidden));
        const double layers = static_cast<double>(v.integer("vt_num_hidden_layers", false, 27, 0, kMaxLayers));
        const double inter = static_cast<double>(v.integer("vt_intermediate_size", false, 4304, 1, 16 * kMaxHidden));
        const double patch = static_cast<double>(v.integer("patch_size", false, 14, 1, 4096));
        const double posH = static_cast<double>(v.integer("init_pos_emb_height", false, 64, 1, 1 << 16));
        const double posW = static_cast<double>(v.integer("init_pos_emb_width", false, 64, 1, 1 << 16));
        const double mm =
            static_cast<double>(v.integer("mm_hidden_size", false, static_cast<int64_t>(hv), 1, kMaxHidden));
        const double th = static_cast<double>(v.integer("text_hidden_size", false, textH, 1, kMaxHidden));
        double area = 4; // merge_kernel_size (2, 2)
        if (v.has("merge_kernel_size")) {
            const json& k = v.at("merge_kernel_size");
            auto side = [](const json& n) {
                return n.is_number_integer() && n.get<int64_t>() >= 1 && n.get<int64_t>() <= 64;
            };
            if (k.is_array() && k.size() == 2 && side(k[0]) && side(k[1]))
                area = static_cast<double>(k[0].get<int64_t>() * k[1].get<int64_t>());
            else if (side(k))
                area = static_cast<double>(k.get<int64_t>() * k.get<int64_t>());
            else
                v.error("merge_kernel_size", "must be [height, width] of 1 to 64 patches each, got " + describe(k));
        }
        p += 3 * patch * patch * hv + hv + posH * posW * hv;
        p += layers * vitBlock(hv, inter) + layerNorm(hv);
        const std::string projector = v.has("mm_projector_type") ? v.text("mm_projector_type") : "patchmerger";
        if (projector == "patchmerger")
            p += patchMerger(mm, mm * area, th);
        else if (projector == "mlp")
            p += layerNorm(mm) + linear(mm, th, true) + linear(th, th, true);
        else if (projector != "identity" && !projector.empty())
            v.error("mm_projector_type", "unknown projector \"" + projector + "\" (known: patchmerger, mlp, identity)");
        break;
    }
    }
    return static_cast<int64_t>(std::min(p, 9.0e18));
}

std::string slug(const std::string& s)
{
    std::string out;
    for (const char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '.')
            out += static_cast<char>(std::tolower(u));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out;
}

} // namespace

const std::vector<std::string>& hfModelTypes()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& [name, f] : families())
            v.push_back(name);
        for (const Wrapper& w : wrappers())
            v.push_back(w.type);
        return v;
    }();
    return names;
}

HfImport parseHfConfig(std::string_view text, const std::string& file)
{
    HfImport out;
    json doc;
    try {
        doc = parsePythonJson(text);
    } catch (const json::exception& e) {
        out.errors.push_back({file, "", "not valid JSON: " + jsonErrorText(e)});
        return out;
    }
    if (!doc.is_object()) {
        out.errors.push_back({file, "", "must be a JSON object (a Hugging Face config.json), got " + describe(doc)});
        return out;
    }
    // Multimodal wrappers (Gemma 3's "gemma3", Llama 4's "llama4", Qwen3-VL's "qwen3_vl", …) keep the language
    // model under text_config and the vision tower under vision_config.
    const json* cfg = &doc;
    std::string base;
    auto typeOf = [](const json& j) {
        return j.contains("model_type") && j.at("model_type").is_string() ? j.at("model_type").get<std::string>()
                                                                          : std::string();
    };
    const Wrapper* wrapper = familyOf(typeOf(doc)) ? nullptr : wrapperOf(typeOf(doc));
    const bool hasText = doc.contains("text_config") && doc.at("text_config").is_object();
    if (wrapper && !hasText && doc.contains("text_config") && !doc.at("text_config").is_null()) {
        out.errors.push_back(
            {file, "/text_config",
             "must be an object (the language model's configuration), got " + describe(doc.at("text_config"))});
        return out;
    }
    if ((wrapper || !familyOf(typeOf(doc))) && hasText && (wrapper || familyOf(typeOf(doc.at("text_config"))))) {
        cfg = &doc.at("text_config");
        base = "/text_config";
    }
    HfReader r(*cfg, base, file, out.errors);
    if (wrapper && (cfg == &doc || !cfg->contains("model_type"))) {
        // A wrapper's text_config may leave its type out (transformers knows it from the wrapper's class), and a
        // wrapper without text_config is its class's default language model.
        out.modelType = wrapper->textType;
    } else if (!r.has("model_type") || !cfg->at("model_type").is_string()) {
        r.error("model_type", r.has("model_type") ? "must be a string, got " + describe(cfg->at("model_type"))
                                                  : "is required (supported: " + supportedList() + ")");
        return out;
    } else {
        out.modelType = cfg->at("model_type").get<std::string>();
    }
    const std::optional<Family> family = familyOf(out.modelType);
    if (!family) {
        r.error("model_type", "unsupported model type \"" + out.modelType + "\" (supported: " + supportedList() + ")");
        return out;
    }
    Architecture& a = out.architecture;
    if (wrapper && wrapper->hidden > 0 && out.modelType == wrapper->textType) {
        const SizeDefaults d{wrapper->hidden, wrapper->layers, wrapper->heads,
                             wrapper->vocab,  wrapper->ffn,    wrapper->kvHeads};
        readFamily(r, *family, a, out, &d);
    } else {
        readFamily(r, *family, a, out);
    }
    if (wrapper && cfg != &doc) {
        // The wrapper's tie_word_embeddings applies when its text_config has none (Qwen3VLConfig keeps it there).
        if (!r.has("tie_word_embeddings") && doc.contains("tie_word_embeddings") &&
            doc.at("tie_word_embeddings").is_boolean())
            a.tiedEmbeddings = doc.at("tie_word_embeddings").get<bool>();
    }
    if (wrapper && wrapper->vision != VisionTower::None) {
        static const json kEmpty = json::object();
        const bool hasVision = doc.contains("vision_config") && doc.at("vision_config").is_object();
        if (doc.contains("vision_config") && !doc.at("vision_config").is_null() && !hasVision)
            out.errors.push_back(
                {file, "/vision_config",
                 "must be an object (the vision tower's configuration), got " + describe(doc.at("vision_config"))});
        HfReader v(hasVision ? doc.at("vision_config") : kEmpty, "/vision_config", file, out.errors);
        HfReader top(doc, "", file, out.errors);
        // Gemma4Model builds no vision tower when vision_config is None (Gemma4Config leaves it None); the other
        // wrappers' configuration classes fill in their default tower.
        if (wrapper->vision != VisionTower::Gemma4 || hasVision)
            a.visionParams = visionParams(v, top, wrapper->vision, a.hidden);
        // Gemma 4's audio tower (the E2B and E4B models'): built when audio_config is an object (Gemma4Model:
        // "AutoModel.from_config(config.audio_config) if config.audio_config is not None").
        if (wrapper->vision == VisionTower::Gemma4 && doc.contains("audio_config") &&
            !doc.at("audio_config").is_null()) {
            if (!doc.at("audio_config").is_object()) {
                top.error("audio_config", "must be an object (the audio tower's configuration), got " +
                                              describe(doc.at("audio_config")));
            } else {
                HfReader au(doc.at("audio_config"), "/audio_config", file, out.errors);
                a.audioParams = gemma4AudioParams(au, a.hidden);
            }
        }
    }
    if (out.ok()) {
        const ParamCount c = countParams(a);
        if (c.total <= 0 || c.total > kMaxParams)
            r.error("", "describes " + formatCount(static_cast<double>(c.total)) + " parameters; the limit is 10^15");
    }
    return out;
}

Scenario scenarioWithHfModel(const Scenario& base, const HfImport& imported, const std::string& label)
{
    Scenario s = base;
    s.model = ModelSpec{};
    s.model.hasArchitecture = true;
    s.model.architecture = imported.architecture;
    const ParamCount c = countParams(s.model.architecture);
    s.model.params = c.total;
    s.model.activeParams = c.active;

    std::string name = imported.nameOrPath;
    if (const auto slash = name.find_last_of("/\\"); slash != std::string::npos)
        name = name.substr(slash + 1);
    if (name.empty())
        name = label;
    if (name.empty())
        name = imported.modelType;
    s.name = name;
    s.id = slug(name);
    if (s.id.empty())
        s.id = "hf-import";
    s.source = "Hugging Face config.json (model_type \"" + imported.modelType + "\")";
    s.description = "Imported from a Hugging Face config.json: model_type " + imported.modelType + ", " +
                    formatCount(static_cast<double>(c.total)) + " parameters";
    if (c.active != c.total)
        s.description += " (" + formatCount(static_cast<double>(c.active)) + " active)";
    if (!imported.dtype.empty()) {
        s.description += ", torch_dtype " + imported.dtype;
        // bfloat16 and float16 are both 2 bytes a weight: the bf16 inference format. float32 has no
        // inference format here; the description keeps it.
        if (imported.dtype == "bfloat16" || imported.dtype == "float16")
            s.training.inferenceWeights = InferenceWeights::BF16;
    }
    if (imported.shippedWeights) {
        s.training.inferenceWeights = *imported.shippedWeights;
        s.description += std::string(", served as the checkpoint ships it (quantization_config: ") +
                         toString(*imported.shippedWeights) + ")";
    }
    s.description += ".";
    // The base scenario's layout, kept as far as the imported model allows (fewer layers, no experts).
    return withValidLayout(std::move(s));
}

} // namespace trainmem
