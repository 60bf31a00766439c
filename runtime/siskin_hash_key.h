/* The key side of a sparsehash level's table (runtime/siskin_hash.h has the writing side): the
 * hash of (parent position p, coordinate i) and the linear probe that finds or places a
 * position. It needs nothing but <stdint.h>, so the host (src/levels/sparse_hash.cpp) builds and
 * searches tables with the very functions the kernels use. A table has a power-of-two number of
 * slots, each 0 (free) or q + 1 for the position q whose key is (par[q], crd[q]). */
#ifndef SISKIN_HASH_KEY_H
#define SISKIN_HASH_KEY_H

#include <stdint.h>

/* A 64-bit mix of the key (a multiply-xorshift finaliser): neighbouring coordinates of one
 * fibre, and one coordinate of neighbouring fibres, land far apart. */
static inline uint64_t siskin_hash_mix(int64_t p, int64_t i) {
    uint64_t h = (uint64_t)p * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)i;
    h ^= h >> 32;
    h *= UINT64_C(0xD6E8FEB86659FD93);
    h ^= h >> 32;
    return h;
}

/* For T = int32_t (S = i32) and int64_t (S = i64):
 * siskin_hash_find_S(tbl, slots, par, crd, p, i): the position of (p, i), or -1 when absent
 * (also when the table has no slots);
 * siskin_hash_place_S(tbl, slots, p, i, q): puts q into the first free slot of (p, i)'s probe. */
#define SISKIN_HASH_KEY_DEFINE(T, S)                                                                \
    static inline int64_t siskin_hash_find_##S(const T *tbl, int64_t slots, const T *par,          \
                                               const T *crd, int64_t p, int64_t i) {               \
        if (slots == 0) return -1;                                                                  \
        uint64_t mask = (uint64_t)slots - 1;                                                        \
        for (uint64_t h = siskin_hash_mix(p, i) & mask;; h = (h + 1) & mask) {                      \
            int64_t q = (int64_t)tbl[h] - 1;                                                        \
            if (q < 0) return -1;                                                                   \
            if (crd[q] == i && par[q] == p) return q;                                               \
        }                                                                                           \
    }                                                                                               \
    /* Puts position q into the first free slot of its probe sequence. */                          \
    static inline void siskin_hash_place_##S(T *tbl, int64_t slots, int64_t p, int64_t i,          \
                                             int64_t q) {                                           \
        uint64_t mask = (uint64_t)slots - 1, h = siskin_hash_mix(p, i) & mask;                      \
        while (tbl[h] != 0) h = (h + 1) & mask;                                                     \
        tbl[h] = (T)(q + 1);                                                                        \
    }

SISKIN_HASH_KEY_DEFINE(int32_t, i32)
SISKIN_HASH_KEY_DEFINE(int64_t, i64)

#undef SISKIN_HASH_KEY_DEFINE

#endif
