#pragma once
// Shell text into words, and the Python list expressions Megatron-LM accepts for layer patterns.

#include <string>
#include <vector>

namespace trainmem {

/// \brief Splits shell text into words: `\` line continuations, '…' and "…" quoting, # comments,
/// and $NAME / ${NAME} expansion of NAME=value assignments made earlier in the same text.
/// Expanded values are limited to 1 MiB in all; past that the words stop and `error` (when given)
/// says where (otherwise it is set empty).
std::vector<std::string> shellWords(const std::string& text, std::string* error = nullptr);

/// \brief Evaluates --moe-layer-freq's Python list expression: integers, [a, b, …], +, * and
/// parentheses ("([0]*3+[1]*58)"). Returns the list, or an error message.
struct PatternResult {
    std::vector<int> values;
    std::string error;
};
PatternResult evalLayerPattern(const std::string& expr);

} // namespace trainmem
