#pragma once
// The C++ twins of the helpers in runtime/siskin_ops.h: one template per operation, for the C++
// type T of the operands. evaluate() uses these and generated kernels use the C helpers; the
// algebra C-agreement test compiles the C side and checks both give identical results.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace siskin::kernels {

template <class T> constexpr bool is_bool = std::is_same_v<T, bool>;
template <class T> constexpr bool is_signed_int = std::is_integral_v<T> && std::is_signed_v<T>;
template <class T> constexpr bool is_unsigned_int =
    std::is_integral_v<T> && std::is_unsigned_v<T> && !is_bool<T>;

// Unsigned type at least as wide as T that is never promoted to int: wrapping arithmetic in it
// cannot overflow a signed type.
template <class T> using Wide = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;

template <class T> T add(T a, T b) {
    if constexpr (is_bool<T>) return a || b;
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(Wide<T>(a) + Wide<T>(b));
    else return a + b;
}
template <class T> T sub(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wide<T>(a) - Wide<T>(b));
    else return a - b;
}
template <class T> T mul(T a, T b) {
    if constexpr (is_bool<T>) return a && b;
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(Wide<T>(a) * Wide<T>(b));
    else return a * b;
}
template <class T> T neg(T a) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wide<T>(0) - Wide<T>(a));
    else return -a;
}
template <class T> T abs(T a) {
    if constexpr (is_signed_int<T>) return a < 0 ? neg(a) : a;
    else if constexpr (std::is_integral_v<T>) return a;
    else return std::fabs(a);
}

// -1, 0 or 1 (NaN stays NaN; -0.0 gives 0.0), as NumPy's sign.
template <class T> T sign(T a) {
    if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(a)) return a;
    return static_cast<T>((a > T(0)) - (a < T(0)));
}
// log(exp(a) + exp(b)) without overflow, as NumPy's logaddexp.
template <class T> T logaddexp(T a, T b) {
    if (a == b) return a + static_cast<T>(0.693147180559945309417232121458176568L); // log 2
    T d = a - b;
    if (d > 0) return a + std::log1p(std::exp(-d));
    if (d <= 0) return b + std::log1p(std::exp(d));
    return d; // NaN
}

// NumPy's divmod for floats: fmod, then move the remainder to the divisor's sign and snap the
// quotient to the nearest integer.
template <class T> T floordiv(T a, T b) {
    if constexpr (is_signed_int<T>) {
        if (b == 0) return 0;
        if (b == -1) return neg(a); // MIN / -1 would trap
        T q = static_cast<T>(a / b);
        if (a % b != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
        return q;
    } else if constexpr (std::is_integral_v<T>) {
        return b == 0 ? T(0) : static_cast<T>(a / b);
    } else {
        if (b == 0) return a / b;
        T mod = std::fmod(a, b);
        T div = (a - mod) / b;
        if (mod != 0 && std::isless(b, T(0)) != std::isless(mod, T(0))) div -= T(1);
        if (div == 0) return std::copysign(T(0), a / b);
        T fl = std::floor(div);
        if (std::isgreater(div - fl, T(0.5))) fl += T(1);
        return fl;
    }
}
template <class T> T mod(T a, T b) {
    if constexpr (is_signed_int<T>) {
        if (b == 0 || b == -1) return 0; // MIN % -1 would trap
        T r = static_cast<T>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        return r;
    } else if constexpr (std::is_integral_v<T>) {
        return b == 0 ? T(0) : static_cast<T>(a % b);
    } else {
        T m = std::fmod(a, b);
        if (b == 0) return m;
        if (m != 0) return std::isless(b, T(0)) != std::isless(m, T(0)) ? m + b : m;
        return std::copysign(T(0), b);
    }
}

// Integers: repeated squaring with wrap-around; a negative exponent gives trunc(1 / a^-b).
template <class T> T pow(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        if constexpr (is_signed_int<T>) {
            if (b < 0) return a == 1 ? T(1) : a == -1 ? T(b % 2 != 0 ? -1 : 1) : T(0);
        }
        Wide<T> base = static_cast<Wide<T>>(a), r = 1;
        for (Wide<T> e = static_cast<Wide<T>>(b); e != 0; e >>= 1) {
            if (e & 1u) r *= base;
            base *= base;
        }
        return static_cast<T>(r);
    } else {
        return std::pow(a, b);
    }
}

// A count outside 0..width-1 (negative counts convert to huge ones, as in NumPy) gives 0, or -1
// for shr of a negative value.
template <class T> T shl(T a, T b) {
    static_assert(std::is_integral_v<T> && !is_bool<T>);
    if (static_cast<uint64_t>(static_cast<int64_t>(b)) >= sizeof(T) * 8) return 0;
    return static_cast<T>(Wide<T>(a) << b);
}
template <class T> T shr(T a, T b) {
    static_assert(std::is_integral_v<T> && !is_bool<T>);
    bool negative = false;
    if constexpr (is_signed_int<T>) negative = a < 0;
    if (static_cast<uint64_t>(static_cast<int64_t>(b)) >= sizeof(T) * 8)
        return negative ? static_cast<T>(-1) : T(0);
    return static_cast<T>(a >> b); // arithmetic for negative values (C++20)
}

// NumPy minimum/maximum: NaN propagates; -0.0 orders before +0.0.
template <class T> T min(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a)) return a;
        if (std::isnan(b)) return b;
        if (a == b) return std::signbit(a) ? a : b;
    }
    return a < b ? a : b;
}
template <class T> T max(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a)) return a;
        if (std::isnan(b)) return b;
        if (a == b) return std::signbit(a) ? b : a;
    }
    return a < b ? b : a;
}

// NumPy fmin/fmax: a NaN argument is ignored (NaN only when both are NaN); otherwise min/max.
template <class T> T fmin(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a)) return b;
        if (std::isnan(b)) return a;
    }
    return min(a, b);
}
template <class T> T fmax(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a)) return b;
        if (std::isnan(b)) return a;
    }
    return max(a, b);
}

template <class T> T bitwise_not(T a) {
    if constexpr (is_bool<T>) return !a;
    else return static_cast<T>(~a);
}

// Exponents beyond +-4000 give the same result as +-4000 (0 or inf) for float and double.
template <class T> T ldexp(T a, int64_t n) {
    return std::ldexp(a, static_cast<int>(n > 4000 ? 4000 : n < -4000 ? -4000 : n));
}

} // namespace siskin::kernels
