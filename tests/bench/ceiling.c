/* The SIMD add-min ceiling probe, for the benchmark (tests/bench/bench_cpu.py).
 *
 *   ceiling THREADS auto|avx2|avx512 [ITERATIONS] [int32|float32|float64]   (default int32)
 *
 * Each thread runs ITERATIONS times a loop body that does nothing but relaxations
 * c = min(c, a + b) on vectors held in registers, of the type (the float ones as the kernels of
 * src/cpu/kernels_x86.c compute them: vaddp[sd], then vminp[sd] with the sum first), the shape of
 * apsp's phase-3 micro-tile: ROWS x COLS accumulator vectors, each updated from one of ROWS "a"
 * vectors plus one of COLS "b" vectors, so one vector add and one vector min per accumulator and no
 * loads or stores. There are enough independent accumulators to hide the latency of the min chain.
 * An empty asm statement per iteration tells the compiler that a and b may have changed, so it can
 * neither hoist the additions out of the loop nor fold the loop away; another after each relaxation
 * pins the accumulator to a register and keeps each add next to its min (left alone, GCC 12 does
 * all the adds first and runs out of registers). Empty asm statements emit no instructions: the
 * loop is exactly ROWS * COLS vpaddd and as many vpminsd (vaddps and vminps, vaddpd and vminpd)
 * (plus, for zmm, register moves that the renamer eliminates), as `objdump -d` shows. The start
 * values come from a volatile and argv and the result is printed. The rate printed,
 * ITERATIONS * ROWS * COLS * lanes relaxations per thread over its own time from
 * the start barrier to its end, summed over the threads, is what the cores can do when memory and
 * loads cost nothing: no real kernel can beat it. (Each thread's own time, not the wall time to the
 * last join: on a virtual machine one slow virtual CPU (a neighbour on its core) made the wall-time
 * rate of 16 threads half of 16 single threads, below what apsp's own kernels then reached on the
 * same 16 threads; tests/bench/block-kernels sums its threads' rates the same way.) */
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_PROBES 1
#include <immintrin.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct probe {
    const char *isa;
    const char *type; /* int32, float32, float64 */
    unsigned rows, cols, lanes;
    int32_t (*run)(int32_t seed, uint64_t iterations);
} probe;

#ifdef HAVE_X86_PROBES
/* Unaligned stores with the cells' pointer, whatever the vector. */
#define STORE_I256(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define STORE_I512(p, v) _mm512_storeu_si512((void *)(p), v)
/* The float kernels' order (src/cpu/kernels_x86.c): the sum first, so that c stays unless the
 * sum is less. */
#define MIN_PS256(c, sum) _mm256_min_ps(sum, c)
#define MIN_PD256(c, sum) _mm256_min_pd(sum, c)
#define MIN_PS512(c, sum) _mm512_min_ps(sum, c)
#define MIN_PD512(c, sum) _mm512_min_pd(sum, c)

/* AVX2: 16 ymm registers hold 2 x 4 accumulators, 2 a and 4 b vectors (14 in all); AVX-512:
 * 32 zmm registers 4 x 4 accumulators, 4 a and 4 b vectors (24 in all). */
#define NAME run_avx2_int32
#define TARGET __attribute__((target("avx2")))
#define CELL int32_t
#define VEC __m256i
#define SET1 _mm256_set1_epi32
#define STOREU STORE_I256
#define ADD _mm256_add_epi32
#define MIN _mm256_min_epi32
#define REG "x"
#define ROWS 2
#include "ceiling_probe.h"

#define NAME run_avx2_float32
#define TARGET __attribute__((target("avx2")))
#define CELL float
#define VEC __m256
#define SET1 _mm256_set1_ps
#define STOREU _mm256_storeu_ps
#define ADD _mm256_add_ps
#define MIN MIN_PS256
#define REG "x"
#define ROWS 2
#include "ceiling_probe.h"

#define NAME run_avx2_float64
#define TARGET __attribute__((target("avx2")))
#define CELL double
#define VEC __m256d
#define SET1 _mm256_set1_pd
#define STOREU _mm256_storeu_pd
#define ADD _mm256_add_pd
#define MIN MIN_PD256
#define REG "x"
#define ROWS 2
#include "ceiling_probe.h"

#define AVX512_TARGET __attribute__((target("avx512f,avx512vl,avx512bw")))
#define NAME run_avx512_int32
#define TARGET AVX512_TARGET
#define CELL int32_t
#define VEC __m512i
#define SET1 _mm512_set1_epi32
#define STOREU STORE_I512
#define ADD _mm512_add_epi32
#define MIN _mm512_min_epi32
#define REG "v"
#define ROWS 4
#include "ceiling_probe.h"

#define NAME run_avx512_float32
#define TARGET AVX512_TARGET
#define CELL float
#define VEC __m512
#define SET1 _mm512_set1_ps
#define STOREU _mm512_storeu_ps
#define ADD _mm512_add_ps
#define MIN MIN_PS512
#define REG "v"
#define ROWS 4
#include "ceiling_probe.h"

#define NAME run_avx512_float64
#define TARGET AVX512_TARGET
#define CELL double
#define VEC __m512d
#define SET1 _mm512_set1_pd
#define STOREU _mm512_storeu_pd
#define ADD _mm512_add_pd
#define MIN MIN_PD512
#define REG "v"
#define ROWS 4
#include "ceiling_probe.h"

/* AVX2: 2 x 4 accumulators; AVX-512: 4 x 4. Lanes by type: 32-bit cells fill twice the lanes. */
static const probe probes[] = {
    {"avx512", "int32", 4, 4, 16, run_avx512_int32},
    {"avx512", "float32", 4, 4, 16, run_avx512_float32},
    {"avx512", "float64", 4, 4, 8, run_avx512_float64},
    {"avx2", "int32", 2, 4, 8, run_avx2_int32},
    {"avx2", "float32", 2, 4, 8, run_avx2_float32},
    {"avx2", "float64", 2, 4, 4, run_avx2_float64},
};

static int supported(const probe *p) {
    __builtin_cpu_init();
    if (strcmp(p->isa, "avx512") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512bw");
    return __builtin_cpu_supports("avx2");
}
#else
/* Elsewhere there is no probe: every ISA is reported unsupported (exit status 77). */
static const probe probes[] = {{"none", "none", 0, 0, 0, NULL}};

static int supported(const probe *p) {
    (void)p;
    return 0;
}
#endif

typedef struct job {
    const probe *p;
    uint64_t iterations;
    int32_t seed;
    int32_t result;
    double seconds; /* from the start barrier to this thread's end */
    pthread_barrier_t *start;
} job;

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *run_job(void *arg) {
    job *j = arg;
    pthread_barrier_wait(j->start);
    double t0 = seconds_now();
    j->result = j->p->run(j->seed, j->iterations);
    j->seconds = seconds_now() - t0;
    return NULL;
}

/* The seed comes through a volatile so that the compiler cannot know the start values. */
static volatile int32_t seed_source = 3;

int main(int argc, char **argv) {
    static const char usage[] =
        "usage: ceiling THREADS auto|avx2|avx512 [ITERATIONS] [int32|float32|float64]\n";
    if (argc < 3 || argc > 5) {
        fputs(usage, stderr);
        return 2;
    }
    char *end;
    long threads = strtol(argv[1], &end, 10);
    if (*end != '\0' || threads < 1 || threads > 1024) {
        fputs(usage, stderr);
        return 2;
    }
    uint64_t iterations = 200000000;
    const char *type = argc == 5 ? argv[4] : "int32";
    if (argc >= 4) {
        unsigned long long v = strtoull(argv[3], &end, 10);
        if (*end != '\0' || v == 0 || argv[3][0] == '-') {
            fprintf(stderr, "ceiling: ITERATIONS must be a positive whole number\n");
            return 2;
        }
        iterations = v;
    }
    const probe *p = NULL;
    for (size_t i = 0; i < sizeof probes / sizeof probes[0] && !p; i++)
        if ((strcmp(argv[2], "auto") == 0 || strcmp(argv[2], probes[i].isa) == 0) &&
            strcmp(type, probes[i].type) == 0 && supported(&probes[i]))
            p = &probes[i];
    if (!p) {
        fprintf(stderr,
                "ceiling: %s %s is not supported on this CPU (or not a known ISA or type)\n",
                argv[2], type);
        return 77;
    }
    job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    pthread_barrier_t start;
    if (!jobs || !ids) {
        fprintf(stderr, "ceiling: out of memory\n");
        return 1;
    }
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    int32_t seed = seed_source + (int32_t)strlen(argv[0]) % 2;
    for (long t = 0; t < threads; t++) {
        jobs[t] = (job){.p = p, .iterations = iterations, .seed = seed, .start = &start};
        if (pthread_create(&ids[t], NULL, run_job, &jobs[t]) != 0) {
            fprintf(stderr, "ceiling: cannot start thread %ld\n", t);
            return 1;
        }
    }
    pthread_barrier_wait(&start);
    int32_t check = INT32_MAX;
    double rate = 0, slowest = 0;
    const double per_thread = (double)iterations * (double)(p->rows * p->cols * p->lanes);
    for (long t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        check = jobs[t].result < check ? jobs[t].result : check;
        rate += per_thread / jobs[t].seconds;
        slowest = jobs[t].seconds > slowest ? jobs[t].seconds : slowest;
    }
    pthread_barrier_destroy(&start);
    printf("ceiling: %ld threads, %s %s, %ux%u accumulators of %u lanes, %llu iterations, "
           "slowest thread %.3f s, %.2f G relax/s (check %d)\n",
           threads, p->isa, p->type, p->rows, p->cols, p->lanes, (unsigned long long)iterations,
           slowest, rate / 1e9, (int)check);
    free(jobs);
    free(ids);
    return 0;
}
