/* Whether a nest over fibres lo .. hi - 1 of a compressed level walks flat (codegen
 * flatten_fibre_walks): one loop over the fibres' entries, each with copies of what the body
 * reads through the fibre's index, instead of one inner loop a fibre, whose exit mispredicts when
 * fibre lengths vary. Measured on CSC SpMV (bench/csc_spmv_columns.c, the shared matrices): the
 * copies cost about what the mispredicts do for fibres of under 8 entries on average, and more
 * than they do for fibres of over 32 or fibres of one length (a band); between, with lengths
 * varying, the flat walk is 1.2-1.4x faster. Lengths are sampled at 32 places, so the test
 * costs nothing beside the walk. */
#ifndef SISKIN_FLAT_WALK_H
#define SISKIN_FLAT_WALK_H

#include <stdint.h>

#define SISKIN_DEFINE_FLAT_WALK(suffix, T)                                                         \
    static inline int siskin_flat_walk_pays_##suffix(const T *pos, int64_t lo, int64_t hi) {      \
        int64_t n = hi - lo;                                                                       \
        if (n < 64) return 0;                                                                      \
        int64_t entries = (int64_t)pos[hi] - (int64_t)pos[lo];                                     \
        if (entries < 8 * n || entries > 32 * n) return 0;                                         \
        int changes = 0; /* of 32 pairs of neighbouring fibres, those of different lengths */      \
        for (int64_t k = 0; k < 32; k++) {                                                         \
            int64_t j = lo + (n - 2) * k / 32;                                                     \
            changes += (int64_t)pos[j + 1] - pos[j] != (int64_t)pos[j + 2] - pos[j + 1];           \
        }                                                                                          \
        return changes >= 8;                                                                       \
    }

SISKIN_DEFINE_FLAT_WALK(i32, int32_t)
SISKIN_DEFINE_FLAT_WALK(i64, int64_t)
#undef SISKIN_DEFINE_FLAT_WALK

#endif
