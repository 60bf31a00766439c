#pragma once
// Tensor files: Matrix Market (.mtx) and FROSTT (.tns). Every malformed input raises Error with
// the file name and line number; nothing is silently truncated.
// A tensor whose fill is not zero is written with a "% fill: v" (.mtx) or "# fill: v" (.tns)
// comment, which the readers use as the default fill; other readers ignore it.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "siskin/tensor.hpp"

namespace siskin {

struct ReadOptions {
    /// Storage format; default: csr for matrices (coordinate files; with a pattern leaf for
    /// pattern files read as bool with fill false), sparselist(0) for vectors from coordinate
    /// files, dense for array files, coo for .tns.
    std::optional<Format> format;
    /// Fill value; default the file's fill comment, else zero of the type (false for pattern).
    std::optional<Scalar> fill;
    /// Value type; default float64 for real, int64 for integer, bool for pattern.
    std::optional<ValueType> type;
    /// Shape for .tns files without a shape header (default: largest coordinate per mode). A
    /// shape header that differs from it is an error.
    std::optional<std::vector<int64_t>> shape;
    /// Dimensions wanted from a Matrix Market file: 2 (default), or 1 to read an n x 1 or 1 x n
    /// matrix as a vector (anything else is then an error).
    std::optional<int> ndims;
    Duplicates duplicates = Duplicates::Sum;
};

Tensor read_matrix_market(const std::string& path, const ReadOptions& options = {});
/// Writes coordinate format for sparse tensors, array format for dense ones (1-D as n x 1).
void write_matrix_market(const Tensor& t, const std::string& path);

Tensor read_frostt(const std::string& path, const ReadOptions& options = {});
/// Writes a "# shape: n1 n2 ..." header comment, then one 1-based entry per line.
void write_frostt(const Tensor& t, const std::string& path);

/// Chooses by extension: .mtx or .tns; throws Error for anything else.
Tensor read_tensor(const std::string& path, const ReadOptions& options = {});
void write_tensor(const Tensor& t, const std::string& path);

/// `text` (bytes from a file or the command line) in single quotes, fit for a one-line error
/// message: control bytes and malformed UTF-8 written as \xNN, backslashes and quotes escaped,
/// and at most `max_bytes` of it shown, then " (N of M bytes shown)" when it was cut.
std::string quote_input(std::string_view text, size_t max_bytes = 80);
/// As quote_input, without the quotes and leaving backslashes and quotes as they are: a message
/// (which quotes its own parts) made safe to print on a terminal.
std::string printable_text(std::string_view text, size_t max_bytes);

/// Stream forms (the name is used in error messages).
Tensor read_matrix_market(std::istream& in, const std::string& name, const ReadOptions& options = {});
Tensor read_frostt(std::istream& in, const std::string& name, const ReadOptions& options = {});

} // namespace siskin
