/* The pthread backend's block kernels (kernels.h). */
#include "cpu/kernels.h"
#include "cpu/relax.h"

#include "apsp.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_KERNELS 1
#include <immintrin.h>
#endif

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

CLONED_FOR_ISAS void close_block_negative(int32_t *restrict c, size_t stride) {
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        const int32_t *ck = c + k * stride;
        for (size_t i = 0; i < ROUND_DEPTH; i++) {
            int32_t *ci = c + i * stride;
            int32_t cik = ci[k];
            for (size_t j = 0; j < ROUND_DEPTH; j++)
                ci[j] = relax_negative(ci[j], cik, ck[j]);
        }
    }
}

/* The min-plus product C = min(C, A (+) B) on one block, C distinct from A and B: all of
 * phase 3, and phase 2 on a copy of its block (see phase2). Each operand has its own row pitch.
 *
 * A micro-tile of `rows` x MICRO_COLS cells of C stays in registers while k runs over the whole
 * block: per k, `rows` broadcasts of A and MICRO_COLS / lanes vector loads of B feed
 * 2 * rows * MICRO_COLS / lanes vector add and min operations. The loops have constant bounds
 * so that the compiler unrolls them and keeps `acc` in registers. This generic form is the
 * portable instance. The AVX2 and AVX-512 instances further down are the same scheme written
 * out by hand, with B packed and each register placed: from this loop GCC made code that ran at
 * 64-75 % of the add-min ceiling on x86-64. */
enum { MICRO_COLS = 32, MAX_MICRO_ROWS = 8 };

static inline __attribute__((always_inline)) void
relax_micro_tile(int32_t *restrict c, const int32_t *restrict a, const int32_t *restrict b,
                 const block_pitches *p, size_t rows, int negative) {
    int32_t acc[MAX_MICRO_ROWS][MICRO_COLS];
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < MICRO_COLS; j++)
            acc[r][j] = c[r * p->c + j];
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        const int32_t *bk = b + k * p->b;
        for (size_t r = 0; r < rows; r++) {
            int32_t ark = a[r * p->a + k];
            for (size_t j = 0; j < MICRO_COLS; j++)
                acc[r][j] = negative ? relax_negative(acc[r][j], ark, bk[j])
                                     : min32(acc[r][j], ark + bk[j]);
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
                     const block_pitches *p, size_t rows, int negative) {
    for (size_t j = 0; j < ROUND_DEPTH; j += MICRO_COLS) {
        size_t i = 0;
        for (; i + rows <= ROUND_DEPTH; i += rows) {
            prefetch_rows(c + (i + rows) * p->c + j, p->c, rows);
            relax_micro_tile(c + i * p->c + j, a + i * p->a, b + j, p, rows, negative);
        }
        for (; i < ROUND_DEPTH; i++)
            relax_micro_tile(c + i * p->c + j, a + i * p->a, b + j, p, 1, negative);
    }
}

/* Baseline instruction set: SSE2 on x86-64, NEON on AArch64, scalar elsewhere. */
static void relax_block_portable(void *restrict c, const void *restrict a, const void *restrict b,
                                 const block_pitches *p) {
    relax_block_in_tiles(c, a, b, p, 4, 0);
}

static void relax_block_portable_negative(void *restrict c, const void *restrict a,
                                          const void *restrict b, const block_pitches *p) {
    relax_block_in_tiles(c, a, b, p, 4, 1);
}

#ifdef HAVE_X86_KERNELS
/* The AVX2 instance, by hand. From the generic loop GCC 12 made a 3 x 32 tile that copies C
 * through the stack at every tile and reads B as 128 rows a matrix pitch apart (56 % of the
 * add-min ceiling on Zen 4; 70 % on Sapphire Rapids even with every operand in cache). Here:
 *
 *  - a tile of 6 rows x 16 columns: 12 ymm accumulators, the 2 ymm of B's row k, the broadcast
 *    of A(r, k) and its sum, exactly the 16 registers;
 *  - B's 16 columns are first copied into a contiguous k-major panel (8 KiB, read 21 times from
 *    L1), so the tiles read one sequential stream: +12-14 % in a round over reading B in place;
 *  - each add-min is one asm statement: with the intrinsics GCC 12 computes the adds ahead of
 *    the mins and, out of registers, spills. The asm pins the order and the registers;
 *    `objdump -d` shows per k 2 loads of B, 6 broadcasts and 12 vpaddd/vpminsd pairs, no stack
 *    traffic. */
enum { AVX2_ROWS = 6, AVX2_COLS = 16, AVX2_VECS = AVX2_COLS / 8 };

/* c = min(c, a + b), lane by lane. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
relax_ymm(__m256i c, __m256i a, __m256i b) {
    __m256i sum;
    __asm__("vpaddd %[b], %[a], %[sum]\n\t"
            "vpminsd %[sum], %[c], %[c]"
            : [c] "+x"(c), [sum] "=x"(sum)
            : [a] "x"(a), [b] "x"(b));
    return c;
}

/* Rows [0, rows) x AVX2_COLS of C against the packed panel of B (AVX2_COLS ints per k). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
avx2_tile(int32_t *restrict c, size_t c_pitch, const int32_t *restrict a, size_t a_pitch,
          const int32_t *restrict panel, size_t rows) {
    __m256i acc[AVX2_ROWS][AVX2_VECS];
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < AVX2_VECS; v++)
            acc[r][v] = _mm256_loadu_si256((const __m256i *)(c + r * c_pitch + 8 * v));
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        __m256i bk[AVX2_VECS];
        for (size_t v = 0; v < AVX2_VECS; v++)
            bk[v] = _mm256_load_si256((const __m256i *)(panel + k * AVX2_COLS + 8 * v));
        for (size_t r = 0; r < rows; r++) {
            __m256i ark = _mm256_set1_epi32(a[r * a_pitch + k]);
            for (size_t v = 0; v < AVX2_VECS; v++)
                acc[r][v] = relax_ymm(acc[r][v], ark, bk[v]);
        }
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < AVX2_VECS; v++)
            _mm256_storeu_si256((__m256i *)(c + r * c_pitch + 8 * v), acc[r][v]);
}

__attribute__((target("avx2"))) static void relax_block_avx2(void *restrict c_cells,
                                                             const void *restrict a_cells,
                                                             const void *restrict b_cells,
                                                             const block_pitches *p) {
    int32_t *restrict c = c_cells;
    const int32_t *restrict a = a_cells, *restrict b = b_cells;
    _Alignas(64) int32_t panel[ROUND_DEPTH * AVX2_COLS];
    /* 128 = 21 x 6 + 2: the last two rows make one smaller tile. */
    enum { TAIL_ROWS = ROUND_DEPTH % AVX2_ROWS };
    for (size_t j = 0; j < ROUND_DEPTH; j += AVX2_COLS) {
        for (size_t k = 0; k < ROUND_DEPTH; k++)
            memcpy(panel + k * AVX2_COLS, b + k * p->b + j, sizeof(int32_t) * AVX2_COLS);
        size_t i = 0;
        for (; i + AVX2_ROWS <= ROUND_DEPTH; i += AVX2_ROWS) {
            for (size_t r = 0; r < AVX2_ROWS; r++)
                __builtin_prefetch(c + (i + AVX2_ROWS + r) * p->c + j, 1);
            avx2_tile(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, AVX2_ROWS);
        }
        if (TAIL_ROWS)
            avx2_tile(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, TAIL_ROWS);
    }
}

/* The negative form (relax_negative) on AVX2: per cell vpaddd, two vpmaxsd (the floors of B's
 * cell, kept in a second packed panel, and of A's broadcast) and vpminsd, twice the add-min's
 * work; a tile of 4 x 16 so that the floors have registers (8 accumulators, 2 + 2 of B's row k
 * and its floors, the broadcast, its floor and the sum: 15). */
enum { AVX2_NEG_ROWS = 4 };

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
relax_ymm_negative(__m256i c, __m256i a, __m256i a_floor, __m256i b, __m256i b_floor) {
    __m256i sum;
    __asm__("vpaddd %[b], %[a], %[sum]\n\t"
            "vpmaxsd %[bf], %[sum], %[sum]\n\t"
            "vpmaxsd %[af], %[sum], %[sum]\n\t"
            "vpminsd %[sum], %[c], %[c]"
            : [c] "+x"(c), [sum] "=&x"(sum)
            : [a] "x"(a), [b] "x"(b), [af] "x"(a_floor), [bf] "x"(b_floor));
    return c;
}

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
avx2_tile_negative(int32_t *restrict c, size_t c_pitch, const int32_t *restrict a, size_t a_pitch,
                   const int32_t *restrict panel, const int32_t *restrict floors) {
    __m256i acc[AVX2_NEG_ROWS][AVX2_VECS];
    for (size_t r = 0; r < AVX2_NEG_ROWS; r++)
        for (size_t v = 0; v < AVX2_VECS; v++)
            acc[r][v] = _mm256_loadu_si256((const __m256i *)(c + r * c_pitch + 8 * v));
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        __m256i bk[AVX2_VECS], bf[AVX2_VECS];
        for (size_t v = 0; v < AVX2_VECS; v++) {
            bk[v] = _mm256_load_si256((const __m256i *)(panel + k * AVX2_COLS + 8 * v));
            bf[v] = _mm256_load_si256((const __m256i *)(floors + k * AVX2_COLS + 8 * v));
        }
        for (size_t r = 0; r < AVX2_NEG_ROWS; r++) {
            int32_t ark = a[r * a_pitch + k];
            __m256i av = _mm256_set1_epi32(ark), af = _mm256_set1_epi32(floor_of(ark));
            for (size_t v = 0; v < AVX2_VECS; v++)
                acc[r][v] = relax_ymm_negative(acc[r][v], av, af, bk[v], bf[v]);
        }
    }
    for (size_t r = 0; r < AVX2_NEG_ROWS; r++)
        for (size_t v = 0; v < AVX2_VECS; v++)
            _mm256_storeu_si256((__m256i *)(c + r * c_pitch + 8 * v), acc[r][v]);
}

/* B's columns j .. j + cols into the packed panel, and their floors (floor_of) beside it. */
static inline __attribute__((always_inline)) void
pack_with_floors(int32_t *restrict panel, int32_t *restrict floors, const int32_t *restrict b,
                 size_t b_pitch, size_t j, size_t cols) {
    for (size_t k = 0; k < ROUND_DEPTH; k++)
        for (size_t x = 0; x < cols; x++) {
            int32_t v = b[k * b_pitch + j + x];
            panel[k * cols + x] = v;
            floors[k * cols + x] = floor_of(v);
        }
}

__attribute__((target("avx2"))) static void relax_block_avx2_negative(void *restrict c_cells,
                                                                      const void *restrict a_cells,
                                                                      const void *restrict b_cells,
                                                                      const block_pitches *p) {
    int32_t *restrict c = c_cells;
    const int32_t *restrict a = a_cells, *restrict b = b_cells;
    _Alignas(64) int32_t panel[ROUND_DEPTH * AVX2_COLS];
    _Alignas(64) int32_t floors[ROUND_DEPTH * AVX2_COLS];
    for (size_t j = 0; j < ROUND_DEPTH; j += AVX2_COLS) {
        pack_with_floors(panel, floors, b, p->b, j, AVX2_COLS);
        for (size_t i = 0; i < ROUND_DEPTH; i += AVX2_NEG_ROWS) {
            for (size_t r = 0; r < AVX2_NEG_ROWS; r++)
                __builtin_prefetch(c + (i + AVX2_NEG_ROWS + r) * p->c + j, 1);
            avx2_tile_negative(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, floors);
        }
    }
}

/* The AVX-512 instance, the same scheme on 32 zmm registers: a 6 x 64 tile holds 24
 * accumulators, the 4 zmm of B's row k, the broadcast and its sum (30 registers); its panel of
 * B is 32 KiB. On Sapphire Rapids (48 KiB L1d) it runs a solve at 74 % of the ceiling where
 * the generic 4 x 32 tile (8 accumulators) ran at 64 %; 12 x 32 (a 16 KiB panel, perhaps the
 * better fit for a 32 KiB L1d) measured 68 %. */
enum { AVX512_ROWS = 6, AVX512_COLS = 64, AVX512_VECS = AVX512_COLS / 16 };

__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) __m512i
relax_zmm(__m512i c, __m512i a, __m512i b) {
    __m512i sum;
    __asm__("vpaddd %[b], %[a], %[sum]\n\t"
            "vpminsd %[sum], %[c], %[c]"
            : [c] "+v"(c), [sum] "=v"(sum)
            : [a] "v"(a), [b] "v"(b));
    return c;
}

__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) void
avx512_tile(int32_t *restrict c, size_t c_pitch, const int32_t *restrict a, size_t a_pitch,
            const int32_t *restrict panel, size_t rows) {
    __m512i acc[AVX512_ROWS][AVX512_VECS];
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < AVX512_VECS; v++)
            acc[r][v] = _mm512_loadu_si512(c + r * c_pitch + 16 * v);
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        __m512i bk[AVX512_VECS];
        for (size_t v = 0; v < AVX512_VECS; v++)
            bk[v] = _mm512_load_si512(panel + k * AVX512_COLS + 16 * v);
        for (size_t r = 0; r < rows; r++) {
            __m512i ark = _mm512_set1_epi32(a[r * a_pitch + k]);
            for (size_t v = 0; v < AVX512_VECS; v++)
                acc[r][v] = relax_zmm(acc[r][v], ark, bk[v]);
        }
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < AVX512_VECS; v++)
            _mm512_storeu_si512(c + r * c_pitch + 16 * v, acc[r][v]);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static void
relax_block_avx512(void *restrict c_cells, const void *restrict a_cells,
                   const void *restrict b_cells, const block_pitches *p) {
    int32_t *restrict c = c_cells;
    const int32_t *restrict a = a_cells, *restrict b = b_cells;
    _Alignas(64) int32_t panel[ROUND_DEPTH * AVX512_COLS];
    enum { TAIL_ROWS = ROUND_DEPTH % AVX512_ROWS };
    for (size_t j = 0; j < ROUND_DEPTH; j += AVX512_COLS) {
        for (size_t k = 0; k < ROUND_DEPTH; k++)
            memcpy(panel + k * AVX512_COLS, b + k * p->b + j, sizeof(int32_t) * AVX512_COLS);
        size_t i = 0;
        for (; i + AVX512_ROWS <= ROUND_DEPTH; i += AVX512_ROWS) {
            for (size_t r = 0; r < AVX512_ROWS; r++)
                for (size_t x = 0; x < AVX512_COLS; x += 16)
                    __builtin_prefetch(c + (i + AVX512_ROWS + r) * p->c + j + x, 1);
            avx512_tile(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, AVX512_ROWS);
        }
        if (TAIL_ROWS)
            avx512_tile(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, TAIL_ROWS);
    }
}
/* The negative form on AVX-512: a 4 x 64 tile (16 accumulators, 4 + 4 of B's row k and its
 * floors, the broadcast, its floor and the sum: 27 registers). */
enum { AVX512_NEG_ROWS = 4 };

/* A's floor is a mask here: a row whose A(r, k) is INF leaves C as it is (the masked min). */
__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) __m512i
relax_zmm_negative(__m512i c, __m512i a, __mmask16 a_finite, __m512i b, __m512i b_floor) {
    __m512i sum;
    __asm__("vpaddd %[b], %[a], %[sum]\n\t"
            "vpmaxsd %[bf], %[sum], %[sum]\n\t"
            "vpminsd %[sum], %[c], %[c]%{%[k]%}"
            : [c] "+v"(c), [sum] "=&v"(sum)
            : [a] "v"(a), [b] "v"(b), [k] "Yk"(a_finite), [bf] "v"(b_floor));
    return c;
}

__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) void
avx512_tile_negative(int32_t *restrict c, size_t c_pitch, const int32_t *restrict a, size_t a_pitch,
                     const int32_t *restrict panel, const int32_t *restrict floors) {
    __m512i acc[AVX512_NEG_ROWS][AVX512_VECS];
    for (size_t r = 0; r < AVX512_NEG_ROWS; r++)
        for (size_t v = 0; v < AVX512_VECS; v++)
            acc[r][v] = _mm512_loadu_si512(c + r * c_pitch + 16 * v);
    for (size_t k = 0; k < ROUND_DEPTH; k++) {
        __m512i bk[AVX512_VECS], bf[AVX512_VECS];
        for (size_t v = 0; v < AVX512_VECS; v++) {
            bk[v] = _mm512_load_si512(panel + k * AVX512_COLS + 16 * v);
            bf[v] = _mm512_load_si512(floors + k * AVX512_COLS + 16 * v);
        }
        for (size_t r = 0; r < AVX512_NEG_ROWS; r++) {
            int32_t ark = a[r * a_pitch + k];
            __m512i av = _mm512_set1_epi32(ark);
            __mmask16 finite = (__mmask16)(ark == APSP_INF ? 0 : 0xffff);
            for (size_t v = 0; v < AVX512_VECS; v++)
                acc[r][v] = relax_zmm_negative(acc[r][v], av, finite, bk[v], bf[v]);
        }
    }
    for (size_t r = 0; r < AVX512_NEG_ROWS; r++)
        for (size_t v = 0; v < AVX512_VECS; v++)
            _mm512_storeu_si512(c + r * c_pitch + 16 * v, acc[r][v]);
}

__attribute__((target("avx512f,avx512vl,avx512bw"))) static void
relax_block_avx512_negative(void *restrict c_cells, const void *restrict a_cells,
                            const void *restrict b_cells, const block_pitches *p) {
    int32_t *restrict c = c_cells;
    const int32_t *restrict a = a_cells, *restrict b = b_cells;
    _Alignas(64) int32_t panel[ROUND_DEPTH * AVX512_COLS];
    _Alignas(64) int32_t floors[ROUND_DEPTH * AVX512_COLS];
    for (size_t j = 0; j < ROUND_DEPTH; j += AVX512_COLS) {
        pack_with_floors(panel, floors, b, p->b, j, AVX512_COLS);
        for (size_t i = 0; i < ROUND_DEPTH; i += AVX512_NEG_ROWS) {
            for (size_t r = 0; r < AVX512_NEG_ROWS; r++)
                for (size_t x = 0; x < AVX512_COLS; x += 16)
                    __builtin_prefetch(c + (i + AVX512_NEG_ROWS + r) * p->c + j + x, 1);
            avx512_tile_negative(c + i * p->c + j, p->c, a + i * p->a, p->a, panel, floors);
        }
    }
}
#endif

/* The instances' names, best first; a wanted one the CPU lacks falls to the next. */
static const char *const isa_names[] = {"avx512", "avx2", "portable"};
enum { ISA_COUNT = sizeof isa_names / sizeof isa_names[0] };

relax_block_fn choose_relax_block(const char *want, int negative, const char **isa) {
    size_t first = 0;
    while (want && first < ISA_COUNT && strcmp(want, isa_names[first]) != 0)
        first++;
    if (first == ISA_COUNT)
        return NULL;
#ifdef HAVE_X86_KERNELS
    __builtin_cpu_init();
    int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512bw");
    int avx2 = __builtin_cpu_supports("avx2");
    if (first <= 0 && avx512) {
        *isa = isa_names[0];
        return negative ? relax_block_avx512_negative : relax_block_avx512;
    }
    if (first <= 1 && avx2) {
        *isa = isa_names[1];
        return negative ? relax_block_avx2_negative : relax_block_avx2;
    }
#endif
    *isa = isa_names[2];
    return negative ? relax_block_portable_negative : relax_block_portable;
}
