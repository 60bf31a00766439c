/* A STREAM-style probe of this machine's single-core memory bandwidth: copy (c = a) and triad
 * (a = b + s*c) over arrays far larger than the caches, best of several passes. Bytes counted
 * as STREAM counts them: 16 per element for copy, 24 for triad (write-allocate traffic not
 * counted). Prints one JSON object: {"copy_gbs": ..., "triad_gbs": ..., "array_mib": ...}. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : 20L * 1000 * 1000; /* 160 MB per array */
    int passes = argc > 2 ? atoi(argv[2]) : 10;
    double* a = malloc(sizeof(double) * (size_t)n);
    double* b = malloc(sizeof(double) * (size_t)n);
    double* c = malloc(sizeof(double) * (size_t)n);
    if (!a || !b || !c) { fprintf(stderr, "stream_probe: out of memory\n"); return 1; }
    for (long i = 0; i < n; ++i) { a[i] = 1.0; b[i] = 2.0; c[i] = 0.5; }
    double best_copy = 1e30, best_triad = 1e30, s = 3.0;
    for (int p = 0; p < passes; ++p) {
        double t0 = now();
        for (long i = 0; i < n; ++i) c[i] = a[i];
        double t1 = now();
        for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
        double t2 = now();
        if (t1 - t0 < best_copy) best_copy = t1 - t0;
        if (t2 - t1 < best_triad) best_triad = t2 - t1;
    }
    double check = 0;
    for (long i = 0; i < n; i += 4096) check += a[i]; /* keeps the loops from being elided */
    printf("{\"copy_gbs\": %.3f, \"triad_gbs\": %.3f, \"array_mib\": %.1f, \"passes\": %d, \"check\": %.1f}\n",
           16.0 * (double)n / best_copy / 1e9, 24.0 * (double)n / best_triad / 1e9,
           (double)n * 8.0 / 1048576.0, passes, check);
    free(a); free(b); free(c);
    return 0;
}
