// eq ne lt le gt ge min max: NumPy equal, not_equal, less, less_equal, greater, greater_equal,
// minimum, maximum. Both compare in the promoted type; comparisons involving NaN are false
// (ne: true), and min/max return the NaN.
#include "algebra/builtin_operators.hpp"
#include "algebra/operator_builder.hpp"
#include "algebra/scalar_kernels.hpp"

namespace siskin::algebra {

namespace {

Signature compare_typing(std::span<const ValueType> types) {
    ValueType p = promote_all(types);
    return {ValueType::Bool, {p, p, p}};
}

template <class K> Operator comparison(std::string name, std::string c_op, K k) {
    return make_operator(std::move(name), 2, compare_typing, binary_body<kAll>(k),
                         "($0 " + c_op + " $1)");
}

// minimum (Least = true) or maximum: the identity is the other end of the type's range and the
// annihilator its own end; NaN defeats the annihilator, hence finite-only.
template <bool Least> Operator extremum() {
    Operator op = make_operator(
        Least ? "min" : "max", 2, [](auto types) { return uniform(promote_all(types)); },
        binary_body<kAll>([](auto a, auto b) {
            if constexpr (Least) return kernels::min(a, b);
            else return kernels::max(a, b);
        }),
        Least ? "siskin_min_$t($0, $1)" : "siskin_max_$t($0, $1)");
    op.commutative = op.associative = op.idempotent = true;
    op.identity = [](ValueType t, int) -> std::optional<Scalar> {
        return Least ? greatest(t) : least(t);
    };
    op.annihilator = [](ValueType t, int) -> std::optional<std::pair<Scalar, Scalar>> {
        Scalar end = Least ? least(t) : greatest(t);
        return std::pair{end, end};
    };
    op.annihilator_finite_only = true;
    return op;
}

} // namespace

void add_comparison_operators(std::vector<Operator>& out) {
    Operator eq = comparison("eq", "==", [](auto a, auto b) { return a == b; });
    Operator ne = comparison("ne", "!=", [](auto a, auto b) { return a != b; });
    eq.commutative = ne.commutative = true;
    out.push_back(std::move(eq));
    out.push_back(std::move(ne));
    out.push_back(comparison("lt", "<", [](auto a, auto b) { return a < b; }));
    out.push_back(comparison("le", "<=", [](auto a, auto b) { return a <= b; }));
    out.push_back(comparison("gt", ">", [](auto a, auto b) { return a > b; }));
    out.push_back(comparison("ge", ">=", [](auto a, auto b) { return a >= b; }));
    out.push_back(extremum<true>());
    out.push_back(extremum<false>());
}

} // namespace siskin::algebra
