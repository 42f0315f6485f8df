#pragma once
// Structured errors: what is wrong and exactly where (file and JSON pointer), never a bare string.

#include "units.h"

#include <string>
#include <vector>

namespace trainmem {

/// \brief One problem in a file or argument.
struct FieldError {
    std::string file;    ///< file name, "<command line>" or "<text>"
    std::string path;    ///< JSON pointer ("/training/seq_len") or option ("--seq")
    std::string message; ///< "must be a positive integer, got -4"

    /// "file: /training/seq_len: must be a positive integer, got -4"
    std::string toString() const
    {
        std::string s = file;
        if (!path.empty())
            s += (s.empty() ? "" : ": ") + path;
        return s.empty() ? message : s + ": " + message;
    }
};

using FieldErrors = std::vector<FieldError>;

/// A reader lists at most this many errors of one file and counts the rest: a file with a million unknown keys
/// gets twenty lines and "… and 999,980 more errors", not 139 MB of them (issue 33 §6).
inline constexpr size_t kMaxListedErrors = 20;

/// \brief The line that stands for `more` errors left out of the list: "… and 999,980 more errors".
inline FieldError moreErrors(const std::string& file, size_t more)
{
    return {file, "", "… and " + groupDigits(more) + (more == 1 ? " more error" : " more errors")};
}

} // namespace trainmem
