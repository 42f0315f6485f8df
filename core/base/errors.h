#pragma once
// Structured errors: what is wrong and exactly where (file and JSON pointer), never a bare string.

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
        return s + ": " + message;
    }
};

using FieldErrors = std::vector<FieldError>;

} // namespace trainmem
