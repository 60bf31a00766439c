// bool int8 ... uint64 float32 float64: conversion to the named type, NumPy's astype with
// Scalar::cast's semantics (integers wrap; a float becomes an integer through 64 bits, NaN
// giving 0 and values beyond the range saturating first). Program text spells one `int8(x)`;
// lazy arrays call them for astype and reductions with a dtype.
#include "algebra/builtin_operators.hpp"
#include "algebra/operator_builder.hpp"

namespace siskin::algebra {

namespace {

Operator conversion(ValueType target) {
    std::string name(type_name(target));
    return make_operator(
        name, 1,
        // The argument is used as it is: the C helper picks its float or integer path by the
        // argument's C type.
        [target](std::span<const ValueType> types) {
            return Signature{target, {types[0], types[0], types[0]}};
        },
        [target](const Signature&, std::span<const Scalar> a) { return a[0].cast(target); },
        "siskin_cast_$t($0)");
}

} // namespace

void add_conversion_operators(std::vector<Operator>& out) {
    for (int k = 0; k <= static_cast<int>(ValueType::Float64); ++k)
        out.push_back(conversion(static_cast<ValueType>(k)));
}

} // namespace siskin::algebra
