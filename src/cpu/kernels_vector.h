/* One vector instance of the min-plus block product, instantiated by kernels_x86.c: kernels.c's
 * hand-placed AVX scheme (a register tile of C, B's columns packed k-major) for any element
 * type and vector width. Define before including:
 *
 *   NAME              the relax_block_fn to define       TARGET   its target attribute
 *   CELL, VEC, LANES  the element, the vector and its lanes
 *   ROWS, VECS        the register tile: ROWS rows x VECS vectors of C
 *   VLOAD(p), VLOADU(p), VSTOREU(p, v), VSET1(x)   aligned and unaligned loads, store, broadcast
 *   VRELAX(c, a, b)   min(c, a + b) lane by lane in the type's form (kernels_x86.c)
 *
 * The parameters are undefined at the end, ready for the next instance.
 * A tile of C stays in registers while k runs over the block: per k, VECS loads of the packed
 * panel and ROWS broadcasts of A feed ROWS * VECS relaxations. */
#if !defined(NAME) || !defined(TARGET) || !defined(CELL) || !defined(VEC) || !defined(LANES) ||    \
    !defined(ROWS) || !defined(VECS) || !defined(VLOAD) || !defined(VLOADU) ||                     \
    !defined(VSTOREU) || !defined(VSET1) || !defined(VRELAX)
#error "define every parameter before including cpu/kernels_vector.h"
#endif

#define VECTOR_JOIN2(a, b) a##_##b
#define VECTOR_JOIN(a, b) VECTOR_JOIN2(a, b)
#define VECTOR_TILE VECTOR_JOIN(NAME, tile)

/* Rows [0, rows) x ROWS * LANES columns of C against the packed panel of B. */
TARGET static inline __attribute__((always_inline)) void
VECTOR_TILE(CELL *restrict c, size_t c_pitch, const CELL *restrict a, size_t a_pitch,
            const CELL *restrict panel, size_t rows) {
    VEC acc[ROWS][VECS];
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < VECS; v++)
            acc[r][v] = VLOADU(c + r * c_pitch + LANES * v);
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        VEC bk[VECS];
        for (size_t v = 0; v < VECS; v++)
            bk[v] = VLOAD(panel + k * VECS * LANES + LANES * v);
        for (size_t r = 0; r < rows; r++) {
            VEC ark = VSET1(a[r * a_pitch + k]);
            for (size_t v = 0; v < VECS; v++)
                acc[r][v] = VRELAX(acc[r][v], ark, bk[v]);
        }
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < VECS; v++)
            VSTOREU(c + r * c_pitch + LANES * v, acc[r][v]);
}

TARGET static void NAME(void *restrict c_cells, const void *restrict a_cells,
                        const void *restrict b_cells, const block_pitches *p) {
    enum { COLS = VECS * LANES, TAIL_ROWS = ROUND_DEPTH % ROWS, LINE = 64 / sizeof(CELL) };
    CELL *restrict c = c_cells;
    const CELL *restrict a = a_cells, *restrict b = b_cells;
    _Alignas(64) CELL panel[ROUND_DEPTH * COLS];
    for (size_t j = 0; j < ROUND_DEPTH; j += COLS) {
        for (size_t k = 0; k < ROUND_DEPTH; k++)
            memcpy(panel + k * COLS, b + k * p->b + j, sizeof(CELL) * COLS);
        size_t i = 0;
        for (; i + ROWS <= ROUND_DEPTH; i += ROWS) {
            /* The next tile's C from memory, one tile ahead (kernels.c: prefetch_rows). */
            for (size_t r = 0; r < ROWS; r++)
                for (size_t x = 0; x < COLS; x += LINE)
                    __builtin_prefetch(c + (i + ROWS + r) * p->c + j + x, 1);
            VECTOR_TILE(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, ROWS);
        }
        if (TAIL_ROWS)
            VECTOR_TILE(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, TAIL_ROWS);
    }
}

#undef VECTOR_TILE
#undef VECTOR_JOIN
#undef VECTOR_JOIN2
/* Each instance defines its own parameters. */
#undef NAME
#undef TARGET
#undef CELL
#undef VEC
#undef LANES
#undef ROWS
#undef VECS
#undef VLOAD
#undef VLOADU
#undef VSTOREU
#undef VSET1
#undef VRELAX
