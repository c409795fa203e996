/* The pthread backend's block kernels: Floyd-Warshall inside the pivot block, and the min-plus
 * block product that does phases 2 and 3, with one instance per instruction set and element
 * type (int32 in kernels.c, the wider types in kernels_typed.c and kernels_x86.c). */
#ifndef APSP_CPU_KERNELS_H
#define APSP_CPU_KERNELS_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

/* Phases 1 and 2 are simple loops that the compiler vectorises, cloned per instruction set
 * (base/util.h: CLONED_FOR_ISAS). */
#include "base/util.h"

/* The round depth B: blocks are B x B. The host matrix is padded to a multiple of it. */
enum { ROUND_DEPTH = 128 };

/* Row pitches, in elements, of the three operands of a block product. */
typedef struct block_pitches {
    size_t c, a, b;
} block_pitches;

/* C = min(C, A (+) B) on one block, C distinct from A and B, cells of the instance's type. */
typedef void (*relax_block_fn)(void *restrict c, const void *restrict a, const void *restrict b,
                               const block_pitches *p);
/* Floyd-Warshall inside one block of row pitch `stride`, in place. */
typedef void (*close_block_fn)(void *restrict c, size_t stride);

/* Floyd-Warshall inside one block of row pitch `stride`; the negative form for graphs with a
 * negative weight (kernels.c: relax_negative). */
void close_block(int32_t *restrict c, size_t stride);
void close_block_negative(int32_t *restrict c, size_t stride);

/* The best instance for the CPU we run on, or `want` ("avx512", "avx2", "portable"; a set the
 * CPU lacks falls to the next one down; NULL: the best), in the negative form (negative = 1) or
 * the add-min. *isa receives the one chosen. NULL for a `want` that names none of them. */
relax_block_fn choose_relax_block(const char *want, int negative, const char **isa);

/* The kernels of one element type and form. */
typedef struct block_kernels {
    close_block_fn close;
    relax_block_fn relax;
    size_t cell; /* bytes per cell */
    /* Integer sums are exact, so a closed pivot P leaves the pivot rows R as they are
     * (P (x) R = R); rounded floating-point sums need not (backend.c: the pivot rows' pass). */
    int exact;
} block_kernels;

/* As choose_relax_block, for any element type. Returns 0 for a `want` that names no
 * instruction set or a type with no kernels. */
int choose_kernels(apsp_dtype dtype, int negative, const char *want, block_kernels *out,
                   const char **isa);

/* The wider types' instances on x86-64 (kernels_x86.c), by type and form: NULL where the set
 * or the CPU has none. isa_rank: 0 AVX-512, 1 AVX2. */
relax_block_fn choose_x86_relax(apsp_dtype dtype, int negative, int isa_rank);

/* A graph of at most ROUND_DEPTH vertices solved in place on the calling thread, over its n x n
 * cells alone (small.c): the blocked solve's result bit for bit, in the negative form for
 * integers when `negative`; an int32 graph without negative weights whose distances all stay
 * below 2^14 - 1 ((n - 1) * most) in int16 lanes, twice as many a vector, with the same exact
 * result. APSP_ERR_INTERNAL for a larger graph. */
apsp_status cpu_solve_small(apsp_matrix *matrix, int negative, uint64_t most, apsp_error *error);

#endif
