// Python numbers to and from Scalars (fill values, function identities).
#include <fmt/format.h>

#include "bindings.hpp"
#include "siskin/error.hpp"

namespace siskin::python {

Scalar scalar_from_python(const py::handle& value) {
    if (py::isinstance<py::bool_>(value)) return Scalar::of(value.cast<bool>());
    if (py::isinstance<py::int_>(value)) {
        try {
            return Scalar::of(value.cast<int64_t>());
        } catch (const py::cast_error&) {
            try {
                return Scalar::of(value.cast<uint64_t>());
            } catch (const py::cast_error&) {
                throw Error(fmt::format("{} does not fit a 64-bit integer",
                                        py::repr(value).cast<std::string>()));
            }
        }
    }
    if (py::isinstance<py::float_>(value)) return Scalar::of(value.cast<double>());
    throw Error(fmt::format("expected a number (bool, int or float), got {}",
                            py::repr(value).cast<std::string>()));
}

py::object scalar_to_python(const Scalar& value) {
    ValueType t = value.type();
    if (t == ValueType::Bool) return py::bool_(value.as_bool());
    if (is_unsigned_integer(t)) return py::int_(value.as_uint());
    if (is_signed_integer(t)) return py::int_(value.as_int());
    return py::float_(value.as_double());
}

} // namespace siskin::python
