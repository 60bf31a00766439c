#pragma once
// The pieces of the FROSTT (.tns) reader that a reader of part of a file needs as well
// (src/distributed/ parses its own byte range of a file with them): the shape and fill comments,
// the rank limit, and one entry line, with the reader's checks and messages.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/text_scanner.hpp"

namespace siskin::io {

/// A "# shape: ..." or "# fill: ..." comment (`comment` starts after the '#'); others are ignored.
void parse_frostt_comment(TextScanner& sc, std::string_view comment, std::optional<std::vector<int64_t>>& shape,
                          std::optional<std::pair<std::string, int64_t>>& fill);
/// Refuses a rank beyond siskin's limit, on the scanner's line.
void check_frostt_rank(const TextScanner& sc, int64_t rank);
/// The `tokens` of an entry line: `nd` 1-based indices (checked against `shape` when known,
/// appended 0-based to `coords`, and folded into `largest`) and a value of `type`.
void parse_frostt_entry(const TextScanner& sc, const std::vector<std::string_view>& tokens, int nd,
                        const std::vector<int64_t>* shape, ValueType type, std::vector<int64_t>& largest,
                        std::vector<int64_t>& coords, Scalar& value);

} // namespace siskin::io
