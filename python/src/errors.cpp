// siskin::Error becomes siskin.SiskinError, a ValueError (bad input is what it mostly reports),
// carrying the message, the kind ("user", "unsupported", "internal") and, when the error has
// one, the location in the program text or file.
#include <string>

#include "bindings.hpp"
#include "siskin/error.hpp"

namespace siskin::python {

namespace {

const char* kind_name(Error::Kind kind) {
    switch (kind) {
    case Error::Kind::User: return "user";
    case Error::Kind::Unsupported: return "unsupported";
    case Error::Kind::Internal: return "internal";
    }
    return "user";
}

// siskin.SiskinError, made by bind_errors (the module holds it for the life of the process).
PyObject* error_type = nullptr;

} // namespace

void bind_errors(py::module_& m) {
    static py::exception<Error> error(m, "SiskinError", PyExc_ValueError);
    error_type = error.ptr();
    error.doc() = "Every error siskin reports: its message says what and where. `kind` is "
                  "'user', 'unsupported' (valid, but not done yet) or 'internal'; `file`, `line` "
                  "and `column` locate it when it has a place (else None).";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
            set_python_error(e);
        }
    });
}

void set_python_error(const Error& e) {
    py::gil_scoped_acquire gil;
    // Messages quote bytes from files escaped, but decode leniently all the same.
    std::string text = e.what();
    py::object message = py::reinterpret_steal<py::object>(
        PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
    py::object instance = py::handle(error_type)(message);
    instance.attr("kind") = kind_name(e.kind());
    const auto& where = e.where();
    instance.attr("file") = where ? py::object(py::str(where->file)) : py::none();
    instance.attr("line") = where && where->line ? py::object(py::int_(where->line)) : py::none();
    instance.attr("column") = where && where->column ? py::object(py::int_(where->column)) : py::none();
    PyErr_SetObject(error_type, instance.ptr());
}

} // namespace siskin::python
