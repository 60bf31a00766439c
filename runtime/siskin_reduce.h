/* siskin_reduce.h: min and max of a float array, for the storage-order reductions whose right
 * side is the stored value itself (`s[] min= A[i,j]`, src/compiler/storage_order_reduction.cpp),
 * and the shared exit of such a reduction walked in slices (at the end).
 *
 * Same result as folding siskin_min/max (siskin_ops.h) over the array: NaN propagates and -0.0
 * orders before +0.0. Under those rules the order of the elements does not matter, so four
 * vector accumulators (GCC/Clang vector extensions) meet them in any order. The compare and
 * select stay branch-free: siskin_min's branches mispredict on arrays with many equal values
 * (cage11's 560k values, 297 distinct: 1.7 ms branchy against 0.19 ms here).
 */
#ifndef SISKIN_REDUCE_H
#define SISKIN_REDUCE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "siskin_ops.h"

/* Lane-wise min of the vectors acc and v, into acc: v where it is smaller, and for equal lanes
 * the OR of the bits, which is -0.0 when either is -0.0 and the value itself otherwise. Max is
 * the mirror image: for equal lanes the AND, +0.0 unless both are -0.0. Macros, not functions:
 * a 32-byte vector argument would change the calling convention where AVX is off (-Wpsabi). */
#define SISKIN_LANES_min(M, acc, v)                                                                \
    do {                                                                                          \
        M a_ = (M)(acc), b_ = (M)(v), lt_ = (v) < (acc), eq_ = (v) == (acc);                     \
        (acc) = (__typeof__(acc))((lt_ & b_) | (~lt_ & a_) | (eq_ & b_));                         \
    } while (0)
#define SISKIN_LANES_max(M, acc, v)                                                                \
    do {                                                                                          \
        M a_ = (M)(acc), b_ = (M)(v), gt_ = (v) > (acc), eq_ = (v) == (acc);                     \
        (acc) = (__typeof__(acc))(((gt_ & b_) | (~gt_ & a_)) & (b_ | ~eq_));                     \
    } while (0)

/* S: suffix, F: float type, I: the integer type of F's width. */
#define SISKIN_REDUCE_FLOAT(S, F, I)                                                               \
    typedef F siskin_vec_##S __attribute__((vector_size(32)));                                   \
    typedef I siskin_mask_##S __attribute__((vector_size(32)));                                  \
    SISKIN_REDUCE_ARRAY(min, S, F)                                                                \
    SISKIN_REDUCE_ARRAY(max, S, F)

/* siskin_reduce_OP_S(v, n, acc): OP of acc and v[0..n). NaN lanes are only noted in the loop
 * (a NaN lane would stop comparing) and decide the result at the end. */
#define SISKIN_REDUCE_ARRAY(OP, S, F)                                                              \
    static inline F siskin_reduce_##OP##_##S(const F *v, int64_t n, F acc) {                     \
        enum { lanes = 32 / sizeof(F) };                                                          \
        siskin_vec_##S a0 = (siskin_vec_##S){0} + acc, a1 = a0, a2 = a0, a3 = a0;                \
        siskin_mask_##S nan = {0};                                                                \
        int64_t p = 0;                                                                            \
        for (; p + 4 * lanes <= n; p += 4 * lanes) {                                              \
            siskin_vec_##S x0, x1, x2, x3;                                                        \
            memcpy(&x0, v + p, sizeof x0);                                                        \
            memcpy(&x1, v + p + lanes, sizeof x1);                                                \
            memcpy(&x2, v + p + 2 * lanes, sizeof x2);                                            \
            memcpy(&x3, v + p + 3 * lanes, sizeof x3);                                            \
            SISKIN_LANES_##OP(siskin_mask_##S, a0, x0);                                           \
            SISKIN_LANES_##OP(siskin_mask_##S, a1, x1);                                           \
            SISKIN_LANES_##OP(siskin_mask_##S, a2, x2);                                           \
            SISKIN_LANES_##OP(siskin_mask_##S, a3, x3);                                           \
            nan |= (x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3);                             \
        }                                                                                         \
        F r = acc;                                                                                \
        for (int k = 0; k < lanes; k++) {                                                         \
            r = siskin_##OP##_##S(r, siskin_##OP##_##S(a0[k], a1[k]));                            \
            r = siskin_##OP##_##S(r, siskin_##OP##_##S(a2[k], a3[k]));                            \
            if (nan[k]) r = (F)NAN;                                                               \
        }                                                                                         \
        for (; p < n; p++) r = siskin_##OP##_##S(r, v[p]);                                        \
        return r;                                                                                 \
    }

SISKIN_REDUCE_FLOAT(f32, float, int32_t)
SISKIN_REDUCE_FLOAT(f64, double, int64_t)

#undef SISKIN_REDUCE_FLOAT
#undef SISKIN_REDUCE_ARRAY
#undef SISKIN_LANES_min
#undef SISKIN_LANES_max

/* A storage-order reduction that may stop early, walked in slices on threads: *first is the
 * first slice, in slice order, whose reduction reached the exit value (INT64_MAX while none has).
 * A slice notes itself when it reaches it, and a later slice stops at its next test once one
 * before it has: it cannot change the result, as the exit value (an annihilator) absorbs
 * whatever it would add. A slice before the first runs to its end, so the result is the one a
 * walk in order gives, whatever the scheduling. */
static inline void siskin_stop_note(int64_t *first, int64_t slice) {
    int64_t seen = __atomic_load_n(first, __ATOMIC_RELAXED);
    while (slice < seen && !__atomic_compare_exchange_n(first, &seen, slice, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static inline int siskin_stop_before(const int64_t *first, int64_t slice) {
    return __atomic_load_n(first, __ATOMIC_RELAXED) < slice;
}

#endif /* SISKIN_REDUCE_H */
