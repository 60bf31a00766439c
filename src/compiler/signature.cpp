// TensorSignature: what a kernel is specialised to for one tensor.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "compiler/finite.hpp"
#include "siskin/compiler.hpp"

namespace siskin {

namespace {

// Whether none of v[0..n) has every exponent bit set (an infinity or a NaN), read as integers:
// adding the lowest exponent bit to the exponent carries into the sign bit exactly then. A block
// is read as vectors of the target's register width (GCC's vector extension; a wider type
// than the registers is spilled to the stack) with no exit inside, so a call on borrowed
// memory, which is scanned every time, pays a pass at about memory speed (a branch per value
// was several times slower).
template <class T, class Bits, int register_bytes>
[[gnu::always_inline]] inline bool vector_scan(const T* v, int64_t n) {
    static_assert(sizeof(T) == sizeof(Bits) && std::numeric_limits<T>::is_iec559);
    using Lanes [[gnu::vector_size(register_bytes)]] = Bits;
    constexpr int mantissa_bits = std::numeric_limits<T>::digits - 1;
    constexpr int exponent_bits = int(sizeof(Bits)) * 8 - 1 - mantissa_bits;
    constexpr Bits lowest_exponent_bit = Bits(1) << mantissa_bits;
    constexpr Bits exponent = ((Bits(1) << exponent_bits) - 1) << mantissa_bits;
    constexpr Bits sign = Bits(1) << (sizeof(Bits) * 8 - 1);
    constexpr int64_t lanes = sizeof(Lanes) / sizeof(Bits);
    constexpr int64_t vectors_per_block = 1024 / register_bytes;
    constexpr int64_t block = lanes * vectors_per_block;
    int64_t k = 0;
    for (; k + block <= n; k += block) {
        Lanes carried{};
        for (int64_t j = 0; j < vectors_per_block; ++j) {
            Lanes u;
            std::memcpy(&u, v + k + j * lanes, sizeof u);
            carried |= (u & exponent) + lowest_exponent_bit;
        }
        Bits any = 0;
        for (int64_t l = 0; l < lanes; ++l) any |= carried[l];
        if (any & sign) return false;
    }
    for (; k < n; ++k)
        if (!std::isfinite(v[k])) return false;
    return true;
}

// The library is built for the baseline x86-64 (SSE2, 16-byte registers); where the CPU has
// AVX2 the same loop runs on 32-byte ones, in half as many instructions.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SISKIN_SCAN_AVX2 1
[[gnu::target("avx2")]] bool vector_scan_avx2(const double* v, int64_t n) {
    return vector_scan<double, uint64_t, 32>(v, n);
}
[[gnu::target("avx2")]] bool vector_scan_avx2(const float* v, int64_t n) {
    return vector_scan<float, uint32_t, 32>(v, n);
}
#endif

template <class T, class Bits> bool scan(const T* v, int64_t n, bool widest) {
#ifdef SISKIN_SCAN_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (widest && avx2) return vector_scan_avx2(v, n);
#else
    (void)widest;
#endif
    return vector_scan<T, Bits, 16>(v, n);
}

} // namespace

bool none_infinite_or_nan(const double* v, int64_t n, bool widest) { return scan<double, uint64_t>(v, n, widest); }
bool none_infinite_or_nan(const float* v, int64_t n, bool widest) { return scan<float, uint32_t>(v, n, widest); }

bool finite_values(const Tensor& t) {
    if (t.format().leaf() != Leaf::Element) return true;
    if (t.type() != ValueType::Float32 && t.type() != ValueType::Float64) return true;
    // A tensor used again is scanned once, unless others may write its memory (Buffer).
    const Buffer& values = t.values();
    if (auto known = values.known_finite()) return *known;
    bool finite = t.type() == ValueType::Float32 ? none_infinite_or_nan(values.data<float>(), values.size())
                                                 : none_infinite_or_nan(values.data<double>(), values.size());
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
