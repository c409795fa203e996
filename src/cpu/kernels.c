/* The pthread backend's block kernels (kernels.h). */
#include "cpu/kernels.h"

#include <string.h>

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
CLONED_FOR_ISAS void close_block(int32_t *restrict c, size_t stride) {
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

/* The instances' names, best first; a wanted one the CPU lacks falls to the next. */
static const char *const isa_names[] = {"avx512", "avx2", "portable"};
enum { ISA_COUNT = sizeof isa_names / sizeof isa_names[0] };

relax_block_fn choose_relax_block(const char *want, const char **isa) {
    size_t first = 0;
    while (want && first < ISA_COUNT && strcmp(want, isa_names[first]) != 0)
        first++;
    if (first == ISA_COUNT)
        return NULL;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512bw");
    int avx2 = __builtin_cpu_supports("avx2");
    if (first <= 0 && avx512) {
        *isa = isa_names[0];
        return relax_block_avx512;
    }
    if (first <= 1 && avx2) {
        *isa = isa_names[1];
        return relax_block_avx2;
    }
#endif
    *isa = isa_names[2];
    return relax_block_portable;
}
