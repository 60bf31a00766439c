#pragma once
// The C spelling of a siskin constant.
#include <string>

#include "siskin/value.hpp"

namespace siskin::cast {

/// C text whose value and type are those of `v` (given the prelude's standard headers):
///   bool       true / false
///   int8/16    -5            (int: C promotes these types to int in every expression anyway)
///   int32      -5, INT32_MIN
///   int64      -5LL, INT64_MIN  (long long is 64 bits on every platform siskin supports)
///   uint8/16   5
///   uint32     5U
///   uint64     5ULL
///   float32    0.1f, 1.0f, -0.0f, HUGE_VALF, -HUGE_VALF, NAN
///   float64    0.1, 1.0, -0.0, 1e+300, HUGE_VAL, -HUGE_VAL, (double)NAN
/// Floats use the shortest text that reads back to the same value. The most negative integers
/// use the stdint.h macros because C has no negative literals: -2147483648 would be a long.
std::string c_literal(const Scalar& v);

} // namespace siskin::cast
