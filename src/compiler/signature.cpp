// TensorSignature: what a kernel is specialised to for one tensor.
#include <cmath>

#include <fmt/format.h>

#include "compiler/finite.hpp"
#include "siskin/compiler.hpp"

namespace siskin {

namespace {

template <class T> bool all_finite(const Buffer& b) {
    const T* v = b.data<T>();
    for (int64_t k = 0; k < b.size(); ++k)
        if (!std::isfinite(v[k])) return false;
    return true;
}

} // namespace

bool finite_values(const Tensor& t) {
    if (t.format().leaf() != Leaf::Element) return true;
    if (t.type() != ValueType::Float32 && t.type() != ValueType::Float64) return true;
    // A tensor used again is scanned once, unless others may write its memory (Buffer).
    const Buffer& values = t.values();
    if (auto known = values.known_finite()) return *known;
    bool finite = t.type() == ValueType::Float32 ? all_finite<float>(values) : all_finite<double>(values);
    values.remember_finite(finite);
    return finite;
}

TensorSignature TensorSignature::of(const Tensor& t, bool check_finite) {
    TensorSignature s;
    s.format = t.format();
    s.type = t.type();
    s.fill = t.fill();
    s.ndims = t.ndims();
    s.finite = check_finite && finite_values(t);
    return s;
}

bool TensorSignature::matches(const TensorSignature& o) const {
    return format == o.format && type == o.type && fill.same(o.fill) && ndims == o.ndims;
}

std::string TensorSignature::to_string() const {
    return fmt::format("{} {} fill {}{}", format.to_string(), type_name(type), fill.to_string(),
                       finite ? " (finite values)" : "");
}

} // namespace siskin
