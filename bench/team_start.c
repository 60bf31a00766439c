/* What starting an OpenMP team costs here (docs/compiler.md, the work threshold): an empty
 * region of 1 and of 2 threads against no region, after `gap` microseconds of serial work
 * between regions (0: back to back, as a benchmark's repeats; a while program's host loop and
 * its serial statements leave gaps). Prints the fastest, median and 90th-percentile time.
 *
 *   cc -O2 -fopenmp bench/team_start.c -o /tmp/team_start && /tmp/team_start REPEATS GAP_US
 *
 * Try OMP_WAIT_POLICY=passive or GOMP_SPINCOUNT=N in the environment: libgomp's idle threads
 * spin before they sleep, and a woken one waits for the scheduler.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile int sink;

int main(int argc, char **argv) {
    const int repeats = argc > 1 ? atoi(argv[1]) : 2000;
    const double gap_ns = (argc > 2 ? atof(argv[2]) : 0) * 1e3;
    if (repeats < 10) return 2;
    double *t = malloc(sizeof(double) * (size_t)repeats);
    if (!t) return 1;
    const char *names[] = {"no region", "region of 1", "region of 2"};
    for (int threads = 0; threads <= 2; threads++) {
        for (int r = 0; r < repeats; r++) {
            for (double start = now_ns(); now_ns() - start < gap_ns;) {
            }
            double start = now_ns();
            if (threads == 0) {
                sink++;
            } else {
#pragma omp parallel num_threads(threads)
                if (omp_get_thread_num() == 0) sink++;
            }
            t[r] = now_ns() - start;
        }
        qsort(t, (size_t)repeats, sizeof(double), by_value);
        printf("%-12s gap %7.0f us: fastest %9.0f ns  median %11.0f ns  p90 %11.0f ns\n", names[threads], gap_ns / 1e3,
               t[0], t[repeats / 2], t[repeats * 9 / 10]);
    }
    free(t);
    return 0;
}
