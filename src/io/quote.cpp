// quote_input: bytes from a file or the command line, made safe to put in an error message.
#include <fmt/format.h>

#include "siskin/io.hpp"

namespace siskin {

namespace {

// The length of the well-formed UTF-8 sequence of a printable character (U+00A0 and above) at
// the start of `s`, or 0 when the sequence is malformed, overlong, a surrogate or a C1 control.
size_t printable_utf8_length(std::string_view s) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char b = byte(0);
    size_t n = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    if (n == 0 || s.size() < n) return 0;
    uint32_t cp = b & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < n; ++k) {
        if ((byte(k) & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (byte(k) & 0x3f);
    }
    bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || cp < 0xa0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
    return n;
}

} // namespace

namespace {

// `text` with every byte that is not printable written as \xNN (and, when `quotes`, backslashes
// and single quotes escaped), at most `max_bytes` of it; `shown` is how many bytes that was.
std::string escape(std::string_view text, size_t max_bytes, bool quotes, size_t& shown) {
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        auto b = static_cast<unsigned char>(text[i]);
        size_t n = b >= 0x20 && b < 0x7f ? 1
                   : b >= 0x80           ? printable_utf8_length(text.substr(i))
                                         : 0;
        if (i + std::max<size_t>(n, 1) > max_bytes) break;
        if (n == 0) {
            out += fmt::format("\\x{:02x}", b);
            n = 1;
        } else if (quotes && (b == '\\' || b == '\'')) {
            out += '\\';
            out += static_cast<char>(b);
        } else {
            out.append(text.data() + i, n);
        }
        i += n;
    }
    shown = i;
    return out;
}

std::string cut_note(size_t shown, size_t size) {
    return shown < size ? fmt::format(" ({} of {} bytes shown)", shown, size) : "";
}

} // namespace

std::string quote_input(std::string_view text, size_t max_bytes) {
    size_t shown = 0;
    std::string body = escape(text, max_bytes, true, shown);
    return "'" + body + (shown < text.size() ? "...'" : "'") + cut_note(shown, text.size());
}

std::string printable_text(std::string_view text, size_t max_bytes) {
    size_t shown = 0;
    std::string body = escape(text, max_bytes, false, shown);
    return body + (shown < text.size() ? "..." : "") + cut_note(shown, text.size());
}

} // namespace siskin
