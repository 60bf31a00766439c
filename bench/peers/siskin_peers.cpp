// siskin_peers: runs bench/peers/driver.py in an embedded Python (the system /usr/bin/python3's
// libpython, so Debian's numpy, scipy, sparse and matplotlib import), with siskin and GraphBLAS
// available to it as the built-in module `siskin_native`. Arguments go to the driver as sys.argv.
#include <string>
#include <vector>

#include <pybind11/embed.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_siskin(py::module_& m);
void bind_graphblas(py::module_& m);

PYBIND11_EMBEDDED_MODULE(siskin_native, m) {
    bind_siskin(m);
    bind_graphblas(m);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: siskin_peers DRIVER.py [driver arguments...]\n");
        return 2;
    }
    py::scoped_interpreter python;
    try {
        std::vector<std::string> args(argv + 1, argv + argc);
        py::module_ sys = py::module_::import("sys");
        sys.attr("argv") = args;
        py::module_ runpy = py::module_::import("runpy");
        runpy.attr("run_path")(args[0], py::arg("run_name") = "__main__");
    } catch (py::error_already_set& e) {
        if (e.matches(PyExc_SystemExit)) {
            py::object code = e.value().attr("code");
            if (code.is_none()) return 0;
            if (py::isinstance<py::int_>(code)) return code.cast<int>();
            fprintf(stderr, "%s\n", py::str(code).cast<std::string>().c_str());
            return 1;
        }
        fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
