// bitwise_and bitwise_or bitwise_xor bitwise_not shl shr: NumPy bitwise_and, bitwise_or,
// bitwise_xor, invert, left_shift, right_shift. Integers and bool only; floats (including the
// float64 that int64 and uint64 promote to) are refused. Shifts compute bool in int8.
#include "algebra/builtin_operators.hpp"
#include "algebra/operator_builder.hpp"
#include "algebra/scalar_kernels.hpp"

namespace siskin::algebra {

namespace {

using Identity = std::optional<Scalar>;
using Annihilator = std::optional<std::pair<Scalar, Scalar>>;

constexpr std::string_view kTakes = "integers and bool";

Typing integer_typing(std::string name, bool bool_as_int8) {
    return [name, bool_as_int8](std::span<const ValueType> types) {
        ValueType p = promote_all(types);
        if (is_float(p)) refuse(name, types, kTakes);
        if (bool_as_int8 && p == ValueType::Bool) p = ValueType::Int8;
        return uniform(p);
    };
}

template <class K> Operator bitwise(std::string name, std::string c_op, K k) {
    Operator op = make_operator(name, 2, integer_typing(name, false),
                                binary_body<kBool | kInts>(k), "(($T)($0 " + c_op + " $1))");
    op.commutative = op.associative = true;
    return op;
}

template <class K> Operator shift(std::string name, K k) {
    Operator op = make_operator(name, 2, integer_typing(name, true), binary_body<kInts>(k),
                                "siskin_" + name + "_$t($0, $1)");
    // x shifted by 0 is x; 0 shifted by anything (any count, even a huge one) is 0.
    op.identity = [](ValueType t, int arg) -> Identity {
        if (arg != 1 || is_float(t)) return std::nullopt;
        return Scalar::zero(t);
    };
    op.annihilator = [](ValueType t, int arg) -> Annihilator {
        if (arg != 0 || is_float(t)) return std::nullopt;
        ValueType r = t == ValueType::Bool ? ValueType::Int8 : t;
        return std::pair{Scalar::zero(t), Scalar::zero(r)};
    };
    return op;
}

} // namespace

void add_bitwise_operators(std::vector<Operator>& out) {
    Operator band = bitwise("bitwise_and", "&",
                            [](auto a, auto b) { return static_cast<decltype(a)>(a & b); });
    band.idempotent = true;
    band.identity = [](ValueType t, int) -> Identity {
        return is_float(t) ? std::nullopt : Identity(all_ones(t));
    };
    band.annihilator = [](ValueType t, int) -> Annihilator {
        if (is_float(t)) return std::nullopt;
        return std::pair{Scalar::zero(t), Scalar::zero(t)};
    };
    out.push_back(std::move(band));

    Operator bor = bitwise("bitwise_or", "|",
                           [](auto a, auto b) { return static_cast<decltype(a)>(a | b); });
    bor.idempotent = true;
    bor.identity = [](ValueType t, int) -> Identity {
        return is_float(t) ? std::nullopt : Identity(Scalar::zero(t));
    };
    bor.annihilator = [](ValueType t, int) -> Annihilator {
        if (is_float(t)) return std::nullopt;
        return std::pair{all_ones(t), all_ones(t)};
    };
    out.push_back(std::move(bor));

    Operator bxor = bitwise("bitwise_xor", "^",
                            [](auto a, auto b) { return static_cast<decltype(a)>(a ^ b); });
    bxor.identity = [](ValueType t, int) -> Identity {
        return is_float(t) ? std::nullopt : Identity(Scalar::zero(t));
    };
    out.push_back(std::move(bxor));

    out.push_back(make_operator(
        "bitwise_not", 1,
        [](std::span<const ValueType> types) {
            if (is_float(types[0])) refuse("bitwise_not", types, kTakes);
            return uniform(types[0]);
        },
        unary_body<kBool | kInts>([](auto a) { return kernels::bitwise_not(a); }),
        "siskin_bitwise_not_$t($0)"));

    out.push_back(shift("shl", [](auto a, auto b) { return kernels::shl(a, b); }));
    out.push_back(shift("shr", [](auto a, auto b) { return kernels::shr(a, b); }));
}

} // namespace siskin::algebra
