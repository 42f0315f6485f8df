#include "measured.h"

#include "segmentkind.h"
#include "timeline.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

namespace trainmem {
namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// A figure in a line: its bytes, where it starts and ends, and whether a unit said what it counts.
struct Figure {
    double bytes = 0;
    size_t begin = 0, end = 0;
    bool unit = false;
    bool integer = true;
};

/// The unit at `s` (letters, case not minded): its bytes, or 0 when the letters are no unit of memory.
double unitAt(std::string_view s, size_t& length)
{
    size_t n = 0;
    while (n < s.size() && n < 8 && std::isalpha(static_cast<unsigned char>(s[n])))
        ++n;
    length = n;
    const std::string u = lower(s.substr(0, n));
    static const std::pair<const char*, double> kUnits[] = {
        {"b", 1},     {"byte", 1},     {"bytes", 1},    {"kb", 1e3},     {"mb", 1e6},     {"gb", 1e9},    {"tb", 1e12},
        {"pb", 1e15}, {"kib", 0x1p10}, {"mib", 0x1p20}, {"gib", 0x1p30}, {"tib", 0x1p40}, {"pib", 0x1p50}};
    for (const auto& [name, bytes] : kUnits)
        if (u == name)
            return bytes;
    return 0;
}

/// A line is read for this many figures and statistics at most: a readout has a few; a pasted binary has no end.
constexpr size_t kMaxFiguresPerLine = 64;

/// Every figure of a line: a number (digits, "," thousands groups, a decimal point) and the unit after it, if any. A
/// number followed by "%" or glued to letters that are no unit ("fp16", "A100", "H100") is not a figure.
std::vector<Figure> figuresIn(std::string_view line)
{
    std::vector<Figure> out;
    size_t i = 0;
    while (i < line.size() && out.size() < kMaxFiguresPerLine) {
        if (!isDigit(line[i]) || (i > 0 && (std::isalpha(static_cast<unsigned char>(line[i - 1])) ||
                                            line[i - 1] == '_' || line[i - 1] == '.'))) {
            ++i;
            continue;
        }
        const size_t begin = i;
        // The digits as written, read by from_chars: "6.19" is the double the literal 6.19 is.
        std::string digits;
        // A "," goes on the number only before a group of three digits ("22,843,617,280"), not in a list ("3,4").
        auto group = [&](size_t at) {
            return line[at] == ',' && at + 3 < line.size() && isDigit(line[at + 1]) && isDigit(line[at + 2]) &&
                   isDigit(line[at + 3]) && (at + 4 == line.size() || !isDigit(line[at + 4]));
        };
        while (i < line.size() && (isDigit(line[i]) || group(i))) {
            if (line[i] != ',' && digits.size() < 40)
                digits += line[i];
            ++i;
        }
        bool integer = true;
        if (i + 1 < line.size() && line[i] == '.' && isDigit(line[i + 1])) {
            integer = false;
            digits += '.';
            for (++i; i < line.size() && isDigit(line[i]); ++i)
                if (digits.size() < 40)
                    digits += line[i];
        }
        double value = 0;
        std::from_chars(digits.data(), digits.data() + digits.size(), value);
        size_t j = i;
        while (j < line.size() && j < i + 2 && line[j] == ' ')
            ++j;
        size_t length = 0;
        const double unit = unitAt(line.substr(j), length);
        if (j < line.size() && line[j] == '%') {
            i = j + 1;
            continue;
        }
        if (unit > 0) {
            out.push_back({value * unit, begin, j + length, true, integer});
            i = j + length;
        } else if (j == i && i < line.size() && std::isalpha(static_cast<unsigned char>(line[i]))) {
            while (i < line.size() && std::isalnum(static_cast<unsigned char>(line[i])))
                ++i; // "100W", "34C", "A100x": a number glued to what it is not
        } else {
            out.push_back({value, begin, i, false, integer});
        }
    }
    return out;
}

/// The lines of `text`, a "\r" before each "\n" dropped (a readout pasted from Windows).
std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == '\n') {
            std::string_view line = text.substr(start, i - start);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            lines.push_back(line);
            start = i + 1;
        }
    return lines;
}

std::vector<std::string_view> splitOn(std::string_view s, char sep)
{
    std::vector<std::string_view> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) {
            out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

std::string lineRef(int line)
{
    return "line " + std::to_string(line);
}

/// The one figure with a unit in `cell` (a table cell such as " 22370 MiB "), or nullopt.
std::optional<double> cellBytes(std::string_view cell)
{
    const std::vector<Figure> f = figuresIn(cell);
    if (f.size() != 1 || !f.front().unit)
        return std::nullopt;
    return f.front().bytes;
}

/// The integer after `key` in `lower` ("device id 3" → 3), or -1.
int numberAfter(const std::string& lowerLine, const std::string& key)
{
    const size_t at = lowerLine.find(key);
    if (at == std::string::npos)
        return -1;
    size_t i = at + key.size();
    while (i < lowerLine.size() && lowerLine[i] == ' ')
        ++i;
    int n = 0, digits = 0;
    for (; i < lowerLine.size() && isDigit(lowerLine[i]) && digits < 6; ++i, ++digits)
        n = n * 10 + (lowerLine[i] - '0');
    return digits > 0 ? n : -1;
}

class Reader
{
public:
    Reader(std::string_view text, const std::string& file) : m_file(file)
    {
        if (text.size() > kMaxMeasuredText) {
            text = text.substr(0, kMaxMeasuredText);
            m.notes.push_back("only the first 4 MB of the text are read");
        }
        m_lines = splitLines(text);
        m_lower.reserve(m_lines.size());
        for (std::string_view l : m_lines)
            m_lower.push_back(lower(l));
    }

    MeasuredMemory read()
    {
        bool blank = true;
        for (std::string_view l : m_lines)
            blank = blank && trim(l).empty();
        if (blank) {
            fail("", "is empty: paste the text of torch.cuda.memory_summary() or nvidia-smi, or a figure with its "
                     "statistic (\"peak allocated 61.2 GiB\")");
            return m;
        }
        if (has("pytorch cuda memory summary"))
            memorySummary();
        else if (has("out of memory"))
            outOfMemory();
        else if (has("memory.used"))
            queryCsv();
        else if (hasSmiRow())
            smiTable();
        else
            figures();
        if (m.errors.empty() && m.readings.empty())
            fail("", "has no memory figure TrainMem can read: paste the text of torch.cuda.memory_summary() or "
                     "nvidia-smi, or a figure with its statistic (\"peak allocated 61.2 GiB\", \"reserved 70 GB\", "
                     "\"nvidia-smi 78519 MiB\")");
        if (m.errors.empty())
            choosePrimary();
        return m;
    }

private:
    bool has(const char* needle) const
    {
        return std::any_of(m_lower.begin(), m_lower.end(),
                           [&](const std::string& l) { return l.find(needle) != std::string::npos; });
    }

    /// nvidia-smi's "used / total" cell: "78519MiB / 81920MiB".
    static std::optional<std::pair<double, double>> smiCell(std::string_view line)
    {
        const std::vector<Figure> f = figuresIn(line);
        for (size_t k = 0; k + 1 < f.size(); ++k) {
            if (!f[k].unit || !f[k + 1].unit)
                continue;
            const std::string_view between = trim(line.substr(f[k].end, f[k + 1].begin - f[k].end));
            if (between == "/")
                return std::pair{f[k].bytes, f[k + 1].bytes};
        }
        return std::nullopt;
    }
    bool hasSmiRow() const
    {
        return std::any_of(m_lines.begin(), m_lines.end(), [](std::string_view l) {
            return l.find("MiB") != std::string_view::npos && smiCell(l).has_value();
        });
    }

    void fail(const std::string& where, const std::string& message) { m.errors.push_back({m_file, where, message}); }

    void add(MemoryStatistic s, double bytes, int device, size_t lineIndex)
    {
        if (!(bytes >= 0) || bytes > kMaxMeasuredBytes) {
            fail(lineRef(static_cast<int>(lineIndex) + 1),
                 formatBytes(bytes) + " is more than any GPU holds (at most " + formatBytes(kMaxMeasuredBytes) + ")");
            return;
        }
        m.readings.push_back({s, bytes, device, static_cast<int>(lineIndex) + 1});
    }

    // torch.cuda.memory_summary(): the "Peak Usage" column of "Allocated memory" and "GPU reserved memory", per
    // summary (one per device). Its sizes are whole KiB/MiB/GiB (torch/cuda/memory.py, _format_size).
    void memorySummary()
    {
        m.source = "torch.cuda.memory_summary()";
        int device = -1;
        int peakColumn = 3; // | Metric | Cur Usage | Peak Usage | Tot Alloc | Tot Freed |
        for (size_t i = 0; i < m_lines.size(); ++i) {
            const std::string& l = m_lower[i];
            if (l.find("pytorch cuda memory summary") != std::string::npos) {
                device = numberAfter(l, "device id");
                continue;
            }
            const std::vector<std::string_view> cells = splitOn(trim(m_lines[i]), '|');
            if (cells.size() < 4)
                continue;
            const std::string name = lower(trim(cells[1]));
            if (name == "metric") {
                for (size_t c = 0; c < cells.size(); ++c)
                    if (lower(trim(cells[c])) == "peak usage")
                        peakColumn = static_cast<int>(c);
                continue;
            }
            std::optional<MemoryStatistic> s;
            if (name == "allocated memory")
                s = MemoryStatistic::PeakAllocated;
            else if (name == "gpu reserved memory")
                s = MemoryStatistic::PeakReserved;
            if (!s)
                continue;
            const std::optional<double> b = static_cast<size_t>(peakColumn) < cells.size()
                                                ? cellBytes(cells[static_cast<size_t>(peakColumn)])
                                                : std::nullopt;
            if (!b) {
                fail(lineRef(static_cast<int>(i) + 1),
                     "\"" + std::string(trim(cells[1])) + "\" has no Peak Usage figure TrainMem can read");
                continue;
            }
            add(*s, *b, device, i);
        }
    }

    // nvidia-smi's table: each GPU's "used / total" cell, the GPU's index from the row above it; the processes
    // table under it is not read (its figures are per process).
    void smiTable()
    {
        m.source = "nvidia-smi";
        int device = -1;
        for (size_t i = 0; i < m_lines.size(); ++i) {
            const std::string& l = m_lower[i];
            if (l.find("processes:") != std::string::npos)
                break;
            const std::string_view t = trim(m_lines[i]);
            if (t.size() > 1 && t.front() == '|') {
                const std::string_view inner = trim(t.substr(1));
                if (!inner.empty() && isDigit(inner.front())) {
                    const std::vector<Figure> f = figuresIn(inner);
                    if (!f.empty() && f.front().begin == 0 && !f.front().unit && f.front().bytes < 1e6)
                        device = static_cast<int>(f.front().bytes);
                }
            }
            if (const auto cell = smiCell(m_lines[i])) {
                add(MemoryStatistic::DeviceUsed, cell->first, device, i);
                m_totals.push_back(cell->second);
            }
        }
    }

    // nvidia-smi --query-gpu=…,memory.used,… --format=csv[,nounits]: the memory.used column, its unit from the
    // header ("memory.used [MiB]") when the cells carry none.
    void queryCsv()
    {
        m.source = "nvidia-smi --query-gpu";
        size_t header = 0;
        while (header < m_lines.size() && m_lower[header].find("memory.used") == std::string::npos)
            ++header;
        const std::vector<std::string_view> names = splitOn(m_lower[header], ',');
        int used = -1, index = -1;
        double unit = 0x1p20;
        for (size_t c = 0; c < names.size(); ++c) {
            const std::string_view n = trim(names[c]);
            if (n.rfind("memory.used", 0) == 0) {
                used = static_cast<int>(c);
                size_t length = 0;
                const size_t open = n.find('[');
                if (open != std::string_view::npos) {
                    const double u = unitAt(n.substr(open + 1), length);
                    if (u > 0)
                        unit = u;
                }
            } else if (n == "index") {
                index = static_cast<int>(c);
            }
        }
        for (size_t i = header + 1; i < m_lines.size(); ++i) {
            if (trim(m_lines[i]).empty())
                continue;
            const std::vector<std::string_view> cells = splitOn(m_lines[i], ',');
            if (static_cast<size_t>(used) >= cells.size()) {
                fail(lineRef(static_cast<int>(i) + 1),
                     "has no memory.used column (column " + std::to_string(used + 1) + " of the header)");
                continue;
            }
            const std::vector<Figure> f = figuresIn(cells[static_cast<size_t>(used)]);
            if (f.size() != 1) {
                fail(lineRef(static_cast<int>(i) + 1),
                     "memory.used \"" + std::string(trim(cells[static_cast<size_t>(used)])) + "\" is not a figure");
                continue;
            }
            int device = -1;
            if (index >= 0 && static_cast<size_t>(index) < cells.size()) {
                const std::vector<Figure> d = figuresIn(cells[static_cast<size_t>(index)]);
                if (d.size() == 1 && !d.front().unit && d.front().bytes < 1e6)
                    device = static_cast<int>(d.front().bytes);
            }
            add(MemoryStatistic::DeviceUsed, f.front().unit ? f.front().bytes : f.front().bytes * unit, device, i);
        }
    }

    /// The figure just before `key` in line `i` ("79.15 GiB total capacity"), or after it ("has 77.9 GiB").
    std::optional<double> figureNear(size_t i, const std::string& key, bool before) const
    {
        const std::string& l = m_lower[i];
        const size_t at = l.find(key);
        if (at == std::string::npos)
            return std::nullopt;
        const std::vector<Figure> f = figuresIn(m_lines[i]);
        std::optional<double> out;
        for (const Figure& x : f) {
            if (!x.unit)
                continue;
            if (before && x.end <= at)
                out = x.bytes; // the last before
            if (!before && x.begin >= at + key.size())
                return x.bytes; // the first after
        }
        return out;
    }

    // PyTorch's out-of-memory error, either wording (torch/csrc/c10/cuda/CUDACachingAllocator.cpp): before 2.1
    // "… X already allocated; … Y reserved in total by PyTorch", since then "this process has Z memory in use. Of
    // the allocated memory X is allocated by PyTorch, and W is reserved by PyTorch but unallocated".
    void outOfMemory()
    {
        m.source = "PyTorch's out-of-memory error";
        for (size_t i = 0; i < m_lines.size(); ++i) {
            const std::string& l = m_lower[i];
            if (l.find("out of memory") == std::string::npos && l.find("already allocated") == std::string::npos &&
                l.find("allocated by pytorch") == std::string::npos)
                continue;
            const int device = numberAfter(l, "gpu ");
            if (auto a = figureNear(i, "already allocated", true))
                add(MemoryStatistic::PeakAllocated, *a, device, i);
            if (auto r = figureNear(i, "reserved in total by pytorch", true))
                add(MemoryStatistic::PeakReserved, *r, device, i);
            const std::optional<double> used = figureNear(i, "this process has", false);
            const std::optional<double> alloc = figureNear(i, "of the allocated memory", false);
            const std::optional<double> unused = figureNear(i, "is reserved by pytorch but unallocated", true);
            if (alloc)
                add(MemoryStatistic::PeakAllocated, *alloc, device, i);
            if (alloc && unused)
                add(MemoryStatistic::PeakReserved, *alloc + *unused, device, i);
            if (used)
                add(MemoryStatistic::DeviceUsed, *used, device, i);
            if (auto tried = figureNear(i, "tried to allocate", false))
                m.notes.push_back("the run ran out of memory asking for " + formatBytes(*tried) +
                                  " more: its peak is above these figures");
        }
    }

    // A figure with its statistic, one or more per line: "peak allocated 61.2 GiB", "reserved: 70 GB",
    // "torch.cuda.max_memory_allocated() = 22843617280", torchtune's "GPU peak memory allocation: 16.43 GiB".
    void figures()
    {
        // torchtune's log (torchtune/training/memory.py, log_memory_stats) is read the same way, and named.
        m.source = has("peak memory allocation") ? "torchtune's memory stats" : "a figure with its statistic";
        struct Key {
            const char* text;
            std::optional<MemoryStatistic> statistic; ///< none: a statistic TrainMem does not compare
        };
        static const Key kKeys[] = {
            {"alloc", MemoryStatistic::PeakAllocated},   {"reserv", MemoryStatistic::PeakReserved},
            {"nvidia-smi", MemoryStatistic::DeviceUsed}, {"in use", MemoryStatistic::DeviceUsed},
            {"used", MemoryStatistic::DeviceUsed},       {"active", std::nullopt}};
        bool unread = false, active = false;
        for (size_t i = 0; i < m_lines.size(); ++i) {
            const std::string& l = m_lower[i];
            struct Hit {
                size_t at, end;
                std::optional<MemoryStatistic> statistic;
            };
            std::vector<Hit> hits;
            for (const Key& k : kKeys)
                for (size_t at = l.find(k.text); at != std::string::npos && hits.size() < kMaxFiguresPerLine;
                     at = l.find(k.text, at + 1)) {
                    const size_t end = at + std::char_traits<char>::length(k.text);
                    const bool inside =
                        std::any_of(hits.begin(), hits.end(), [&](const Hit& h) { return at < h.end && h.at < end; });
                    if (!inside)
                        hits.push_back({at, end, k.statistic});
                }
            std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.at < b.at; });
            const std::vector<Figure> f = figuresIn(m_lines[i]);
            // A figure goes with the statistic before it on the line; a line with one statistic and one figure
            // takes it either side ("61.2 GiB allocated").
            auto usable = [](const Figure& x) { return x.unit || (x.integer && x.bytes >= 1e6); };
            if (hits.empty()) {
                unread = unread || std::any_of(f.begin(), f.end(), [](const Figure& x) { return x.unit; });
                continue;
            }
            for (size_t h = 0; h < hits.size(); ++h) {
                const size_t to = h + 1 < hits.size() ? hits[h + 1].at : l.size();
                const Figure* found = nullptr;
                for (const Figure& x : f)
                    if (x.begin >= hits[h].end && x.begin < to && usable(x)) {
                        found = &x;
                        break;
                    }
                if (!found && hits.size() == 1) {
                    for (const Figure& x : f)
                        if (x.end <= hits[h].at && usable(x))
                            found = &x;
                }
                if (!found)
                    continue;
                if (!hits[h].statistic) {
                    active = true;
                    continue;
                }
                add(*hits[h].statistic, found->bytes, numberAfter(l, "gpu "), i);
            }
        }
        if (active)
            m.notes.push_back("active memory is not compared (it is allocated memory less what waits to be freed)");
        if (m.readings.empty() && unread)
            fail("", "has a figure but not its statistic: say which it is, \"peak allocated 61.2 GiB\", \"peak "
                     "reserved 70 GB\" or \"nvidia-smi 78519 MiB\"");
    }

    void choosePrimary()
    {
        const MemoryStatistic smallest =
            std::min_element(m.readings.begin(), m.readings.end(), [](const auto& a, const auto& b) {
                return a.statistic < b.statistic;
            })->statistic;
        size_t n = 0;
        bool first = true;
        for (const MeasuredReading& r : m.readings) {
            if (r.statistic != smallest)
                continue;
            ++n;
            if (first || r.bytes > m.primary.bytes)
                m.primary = r;
            first = false;
        }
        if (n > 1)
            m.notes.push_back(std::to_string(n) + " figures of " + statisticName(smallest) +
                              (m.source == "nvidia-smi" || m.source == "nvidia-smi --query-gpu"
                                   ? " (one per GPU): the busiest GPU's is compared"
                                   : ": the largest is compared"));
        for (double total : m_totals)
            if (total > 0 && m.primary.statistic == MemoryStatistic::DeviceUsed) {
                m.notes.push_back("the GPU has " + formatBytes(total) + " (" + formatBytes(total, UnitSystem::Binary) +
                                  ")");
                break;
            }
    }

    std::string m_file;
    std::vector<std::string_view> m_lines;
    std::vector<std::string> m_lower;
    std::vector<double> m_totals;
    MeasuredMemory m;
};

/// Why a term may be larger on the GPU than predicted (`above`) or smaller.
std::string whyTerm(SegmentKind k, bool above)
{
    switch (k) {
    case SegmentKind::Activations:
        return above ? "the tape depends on the attention kernel, what is checkpointed and the sequence lengths the "
                       "batches really have"
                     : "a run that checkpoints more, or whose packed sequences are shorter, keeps a smaller tape; a "
                       "readout taken before the first forward pass has none";
    case SegmentKind::Logits:
        return above ? "the loss may upcast the logits to float32 and keep their gradient whole"
                     : "a chunked or fused cross-entropy never holds the logits whole";
    case SegmentKind::Workspace:
        return above ? "transient buffers: matmul outputs, communication buckets, the optimizer's temporaries"
                     : "a kernel that works in place or in chunks needs less scratch";
    case SegmentKind::Fragmentation:
        return above ? "the caching allocator can hold more free blocks than the reserve assumes"
                     : "expandable segments or a steady shape fragment less than the reserve assumes";
    case SegmentKind::Framework:
        return above ? "the CUDA context, cuBLAS and NCCL buffers, and other processes on the GPU"
                     : "a lean CUDA context (lazy module loading) takes less";
    case SegmentKind::Optimizer:
        return above ? "an optimizer with more state per parameter than the recipe's"
                     : "the optimizer state is made at the first step: a readout taken before it has none; 8-bit or "
                       "paged optimizers keep less";
    case SegmentKind::Gradients:
        return above ? "gradients kept in float32, or buckets that copy them"
                     : "gradients freed as they are reduced, or applied in the backward (optimizer in backward)";
    case SegmentKind::Master:
        return above ? "a float32 master copy the recipe does not keep" : "no float32 master copy on the GPU";
    case SegmentKind::Weights:
        return above ? "weights in a wider type than set, or not sharded as set"
                     : "weights quantized or sharded further than set";
    case SegmentKind::Adapters:
        return above ? "more adapted modules or a larger rank" : "fewer adapted modules or a smaller rank";
    case SegmentKind::KvCache:
        return above ? "a longer cache or more sequences" : "a shorter cache or fewer sequences";
    case SegmentKind::RecurrentState:
        return above ? "more sequences, or the state kept in a wider type"
                     : "fewer sequences, or the state kept in 16 bits";
    }
    return {};
}

} // namespace

const char* statisticId(MemoryStatistic s)
{
    switch (s) {
    case MemoryStatistic::PeakAllocated:
        return "peak_allocated";
    case MemoryStatistic::PeakReserved:
        return "peak_reserved";
    case MemoryStatistic::DeviceUsed:
        return "device_used";
    }
    return "";
}

std::string statisticName(MemoryStatistic s)
{
    switch (s) {
    case MemoryStatistic::PeakAllocated:
        return "peak allocated";
    case MemoryStatistic::PeakReserved:
        return "peak reserved";
    case MemoryStatistic::DeviceUsed:
        return "in use on the GPU (nvidia-smi)";
    }
    return "";
}

MeasuredMemory parseMeasuredMemory(std::string_view text, const std::string& file)
{
    return Reader(text, file).read();
}

double predictedFor(const Segments& g, MemoryStatistic s)
{
    switch (s) {
    case MemoryStatistic::PeakAllocated:
        return g.total() - g.framework - g.fragmentation;
    case MemoryStatistic::PeakReserved:
        return g.total() - g.framework;
    case MemoryStatistic::DeviceUsed:
        return g.total();
    }
    return g.total();
}

double predictedStatistic(const ToolsView& v, MemoryStatistic stat)
{
    return stat == MemoryStatistic::DeviceUsed ? v.device : predictedFor(v.bytes, stat);
}

MeasuredComparison compareMeasured(const MeasuredMemory& m, const Breakdown& b, const Scenario& s, UnitSystem units)
{
    auto bytes = [units](double v) { return formatBytes(v, units); };
    MeasuredComparison c;
    c.statistic = m.primary.statistic;
    c.measured = m.primary.bytes;
    const ToolsView view = toolsView(s, b);
    c.predicted = predictedStatistic(view, c.statistic);
    c.gap = c.measured - c.predicted;
    c.ratio = c.predicted > 0 ? c.measured / c.predicted : 0;
    c.agrees = c.predicted > 0 && std::fabs(c.gap) <= kAgreement * c.predicted;
    const bool above = c.gap > 0;
    // The terms a real run most often differs in, likeliest first; each must be at least half the gap to explain
    // it. The CUDA context and the reserve count only for the statistics that hold them.
    static const SegmentKind kAbove[] = {
        SegmentKind::Activations, SegmentKind::Logits,    SegmentKind::Workspace, SegmentKind::Fragmentation,
        SegmentKind::Framework,   SegmentKind::Optimizer, SegmentKind::Gradients, SegmentKind::Master,
        SegmentKind::Weights,     SegmentKind::Adapters,  SegmentKind::KvCache,   SegmentKind::RecurrentState};
    static const SegmentKind kBelow[] = {
        SegmentKind::Optimizer, SegmentKind::Activations, SegmentKind::Logits,        SegmentKind::Gradients,
        SegmentKind::Workspace, SegmentKind::Master,      SegmentKind::Fragmentation, SegmentKind::Framework,
        SegmentKind::Adapters,  SegmentKind::Weights,     SegmentKind::KvCache,       SegmentKind::RecurrentState};
    if (!c.agrees && c.predicted > 0)
        for (SegmentKind k : above ? kAbove : kBelow) {
            if ((k == SegmentKind::Framework && c.statistic != MemoryStatistic::DeviceUsed) ||
                (k == SegmentKind::Fragmentation && c.statistic == MemoryStatistic::PeakAllocated))
                continue;
            const double bytes = segmentBytes(view.bytes, k);
            if (bytes > 0 && bytes >= 0.5 * std::fabs(c.gap))
                c.likely.push_back({k, bytes, whyTerm(k, above)});
            if (c.likely.size() == 3)
                break;
        }
    const std::string where = m.primary.device >= 0 ? ", GPU " + std::to_string(m.primary.device) : "";
    const std::string held = c.statistic == MemoryStatistic::PeakAllocated  ? "every term but the CUDA context and the "
                                                                              "allocator's reserve"
                             : c.statistic == MemoryStatistic::PeakReserved ? "every term but the CUDA context"
                                                                            : "every term";
    std::string t = "Measured " + statisticName(c.statistic) + " " + bytes(c.measured) + " (" + m.source + where +
                    ") against TrainMem's " + bytes(c.predicted) + " for the same statistic (" + held + ", " +
                    (b.layout.pp > 1 ? "the busiest pipeline stage" : "one GPU") +
                    (view.fromFilm && c.statistic != MemoryStatistic::DeviceUsed
                         ? ", at the step's peak, " + view.where + ", as torchtune frees"
                         : std::string()) +
                    "): ";
    if (c.predicted <= 0)
        t += "nothing is predicted to compare.";
    else if (c.agrees)
        t += "within " + formatPercent(kAgreement) + ", " + formatPercentChange(c.ratio - 1) + ".";
    else {
        t += formatPercentChange(c.ratio - 1) + ", " + bytes(std::fabs(c.gap)) + (above ? " more" : " less") +
             " than predicted.";
        if (c.likely.empty())
            t += " No single term is half the gap: the model, the precision or the batch probably differ from the "
                 "run's.";
        else {
            t += " Terms that could explain it: ";
            for (size_t i = 0; i < c.likely.size(); ++i)
                t += (i ? "; " : "") + segmentKindName(c.likely[i].kind) + " " + bytes(c.likely[i].bytes) + " (" +
                     c.likely[i].why + ")";
            t += ".";
        }
    }
    if (s.training.mode == Mode::Training && c.statistic != MemoryStatistic::DeviceUsed && b.layout.pp > 1)
        t += " A readout of one rank: compare it with that rank in the Ranks dock.";
    c.summary = t;
    return c;
}

} // namespace trainmem
