/* The native backend: blocked Floyd-Warshall on POSIX threads.
 *
 * The matrix is cut into B x B blocks (B = ROUND_DEPTH). Round r relaxes every pair through the
 * intermediate vertices of block r in three phases, each ending in a barrier:
 *   1. the pivot block (r, r), by plain Floyd-Warshall inside it (one thread);
 *   2. the pivot row (r, j) and pivot column (i, r) blocks, against the pivot block;
 *   3. every other block: C(i, j) = min(C(i, j), A(i, r) (+) B(r, j)), a min-plus product.
 * The threads live for the whole solve; the blocks of phases 2 and 3 are split evenly. */
#include "backend.h"
#include "error.h"
#include "fault.h"
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ROUND_DEPTH = 128 };

/* Phases 1 and 2 are simple loops that the compiler vectorises; cloned per instruction set
 * (SSE2 alone has no packed 32-bit min) and picked by the loader for the CPU at hand. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONED_FOR_ISAS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CLONED_FOR_ISAS
#endif

static inline int32_t min32(int32_t a, int32_t b) {
    return a < b ? a : b;
}

/* Floyd-Warshall inside one block. k must be the outer loop: step k reads row k and column k
 * as left by step k - 1 (they do not change at step k because d(k,k) = 0). */
CLONED_FOR_ISAS static void close_block(int32_t *restrict c, size_t stride) {
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        const int32_t *ck = c + k * stride;
        for (size_t i = 0; i < ROUND_DEPTH; i++) {
            int32_t *ci = c + i * stride;
            int32_t cik = ci[k];
            for (size_t j = 0; j < ROUND_DEPTH; j++)
                ci[j] = min32(ci[j], cik + ck[j]);
        }
    }
}

/* The min-plus product C = min(C, A (+) B) on one block, C distinct from A and B: all of
 * phase 3, and phase 2 on a copy of its block (see phase2). Each operand has its own row pitch.
 *
 * A micro-tile of `rows` x MICRO_COLS cells of C stays in registers while k runs over the whole
 * block: per k, `rows` broadcasts of A and MICRO_COLS / lanes vector loads of B feed
 * 2 * rows * MICRO_COLS / lanes vector add and min operations. The loops have constant bounds
 * so that the compiler unrolls them and keeps `acc` in registers; the best `rows` depends on
 * the register file, so each instruction set gets its own instance (relax_block_* below). */
enum { MICRO_COLS = 32, MAX_MICRO_ROWS = 8 };

/* Row pitches, in elements, of the three operands of a block product. */
typedef struct block_pitches {
    size_t c, a, b;
} block_pitches;

static inline __attribute__((always_inline)) void
relax_micro_tile(int32_t *restrict c, const int32_t *restrict a, const int32_t *restrict b,
                 const block_pitches *p, size_t rows) {
    int32_t acc[MAX_MICRO_ROWS][MICRO_COLS];
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < MICRO_COLS; j++)
            acc[r][j] = c[r * p->c + j];
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        const int32_t *bk = b + k * p->b;
        for (size_t r = 0; r < rows; r++) {
            int32_t ark = a[r * p->a + k];
            for (size_t j = 0; j < MICRO_COLS; j++)
                acc[r][j] = min32(acc[r][j], ark + bk[j]);
        }
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < MICRO_COLS; j++)
            c[r * p->c + j] = acc[r][j];
}

/* The C cells of the next micro-tile come from memory (a round touches the whole matrix, which
 * rarely fits in cache); asking for them one tile ahead hides most of that latency. Reading a
 * little past the block is harmless: prefetches never fault. */
static inline __attribute__((always_inline)) void prefetch_rows(const int32_t *c, size_t stride,
                                                                size_t rows) {
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < MICRO_COLS; j += 64 / sizeof(int32_t))
            __builtin_prefetch(c + r * stride + j, 1);
}

static inline __attribute__((always_inline)) void
relax_block_in_tiles(int32_t *restrict c, const int32_t *restrict a, const int32_t *restrict b,
                     const block_pitches *p, size_t rows) {
    for (size_t j = 0; j < ROUND_DEPTH; j += MICRO_COLS) {
        size_t i = 0;
        for (; i + rows <= ROUND_DEPTH; i += rows) {
            prefetch_rows(c + (i + rows) * p->c + j, p->c, rows);
            relax_micro_tile(c + i * p->c + j, a + i * p->a, b + j, p, rows);
        }
        for (; i < ROUND_DEPTH; i++)
            relax_micro_tile(c + i * p->c + j, a + i * p->a, b + j, p, 1);
    }
}

typedef void (*relax_block_fn)(int32_t *restrict c, const int32_t *restrict a,
                               const int32_t *restrict b, const block_pitches *p);

/* Baseline instruction set: SSE2 on x86-64, NEON on AArch64, scalar elsewhere. */
static void relax_block_portable(int32_t *restrict c, const int32_t *restrict a,
                                 const int32_t *restrict b, const block_pitches *p) {
    relax_block_in_tiles(c, a, b, p, 4);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Row counts measured on Zen 4: 4 rows for 32 zmm registers, 3 for 16 ymm registers. */
__attribute__((target("avx512f,avx512vl,avx512bw"))) static void
relax_block_avx512(int32_t *restrict c, const int32_t *restrict a, const int32_t *restrict b,
                   const block_pitches *p) {
    relax_block_in_tiles(c, a, b, p, 4);
}

__attribute__((target("avx2"))) static void relax_block_avx2(int32_t *restrict c,
                                                             const int32_t *restrict a,
                                                             const int32_t *restrict b,
                                                             const block_pitches *p) {
    relax_block_in_tiles(c, a, b, p, 3);
}
#endif

/* The best instance for the CPU we run on; APSP_CPU_ISA=avx512|avx2|portable overrides it
 * (for tests and measurements). */
static relax_block_fn choose_relax_block(const char **isa) {
    const char *want = getenv("APSP_CPU_ISA");
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512bw");
    int avx2 = __builtin_cpu_supports("avx2");
    if (avx512 && (!want || strcmp(want, "avx512") == 0)) {
        *isa = "avx512";
        return relax_block_avx512;
    }
    if (avx2 && (!want || strcmp(want, "avx512") == 0 || strcmp(want, "avx2") == 0)) {
        *isa = "avx2";
        return relax_block_avx2;
    }
#else
    (void)want;
#endif
    *isa = "portable";
    return relax_block_portable;
}

typedef struct solve_state {
    apsp_matrix *m;
    size_t blocks; /* per side */
    unsigned threads;
    pthread_barrier_t barrier;
    const apsp_options *options;
    relax_block_fn relax_block;
    /* Workers wait at this gate until the thread count is final. */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_open;
    int started;
} solve_state;

typedef struct worker {
    solve_state *state;
    unsigned id;
} worker;

static int32_t *block_at(const solve_state *s, size_t bi, size_t bj) {
    return apsp_matrix_row(s->m, bi * ROUND_DEPTH) + bj * ROUND_DEPTH;
}

/* The slice [begin, end) of `total` items that worker `id` of `threads` takes. */
static void share(size_t total, unsigned id, unsigned threads, size_t *begin, size_t *end) {
    *begin = total * id / threads;
    *end = total * (id + 1) / threads;
}

/* Phase 2. With the pivot block P closed, the k-ordered update of a pivot-row block equals the
 * product C = min(C, P (+) C) (a path from pivot row i leaves the pivot block for good at its
 * last pivot vertex k, and P(i, k) is the shortest way to reach it), and a pivot-column block
 * is C = min(C, C (+) P). So phase 2 runs on the fast block product too, reading the old C
 * from a copy since the product must not overwrite an operand it still reads. */
static void phase2(const solve_state *s, size_t r, unsigned id) {
    _Alignas(64) int32_t old[ROUND_DEPTH * ROUND_DEPTH];
    size_t stride = s->m->stride, begin, end;
    const int32_t *pivot = block_at(s, r, r);
    share(2 * (s->blocks - 1), id, s->threads, &begin, &end);
    for (size_t t = begin; t < end; t++) {
        size_t other = t / 2 < r ? t / 2 : t / 2 + 1;
        int pivot_row = t % 2 == 0;
        int32_t *c = pivot_row ? block_at(s, r, other) : block_at(s, other, r);
        for (size_t i = 0; i < ROUND_DEPTH; i++)
            memcpy(old + i * ROUND_DEPTH, c + i * stride, sizeof(int32_t) * ROUND_DEPTH);
        if (pivot_row)
            s->relax_block(c, pivot, old, &(block_pitches){stride, stride, ROUND_DEPTH});
        else
            s->relax_block(c, old, pivot, &(block_pitches){stride, ROUND_DEPTH, stride});
    }
}

static void phase3(const solve_state *s, size_t r, unsigned id) {
    size_t stride = s->m->stride, others = s->blocks - 1, begin, end;
    const block_pitches pitches = {stride, stride, stride};
    share(others * others, id, s->threads, &begin, &end);
    for (size_t t = begin; t < end; t++) {
        size_t bi = t / others, bj = t % others;
        bi += bi >= r;
        bj += bj >= r;
        s->relax_block(block_at(s, bi, bj), block_at(s, bi, r), block_at(s, r, bj), &pitches);
    }
}

static void wait_for_start(solve_state *s) {
    pthread_mutex_lock(&s->gate_lock);
    while (!s->started)
        pthread_cond_wait(&s->gate_open, &s->gate_lock);
    pthread_mutex_unlock(&s->gate_lock);
}

static void *run_worker(void *arg) {
    const worker *w = arg;
    solve_state *s = w->state;
    wait_for_start(s);
    for (size_t r = 0; r < s->blocks; r++) {
        if (w->id == 0)
            close_block(block_at(s, r, r), s->m->stride);
        pthread_barrier_wait(&s->barrier);
        phase2(s, r, w->id);
        pthread_barrier_wait(&s->barrier);
        phase3(s, r, w->id);
        pthread_barrier_wait(&s->barrier);
        if (w->id == 0 && s->options->progress)
            s->options->progress(s->options->progress_context, r + 1, s->blocks);
    }
    return NULL;
}

static apsp_status cpu_solve(apsp_matrix *m, const apsp_options *options,
                             const apsp_device_info *device, apsp_report *report,
                             apsp_error *error) {
    (void)device;
    if (m->padded % ROUND_DEPTH != 0)
        return fail(error, APSP_ERR_INTERNAL, "matrix padding %zu is not a multiple of %d",
                    m->padded, ROUND_DEPTH);
    if (options->threads < 0)
        return fail(error, APSP_ERR_USAGE, "--threads=%d: must be at least 1", options->threads);
    const char *isa;
    solve_state s = {.m = m,
                     .blocks = m->padded / ROUND_DEPTH,
                     .options = options,
                     .relax_block = choose_relax_block(&isa)};
    s.threads = options->threads > 0 ? (unsigned)options->threads : online_cores();
    /* More threads than phase-3 blocks would idle; keep at least one. */
    size_t useful = (s.blocks - 1) * (s.blocks - 1);
    if (s.threads > useful)
        s.threads = useful > 0 ? (unsigned)useful : 1;

    worker *workers = apsp_calloc(s.threads, sizeof *workers);
    pthread_t *ids = apsp_calloc(s.threads, sizeof *ids);
    if (!workers || !ids) {
        free(workers);
        free(ids);
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory preparing %u worker thread(s)",
                    s.threads);
    }
    pthread_mutex_init(&s.gate_lock, NULL);
    pthread_cond_init(&s.gate_open, NULL);
    for (unsigned t = 0; t < s.threads; t++)
        workers[t] = (worker){.state = &s, .id = t};
    /* If the system refuses a thread, run with the ones it gave: the split of the work is fixed
     * only when the gate opens. */
    unsigned created = 1;
    while (created < s.threads && !fault_hit(FAULT_ALLOC) &&
           pthread_create(&ids[created], NULL, run_worker, &workers[created]) == 0)
        created++;
    double start = seconds_now();
    pthread_mutex_lock(&s.gate_lock);
    s.threads = created;
    pthread_barrier_init(&s.barrier, NULL, s.threads);
    s.started = 1;
    pthread_cond_broadcast(&s.gate_open);
    pthread_mutex_unlock(&s.gate_lock);
    run_worker(&workers[0]);
    for (unsigned t = 1; t < created; t++)
        pthread_join(ids[t], NULL);
    pthread_barrier_destroy(&s.barrier);
    pthread_cond_destroy(&s.gate_open);
    pthread_mutex_destroy(&s.gate_lock);
    free(workers);
    free(ids);
    if (report) {
        snprintf(report->backend, sizeof report->backend, "cpu");
        snprintf(report->device, sizeof report->device, "%u POSIX threads, %s", s.threads, isa);
        report->padded = m->padded;
        report->tile = ROUND_DEPTH;
        report->threads = (int)s.threads;
        report->compute_seconds = seconds_now() - start;
    }
    return APSP_OK;
}

static apsp_status cpu_list(device_list *list, apsp_error *error) {
    apsp_device_info *d = device_list_add(list);
    if (!d)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory listing devices");
    d->backend = APSP_BACKEND_CPU;
    snprintf(d->platform, sizeof d->platform, "apsp native");
    snprintf(d->name, sizeof d->name, "CPU threads (pthread backend)");
    snprintf(d->type, sizeof d->type, "host");
    d->compute_units = online_cores();
    d->global_memory = physical_memory();
    d->max_allocation = d->global_memory;
    snprintf(d->driver, sizeof d->driver, "apsp %s", apsp_version());
    return APSP_OK;
}

const apsp_backend_impl apsp_backend_cpu = {
    .name = "cpu",
    .kind = APSP_BACKEND_CPU,
    .list = cpu_list,
    .solve = cpu_solve,
};
