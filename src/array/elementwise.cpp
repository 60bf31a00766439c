// Element-wise operators on arrays: broadcasting, NumPy 2's weak scalars, fills.
#include <fmt/format.h>

#include "array/node.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

using namespace array_detail;
using Kind = Array::Node::Kind;

namespace {

bool is_weak(const Array& a) { return a.node().kind == Kind::Scalar && a.node().weak; }

/// The type a weak scalar of type `weak` takes next to arrays of promoted type `strong`
/// (NEP 50): it adopts the array's type unless its kind is higher (a float meeting integers).
ValueType weak_type(ValueType weak, ValueType strong) {
    if (weak == ValueType::Bool) return strong;
    if (is_float(weak)) return is_float(strong) ? strong : ValueType::Float64;
    // an integer
    return strong == ValueType::Bool ? ValueType::Int64 : strong;
}

/// The arguments with weak scalars given the type of the arrays they meet.
std::vector<Array> resolve_weak(const std::vector<Array>& args) {
    std::optional<ValueType> strong;
    for (const Array& a : args)
        if (!is_weak(a)) strong = strong ? promote(*strong, a.dtype()) : a.dtype();
    std::vector<Array> out;
    for (const Array& a : args) {
        if (is_weak(a) && strong) out.emplace_back(a.fill().cast(weak_type(a.dtype(), *strong)));
        else out.push_back(a);
    }
    return out;
}

} // namespace

Array ufunc(const std::string& name, const std::vector<Array>& given) {
    const Operator& op = find_operator(name);
    if (static_cast<int>(given.size()) != op.arity)
        throw Error(fmt::format("{} takes {} arguments, not {}", name, op.arity, given.size()));
    std::vector<Array> args = resolve_weak(given);
    std::vector<int64_t> shape = broadcast_shapes(args, name);
    std::vector<ValueType> types;
    std::vector<Scalar> fills;
    std::vector<Array> children;
    for (const Array& a : args) {
        types.push_back(a.dtype());
        fills.push_back(a.fill());
        // Constants stay 0-d: they read the same at every coordinate, and a bare constant
        // operand is what the default format's sparsity test looks for.
        bool constant = a.node().kind == Kind::Scalar;
        children.push_back(a.shape() == shape || constant ? a : broadcast_to(a, shape));
    }
    ValueType type;
    try {
        type = op.result_type_of(types);
    } catch (const Error& e) {
        std::vector<std::string> names;
        for (const Array& a : args)
            names.push_back(fmt::format("{} ({})", describe(a), type_name(a.dtype())));
        throw Error(fmt::format("{}: {} ({})", name, e.message(), fmt::join(names, ", ")));
    }
    auto n = make_node(Kind::Call, std::move(shape), type, op.apply(fills), std::move(children));
    n->op = op.name;
    return Array(std::shared_ptr<const Array::Node>(std::move(n)));
}

Array where(const Array& condition, const Array& x, const Array& y) {
    return ufunc("ifelse", {condition, x, y});
}

Array operator+(const Array& a, const Array& b) { return ufunc("add", {a, b}); }
Array operator-(const Array& a, const Array& b) { return ufunc("sub", {a, b}); }
Array operator*(const Array& a, const Array& b) { return ufunc("mul", {a, b}); }
Array operator/(const Array& a, const Array& b) { return ufunc("div", {a, b}); }
Array operator%(const Array& a, const Array& b) { return ufunc("mod", {a, b}); }
Array operator&(const Array& a, const Array& b) { return ufunc("bitwise_and", {a, b}); }
Array operator|(const Array& a, const Array& b) { return ufunc("bitwise_or", {a, b}); }
Array operator^(const Array& a, const Array& b) { return ufunc("bitwise_xor", {a, b}); }
Array operator<<(const Array& a, const Array& b) { return ufunc("shl", {a, b}); }
Array operator>>(const Array& a, const Array& b) { return ufunc("shr", {a, b}); }
Array operator<(const Array& a, const Array& b) { return ufunc("lt", {a, b}); }
Array operator<=(const Array& a, const Array& b) { return ufunc("le", {a, b}); }
Array operator>(const Array& a, const Array& b) { return ufunc("gt", {a, b}); }
Array operator>=(const Array& a, const Array& b) { return ufunc("ge", {a, b}); }
Array operator==(const Array& a, const Array& b) { return ufunc("eq", {a, b}); }
Array operator!=(const Array& a, const Array& b) { return ufunc("ne", {a, b}); }
Array operator-(const Array& a) { return ufunc("neg", {a}); }
Array operator~(const Array& a) { return ufunc("bitwise_not", {a}); }
Array operator!(const Array& a) { return ufunc("not", {a}); }
Array abs(const Array& a) { return ufunc("abs", {a}); }
Array exp(const Array& a) { return ufunc("exp", {a}); }
Array log(const Array& a) { return ufunc("log", {a}); }
Array sqrt(const Array& a) { return ufunc("sqrt", {a}); }
Array maximum(const Array& a, const Array& b) { return ufunc("max", {a, b}); }
Array minimum(const Array& a, const Array& b) { return ufunc("min", {a, b}); }
Array power(const Array& a, const Array& b) { return ufunc("pow", {a, b}); }
Array floor_divide(const Array& a, const Array& b) { return ufunc("floordiv", {a, b}); }

Array astype(const Array& a, ValueType type) {
    if (a.dtype() == type && !is_weak(a)) return a;
    return ufunc(std::string(type_name(type)), {a}); // the conversion operators are named by type
}

} // namespace siskin
