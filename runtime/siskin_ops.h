/* siskin_ops.h: the scalar helpers that operator templates (Operator::c_template) expand to in
 * generated kernels. Plain C11, self-contained (stdint, stdbool, math only), all static inline.
 *
 * Names are siskin_<op>_<t> with <t> one of b i8 i16 i32 i64 u8 u16 u32 u64 f32 f64, the type
 * of the arguments and (except comparisons) of the result. Each helper has exactly the semantics
 * of the operator's C++ evaluate() in src/algebra/ (NumPy semantics, see operators.hpp):
 *   - integer add/sub/mul/neg/abs/pow wrap around (computed in unsigned arithmetic, never UB);
 *   - integer floordiv/mod round toward -inf, x // 0 == x % 0 == 0, MIN // -1 == MIN (no trap);
 *   - shifts by a count outside 0..width-1 (negative counts included) give 0, or -1 for shr of
 *     a negative value;
 *   - min/max propagate NaN and order -0.0 before +0.0; fmin/fmax ignore a NaN argument;
 *   - float floordiv/mod follow NumPy's divmod.
 * Converting an out-of-range value to a signed integer type wraps (true of every compiler
 * siskin supports; C only calls it implementation-defined).
 */
#ifndef SISKIN_OPS_H
#define SISKIN_OPS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define SISKIN_OPS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SISKIN_OPS_UNLIKELY(x) (x)
#endif

/* ---- Wrapping arithmetic. W is an unsigned type at least as wide as T and never promoted to
 * int, so products and sums cannot overflow a signed type. ---- */
#define SISKIN_OPS_WRAPPING(S, T, W)                                                            \
    static inline T siskin_add_##S(T a, T b) { return (T)((W)a + (W)b); }                      \
    static inline T siskin_sub_##S(T a, T b) { return (T)((W)a - (W)b); }                      \
    static inline T siskin_mul_##S(T a, T b) { return (T)((W)a * (W)b); }                      \
    static inline T siskin_neg_##S(T a) { return (T)((W)0 - (W)a); }

SISKIN_OPS_WRAPPING(i8, int8_t, uint32_t)
SISKIN_OPS_WRAPPING(i16, int16_t, uint32_t)
SISKIN_OPS_WRAPPING(i32, int32_t, uint32_t)
SISKIN_OPS_WRAPPING(i64, int64_t, uint64_t)
SISKIN_OPS_WRAPPING(u8, uint8_t, uint32_t)
SISKIN_OPS_WRAPPING(u16, uint16_t, uint32_t)
SISKIN_OPS_WRAPPING(u32, uint32_t, uint32_t)
SISKIN_OPS_WRAPPING(u64, uint64_t, uint64_t)

/* ---- Signed integers: abs, floordiv, mod, pow, shifts, min, max. ---- */
#define SISKIN_OPS_SIGNED(S, T, W, BITS)                                                        \
    static inline T siskin_abs_##S(T a) { return a < 0 ? (T)((W)0 - (W)a) : a; }               \
    static inline T siskin_floordiv_##S(T a, T b) {                                            \
        if (b == 0) return 0;                                                                  \
        if (b == -1) return (T)((W)0 - (W)a); /* MIN / -1 would trap */                        \
        T q = (T)(a / b);                                                                      \
        if (a % b != 0 && ((a < 0) != (b < 0))) q = (T)(q - 1);                                \
        return q;                                                                              \
    }                                                                                          \
    static inline T siskin_mod_##S(T a, T b) {                                                 \
        if (b == 0 || b == -1) return 0; /* MIN % -1 would trap */                             \
        T r = (T)(a % b);                                                                      \
        if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);                                    \
        return r;                                                                              \
    }                                                                                          \
    static inline T siskin_pow_##S(T a, T b) {                                                 \
        if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 != 0 ? -1 : 1) : 0;                   \
        W base = (W)a, r = 1;                                                                  \
        for (W e = (W)b; e != 0; e >>= 1) {                                                    \
            if (e & 1u) r *= base;                                                             \
            base *= base;                                                                      \
        }                                                                                      \
        return (T)r;                                                                           \
    }                                                                                          \
    static inline T siskin_shl_##S(T a, T b) {                                                 \
        if ((uint64_t)(int64_t)b >= BITS) return 0;                                            \
        return (T)((W)a << b);                                                                 \
    }                                                                                          \
    static inline T siskin_shr_##S(T a, T b) {                                                 \
        if ((uint64_t)(int64_t)b >= BITS) return a < 0 ? -1 : 0;                               \
        return a < 0 ? (T) ~(~a >> b) : (T)(a >> b); /* no shift of a negative value */        \
    }                                                                                          \
    static inline T siskin_min_##S(T a, T b) { return a < b ? a : b; }                         \
    static inline T siskin_max_##S(T a, T b) { return a < b ? b : a; }                         \
    static inline T siskin_fmin_##S(T a, T b) { return a < b ? a : b; }                        \
    static inline T siskin_fmax_##S(T a, T b) { return a < b ? b : a; }                        \
    static inline T siskin_bitwise_not_##S(T a) { return (T)~a; }                              \
    static inline T siskin_sign_##S(T a) { return (T)((a > 0) - (a < 0)); }

SISKIN_OPS_SIGNED(i8, int8_t, uint32_t, 8u)
SISKIN_OPS_SIGNED(i16, int16_t, uint32_t, 16u)
SISKIN_OPS_SIGNED(i32, int32_t, uint32_t, 32u)
SISKIN_OPS_SIGNED(i64, int64_t, uint64_t, 64u)

/* ---- Unsigned integers. ---- */
#define SISKIN_OPS_UNSIGNED(S, T, W, BITS)                                                      \
    static inline T siskin_abs_##S(T a) { return a; }                                          \
    static inline T siskin_floordiv_##S(T a, T b) { return b == 0 ? 0 : (T)(a / b); }          \
    static inline T siskin_mod_##S(T a, T b) { return b == 0 ? 0 : (T)(a % b); }               \
    static inline T siskin_pow_##S(T a, T b) {                                                 \
        W base = (W)a, r = 1;                                                                  \
        for (W e = (W)b; e != 0; e >>= 1) {                                                    \
            if (e & 1u) r *= base;                                                             \
            base *= base;                                                                      \
        }                                                                                      \
        return (T)r;                                                                           \
    }                                                                                          \
    static inline T siskin_shl_##S(T a, T b) { return b >= BITS ? 0 : (T)((W)a << b); }        \
    static inline T siskin_shr_##S(T a, T b) { return b >= BITS ? 0 : (T)(a >> b); }           \
    static inline T siskin_min_##S(T a, T b) { return a < b ? a : b; }                         \
    static inline T siskin_max_##S(T a, T b) { return a < b ? b : a; }                         \
    static inline T siskin_fmin_##S(T a, T b) { return a < b ? a : b; }                        \
    static inline T siskin_fmax_##S(T a, T b) { return a < b ? b : a; }                        \
    static inline T siskin_bitwise_not_##S(T a) { return (T)~a; }                              \
    static inline T siskin_sign_##S(T a) { return (T)(a > 0); }

SISKIN_OPS_UNSIGNED(u8, uint8_t, uint32_t, 8u)
SISKIN_OPS_UNSIGNED(u16, uint16_t, uint32_t, 16u)
SISKIN_OPS_UNSIGNED(u32, uint32_t, uint32_t, 32u)
SISKIN_OPS_UNSIGNED(u64, uint64_t, uint64_t, 64u)

/* ---- bool: add is or, mul is and, abs is the identity, min/max are and/or. ---- */
static inline bool siskin_add_b(bool a, bool b) { return a || b; }
static inline bool siskin_mul_b(bool a, bool b) { return a && b; }
static inline bool siskin_abs_b(bool a) { return a; }
static inline bool siskin_min_b(bool a, bool b) { return a && b; }
static inline bool siskin_max_b(bool a, bool b) { return a || b; }
static inline bool siskin_fmin_b(bool a, bool b) { return a && b; }
static inline bool siskin_fmax_b(bool a, bool b) { return a || b; }
static inline bool siskin_bitwise_not_b(bool a) { return !a; }

/* ---- Floating point. F is float or double, M the suffix of its math.h functions. The divmod
 * follows NumPy: fmod, then move the remainder to the divisor's sign and snap the quotient to
 * the nearest integer. ---- */
#define SISKIN_OPS_FLOAT(S, F, M)                                                               \
    static inline F siskin_add_##S(F a, F b) { return a + b; }                                 \
    static inline F siskin_sub_##S(F a, F b) { return a - b; }                                 \
    static inline F siskin_mul_##S(F a, F b) { return a * b; }                                 \
    static inline F siskin_neg_##S(F a) { return -a; }                                         \
    static inline F siskin_abs_##S(F a) { return fabs##M(a); }                                 \
    static inline F siskin_floordiv_##S(F a, F b) {                                            \
        if (b == 0) return a / b;                                                              \
        F mod = fmod##M(a, b);                                                                 \
        F div = (a - mod) / b;                                                                 \
        if (mod != 0) {                                                                        \
            if (isless(b, (F)0) != isless(mod, (F)0)) div -= (F)1;                             \
        }                                                                                      \
        if (div == 0) return copysign##M((F)0, a / b);                                         \
        F fl = floor##M(div);                                                                  \
        if (isgreater(div - fl, (F)0.5)) fl += (F)1;                                           \
        return fl;                                                                             \
    }                                                                                          \
    static inline F siskin_mod_##S(F a, F b) {                                                 \
        F mod = fmod##M(a, b);                                                                 \
        if (b == 0) return mod;                                                                \
        if (mod != 0) {                                                                        \
            if (isless(b, (F)0) != isless(mod, (F)0)) mod += b;                                \
            return mod;                                                                        \
        }                                                                                      \
        return copysign##M((F)0, b);                                                           \
    }                                                                                          \
    static inline F siskin_pow_##S(F a, F b) { return pow##M(a, b); }                          \
    static inline F siskin_min_exact_##S(F a, F b) {                                           \
        if (a < b) return a;                                                                   \
        if (b < a) return b;                                                                   \
        if (isnan(a)) return a;                                                                \
        if (isnan(b)) return b;                                                                \
        return signbit(a) ? a : b;                                                             \
    }                                                                                          \
    static inline F siskin_max_exact_##S(F a, F b) {                                           \
        if (b < a) return a;                                                                   \
        if (a < b) return b;                                                                   \
        if (isnan(a)) return a;                                                                \
        if (isnan(b)) return b;                                                                \
        return signbit(a) ? b : a;                                                             \
    }                                                                                          \
    /* A b that is neither NaN nor a zero (the rare cases, on a predicted branch) leaves one  \
     * select, minsd/maxsd: no branch on which operand wins, which a reduction's new values   \
     * would mispredict. It is exact: a NaN a stays, equal nonzero values are the same bits. */ \
    static inline F siskin_min_##S(F a, F b) {                                                 \
        if (SISKIN_OPS_UNLIKELY(!(fabs##M(b) > 0))) return siskin_min_exact_##S(a, b);         \
        return b < a ? b : a;                                                                  \
    }                                                                                          \
    static inline F siskin_max_##S(F a, F b) {                                                 \
        if (SISKIN_OPS_UNLIKELY(!(fabs##M(b) > 0))) return siskin_max_exact_##S(a, b);         \
        return a < b ? b : a;                                                                  \
    }                                                                                          \
    static inline F siskin_fmin_##S(F a, F b) {                                                \
        if (isnan(a)) return b;                                                                \
        if (isnan(b)) return a;                                                                \
        return siskin_min_##S(a, b);                                                           \
    }                                                                                          \
    static inline F siskin_fmax_##S(F a, F b) {                                                \
        if (isnan(a)) return b;                                                                \
        if (isnan(b)) return a;                                                                \
        return siskin_max_##S(a, b);                                                           \
    }                                                                                          \
    static inline F siskin_exp_##S(F a) { return exp##M(a); }                                  \
    static inline F siskin_log_##S(F a) { return log##M(a); }                                  \
    static inline F siskin_sqrt_##S(F a) { return sqrt##M(a); }                                \
    static inline F siskin_sin_##S(F a) { return sin##M(a); }                                  \
    static inline F siskin_cos_##S(F a) { return cos##M(a); }                                  \
    static inline F siskin_tan_##S(F a) { return tan##M(a); }                                  \
    static inline F siskin_asin_##S(F a) { return asin##M(a); }                                \
    static inline F siskin_acos_##S(F a) { return acos##M(a); }                                \
    static inline F siskin_atan_##S(F a) { return atan##M(a); }                                \
    static inline F siskin_sinh_##S(F a) { return sinh##M(a); }                                \
    static inline F siskin_cosh_##S(F a) { return cosh##M(a); }                                \
    static inline F siskin_tanh_##S(F a) { return tanh##M(a); }                                \
    static inline F siskin_asinh_##S(F a) { return asinh##M(a); }                              \
    static inline F siskin_acosh_##S(F a) { return acosh##M(a); }                              \
    static inline F siskin_atanh_##S(F a) { return atanh##M(a); }                              \
    static inline F siskin_expm1_##S(F a) { return expm1##M(a); }                              \
    static inline F siskin_log1p_##S(F a) { return log1p##M(a); }                              \
    static inline F siskin_log2_##S(F a) { return log2##M(a); }                                \
    static inline F siskin_log10_##S(F a) { return log10##M(a); }                              \
    static inline F siskin_floor_##S(F a) { return floor##M(a); }                              \
    static inline F siskin_ceil_##S(F a) { return ceil##M(a); }                                \
    static inline F siskin_trunc_##S(F a) { return trunc##M(a); }                              \
    static inline F siskin_round_##S(F a) { return rint##M(a); }                               \
    static inline F siskin_atan2_##S(F y, F x) { return atan2##M(y, x); }                      \
    static inline F siskin_copysign_##S(F x, F y) { return copysign##M(x, y); }                 \
    static inline F siskin_hypot_##S(F a, F b) { return hypot##M(a, b); }                       \
    static inline F siskin_nextafter_##S(F x, F y) { return nextafter##M(x, y); }               \
    /* NaN stays NaN; -0.0 gives 0.0, as NumPy's sign. */                                      \
    static inline F siskin_sign_##S(F a) { return a != a ? a : (F)((a > 0) - (a < 0)); }        \
    /* log(exp(a) + exp(b)) without overflow, as NumPy's: equal arguments (infinities of one   \
     * sign among them) give a + log 2, NaN propagates. */                                     \
    static inline F siskin_logaddexp_##S(F a, F b) {                                           \
        if (a == b) return a + (F)0.693147180559945309417232121458176568;                      \
        F d = a - b;                                                                           \
        if (d > 0) return a + log1p##M(exp##M(-d));                                            \
        if (d <= 0) return b + log1p##M(exp##M(d));                                            \
        return d;                                                                              \
    }                                                                                          \
    /* Exponents beyond +-4000 give the same result as +-4000 (0 or inf) for every F. */       \
    static inline F siskin_ldexp_##S(F a, int64_t n) {                                         \
        return ldexp##M(a, (int)(n > 4000 ? 4000 : n < -4000 ? -4000 : n));                    \
    }

SISKIN_OPS_FLOAT(f32, float, f)
SISKIN_OPS_FLOAT(f64, double, )

/* ---- Conversions: the type-named operators (int8(x), astype) with Scalar::cast's semantics.
 * C leaves a float converted to an integer undefined when it is NaN or out of range: here NaN
 * gives 0 and values beyond the 64-bit range saturate, then the narrowing to the target wraps;
 * an integer reaches float32 through double, as Scalar::cast rounds it. _Generic picks the
 * float path by the argument's C type (only the chosen branch is evaluated). ---- */
static inline int64_t siskin_f2i64(double x) {
    if (isnan(x)) return 0;
    if (x >= 9.2233720368547758e18) return INT64_MAX;
    if (x <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)x;
}
static inline uint64_t siskin_f2u64(double x) {
    if (isnan(x) || x <= -1.0) return (uint64_t)siskin_f2i64(x);
    if (x >= 1.8446744073709552e19) return UINT64_MAX;
    return (uint64_t)x;
}
#define SISKIN_OPS_TO_INTEGER(T, F2I, x) \
    _Generic((x), float: (T)F2I(x), double: (T)F2I(x), default: (T)(x))
#define siskin_cast_b(x) ((bool)(x))
#define siskin_cast_i8(x) SISKIN_OPS_TO_INTEGER(int8_t, siskin_f2i64, x)
#define siskin_cast_i16(x) SISKIN_OPS_TO_INTEGER(int16_t, siskin_f2i64, x)
#define siskin_cast_i32(x) SISKIN_OPS_TO_INTEGER(int32_t, siskin_f2i64, x)
#define siskin_cast_i64(x) SISKIN_OPS_TO_INTEGER(int64_t, siskin_f2i64, x)
#define siskin_cast_u8(x) SISKIN_OPS_TO_INTEGER(uint8_t, siskin_f2u64, x)
#define siskin_cast_u16(x) SISKIN_OPS_TO_INTEGER(uint16_t, siskin_f2u64, x)
#define siskin_cast_u32(x) SISKIN_OPS_TO_INTEGER(uint32_t, siskin_f2u64, x)
#define siskin_cast_u64(x) SISKIN_OPS_TO_INTEGER(uint64_t, siskin_f2u64, x)
#define siskin_cast_f32(x) ((float)(double)(x))
#define siskin_cast_f64(x) ((double)(x))

#undef SISKIN_OPS_WRAPPING
#undef SISKIN_OPS_SIGNED
#undef SISKIN_OPS_UNSIGNED
#undef SISKIN_OPS_FLOAT
#undef SISKIN_OPS_UNLIKELY

#endif /* SISKIN_OPS_H */
