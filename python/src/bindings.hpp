#pragma once
// The pieces of the extension module _siskin, one file each; the Python half (python/siskin/)
// builds the user-facing API on them.
#include <memory>
#include <optional>
#include <vector>

#include <pybind11/pybind11.h>

#include "siskin/error.hpp"
#include "siskin/tensor.hpp"
#include "siskin/value.hpp"

namespace siskin::python {

namespace py = pybind11;

/// siskin.SiskinError (a ValueError) for every siskin::Error, with its kind and location.
void bind_errors(py::module_& m);
/// Sets the Python error for `e`: a siskin.SiskinError with its message, kind and place (what
/// the exception translator makes of a siskin::Error, for code outside pybind11's dispatch).
void set_python_error(const Error& e);
/// Tensor: storage borrowed from NumPy arrays, its buffers seen as NumPy arrays, conversions,
/// files.
void bind_tensor(py::module_& m);
/// DLPack export of dense tensors (zero copy).
void bind_dlpack(py::module_& m);
/// Programs: compiled kernels cached per input signature, run with the GIL released; the C.
void bind_programs(py::module_& m);
/// User functions over the function-body language.
void bind_functions(py::module_& m);
/// Lazy arrays: expressions over tensors computed as one program (include/siskin/array.hpp).
void bind_arrays(py::module_& m);

/// The modes of a tensor whose levels are all dense over an element leaf, outermost first (its
/// values are then an array of that axis order); nothing for any other format.
std::optional<std::vector<int>> dense_order(const Tensor& t);

/// A Python bool, int or float as a Scalar of its own kind (bool, int64 or uint64, float64);
/// anything else is an Error.
Scalar scalar_from_python(const py::handle& value);
/// A Scalar as a Python bool, int or float.
py::object scalar_to_python(const Scalar& value);

} // namespace siskin::python
