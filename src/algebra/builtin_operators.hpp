#pragma once
// The builtin operators, one function per family; the registry calls them all once.
#include <vector>

#include "siskin/operators.hpp"

namespace siskin::algebra {

/// add sub mul div floordiv mod neg abs
void add_arithmetic_operators(std::vector<Operator>& out);
/// eq ne lt le gt ge min max
void add_comparison_operators(std::vector<Operator>& out);
/// and or xor not ifelse
void add_logical_operators(std::vector<Operator>& out);
/// bitwise_and bitwise_or bitwise_xor bitwise_not shl shr
void add_bitwise_operators(std::vector<Operator>& out);
/// exp log sqrt pow ldexp
void add_math_operators(std::vector<Operator>& out);

} // namespace siskin::algebra
