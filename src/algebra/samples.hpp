#pragma once
// Sample values of each type for checking operator properties: zeros, small numbers, the
// type's extremes, and for floats -0.0, ±inf, NaN and a subnormal.
#include <vector>

#include "siskin/value.hpp"

namespace siskin::algebra {

enum class Samples {
    All,
    /// Floats: only values whose sums and products of three stay exact (|v| <= 100, ±0, ±inf,
    /// NaN), to check associativity, which rounding breaks.
    Exact,
    /// Floats: no inf or NaN, for annihilators that hold only for finite arguments.
    Finite,
};

std::vector<Scalar> sample_values(ValueType t, Samples which = Samples::All);

/// Every value type, in declaration order.
std::vector<ValueType> all_value_types();

} // namespace siskin::algebra
