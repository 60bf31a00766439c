#include "codegen/c_literal.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::cast {

namespace {

// Shortest round-trip text of a finite float or double, made a floating constant: "1" -> "1.0".
template <class F> std::string float_text(F x) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    SISKIN_ASSERT(ec == std::errc(), "float formatting failed");
    std::string s(buf, end);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

} // namespace

std::string c_literal(const Scalar& v) {
    switch (v.type()) {
    case ValueType::Bool: return v.as_bool() ? "true" : "false";
    case ValueType::Int8:
    case ValueType::Int16: return fmt::format("{}", v.as_int());
    case ValueType::Int32:
        if (v.as_int() == std::numeric_limits<int32_t>::min()) return "INT32_MIN";
        return fmt::format("{}", v.as_int());
    case ValueType::Int64:
        if (v.as_int() == std::numeric_limits<int64_t>::min()) return "INT64_MIN";
        return fmt::format("{}LL", v.as_int());
    case ValueType::UInt8:
    case ValueType::UInt16: return fmt::format("{}", v.as_uint());
    case ValueType::UInt32: return fmt::format("{}U", v.as_uint());
    case ValueType::UInt64: return fmt::format("{}ULL", v.as_uint());
    case ValueType::Float32: {
        float x = static_cast<float>(v.as_double());
        if (std::isnan(x)) return "NAN";
        if (std::isinf(x)) return x > 0 ? "HUGE_VALF" : "-HUGE_VALF";
        return float_text(x) + "f";
    }
    case ValueType::Float64: {
        double x = v.as_double();
        if (std::isnan(x)) return "(double)NAN";
        if (std::isinf(x)) return x > 0 ? "HUGE_VAL" : "-HUGE_VAL";
        return float_text(x);
    }
    }
    SISKIN_ASSERT(false, "unknown value type");
    return {};
}

} // namespace siskin::cast
