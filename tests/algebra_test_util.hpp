#pragma once
// Shorthands for the algebra tests: typed scalars, evaluating a registered operator by name,
// and checking that an error is thrown with a message containing some text.
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "siskin/value.hpp"

namespace siskin::algebra_test {

inline Scalar b(bool v) { return Scalar::of(v); }
inline Scalar i8(int v) { return Scalar::of(static_cast<int8_t>(v)); }
inline Scalar i16(int v) { return Scalar::of(static_cast<int16_t>(v)); }
inline Scalar i32(int64_t v) { return Scalar::of(static_cast<int32_t>(v)); }
inline Scalar i64(int64_t v) { return Scalar::of(v); }
inline Scalar u8(unsigned v) { return Scalar::of(static_cast<uint8_t>(v)); }
inline Scalar u16(unsigned v) { return Scalar::of(static_cast<uint16_t>(v)); }
inline Scalar u32(uint64_t v) { return Scalar::of(static_cast<uint32_t>(v)); }
inline Scalar u64(uint64_t v) { return Scalar::of(v); }
inline Scalar f32(double v) { return Scalar::of(static_cast<float>(v)); }
inline Scalar f64(double v) { return Scalar::of(v); }

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline Scalar ev(std::string_view op, std::initializer_list<Scalar> args) {
    std::vector<Scalar> v(args);
    return find_operator(op).evaluate(v);
}

inline ValueType rt(std::string_view op, std::initializer_list<ValueType> types) {
    std::vector<ValueType> v(types);
    return find_operator(op).result_type(v);
}

/// Same type and value, NaN == NaN, and for floats the same sign (so -0.0 != 0.0 here).
inline ::testing::AssertionResult Is(const Scalar& got, const Scalar& want) {
    bool ok = got.same(want);
    if (ok && is_float(got.type()) && !got.is_nan())
        ok = std::signbit(got.as_double()) == std::signbit(want.as_double());
    if (ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << type_name(got.type()) << " "
                                         << got.to_string() << ", want "
                                         << type_name(want.type()) << " " << want.to_string();
}

/// Runs f and succeeds when it throws siskin::Error whose message contains `needle`.
template <class F> ::testing::AssertionResult ThrowsWith(F&& f, std::string_view needle) {
    try {
        f();
    } catch (const Error& e) {
        if (std::string(e.what()).find(needle) != std::string::npos)
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "message '" << e.what() << "' lacks '" << needle
                                             << "'";
    }
    return ::testing::AssertionFailure() << "no siskin::Error thrown";
}

} // namespace siskin::algebra_test
