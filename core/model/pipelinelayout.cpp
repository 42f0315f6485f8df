#include "pipelinelayout.h"

#include <cctype>
#include <optional>

namespace trainmem {
namespace {

// One "<body>*<count>" found by a pass of parse_str_to_list's re.sub: the body's range and where the count ends.
struct Repeat {
    size_t bodyBegin = 0;
    size_t bodyEnd = 0;
    size_t end = 0;
    uint64_t count = 0;
};

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// The digits from `at` (\d+, greedy); a count beyond what may unroll is kept just above the limit.
void readCount(std::string_view s, size_t at, Repeat& r)
{
    r.count = 0;
    r.end = at;
    while (r.end < s.size() && isDigit(s[r.end])) {
        r.count = std::min<uint64_t>(r.count * 10 + static_cast<uint64_t>(s[r.end] - '0'), kMaxLayoutUnrolled + 1);
        ++r.end;
    }
}

// r'\(([^)]+)\)\*(\d+)' at position i: the body runs to the first ')' after the '(' and is not empty.
std::optional<Repeat> parenRepeatAt(std::string_view s, size_t i)
{
    if (s[i] != '(')
        return std::nullopt;
    const size_t close = s.find(')', i + 1);
    if (close == std::string_view::npos || close == i + 1 || close + 2 >= s.size() || s[close + 1] != '*' ||
        !isDigit(s[close + 2]))
        return std::nullopt;
    Repeat r;
    r.bodyBegin = i + 1;
    r.bodyEnd = close;
    readCount(s, close + 2, r);
    return r;
}

// r'(.)\*(\d+)' at position i ('.' matches any character but a newline).
std::optional<Repeat> charRepeatAt(std::string_view s, size_t i)
{
    if (s[i] == '\n' || i + 2 >= s.size() || s[i + 1] != '*' || !isDigit(s[i + 2]))
        return std::nullopt;
    Repeat r;
    r.bodyBegin = i;
    r.bodyEnd = i + 1;
    readCount(s, i + 2, r);
    return r;
}

// One re.sub pass: every non-overlapping match, left to right, replaced by its body repeated.
template <typename Find> bool unroll(std::string_view s, Find find, std::string& out)
{
    out.clear();
    for (size_t i = 0; i < s.size();) {
        if (const std::optional<Repeat> r = find(s, i)) {
            const size_t body = r->bodyEnd - r->bodyBegin;
            if (r->count > kMaxLayoutUnrolled || out.size() + body * r->count > kMaxLayoutUnrolled)
                return false;
            for (uint64_t k = 0; k < r->count; ++k)
                out.append(s.substr(r->bodyBegin, body));
            i = r->end;
            continue;
        }
        out.push_back(s[i]);
        if (out.size() > kMaxLayoutUnrolled)
            return false;
        ++i;
    }
    return true;
}

std::string shownChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (std::isprint(u))
        return std::string("'") + c + "'";
    static const char* hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

std::string layersText(int64_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

LayoutParse parsePipelineLayout(std::string_view text)
{
    LayoutParse out;
    if (text.size() > kMaxLayoutText) {
        out.error = "is " + std::to_string(text.size()) + " characters long, more than the " +
                    std::to_string(kMaxLayoutText) + " read";
        return out;
    }
    std::string plain;
    for (char c : text)
        if (c != ',') // "remove purely cosmetic commas"
            plain.push_back(c);
    if (plain.empty()) {
        out.error = "is empty: it needs at least \"E…|…L\" (E embedding, t transformer layer, m MTP layer, L loss)";
        return out;
    }
    std::string parens, unrolled;
    if (!unroll(plain, parenRepeatAt, parens) || !unroll(parens, charRepeatAt, unrolled)) {
        out.error = "unrolls to more than " + std::to_string(kMaxLayoutUnrolled) + " layers and stage separators";
        return out;
    }
    out.stages.emplace_back();
    // The order rules of validate_layer_layout are properties of the flat sequence, checked while reading it.
    char firstLayer = 0, lastLayer = 0;
    bool mtpSeen = false;
    for (char c : unrolled) {
        LayoutStage& st = out.stages.back();
        const size_t stage = out.stages.size() - 1;
        switch (c) {
        case '|':
            out.stages.emplace_back();
            continue;
        case 'E':
            ++st.embedding;
            break;
        case 't':
            if (mtpSeen) {
                out.error = "has a transformer layer t after an MTP layer m (stage " + std::to_string(stage) +
                            "): Megatron-LM places the decoder layers before the MTP layers";
                out.stages.clear();
                return out;
            }
            ++st.decoders;
            break;
        case 'm':
            mtpSeen = true;
            ++st.mtp;
            break;
        case 'L':
            ++st.loss;
            break;
        default:
            out.error = "has " + shownChar(c) + " in stage " + std::to_string(stage) +
                        ", which is not a layer: the layers are E (embedding), t (transformer layer), m (MTP layer) "
                        "and L (loss), stages are split by |, and \"t*3\" or \"(tt|)*2\" repeat";
            out.stages.clear();
            return out;
        }
        if (!firstLayer)
            firstLayer = c;
        lastLayer = c;
    }
    int64_t embeddings = 0, losses = 0;
    for (const LayoutStage& st : out.stages) {
        embeddings += st.embedding;
        losses += st.loss;
    }
    if (firstLayer != 'E')
        out.error = firstLayer ? std::string("must begin with the embedding E, begins with ") + firstLayer
                               : std::string("holds no layers");
    else if (lastLayer != 'L')
        out.error = std::string("must end with the loss L, ends with ") + lastLayer;
    else if (embeddings != 1)
        out.error = "must hold the embedding E once, holds it " + std::to_string(embeddings) + " times";
    else if (losses != 1)
        out.error = "must hold the loss L once, holds it " + std::to_string(losses) + " times";
    if (!out.error.empty())
        out.stages.clear();
    return out;
}

int64_t layoutVirtualStages(const std::vector<LayoutStage>& stages, int64_t pp)
{
    const auto n = static_cast<int64_t>(stages.size());
    return pp >= 1 && n > 0 && n % pp == 0 ? n / pp : 0;
}

std::string pipelineLayoutProblem(const std::vector<LayoutStage>& stages, int64_t layers, int64_t mtpLayers, int64_t pp,
                                  int64_t vpp)
{
    if (stages.empty())
        return "holds no stages";
    const auto n = static_cast<int64_t>(stages.size());
    const int64_t v = layoutVirtualStages(stages, pp);
    if (v == 0)
        return "has " + layersText(n, "stage", "stages") + ", which pp " + std::to_string(pp) +
               " does not divide (Megatron-LM's arguments.py asserts it)";
    if (vpp != v)
        return "gives " + std::to_string(n) + "/" + std::to_string(pp) + " = " + std::to_string(v) +
               " virtual stages per pipeline rank, but vpp is " + std::to_string(vpp) +
               " (transformer_config.py asserts they agree)";
    int64_t decoders = 0, mtp = 0;
    for (const LayoutStage& st : stages) {
        decoders += st.decoders;
        mtp += st.mtp;
    }
    if (decoders != layers)
        return "places " + layersText(decoders, "transformer layer", "transformer layers") + ", the model has " +
               std::to_string(layers);
    if (mtp != mtpLayers)
        return "places " + layersText(mtp, "MTP layer", "MTP layers") + ", the model has " + std::to_string(mtpLayers);
    for (int64_t k = 0; k < n; ++k) {
        const LayoutStage& st = stages[static_cast<size_t>(k)];
        if (st.mtp == 0)
            continue;
        if (k / pp != v - 1)
            return "puts MTP layers in virtual stage " + std::to_string(k / pp) + " of pipeline rank " +
                   std::to_string(k % pp) + "; Megatron-LM keeps them in a rank's last virtual stage (" +
                   std::to_string(v - 1) + ")";
        if (st.mtp != mtpLayers)
            return "splits the " + std::to_string(mtpLayers) +
                   " MTP layers over stages; Megatron-LM builds them all in one virtual stage";
    }
    return {};
}

int64_t layoutMtpRank(const std::vector<LayoutStage>& stages, int64_t pp)
{
    if (layoutVirtualStages(stages, pp) == 0)
        return -1;
    for (int64_t k = 0; k < static_cast<int64_t>(stages.size()); ++k)
        if (stages[static_cast<size_t>(k)].mtp > 0)
            return k % pp;
    return -1;
}

std::vector<std::string> describePipelineLayout(const std::vector<LayoutStage>& stages, int64_t pp)
{
    std::vector<std::string> rows;
    const int64_t v = layoutVirtualStages(stages, pp);
    if (v == 0)
        return rows;
    auto chunk = [](const LayoutStage& st) {
        std::string s;
        auto add = [&s](const std::string& part) { s += (s.empty() ? "" : " + ") + part; };
        if (st.embedding)
            add("embedding");
        if (st.decoders)
            add(layersText(st.decoders, "layer", "layers"));
        if (st.mtp)
            add(layersText(st.mtp, "MTP layer", "MTP layers"));
        if (st.loss)
            add("loss");
        return s.empty() ? std::string("(empty)") : s;
    };
    std::string prev;
    int64_t from = 0;
    for (int64_t r = 0; r <= pp; ++r) {
        std::string row;
        for (int64_t c = 0; r < pp && c < v; ++c)
            row += (c ? " | " : "") + chunk(stages[static_cast<size_t>(c * pp + r)]);
        if (r > 0 && (r == pp || row != prev)) {
            const std::string ranks = r - 1 == from ? "rank " + std::to_string(from)
                                                    : "ranks " + std::to_string(from) + "–" + std::to_string(r - 1);
            rows.push_back(ranks + ": " + prev);
            from = r;
        }
        prev = row;
    }
    return rows;
}

} // namespace trainmem
