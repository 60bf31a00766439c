/* The hash table of a sparsehash level (src/levels/sparse_hash.cpp): writes in any order find or
 * insert the entry of (parent position p, coordinate i) in expected O(1), and freeze lists the
 * entries sorted by (p, i) for the readers that walk fibres in order. Included by
 * siskin_prelude.h, after siskin_buffer and the status codes; the host builds the same table
 * (siskin_hash_mix is the one hash function both sides use).
 *
 * An entry is a position q of the level (0, 1, ... in the order first written); par[q] and
 * crd[q] are its key. The table tbl has a power-of-two number of slots (tbl->size, at least
 * SISKIN_HASH_MIN_SLOTS), each 0 (free) or q + 1, probed linearly from siskin_hash_mix(p, i), and
 * at most half full: it doubles (every entry re-inserted) before an insert would pass that. */
#ifndef SISKIN_HASH_H
#define SISKIN_HASH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "siskin_hash_key.h"

#define SISKIN_HASH_MIN_SLOTS 16

/* For T = int32_t (S = i32) and int64_t (S = i64), the index types of a level:
 *
 * siskin_hash_insert_S(tbl, par, crd, count, p, i): the position of (p, i), inserted at
 * position *count (then incremented) when absent: par and crd grow to hold it, tbl doubles when
 * it would be more than half full. Returns the position, or a negative status: -SISKIN_ERR_ALLOC
 * (memory), -SISKIN_ERR_INDEX_OVERFLOW (p or the position does not fit T).
 *
 * siskin_hash_forget_S(tbl, par, crd, count, from): removes the positions from .. *count-1
 * (the latest inserted) from the table, latest first, and sets *count = from. A linear probe
 * never passed over the slot of a position inserted after it (the slot was free then, and only
 * later positions filled slots since), so freeing the latest position's slot breaks no probe.
 *
 * siskin_hash_freeze_S(par, crd, keep, count, parents, pos, srt, idx): lists the positions q
 * with keep[q] fibre by fibre in increasing coordinate order: fibre p's entries are k = pos[p] ..
 * pos[p+1]-1, at position srt[k] with coordinate idx[k]. A counting sort by parent (pos as its
 * cursors), then a merge sort of each fibre by coordinate (idx as the scratch). Returns a
 * status. */
#define SISKIN_HASH_DEFINE(T, S, TMAX)                                                              \
    /* A table of `slots` free slots holding positions 0 .. count-1 replaces tbl's. */             \
    static inline int siskin_hash_rebuild_##S(siskin_buffer *tbl, int64_t slots, const T *par,     \
                                              const T *crd, int64_t count) {                       \
        siskin_buffer fresh = {NULL, 0, 0};                                                         \
        if (siskin_buffer_resize(&fresh, slots, sizeof(T)) != SISKIN_OK) return SISKIN_ERR_ALLOC;  \
        memset(fresh.data, 0, (size_t)slots * sizeof(T));                                           \
        for (int64_t q = 0; q < count; ++q)                                                         \
            siskin_hash_place_##S((T *)fresh.data, slots, par[q], crd[q], q);                       \
        siskin_block_free(tbl->data, (size_t)tbl->capacity * sizeof(T));                            \
        *tbl = fresh;                                                                               \
        return SISKIN_OK;                                                                           \
    }                                                                                               \
    static inline int64_t siskin_hash_insert_##S(siskin_buffer *tbl, siskin_buffer *par,           \
                                                 siskin_buffer *crd, int64_t *count, int64_t p,    \
                                                 int64_t i) {                                       \
        if (tbl->size < SISKIN_HASH_MIN_SLOTS) {                                                    \
            int status = siskin_hash_rebuild_##S(tbl, SISKIN_HASH_MIN_SLOTS, (const T *)par->data, \
                                                 (const T *)crd->data, *count);                     \
            if (status != SISKIN_OK) return -status;                                                \
        }                                                                                           \
        int64_t q = siskin_hash_find_##S((const T *)tbl->data, tbl->size, (const T *)par->data,    \
                                         (const T *)crd->data, p, i);                               \
        if (q >= 0) return q;                                                                       \
        q = *count;                                                                                 \
        if (p > (int64_t)(TMAX) || q >= (int64_t)(TMAX)) return -SISKIN_ERR_INDEX_OVERFLOW;         \
        if (siskin_buffer_grow(par, q + 1, sizeof(T)) != SISKIN_OK ||                              \
            siskin_buffer_grow(crd, q + 1, sizeof(T)) != SISKIN_OK)                                 \
            return -SISKIN_ERR_ALLOC;                                                               \
        ((T *)par->data)[q] = (T)p;                                                                 \
        ((T *)crd->data)[q] = (T)i;                                                                 \
        par->size = crd->size = q + 1;                                                              \
        *count = q + 1;                                                                             \
        if (2 * (q + 1) > tbl->size) {                                                              \
            if (tbl->size > INT64_MAX / 4) return -SISKIN_ERR_ALLOC;                                \
            int status = siskin_hash_rebuild_##S(tbl, 2 * tbl->size, (const T *)par->data,         \
                                                 (const T *)crd->data, q + 1);                      \
            return status == SISKIN_OK ? q : -status;                                               \
        }                                                                                           \
        siskin_hash_place_##S((T *)tbl->data, tbl->size, p, i, q);                                  \
        return q;                                                                                   \
    }                                                                                               \
    static inline void siskin_hash_forget_##S(siskin_buffer *tbl, const T *par, const T *crd,       \
                                              int64_t *count, int64_t from) {                       \
        T *slots = (T *)tbl->data;                                                                  \
        uint64_t mask = (uint64_t)tbl->size - 1;                                                    \
        for (int64_t q = *count - 1; q >= from; --q) {                                              \
            uint64_t h = siskin_hash_mix(par[q], crd[q]) & mask;                                    \
            while ((int64_t)slots[h] != q + 1) h = (h + 1) & mask;                                  \
            slots[h] = 0;                                                                           \
        }                                                                                           \
        if (from < *count) *count = from;                                                           \
    }                                                                                               \
    /* Sorts a[0..n) by crd[a[k]], through tmp[0..n). */                                           \
    static inline void siskin_hash_sort_##S(T *a, int64_t n, const T *crd, T *tmp) {              \
        if (n <= 16) {                                                                              \
            for (int64_t k = 1; k < n; ++k) {                                                       \
                T x = a[k];                                                                         \
                int64_t j = k;                                                                      \
                for (; j > 0 && crd[a[j - 1]] > crd[x]; --j) a[j] = a[j - 1];                       \
                a[j] = x;                                                                           \
            }                                                                                       \
            return;                                                                                 \
        }                                                                                           \
        int64_t half = n / 2;                                                                       \
        siskin_hash_sort_##S(a, half, crd, tmp);                                                    \
        siskin_hash_sort_##S(a + half, n - half, crd, tmp);                                         \
        memcpy(tmp, a, sizeof(T) * (size_t)n);                                                      \
        int64_t l = 0, r = half, k = 0;                                                             \
        while (l < half && r < n) a[k++] = crd[tmp[r]] < crd[tmp[l]] ? tmp[r++] : tmp[l++];        \
        while (l < half) a[k++] = tmp[l++];                                                         \
        while (r < n) a[k++] = tmp[r++];                                                            \
    }                                                                                               \
    static inline int siskin_hash_freeze_##S(const T *par, const T *crd, const bool *keep,         \
                                             int64_t count, int64_t parents, siskin_buffer *pos,   \
                                             siskin_buffer *srt, siskin_buffer *idx) {             \
        if (siskin_buffer_resize(pos, parents + 1, sizeof(T)) != SISKIN_OK)                        \
            return SISKIN_ERR_ALLOC;                                                                \
        T *ps = (T *)pos->data;                                                                     \
        memset(ps, 0, sizeof(T) * (size_t)(parents + 1));                                           \
        int64_t kept = 0;                                                                           \
        for (int64_t q = 0; q < count; ++q)                                                         \
            if (keep[q]) {                                                                          \
                ++ps[par[q] + 1];                                                                   \
                ++kept;                                                                             \
            }                                                                                       \
        for (int64_t p = 0; p < parents; ++p) ps[p + 1] = (T)(ps[p + 1] + ps[p]);                  \
        if (siskin_buffer_grow(srt, kept, sizeof(T)) != SISKIN_OK ||                               \
            siskin_buffer_grow(idx, kept, sizeof(T)) != SISKIN_OK)                                  \
            return SISKIN_ERR_ALLOC;                                                                \
        T *order = (T *)srt->data, *sorted = (T *)idx->data;                                        \
        /* ps[p] walks fibre p's range; afterwards it holds where fibre p + 1 starts. */           \
        for (int64_t q = 0; q < count; ++q)                                                         \
            if (keep[q]) order[ps[par[q]]++] = (T)q;                                                \
        for (int64_t p = parents; p > 0; --p) ps[p] = ps[p - 1];                                    \
        ps[0] = 0;                                                                                  \
        for (int64_t p = 0; p < parents; ++p)                                                       \
            siskin_hash_sort_##S(order + ps[p], ps[p + 1] - ps[p], crd, sorted);                   \
        for (int64_t k = 0; k < kept; ++k) sorted[k] = crd[order[k]];                               \
        srt->size = idx->size = kept;                                                               \
        return SISKIN_OK;                                                                           \
    }

SISKIN_HASH_DEFINE(int32_t, i32, INT32_MAX)
SISKIN_HASH_DEFINE(int64_t, i64, INT64_MAX)

#undef SISKIN_HASH_DEFINE

#endif
