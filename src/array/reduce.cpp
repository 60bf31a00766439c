// Reductions with NumPy's axis, keepdims and result types.
#include <fmt/format.h>

#include "array/node.hpp"
#include "io/checked.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

using namespace array_detail;
using Kind = Array::Node::Kind;

namespace {

/// Which dimensions `axis` reduces (all when none are given), each once.
std::vector<bool> reduced_dims(const Array& a, const Axes& axis, const std::string& what) {
    std::vector<bool> reduced(a.ndim(), !axis.axes.has_value());
    if (axis.axes) {
        for (int ax : *axis.axes) {
            int k = normalize_axis(ax, a.ndim(), what);
            if (reduced[k]) throw Error(fmt::format("{}: axis {} is given twice", what, ax));
            reduced[k] = true;
        }
    }
    return reduced;
}

/// The number of elements each result element reduces (checked).
int64_t reduced_count(const Array& a, const std::vector<bool>& reduced, const std::string& what) {
    int64_t count = 1;
    for (int k = 0; k < a.ndim(); ++k) {
        if (!reduced[k]) continue;
        auto p = io::checked_mul(count, a.shape()[k]);
        if (!p) throw Error(fmt::format("{}: {} reduces more elements than 64 bits count", what,
                                        describe(a)));
        count = *p;
    }
    return count;
}

/// The shape left when the reduced dimensions are dropped.
std::vector<int64_t> kept_shape(const Array& a, const std::vector<bool>& reduced) {
    std::vector<int64_t> shape;
    for (int k = 0; k < a.ndim(); ++k)
        if (!reduced[k]) shape.push_back(a.shape()[k]);
    return shape;
}

/// Inserts the reduced dimensions back as size 1 when keepdims is set.
Array keep_dims(const Array& r, const std::vector<bool>& reduced, bool keepdims) {
    if (!keepdims) return r;
    Array out = r;
    for (size_t k = 0; k < reduced.size(); ++k)
        if (reduced[k]) out = expand_dims(out, static_cast<int>(k));
    return out;
}

/// NumPy's accumulator type for sum and prod: integers and bool widen to 64 bits.
ValueType sum_type(ValueType t) {
    if (t == ValueType::Bool || is_signed_integer(t)) return ValueType::Int64;
    if (is_unsigned_integer(t)) return ValueType::UInt64;
    return t;
}

/// The reduction of `n` copies of `v` (of type `t`) by `op`: what the result holds where its
/// input is all fill.
Scalar repeated(const std::string& op, const Scalar& v, int64_t n, ValueType t) {
    const Operator& o = find_operator(op);
    if (n == 0) return o.reduction_identity(t).value_or(Scalar::zero(t)).cast(t);
    Scalar x = v.cast(t);
    if (op == "add") return find_operator("mul").apply(std::vector<Scalar>{x, Scalar::of(n).cast(t)}).cast(t);
    if (op == "mul") return find_operator("pow").apply(std::vector<Scalar>{x, Scalar::of(n).cast(t)}).cast(t);
    return o.apply(std::vector<Scalar>{x, x}).cast(t); // idempotent: min, max, or, and
}

Array reduction(const std::string& what, const std::string& op, const Array& a,
                const Axes& axis, bool keepdims, ValueType type) {
    std::vector<bool> reduced = reduced_dims(a, axis, what);
    std::vector<int64_t> shape = kept_shape(a, reduced);
    const int64_t count = reduced_count(a, reduced, what);
    if (count == 0 && (op == "min" || op == "max"))
        throw Error(fmt::format("{}: zero-size reduction of {} has no identity", what,
                                describe(a)));
    bool any_reduced = false;
    for (bool r : reduced) any_reduced = any_reduced || r;
    if (!any_reduced && a.dtype() == type) return keep_dims(a, reduced, keepdims);
    auto n = make_node(Kind::Reduce, std::move(shape), type, repeated(op, a.fill(), count, type),
                       {a});
    n->op = op;
    n->reduced = reduced;
    return keep_dims(Array(std::shared_ptr<const Array::Node>(std::move(n))), reduced, keepdims);
}

Array arg_reduction(const std::string& what, bool max, const Array& a, std::optional<int> axis,
                    bool keepdims) {
    std::vector<bool> reduced(a.ndim(), !axis.has_value());
    if (axis) reduced[normalize_axis(*axis, a.ndim(), what)] = true;
    std::vector<int64_t> shape = kept_shape(a, reduced);
    const int64_t count = reduced_count(a, reduced, what);
    if (count == 0)
        throw Error(fmt::format("{}: attempt to get {} of an empty sequence ({})", what, what,
                                describe(a)));
    auto n = make_node(Kind::ArgReduce, std::move(shape), ValueType::Int64, Scalar::of(int64_t{0}),
                       {a});
    n->op = max ? "max" : "min";
    n->reduced = reduced;
    Array r(std::shared_ptr<const Array::Node>(std::move(n)));
    return axis && keepdims ? expand_dims(r, normalize_axis(*axis, a.ndim(), what)) : r;
}

} // namespace

Array sum(const Array& a, Axes axis, bool keepdims) {
    return reduction("sum", "add", a, axis, keepdims, sum_type(a.dtype()));
}
Array sum(const Array& a, Axes axis, bool keepdims, ValueType dtype) {
    return reduction("sum", "add", astype(a, dtype), axis, keepdims, dtype);
}
Array prod(const Array& a, Axes axis, bool keepdims) {
    return reduction("prod", "mul", a, axis, keepdims, sum_type(a.dtype()));
}
Array prod(const Array& a, Axes axis, bool keepdims, ValueType dtype) {
    return reduction("prod", "mul", astype(a, dtype), axis, keepdims, dtype);
}
Array min(const Array& a, Axes axis, bool keepdims) {
    return reduction("min", "min", a, axis, keepdims, a.dtype());
}
Array max(const Array& a, Axes axis, bool keepdims) {
    return reduction("max", "max", a, axis, keepdims, a.dtype());
}
Array any(const Array& a, Axes axis, bool keepdims) {
    return reduction("any", "or", a, axis, keepdims, ValueType::Bool);
}
Array all(const Array& a, Axes axis, bool keepdims) {
    return reduction("all", "and", a, axis, keepdims, ValueType::Bool);
}

namespace {

Array mean_in(const Array& a, const Axes& axis, bool keepdims, std::optional<ValueType> dtype) {
    ValueType t = dtype ? *dtype : is_float(a.dtype()) ? a.dtype() : ValueType::Float64;
    Array total = reduction("mean", "add", dtype ? astype(a, t) : a, axis, keepdims, t);
    const double count = static_cast<double>(reduced_count(a, reduced_dims(a, axis, "mean"), "mean"));
    // A strong count of the result's own float type keeps float32 float32; an integer dtype
    // divides in float64 and truncates back, as NumPy's unsafe cast of the quotient does.
    if (is_float(t)) return ufunc("div", {total, Array(Scalar::of(count).cast(t))});
    return astype(ufunc("div", {total, Array(Scalar::of(count))}), t);
}

} // namespace

Array mean(const Array& a, Axes axis, bool keepdims) { return mean_in(a, axis, keepdims, {}); }
Array mean(const Array& a, Axes axis, bool keepdims, ValueType dtype) {
    return mean_in(a, axis, keepdims, dtype);
}
Array argmin(const Array& a, std::optional<int> axis, bool keepdims) {
    return arg_reduction("argmin", false, a, axis, keepdims);
}
Array argmax(const Array& a, std::optional<int> axis, bool keepdims) {
    return arg_reduction("argmax", true, a, axis, keepdims);
}

} // namespace siskin
