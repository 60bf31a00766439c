#pragma once
// How shapes and coordinates are written in messages: "[3, 4]" and "(1, 2)".
#include <cstdint>
#include <span>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace siskin::detail {

inline std::string shape_text(std::span<const int64_t> shape) {
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

inline std::string coord_text(std::span<const int64_t> coord) {
    return fmt::format("({})", fmt::join(coord, ", "));
}

} // namespace siskin::detail
