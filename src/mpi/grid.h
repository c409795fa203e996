/* The process grid and the block-cyclic distribution of apsp-mpi.
 *
 * P ranks form a Pr x Pc grid, rank = pr * Pc + pc (the order MPI_Type_create_darray assumes).
 * The padded matrix is cut into B x B blocks (B = BLOCK_SIDE, backend/blocks.h); block
 * (I, J) lives on rank (I mod Pr, J mod Pc), as local block (I / Pr, J / Pc) of that rank's
 * local matrix, which keeps its blocks in global order, row-major, row pitch local_cols. */
#ifndef APSP_MPI_GRID_H
#define APSP_MPI_GRID_H

#include "apsp.h"

#include <mpi.h>
#include <stddef.h>

typedef struct grid {
    MPI_Comm world; /* every rank (not owned) */
    MPI_Comm row;   /* the ranks of my process row, ranked by pc */
    MPI_Comm col;   /* the ranks of my process column, ranked by pr */
    int rank, size;
    int rows, cols; /* Pr x Pc */
    int pr, pc;
} grid;

/* "PRxPC", e.g. "2x3". Returns -1 when malformed. */
int grid_parse(const char *text, int *rows, int *cols);

/* The most nearly square Pr x Pc = size with Pr <= Pc. */
void grid_auto(int size, int *rows, int *cols);

/* Collective over world: the row and column communicators. rows * cols must equal the size
 * (APSP_ERR_USAGE otherwise, the same answer on every rank). */
apsp_status grid_create(MPI_Comm world, int rows, int cols, grid *g, apsp_error *error);
void grid_destroy(grid *g);

/* This rank's share of a solve of `vertices` vertices. */
typedef struct layout {
    size_t vertices;
    size_t n;                      /* padded to whole blocks */
    size_t blocks;                 /* per side, n / B */
    size_t block_rows, block_cols; /* local blocks per side */
    size_t local_rows, local_cols; /* local elements per side (whole blocks) */
    size_t valid_rows, valid_cols; /* of those, the ones below V: always a prefix */
} layout;

void layout_init(layout *l, const grid *g, size_t vertices);

/* APSP_ERR_TOO_LARGE where a panel (B x local_cols or local_rows x B) passes MPI's int count. */
apsp_status layout_check(const layout *l, apsp_error *error);

/* The number of the `blocks` block indices that process coordinate p of `procs` owns. */
size_t owned_blocks(size_t blocks, int procs, int p);

#endif
