#include "io/text_scanner.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin::io {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

} // namespace

std::string read_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
    std::string text;
    // Reserve the file's size up front so that large files are not copied while they grow.
    if (std::fseek(f, 0, SEEK_END) == 0) {
        long size = std::ftell(f);
        if (size > 0) text.reserve(static_cast<size_t>(size));
        std::rewind(f);
    }
    char chunk[1 << 16];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) text.append(chunk, n);
    bool failed = std::ferror(f) != 0;
    int err = errno;
    std::fclose(f);
    if (failed) throw Error(fmt::format("cannot read '{}': {}", path, std::strerror(err)));
    return text;
}

bool TextScanner::next_line() {
    if (pos_ >= text_.size()) {
        // At the end, the line number moves once past the last line: a truncated file is
        // reported where the missing line would be.
        if (!at_end_) {
            at_end_ = true;
            ++line_;
            line_text_ = {};
            cursor_ = 0;
        }
        return false;
    }
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line_text_ = text_.substr(pos_, end - pos_);
    if (!line_text_.empty() && line_text_.back() == '\r') line_text_.remove_suffix(1);
    pos_ = std::min(end + 1, text_.size());
    ++line_;
    cursor_ = 0;
    return true;
}

std::string_view TextScanner::rest() const {
    size_t i = cursor_;
    while (i < line_text_.size() && is_space(line_text_[i])) ++i;
    return line_text_.substr(i);
}

std::string_view TextScanner::token() {
    while (cursor_ < line_text_.size() && is_space(line_text_[cursor_])) ++cursor_;
    size_t start = cursor_;
    while (cursor_ < line_text_.size() && !is_space(line_text_[cursor_])) ++cursor_;
    return line_text_.substr(start, cursor_ - start);
}

void TextScanner::fail_at(int64_t line, const std::string& message) const {
    throw Error(message, Error::Kind::User, SourceLocation{name_, line, 0});
}

int64_t TextScanner::parse_int(std::string_view token, std::string_view what) const {
    std::string_view body = token;
    if (!body.empty() && body.front() == '+') body.remove_prefix(1);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    if (ec == std::errc::result_out_of_range)
        fail(fmt::format("{} {} is out of range", what, quote_input(token)));
    if (body.empty() || ec != std::errc() || ptr != body.data() + body.size())
        fail(fmt::format("{} {} is not an integer", what, quote_input(token)));
    return v;
}

namespace {

// `body` as a double (inf and nan included), or nothing when it is not a number.
std::optional<double> parse_double(std::string_view body) {
    const char* end = body.data() + body.size();
    double v = 0;
    auto [ptr, ec] = std::from_chars(body.data(), end, v);
    if (ec == std::errc::result_out_of_range && ptr == end && !body.empty()) {
        // Overflow and underflow look alike to from_chars; strtod tells them apart.
        return std::strtod(std::string(body).c_str(), nullptr);
    }
    if (body.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return v;
}

// The value of an integer-like scalar (integers and bool) as a mathematical integer.
__int128 integer_value(const Scalar& v) {
    return is_unsigned_integer(v.type()) ? static_cast<__int128>(v.as_uint())
                                         : static_cast<__int128>(v.as_int());
}

} // namespace

Scalar TextScanner::convert_value(const Scalar& v, ValueType type, std::string_view token) const {
    if (v.type() == type || is_float(type)) return v.cast(type);
    auto cannot_hold = [&](std::string_view why) {
        fail(fmt::format("value {} {}, so type {} cannot hold it", quote_input(token), why,
                         type_name(type)));
    };
    Scalar whole = v;
    if (is_float(v.type())) {
        double d = v.as_double();
        if (!std::isfinite(d)) cannot_hold("is not finite");
        if (d != std::trunc(d)) cannot_hold("is not a whole number");
        // Exactly representable bounds: [-2^63, 2^63) and [0, 2^64) hold every whole double
        // that the integer conversions below keep.
        if (d < -0x1p63 || d >= 0x1p64) cannot_hold("is out of range");
        whole = d < 0x1p63 ? Scalar::of(static_cast<int64_t>(d))
                           : Scalar::of(static_cast<uint64_t>(d));
    }
    Scalar r = whole.cast(type);
    if (integer_value(r) != integer_value(whole)) cannot_hold("is out of range");
    return r;
}

Scalar TextScanner::parse_value(std::string_view token, ValueType type) const {
    std::string_view body = token;
    if (!body.empty() && body.front() == '+') body.remove_prefix(1);
    const char* end = body.data() + body.size();
    if (type == ValueType::Float64 || type == ValueType::Float32) {
        std::optional<double> v = parse_double(body);
        if (!v) fail(fmt::format("value {} is not a number", quote_input(token)));
        if (type == ValueType::Float64) return Scalar::of(*v);
        // Read float32 values directly, so that no double rounding happens on the way.
        float f = 0;
        auto [fptr, fec] = std::from_chars(body.data(), end, f);
        if (fec == std::errc() && fptr == end) return Scalar::of(f);
        return Scalar::of(*v).cast(type);
    }
    if (type == ValueType::Bool) {
        if (body == "true") return Scalar::of(true);
        if (body == "false") return Scalar::of(false);
        // A number follows the rule of the integer types: a whole number bool holds (0 or 1, in
        // any spelling: 1.0 is true), never 2.5, inf or nan made true.
        if (!parse_double(body))
            fail(fmt::format("value {} is not a bool (expected 0, 1, true or false)",
                             quote_input(token)));
    }
    if (is_unsigned_integer(type)) {
        uint64_t v = 0;
        auto [ptr, ec] = std::from_chars(body.data(), end, v);
        if (ec == std::errc() && ptr == end && !body.empty())
            return convert_value(Scalar::of(v), type, token);
    }
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(body.data(), end, v);
    if (ec == std::errc::result_out_of_range)
        fail(fmt::format("value {} is out of range for {}", quote_input(token), type_name(type)));
    if (!body.empty() && ec == std::errc() && ptr == end)
        return convert_value(Scalar::of(v), type, token);
    // A float spelling ("3.0", "1e3") holds an integer when its value is a whole number in range;
    // anything else (2.5, inf, nan) is refused, never rounded or wrapped.
    if (std::optional<double> d = parse_double(body))
        return convert_value(Scalar::of(*d), type, token);
    fail(fmt::format("value {} is not an integer", quote_input(token)));
}

} // namespace siskin::io
