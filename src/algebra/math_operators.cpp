// exp log sqrt pow ldexp isnan isinf isfinite, the trigonometric and hyperbolic functions and
// their inverses, expm1 log1p log2 log10, floor ceil trunc round, atan2, copysign, hypot,
// nextafter, signbit: NumPy's ufuncs of those names (round is rint: halves to even). The transcendental and rounding ones compute in the
// float type (bool and integers give float64);
// pow keeps integers integers (bool in int8); the classifications take any type and give bool
// (an integer is never NaN or infinite).
#include <cmath>

#include "algebra/builtin_operators.hpp"
#include "algebra/operator_builder.hpp"
#include "algebra/scalar_kernels.hpp"

namespace siskin::algebra {

namespace {

using Identity = std::optional<Scalar>;
using Annihilator = std::optional<std::pair<Scalar, Scalar>>;

ValueType float_of(ValueType t) { return is_float(t) ? t : ValueType::Float64; }

template <class K> Operator transcendental(std::string name, K k) {
    std::string c_template = "siskin_" + name + "_$t($0)";
    return make_operator(
        std::move(name), 1, [](auto types) { return uniform(float_of(types[0])); },
        unary_body<kFloat>(k), std::move(c_template));
}

// isnan, isinf, isfinite: integers and bool are classified as the float64 they convert to.
template <class K> Operator classification(std::string name, K k) {
    std::string c_template = "(" + name + "($0) != 0)";
    return make_operator(
        std::move(name), 1,
        [](auto types) {
            ValueType f = float_of(types[0]);
            return Signature{ValueType::Bool, {f, f, f}};
        },
        unary_body<kFloat>(k), std::move(c_template));
}

// A binary function of the promoted float type (bool and integers give float64), the C
// helper siskin_<name>_$t.
template <class K> Operator binary_float(std::string name, K k) {
    std::string c_template = "siskin_" + name + "_$t($0, $1)";
    return make_operator(
        std::move(name), 2, [](std::span<const ValueType> types) { return uniform(float_of(promote_all(types))); },
        binary_body<kFloat>(k), std::move(c_template));
}

// sqrt(a^2 + b^2) without overflow: symmetric in its arguments (C99 hypot; an infinity wins
// over NaN, so no property needs finite operands).
Operator hypot_op() {
    Operator op = binary_float("hypot", [](auto a, auto b) { return std::hypot(a, b); });
    op.commutative = true;
    return op;
}

// log(exp(a) + exp(b)): commutative, and -inf is its identity (exp(-inf) adds nothing), so a
// -inf-filled operand drops out where it is at its fill.
Operator logaddexp_op() {
    Operator op = make_operator(
        "logaddexp", 2, [](std::span<const ValueType> types) { return uniform(float_of(promote_all(types))); },
        binary_body<kFloat>([](auto a, auto b) { return kernels::logaddexp(a, b); }),
        "siskin_logaddexp_$t($0, $1)");
    op.commutative = true;
    op.identity = [](ValueType t, int) -> Identity {
        return is_float(t) ? Identity(Scalar::of(-INFINITY).cast(t)) : std::nullopt;
    };
    return op;
}

Operator pow_op() {
    auto typing = [](std::span<const ValueType> types) {
        ValueType p = promote_all(types);
        return uniform(p == ValueType::Bool ? ValueType::Int8 : p);
    };
    Operator op = make_operator(
        "pow", 2, typing,
        binary_body<kInts | kFloat>([](auto a, auto b) { return kernels::pow(a, b); }),
        "siskin_pow_$t($0, $1)");
    op.identity = [](ValueType t, int arg) -> Identity {
        return arg == 1 ? Identity(small(1, t)) : std::nullopt; // x^1 == x
    };
    // 1^y == 1 and x^0 == 1 for every y and x, NaN and inf included (C99 pow).
    op.annihilator = [typing](ValueType t, int arg) -> Annihilator {
        ValueType both[2] = {t, t};
        Scalar one = small(1, typing(both).result);
        return std::pair{arg == 0 ? small(1, t) : Scalar::zero(t), one};
    };
    return op;
}

Operator ldexp_op() {
    Operator op = make_operator(
        "ldexp", 2,
        [](std::span<const ValueType> types) {
            if (is_float(types[1]) || types[1] == ValueType::UInt64)
                refuse("ldexp", types,
                       "a number and an exponent of type bool, int8..int64 or uint8..uint32");
            ValueType f = float_of(types[0]);
            return Signature{f, {f, ValueType::Int64, ValueType::Int64}};
        },
        [](const Signature& sig, std::span<const Scalar> a) {
            return dispatch<kFloat>(sig.operands[0], [&](auto tag) {
                using T = decltype(tag);
                return Scalar::of(kernels::ldexp(native<T>(a[0]), a[1].as_int()));
            });
        },
        "siskin_ldexp_$t($0, $1)");
    // x * 2^0 == x; the identity is an int64 exponent whatever the mantissa's type.
    op.identity = [](ValueType, int arg) -> Identity {
        return arg == 1 ? Identity(Scalar::of(int64_t{0})) : std::nullopt;
    };
    // 0 * 2^n == 0 for every exponent, so a zero-filled mantissa makes ldexp sparse in it
    // (the paper's ufunc space for ldexp). `t` is the exponent's type; the zero is float64
    // and matches a zero of any mantissa type.
    op.annihilator = [](ValueType t, int arg) -> Annihilator {
        if (arg != 0 || is_float(t) || t == ValueType::UInt64) return std::nullopt;
        return std::pair{Scalar::of(0.0), Scalar::of(0.0)};
    };
    return op;
}

} // namespace

void add_math_operators(std::vector<Operator>& out) {
    out.push_back(transcendental("exp", [](auto a) { return std::exp(a); }));
    out.push_back(transcendental("log", [](auto a) { return std::log(a); }));
    out.push_back(transcendental("sqrt", [](auto a) { return std::sqrt(a); }));
    out.push_back(transcendental("sin", [](auto a) { return std::sin(a); }));
    out.push_back(transcendental("cos", [](auto a) { return std::cos(a); }));
    out.push_back(transcendental("tan", [](auto a) { return std::tan(a); }));
    out.push_back(transcendental("asin", [](auto a) { return std::asin(a); }));
    out.push_back(transcendental("acos", [](auto a) { return std::acos(a); }));
    out.push_back(transcendental("atan", [](auto a) { return std::atan(a); }));
    out.push_back(transcendental("sinh", [](auto a) { return std::sinh(a); }));
    out.push_back(transcendental("cosh", [](auto a) { return std::cosh(a); }));
    out.push_back(transcendental("tanh", [](auto a) { return std::tanh(a); }));
    out.push_back(transcendental("asinh", [](auto a) { return std::asinh(a); }));
    out.push_back(transcendental("acosh", [](auto a) { return std::acosh(a); }));
    out.push_back(transcendental("atanh", [](auto a) { return std::atanh(a); }));
    out.push_back(transcendental("expm1", [](auto a) { return std::expm1(a); }));
    out.push_back(transcendental("log1p", [](auto a) { return std::log1p(a); }));
    out.push_back(transcendental("log2", [](auto a) { return std::log2(a); }));
    out.push_back(transcendental("log10", [](auto a) { return std::log10(a); }));
    out.push_back(transcendental("floor", [](auto a) { return std::floor(a); }));
    out.push_back(transcendental("ceil", [](auto a) { return std::ceil(a); }));
    out.push_back(transcendental("trunc", [](auto a) { return std::trunc(a); }));
    out.push_back(transcendental("round", [](auto a) { return std::rint(a); }));
    out.push_back(binary_float("atan2", [](auto y, auto x) { return std::atan2(y, x); }));
    // copysign(x, y): |x| with y's sign bit (-0.0 and a NaN's sign count); nextafter(x, y):
    // the float next to x towards y. Neither has an identity: copysign(-1, +0.0) is 1.
    out.push_back(binary_float("copysign", [](auto x, auto y) { return std::copysign(x, y); }));
    out.push_back(hypot_op());
    out.push_back(binary_float("nextafter", [](auto x, auto y) { return std::nextafter(x, y); }));
    out.push_back(logaddexp_op());
    out.push_back(pow_op());
    out.push_back(ldexp_op());
    out.push_back(classification("isnan", [](auto a) { return std::isnan(a); }));
    out.push_back(classification("isinf", [](auto a) { return std::isinf(a); }));
    out.push_back(classification("isfinite", [](auto a) { return std::isfinite(a); }));
    // The sign bit: true for -0.0 and a negative NaN, for an integer whether it is below 0.
    out.push_back(classification("signbit", [](auto a) { return std::signbit(a); }));
}

} // namespace siskin::algebra
