#pragma once
// The pieces of the Matrix Market reader that a reader of part of a file needs as well
// (src/distributed/ parses its own byte range of a file's entries with them): the preamble
// (banner, comments, size line), what the read options make of it, and one entry line, each
// with the reader's checks and messages, at the file's line numbers.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/text_scanner.hpp"
#include "siskin/io.hpp"

namespace siskin::io {

enum class MatrixMarketField { Real, Integer, Pattern };
enum class MatrixMarketSymmetry { General, Symmetric, Skew };

struct MatrixMarketPreamble {
    bool coordinate = true;
    MatrixMarketField field = MatrixMarketField::Real;
    MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::General;
    int64_t rows = 0, cols = 0, entries = 0;
    int64_t size_line = 0;
    /// A "% fill: v" comment before the size line: its text and line.
    std::optional<std::pair<std::string, int64_t>> fill_text;
};

/// Reads the banner, the comments and the size line; `sc` is left on the size line.
MatrixMarketPreamble read_matrix_market_preamble(TextScanner& sc);

/// What a read with `options` makes of a file with this preamble.
struct MatrixMarketLayout {
    std::vector<int64_t> shape; // {rows, cols}, or {n} for a vector (options.ndims == 1)
    bool column_vector = false; // a vector's entries count by their row index (n x 1)
    ValueType type = ValueType::Float64;
    ValueType parse_as = ValueType::Float64; // the type values are parsed in
    Scalar fill;
    Format format;
};
MatrixMarketLayout matrix_market_layout(const MatrixMarketPreamble& p, const ReadOptions& options,
                                        const TextScanner& sc);

/// One entry of a coordinate file, 0-based; `mirrored` when a symmetric or skew-symmetric file
/// also stores (col, row) with `mirror_value`.
struct MatrixMarketEntry {
    int64_t row = 0, col = 0;
    Scalar value, mirror_value;
    bool mirrored = false;
};

/// The next entry line of a coordinate file (blank lines and comments skipped), checked as the
/// reader checks it; nothing at the end of the text.
std::optional<MatrixMarketEntry> read_matrix_market_entry(TextScanner& sc,
                                                          const MatrixMarketPreamble& p,
                                                          const MatrixMarketLayout& layout);

} // namespace siskin::io
