#pragma once
// Line-by-line, token-by-token reading of a text file held in memory, with errors that carry the
// file name and 1-based line number. Numbers are parsed with std::from_chars (no streams).
#include <cstdint>
#include <string>
#include <string_view>

#include "siskin/value.hpp"

namespace siskin::io {

/// The whole content of a file; Error when it cannot be read.
std::string read_file(const std::string& path);

class TextScanner {
public:
    /// `first_line`: the number of the text's first line in its file (a reader of part of a
    /// file reports the file's line numbers).
    TextScanner(std::string_view text, std::string name, int64_t first_line = 1)
        : text_(text), name_(std::move(name)), line_(first_line - 1) {}

    /// Moves to the next line; false at the end of the text.
    bool next_line();
    /// The current line's number (1-based), or the number the next line would have at the end.
    int64_t line_number() const { return line_; }
    std::string_view line() const { return line_text_; }
    /// The current line without leading whitespace.
    std::string_view rest() const;
    /// Bytes not yet read, after the current line: a bound on how many more lines can follow.
    size_t bytes_left() const { return text_.size() - pos_; }
    /// The next whitespace-separated token of the current line; empty when there is none.
    std::string_view token();
    const std::string& name() const { return name_; }

    [[noreturn]] void fail(const std::string& message) const { fail_at(line_, message); }
    [[noreturn]] void fail_at(int64_t line, const std::string& message) const;

    /// A decimal integer token; `what` names it in the error ("row index").
    int64_t parse_int(std::string_view token, std::string_view what) const;
    /// A value token for a tensor of type `type`: floats parse as real numbers (inf and nan
    /// included), integers as integers of that type, bool as 0, 1, true or false.
    Scalar parse_value(std::string_view token, ValueType type) const;
    /// `v` (read from `token`) as a value of `type`: any number to a float type; to an integer
    /// type or bool only a whole number the type holds. Anything else (2.5, inf or NaN, 300 for
    /// int8, -1 for uint32) fails with the file, line, token and type instead of being rounded,
    /// saturated or wrapped.
    Scalar convert_value(const Scalar& v, ValueType type, std::string_view token) const;

private:
    std::string_view text_;
    std::string name_;
    size_t pos_ = 0;
    int64_t line_ = 0;
    std::string_view line_text_;
    size_t cursor_ = 0;
    bool at_end_ = false;
};

} // namespace siskin::io
