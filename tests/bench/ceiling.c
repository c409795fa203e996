/* The SIMD add-min ceiling probe, for the benchmark (tests/bench/bench_cpu.py).
 *
 *   ceiling THREADS auto|avx2|avx512 [ITERATIONS]
 *
 * Each thread runs ITERATIONS times a loop body that does nothing but relaxations
 * c = min(c, a + b) on vectors held in registers, the shape of apsp's phase-3 micro-tile:
 * ROWS x COLS accumulator vectors, each updated from one of ROWS "a" vectors plus one of COLS "b"
 * vectors, so one vector add and one vector min per accumulator and no loads or stores. There
 * are enough independent accumulators to hide the latency of the min chain. An empty asm
 * statement per iteration tells the compiler that a and b may have changed, so it can neither
 * hoist the additions out of the loop nor fold the loop away; another after each relaxation pins
 * the accumulator to a register and keeps each add next to its min (left alone, GCC 12 does all
 * the adds first and runs out of registers). Empty asm statements emit no instructions: the loop
 * is exactly ROWS * COLS vpaddd and as many vpminsd (plus, for zmm, register moves that the
 * renamer eliminates), as `objdump -d` shows. The start values come from a volatile and argv
 * and the result is printed. The rate printed, THREADS * ITERATIONS * ROWS * COLS * lanes
 * relaxations over the wall time from the start barrier to the last join, is what the cores can
 * do when memory and loads cost nothing: no real kernel can beat it. */
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
    unsigned rows, cols, lanes;
    int32_t (*run)(int32_t seed, uint64_t iterations);
} probe;

#ifdef HAVE_X86_PROBES
/* One relaxation step of every accumulator: c(r,j) = min(c(r,j), a(r) + b(j)) for a 2 x 4 tile
 * (AVX2) or a 4 x 4 tile (AVX-512). Named variables rather than arrays: with arrays GCC 12 keeps
 * the accumulators on the stack. */
#define RELAX(c, a, b)                                                                             \
    c = MIN(c, ADD(a, b));                                                                         \
    __asm__ volatile("" : "+" REG(c))
#define RELAX_ROW(r)                                                                               \
    RELAX(c##r##0, a##r, b0);                                                                      \
    RELAX(c##r##1, a##r, b1);                                                                      \
    RELAX(c##r##2, a##r, b2);                                                                      \
    RELAX(c##r##3, a##r, b3)
#define MIN_ROW(m, r) m = MIN(MIN(MIN(MIN(m, c##r##0), c##r##1), c##r##2), c##r##3)

/* AVX2: 16 ymm registers hold 2 x 4 accumulators, 2 a and 4 b vectors (14 in all). */
enum { AVX2_ROWS = 2, AVX2_COLS = 4 };

#define MIN _mm256_min_epi32
#define ADD _mm256_add_epi32
#define REG "x"
__attribute__((target("avx2"))) static int32_t run_avx2(int32_t seed, uint64_t iterations) {
    __m256i a0 = _mm256_set1_epi32(seed), a1 = _mm256_set1_epi32(seed + 1);
    __m256i b0 = _mm256_set1_epi32(seed + 2), b1 = _mm256_set1_epi32(seed + 3);
    __m256i b2 = _mm256_set1_epi32(seed + 4), b3 = _mm256_set1_epi32(seed + 5);
    __m256i c00 = ADD(a0, a0), c01 = ADD(a0, a1), c02 = ADD(a0, b0), c03 = ADD(a0, b1);
    __m256i c10 = ADD(a1, b2), c11 = ADD(a1, b3), c12 = ADD(a1, a1), c13 = ADD(a1, b0);
    for (uint64_t it = 0; it < iterations; it++) {
        __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(b0), "+x"(b1), "+x"(b2), "+x"(b3));
        RELAX_ROW(0);
        RELAX_ROW(1);
    }
    __m256i m = c00;
    MIN_ROW(m, 0);
    MIN_ROW(m, 1);
    int32_t out[8];
    _mm256_storeu_si256((__m256i *)out, m);
    int32_t result = out[0];
    for (int i = 1; i < 8; i++)
        result = out[i] < result ? out[i] : result;
    return result;
}
#undef MIN
#undef ADD
#undef REG

/* AVX-512: 32 zmm registers hold 4 x 4 accumulators, 4 a and 4 b vectors (24 in all). */
enum { AVX512_ROWS = 4, AVX512_COLS = 4 };

#define MIN _mm512_min_epi32
#define ADD _mm512_add_epi32
#define REG "v"
__attribute__((target("avx512f,avx512vl,avx512bw"))) static int32_t
run_avx512(int32_t seed, uint64_t iterations) {
    __m512i a0 = _mm512_set1_epi32(seed), a1 = _mm512_set1_epi32(seed + 1);
    __m512i a2 = _mm512_set1_epi32(seed + 2), a3 = _mm512_set1_epi32(seed + 3);
    __m512i b0 = _mm512_set1_epi32(seed + 4), b1 = _mm512_set1_epi32(seed + 5);
    __m512i b2 = _mm512_set1_epi32(seed + 6), b3 = _mm512_set1_epi32(seed + 7);
    __m512i c00 = ADD(a0, a0), c01 = ADD(a0, a1), c02 = ADD(a0, a2), c03 = ADD(a0, a3);
    __m512i c10 = ADD(a1, b0), c11 = ADD(a1, b1), c12 = ADD(a1, b2), c13 = ADD(a1, b3);
    __m512i c20 = ADD(a2, a2), c21 = ADD(a2, a3), c22 = ADD(a2, b0), c23 = ADD(a2, b1);
    __m512i c30 = ADD(a3, b2), c31 = ADD(a3, b3), c32 = ADD(b0, b0), c33 = ADD(b1, b1);
    for (uint64_t it = 0; it < iterations; it++) {
        __asm__ volatile(""
                         : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(b0), "+v"(b1), "+v"(b2),
                           "+v"(b3));
        RELAX_ROW(0);
        RELAX_ROW(1);
        RELAX_ROW(2);
        RELAX_ROW(3);
    }
    __m512i m = c00;
    MIN_ROW(m, 0);
    MIN_ROW(m, 1);
    MIN_ROW(m, 2);
    MIN_ROW(m, 3);
    return _mm512_reduce_min_epi32(m);
}
#undef MIN
#undef ADD
#undef REG

static const probe probes[] = {
    {"avx512", AVX512_ROWS, AVX512_COLS, 16, run_avx512},
    {"avx2", AVX2_ROWS, AVX2_COLS, 8, run_avx2},
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
static const probe probes[] = {{"none", 0, 0, 0, NULL}};

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
    pthread_barrier_t *start;
} job;

static void *run_job(void *arg) {
    job *j = arg;
    pthread_barrier_wait(j->start);
    j->result = j->p->run(j->seed, j->iterations);
    return NULL;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The seed comes through a volatile so that the compiler cannot know the start values. */
static volatile int32_t seed_source = 3;

int main(int argc, char **argv) {
    static const char usage[] = "usage: ceiling THREADS auto|avx2|avx512 [ITERATIONS]\n";
    if (argc < 3 || argc > 4) {
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
    if (argc == 4) {
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
            supported(&probes[i]))
            p = &probes[i];
    if (!p) {
        fprintf(stderr, "ceiling: %s is not supported on this CPU (or not a known ISA)\n", argv[2]);
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
    double t0 = seconds_now();
    int32_t check = INT32_MAX;
    for (long t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        if (jobs[t].result < check)
            check = jobs[t].result;
    }
    double seconds = seconds_now() - t0;
    pthread_barrier_destroy(&start);
    double relax = (double)threads * (double)iterations * (double)(p->rows * p->cols * p->lanes);
    printf("ceiling: %ld threads, %s, %ux%u accumulators of %u lanes, %llu iterations, "
           "%.3f s, %.2f G relax/s (check %d)\n",
           threads, p->isa, p->rows, p->cols, p->lanes, (unsigned long long)iterations, seconds,
           relax / seconds / 1e9, (int)check);
    free(jobs);
    free(ids);
    return 0;
}
