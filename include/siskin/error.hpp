#pragma once
// The one error type of siskin. Everything the user can get wrong (a malformed file, a parse
// error, a shape mismatch, an unsupported format combination) and every internal invariant that
// fails is reported as a siskin::Error, so callers need a single catch.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace siskin {

struct SourceLocation {
    std::string file;   // file name, or "<program>" for program text
    int64_t line = 0;   // 1-based; 0 when unknown
    int64_t column = 0; // 1-based; 0 when unknown
};

class Error : public std::runtime_error {
public:
    enum class Kind {
        User,        // bad input: the message says what to change
        Unsupported, // valid request that siskin cannot do yet
        Internal,    // a siskin bug: an invariant failed
    };

    explicit Error(std::string message, Kind kind = Kind::User,
                   std::optional<SourceLocation> where = std::nullopt);

    Kind kind() const { return kind_; }
    const std::optional<SourceLocation>& where() const { return where_; }
    /// The message without the "file:line:col: " prefix that what() carries.
    const std::string& message() const { return message_; }

private:
    Kind kind_;
    std::optional<SourceLocation> where_;
    std::string message_;
};

/// Throws Error(kind Internal) with the condition text, file and line. Always on, release too.
#define SISKIN_ASSERT(cond, msg)                                                               \
    do {                                                                                       \
        if (!(cond)) ::siskin::detail::assert_failed(#cond, (msg), __FILE__, __LINE__);        \
    } while (0)

namespace detail {
[[noreturn]] void assert_failed(const char* cond, const std::string& msg, const char* file,
                                int line);
}

} // namespace siskin
