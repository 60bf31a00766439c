#pragma once
// Value types and the Scalar: one value of any siskin value type, used for fill values, literals,
// and by the reference evaluator. Kernels never touch Scalars; they use the C types directly.
#include <cstdint>
#include <string>
#include <string_view>

namespace siskin {

enum class ValueType : uint8_t {
    Bool,
    Int8, Int16, Int32, Int64,
    UInt8, UInt16, UInt32, UInt64,
    Float32, Float64,
};

/// "bool", "int8", ..., "float64": the spelling used in program text, files and the CLI.
std::string_view type_name(ValueType t);
/// Parses a type_name spelling (also "f32"/"f64"/"i32"/"i64"/"u8".. and "float"/"double");
/// throws Error for anything else.
ValueType parse_type(std::string_view name);
/// The C spelling of the type in generated code: "bool", "int32_t", "double", ...
std::string_view c_type_name(ValueType t);
size_t type_size(ValueType t);
bool is_float(ValueType t);
bool is_signed_integer(ValueType t);
bool is_unsigned_integer(ValueType t);
inline bool is_integer(ValueType t) { return is_signed_integer(t) || is_unsigned_integer(t); }

/// NumPy's promotion of two types (bool < ints < floats; int64 with uint64 gives float64).
ValueType promote(ValueType a, ValueType b);

/// One value of a ValueType. Signed integers and bool are held in an int64, unsigned in a
/// uint64, floats in a double (float32 values are rounded to float when made).
class Scalar {
public:
    Scalar() : Scalar(ValueType::Float64, 0.0) {}

    static Scalar of(bool v);
    static Scalar of(int8_t v);
    static Scalar of(int16_t v);
    static Scalar of(int32_t v);
    static Scalar of(int64_t v);
    static Scalar of(uint8_t v);
    static Scalar of(uint16_t v);
    static Scalar of(uint32_t v);
    static Scalar of(uint64_t v);
    static Scalar of(float v);
    static Scalar of(double v);
    /// The zero of a type (false for bool).
    static Scalar zero(ValueType t);

    /// Parses text as a value of type t: integers, floats, "inf", "-inf", "nan", "true"/"false".
    /// Throws Error when the text is not a value of that type or is out of its range.
    static Scalar parse(std::string_view text, ValueType t);

    ValueType type() const { return type_; }

    /// Converts with C semantics (float to int truncates; out-of-range integers wrap, as a C
    /// cast does on every compiler siskin supports).
    Scalar cast(ValueType t) const;

    bool as_bool() const;
    int64_t as_int() const;
    uint64_t as_uint() const;
    double as_double() const;

    /// Reads/writes a value of this scalar's type at raw memory of type_size(type()).
    static Scalar load(ValueType t, const void* p);
    void store(void* p) const;

    bool is_nan() const;
    /// Same type and same value, with NaN equal to NaN: the equality used for fill values and
    /// for comparing tensors. +0.0 and -0.0 count as the same value.
    bool same(const Scalar& o) const;
    /// Same value after promotion to a common type, NaN equal to NaN.
    bool same_value(const Scalar& o) const;

    /// Text that parse() reads back to the same value: "3", "-2.5", "inf", "nan", "true".
    std::string to_string() const;

private:
    Scalar(ValueType t, double v) : type_(t), f_(v) {}
    ValueType type_;
    union {
        int64_t i_;
        uint64_t u_;
        double f_;
    };
};

} // namespace siskin
