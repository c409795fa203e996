/* The portable block kernels of one element type and form, instantiated by kernels_typed.c:
 *
 *   #define CELL   the element type              #define SUFFIX  the instances' name suffix
 *   #define RELAX(c, a, b)  min(c, a + b) in the type's form, the step of every kernel
 *   #include "cpu/kernels_portable.h"
 *
 * defines close_block_SUFFIX (Floyd-Warshall inside one block) and relax_block_portable_SUFFIX
 * (the min-plus product, kernels.c's generic micro-tile scheme). Every sum is rounded once and
 * min keeps c unless the sum is below it, the order of cl/fw.cl and tests/support/oracle_typed.c.
 */
#if !defined(CELL) || !defined(SUFFIX) || !defined(RELAX)
#error "define CELL, SUFFIX and RELAX before including cpu/kernels_portable.h"
#endif

#define PORTABLE_JOIN2(a, b) a##_##b
#define PORTABLE_JOIN(a, b) PORTABLE_JOIN2(a, b)
#define PORTABLE_NAME(base) PORTABLE_JOIN(base, SUFFIX)

/* k must be the outer loop: step k reads row k and column k as left by step k - 1 (they do not
 * change at step k because d(k, k) = 0). */
CLONED_FOR_ISAS static void PORTABLE_NAME(close_block)(void *restrict cells, size_t stride) {
    CELL *restrict c = cells;
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        const CELL *ck = c + k * stride;
        for (size_t i = 0; i < ROUND_DEPTH; i++) {
            CELL *ci = c + i * stride;
            CELL cik = ci[k];
            for (size_t j = 0; j < ROUND_DEPTH; j++)
                ci[j] = RELAX(ci[j], cik, ck[j]);
        }
    }
}

/* PORTABLE_ROWS x PORTABLE_COLS cells of C (two cache lines a row) stay in registers while k
 * runs over the block; constant bounds let the compiler unroll and vectorise the tile. */
enum { PORTABLE_NAME(PORTABLE_ROWS) = 4, PORTABLE_NAME(PORTABLE_COLS) = 128 / sizeof(CELL) };

static inline __attribute__((always_inline)) void
PORTABLE_NAME(micro_tile)(CELL *restrict c, const CELL *restrict a, const CELL *restrict b,
                          const block_pitches *p, size_t rows) {
    enum { COLS = PORTABLE_NAME(PORTABLE_COLS) };
    CELL acc[PORTABLE_NAME(PORTABLE_ROWS)][COLS];
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < COLS; j++)
            acc[r][j] = c[r * p->c + j];
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        const CELL *bk = b + k * p->b;
        for (size_t r = 0; r < rows; r++) {
            CELL ark = a[r * p->a + k];
            for (size_t j = 0; j < COLS; j++)
                acc[r][j] = RELAX(acc[r][j], ark, bk[j]);
        }
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < COLS; j++)
            c[r * p->c + j] = acc[r][j];
}

static void PORTABLE_NAME(relax_block_portable)(void *restrict c_cells,
                                                const void *restrict a_cells,
                                                const void *restrict b_cells,
                                                const block_pitches *p) {
    enum { ROWS = PORTABLE_NAME(PORTABLE_ROWS), COLS = PORTABLE_NAME(PORTABLE_COLS) };
    CELL *restrict c = c_cells;
    const CELL *restrict a = a_cells, *restrict b = b_cells;
    for (size_t j = 0; j < ROUND_DEPTH; j += COLS)
        for (size_t i = 0; i < ROUND_DEPTH; i += ROWS) /* ROWS divides ROUND_DEPTH */
            PORTABLE_NAME(micro_tile)(c + i * p->c + j, a + i * p->a, b + j, p, ROWS);
}

#undef PORTABLE_NAME
#undef PORTABLE_JOIN
#undef PORTABLE_JOIN2
