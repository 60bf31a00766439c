// The extension module behind `import siskin` (python/siskin/__init__.py re-exports it).
#include "bindings.hpp"

PYBIND11_MODULE(_siskin, m) {
    m.doc() = "siskin's C++ compiler and runtime (the siskin package is the documented API)";
    siskin::python::bind_errors(m);
    siskin::python::bind_tensor(m);
    siskin::python::bind_dlpack(m);
    siskin::python::bind_programs(m);
    siskin::python::bind_functions(m);
    siskin::python::bind_arrays(m);
}
