/* The runtime prelude of siskin's generated C: every kernel includes this file and the standard
 * headers, nothing else. It is a real C11 header so that it is compiled and linted like any other
 * code; the build embeds it (and every other file of runtime/) into the library, and the JIT puts
 * those files on the kernel's include path.
 *
 * Conventions:
 * - Positions, sizes and loop indices are int64_t; coordinate arrays are int32_t or int64_t.
 * - Kernels return an int status: SISKIN_OK, or one of the SISKIN_ERR_* codes below, which the
 *   host turns into a siskin::Error. Kernels never abort the process. */
#ifndef SISKIN_PRELUDE_H
#define SISKIN_PRELUDE_H

/* Allocating, growing and freeing buffer memory, as the host does (first: it asks for
 * _GNU_SOURCE before any system header). */
#include "siskin_memory.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The operator helpers (siskin_add_f64, siskin_min_i64, ...) that operator templates expand to. */
#include "siskin_ops.h"

/* Sorting the touched list of a sparsebytemap workspace (siskin_sort_touched_i32/_i64). */
#include "siskin_touched.h"

/* Min and max of a float array in vector lanes (siskin_reduce_min_f64, ...). */
#include "siskin_reduce.h"

/* Chunks of a loop balanced by work (siskin_chunk_first_i32/_i64, siskin_loop_work_i32/_i64). */
#include "siskin_chunk.h"

/* Whether a nest over short fibres of varying lengths walks flat (siskin_flat_walk_pays_i32/_i64). */
#include "siskin_flat_walk.h"

/* Status codes returned by kernels and by the helpers below. */
enum {
    SISKIN_OK = 0,
    SISKIN_ERR_ALLOC = 1, /* a buffer could not grow: out of memory or a size overflow */
    SISKIN_ERR_INDEX_OVERFLOW = 2, /* a position outgrew an output's 32-bit index buffer */
    SISKIN_ERR_COORDINATE = 3, /* a computed subscript (x[P[i]]) left its tensor */
    SISKIN_ERR_SIZE = 4, /* a buffer's size (a product of extents) does not fit an int64_t */
    SISKIN_ERR_STRUCTURE = 5 /* an output level cannot hold what was written (a second entry in a
                                sparsepoint fibre, a second run in a sparseinterval fibre) */
};

/* Checked sizes: a * b and a + b of non-negative sizes, or -1 when an operand is -1 or the result
 * does not fit an int64_t, so a chain of them (dim0 * dim1 * dim2) is -1 when any step wraps. */
static inline int64_t siskin_size_mul(int64_t a, int64_t b) {
    int64_t r;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return -1;
    return r;
}
static inline int64_t siskin_size_add(int64_t a, int64_t b) {
    int64_t r;
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return -1;
    return r;
}

#if defined(__GNUC__) || defined(__clang__)
#define SISKIN_LIKELY(x) __builtin_expect(!!(x), 1)
#define SISKIN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SISKIN_LIKELY(x) (x)
#define SISKIN_UNLIKELY(x) (x)
#endif

/* A value chosen by a condition without a branch: entry 0 holds one value, entry 1 the other,
 * and `choice[cond]` reads the one the condition picks (the k-way merge of
 * src/compiler/lower_merge.cpp: an operand's fill or its entry at the step's end). */
typedef bool siskin_choice_bool[2];
typedef int8_t siskin_choice_int8_t[2];
typedef int16_t siskin_choice_int16_t[2];
typedef int32_t siskin_choice_int32_t[2];
typedef int64_t siskin_choice_int64_t[2];
typedef uint8_t siskin_choice_uint8_t[2];
typedef uint16_t siskin_choice_uint16_t[2];
typedef uint32_t siskin_choice_uint32_t[2];
typedef uint64_t siskin_choice_uint64_t[2];
typedef float siskin_choice_float[2];
typedef double siskin_choice_double[2];

/* The window of the k-way merge of sorted lists (src/compiler/lower_merge.cpp, window_merge):
 * entry j * k + m holds operand m's value at the window's coordinate j, and bit j of the marks
 * says some operand holds an entry there. Its size is kWindowEntries there. */
#define SISKIN_WINDOW_ENTRIES 8192
typedef bool siskin_window_bool[SISKIN_WINDOW_ENTRIES];
typedef int8_t siskin_window_int8_t[SISKIN_WINDOW_ENTRIES];
typedef int16_t siskin_window_int16_t[SISKIN_WINDOW_ENTRIES];
typedef int32_t siskin_window_int32_t[SISKIN_WINDOW_ENTRIES];
typedef int64_t siskin_window_int64_t[SISKIN_WINDOW_ENTRIES];
typedef uint8_t siskin_window_uint8_t[SISKIN_WINDOW_ENTRIES];
typedef uint16_t siskin_window_uint16_t[SISKIN_WINDOW_ENTRIES];
typedef uint32_t siskin_window_uint32_t[SISKIN_WINDOW_ENTRIES];
typedef uint64_t siskin_window_uint64_t[SISKIN_WINDOW_ENTRIES];
typedef float siskin_window_float[SISKIN_WINDOW_ENTRIES];
typedef double siskin_window_double[SISKIN_WINDOW_ENTRIES];
typedef uint64_t siskin_window_marks[SISKIN_WINDOW_ENTRIES / 64];
static inline int64_t siskin_ctz_u64(uint64_t bits) { return (int64_t)__builtin_ctzll(bits); }

/* A growable array shared with the host: same layout as siskin::RawBuffer
 * (include/siskin/buffer.hpp). `size` elements are in use, `capacity` are allocated; the element
 * type is known to the kernel, not stored. Its memory is a block of siskin_memory.h of
 * capacity * element size bytes. */
typedef struct {
    void *data;
    int64_t size;
    int64_t capacity;
} siskin_buffer;

/* The capacity siskin_buffer_reserve grows to for `need` elements: doubling from at least 16, so
 * that appending n elements one by one costs O(n) in total; -1 when it would not fit a size_t. */
static inline int64_t siskin_buffer_grown_capacity(const siskin_buffer *b, int64_t need,
                                                   size_t elem_size) {
    if (need < 0 || elem_size == 0) return -1;
    int64_t cap = b->capacity < 8 ? 16 : b->capacity;
    while (cap < need) {
        if (cap > INT64_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    if ((uint64_t)cap > SIZE_MAX / elem_size) return -1;
    return cap;
}

/* Room for at least `need` elements of `elem_size` bytes (see siskin_buffer_grown_capacity);
 * memory past the old capacity is zero when `zero` is set. SISKIN_OK, or SISKIN_ERR_ALLOC with the
 * buffer unchanged. */
static inline int siskin_buffer_make_room(siskin_buffer *b, int64_t need, size_t elem_size, int zero) {
    if (SISKIN_LIKELY(need <= b->capacity)) return SISKIN_OK;
    int64_t cap = siskin_buffer_grown_capacity(b, need, elem_size);
    if (cap < 0) return SISKIN_ERR_ALLOC;
    void *data = b->data;
    if (siskin_block_resize(&data, (size_t)b->capacity * elem_size, (size_t)cap * elem_size, zero) != 0)
        return SISKIN_ERR_ALLOC;
    b->data = data;
    b->capacity = cap;
    return SISKIN_OK;
}

/* Makes room for at least `need` elements of `elem_size` bytes. Memory past the old capacity is
 * zero (mapped blocks get it from fresh pages, without touching them). Returns SISKIN_OK, or
 * SISKIN_ERR_ALLOC with the buffer unchanged. */
static inline int siskin_buffer_reserve(siskin_buffer *b, int64_t need, size_t elem_size) {
    return siskin_buffer_make_room(b, need, elem_size, 1);
}

/* siskin_buffer_reserve without the zero-fill, for buffers whose every element is written before
 * it is read (the coordinates and values a sparse output appends): zeroing memory that is
 * overwritten anyway touched every new page twice, and it was most of a sparse add's time. */
static inline int siskin_buffer_grow(siskin_buffer *b, int64_t need, size_t elem_size) {
    return siskin_buffer_make_room(b, need, elem_size, 0);
}

/* Sets the number of elements in use to `n`, growing as siskin_buffer_reserve does. Elements that
 * come into use are zero, also when the buffer shrank before. Returns SISKIN_OK or
 * SISKIN_ERR_ALLOC (buffer unchanged). */
static inline int siskin_buffer_resize(siskin_buffer *b, int64_t n, size_t elem_size) {
    if (n < 0) return SISKIN_ERR_ALLOC;
    int status = siskin_buffer_reserve(b, n, elem_size);
    if (status != SISKIN_OK) return status;
    if (n > b->size)
        memset((char *)b->data + (size_t)b->size * elem_size, 0, (size_t)(n - b->size) * elem_size);
    b->size = n;
    return SISKIN_OK;
}

/* The hash table of a sparsehash level: find, insert, and the sorted lists of freeze
 * (siskin_hash_insert_i32/_i64, ...); it grows siskin_buffers, so it comes after them. */
#include "siskin_hash.h"

/* A hint that the memory at p will be read soon: the fibre an indirect walk reaches a few
 * iterations on (codegen's prefetch_fibres). It never faults and changes no result. */
static inline void siskin_prefetch(const void *p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

/* Hints for the fibre [first, end) of an indirect walk a few iterations on: its first, second
 * and last cache lines, so all of a fibre of up to three lines (a row of B in SpGEMM is often
 * longer than one line, and the hardware prefetcher follows a stream only after a few misses).
 * No branch: a shorter fibre asks for its last line again, an empty one for the byte before it
 * (computed as an integer, as it may lie outside the array; a prefetch never faults). */
static inline void siskin_prefetch_span(const void *first, const void *end) {
    uintptr_t a = (uintptr_t)first, last = (uintptr_t)end - 1;
    siskin_prefetch((const void *)a);
    siskin_prefetch((const void *)(a + 64 < last ? a + 64 : last));
    siskin_prefetch((const void *)last);
}

/* Keeps the float local v in a register of its own at this point (codegen's split_accumulators):
 * the four partial sums of a walk that reads through an index array stay four scalar chains.
 * GCC 12 otherwise packs them into one vector, filled element by element (an emulated gather),
 * which made SpMV with int64 indices slower than the one-chain loop. Changes no value. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define siskin_keep_scalar(v) __asm__("" : "+x"(v))
#else
#define siskin_keep_scalar(v) ((void)(v))
#endif

/* Lower bound: the first position p in [lo, hi) with a[p] >= x, or hi when there is none.
 * a[lo..hi) must be sorted ascending. Used by the follow protocol (random access into a sorted
 * coordinate list). */
static inline int64_t siskin_lower_bound_i32(const int32_t *a, int64_t lo, int64_t hi, int32_t x) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static inline int64_t siskin_lower_bound_i64(const int64_t *a, int64_t lo, int64_t hi, int64_t x) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Galloping (exponential) search: the same result as siskin_lower_bound_*, in O(log d) steps where
 * d is the distance from lo to the answer. The gallop protocol uses it to skip ahead in one sorted
 * list to the next coordinate of another, which makes intersecting a short list with a long one
 * cost O(short * log long) instead of O(long). */
static inline int64_t siskin_gallop_i32(const int32_t *a, int64_t lo, int64_t hi, int32_t x) {
    if (lo >= hi || a[lo] >= x) return lo;
    /* Invariant: a[lo] < x. Probe lo+1, lo+3, lo+7, ... until a probe reaches x or passes hi. */
    int64_t step = 1;
    while (step < hi - lo && a[lo + step] < x) {
        lo += step;
        step *= 2;
    }
    int64_t end = step < hi - lo ? lo + step : hi; /* a[end] >= x, or end == hi */
    return siskin_lower_bound_i32(a, lo + 1, end, x);
}

static inline int64_t siskin_gallop_i64(const int64_t *a, int64_t lo, int64_t hi, int64_t x) {
    if (lo >= hi || a[lo] >= x) return lo;
    int64_t step = 1;
    while (step < hi - lo && a[lo + step] < x) {
        lo += step;
        step *= 2;
    }
    int64_t end = step < hi - lo ? lo + step : hi;
    return siskin_lower_bound_i64(a, lo + 1, end, x);
}

/* Galloping downwards: siskin_lower_bound_*(a, lo, hi, x) - 1 (the last k in [lo, hi) with
 * a[k] < x, or lo - 1 when there is none) in O(log d) steps where d is the distance from hi - 1 to
 * the answer. A list read from its end (wrappers/reverse.hpp) seeks with it, so a seek that
 * moves a few entries costs a few probes. */
#define SISKIN_DEFINE_GALLOP_DOWN(suffix, T)                                                       \
    static inline int64_t siskin_gallop_down_##suffix(const T *a, int64_t lo, int64_t hi, T x) {  \
        if (hi <= lo || a[hi - 1] < x) return hi - 1;                                              \
        /* Invariant: a[hi - 1] >= x. Probe hi-2, hi-4, hi-8, ... until one is below x. */         \
        int64_t step = 1;                                                                          \
        while (step < hi - lo && a[hi - 1 - step] >= x) {                                          \
            hi -= step;                                                                            \
            step *= 2;                                                                             \
        }                                                                                          \
        int64_t from = step < hi - lo ? hi - 1 - step : lo; /* a[from] < x, or from == lo */      \
        return siskin_lower_bound_##suffix(a, from, hi - 1, x) - 1;                                \
    }
SISKIN_DEFINE_GALLOP_DOWN(i32, int32_t)
SISKIN_DEFINE_GALLOP_DOWN(i64, int64_t)
#undef SISKIN_DEFINE_GALLOP_DOWN

#endif /* SISKIN_PRELUDE_H */
