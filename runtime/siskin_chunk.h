/* Cutting a loop's iterations into chunks balanced by work (siskin_chunk_first_i32/_i64) and the
 * work of a run of iterations (siskin_loop_work_i32/_i64). The parallel regions use them
 * (siskin_parallel.h), and so does a loop lowered as runs of rows (compiler/row_slices.hpp),
 * which must compile without OpenMP too when no region is made of it: so they are here, in the
 * prelude, not in siskin_parallel.h. */
#ifndef SISKIN_CHUNK_H
#define SISKIN_CHUNK_H

#include <stdint.h>

/* The weight of iterations [lo, i): their count, plus their entries when pos is given. */
#define SISKIN_DEFINE_CHUNK(suffix, T)                                                             \
    static inline int64_t siskin_loop_work_##suffix(const T *pos, int64_t lo, int64_t i) {        \
        return (i - lo) + (pos ? (int64_t)pos[i] - (int64_t)pos[lo] : 0);                          \
    }                                                                                              \
    /* The first iteration of chunk t of `chunks` over [lo, hi): the smallest i whose weight from \
     * lo reaches t/chunks of the whole (a binary search: the weight never decreases). */          \
    static inline int64_t siskin_chunk_first_##suffix(const T *pos, int64_t lo, int64_t hi,       \
                                                      int t, int chunks) {                        \
        if (t <= 0) return lo;                                                                     \
        if (t >= chunks) return hi;                                                                \
        int64_t total = siskin_loop_work_##suffix(pos, lo, hi);                                    \
        /* total * t / chunks without overflow: total < 2^62, t < 2^31 */                          \
        int64_t goal = (int64_t)((__int128)total * t / chunks);                                    \
        int64_t a = lo, b = hi;                                                                    \
        while (a < b) {                                                                            \
            int64_t m = a + (b - a) / 2;                                                           \
            if (siskin_loop_work_##suffix(pos, lo, m) < goal) a = m + 1;                           \
            else b = m;                                                                            \
        }                                                                                          \
        return a;                                                                                  \
    }

SISKIN_DEFINE_CHUNK(i32, int32_t)
SISKIN_DEFINE_CHUNK(i64, int64_t)
#undef SISKIN_DEFINE_CHUNK

#endif
