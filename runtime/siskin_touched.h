/* Ordering the touched list of a sparsebytemap level (the Gustavson workspace). Writes in random
 * order append each newly used coordinate to a list; before the list is walked in order it is
 * sorted here. Included by siskin_prelude.h.
 *
 * The list holds distinct coordinates in [0, dim), and their bytes used[c] are set, so three
 * ways are open, picked by the list's length n against dim:
 * - a short list (n <= SISKIN_TOUCHED_SMALL) is insertion-sorted;
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

#define SISKIN_TOUCHED_SMALL 32
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
