// and or xor not ifelse coalesce choose: NumPy logical_and, logical_or, logical_xor,
// logical_not, where, and Finch's coalesce and choose. Logical operators take any types, convert
// them to bool (nonzero and NaN are true) and give bool; ifelse, coalesce and choose give the
// promotion of their value arguments.
#include "algebra/builtin_operators.hpp"
#include "algebra/operator_builder.hpp"

namespace siskin::algebra {

namespace {

using Identity = std::optional<Scalar>;
using Annihilator = std::optional<std::pair<Scalar, Scalar>>;

Signature all_bool(std::span<const ValueType>) { return uniform(ValueType::Bool); }

template <class K> Operator logical(std::string name, std::string c_template, K k) {
    Operator op = make_operator(std::move(name), 2, all_bool, binary_body<kBool>(k),
                                std::move(c_template));
    op.commutative = op.associative = true;
    return op;
}

} // namespace

void add_logical_operators(std::vector<Operator>& out) {
    Operator land = logical("and", "($0 && $1)", [](bool a, bool b) { return a && b; });
    land.idempotent = true;
    land.identity = [](ValueType, int) -> Identity { return Scalar::of(true); };
    land.annihilator = [](ValueType, int) -> Annihilator {
        return std::pair{Scalar::of(false), Scalar::of(false)};
    };
    out.push_back(std::move(land));

    Operator lor = logical("or", "($0 || $1)", [](bool a, bool b) { return a || b; });
    lor.idempotent = true;
    lor.identity = [](ValueType, int) -> Identity { return Scalar::of(false); };
    lor.annihilator = [](ValueType, int) -> Annihilator {
        return std::pair{Scalar::of(true), Scalar::of(true)};
    };
    out.push_back(std::move(lor));

    Operator lxor = logical("xor", "($0 != $1)", [](bool a, bool b) { return a != b; });
    lxor.identity = [](ValueType, int) -> Identity { return Scalar::of(false); };
    out.push_back(std::move(lxor));

    // choose(x, y): x unless x is 0, else y. GraphBLAS's "any" monoid as Finch's choose(0):
    // `p[i] <<choose>>= e` keeps the first nonzero e the loops meet, one valid answer of many.
    Operator choose = make_operator(
        "choose", 2, [](std::span<const ValueType> types) { return uniform(promote_all(types)); },
        [](const Signature& s, std::span<const Scalar> a) {
            Scalar x = a[0].cast(s.result);
            return x.same_value(Scalar::zero(s.result)) ? a[1].cast(s.result) : x;
        },
        "(($0) != 0 ? ($0) : ($1))");
    choose.associative = choose.idempotent = true;
    choose.identity = [](ValueType t, int) -> Identity { return Scalar::zero(t); };
    out.push_back(std::move(choose));

    out.push_back(make_operator("not", 1, all_bool,
                                unary_body<kBool>([](bool a) { return !a; }), "(!$0)"));

    out.push_back(make_operator(
        "ifelse", 3,
        [](std::span<const ValueType> types) {
            ValueType r = promote(types[1], types[2]);
            return Signature{r, {ValueType::Bool, r, r}};
        },
        [](const Signature&, std::span<const Scalar> a) { return a[0].as_bool() ? a[1] : a[2]; },
        "($0 ? $1 : $2)"));

    // coalesce(e, v): e, or v where e is `missing` (Finch §1.5). Only a permissive read
    // (A[~(i+1)]) is ever missing, and the evaluator and the compiler read it padded with v, so
    // as a function of two values it is its first argument.
    out.push_back(make_operator(
        "coalesce", 2, [](std::span<const ValueType> types) { return uniform(promote_all(types)); },
        [](const Signature&, std::span<const Scalar> a) { return a[0]; }, "((void)($1), $0)"));
}

} // namespace siskin::algebra
