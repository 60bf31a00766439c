// eq ne lt le gt ge min max fmin fmax: NumPy equal, not_equal, less, less_equal, greater,
// greater_equal, minimum, maximum, fmin, fmax. All compare in the promoted type; comparisons
// involving NaN are false (ne: true), min/max return the NaN and fmin/fmax the other argument.
#include <limits>

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

// fmin (Least = true) or fmax: NaN is ignored, so for floats NaN is the identity and the end
// of the range an annihilator that even NaN cannot defeat (fmin(-inf, NaN) is -inf).
template <bool Least> Operator nan_ignoring_extremum() {
    Operator op = make_operator(
        Least ? "fmin" : "fmax", 2, [](auto types) { return uniform(promote_all(types)); },
        binary_body<kAll>([](auto a, auto b) {
            if constexpr (Least) return kernels::fmin(a, b);
            else return kernels::fmax(a, b);
        }),
        Least ? "siskin_fmin_$t($0, $1)" : "siskin_fmax_$t($0, $1)");
    op.commutative = op.associative = op.idempotent = true;
    op.identity = [](ValueType t, int) -> std::optional<Scalar> {
        if (is_float(t)) return Scalar::of(std::numeric_limits<double>::quiet_NaN()).cast(t);
        return Least ? greatest(t) : least(t);
    };
    op.annihilator = [](ValueType t, int) -> std::optional<std::pair<Scalar, Scalar>> {
        Scalar end = Least ? least(t) : greatest(t);
        return std::pair{end, end};
    };
    return op;
}

// lt (Less = true) or gt: nothing is less than the greatest value of its type (+inf, an
// integer's maximum) nor greater than the least, and comparisons with NaN are false, so
// lt(greatest, x), lt(x, least), gt(least, x) and gt(x, greatest) are false for every x (a
// relaxation's test d[i] + W[i,j] < d[j] over the inf fill of a (min, +) matrix).
template <bool Less, class K> Operator strict_comparison(std::string name, std::string c_op, K k) {
    Operator op = comparison(std::move(name), std::move(c_op), k);
    op.annihilator = [](ValueType t, int arg) -> std::optional<std::pair<Scalar, Scalar>> {
        bool first = arg == 0;
        return std::pair{first == Less ? greatest(t) : least(t), Scalar::of(false)};
    };
    return op;
}

// eq and ne on bool are xnor and xor: true (eq) and false (ne) are identities there. Other
// types have none (the result is bool, not the other argument).
std::optional<Scalar> bool_identity(ValueType t, bool value) {
    if (t != ValueType::Bool) return std::nullopt;
    return Scalar::of(value);
}

} // namespace

void add_comparison_operators(std::vector<Operator>& out) {
    Operator eq = comparison("eq", "==", [](auto a, auto b) { return a == b; });
    Operator ne = comparison("ne", "!=", [](auto a, auto b) { return a != b; });
    eq.commutative = ne.commutative = true;
    eq.identity = [](ValueType t, int) { return bool_identity(t, true); };
    ne.identity = [](ValueType t, int) { return bool_identity(t, false); };
    out.push_back(std::move(eq));
    out.push_back(std::move(ne));
    out.push_back(strict_comparison<true>("lt", "<", [](auto a, auto b) { return a < b; }));
    out.push_back(comparison("le", "<=", [](auto a, auto b) { return a <= b; }));
    out.push_back(strict_comparison<false>("gt", ">", [](auto a, auto b) { return a > b; }));
    out.push_back(comparison("ge", ">=", [](auto a, auto b) { return a >= b; }));
    out.push_back(extremum<true>());
    out.push_back(extremum<false>());
    out.push_back(nan_ignoring_extremum<true>());
    out.push_back(nan_ignoring_extremum<false>());
}

} // namespace siskin::algebra
