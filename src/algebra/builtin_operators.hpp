#pragma once
// The builtin operators, one function per family; the registry calls them all once.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "siskin/operators.hpp"

namespace siskin::algebra {

/// add sub mul div floordiv mod neg abs
void add_arithmetic_operators(std::vector<Operator>& out);
/// eq ne lt le gt ge min max fmin fmax
void add_comparison_operators(std::vector<Operator>& out);
/// and or xor not ifelse
void add_logical_operators(std::vector<Operator>& out);
/// bitwise_and bitwise_or bitwise_xor bitwise_not shl shr
void add_bitwise_operators(std::vector<Operator>& out);
/// exp log sqrt pow ldexp isnan isinf isfinite
void add_math_operators(std::vector<Operator>& out);
/// bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64: conversions
void add_conversion_operators(std::vector<Operator>& out);

/// The builtin a NumPy ufunc name stands for ("subtract" -> "sub"), for names that are not
/// builtins themselves; nullopt for any other name.
std::optional<std::string_view> numpy_name_target(std::string_view name);
/// Every (NumPy name, builtin) pair numpy_name_target knows, in a fixed order.
std::vector<std::pair<std::string, std::string>> numpy_names();

} // namespace siskin::algebra
