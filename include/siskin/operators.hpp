#pragma once
// The registry of named scalar operators and their algebraic properties. The properties are data
// the compiler uses to skip work (an annihilator makes a product sparse, an identity makes a
// reduction skip fill regions); tests check that each declared property holds on sample values.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "siskin/value.hpp"

namespace siskin {

class Operator {
public:
    std::string name;       // "add", "mul", "max", "lt", "ifelse", ...
    int arity = 2;          // number of arguments

    bool commutative = false;
    bool associative = false;
    bool idempotent = false; // op(x, x) == x

    /// Result type for the given argument types; throws Error for types the operator refuses.
    std::function<ValueType(std::span<const ValueType>)> result_type;
    /// Evaluates on argument values of any types (promotes them as result_type says).
    std::function<Scalar(std::span<const Scalar>)> evaluate;

    /// Value e of type t with op(..., e at position `arg`, ...) == the other argument, for every
    /// other argument value; nullopt when there is none. For binary operators only.
    std::function<std::optional<Scalar>(ValueType t, int arg)> identity;
    /// Value z of type t with op(..., z at position `arg`, ...) == z' for a fixed result z'
    /// (the result, returned as second) whatever the other argument is.
    std::function<std::optional<std::pair<Scalar, Scalar>>(ValueType t, int arg)> annihilator;
    /// True when the annihilator holds only for finite other arguments (0 * inf is NaN).
    bool annihilator_finite_only = false;

    /// C expression template for code generation: "$0 + $1", "fmax($0, $1)", ...; may use
    /// helpers from the kernel prelude.
    std::string c_template;

    ValueType result_type_of(std::span<const ValueType> args) const { return result_type(args); }
    Scalar apply(std::span<const Scalar> args) const { return evaluate(args); }
    /// The identity for both positions (what a reduction starts from), if any.
    std::optional<Scalar> reduction_identity(ValueType t) const;
};

/// The operator of that name; throws Error("unknown operator 'x'") listing near names.
const Operator& find_operator(std::string_view name);
/// nullptr when unknown.
const Operator* lookup_operator(std::string_view name);
/// Adds or replaces an operator; throws Error when it is malformed (no evaluate, bad arity).
void register_operator(Operator op);
std::vector<std::string> operator_names();

} // namespace siskin
