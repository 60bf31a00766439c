/* Ordering the touched list of a sparsebytemap level (the Gustavson workspace). Writes in random
 * order append each newly used coordinate to a list; before the list is walked in order it is
 * sorted here. Included by siskin_prelude.h.
 *
 * The list holds distinct coordinates in [0, dim), and their bytes used[c] are set, so four
 * ways are open, picked by the list's length n (and width) against dim:
 * - a short list (n <= SISKIN_TOUCHED_SMALL) is insertion-sorted;
 * - a 32-bit list of up to SISKIN_TOUCHED_NETWORK entries goes through a sorting network in
 *   vector lanes (where the compiler has vector min/max): no branches and no memory traffic
 *   beyond loading and storing the list. A radix sort of ~36 columns costs ~450 cycles, mostly
 *   bucket bookkeeping; the network about a third of that (CSC SpGEMM of 4000 x 4000 matrices
 *   with 6 entries a column: the kernel 1.23 -> 0.88 ms, the sort had been half of it), and an
 *   insertion sort loses to it from 9 entries on (a mispredicted branch per entry), and so does
 *   the scan below, even a quarter full (256 columns);
 * - a list longer than dim / SISKIN_TOUCHED_SCAN (or than dim / SISKIN_TOUCHED_SCAN_SMALL when
 *   dim <= SISKIN_TOUCHED_SCAN_DIM, bytes that stay in L1) is rebuilt by scanning the bytes in
 *   order, eight at a time (O(dim / 8 + n), sequential, but a mispredicted branch per nonzero
 *   word: measured slower than the radix sort below a quarter full, for dims beyond a few
 *   thousand);
 * - any other is radix-sorted, least significant digit first, in passes of at most 8 bits of
 *   the coordinate (two passes below 65536 columns), through a scratch array of n elements:
 *   O(n) per pass with no data-dependent branches, where a comparison sort's O(n log n)
 *   mispredicted branches cost several times more; the bucket offsets are summed eight lanes at
 *   a time. */
#ifndef SISKIN_TOUCHED_H
#define SISKIN_TOUCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SISKIN_TOUCHED_SMALL 8
#define SISKIN_TOUCHED_NETWORK 128
#define SISKIN_TOUCHED_SCAN 4
#define SISKIN_TOUCHED_SCAN_SMALL 32
#define SISKIN_TOUCHED_SCAN_DIM 2048

/* The index (0..7) of the lowest nonzero byte of a nonzero word whose bytes are 0 or 1. */
static inline int siskin_lowest_byte(uint64_t w) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(w) >> 3;
#else
    int b = 0;
    while (!(w & 0xff)) {
        w >>= 8;
        ++b;
    }
    return b;
#endif
}

/* c[0..n) replaced by its exclusive prefix sums; n a multiple of 8. The bucket offsets of the
 * radix sort below: for a row of ~100 columns its 256 + up to 256 buckets cost as much as the
 * moves, and a scalar sum is one dependent add per bucket, where eight lanes (three shifted adds,
 * then the carry across) take a few per eight buckets (measured: cage11's SpGEMM 6% faster).
 * Vector extensions, not <immintrin.h>: that header alone triples a kernel's compile time. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define SISKIN_TOUCHED_LANES 1
#endif
#endif
static inline void siskin_exclusive_sum_u32(uint32_t *c, uint32_t n) {
#ifdef SISKIN_TOUCHED_LANES
    typedef uint32_t lanes __attribute__((vector_size(32)));
    const lanes zero = {0};
    lanes carry = zero;
    for (uint32_t b = 0; b < n; b += 8) {
        lanes v, x;
        memcpy(&v, c + b, sizeof v);
        x = v + __builtin_shufflevector(zero, v, 0, 8, 9, 10, 11, 12, 13, 14);
        x = x + __builtin_shufflevector(zero, x, 0, 1, 8, 9, 10, 11, 12, 13);
        x = x + __builtin_shufflevector(zero, x, 0, 1, 2, 3, 8, 9, 10, 11);
        x = x + carry;
        lanes out = x - v;
        memcpy(c + b, &out, sizeof out);
        carry = __builtin_shufflevector(x, x, 7, 7, 7, 7, 7, 7, 7, 7);
    }
#else
    uint32_t sum = 0;
    for (uint32_t b = 0; b < n; ++b) {
        uint32_t k = c[b];
        c[b] = sum;
        sum += k;
    }
#endif
}
#undef SISKIN_TOUCHED_LANES

/* The sorting network: bitonic, over 8-lane vectors of int32 (8 * m lanes, m a power of two up
 * to 16), in the form whose comparators all put the minimum first (each merge of two sorted
 * halves compares element i with its mirror image first, then halves the distance). Distances
 * of 8 and more compare whole vectors; shorter ones compare a vector with a lane permutation of
 * itself and keep min or max per lane. Vector extensions and builtins, not <immintrin.h> (see
 * siskin_exclusive_sum_u32); only where min/max are single instructions, since emulated ones
 * (compare and blend) made it slower than the radix sort. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector) && __has_builtin(__builtin_elementwise_min) &&              \
    (defined(__AVX2__) || defined(__ARM_NEON))
#define SISKIN_V8_MIN(a, b) __builtin_elementwise_min(a, b)
#define SISKIN_V8_MAX(a, b) __builtin_elementwise_max(a, b)
#elif __has_builtin(__builtin_shufflevector) && defined(__AVX2__) && defined(__GNUC__)
#define SISKIN_V8_MIN(a, b) __builtin_ia32_pminsd256(a, b)
#define SISKIN_V8_MAX(a, b) __builtin_ia32_pmaxsd256(a, b)
#endif
#endif
#ifdef SISKIN_V8_MIN
typedef int siskin_v8i32 __attribute__((vector_size(32)));
/* v's lanes compared with lanes P (a permutation pairing lane l with l ^ d), the lower lane of
 * each pair keeping the minimum: S picks it from lo (0-7) or hi (8-15). */
#define SISKIN_V8_EXCHANGE(v, P0, P1, P2, P3, P4, P5, P6, P7, S0, S1, S2, S3, S4, S5, S6, S7)     \
    do {                                                                                          \
        siskin_v8i32 p_ = __builtin_shufflevector(v, v, P0, P1, P2, P3, P4, P5, P6, P7);          \
        siskin_v8i32 lo_ = SISKIN_V8_MIN(v, p_), hi_ = SISKIN_V8_MAX(v, p_);                      \
        v = __builtin_shufflevector(lo_, hi_, S0, S1, S2, S3, S4, S5, S6, S7);                    \
    } while (0)
/* Lane l against l ^ 1, l ^ 2, l ^ 4 (halving steps), and the mirror steps of a merge of two
 * sorted runs of 2 and of 4 lanes (l against l ^ 3, l ^ 7). */
#define SISKIN_V8_STEP1(v) SISKIN_V8_EXCHANGE(v, 1, 0, 3, 2, 5, 4, 7, 6, 0, 9, 2, 11, 4, 13, 6, 15)
#define SISKIN_V8_STEP2(v) SISKIN_V8_EXCHANGE(v, 2, 3, 0, 1, 6, 7, 4, 5, 0, 1, 10, 11, 4, 5, 14, 15)
#define SISKIN_V8_STEP4(v) SISKIN_V8_EXCHANGE(v, 4, 5, 6, 7, 0, 1, 2, 3, 0, 1, 2, 3, 12, 13, 14, 15)
#define SISKIN_V8_MIRROR3(v) SISKIN_V8_EXCHANGE(v, 3, 2, 1, 0, 7, 6, 5, 4, 0, 1, 10, 11, 4, 5, 14, 15)
#define SISKIN_V8_MIRROR7(v) SISKIN_V8_EXCHANGE(v, 7, 6, 5, 4, 3, 2, 1, 0, 0, 1, 2, 3, 12, 13, 14, 15)
static inline siskin_v8i32 siskin_v8_reverse(siskin_v8i32 v) {
    return __builtin_shufflevector(v, v, 7, 6, 5, 4, 3, 2, 1, 0);
}
/* Sorts the 8 * m lanes of v[0..m) as one sequence; inlined with m a constant, so the loops
 * unroll into straight-line code. */
static inline void siskin_v8_sort(siskin_v8i32 *v, int m) {
    for (int q = 0; q < m; ++q) { /* sorted runs of 2, 4 and 8 lanes */
        SISKIN_V8_STEP1(v[q]);
        SISKIN_V8_MIRROR3(v[q]);
        SISKIN_V8_STEP1(v[q]);
        SISKIN_V8_MIRROR7(v[q]);
        SISKIN_V8_STEP2(v[q]);
        SISKIN_V8_STEP1(v[q]);
    }
    for (int run = 2; run <= m; run *= 2) { /* merges of two sorted runs of run / 2 vectors */
        for (int q = 0; q < m; ++q) {
            if (q & (run / 2)) continue;
            int r = q ^ (run - 1);
            siskin_v8i32 mirror = siskin_v8_reverse(v[r]);
            siskin_v8i32 lo = SISKIN_V8_MIN(v[q], mirror), hi = SISKIN_V8_MAX(v[q], mirror);
            v[q] = lo;
            v[r] = siskin_v8_reverse(hi);
        }
        for (int d = run / 4; d >= 1; d /= 2)
            for (int q = 0; q < m; ++q) {
                if (q & d) continue;
                siskin_v8i32 lo = SISKIN_V8_MIN(v[q], v[q + d]), hi = SISKIN_V8_MAX(v[q], v[q + d]);
                v[q] = lo;
                v[q + d] = hi;
            }
        for (int q = 0; q < m; ++q) {
            SISKIN_V8_STEP4(v[q]);
            SISKIN_V8_STEP2(v[q]);
            SISKIN_V8_STEP1(v[q]);
        }
    }
}
/* a[0..n), 0 < n <= SISKIN_TOUCHED_NETWORK, sorted; the lanes past n hold INT32_MAX, which
 * sorts last (a coordinate equal to it would be the same value in either place). */
static inline void siskin_network_sort_i32(int32_t *a, int64_t n) {
    siskin_v8i32 v[SISKIN_TOUCHED_NETWORK / 8];
    int m = n <= 16 ? 2 : n <= 32 ? 4 : n <= 64 ? 8 : 16;
    /* Whole vectors move with copies of a constant size (inlined); only the last, partial one
     * goes lane by lane. A memcpy of n lanes was a call into libc, about a tenth of a CSC
     * SpGEMM's time. */
    int whole = (int)(n / 8), rest = (int)(n % 8);
    for (int q = 0; q < whole; ++q) memcpy(&v[q], a + 8 * q, sizeof v[q]);
    for (int q = whole; q < m; ++q) {
        int32_t lanes[8];
        for (int l = 0; l < 8; ++l) lanes[l] = q == whole && l < rest ? a[8 * q + l] : INT32_MAX;
        memcpy(&v[q], lanes, sizeof lanes);
    }
    switch (m) {
    case 2: siskin_v8_sort(v, 2); break;
    case 4: siskin_v8_sort(v, 4); break;
    case 8: siskin_v8_sort(v, 8); break;
    default: siskin_v8_sort(v, 16); break;
    }
    for (int q = 0; q < whole; ++q) memcpy(a + 8 * q, &v[q], sizeof v[q]);
    if (rest) {
        int32_t lanes[8];
        memcpy(lanes, &v[whole], sizeof lanes);
        for (int l = 0; l < rest; ++l) a[8 * whole + l] = lanes[l];
    }
}
#define SISKIN_TOUCHED_HAS_NETWORK 1
#else
#define SISKIN_TOUCHED_HAS_NETWORK 0
static inline void siskin_network_sort_i32(int32_t *a, int64_t n) {
    (void)a;
    (void)n;
}
#endif

/* One instance per coordinate type: T the C type, S the name suffix. */
#define SISKIN_TOUCHED_SORT(T, S)                                                                   \
    static inline void siskin_insertion_sort_##S(T *a, int64_t n) {                                 \
        for (int64_t i = 1; i < n; ++i) {                                                           \
            T x = a[i];                                                                             \
            int64_t j = i;                                                                          \
            while (j > 0 && a[j - 1] > x) {                                                         \
                a[j] = a[j - 1];                                                                    \
                --j;                                                                                \
            }                                                                                       \
            a[j] = x;                                                                               \
        }                                                                                           \
    }                                                                                               \
    /* The radix sort below for two digits of `width` bits (dims up to 65536, most rows): both     \
     * digits counted in one read of the list, 32-bit counts, and only the buckets the high digit  \
     * can take below dim summed: for a row of ~100 columns the bucket work is half the cost. */   \
    static inline void siskin_radix_sort2_##S(T *a, int64_t n, int64_t dim, T *tmp, int width) {   \
        /* width >= 5 (two passes cover 9 to 16 bits): mask + 1 is a multiple of 8; high is        \
         * rounded up to one, its extra buckets zero, for siskin_exclusive_sum_u32. */              \
        uint32_t mask = (1u << width) - 1, high = (uint32_t)((dim - 1) >> width) + 1;               \
        uint32_t high8 = (high + 7) & ~7u;                                                          \
        uint32_t lo[256], hi[256];                                                                  \
        memset(lo, 0, sizeof(uint32_t) * (size_t)(mask + 1));                                       \
        memset(hi, 0, sizeof(uint32_t) * (size_t)high8);                                            \
        for (int64_t i = 0; i < n; ++i) {                                                           \
            uint32_t x = (uint32_t)a[i];                                                            \
            ++lo[x & mask];                                                                         \
            ++hi[x >> width];                                                                       \
        }                                                                                           \
        /* A digit that all coordinates share needs no moves. */                                   \
        bool by_lo = lo[(uint32_t)a[0] & mask] != (uint32_t)n;                                      \
        bool by_hi = hi[(uint32_t)a[0] >> width] != (uint32_t)n;                                    \
        siskin_exclusive_sum_u32(lo, mask + 1);                                                     \
        siskin_exclusive_sum_u32(hi, high8);                                                        \
        T *src = a;                                                                                 \
        if (by_lo) {                                                                                \
            for (int64_t i = 0; i < n; ++i) {                                                       \
                T x = a[i];                                                                         \
                tmp[lo[(uint32_t)x & mask]++] = x;                                                  \
            }                                                                                       \
            src = tmp;                                                                              \
        }                                                                                           \
        if (by_hi) {                                                                                \
            T *dst = src == a ? tmp : a;                                                            \
            for (int64_t i = 0; i < n; ++i) {                                                       \
                T x = src[i];                                                                       \
                dst[hi[(uint32_t)x >> width]++] = x;                                                \
            }                                                                                       \
            src = dst;                                                                              \
        }                                                                                           \
        if (src != a) memcpy(a, src, sizeof(T) * (size_t)n);                                        \
    }                                                                                               \
    /* LSD radix sort of a[0..n), coordinates in [0, dim), through tmp[0..n); the result ends in   \
     * a. Digits are equally wide (at most 8 bits) so that no pass has more buckets than needed; a \
     * digit that all coordinates share (a row whose columns are close together) needs no moves. */ \
    static inline void siskin_radix_sort_##S(T *a, int64_t n, int64_t dim, T *tmp) {               \
        int bits = 1;                                                                               \
        while (bits < 63 && ((int64_t)1 << bits) < dim) ++bits;                                     \
        int passes = (bits + 7) / 8, width = (bits + passes - 1) / passes;                          \
        int64_t buckets = (int64_t)1 << width;                                                      \
        uint64_t mask = (uint64_t)buckets - 1;                                                      \
        if (passes == 2 && n < ((int64_t)1 << 32)) {                                                \
            siskin_radix_sort2_##S(a, n, dim, tmp, width);                                          \
            return;                                                                                 \
        }                                                                                           \
        int64_t count[256];                                                                         \
        T *src = a, *dst = tmp;                                                                     \
        for (int pass = 0, shift = 0; pass < passes; ++pass, shift += width) {                      \
            memset(count, 0, sizeof(int64_t) * (size_t)buckets);                                    \
            for (int64_t i = 0; i < n; ++i) ++count[((uint64_t)src[i] >> shift) & mask];           \
            if (count[((uint64_t)src[0] >> shift) & mask] == n) continue;                           \
            int64_t sum = 0;                                                                        \
            for (int64_t b = 0; b < buckets; ++b) {                                                 \
                int64_t c = count[b];                                                               \
                count[b] = sum;                                                                     \
                sum += c;                                                                           \
            }                                                                                       \
            for (int64_t i = 0; i < n; ++i) {                                                       \
                T x = src[i];                                                                       \
                dst[count[((uint64_t)x >> shift) & mask]++] = x;                                    \
            }                                                                                       \
            T *t = src;                                                                             \
            src = dst;                                                                              \
            dst = t;                                                                                \
        }                                                                                           \
        if (src != a) memcpy(a, src, sizeof(T) * (size_t)n);                                        \
    }                                                                                               \
    /* The used coordinates of used[0..dim), in order, into a. */                                  \
    static inline void siskin_scan_touched_##S(T *a, const bool *used, int64_t dim) {              \
        int64_t k = 0, c = 0;                                                                       \
        for (; c + 8 <= dim; c += 8) {                                                              \
            uint64_t w;                                                                             \
            memcpy(&w, used + c, sizeof w);                                                         \
            while (w) {                                                                             \
                a[k++] = (T)(c + siskin_lowest_byte(w));                                            \
                w &= w - 1;                                                                         \
            }                                                                                       \
        }                                                                                           \
        for (; c < dim; ++c)                                                                        \
            if (used[c]) a[k++] = (T)c;                                                             \
    }                                                                                               \
    /* Sorts the n touched coordinates in a[0..n) of a fibre of extent dim whose occupancy bytes   \
     * are used[0..dim); tmp has room for n elements (see the top of this file). */                \
    static inline void siskin_sort_touched_##S(T *a, int64_t n, const bool *used, int64_t dim,      \
                                               T *tmp) {                                            \
        if (n <= SISKIN_TOUCHED_SMALL)                                                              \
            siskin_insertion_sort_##S(a, n);                                                        \
        else if (SISKIN_TOUCHED_HAS_NETWORK && sizeof(T) == 4 && n <= SISKIN_TOUCHED_NETWORK)       \
            siskin_network_sort_i32((int32_t *)a, n);                                               \
        else if (n > dim / (dim <= SISKIN_TOUCHED_SCAN_DIM ? SISKIN_TOUCHED_SCAN_SMALL              \
                                                           : SISKIN_TOUCHED_SCAN))                  \
            siskin_scan_touched_##S(a, used, dim);                                                  \
        else                                                                                        \
            siskin_radix_sort_##S(a, n, dim, tmp);                                                  \
    }

SISKIN_TOUCHED_SORT(int32_t, i32)
SISKIN_TOUCHED_SORT(int64_t, i64)

#undef SISKIN_TOUCHED_SORT

#endif /* SISKIN_TOUCHED_H */
