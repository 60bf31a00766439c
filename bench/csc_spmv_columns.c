/* Where CSC SpMV's time goes: the loop siskin generates for `y[i] += A[i,j] * x[j]` with a CSC A
 * (plan "loops j, i; outer products", the same loop as SciPy's csc_matvec), against a blocked
 * variant, on the same entries with uneven and with even column lengths.
 *
 *   cc -O3 -march=native -std=c11 -o /tmp/csc_spmv_columns bench/csc_spmv_columns.c
 *   nice -n 10 /tmp/csc_spmv_columns [n] [entries per column] [rounds]   (default 40000 12 400)
 *
 * The matrix is bench/planner_error.py's SpMV one in shape: n x n, entries at uniform random
 * coordinates (SciPy's sp.random), so column lengths vary around the mean. "even" moves the column
 * boundaries so that every column holds the same number of the same entries.
 *
 * - columns: for j { for p in column j: y[crd[p]] += val[p] * x[j] } (the generated kernel).
 *   The inner loop's exit depends on the column's length: where lengths vary, about one
 *   mispredicted branch per column.
 * - blocked: columns grouped into blocks of at most BLOCK entries; for each block, x[j] is copied
 *   beside each of column j's entries into a small local array (16 copies per column with two
 *   vector stores, later columns overwriting the overshoot; a longer column in a loop), then one
 *   flat loop over the block's entries: y[crd[p]] += val[p] * xv[p - first]. Its trip count does
 *   not depend on the columns. Entries are added to each y[i] in the same order as `columns`
 *   does, so the results are bit-identical (checked).
 * Times: the minimum over the rounds, the variants alternating in each round. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK 1024

static int64_t n;
static int32_t *pos, *crd;
static double *val, *x;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t state = 88172645463325252ull;
static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

__attribute__((noinline)) static void columns(double *restrict y) {
    for (int64_t k = 0; k < n; k++) y[k] = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t p = pos[j]; p < pos[j + 1]; p++) y[crd[p]] += val[p] * x[j];
}

__attribute__((noinline)) static void blocked(double *restrict y) {
    double xv[BLOCK + 16] __attribute__((aligned(64)));
    for (int64_t k = 0; k < n; k++) y[k] = 0.0;
    int64_t j = 0;
    while (j < n) {
        int64_t first = pos[j];
        if (pos[j + 1] - first > BLOCK) { /* a column longer than a block: on its own */
            for (int64_t p = first; p < pos[j + 1]; p++) y[crd[p]] += val[p] * x[j];
            j++;
            continue;
        }
        int64_t c = j;
        for (; c < n && pos[c + 1] - first <= BLOCK; c++) {
            int64_t at = pos[c] - first, len = pos[c + 1] - pos[c];
            double xc = x[c];
            if (len <= 16)
                for (int k = 0; k < 16; k++) xv[at + k] = xc;
            else
                for (int64_t k = 0; k < len; k++) xv[at + k] = xc;
        }
        const int64_t count = pos[c] - first;
        const int32_t *rows = crd + first;
        const double *vals = val + first;
        for (int64_t q = 0; q < count; q++) y[rows[q]] += vals[q] * xv[q];
        j = c;
    }
}

static int by_row(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void measure(const char *what, int rounds) {
    double *y0 = malloc(sizeof(double) * (size_t)n), *y1 = malloc(sizeof(double) * (size_t)n);
    double best0 = 1e30, best1 = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t = now();
        columns(y0);
        double d = now() - t;
        if (d < best0) best0 = d;
        t = now();
        blocked(y1);
        d = now() - t;
        if (d < best1) best1 = d;
    }
    int same = memcmp(y0, y1, sizeof(double) * (size_t)n) == 0;
    printf("%-30s columns %8.1f us   blocked %8.1f us   columns/blocked %.2f   bit-identical: %s\n", what,
           best0 * 1e6, best1 * 1e6, best0 / best1, same ? "yes" : "NO");
    free(y0);
    free(y1);
    if (!same) exit(1);
}

int main(int argc, char **argv) {
    n = argc > 1 ? atoll(argv[1]) : 40000;
    int64_t per = argc > 2 ? atoll(argv[2]) : 12;
    int rounds = argc > 3 ? atoi(argv[3]) : 400;
    int64_t nnz = n * per;
    /* Uniform random coordinates, counted into columns, rows sorted and duplicates dropped. */
    int32_t *col = malloc(sizeof(int32_t) * (size_t)nnz), *row = malloc(sizeof(int32_t) * (size_t)nnz);
    pos = calloc((size_t)n + 1, sizeof(int32_t));
    for (int64_t k = 0; k < nnz; k++) {
        col[k] = (int32_t)(next_random() % (uint64_t)n);
        row[k] = (int32_t)(next_random() % (uint64_t)n);
        pos[col[k] + 1]++;
    }
    for (int64_t j = 0; j < n; j++) pos[j + 1] += pos[j];
    crd = malloc(sizeof(int32_t) * (size_t)nnz);
    int32_t *fill = malloc(sizeof(int32_t) * (size_t)n);
    memcpy(fill, pos, sizeof(int32_t) * (size_t)n);
    for (int64_t k = 0; k < nnz; k++) crd[fill[col[k]]++] = row[k];
    int64_t out = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t lo = pos[j], hi = pos[j + 1];
        qsort(crd + lo, (size_t)(hi - lo), sizeof(int32_t), by_row);
        pos[j] = (int32_t)out;
        for (int64_t p = lo; p < hi; p++)
            if (p == lo || crd[p] != crd[p - 1]) crd[out++] = crd[p];
    }
    pos[n] = (int32_t)out;
    nnz = out;
    val = malloc(sizeof(double) * (size_t)nnz);
    x = malloc(sizeof(double) * (size_t)n);
    for (int64_t p = 0; p < nnz; p++) val[p] = (double)(1 + next_random() % 5);
    for (int64_t j = 0; j < n; j++) x[j] = (double)(1 + j % 3);
    printf("%lld x %lld, %lld entries, %d rounds\n", (long long)n, (long long)n, (long long)nnz, rounds);
    measure("uneven columns (random)", rounds);
    for (int64_t j = 0; j <= n; j++) pos[j] = (int32_t)(j * nnz / n);
    measure("even columns (same entries)", rounds);
    return 0;
}
