// Programs from Python: ProgramKernels (siskin.Kernel) holds one program and the output specs,
// and keeps a compiled program per input signature (formats, types, fills, finiteness) and
// shapes, so a call with inputs like the last ones goes straight to the kernel. The GIL is released while a kernel
// runs; compiling holds it (the C compiler runs in a child process either way).
#include <algorithm>
#include <chrono>
#include <list>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/planner.hpp"

namespace siskin::python {

namespace {

using Inputs = std::map<std::string, std::shared_ptr<Tensor>>;

// The Python options: formats, fills, dtypes and shapes by tensor name (inputs and outputs).
struct TensorOptions {
    std::map<std::string, std::string> formats;
    std::map<std::string, py::object> fills;
    std::map<std::string, std::string> dtypes;
    std::map<std::string, std::vector<int64_t>> shapes;
};

// The number of subscripts each tensor of the program is accessed with.
std::map<std::string, int> arity_of(const ir::Program& program) {
    std::map<std::string, int> arity;
    ir::visit(program.body, {}, [&](const ir::Expr& e) {
        if (const auto* a = e->as<ir::Access>()) arity.emplace(a->tensor, static_cast<int>(a->indices.size()));
    });
    return arity;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// Names an option gives that the program does not use, or (`outputs_only`) does not write.
template <class Map>
void check_names(const ir::Program& program, const Map& given, const char* option, bool outputs_only) {
    const auto arity = arity_of(program);
    const auto outputs = program.outputs();
    for (const auto& [name, value] : given) {
        if (!arity.count(name))
            throw Error(fmt::format("{} names '{}', which the program does not use", option, name));
        if (outputs_only && !contains(outputs, name))
            throw Error(fmt::format("{} names '{}', which is not an output of the program (its "
                                    "outputs: {})",
                                    option, name, fmt::join(outputs, ", ")));
    }
}

// The specs of the outputs the options name (the options for inputs are applied in Python, when
// the inputs are converted).
std::map<std::string, OutputSpec> output_specs(const ir::Program& program, const TensorOptions& o) {
    check_names(program, o.formats, "formats", false);
    check_names(program, o.fills, "fills", false);
    check_names(program, o.dtypes, "dtypes", true);
    check_names(program, o.shapes, "shapes", true);
    const auto outputs = program.outputs();
    const auto arity = arity_of(program);
    std::map<std::string, OutputSpec> specs;
    for (const auto& [name, spelling] : o.formats)
        if (contains(outputs, name)) specs[name].format = Format::parse(spelling, arity.at(name));
    for (const auto& [name, dtype] : o.dtypes) specs[name].type = parse_type(dtype);
    for (const auto& [name, fill] : o.fills) {
        if (!contains(outputs, name)) continue;
        Scalar f = scalar_from_python(fill);
        specs[name].fill = specs[name].type ? f.cast(*specs[name].type) : f;
    }
    for (const auto& [name, shape] : o.shapes) specs[name].shape = shape;
    return specs;
}

class ProgramKernels {
public:
    // tensor_class: siskin.Tensor (an input of exactly that class is used as it is, and the
    // outputs are made of it); convert(name, value, format, fill): any other input as one.
    ProgramKernels(const std::string& text, const TensorOptions& options, bool as_written, py::object tensor_class,
                   py::object convert)
        : program_(ir::parse_program(text)), specs_(output_specs(program_, options)),
          inputs_(program_.inputs()), tensor_class_(std::move(tensor_class)), convert_(std::move(convert)) {
        choice_.as_written = as_written;
        for (const auto& name : inputs_) {
            if (auto it = options.formats.find(name); it != options.formats.end())
                input_formats_[name] = it->second;
            if (auto it = options.fills.find(name); it != options.fills.end()) input_fills_[name] = it->second;
            else if (const ir::FillDecl* d = program_.declared_fill(name))
                input_fills_[name] = scalar_to_python(d->value);
        }
    }

    const std::vector<std::string>& input_names() const { return inputs_; }
    /// The formats and fills the options (or the program's `fill` lines) ask of inputs.
    const std::map<std::string, std::string>& input_formats() const { return input_formats_; }
    const std::map<std::string, py::object>& input_fills() const { return input_fills_; }
    std::vector<std::string> output_names() const { return program_.outputs(); }

    // A call from Python, `kernel(A=..., x=...)` (its keyword arguments, a dict or null): every
    // input by name, a siskin.Tensor taken as it is (its format and fill are the kernel's
    // business) unless the options ask its name for a format or fill, anything else converted by
    // siskin's asarray (`convert_`). One pass in C++ with no Python frame, as a cached kernel's
    // whole cost beyond its run is this call (bench/python_api.py).
    py::dict call(PyObject* given) {
        // The native tensors, held: another thread may rebind a Tensor's _native while the
        // kernel runs without the GIL.
        std::vector<std::shared_ptr<Tensor>> held;
        std::map<std::string, const Tensor*> inputs;
        PyObject *key = nullptr, *value = nullptr;
        for (Py_ssize_t at = 0; given && PyDict_Next(given, &at, &key, &value);) {
            std::string name = py::handle(key).cast<std::string>();
            known_input(name);
            auto tensor = py::reinterpret_borrow<py::object>(value);
            if (Py_TYPE(value) != reinterpret_cast<PyTypeObject*>(tensor_class_.ptr()) ||
                input_formats_.count(name) || input_fills_.count(name))
                tensor = convert_(py::handle(key), py::handle(value), option_or_none(input_formats_, name),
                                  option_or_none(input_fills_, name));
            held.push_back(tensor.attr(native_name_).cast<std::shared_ptr<Tensor>>());
            inputs.emplace(std::move(name), held.back().get());
        }
        all_given(inputs);
        std::shared_ptr<const Compiled> compiled = find_or_compile(inputs); // held while it runs
        std::map<std::string, Tensor> outputs;
        {
            py::gil_scoped_release nogil;
            outputs = compiled->planned.run(inputs);
        }
        py::dict out;
        for (auto& [name, t] : outputs) out[py::str(name)] = wrap(std::make_shared<Tensor>(std::move(t)));
        return out;
    }

    // Seconds of each of `repeat` runs of the kernel alone (and its outputs' allocation), timed
    // in C++: what a call from Python costs beyond it is the call overhead (bench/python_api.py).
    // The outputs are freed after the clock stops, as a caller from Python frees its results
    // after its clock (and run-peers' C++ rows after theirs).
    std::vector<double> time_runs(const Inputs& given, int repeat) {
        std::map<std::string, Tensor> outputs;
        return time_each(
            given, repeat,
            [&](const Compiled& c, const std::map<std::string, const Tensor*>& inputs) {
                outputs = c.planned.run(inputs);
            },
            [&] { outputs.clear(); });
    }

    // Seconds of each of `repeat` checks a call makes before it runs its cached kernel (shapes,
    // signatures, and the finiteness scan of the inputs the kernel relies on that siskin cannot
    // vouch for: memory NumPy may write), timed in C++: a C++ caller holding the same tensors
    // pays them too (CompiledProgram::inputs_finite).
    std::vector<double> time_checks(const Inputs& given, int repeat) {
        return time_each(
            given, repeat,
            [this](const Compiled& c, const std::map<std::string, const Tensor*>& inputs) {
                if (!fits(c, inputs)) throw Error("the inputs changed while their checks were timed");
            },
            [] {});
    }

private:
    // Seconds of each of `repeat` calls of step(kernel, inputs), each followed by after()
    // outside the clock, without the GIL.
    template <class Step, class After>
    std::vector<double> time_each(const Inputs& given, int repeat, Step step, After after) {
        auto inputs = bind(given);
        std::shared_ptr<const Compiled> compiled = find_or_compile(inputs);
        std::vector<double> seconds;
        py::gil_scoped_release nogil;
        for (int k = 0; k < repeat; ++k) {
            auto start = std::chrono::steady_clock::now();
            step(*compiled, inputs);
            seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            after();
        }
        return seconds;
    }

    std::map<std::string, const Tensor*> bind(const Inputs& given) const {
        std::map<std::string, const Tensor*> inputs;
        for (const auto& [name, t] : given) {
            known_input(name);
            inputs.emplace(name, t.get());
        }
        all_given(inputs);
        return inputs;
    }

    // A siskin.Tensor over `t`, made as Tensor.__new__ and its _native slot set: what its
    // __init__ does, less a Python frame and the type check that `t` passes by construction.
    py::object wrap(std::shared_ptr<Tensor> t) const {
        auto* cls = reinterpret_cast<PyTypeObject*>(tensor_class_.ptr());
        auto tensor = py::reinterpret_steal<py::object>(cls->tp_new(cls, empty_args_.ptr(), nullptr));
        if (!tensor) throw py::error_already_set();
        py::object native = py::cast(std::move(t));
        if (PyObject_SetAttr(tensor.ptr(), native_name_.ptr(), native.ptr()) != 0) throw py::error_already_set();
        return tensor;
    }

    void known_input(const std::string& name) const {
        if (!contains(inputs_, name))
            throw Error(fmt::format("the program does not read a tensor '{}' (it reads: {})", name,
                                    fmt::join(inputs_, ", ")));
    }

    void all_given(const std::map<std::string, const Tensor*>& inputs) const {
        for (const auto& name : inputs_)
            if (!inputs.count(name)) throw Error(fmt::format("input '{}' of the program is missing", name));
    }

    template <class Map> static py::object option_or_none(const Map& options, const std::string& name) {
        auto it = options.find(name);
        if (it == options.end()) return py::none();
        if constexpr (std::is_same_v<typename Map::mapped_type, py::object>) return it->second;
        else return py::str(it->second);
    }

public:
    // The C of the kernel the last call ran (compiled for its inputs).
    std::string c_source() const {
        if (cache_.empty()) throw Error("the kernel has not been called yet: its C depends on the inputs' formats");
        return cache_.front()->planned.compiled.kernel->c_source();
    }
    // What the plan the last call ran does (siskin explain's words), or "as written".
    std::string plan() const {
        if (cache_.empty()) throw Error("the kernel has not been called yet: its plan depends on the inputs");
        return cache_.front()->planned.chosen.description;
    }
    std::string cache_status() const {
        if (cache_.empty()) return "none";
        return std::string(codegen::cache_status_name(cache_.front()->planned.compiled.kernel->cache()));
    }
    size_t compiled_count() const { return cache_.size(); }

private:
    struct Compiled {
        std::vector<TensorSignature> signatures; // the kernel's, per input in inputs_ order
        std::vector<std::vector<int64_t>> shapes;
        PlannedProgram planned;
    };

    // Whether `c` was compiled for these inputs: same signatures and shapes, and finite values
    // where the kernel relies on them (scanned only then, and once for a tensor whose memory
    // siskin alone writes).
    bool fits(const Compiled& c, const std::map<std::string, const Tensor*>& inputs) const {
        for (size_t k = 0; k < inputs_.size(); ++k) {
            const Tensor& t = *inputs.at(inputs_[k]);
            if (t.shape() != c.shapes[k] || !describes(c.signatures[k], t)) return false;
        }
        return c.planned.compiled.inputs_finite(inputs);
    }

    // TensorSignature::matches against the tensor itself, field by field: building the
    // tensor's signature first would copy its format (a vector of levels) on every call.
    static bool describes(const TensorSignature& s, const Tensor& t) {
        return s.ndims == t.ndims() && s.type == t.type() && s.fill.same(t.fill()) && s.format == t.format();
    }

    // The signature the kernel was compiled for; an input that the kernel reads through a
    // transposed copy has none of its own: then the tensor's own (finiteness is
    // CompiledProgram::finite_inputs' business).
    static TensorSignature signature_of(const siskin::Kernel& kernel, const std::string& name, const Tensor& t) {
        try {
            return kernel.signature(name);
        } catch (const Error&) {
            return TensorSignature::of(t);
        }
    }

    std::shared_ptr<const Compiled> find_or_compile(const std::map<std::string, const Tensor*>& inputs) {
        for (auto it = cache_.begin(); it != cache_.end(); ++it)
            if (fits(**it, inputs)) {
                if (it != cache_.begin()) cache_.splice(cache_.begin(), cache_, it);
                return cache_.front();
            }
        // The planner's plan for these inputs (or the program as written), kept for inputs of the
        // same signatures and shapes whatever their data.
        auto c = std::make_shared<Compiled>(Compiled{{}, {}, compile_planned(program_, inputs, specs_, {}, choice_)});
        for (const auto& name : inputs_) {
            c->signatures.push_back(signature_of(*c->planned.compiled.kernel, name, *inputs.at(name)));
            c->shapes.push_back(inputs.at(name)->shape());
        }
        cache_.push_front(std::move(c));
        if (cache_.size() > kCached) cache_.pop_back();
        return cache_.front();
    }

    static constexpr size_t kCached = 16; // kernels kept per Kernel (input signatures and shapes)
    ir::Program program_;
    std::map<std::string, OutputSpec> specs_;
    PlanChoice choice_;
    std::vector<std::string> inputs_;
    std::map<std::string, std::string> input_formats_;
    std::map<std::string, py::object> input_fills_;
    py::object tensor_class_, convert_;
    py::str native_name_{"_native"};
    py::tuple empty_args_;
    // Most recently used first; shared, so a run (without the GIL) keeps its entry alive.
    std::list<std::shared_ptr<const Compiled>> cache_;
};

// Kernel's tp_call: `kernel(A=..., x=...)` without pybind11's dispatcher, which would build
// its records of the arguments on every call. Errors become Python's as the dispatcher makes
// them (siskin::Error as SiskinError).
PyObject* call_kernel(PyObject* self, PyObject* args, PyObject* kwargs) {
    try {
        if (PyTuple_GET_SIZE(args) != 0)
            throw py::type_error("a Kernel takes its inputs by name: kernel(A=..., x=...)");
        return py::handle(self).cast<ProgramKernels&>().call(kwargs).release().ptr();
    } catch (py::error_already_set& e) {
        e.restore();
    } catch (const Error& e) {
        set_python_error(e);
    } catch (py::builtin_exception& e) {
        e.set_error();
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) { // nothing may leave a C slot
        PyErr_SetString(PyExc_SystemError, "siskin: an unexpected C++ exception in a kernel call");
    }
    return nullptr;
}

// The C of `text` for inputs of the given formats, dtypes and fills (dense float64 fill 0 by
// default; a fill the program declares is used), as `siskin c` prints it.
std::string c_of(const std::string& text, const std::map<std::string, std::string>& formats,
                 const std::map<std::string, py::object>& fills, const std::map<std::string, std::string>& dtypes,
                 const std::vector<std::string>& nonfinite, int index_bits) {
    ir::Program program = ir::parse_program(text);
    const auto arity = arity_of(program);
    const auto outputs = program.outputs();
    TensorOptions out;
    std::map<std::string, TensorSignature> inputs;
    auto known = [&](const std::string& name, const char* option) {
        if (!arity.count(name))
            throw Error(fmt::format("{} names '{}', which the program does not use", option, name));
    };
    for (const auto& [name, f] : formats) known(name, "formats");
    for (const auto& [name, f] : fills) known(name, "fills");
    for (const auto& [name, d] : dtypes) known(name, "dtypes");
    for (const auto& name : nonfinite) known(name, "nonfinite");
    for (const auto& [name, ndims] : arity) {
        if (contains(outputs, name)) {
            if (formats.count(name)) out.formats[name] = formats.at(name);
            if (fills.count(name)) out.fills[name] = fills.at(name);
            if (dtypes.count(name)) out.dtypes[name] = dtypes.at(name);
            continue;
        }
        TensorSignature s;
        s.ndims = ndims;
        s.format = formats.count(name) ? Format::parse(formats.at(name), ndims) : Format::dense(ndims);
        s.type = dtypes.count(name) ? parse_type(dtypes.at(name)) : ValueType::Float64;
        std::optional<Scalar> fill;
        if (fills.count(name)) fill = scalar_from_python(fills.at(name));
        else if (const ir::FillDecl* d = program.declared_fill(name)) fill = d->value;
        s.fill = fill ? fill->cast(s.type) : Scalar::zero(s.type);
        if (fill && !is_float(s.type) && !s.fill.same_value(*fill))
            throw Error(fmt::format("the fill {} of {} is not a value of its type {}", fill->to_string(), name,
                                    type_name(s.type)));
        s.finite = !contains(nonfinite, name);
        inputs.emplace(name, s);
    }
    for (const auto& name : nonfinite)
        if (contains(outputs, name)) throw Error(fmt::format("nonfinite names '{}', an output", name));
    return generate_c(program, infer_signatures(program, inputs, output_specs(program, out), index_bits));
}

} // namespace

void bind_programs(py::module_& m) {
    py::class_<ProgramKernels>(m, "Kernel",
                               py::custom_type_setup([](PyHeapTypeObject* type) { type->ht_type.tp_call = call_kernel; }))
        .def(py::init([](const std::string& text, const std::map<std::string, std::string>& formats,
                         const std::map<std::string, py::object>& fills,
                         const std::map<std::string, std::string>& dtypes,
                         const std::map<std::string, std::vector<int64_t>>& shapes, bool as_written,
                         py::object tensor_class, py::object convert) {
                 return std::make_unique<ProgramKernels>(text, TensorOptions{formats, fills, dtypes, shapes},
                                                         as_written, std::move(tensor_class), std::move(convert));
             }),
             py::arg("text"), py::arg("formats"), py::arg("fills"), py::arg("dtypes"), py::arg("shapes"),
             py::arg("as_written"), py::arg("tensor_class"), py::arg("convert"))
        .def_property_readonly("inputs", &ProgramKernels::input_names)
        .def_property_readonly("input_formats", &ProgramKernels::input_formats)
        .def_property_readonly("input_fills", &ProgramKernels::input_fills)
        .def_property_readonly("outputs", &ProgramKernels::output_names)
        .def_property_readonly("c_source", &ProgramKernels::c_source, "The C of the kernel the last call ran.")
        .def_property_readonly("cache", &ProgramKernels::cache_status)
        .def_property_readonly("plan", &ProgramKernels::plan,
                               "The plan the last call ran, in `siskin explain`'s words ('as written' for "
                               "the program itself).")
        .def_property_readonly("compiled_count", &ProgramKernels::compiled_count)
        .def("time_runs", &ProgramKernels::time_runs, py::arg("inputs"), py::arg("repeat"))
        .def("time_checks", &ProgramKernels::time_checks, py::arg("inputs"), py::arg("repeat"));
    m.def("c", &c_of, py::arg("text"), py::arg("formats"), py::arg("fills"), py::arg("dtypes"),
          py::arg("nonfinite"), py::arg("index_bits"));
    m.def("kernel_counts", [] {
        const codegen::JitCounts jit = codegen::jit_counts();
        py::dict out;
        out["compiled"] = jit.compiled;
        out["loaded_from_disk"] = jit.loaded_from_disk;
        out["runs"] = kernel_runs();
        return out;
    });
}

} // namespace siskin::python
