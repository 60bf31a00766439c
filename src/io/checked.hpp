#pragma once
// Checked arithmetic for sizes computed from a file's contents (rows x cols, n(n+1)/2, ...): a
// header may declare any integers, and a product that wraps past 2^63 must be an error, never a
// smaller buffer that the values then overrun.
#include <cstdint>
#include <optional>

namespace siskin::io {

/// a * b, or nothing when it does not fit an int64_t.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a + b, or nothing when it does not fit an int64_t.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

} // namespace siskin::io
