#include "shellwords.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

namespace trainmem {

// ---------------------------------------------------------------------------------------------
// Shell words.

namespace {

bool isNameStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

class ShellSplitter
{
public:
    explicit ShellSplitter(const std::string& t) : m_t(t) {}

    /// Set when expansion stopped at kMaxExpanded; the words before it are still returned.
    std::string error;

    std::vector<std::string> run()
    {
        while (m_i < m_t.size()) {
            const char c = m_t[m_i];
            if (c == '\\') {
                if (m_i + 1 < m_t.size() && m_t[m_i + 1] == '\n') {
                    m_i += 2;
                    continue;
                }
                if (m_i + 2 < m_t.size() && m_t[m_i + 1] == '\r' && m_t[m_i + 2] == '\n') {
                    m_i += 3;
                    continue;
                }
                if (m_i + 1 < m_t.size()) {
                    append(m_t[m_i + 1]);
                    m_i += 2;
                    continue;
                }
                ++m_i;
                continue;
            }
            if (c == '\'') {
                m_inWord = true;
                const size_t end = m_t.find('\'', m_i + 1);
                const size_t stop = end == std::string::npos ? m_t.size() : end;
                m_word += m_t.substr(m_i + 1, stop - m_i - 1);
                m_i = stop + 1;
                continue;
            }
            if (c == '"') {
                m_inWord = true;
                ++m_i;
                while (m_i < m_t.size() && m_t[m_i] != '"') {
                    if (m_t[m_i] == '\\' && m_i + 1 < m_t.size() &&
                        std::string("\"\\$`\n").find(m_t[m_i + 1]) != std::string::npos) {
                        if (m_t[m_i + 1] != '\n')
                            m_word += m_t[m_i + 1];
                        m_i += 2;
                    } else if (m_t[m_i] == '$') {
                        m_word += expansion();
                    } else {
                        m_word += m_t[m_i++];
                    }
                }
                ++m_i;
                continue;
            }
            if (c == '#' && !m_inWord) {
                while (m_i < m_t.size() && m_t[m_i] != '\n')
                    ++m_i;
                continue;
            }
            if (c == '$') {
                // Unquoted: the value is split into words, as the shell does.
                for (char v : expansion())
                    std::isspace(static_cast<unsigned char>(v)) ? finish() : append(v);
                continue;
            }
            if (std::isspace(static_cast<unsigned char>(c)) || c == ';' || c == '|' || c == '&' || c == '(' ||
                c == ')') {
                finish();
                ++m_i;
                continue;
            }
            append(c);
            ++m_i;
        }
        finish();
        return m_words;
    }

private:
    void append(char c)
    {
        m_word += c;
        m_inWord = true;
    }
    void finish()
    {
        if (!m_inWord)
            return;
        // NAME=value records a variable for later $NAME (the value is kept as the word too).
        const size_t eq = m_word.find('=');
        if (eq != std::string::npos && eq > 0 && isNameStart(m_word[0]) &&
            std::all_of(m_word.begin(), m_word.begin() + static_cast<std::ptrdiff_t>(eq), isNameChar))
            m_vars[m_word.substr(0, eq)] = m_word.substr(eq + 1);
        m_words.push_back(m_word);
        m_word.clear();
        m_inWord = false;
    }
    // At '$': $NAME, ${NAME}, ${NAME:-default}, ${NAME[@]} (arrays are emitted where they are
    // defined, so their expansion is empty). Unknown variables stay as written, so an error can
    // show them. Each assignment can double the text (B=$A$A, C=$B$B, …: 2^40 bytes from 40 lines),
    // so the values substituted are limited to kMaxExpanded bytes in all; past it splitting stops
    // with an error naming the character.
    std::string expansion()
    {
        const size_t at = m_i;
        std::string value = expand();
        m_expanded += value.size();
        if (m_expanded > kMaxExpanded) {
            error = "shell variables expand to more than 1 MiB of text (at character " + std::to_string(at + 1) + ")";
            m_i = m_t.size();
            m_word.clear();
            m_inWord = false;
            return {};
        }
        return value;
    }
    std::string expand()
    {
        const size_t start = m_i;
        ++m_i;
        std::string name, fallback;
        bool hasFallback = false, braced = false;
        if (m_i < m_t.size() && m_t[m_i] == '{') {
            braced = true;
            const size_t end = m_t.find('}', m_i);
            if (end == std::string::npos) {
                m_i = m_t.size();
                return m_t.substr(start);
            }
            std::string inner = m_t.substr(m_i + 1, end - m_i - 1);
            m_i = end + 1;
            const size_t dflt = inner.find(":-");
            if (dflt != std::string::npos) {
                fallback = inner.substr(dflt + 2);
                hasFallback = true;
                inner = inner.substr(0, dflt);
            }
            if (inner.size() > 3 && inner.compare(inner.size() - 3, 3, "[@]") == 0)
                return {};
            name = inner;
        } else {
            while (m_i < m_t.size() && isNameChar(m_t[m_i]))
                name += m_t[m_i++];
            if (name.empty())
                return "$";
        }
        const auto it = m_vars.find(name);
        if (it != m_vars.end())
            return it->second;
        if (hasFallback)
            return fallback;
        return braced ? m_t.substr(start, m_i - start) : "$" + name;
    }

    static constexpr size_t kMaxExpanded = size_t(1) << 20;

    const std::string& m_t;
    size_t m_i = 0;
    size_t m_expanded = 0;
    std::string m_word;
    bool m_inWord = false;
    std::vector<std::string> m_words;
    std::map<std::string, std::string> m_vars;
};

} // namespace

std::vector<std::string> shellWords(const std::string& text, std::string* error)
{
    ShellSplitter splitter(text);
    std::vector<std::string> words = splitter.run();
    if (error)
        *error = splitter.error;
    return words;
}

// ---------------------------------------------------------------------------------------------
// --moe-layer-freq list expressions: expr := term ('+' term)*; term := factor ('*' factor)*;
// factor := int | '[' [expr (',' expr)*] ']' | '(' expr ')'.

namespace {

struct PyValue {
    bool isList = false;
    int64_t n = 0;
    std::vector<int> list;
};

class PatternParser
{
public:
    explicit PatternParser(const std::string& s) : m_s(s) {}

    PatternResult run()
    {
        PatternResult r;
        PyValue v = expr();
        skip();
        if (m_error.empty() && m_i != m_s.size())
            fail("unexpected \"" + m_s.substr(m_i, 1) + "\"");
        if (m_error.empty() && !v.isList)
            fail("is not a list");
        if (!m_error.empty()) {
            r.error = m_error;
            return r;
        }
        r.values = std::move(v.list);
        return r;
    }

private:
    static constexpr size_t kMaxLength = 100'000;
    // Brackets nest by recursion; a limit keeps "((((…" of any length off the end of the stack.
    static constexpr int kMaxDepth = 100;
    // Every + and * copies entries, so a long text of "*1*1*1…" after a 100000-entry list would copy
    // 10^5 entries per two characters (a megabyte pasted: 5·10^10 copies, a frozen window). The
    // entries built in all are limited to 100 full-length lists.
    static constexpr size_t kMaxWork = 100 * kMaxLength;
    bool charge(size_t entries)
    {
        m_work += entries;
        if (m_work <= kMaxWork)
            return true;
        fail("expression builds more than 10000000 list entries in all");
        return false;
    }

    void skip()
    {
        while (m_i < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_i])))
            ++m_i;
    }
    bool eat(char c)
    {
        skip();
        if (m_i < m_s.size() && m_s[m_i] == c) {
            ++m_i;
            return true;
        }
        return false;
    }
    void fail(const std::string& what)
    {
        if (m_error.empty())
            m_error = what + " at character " + std::to_string(m_i + 1);
    }
    PyValue expr()
    {
        PyValue v = term();
        while (m_error.empty() && eat('+')) {
            PyValue w = term();
            if (v.isList != w.isList) {
                fail("cannot add a list and a number");
            } else if (v.isList) {
                if (v.list.size() + w.list.size() > kMaxLength)
                    fail("list longer than 100000");
                else if (charge(w.list.size()))
                    v.list.insert(v.list.end(), w.list.begin(), w.list.end());
            } else {
                v.n += w.n;
            }
        }
        return v;
    }
    PyValue term()
    {
        PyValue v = factor();
        while (m_error.empty() && eat('*')) {
            PyValue w = factor();
            if (v.isList && w.isList) {
                fail("cannot multiply two lists");
            } else if (v.isList || w.isList) {
                PyValue& l = v.isList ? v : w;
                // [] * n is [] whatever n is: no repetitions to make (n up to 10^9 would spin).
                const int64_t times = l.list.empty() ? 0 : std::max<int64_t>(0, v.isList ? w.n : v.n);
                if (times > 0 && l.list.size() > kMaxLength / static_cast<size_t>(times)) {
                    fail("list longer than 100000");
                    break;
                }
                if (!charge(l.list.size() * static_cast<size_t>(times)))
                    break;
                PyValue out;
                out.isList = true;
                for (int64_t k = 0; k < times; ++k)
                    out.list.insert(out.list.end(), l.list.begin(), l.list.end());
                v = std::move(out);
            } else {
                if (v.n != 0 && std::llabs(w.n) > 1'000'000'000 / std::max<int64_t>(1, std::llabs(v.n)))
                    fail("number too large");
                else
                    v.n *= w.n;
            }
        }
        return v;
    }
    PyValue factor()
    {
        skip();
        if (m_i < m_s.size() && (m_s[m_i] == '(' || m_s[m_i] == '[') && m_depth >= kMaxDepth) {
            fail("brackets nested deeper than " + std::to_string(kMaxDepth));
            return {};
        }
        ++m_depth;
        PyValue v = bracketsOrNumber();
        --m_depth;
        return v;
    }
    PyValue bracketsOrNumber()
    {
        PyValue v;
        if (eat('(')) {
            v = expr();
            if (!eat(')'))
                fail("missing \")\"");
            return v;
        }
        if (eat('[')) {
            v.isList = true;
            if (eat(']'))
                return v;
            do {
                PyValue e = expr();
                if (e.isList)
                    fail("nested lists are not layer patterns");
                else if (e.n < 0 || e.n > 1)
                    fail("layer pattern entries must be 0 or 1, got " + std::to_string(e.n));
                else
                    v.list.push_back(static_cast<int>(e.n));
            } while (m_error.empty() && eat(','));
            if (m_error.empty() && !eat(']'))
                fail("missing \"]\"");
            return v;
        }
        const size_t start = m_i;
        while (m_i < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_i])))
            ++m_i;
        if (start == m_i || m_i - start > 9) {
            fail(start == m_i ? "expected a number, [ or (" : "number too large");
            return v;
        }
        v.n = std::stoll(m_s.substr(start, m_i - start));
        return v;
    }

    const std::string& m_s;
    size_t m_i = 0;
    int m_depth = 0;
    size_t m_work = 0;
    std::string m_error;
};

} // namespace

PatternResult evalLayerPattern(const std::string& expr)
{
    return PatternParser(expr).run();
}

} // namespace trainmem
