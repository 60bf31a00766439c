// add sub mul div floordiv mod neg abs: NumPy add, subtract, multiply, true_divide,
// floor_divide, remainder, negative, absolute.
#include "algebra/builtin_operators.hpp"
#include "algebra/operator_builder.hpp"
#include "algebra/scalar_kernels.hpp"

namespace siskin::algebra {

namespace {

using Identity = std::optional<Scalar>;
using Annihilator = std::optional<std::pair<Scalar, Scalar>>;

// Integer-only floordiv/mod/pow compute bool in int8, as NumPy does.
ValueType bool_as_int8(ValueType t) { return t == ValueType::Bool ? ValueType::Int8 : t; }

Operator add_op() {
    Operator op = make_operator(
        "add", 2, [](auto types) { return uniform(promote_all(types)); },
        binary_body<kAll>([](auto a, auto b) { return kernels::add(a, b); }),
        "siskin_add_$t($0, $1)");
    op.commutative = op.associative = true;
    op.identity = [](ValueType t, int) -> Identity { return Scalar::zero(t); };
    return op;
}

Operator sub_op() {
    Operator op = make_operator(
        "sub", 2,
        [](auto types) {
            ValueType p = promote_all(types);
            if (p == ValueType::Bool) refuse("sub", types, "numbers (for bool, use xor)");
            return uniform(p);
        },
        binary_body<kInts | kFloat>([](auto a, auto b) { return kernels::sub(a, b); }),
        "siskin_sub_$t($0, $1)");
    op.identity = [](ValueType t, int arg) -> Identity {
        if (arg != 1 || t == ValueType::Bool) return std::nullopt;
        return Scalar::zero(t);
    };
    return op;
}

Operator mul_op() {
    Operator op = make_operator(
        "mul", 2, [](auto types) { return uniform(promote_all(types)); },
        binary_body<kAll>([](auto a, auto b) { return kernels::mul(a, b); }),
        "siskin_mul_$t($0, $1)");
    op.commutative = op.associative = true;
    op.identity = [](ValueType t, int) -> Identity { return small(1, t); };
    op.annihilator = [](ValueType t, int) -> Annihilator {
        return std::pair{Scalar::zero(t), Scalar::zero(t)};
    };
    op.annihilator_finite_only = true; // 0 * inf and 0 * NaN are NaN
    return op;
}

Operator div_op() {
    Operator op = make_operator(
        "div", 2,
        [](auto types) {
            ValueType p = promote_all(types);
            return uniform(is_float(p) ? p : ValueType::Float64);
        },
        binary_body<kFloat>([](auto a, auto b) { return a / b; }), "($0 / $1)");
    op.identity = [](ValueType t, int arg) -> Identity {
        return arg == 1 ? Identity(small(1, t)) : std::nullopt;
    };
    return op;
}

Operator floordiv_op() {
    Operator op = make_operator(
        "floordiv", 2,
        [](auto types) { return uniform(bool_as_int8(promote_all(types))); },
        binary_body<kInts | kFloat>([](auto a, auto b) { return kernels::floordiv(a, b); }),
        "siskin_floordiv_$t($0, $1)");
    // Integers only: for floats 2.5 // 1 is 2 and 0.0 // 0.0 is NaN.
    op.identity = [](ValueType t, int arg) -> Identity {
        if (arg != 1 || is_float(t)) return std::nullopt;
        return small(1, t);
    };
    op.annihilator = [](ValueType t, int arg) -> Annihilator {
        if (arg != 0 || is_float(t)) return std::nullopt;
        return std::pair{Scalar::zero(t), Scalar::zero(bool_as_int8(t))}; // 0 // y == 0
    };
    return op;
}

Operator mod_op() {
    Operator op = make_operator(
        "mod", 2, [](auto types) { return uniform(bool_as_int8(promote_all(types))); },
        binary_body<kInts | kFloat>([](auto a, auto b) { return kernels::mod(a, b); }),
        "siskin_mod_$t($0, $1)");
    // Integers only: 0 % y == 0 and x % 1 == 0 (for floats 0.0 % 0.0 and 2.5 % 1 are not 0).
    op.annihilator = [](ValueType t, int arg) -> Annihilator {
        if (is_float(t)) return std::nullopt;
        return std::pair{arg == 0 ? Scalar::zero(t) : small(1, t),
                         Scalar::zero(bool_as_int8(t))};
    };
    return op;
}

// A unary operator of numbers in the argument's type; bool is refused with `bool_hint`.
template <class K> Operator number_unary(std::string name, const char* bool_hint, K k) {
    std::string c_template = "siskin_" + name + "_$t($0)";
    return make_operator(
        name, 1,
        [name, bool_hint](auto types) {
            if (types[0] == ValueType::Bool) refuse(name, types, bool_hint);
            return uniform(types[0]);
        },
        unary_body<kInts | kFloat>(k), std::move(c_template));
}

Operator neg_op() {
    return number_unary("neg", "numbers (for bool, use not)", [](auto a) { return kernels::neg(a); });
}

Operator sign_op() {
    return number_unary("sign", "numbers (NumPy has no sign of bool)", [](auto a) { return kernels::sign(a); });
}

Operator abs_op() {
    return make_operator(
        "abs", 1, [](auto types) { return uniform(types[0]); },
        unary_body<kAll>([](auto a) { return kernels::abs(a); }), "siskin_abs_$t($0)");
}

} // namespace

void add_arithmetic_operators(std::vector<Operator>& out) {
    out.push_back(add_op());
    out.push_back(sub_op());
    out.push_back(mul_op());
    out.push_back(div_op());
    out.push_back(floordiv_op());
    out.push_back(mod_op());
    out.push_back(neg_op());
    out.push_back(abs_op());
    out.push_back(sign_op());
}

} // namespace siskin::algebra
