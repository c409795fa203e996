/* Which of the machine's CPUs share a physical core, and what every core busy does to each one's
 * rate: the questions behind the pthread backend's thread scaling (docs/performance.md, "Scaling
 * with cores"). Each worker, pinned to one CPU, runs the add-min step of the kernels on eight
 * independent vectors of 8 int32 (AVX2: vpaddd, vpminsd) for SECONDS, counting steps.
 *   core-pairs [SECONDS]            (default 0.3)
 * Prints, for CPU 0 with each other CPU k, the pair's steps over twice CPU 0's alone (1.00: two
 * cores; about 0.5-0.65: hyperthreads of one core, which the add-min saturates), then every CPU
 * at once: the mean per-CPU rate over the one-CPU rate (below 1: a lower clock or a shared
 * limit with all cores busy). Not a test: a benchmark, built by tests/bench/meson.build. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { MAX_CPUS = 256, LANES = 8 };

typedef struct worker {
    int cpu;
    double seconds;
    uint64_t steps;
    int32_t sink;
    atomic_int *start;
} worker;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((target("avx2"))) static void *run(void *arg) {
    worker *w = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    while (!atomic_load(w->start))
        ;
    __m256i c[LANES], a = _mm256_set1_epi32(3), b = _mm256_set1_epi32(-1);
    for (int l = 0; l < LANES; l++)
        c[l] = _mm256_set1_epi32(1 << 30 | l);
    uint64_t steps = 0;
    double end = now() + w->seconds;
    do {
        for (int r = 0; r < 4096; r++) {
            for (int l = 0; l < LANES; l++) /* c = min(c, c + a), a kept positive: */
                c[l] = _mm256_min_epi32(c[l], _mm256_add_epi32(c[l], a)); /* not folded away */
            a = _mm256_add_epi32(a, b);
            a = _mm256_max_epi32(a, _mm256_set1_epi32(1));
        }
        steps += 4096;
    } while (now() < end);
    int32_t out[8];
    _mm256_storeu_si256((__m256i *)out, c[0]);
    w->sink = out[0];
    w->steps = steps;
    return NULL;
}

/* Runs workers on the given CPUs at once; returns their steps per second, each in rates[]. */
static void run_on(const int *cpus, int count, double seconds, double *rates) {
    worker w[MAX_CPUS];
    pthread_t t[MAX_CPUS];
    atomic_int start = 0;
    for (int i = 0; i < count; i++) {
        w[i] = (worker){.cpu = cpus[i], .seconds = seconds, .start = &start};
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    atomic_store(&start, 1);
    for (int i = 0; i < count; i++) {
        pthread_join(t[i], NULL);
        rates[i] = (double)w[i].steps / seconds;
    }
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 0.3;
    if (!__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "core-pairs: needs AVX2\n");
        return 77;
    }
    cpu_set_t mine;
    sched_getaffinity(0, sizeof mine, &mine);
    int cpus[MAX_CPUS], n = 0;
    for (int c = 0; c < MAX_CPUS && n < MAX_CPUS; c++)
        if (CPU_ISSET(c, &mine))
            cpus[n++] = c;
    double alone[1], pair[2], all[MAX_CPUS];
    run_on(cpus, 1, seconds, alone);
    printf("CPU %d alone: %.3g steps/s\n", cpus[0], alone[0]);
    for (int k = 1; k < n; k++) {
        int two[2] = {cpus[0], cpus[k]};
        run_on(two, 2, seconds, pair);
        printf("CPUs %d and %d together: %.2f of two alone\n", cpus[0], cpus[k],
               (pair[0] + pair[1]) / (2 * alone[0]));
    }
    run_on(cpus, n, seconds, all);
    double sum = 0, least = all[0];
    for (int i = 0; i < n; i++) {
        sum += all[i];
        least = all[i] < least ? all[i] : least;
    }
    run_on(cpus, 1, seconds, alone); /* again, in case the first was before the clock rose */
    printf("all %d CPUs at once: mean %.2f, least %.2f of one CPU alone (%.3g steps/s)\n", n,
           sum / n / alone[0], least / alone[0], alone[0]);
    return 0;
}
