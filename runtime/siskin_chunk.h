/* Cutting a loop's iterations into chunks balanced by work (siskin_chunk_first_i32/_i64, and
 * siskin_chunk_first_early_i32/_i64 for rows that may stop early) and the
 * work of a run of iterations (siskin_loop_work_i32/_i64). The parallel regions use them
 * (siskin_parallel.h), and so does a loop lowered as runs of rows (compiler/row_slices.hpp),
 * which must compile without OpenMP too when no region is made of it: so they are here, in the
 * prelude, not in siskin_parallel.h. */
#ifndef SISKIN_CHUNK_H
#define SISKIN_CHUNK_H

#include <stdint.h>

/* In a function of lo and hi: returns the smallest m in [lo, hi] whose weight (an expression of
 * m that never decreases as m grows) reaches goal, by binary search. */
#define SISKIN_FIRST_REACHING(weight_of_m, goal)                                                   \
    do {                                                                                           \
        int64_t a_ = lo, b_ = hi;                                                                  \
        while (a_ < b_) {                                                                          \
            int64_t m = a_ + (b_ - a_) / 2;                                                        \
            if ((weight_of_m) < (goal)) a_ = m + 1;                                                \
            else b_ = m;                                                                           \
        }                                                                                          \
        return a_;                                                                                 \
    } while (0)

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
        SISKIN_FIRST_REACHING(siskin_loop_work_##suffix(pos, lo, m), goal);                        \
    }

/* Chunks of a loop whose rows may stop early (a reduction that stops at its first annihilating
 * term, an or.and row at its first true: ParallelMark::stops_early in compiler/parallel_marks.hpp).
 * Such a row walks its fibre only up to the term, so a long row costs little more than a short
 * one, and chunks balanced by entries give the first thread a few long rows and the last thread
 * most of the rows: on email-Enron's complemented or.and masked mxv (367,662 entries, 36,692
 * rows, the longest rows first) the first of two chunks ended at row 4,521, and two threads ran
 * 1.2-1.3x faster than one. Here row i weighs 1 + SISKIN_EARLY_ROW_MEANS * mean + its entries,
 * mean = the loop's entries / rows: the rows carry most of the weight, and a row that meets no
 * such term and walks all its entries still counts them. 4 means: the fastest split of that
 * kernel's two chunks, timed at fixed rows (row 15,608 of 36,692; 1 and 2 means, and rows alone,
 * were slower: docs/compiler.md). */
#define SISKIN_EARLY_ROW_MEANS 4
#define SISKIN_DEFINE_EARLY_CHUNK(suffix, T)                                                       \
    /* The weight of iterations [lo, i) times the loop's rows (integer weights): rows and entries \
     * below 2^60 each. */                                                                         \
    static inline __int128 siskin_early_work_##suffix(const T *pos, int64_t lo, int64_t hi, int64_t i) { \
        const __int128 rows = hi - lo, entries = (int64_t)pos[hi] - (int64_t)pos[lo];                 \
        return (rows + SISKIN_EARLY_ROW_MEANS * entries) * (i - lo) +                               \
               rows * ((int64_t)pos[i] - (int64_t)pos[lo]);                                           \
    }                                                                                              \
    /* The first iteration of chunk t of `chunks` over [lo, hi), as siskin_chunk_first, with the \
     * rows weighed as above. */                                                                   \
    static inline int64_t siskin_chunk_first_early_##suffix(const T *pos, int64_t lo, int64_t hi, \
                                                            int t, int chunks) {                  \
        if (t <= 0) return lo;                                                                     \
        if (t >= chunks) return hi;                                                                \
        const __int128 goal = siskin_early_work_##suffix(pos, lo, hi, hi) * t / chunks;            \
        SISKIN_FIRST_REACHING(siskin_early_work_##suffix(pos, lo, hi, m), goal);                   \
    }

SISKIN_DEFINE_CHUNK(i32, int32_t)
SISKIN_DEFINE_CHUNK(i64, int64_t)
SISKIN_DEFINE_EARLY_CHUNK(i32, int32_t)
SISKIN_DEFINE_EARLY_CHUNK(i64, int64_t)
#undef SISKIN_DEFINE_CHUNK
#undef SISKIN_DEFINE_EARLY_CHUNK
#undef SISKIN_FIRST_REACHING

/* Dynamic chunks: a loop whose iterations write only their own rows of dense outputs (and scalar
 * partials) is cut into `per_thread` chunks per thread of the team (siskin_chunk_first over that
 * count), and each thread takes the next chunk nobody took yet (siskin_next_chunk on a counter the
 * region shares) until none is left, so that a thread the system delays, or a chunk whose rows
 * cost more than their weight says (email-Enron's short rows: by rows plus entries the second of
 * two static chunks took 6x as long as the first in its row sums), does not hold up the region.
 * Chunk c's iterations, and its partials (folded in chunk order), depend on the chunk count only,
 * never on which thread took it. */
static inline int siskin_chunk_count(int team, int per_thread) { return team * per_thread; }

/* The next chunk not yet taken (at or past the chunk count: none left). */
static inline int64_t siskin_next_chunk(int64_t *next) { return __atomic_fetch_add(next, 1, __ATOMIC_RELAXED); }

#endif
