/* The pthread backend's block kernels alone, with no rounds, no matrix and no memory traffic
 * beyond the three blocks (docs/performance.md, "CPU kernels per type"):
 *
 *   block-kernels [THREADS] [ISA] [SECONDS] [TYPES]   (defaults 1, best, 1, all four)
 *
 * Each thread owns one B x B block of each operand (C, A, B: 3 x 64 KiB for float32, L2-resident)
 * and calls the type's relax_block (phase 2's and 3's product) on them over and over for about
 * SECONDS; then close_block (phase 1, Floyd-Warshall inside a block) the same way. Prints
 * G relax/s, B^3 per call, summed over the threads. Beside tests/bench/ceiling's rate for the same
 * type, ISA and threads, it splits a full solve's shortfall in two: what the micro-kernel leaves
 * on the table, and what the rounds around it (memory, phase 1, barriers) cost. No thresholds. */
#include "../support/typed_cells.h"
#include "cpu/kernels.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_thread {
    pthread_t thread;
    const block_kernels *kernels;
    apsp_dtype dtype;
    int close; /* time close_block rather than relax_block */
    double seconds;
    unsigned long calls;
    pthread_barrier_t *start;
} bench_thread;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One block of random weights 1-1000 in the type. */
static void fill_block(void *cells, apsp_dtype dtype, unsigned seed) {
    for (size_t i = 0; i < (size_t)ROUND_DEPTH * ROUND_DEPTH; i++) {
        seed = seed * 1103515245u + 12345u;
        set_typed(cells, dtype, i, 1 + (int32_t)((seed >> 16) % 1000));
    }
}

static void *run_thread(void *arg) {
    bench_thread *t = arg;
    size_t bytes = (size_t)ROUND_DEPTH * ROUND_DEPTH * t->kernels->cell;
    char *cells = aligned_alloc(64, 3 * bytes);
    if (!cells)
        abort();
    for (int b = 0; b < 3; b++)
        fill_block(cells + (size_t)b * bytes, t->dtype, 7u + (unsigned)b);
    const block_pitches pitches = {ROUND_DEPTH, ROUND_DEPTH, ROUND_DEPTH};
    pthread_barrier_wait(t->start);
    double start = now(), end = start;
    unsigned long calls = 0;
    while (end - start < t->seconds) {
        for (int i = 0; i < 16; i++) {
            if (t->close)
                t->kernels->close(cells, ROUND_DEPTH);
            else
                t->kernels->relax(cells, cells + bytes, cells + 2 * bytes, &pitches);
        }
        calls += 16;
        end = now();
    }
    t->seconds = end - start;
    t->calls = calls;
    free(cells);
    return NULL;
}

/* Sum over the threads of calls x B^3 / each thread's time, G relax/s. */
static double measure(const block_kernels *kernels, apsp_dtype dtype, int close, unsigned threads,
                      double seconds) {
    bench_thread *t = calloc(threads, sizeof *t);
    pthread_barrier_t start;
    if (!t || pthread_barrier_init(&start, NULL, threads) != 0)
        abort();
    for (unsigned i = 0; i < threads; i++) {
        t[i] = (bench_thread){.kernels = kernels,
                              .dtype = dtype,
                              .close = close,
                              .seconds = seconds,
                              .start = &start};
        if (pthread_create(&t[i].thread, NULL, run_thread, &t[i]) != 0)
            abort();
    }
    double rate = 0, per_call = (double)ROUND_DEPTH * ROUND_DEPTH * ROUND_DEPTH;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(t[i].thread, NULL);
        rate += (double)t[i].calls * per_call / t[i].seconds / 1e9;
    }
    pthread_barrier_destroy(&start);
    free(t);
    return rate;
}

int main(int argc, char **argv) {
    unsigned threads = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
    const char *want = argc > 2 && strcmp(argv[2], "best") != 0 ? argv[2] : NULL;
    double seconds = argc > 3 ? atof(argv[3]) : 1.0;
    const char *only = argc > 4 ? argv[4] : NULL;
    if (threads < 1 || threads > 1024 || seconds <= 0) {
        fprintf(stderr, "usage: block-kernels [THREADS] [ISA|best] [SECONDS] [TYPES]\n");
        return 2;
    }
    static const apsp_dtype types[] = {APSP_INT32, APSP_INT64, APSP_FLOAT32, APSP_FLOAT64};
    printf("%-8s %-9s %7s %16s %16s\n", "type", "isa", "threads", "relax G relax/s",
           "close G relax/s");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (only && !strstr(only, apsp_dtype_name(types[i])))
            continue;
        block_kernels kernels;
        const char *isa = NULL;
        if (!choose_kernels(types[i], 0, want, &kernels, &isa)) {
            fprintf(stderr, "block-kernels: no kernels for %s on %s\n", apsp_dtype_name(types[i]),
                    want ? want : "best");
            return 1;
        }
        double relax = measure(&kernels, types[i], 0, threads, seconds);
        double close = measure(&kernels, types[i], 1, threads, seconds / 4);
        printf("%-8s %-9s %7u %16.2f %16.2f\n", apsp_dtype_name(types[i]), isa, threads, relax,
               close);
        fflush(stdout);
    }
    return 0;
}
