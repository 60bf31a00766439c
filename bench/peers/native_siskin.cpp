// The siskin half of the embedded module `siskin_native`: tensors made from NumPy arrays (copied
// once, outside any timing), programs compiled for their formats, kernels run and timed here in
// C++ (so the clock sees the kernel and its output allocation, not Python), outputs handed back
// as NumPy arrays.
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/memory.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/tensor.hpp"

namespace py = pybind11;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

template <class T> void fill_buffer(siskin::Buffer& b, const py::array_t<T, py::array::c_style | py::array::forcecast>& a) {
    if (b.type() != siskin::ValueType::Int32 && b.type() != siskin::ValueType::Float64 &&
        b.type() != siskin::ValueType::Int64)
        throw siskin::Error("unexpected buffer type");
    if (siskin::type_size(b.type()) != sizeof(T)) throw siskin::Error("buffer width mismatch");
    b.resize(static_cast<int64_t>(a.size()));
    if (a.size() > 0) std::memcpy(b.data<T>(), a.data(), sizeof(T) * static_cast<size_t>(a.size()));
}

// A 2-D CSR ("csr") or CSC ("csc") float64 tensor with 32-bit indices from its three arrays.
std::shared_ptr<siskin::Tensor> make_compressed(std::vector<int64_t> shape, const std::string& format,
                                                const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& pos,
                                                const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& crd,
                                                const py::array_t<double, py::array::c_style | py::array::forcecast>& vals) {
    auto t = std::make_shared<siskin::Tensor>(shape, siskin::ValueType::Float64, siskin::Scalar::of(0.0),
                                              siskin::Format::parse(format + "@32", 2));
    fill_buffer<int32_t>(t->level(1).buffer("pos"), pos);
    fill_buffer<int32_t>(t->level(1).buffer("crd"), crd);
    fill_buffer<double>(t->values(), vals);
    return t;
}

std::shared_ptr<siskin::Tensor> make_dense(const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
    std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
    auto t = std::make_shared<siskin::Tensor>(shape, siskin::ValueType::Float64, siskin::Scalar::of(0.0),
                                              siskin::Format::dense(static_cast<int>(a.ndim())));
    fill_buffer<double>(t->values(), a);
    return t;
}

// A tensor of any format, value type and fill from its buffers, copied: levels[k] maps the
// buffer names of level k ("pos", "crd", ...) to arrays of that buffer's element width (a level
// not named, e.g. dense, needs none); values holds the leaf's values.
siskin::Scalar scalar_from_python(const py::handle& v, siskin::ValueType type) {
    if (py::isinstance<py::bool_>(v)) return siskin::Scalar::of(v.cast<bool>()).cast(type);
    if (py::isinstance<py::int_>(v)) return siskin::Scalar::of(v.cast<int64_t>()).cast(type);
    return siskin::Scalar::of(v.cast<double>()).cast(type);
}

void copy_into(siskin::Buffer& b, const py::array& a, const std::string& what) {
    auto c = py::array::ensure(a, py::array::c_style);
    if (!c) throw siskin::Error(what + ": not an array");
    if (static_cast<size_t>(c.itemsize()) != siskin::type_size(b.type()))
        throw siskin::Error(what + ": element width " + std::to_string(c.itemsize()) + " but the buffer holds " +
                            std::string(siskin::type_name(b.type())));
    b.resize(static_cast<int64_t>(c.size()));
    if (c.size() > 0) std::memcpy(b.data<char>(), c.data(), static_cast<size_t>(c.nbytes()));
}

std::shared_ptr<siskin::Tensor> make_tensor(std::vector<int64_t> shape, const std::string& format,
                                            const std::string& type, const py::object& fill,
                                            const std::vector<std::map<std::string, py::array>>& levels,
                                            const py::array& values) {
    auto vt = siskin::parse_type(type);
    auto t = std::make_shared<siskin::Tensor>(shape, vt, scalar_from_python(fill, vt),
                                              siskin::Format::parse(format, static_cast<int>(shape.size())));
    if (static_cast<int>(levels.size()) != t->num_levels())
        throw siskin::Error("make_tensor: " + std::to_string(levels.size()) + " level dictionaries for " +
                            std::to_string(t->num_levels()) + " levels");
    for (int k = 0; k < t->num_levels(); ++k)
        for (auto& [name, a] : levels[static_cast<size_t>(k)])
            copy_into(t->level(k).buffer(name), a, "level " + std::to_string(k) + " " + name);
    copy_into(t->values(), values, "values");
    return t;
}

// Bytes held by a tensor's level and value buffers (elements in use).
int64_t tensor_bytes(const siskin::Tensor& t) {
    int64_t n = t.values().size() * static_cast<int64_t>(siskin::type_size(t.values().type()));
    for (int k = 0; k < t.num_levels(); ++k)
        for (auto& b : t.level(k).buffers) n += b.size() * static_cast<int64_t>(siskin::type_size(b.type()));
    return n;
}

py::array buffer_to_numpy(const siskin::Buffer& b) {
    using siskin::ValueType;
    auto copy = [&](auto tag) {
        using T = decltype(tag);
        py::array_t<T> out(b.size());
        if (b.size() > 0) std::memcpy(out.mutable_data(), b.data<T>(), sizeof(T) * static_cast<size_t>(b.size()));
        return py::array(out);
    };
    switch (b.type()) {
    case ValueType::Int32: return copy(int32_t{});
    case ValueType::Int64: return copy(int64_t{});
    case ValueType::Float64: return copy(double{});
    case ValueType::Bool: return copy(bool{});
    case ValueType::Int8: return copy(int8_t{});
    case ValueType::Float32: return copy(float{});
    default: throw siskin::Error("unexpected buffer type in an output");
    }
}

// {"format", "shape", "levels": [{name: array}], "values": array} (a copy).
py::dict describe(const siskin::Tensor& t) {
    py::dict d;
    d["format"] = t.format().to_string();
    d["shape"] = t.shape();
    d["type"] = std::string(siskin::type_name(t.type()));
    d["fill"] = t.fill().to_string(); // "0", "1.5", "inf", "nan", "true"
    py::list levels;
    for (int k = 0; k < t.num_levels(); ++k) {
        py::dict lv;
        const auto& st = t.level(k);
        lv["kind"] = st.spec.kind;
        for (size_t b = 0; b < st.names.size(); ++b) lv[py::str(st.names[b])] = buffer_to_numpy(st.buffers[b]);
        levels.append(lv);
    }
    d["levels"] = levels;
    d["values"] = buffer_to_numpy(t.values());
    return d;
}

// A compiled program bound to its inputs. run() times CompiledProgram::run: the kernel plus
// allocating fresh outputs, as a peer's call allocates its result.
class Program {
public:
    Program(const std::string& text, std::map<std::string, std::shared_ptr<siskin::Tensor>> inputs,
            const std::map<std::string, std::string>& output_formats, const std::string& cache_dir,
            const std::map<std::string, int>& output_ndims,
            const std::map<std::string, std::vector<int64_t>>& output_shapes, int threads)
        : held_(std::move(inputs)) {
        for (auto& [name, t] : held_) inputs_[name] = t.get();
        std::map<std::string, siskin::OutputSpec> specs;
        for (auto& [name, f] : output_formats) {
            siskin::OutputSpec s;
            auto nd = output_ndims.find(name);
            if (!f.empty()) // empty: dense (the default)
                s.format = siskin::Format::parse(f, nd == output_ndims.end() ? 2 : nd->second);
            // Outputs written through slices (a concatenation's phases) need their shape.
            if (auto sh = output_shapes.find(name); sh != output_shapes.end()) s.shape = sh->second;
            specs[name] = s;
        }
        siskin::CompileOptions options;
        options.jit.cache_dir = cache_dir;
        options.threads = threads;
        auto t0 = Clock::now();
        compiled_ = siskin::compile_for(siskin::ir::parse_program(text), inputs_, specs, options);
        compile_ms_ = ms_since(t0);
    }
    // Milliseconds of one run; the outputs are kept (the previous ones freed after the clock).
    double run() {
        auto t0 = Clock::now();
        auto out = compiled_.run(inputs_);
        double ms = ms_since(t0);
        outputs_ = std::move(out);
        return ms;
    }
    py::dict outputs() const {
        py::dict d;
        for (auto& [name, t] : outputs_) d[py::str(name)] = describe(t);
        return d;
    }
    // Bytes of the last run's outputs (their level and value buffers).
    int64_t output_bytes() const {
        int64_t n = 0;
        for (auto& [name, t] : outputs_) n += tensor_bytes(t);
        return n;
    }
    double compile_ms() const { return compile_ms_; }
    double c_compiler_ms() const { return compiled_.kernel->compile_ms(); }
    std::string cache() const { return std::string(siskin::codegen::cache_status_name(compiled_.kernel->cache())); }
    std::string c_source() const { return compiled_.kernel->c_source(); }

private:
    std::map<std::string, std::shared_ptr<siskin::Tensor>> held_;
    std::map<std::string, const siskin::Tensor*> inputs_;
    siskin::CompiledProgram compiled_;
    std::map<std::string, siskin::Tensor> outputs_;
    double compile_ms_ = 0;
};

} // namespace

void bind_siskin(py::module_& m) {
    static py::exception<siskin::Error> error(m, "SiskinError");
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const siskin::Error& e) {
            const char* kind = e.kind() == siskin::Error::Kind::Unsupported ? "Unsupported: " : "";
            PyErr_SetString(error.ptr(), (std::string(kind) + e.what()).c_str());
        }
    });
    py::class_<siskin::Tensor, std::shared_ptr<siskin::Tensor>>(m, "Tensor")
        .def_property_readonly("shape", &siskin::Tensor::shape)
        .def("stored", &siskin::Tensor::stored)
        .def("nbytes", [](const siskin::Tensor& t) { return tensor_bytes(t); })
        .def("format", [](const siskin::Tensor& t) { return t.format().to_string(); })
        .def("describe", [](const siskin::Tensor& t) { return describe(t); });
    m.def("compressed", &make_compressed, py::arg("shape"), py::arg("format"), py::arg("pos"),
          py::arg("crd"), py::arg("vals"));
    m.def("dense", &make_dense);
    // Returns the pages siskin keeps for reuse, as malloc_trim does malloc's (peak memory runs).
    m.def("release_free_memory", &siskin::release_free_memory);
    m.def("tensor", &make_tensor, py::arg("shape"), py::arg("format"), py::arg("type"), py::arg("fill"),
          py::arg("levels"), py::arg("values"));
    m.def("convert_compiled", [](const siskin::Tensor& t, const std::string& format) {
        auto c = siskin::convert_compiled(t, siskin::Format::parse(format, t.ndims()));
        return py::make_tuple(std::make_shared<siskin::Tensor>(std::move(c.tensor)), c.compiled,
                              c.fallback_reason);
    });
    py::class_<Program>(m, "Program")
        .def(py::init<const std::string&, std::map<std::string, std::shared_ptr<siskin::Tensor>>,
                      const std::map<std::string, std::string>&, const std::string&,
                      const std::map<std::string, int>&,
                      const std::map<std::string, std::vector<int64_t>>&, int>(),
             py::arg("text"), py::arg("inputs"), py::arg("outputs"), py::arg("cache_dir"),
             py::arg("output_ndims") = std::map<std::string, int>{},
             py::arg("output_shapes") = std::map<std::string, std::vector<int64_t>>{}, py::arg("threads") = 1)
        .def("run", &Program::run)
        .def("outputs", &Program::outputs)
        .def_property_readonly("output_bytes", &Program::output_bytes)
        .def_property_readonly("compile_ms", &Program::compile_ms)
        .def_property_readonly("c_compiler_ms", &Program::c_compiler_ms)
        .def_property_readonly("cache", &Program::cache)
        .def_property_readonly("c_source", &Program::c_source);
}
