#pragma once
// Tensor files: Matrix Market (.mtx) and FROSTT (.tns). Every malformed input raises Error with
// the file name and line number; nothing is silently truncated.
// A tensor whose fill is not zero is written with a "# fill: v" (.tns) comment, which the reader
// uses as the default fill. Matrix Market has no fill: other readers take unstored entries as 0,
// so a sparse tensor with another fill is refused unless WriteOptions::fill_comment asks for a
// "% fill: v" comment that only siskin reads (a dense one is written whole, its fill a comment).
// Every write goes to a temporary file beside the destination, fsynced and renamed into place:
// a failure leaves the old file (or none), never a truncated one.
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

struct WriteOptions {
    /// Matrix Market: write a sparse tensor whose fill is not zero anyway, with the fill in a
    /// "% fill: v" comment. Readers other than siskin then read other values than it holds.
    bool fill_comment = false;
};

Tensor read_matrix_market(const std::string& path, const ReadOptions& options = {});
/// Writes coordinate format for sparse tensors, array format for dense ones (1-D as n x 1).
void write_matrix_market(const Tensor& t, const std::string& path,
                         const WriteOptions& options = {});

Tensor read_frostt(const std::string& path, const ReadOptions& options = {});
/// Writes a "# shape: n1 n2 ..." header comment, then one 1-based entry per line.
void write_frostt(const Tensor& t, const std::string& path);

/// Chooses by extension: .mtx or .tns; throws Error for anything else.
Tensor read_tensor(const std::string& path, const ReadOptions& options = {});
/// The number of dimensions read_tensor(path, options) gives when the file type alone says it:
/// options.ndims (default 2) for Matrix Market; nothing for .tns, whose contents say it.
std::optional<int> file_type_ndims(const std::string& path, const ReadOptions& options = {});
void write_tensor(const Tensor& t, const std::string& path, const WriteOptions& options = {});

/// The files of one run, written all or nothing. Each write renders its text and writes it to a
/// temporary file in the destination's folder (fsynced), throwing Error on any failure, with
/// the errno of the call that failed; commit() renames every temporary into place, and the
/// destructor removes those of a batch that was never committed. So a failed output, or a
/// failure after it, leaves every destination as it was. A destination that is not a regular
/// file (/dev/stdout, a pipe) is written directly at commit(), after the renames.
class OutputFiles {
public:
    OutputFiles() = default;
    OutputFiles(const OutputFiles&) = delete;
    OutputFiles& operator=(const OutputFiles&) = delete;
    ~OutputFiles();

    /// The tensor in the file type of `path`'s extension, as siskin::write_tensor writes it.
    void write_tensor(const Tensor& t, const std::string& path, const WriteOptions& options = {});
    void write_text(const std::string& path, std::string_view text);
    /// Moves every file into place (atomically each: a reader sees the old file or the new).
    void commit();

private:
    struct Pending {
        std::string path, target, temp;    // as given; after symbolic links; the temporary
        std::optional<std::string> direct; // the text of a destination written in place
    };
    std::vector<Pending> pending_;
    bool committed_ = false;
};

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
