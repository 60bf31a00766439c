/* Whether a nest over fibres lo .. hi - 1 of a compressed level walks flat (codegen
 * flatten_fibre_walks): one loop over the fibres' entries, each with copies of what the body
 * reads through the fibre's index, instead of one inner loop a fibre, whose exit mispredicts when
 * fibre lengths vary. Measured on CSC SpMV (generated C timed against the nest's, min of 300
 * runs): the flat walk is 1.2-1.4x faster with 8 to 16 entries a fibre on average and lengths
 * varying (email-Enron 10, the planner's 40000^2 matrix 12); with fewer the copies cost what the
 * mispredicts do (ca-GrQc 5.5: 0.7x, luxembourg_osm 2: 0.8x), with more most fibres need the
 * copy loop whose own exit mispredicts (20 a fibre, uniform: 0.78x), and fibres of one length (a
 * band) predict well. Lengths are sampled at 32 places, so the test costs nothing beside the walk. */
#ifndef SISKIN_FLAT_WALK_H
#define SISKIN_FLAT_WALK_H

#include <stdint.h>

#define SISKIN_DEFINE_FLAT_WALK(suffix, T)                                                         \
    static inline int siskin_flat_walk_pays_##suffix(const T *pos, int64_t lo, int64_t hi) {      \
        int64_t n = hi - lo;                                                                       \
        if (n < 64) return 0;                                                                      \
        int64_t entries = (int64_t)pos[hi] - (int64_t)pos[lo];                                     \
        if (entries < 8 * n || entries > 16 * n) return 0;                                         \
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
