// Lazy arrays (include/siskin/array.hpp) from Python: expressions over tensors, built by the
// C++ Array operations and computed as one program. Python numbers become weak scalars, as
// NumPy 2 treats them; the Python half (siskin/_arrays.py) gives them NumPy's spelling.
#include <fmt/format.h>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "siskin/array.hpp"
#include "siskin/error.hpp"

namespace siskin::python {

namespace {

// An operand: an Array, a tensor (used in place) or a Python number (a weak scalar).
Array operand(const py::handle& x) {
    if (py::isinstance<Array>(x)) return x.cast<Array>();
    if (py::isinstance<Tensor>(x)) return Array(std::shared_ptr<const Tensor>(x.cast<std::shared_ptr<Tensor>>()));
    if (py::isinstance<py::bool_>(x)) return Array(x.cast<bool>());
    if (py::isinstance<py::int_>(x)) {
        Scalar s = scalar_from_python(x);
        return s.type() == ValueType::UInt64 ? Array(s.as_uint()) : Array(s.as_int());
    }
    if (py::isinstance<py::float_>(x)) return Array(x.cast<double>());
    throw Error(fmt::format("expected a siskin array, tensor or number, got {}",
                            py::repr(x).cast<std::string>()));
}

std::vector<Array> operands(const py::sequence& xs) {
    std::vector<Array> out;
    for (const auto& x : xs) out.push_back(operand(x));
    return out;
}

// An index item from Python: ("int", i) | ("slice", start, stop, step) | ("newaxis",) | ("ellipsis",).
IndexItem index_item(const py::tuple& t) {
    const auto kind = t[0].cast<std::string>();
    if (kind == "int") return IndexItem::at(t[1].cast<int64_t>());
    if (kind == "slice")
        return IndexItem::slice(t[1].cast<std::optional<int64_t>>(), t[2].cast<std::optional<int64_t>>(),
                                t[3].cast<int64_t>());
    if (kind == "newaxis") return IndexItem::new_axis();
    return IndexItem::ellipsis();
}

Axes axes_of(const std::optional<std::vector<int>>& axes) { return axes ? Axes(*axes) : Axes(); }

using Binary = Array (*)(const Array&, const Array&);
using Reduction = Array (*)(const Array&, Axes, bool);

} // namespace

void bind_arrays(py::module_& m) {
    py::class_<Array>(m, "Array")
        .def_property_readonly("shape", [](const Array& a) { return py::tuple(py::cast(a.shape())); })
        .def_property_readonly("dtype", [](const Array& a) { return std::string(type_name(a.dtype())); })
        .def_property_readonly("fill", [](const Array& a) { return scalar_to_python(a.fill()); })
        .def_property_readonly("program_text", &Array::program_text)
        .def("compute",
             [](const Array& a, const std::optional<std::string>& format, bool as_written) {
                 ComputeOptions o;
                 if (format) o.format = Format::parse(*format, a.ndim());
                 o.plan.as_written = as_written;
                 return std::make_shared<Tensor>(a.compute(o));
             },
             py::arg("format") = py::none(), py::arg("as_written") = false)
        .def("getitem",
             [](const Array& a, const std::vector<py::tuple>& items) {
                 std::vector<IndexItem> out;
                 for (const auto& t : items) out.push_back(index_item(t));
                 return a[out];
             })
        .def_property_readonly("T", &Array::T);

    m.def("lazy", [](const py::handle& x) { return operand(x); });
    static const std::map<std::string, Binary> binary = {
        {"+", [](const Array& a, const Array& b) { return a + b; }},
        {"-", [](const Array& a, const Array& b) { return a - b; }},
        {"*", [](const Array& a, const Array& b) { return a * b; }},
        {"/", [](const Array& a, const Array& b) { return a / b; }},
        {"//", &floor_divide},
        {"%", [](const Array& a, const Array& b) { return a % b; }},
        {"**", &power},
        {"&", [](const Array& a, const Array& b) { return a & b; }},
        {"|", [](const Array& a, const Array& b) { return a | b; }},
        {"^", [](const Array& a, const Array& b) { return a ^ b; }},
        {"<<", [](const Array& a, const Array& b) { return a << b; }},
        {">>", [](const Array& a, const Array& b) { return a >> b; }},
        {"<", [](const Array& a, const Array& b) { return a < b; }},
        {"<=", [](const Array& a, const Array& b) { return a <= b; }},
        {">", [](const Array& a, const Array& b) { return a > b; }},
        {">=", [](const Array& a, const Array& b) { return a >= b; }},
        {"==", [](const Array& a, const Array& b) { return a == b; }},
        {"!=", [](const Array& a, const Array& b) { return a != b; }},
        {"@", &matmul},
    };
    m.def("binary", [](const std::string& op, const py::handle& a, const py::handle& b) {
        auto it = binary.find(op);
        if (it == binary.end()) throw Error(fmt::format("no array operator '{}'", op));
        return it->second(operand(a), operand(b));
    });
    m.def("unary", [](const std::string& op, const py::handle& a) {
        Array x = operand(a);
        if (op == "-") return -x;
        if (op == "~") return ~x;
        if (op == "abs") return abs(x);
        throw Error(fmt::format("no unary array operator '{}'", op));
    });
    m.def("ufunc", [](const std::string& name, const py::sequence& args) { return ufunc(name, operands(args)); });
    static const std::map<std::string, Reduction> reductions = {
        {"sum", &sum}, {"prod", &prod}, {"min", &min}, {"max", &max},
        {"any", &any}, {"all", &all},   {"mean", &mean},
    };
    using TypedReduction = Array (*)(const Array&, Axes, bool, ValueType);
    static const std::map<std::string, TypedReduction> typed_reductions = {
        {"sum", &sum}, {"prod", &prod}, {"mean", &mean}};
    m.def("reduce", [](const std::string& name, const py::handle& a, const std::optional<std::vector<int>>& axes,
                       bool keepdims, const std::optional<std::string>& dtype) {
        if (dtype) {
            auto it = typed_reductions.find(name);
            if (it == typed_reductions.end()) throw Error(fmt::format("{} takes no dtype", name));
            return it->second(operand(a), axes_of(axes), keepdims, parse_type(*dtype));
        }
        auto it = reductions.find(name);
        if (it == reductions.end()) throw Error(fmt::format("no reduction '{}'", name));
        return it->second(operand(a), axes_of(axes), keepdims);
    }, py::arg("name"), py::arg("a"), py::arg("axes"), py::arg("keepdims"), py::arg("dtype") = py::none());
    m.def("astype", [](const py::handle& a, const std::string& dtype) { return astype(operand(a), parse_type(dtype)); });
    m.def("arg_reduce", [](const std::string& name, const py::handle& a, std::optional<int> axis, bool keepdims) {
        if (name != "argmin" && name != "argmax") throw Error(fmt::format("no reduction '{}'", name));
        return name == "argmin" ? argmin(operand(a), axis, keepdims) : argmax(operand(a), axis, keepdims);
    });
    m.def("einsum", [](const std::string& subscripts, const py::sequence& xs) { return einsum(subscripts, operands(xs)); });
    m.def("tensordot", [](const py::handle& a, const py::handle& b, int axes) {
        return tensordot(operand(a), operand(b), axes);
    });
    m.def("tensordot_pairs", [](const py::handle& a, const py::handle& b, const std::vector<int>& axes_a,
                                const std::vector<int>& axes_b) {
        return tensordot(operand(a), operand(b), axes_a, axes_b);
    });
    m.def("where", [](const py::handle& c, const py::handle& x, const py::handle& y) {
        return where(operand(c), operand(x), operand(y));
    });
    m.def("permute_dims", [](const py::handle& a, std::vector<int> axes) { return permute_dims(operand(a), std::move(axes)); });
    m.def("expand_dims", [](const py::handle& a, int axis) { return expand_dims(operand(a), axis); });
    m.def("squeeze", [](const py::handle& a, std::optional<std::vector<int>> axes) {
        return squeeze(operand(a), std::move(axes));
    });
    m.def("broadcast_to", [](const py::handle& a, const std::vector<int64_t>& shape) {
        return broadcast_to(operand(a), shape);
    });
    m.def("concatenate", [](const py::sequence& xs, int axis) { return concatenate(operands(xs), axis); });
    m.def("stack", [](const py::sequence& xs, int axis) { return stack(operands(xs), axis); });
    m.def("reshape", [](const py::handle& a, std::vector<int64_t> shape) { return reshape(operand(a), std::move(shape)); });
    m.def("flip", [](const py::handle& a, std::optional<int> axis) { return flip(operand(a), axis); });
    m.def("tile", [](const py::handle& a, std::vector<int64_t> reps) { return tile(operand(a), std::move(reps)); });
    m.def("pad", [](const py::handle& a, std::vector<std::pair<int64_t, int64_t>> widths, const py::handle& value) {
        return pad(operand(a), std::move(widths), operand(value));
    });
}

} // namespace siskin::python
