/* The pthread backend's block kernels: Floyd-Warshall inside the pivot block, and the min-plus
 * block product that does phases 2 and 3, with one instance per instruction set. */
#ifndef APSP_CPU_KERNELS_H
#define APSP_CPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* The round depth B: blocks are B x B. The host matrix is padded to a multiple of it. */
enum { ROUND_DEPTH = 128 };

/* Row pitches, in elements, of the three operands of a block product. */
typedef struct block_pitches {
    size_t c, a, b;
} block_pitches;

/* C = min(C, A (+) B) on one block, C distinct from A and B. */
typedef void (*relax_block_fn)(int32_t *restrict c, const int32_t *restrict a,
                               const int32_t *restrict b, const block_pitches *p);

/* Floyd-Warshall inside one block of row pitch `stride`; the negative form for graphs with a
 * negative weight (kernels.c: relax_negative). */
void close_block(int32_t *restrict c, size_t stride);
void close_block_negative(int32_t *restrict c, size_t stride);

/* The best instance for the CPU we run on, or `want` ("avx512", "avx2", "portable"; a set the
 * CPU lacks falls to the next one down; NULL: the best), in the negative form (negative = 1) or
 * the add-min. *isa receives the one chosen. NULL for a `want` that names none of them. */
relax_block_fn choose_relax_block(const char *want, int negative, const char **isa);

#endif
