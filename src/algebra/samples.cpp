#include "algebra/samples.hpp"

#include <cmath>
#include <limits>

#include "algebra/operator_builder.hpp"

namespace siskin::algebra {

std::vector<ValueType> all_value_types() {
    std::vector<ValueType> out;
    for (int k = 0; k <= static_cast<int>(ValueType::Float64); ++k)
        out.push_back(static_cast<ValueType>(k));
    return out;
}

std::vector<Scalar> sample_values(ValueType t, Samples which) {
    std::vector<Scalar> out;
    auto add = [&](Scalar s) {
        for (const Scalar& o : out)
            if (o.same(s) && std::signbit(o.as_double()) == std::signbit(s.as_double())) return;
        out.push_back(s);
    };
    if (t == ValueType::Bool) return {Scalar::of(false), Scalar::of(true)};
    if (is_float(t)) {
        const double inf = std::numeric_limits<double>::infinity();
        for (double v : {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -3.25, 7.0, 100.0})
            add(Scalar::of(v).cast(t));
        if (which != Samples::Finite) {
            add(Scalar::of(inf).cast(t));
            add(Scalar::of(-inf).cast(t));
            add(Scalar::of(std::numeric_limits<double>::quiet_NaN()).cast(t));
        }
        if (which != Samples::Exact) {
            bool f32 = t == ValueType::Float32;
            double big = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
            double tiny = f32 ? std::numeric_limits<float>::denorm_min()
                              : std::numeric_limits<double>::denorm_min();
            for (double v : {1e30, -1e30, big, -big, tiny}) add(Scalar::of(v).cast(t));
        }
        return out;
    }
    // Integers: small values, shift counts around the widths, and the extremes. Values that do
    // not fit the type are left out.
    for (int64_t v : {0, 1, -1, 2, -3, 5, 7, 8, 15, 16, 31, 32, 63, 64, 100}) {
        Scalar s = Scalar::of(v).cast(t);
        if (s.same_value(Scalar::of(v))) add(s);
    }
    Scalar lo = least(t), hi = greatest(t);
    add(lo);
    add(hi);
    add(Scalar::of(static_cast<int64_t>(lo.as_uint() + 1)).cast(t));
    add(Scalar::of(static_cast<int64_t>(hi.as_uint() - 1)).cast(t));
    return out;
}

} // namespace siskin::algebra
