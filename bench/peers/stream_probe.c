/* A STREAM-style probe of this machine's memory bandwidth, on one core and on every core (OpenMP,
 * static chunks, each thread first touching its own chunk): copy (c = a) and triad
 * (a = b + s*c) over arrays far larger than the caches, best of several passes. Bytes counted
 * as STREAM counts them: 16 per element for copy, 24 for triad (write-allocate traffic not
 * counted). Prints one JSON object: {"copy_gbs": ..., "triad_gbs": ... (one core),
 * "threads_all": T, "copy_gbs_all": ..., "triad_gbs_all": ... (T threads), "array_mib": ...}. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

struct rates {
    double copy_gbs, triad_gbs, check;
};

static struct rates probe(double* a, double* b, double* c, long n, int passes, int threads) {
    double best_copy = 1e30, best_triad = 1e30, s = 3.0;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long i = 0; i < n; ++i) { a[i] = 1.0; b[i] = 2.0; c[i] = 0.5; }
    for (int p = 0; p < passes; ++p) {
        double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < n; ++i) c[i] = a[i];
        double t1 = omp_get_wtime();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
        double t2 = omp_get_wtime();
        if (t1 - t0 < best_copy) best_copy = t1 - t0;
        if (t2 - t1 < best_triad) best_triad = t2 - t1;
    }
    double check = 0;
    for (long i = 0; i < n; i += 4096) check += a[i]; /* keeps the loops from being elided */
    struct rates r = {16.0 * (double)n / best_copy / 1e9, 24.0 * (double)n / best_triad / 1e9, check};
    return r;
}

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : 20L * 1000 * 1000; /* 160 MB per array */
    int passes = argc > 2 ? atoi(argv[2]) : 10;
    int all = omp_get_num_procs();
    double* a = malloc(sizeof(double) * (size_t)n);
    double* b = malloc(sizeof(double) * (size_t)n);
    double* c = malloc(sizeof(double) * (size_t)n);
    if (!a || !b || !c) { fprintf(stderr, "stream_probe: out of memory\n"); return 1; }
    struct rates one = probe(a, b, c, n, passes, 1);
    struct rates many = probe(a, b, c, n, passes, all);
    printf("{\"copy_gbs\": %.3f, \"triad_gbs\": %.3f, \"threads_all\": %d, \"copy_gbs_all\": %.3f, "
           "\"triad_gbs_all\": %.3f, \"array_mib\": %.1f, \"passes\": %d, \"check\": %.1f}\n",
           one.copy_gbs, one.triad_gbs, all, many.copy_gbs, many.triad_gbs, (double)n * 8.0 / 1048576.0,
           passes, one.check + many.check);
    free(a); free(b); free(c);
    return 0;
}
