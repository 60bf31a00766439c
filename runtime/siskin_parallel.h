/* The C that kernels with a parallel loop include (after siskin_prelude.h), compiled with
 * -fopenmp: how a loop's iterations are cut into chunks, how an error raised in a
 * chunk reaches the kernel's return value, and the per-thread parts of sparse outputs and
 * workspaces (below).
 *
 * A chunk is a range of consecutive iterations. Chunks are balanced by work: an iteration i
 * weighs 1 plus the entries of the fibre it walks (pos[i + 1] - pos[i] of the level below the
 * loop's), so that a power-law matrix, whose rows differ a thousandfold, gives each thread about
 * the same number of entries rather than of rows. A loop with per-thread parts (below) runs one
 * chunk per thread, thread t chunk t; a loop that writes only its own rows of dense outputs and
 * scalar partials runs several chunks per thread, each thread taking the next chunk left
 * (siskin_next_chunk, siskin_chunk.h). Either way a chunk's iterations, and the order they run
 * in, depend on the thread count only, never on the scheduling.
 */
#ifndef SISKIN_PARALLEL_H
#define SISKIN_PARALLEL_H

#include <omp.h>
#include <stdint.h>

#include "siskin_chunk.h"

/* The threads for a loop of `work` units (iterations plus entries): `threads`, or 1 below
 * `min_work`, where starting the team would cost as much as the loop
 * (CompileOptions::parallel_min_work), and at most `cap` when above 0: the host's limit for
 * this call, the last element of `dims` (1 in a forked child, whose copy of libgomp's thread
 * pool has no threads behind it: a team of one never touches the pool). */
static inline int siskin_team_size(int64_t work, int64_t min_work, int threads, int64_t cap) {
    if (work < min_work) return 1;
    return cap > 0 && cap < threads ? (int)cap : threads;
}

/* The work of `iterations` of a loop with no loop inside (a few loads and a store on dense
 * vectors, about 0.2 ns an element): a fifth of the unit the threshold counts in (a row or a
 * stored entry of SpMV, about 1 ns), so that a loop over a vector of 36,692 elements (email-Enron's
 * vertices in a BFS pass) does not start a team to save less than the team costs to wake. */
static inline int64_t siskin_flat_loop_work(int64_t iterations) { return iterations / 5; }

/* Where share t of `team` equal shares of `total` elements starts: total * t / team, without
 * overflow (total < 2^62, t < 2^31). */
static inline int64_t siskin_share_first(int64_t total, int t, int team) {
    return (int64_t)((__int128)total * t / team);
}

/* siskin_team_size for a loop that also reduces into `elements` output elements its iterations
 * share (a column sum): each thread but the first fills a copy of them and every thread folds a
 * share of all the copies, about two passes over `elements` per thread, so a loop of less than
 * SISKIN_PARTIALS_PER_ELEMENT units of work per element stays on one thread (unless min_work is
 * 0: every loop in parallel, as the tests ask). */
#define SISKIN_PARTIALS_PER_ELEMENT 4
static inline int siskin_team_size_partials(int64_t work, int64_t elements, int64_t min_work, int threads,
                                            int64_t cap) {
    if (min_work > 0 && work / SISKIN_PARTIALS_PER_ELEMENT < elements) return 1;
    return siskin_team_size(work, min_work, threads, cap);
}


/* The largest team a region of this kernel ran on in its last call (Kernel::last_threads): the
 * host sets it to 1 before each call, and thread 0 of each region raises it to its team's size.
 * Calls of one kernel that overlap share it. */
__attribute__((visibility("default"))) int siskin_largest_team = 1;

static inline void siskin_note_team(int team) {
    int seen = __atomic_load_n(&siskin_largest_team, __ATOMIC_RELAXED);
    while (seen < team &&
           !__atomic_compare_exchange_n(&siskin_largest_team, &seen, team, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* Records that chunk t stopped with `status`. The kernel returns the status of the first chunk
 * (in iteration order) that stopped, which is the error a serial run would have met first. */
static inline void siskin_chunk_failed(int *status, int *failed_chunk, int t, int chunk_status) {
#pragma omp critical(siskin_chunk_failed)
    {
        if (t < *failed_chunk) {
            *failed_chunk = t;
            *status = chunk_status;
        }
    }
}

/* Waits until every thread of the region got here (an orphaned barrier binds to the region of
 * the calling thread). */
static inline void siskin_team_barrier(void) {
#pragma omp barrier
}

/* Per-thread parts of an output or a workspace. Thread 0 works in the kernel's own buffers;
 * thread t > 0 in buffers of its own, made here. A part of an output is joined after thread
 * t - 1's part (siskin_part_join_share); rows are cut into chunks in order, so the joined buffers hold
 * what one thread would have appended, in the same order. */
static inline siskin_buffer siskin_part_empty(void) {
    siskin_buffer b = {NULL, 0, 0};
    return b;
}

/* A thread's own copy of a workspace's buffer as it is before the loop (each row leaves the
 * workspace as it found it, so the copy serves every row of the chunk): SISKIN_OK or
 * SISKIN_ERR_ALLOC. */
static inline int siskin_part_copy(siskin_buffer *own, const siskin_buffer *shared, size_t elem_size) {
    if (shared->capacity == 0) return SISKIN_OK;
    if (siskin_buffer_grow(own, shared->capacity, elem_size) != SISKIN_OK) return SISKIN_ERR_ALLOC;
    memcpy(own->data, shared->data, (size_t)shared->capacity * elem_size);
    return SISKIN_OK;
}

/* Thread `thread`'s share of a join: the parts of threads 1 .. team - 1 (counts[t] elements in
 * *owns[t]) go, in thread order, after the counts[0] elements thread 0 appended to the kernel's
 * buffer (grown to hold them all beforehand); thread `thread` of `team` copies the elements from
 * thread/team to (thread + 1)/team of them, so the whole copy takes 1/team of the time one
 * thread would. */
static inline void siskin_part_join_share(siskin_buffer *shared, siskin_buffer *const *owns,
                                          const int64_t *counts, int team, int thread, size_t elem_size) {
    int64_t all = 0;
    for (int t = 1; t < team; ++t) all += counts[t];
    const int64_t lo = siskin_share_first(all, thread, team);
    const int64_t hi = siskin_share_first(all, thread + 1, team);
    int64_t start = 0; /* where thread t's part starts among them all */
    for (int t = 1; t < team && start < hi; ++t) {
        const int64_t end = start + counts[t];
        const int64_t a = lo > start ? lo : start, b = hi < end ? hi : end;
        if (a < b)
            memcpy((char *)shared->data + (size_t)(counts[0] + a) * elem_size,
                   (const char *)owns[t]->data + (size_t)(a - start) * elem_size, (size_t)(b - a) * elem_size);
        start = end;
    }
}

static inline void siskin_part_free(siskin_buffer *own, size_t elem_size) {
    siskin_block_free(own->data, (size_t)own->capacity * elem_size);
    *own = siskin_part_empty();
}

/* Append buffers (and workspace copies) kept from one call to the next. Made anew in each call, thread t > 0's buffers
 * grew from nothing and every page of them was a fresh one, faulted in (zeroed by the system) on
 * first touch and unmapped at the end: for a sparse add of 10^5 entries that cost more than the
 * chunk itself, and two threads ran slower than one. So thread t keeps them at the end of a call
 * in the kernel's slots (SISKIN_KEPT_PARTS of them, which the kernel's source defines: one for
 * each thread but the first, for each part) and starts from them in the next. One call at a time
 * holds the slots (siskin_parts_claim); a call of the same kernel that overlaps it starts from
 * empty buffers, as before. A block over SISKIN_PART_KEEP_MAX bytes is freed, not kept; the kept
 * ones are freed when the kernel is unloaded. */
#ifdef SISKIN_KEPT_PARTS
#define SISKIN_PART_KEEP_MAX ((size_t)64 << 20)

static siskin_buffer siskin_kept_parts[SISKIN_KEPT_PARTS]; /* capacity in bytes, size 0 */
static int siskin_kept_parts_busy;

/* 1 when this call holds the kept buffers (pass it to siskin_parts_unclaim after the region). */
static inline int siskin_parts_claim(void) {
    return __atomic_exchange_n(&siskin_kept_parts_busy, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void siskin_parts_unclaim(int claimed) {
    if (claimed) __atomic_store_n(&siskin_kept_parts_busy, 0, __ATOMIC_RELEASE);
}

/* Thread `thread`'s own buffer of the part whose slots start at `slot`: the one it kept in the
 * last call when the call holds them, else empty (and always for thread 0, which appends to the
 * output's own). */
static inline siskin_buffer siskin_part_start(int claimed, int slot, int thread, size_t elem_size) {
    siskin_buffer own = siskin_part_empty();
    if (!claimed || thread == 0) return own;
    siskin_buffer *kept = &siskin_kept_parts[slot + thread - 1];
    own.data = kept->data;
    own.capacity = kept->capacity / (int64_t)elem_size;
    *kept = siskin_part_empty();
    return own;
}

/* After the join: thread `thread`'s own buffer kept for the next call, or freed. */
static inline void siskin_part_end(siskin_buffer *own, int claimed, int slot, int thread, size_t elem_size) {
    size_t bytes = (size_t)own->capacity * elem_size;
    if (claimed && thread > 0 && bytes <= SISKIN_PART_KEEP_MAX) {
        siskin_buffer kept = {own->data, 0, (int64_t)bytes};
        siskin_kept_parts[slot + thread - 1] = kept;
        *own = siskin_part_empty();
        return;
    }
    siskin_part_free(own, elem_size);
}

__attribute__((destructor)) static void siskin_free_kept_parts(void) {
    for (int k = 0; k < SISKIN_KEPT_PARTS; ++k)
        siskin_block_free(siskin_kept_parts[k].data, (size_t)siskin_kept_parts[k].capacity);
}
#endif

#endif
