/* Ordering the touched list of a sparsebytemap level (the Gustavson workspace). Writes in random
 * order append each newly used coordinate to a list; before the list is walked in order it is
 * sorted here. Included by siskin_prelude.h. */
#ifndef SISKIN_TOUCHED_H
#define SISKIN_TOUCHED_H

#include <stdbool.h>
#include <stdint.h>

/* Below this length a list is insertion-sorted; quicksort partitions stop there too. */
#define SISKIN_TOUCHED_SMALL 24

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
    /* Quicksort with a median-of-three pivot, recursing into the smaller side only (stack depth   \
     * O(log n)); short ranges are left for one final insertion sort. Coordinates are distinct. */  \
    static inline void siskin_quicksort_##S(T *a, int64_t lo, int64_t hi) {                        \
        while (hi - lo > SISKIN_TOUCHED_SMALL) {                                                    \
            int64_t mid = lo + (hi - lo) / 2;                                                       \
            T x = a[lo], y = a[mid], z = a[hi - 1];                                                 \
            T pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));        \
            int64_t i = lo, j = hi - 1;                                                             \
            for (;;) {                                                                              \
                while (a[i] < pivot) ++i;                                                           \
                while (a[j] > pivot) --j;                                                           \
                if (i >= j) break;                                                                  \
                T t = a[i];                                                                         \
                a[i] = a[j];                                                                        \
                a[j] = t;                                                                           \
                ++i;                                                                                \
                --j;                                                                                \
            }                                                                                       \
            /* a[lo..j] <= pivot <= a[j+1..hi) */                                                   \
            if (j + 1 - lo < hi - (j + 1)) {                                                        \
                siskin_quicksort_##S(a, lo, j + 1);                                                 \
                lo = j + 1;                                                                         \
            } else {                                                                                \
                siskin_quicksort_##S(a, j + 1, hi);                                                 \
                hi = j + 1;                                                                         \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
    /* Sorts the n touched coordinates in a[0..n) of a fibre of extent dim whose occupancy bytes   \
     * are used[0..dim). A list longer than dim/16 is rebuilt by scanning the bytes in order       \
     * (O(dim), sequential) instead of sorted (O(n log n), random). */                             \
    static inline void siskin_sort_touched_##S(T *a, int64_t n, const bool *used, int64_t dim) {    \
        if (n <= SISKIN_TOUCHED_SMALL) {                                                            \
            siskin_insertion_sort_##S(a, n);                                                        \
        } else if (n > dim / 16) {                                                                  \
            int64_t k = 0;                                                                          \
            for (int64_t c = 0; c < dim; ++c)                                                       \
                if (used[c]) a[k++] = (T)c;                                                         \
        } else {                                                                                    \
            siskin_quicksort_##S(a, 0, n);                                                          \
            siskin_insertion_sort_##S(a, n);                                                        \
        }                                                                                           \
    }

SISKIN_TOUCHED_SORT(int32_t, i32)
SISKIN_TOUCHED_SORT(int64_t, i64)

#undef SISKIN_TOUCHED_SORT

#endif /* SISKIN_TOUCHED_H */
