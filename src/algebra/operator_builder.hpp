#pragma once
// Shared machinery for defining the builtin operators: a typing rule (argument types -> result
// and operand types, or a clear refusal) plus a kernel over C++ types, turned into an Operator
// whose result_type, operand_types and evaluate agree by construction.
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "siskin/value.hpp"

namespace siskin::algebra {

/// What an operator computes for given argument types: the result type and the type each
/// argument is converted to first.
struct Signature {
    ValueType result;
    std::array<ValueType, 3> operands;
};

using Typing = std::function<Signature(std::span<const ValueType>)>;
/// Computes the result from arguments already converted to the signature's operand types.
using Body = std::function<Scalar(const Signature&, std::span<const Scalar>)>;

/// Throws "operator 'op' does not take float64 and int32 arguments; it takes <takes>".
[[noreturn]] void refuse(std::string_view op, std::span<const ValueType> types,
                         std::string_view takes);
/// Throws unless `got` arguments is what an operator of that arity takes.
void check_arity(std::string_view op, int arity, size_t got);
/// promote() folded over all the types.
ValueType promote_all(std::span<const ValueType> types);
/// Every operand and the result of type t.
Signature uniform(ValueType t);

/// An operator with the given typing and body; properties are filled in by the caller.
Operator make_operator(std::string name, int arity, Typing typing, Body body,
                       std::string c_template);

// ---- Calling a kernel with the C++ type of a ValueType ----

enum Family : unsigned { kBool = 1, kSigned = 2, kUnsigned = 4, kFloat = 8 };
constexpr unsigned kInts = kSigned | kUnsigned;
constexpr unsigned kAll = kBool | kInts | kFloat;

template <class T> ValueType type_of() {
    if constexpr (std::is_same_v<T, bool>) return ValueType::Bool;
    else if constexpr (std::is_same_v<T, int8_t>) return ValueType::Int8;
    else if constexpr (std::is_same_v<T, int16_t>) return ValueType::Int16;
    else if constexpr (std::is_same_v<T, int32_t>) return ValueType::Int32;
    else if constexpr (std::is_same_v<T, int64_t>) return ValueType::Int64;
    else if constexpr (std::is_same_v<T, uint8_t>) return ValueType::UInt8;
    else if constexpr (std::is_same_v<T, uint16_t>) return ValueType::UInt16;
    else if constexpr (std::is_same_v<T, uint32_t>) return ValueType::UInt32;
    else if constexpr (std::is_same_v<T, uint64_t>) return ValueType::UInt64;
    else if constexpr (std::is_same_v<T, float>) return ValueType::Float32;
    else return ValueType::Float64;
}

/// The value of s (already of T's ValueType) as a T.
template <class T> T native(const Scalar& s) {
    if constexpr (std::is_same_v<T, bool>) return s.as_bool();
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(s.as_double());
    else if constexpr (std::is_signed_v<T>) return static_cast<T>(s.as_int());
    else return static_cast<T>(s.as_uint());
}

[[noreturn]] void unexpected_type(ValueType t);

/// Calls f(T{}) for the C++ type T of t, instantiating f only for the families in Families
/// (a typing rule has already refused the others).
template <unsigned Families, class F> Scalar dispatch(ValueType t, F&& f) {
    switch (t) {
    case ValueType::Bool: if constexpr (Families & kBool) return f(bool{}); break;
    case ValueType::Int8: if constexpr (Families & kSigned) return f(int8_t{}); break;
    case ValueType::Int16: if constexpr (Families & kSigned) return f(int16_t{}); break;
    case ValueType::Int32: if constexpr (Families & kSigned) return f(int32_t{}); break;
    case ValueType::Int64: if constexpr (Families & kSigned) return f(int64_t{}); break;
    case ValueType::UInt8: if constexpr (Families & kUnsigned) return f(uint8_t{}); break;
    case ValueType::UInt16: if constexpr (Families & kUnsigned) return f(uint16_t{}); break;
    case ValueType::UInt32: if constexpr (Families & kUnsigned) return f(uint32_t{}); break;
    case ValueType::UInt64: if constexpr (Families & kUnsigned) return f(uint64_t{}); break;
    case ValueType::Float32: if constexpr (Families & kFloat) return f(float{}); break;
    case ValueType::Float64: if constexpr (Families & kFloat) return f(double{}); break;
    }
    unexpected_type(t);
}

/// Body of a unary operator: k(T) on the operand type.
template <unsigned Families, class K> Body unary_body(K k) {
    return [k](const Signature& sig, std::span<const Scalar> a) {
        return dispatch<Families>(sig.operands[0], [&](auto tag) {
            using T = decltype(tag);
            return Scalar::of(k(native<T>(a[0])));
        });
    };
}

/// Body of a binary operator whose operands share one type: k(T, T).
template <unsigned Families, class K> Body binary_body(K k) {
    return [k](const Signature& sig, std::span<const Scalar> a) {
        return dispatch<Families>(sig.operands[0], [&](auto tag) {
            using T = decltype(tag);
            return Scalar::of(k(native<T>(a[0]), native<T>(a[1])));
        });
    };
}

// ---- Property helpers ----

/// All bits set: -1, the unsigned maximum, true. Integers and bool only.
Scalar all_ones(ValueType t);
/// The largest / smallest value of t: +inf / -inf for floats, true / false for bool.
Scalar greatest(ValueType t);
Scalar least(ValueType t);
/// t converted from a small integer (1 -> true for bool).
Scalar small(int64_t v, ValueType t);

} // namespace siskin::algebra
