#include "siskin/error.hpp"

#include <fmt/format.h>

namespace siskin {

namespace {
std::string with_location(const std::string& message, const std::optional<SourceLocation>& at) {
    if (!at) return message;
    std::string prefix = at->file;
    if (at->line > 0) prefix += fmt::format(":{}", at->line);
    if (at->line > 0 && at->column > 0) prefix += fmt::format(":{}", at->column);
    return prefix.empty() ? message : prefix + ": " + message;
}
} // namespace

Error::Error(std::string message, Kind kind, std::optional<SourceLocation> where)
    : std::runtime_error(with_location(message, where)), kind_(kind), where_(std::move(where)),
      message_(std::move(message)) {}

namespace detail {
void assert_failed(const char* cond, const std::string& msg, const char* file, int line) {
    throw Error(fmt::format("internal error: {} ({}) at {}:{}", msg, cond, file, line),
                Error::Kind::Internal);
}
} // namespace detail

} // namespace siskin
