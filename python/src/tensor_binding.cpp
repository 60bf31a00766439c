// Tensors between siskin and NumPy without copies: a tensor over NumPy arrays' memory (each
// array kept alive by the buffer that borrows it), and a tensor's buffers seen as NumPy arrays
// whose base keeps the tensor alive. Conversions and files go through the C++ library.
#include <fmt/format.h>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"
#include "siskin/limits.hpp"

namespace siskin::python {

namespace {

// What an error about a dtype siskin lacks (complex, float16, ...) lists.
constexpr const char* kTypes = "its types: bool, int8 to int64, uint8 to uint64, float32, float64";

// The siskin type of a NumPy dtype; nothing for dtypes siskin has no type for.
std::optional<ValueType> type_of(const py::dtype& dtype) {
    const char kind = dtype.kind();
    const auto size = dtype.itemsize();
    if (kind == 'b' && size == 1) return ValueType::Bool;
    if (kind == 'i') {
        switch (size) {
        case 1: return ValueType::Int8;
        case 2: return ValueType::Int16;
        case 4: return ValueType::Int32;
        case 8: return ValueType::Int64;
        }
    }
    if (kind == 'u') {
        switch (size) {
        case 1: return ValueType::UInt8;
        case 2: return ValueType::UInt16;
        case 4: return ValueType::UInt32;
        case 8: return ValueType::UInt64;
        }
    }
    if (kind == 'f' && size == 4) return ValueType::Float32;
    if (kind == 'f' && size == 8) return ValueType::Float64;
    return std::nullopt;
}

// The owner of borrowed memory: a reference to the array, dropped under the GIL (a tensor may
// be destroyed by a thread that does not hold it); after interpreter shutdown it is left alone.
std::shared_ptr<const void> keep_alive(const py::array& array) {
    auto* held = new py::object(array);
    return std::shared_ptr<const void>(held, [](const void* p) {
        auto* object = static_cast<py::object*>(const_cast<void*>(p));
        if (!Py_IsInitialized()) return;
        py::gil_scoped_acquire gil;
        delete object;
    });
}

// A buffer over a one-dimensional, contiguous, aligned array in native byte order, of `want`
// (or, for index buffers, any of int32 and int64 when want is nothing).
Buffer borrow(const py::array& array, std::optional<ValueType> want, const std::string& what) {
    if (array.ndim() != 1)
        throw Error(fmt::format("{}: expected a one-dimensional array, got {} dimensions", what, array.ndim()));
    const int flags = py::detail::array_proxy(array.ptr())->flags;
    const bool contiguous = (flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) != 0;
    const bool aligned = (flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
    if (!contiguous || !aligned)
        throw Error(fmt::format("{}: the array must be contiguous and aligned", what));
    py::dtype dtype = array.dtype();
    if (!dtype.attr("isnative").cast<bool>())
        throw Error(fmt::format("{}: the array is not in the machine's byte order", what));
    std::optional<ValueType> type = type_of(dtype);
    auto dtype_text = [&] { return py::str(dtype).cast<std::string>(); }; // slow: errors only
    if (!type) throw Error(fmt::format("{}: siskin has no type for dtype {} ({})", what, dtype_text(), kTypes));
    if (want ? *type != *want : (*type != ValueType::Int32 && *type != ValueType::Int64))
        throw Error(fmt::format("{}: dtype {}, but {} is needed", what, dtype_text(),
                                want ? std::string(type_name(*want)) : std::string("int32 or int64")));
    return Buffer::borrow(*type, const_cast<void*>(array.data()), static_cast<int64_t>(array.size()),
                          keep_alive(array));
}

// A NumPy array over a buffer of the tensor `owner` (its base, so the tensor outlives it).
py::array view(const Buffer& b, const py::object& owner, bool writable) {
    py::dtype dtype(std::string(type_name(b.type())));
    if (b.size() == 0) return py::array(dtype, std::vector<py::ssize_t>{0});
    py::array out(dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(b.size())},
                  std::vector<py::ssize_t>{static_cast<py::ssize_t>(type_size(b.type()))},
                  b.data<char>(), owner);
    if (!writable) py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return out;
}

// Stored entries from which a conversion is compiled rather than done by the runtime.
constexpr int64_t kCompiledConversionMin = 1 << 16;

bool any_borrowed(const Tensor& t) {
    if (t.values().borrowed()) return true;
    for (int k = 0; k < t.num_levels(); ++k)
        for (const auto& b : t.level(k).buffers)
            if (b.borrowed()) return true;
    return false;
}

// dtype: a NumPy dtype or a siskin type name.
std::shared_ptr<Tensor> from_storage(const std::vector<int64_t>& shape, const py::object& dtype,
                                     const py::handle& fill, const std::string& format,
                                     const std::vector<std::map<std::string, py::array>>& levels,
                                     const std::optional<py::array>& values) {
    check_rank(static_cast<int64_t>(shape.size()), "the array");
    std::optional<ValueType> given =
        py::isinstance<py::dtype>(dtype) ? type_of(dtype.cast<py::dtype>()) : parse_type(dtype.cast<std::string>());
    if (!given)
        throw Error(fmt::format("siskin has no type for dtype {} ({})", py::str(dtype).cast<std::string>(), kTypes));
    const ValueType type = *given;
    Format f = Format::parse(format, static_cast<int>(shape.size()));
    std::vector<std::map<std::string, Buffer>> buffers(levels.size());
    for (size_t k = 0; k < levels.size(); ++k)
        for (const auto& [name, array] : levels[k])
            buffers[k].emplace(name, borrow(array, std::nullopt, fmt::format("level {} buffer {}", k, name)));
    Buffer vals = values ? borrow(*values, type, "values") : Buffer(ValueType::Bool, 0);
    return std::make_shared<Tensor>(Tensor::from_storage(shape, type, scalar_from_python(fill), std::move(f),
                                                         std::move(buffers), std::move(vals)));
}

// Whether t is stored in `spelling`: the same levels, modes and leaf, and the same index widths
// where the spelling gives them.
bool has_format(const Tensor& t, const std::string& spelling) {
    Format want = Format::parse(spelling, t.ndims());
    const auto& have = t.format().levels();
    if (want.leaf() != t.format().leaf() || want.levels().size() != have.size()) return false;
    for (size_t k = 0; k < have.size(); ++k) {
        const LevelSpec& w = want.levels()[k];
        if (w.kind != have[k].kind || w.modes != have[k].modes) return false;
        if (w.index_bits != 0 && w.index_bits != have[k].index_bits) return false;
    }
    return true;
}

ReadOptions read_options(const std::optional<std::string>& format, const py::object& fill,
                         const std::optional<std::string>& dtype,
                         const std::optional<std::vector<int64_t>>& shape, std::optional<int> ndims,
                         const std::string& path) {
    ReadOptions o;
    if (dtype) o.type = parse_type(*dtype);
    if (!fill.is_none()) {
        Scalar f = scalar_from_python(fill);
        o.fill = o.type ? f.cast(*o.type) : f;
    }
    o.shape = shape;
    o.ndims = ndims;
    if (format) {
        std::optional<int> n = shape ? std::optional<int>(static_cast<int>(shape->size()))
                                     : file_type_ndims(path, o);
        if (!n) throw Error(fmt::format("{}: give the shape (or read it without a format and convert) "
                                        "to read a .tns file in format '{}'",
                                        path, *format));
        o.format = Format::parse(*format, *n);
    }
    return o;
}

} // namespace

std::optional<std::vector<int>> dense_order(const Tensor& t) {
    if (t.format().leaf() != Leaf::Element) return std::nullopt;
    std::vector<int> order;
    for (const auto& level : t.format().levels()) {
        if (level.kind != "dense") return std::nullopt;
        order.insert(order.end(), level.modes.begin(), level.modes.end());
    }
    return order;
}

void bind_tensor(py::module_& m) {
    py::class_<Tensor, std::shared_ptr<Tensor>>(m, "Tensor")
        .def_property_readonly("shape", [](const Tensor& t) { return py::tuple(py::cast(t.shape())); })
        .def_property_readonly("dtype", [](const Tensor& t) { return std::string(type_name(t.type())); })
        .def_property_readonly("fill", [](const Tensor& t) { return scalar_to_python(t.fill()); })
        .def_property_readonly("format", [](const Tensor& t) { return t.format().to_string(); })
        .def_property_readonly("nnz", &Tensor::stored)
        .def_property_readonly("borrowed", &any_borrowed)
        .def_property_readonly("dense_order", &dense_order)
        .def("has_format", &has_format, py::arg("format"))
        .def("levels",
             [](const py::object& self) {
                 const Tensor& t = self.cast<const Tensor&>();
                 py::list out;
                 for (int k = 0; k < t.num_levels(); ++k) {
                     py::dict level;
                     const LevelStorage& s = t.level(k);
                     for (size_t b = 0; b < s.names.size(); ++b)
                         level[py::str(s.names[b])] = view(s.buffers[b], self, false);
                     out.append(level);
                 }
                 return out;
             })
        .def("values",
             [](const py::object& self, bool writable) {
                 const Tensor& t = self.cast<const Tensor&>();
                 // Memory borrowed from a read-only array must not become writable here.
                 writable = writable && !t.values().borrowed();
                 // NumPy may now write the values behind siskin's back: no finiteness is kept.
                 if (writable) t.values().share_writes();
                 return view(t.values(), self, writable);
             },
             py::arg("writable") = true)
        .def("convert",
             [](const Tensor& t, const std::string& format) {
                 // A compiled copy pays a C compile the first time: worth it for large tensors;
                 // small ones are copied by the runtime at once.
                 Format target = Format::parse(format, t.ndims());
                 if (t.stored() < kCompiledConversionMin) return std::make_shared<Tensor>(t.convert(target));
                 return std::make_shared<Tensor>(convert(t, target));
             })
        // Every buffer copied into memory of siskin's own (nothing borrowed), which siskin
        // alone writes: a kernel that relies on its values being finite scans them once.
        .def("copy", [](const Tensor& t) { return std::make_shared<Tensor>(t); })
        .def("equals", &Tensor::equals)
        .def("to_string", &Tensor::to_string, py::arg("max_elements") = 400);

    // A tensor with nothing stored: every element is the fill (creation functions: zeros, full).
    m.def("filled", [](const std::vector<int64_t>& shape, const std::string& dtype, const py::handle& fill,
                       const std::string& format) {
        ValueType type = parse_type(dtype);
        return std::make_shared<Tensor>(shape, type, scalar_from_python(fill).cast(type),
                                        Format::parse(format, static_cast<int>(shape.size())));
    });
    m.def("from_storage", &from_storage, py::arg("shape"), py::arg("dtype"), py::arg("fill"),
          py::arg("format"), py::arg("levels"), py::arg("values"));
    m.def(
        "read",
        [](const std::string& path, const std::optional<std::string>& format, const py::object& fill,
           const std::optional<std::string>& dtype, const std::optional<std::vector<int64_t>>& shape,
           std::optional<int> ndims) {
            return std::make_shared<Tensor>(read_tensor(path, read_options(format, fill, dtype, shape, ndims, path)));
        },
        py::arg("path"), py::arg("format"), py::arg("fill"), py::arg("dtype"), py::arg("shape"),
        py::arg("ndims"));
    m.def(
        "write",
        [](const Tensor& t, const std::string& path, bool fill_comment) {
            WriteOptions o;
            o.fill_comment = fill_comment;
            write_tensor(t, path, o);
        },
        py::arg("tensor"), py::arg("path"), py::arg("fill_comment"));
}

} // namespace siskin::python
