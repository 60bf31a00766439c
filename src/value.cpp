#include "siskin/value.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin {

namespace {

struct TypeInfo {
    ValueType type;
    std::string_view name;
    std::string_view c_name;
    size_t size;
};

constexpr TypeInfo kTypes[] = {
    {ValueType::Bool, "bool", "bool", 1},
    {ValueType::Int8, "int8", "int8_t", 1},
    {ValueType::Int16, "int16", "int16_t", 2},
    {ValueType::Int32, "int32", "int32_t", 4},
    {ValueType::Int64, "int64", "int64_t", 8},
    {ValueType::UInt8, "uint8", "uint8_t", 1},
    {ValueType::UInt16, "uint16", "uint16_t", 2},
    {ValueType::UInt32, "uint32", "uint32_t", 4},
    {ValueType::UInt64, "uint64", "uint64_t", 8},
    {ValueType::Float32, "float32", "float", 4},
    {ValueType::Float64, "float64", "double", 8},
};

const TypeInfo& info(ValueType t) { return kTypes[static_cast<int>(t)]; }

// Bits of an integer type (bool counts as 1).
int bits(ValueType t) { return t == ValueType::Bool ? 1 : static_cast<int>(type_size(t) * 8); }

// Truncates a 64-bit integer to the width of t with C conversion semantics.
int64_t wrap_signed(int64_t v, ValueType t) {
    switch (t) {
    case ValueType::Int8: return static_cast<int8_t>(v);
    case ValueType::Int16: return static_cast<int16_t>(v);
    case ValueType::Int32: return static_cast<int32_t>(v);
    default: return v;
    }
}
uint64_t wrap_unsigned(uint64_t v, ValueType t) {
    switch (t) {
    case ValueType::UInt8: return static_cast<uint8_t>(v);
    case ValueType::UInt16: return static_cast<uint16_t>(v);
    case ValueType::UInt32: return static_cast<uint32_t>(v);
    default: return v;
    }
}

} // namespace

std::string_view type_name(ValueType t) { return info(t).name; }
std::string_view c_type_name(ValueType t) { return info(t).c_name; }
size_t type_size(ValueType t) { return info(t).size; }

ValueType parse_type(std::string_view name) {
    for (const auto& ti : kTypes)
        if (ti.name == name) return ti.type;
    static const std::pair<std::string_view, ValueType> aliases[] = {
        {"f32", ValueType::Float32}, {"f64", ValueType::Float64}, {"float", ValueType::Float32},
        {"double", ValueType::Float64}, {"i8", ValueType::Int8}, {"i16", ValueType::Int16},
        {"i32", ValueType::Int32}, {"i64", ValueType::Int64}, {"u8", ValueType::UInt8},
        {"u16", ValueType::UInt16}, {"u32", ValueType::UInt32}, {"u64", ValueType::UInt64},
        {"int", ValueType::Int64}, {"real", ValueType::Float64}, {"boolean", ValueType::Bool}};
    for (const auto& [alias, t] : aliases)
        if (alias == name) return t;
    throw Error(fmt::format("unknown value type '{}' (expected bool, int8..int64, uint8..uint64, "
                            "float32 or float64)",
                            name));
}

bool is_float(ValueType t) { return t == ValueType::Float32 || t == ValueType::Float64; }
bool is_signed_integer(ValueType t) { return t >= ValueType::Int8 && t <= ValueType::Int64; }
bool is_unsigned_integer(ValueType t) { return t >= ValueType::UInt8 && t <= ValueType::UInt64; }

ValueType promote(ValueType a, ValueType b) {
    if (a == b) return a;
    if (a == ValueType::Bool) return b;
    if (b == ValueType::Bool) return a;
    if (is_float(a) || is_float(b)) {
        // An integer of 16 bits or fewer fits float32 exactly; wider ones need float64 (NumPy).
        ValueType f = is_float(a) && is_float(b) ? ValueType::Float64 : (is_float(a) ? a : b);
        ValueType other = is_float(a) ? b : a;
        if (f == ValueType::Float32 && !is_float(other) && bits(other) > 16)
            return ValueType::Float64;
        return is_float(a) && is_float(b) ? ValueType::Float64 : f;
    }
    bool sa = is_signed_integer(a), sb = is_signed_integer(b);
    if (sa == sb) return bits(a) >= bits(b) ? a : b;
    ValueType s = sa ? a : b, u = sa ? b : a;
    if (bits(s) > bits(u)) return s;
    switch (bits(u)) {
    case 8: return ValueType::Int16;
    case 16: return ValueType::Int32;
    case 32: return ValueType::Int64;
    default: return ValueType::Float64; // int64 with uint64: NumPy's choice
    }
}

Scalar Scalar::of(bool v) { Scalar s(ValueType::Bool, 0); s.i_ = v; return s; }
Scalar Scalar::of(int8_t v) { Scalar s(ValueType::Int8, 0); s.i_ = v; return s; }
Scalar Scalar::of(int16_t v) { Scalar s(ValueType::Int16, 0); s.i_ = v; return s; }
Scalar Scalar::of(int32_t v) { Scalar s(ValueType::Int32, 0); s.i_ = v; return s; }
Scalar Scalar::of(int64_t v) { Scalar s(ValueType::Int64, 0); s.i_ = v; return s; }
Scalar Scalar::of(uint8_t v) { Scalar s(ValueType::UInt8, 0); s.u_ = v; return s; }
Scalar Scalar::of(uint16_t v) { Scalar s(ValueType::UInt16, 0); s.u_ = v; return s; }
Scalar Scalar::of(uint32_t v) { Scalar s(ValueType::UInt32, 0); s.u_ = v; return s; }
Scalar Scalar::of(uint64_t v) { Scalar s(ValueType::UInt64, 0); s.u_ = v; return s; }
Scalar Scalar::of(float v) { return Scalar(ValueType::Float32, static_cast<double>(v)); }
Scalar Scalar::of(double v) { return Scalar(ValueType::Float64, v); }

Scalar Scalar::zero(ValueType t) { return Scalar::of(int64_t{0}).cast(t); }

Scalar Scalar::cast(ValueType t) const {
    Scalar r(t, 0.0);
    if (is_float(t)) {
        double d = as_double();
        r.f_ = t == ValueType::Float32 ? static_cast<double>(static_cast<float>(d)) : d;
    } else if (t == ValueType::Bool) {
        r.i_ = as_bool() ? 1 : 0;
    } else if (is_signed_integer(t)) {
        r.i_ = wrap_signed(as_int(), t);
    } else {
        r.u_ = wrap_unsigned(as_uint(), t);
    }
    return r;
}

bool Scalar::as_bool() const {
    if (is_float(type_)) return f_ != 0.0; // NaN is true, as in C
    return is_unsigned_integer(type_) ? u_ != 0 : i_ != 0;
}

int64_t Scalar::as_int() const {
    if (is_float(type_)) {
        // C leaves out-of-range conversions undefined; saturate so the result is at least stable.
        if (std::isnan(f_)) return 0;
        if (f_ >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
        if (f_ <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
        return static_cast<int64_t>(f_);
    }
    return is_unsigned_integer(type_) ? static_cast<int64_t>(u_) : i_;
}

uint64_t Scalar::as_uint() const {
    if (is_float(type_)) {
        if (std::isnan(f_) || f_ <= -1.0) return static_cast<uint64_t>(as_int());
        if (f_ >= 1.8446744073709552e19) return std::numeric_limits<uint64_t>::max();
        return static_cast<uint64_t>(f_);
    }
    return is_unsigned_integer(type_) ? u_ : static_cast<uint64_t>(i_);
}

double Scalar::as_double() const {
    if (is_float(type_)) return f_;
    return is_unsigned_integer(type_) ? static_cast<double>(u_) : static_cast<double>(i_);
}

Scalar Scalar::load(ValueType t, const void* p) {
    switch (t) {
    case ValueType::Bool: { bool v; std::memcpy(&v, p, 1); return of(v); }
    case ValueType::Int8: { int8_t v; std::memcpy(&v, p, 1); return of(v); }
    case ValueType::Int16: { int16_t v; std::memcpy(&v, p, 2); return of(v); }
    case ValueType::Int32: { int32_t v; std::memcpy(&v, p, 4); return of(v); }
    case ValueType::Int64: { int64_t v; std::memcpy(&v, p, 8); return of(v); }
    case ValueType::UInt8: { uint8_t v; std::memcpy(&v, p, 1); return of(v); }
    case ValueType::UInt16: { uint16_t v; std::memcpy(&v, p, 2); return of(v); }
    case ValueType::UInt32: { uint32_t v; std::memcpy(&v, p, 4); return of(v); }
    case ValueType::UInt64: { uint64_t v; std::memcpy(&v, p, 8); return of(v); }
    case ValueType::Float32: { float v; std::memcpy(&v, p, 4); return of(v); }
    case ValueType::Float64: { double v; std::memcpy(&v, p, 8); return of(v); }
    }
    SISKIN_ASSERT(false, "unknown value type");
}

void Scalar::store(void* p) const {
    switch (type_) {
    case ValueType::Bool: { bool v = i_ != 0; std::memcpy(p, &v, 1); return; }
    case ValueType::Int8: { int8_t v = static_cast<int8_t>(i_); std::memcpy(p, &v, 1); return; }
    case ValueType::Int16: { int16_t v = static_cast<int16_t>(i_); std::memcpy(p, &v, 2); return; }
    case ValueType::Int32: { int32_t v = static_cast<int32_t>(i_); std::memcpy(p, &v, 4); return; }
    case ValueType::Int64: std::memcpy(p, &i_, 8); return;
    case ValueType::UInt8: { uint8_t v = static_cast<uint8_t>(u_); std::memcpy(p, &v, 1); return; }
    case ValueType::UInt16: { uint16_t v = static_cast<uint16_t>(u_); std::memcpy(p, &v, 2); return; }
    case ValueType::UInt32: { uint32_t v = static_cast<uint32_t>(u_); std::memcpy(p, &v, 4); return; }
    case ValueType::UInt64: std::memcpy(p, &u_, 8); return;
    case ValueType::Float32: { float v = static_cast<float>(f_); std::memcpy(p, &v, 4); return; }
    case ValueType::Float64: std::memcpy(p, &f_, 8); return;
    }
}

bool Scalar::is_nan() const { return is_float(type_) && std::isnan(f_); }

bool Scalar::same(const Scalar& o) const { return type_ == o.type_ && same_value(o); }

bool Scalar::same_value(const Scalar& o) const {
    ValueType t = promote(type_, o.type_);
    Scalar a = cast(t), b = o.cast(t);
    if (is_float(t)) return (a.is_nan() && b.is_nan()) || a.f_ == b.f_;
    return is_unsigned_integer(t) ? a.u_ == b.u_ : a.i_ == b.i_;
}

Scalar Scalar::parse(std::string_view text, ValueType t) {
    auto fail = [&](std::string_view why) -> Scalar {
        throw Error(fmt::format("'{}' is not a {} value{}", text, type_name(t), why));
    };
    if (text.empty()) return fail("");
    std::string_view body = text;
    if (body.front() == '+') body.remove_prefix(1);
    if (t == ValueType::Bool) {
        if (body == "true") return of(true);
        if (body == "false") return of(false);
        if (body == "1") return of(true);
        if (body == "0") return of(false);
        return fail(" (expected true, false, 1 or 0)");
    }
    if (is_float(t)) {
        std::string_view b = body;
        bool neg = !b.empty() && b.front() == '-';
        if (neg) b.remove_prefix(1);
        std::string lower(b);
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        double v;
        if (lower == "inf" || lower == "infinity") {
            v = std::numeric_limits<double>::infinity();
        } else if (lower == "nan") {
            v = std::numeric_limits<double>::quiet_NaN();
        } else {
            auto [ptr, ec] = std::from_chars(b.data(), b.data() + b.size(), v);
            if (ec == std::errc::result_out_of_range) {
                // from_chars reports overflow and underflow alike; strtod tells them apart.
                v = std::strtod(std::string(b).c_str(), nullptr);
            } else if (ec != std::errc() || ptr != b.data() + b.size()) {
                return fail("");
            }
        }
        return Scalar(ValueType::Float64, neg ? -v : v).cast(t);
    }
    // Integers: decimal only; anything that does not fit the type is an error, not a wrap.
    if (is_signed_integer(t)) {
        int64_t v;
        auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
        if (ec == std::errc::result_out_of_range) return fail(" (out of range)");
        if (ec != std::errc() || ptr != body.data() + body.size()) return fail("");
        Scalar s = of(v).cast(t);
        if (s.i_ != v) return fail(" (out of range)");
        return s;
    }
    if (!body.empty() && body.front() == '-') {
        if (body.find_first_not_of("-0") == std::string_view::npos && body.size() > 1)
            return of(uint64_t{0}).cast(t);
        return fail(" (negative)");
    }
    uint64_t v;
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    if (ec == std::errc::result_out_of_range) return fail(" (out of range)");
    if (ec != std::errc() || ptr != body.data() + body.size()) return fail("");
    Scalar s = of(v).cast(t);
    if (s.u_ != v) return fail(" (out of range)");
    return s;
}

std::string Scalar::to_string() const {
    if (type_ == ValueType::Bool) return i_ ? "true" : "false";
    if (is_signed_integer(type_)) return fmt::format("{}", i_);
    if (is_unsigned_integer(type_)) return fmt::format("{}", u_);
    if (std::isnan(f_)) return "nan";
    if (std::isinf(f_)) return f_ > 0 ? "inf" : "-inf";
    // Shortest text that reads back to the same value.
    if (type_ == ValueType::Float32) return fmt::format("{}", static_cast<float>(f_));
    return fmt::format("{}", f_);
}

} // namespace siskin
