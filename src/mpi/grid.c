/* See grid.h. */
#include "mpi/grid.h"
#include "base/error.h"
#include "backend/blocks.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

int grid_parse(const char *text, int *rows, int *cols) {
    char *end;
    if (*text < '1' || *text > '9')
        return -1;
    errno = 0;
    long r = strtol(text, &end, 10);
    if (errno || *end != 'x' || end[1] < '1' || end[1] > '9' || r > 1 << 20)
        return -1;
    long c = strtol(end + 1, &end, 10);
    if (errno || *end != '\0' || c > 1 << 20)
        return -1;
    *rows = (int)r;
    *cols = (int)c;
    return 0;
}

void grid_auto(int size, int *rows, int *cols) {
    int r = 1;
    for (int d = 1; (long)d * d <= size; d++)
        if (size % d == 0)
            r = d;
    *rows = r;
    *cols = size / r;
}

apsp_status grid_create(MPI_Comm world, int rows, int cols, grid *g, apsp_error *error) {
    *g = (grid){.world = world, .row = MPI_COMM_NULL, .col = MPI_COMM_NULL};
    MPI_Comm_rank(world, &g->rank);
    MPI_Comm_size(world, &g->size);
    if ((long)rows * cols != g->size)
        return fail(error, APSP_ERR_USAGE, "--grid=%dx%d has %ld places for %d rank(s)", rows, cols,
                    (long)rows * cols, g->size);
    g->rows = rows;
    g->cols = cols;
    g->pr = g->rank / cols;
    g->pc = g->rank % cols;
    MPI_Comm_split(world, g->pr, g->pc, &g->row);
    MPI_Comm_split(world, g->pc, g->pr, &g->col);
    return APSP_OK;
}

void grid_destroy(grid *g) {
    if (g->row != MPI_COMM_NULL)
        MPI_Comm_free(&g->row);
    if (g->col != MPI_COMM_NULL)
        MPI_Comm_free(&g->col);
}

size_t owned_blocks(size_t blocks, int procs, int p) {
    return blocks > (size_t)p ? (blocks - (size_t)p + (size_t)procs - 1) / (size_t)procs : 0;
}

/* The elements below V of the blocks p, p + procs, ... (only the last block is partial). */
static size_t valid_elements(size_t vertices, size_t blocks, int procs, int p) {
    size_t count = 0;
    for (size_t b = (size_t)p; b < blocks; b += (size_t)procs) {
        size_t first = b * BLOCK_SIDE;
        count += vertices - first < BLOCK_SIDE ? vertices - first : BLOCK_SIDE;
    }
    return count;
}

void layout_init(layout *l, const grid *g, size_t vertices) {
    l->vertices = vertices;
    l->blocks = (vertices + BLOCK_SIDE - 1) / BLOCK_SIDE;
    l->n = l->blocks * BLOCK_SIDE;
    l->block_rows = owned_blocks(l->blocks, g->rows, g->pr);
    l->block_cols = owned_blocks(l->blocks, g->cols, g->pc);
    l->local_rows = l->block_rows * BLOCK_SIDE;
    l->local_cols = l->block_cols * BLOCK_SIDE;
    l->valid_rows = valid_elements(vertices, l->blocks, g->rows, g->pr);
    l->valid_cols = valid_elements(vertices, l->blocks, g->cols, g->pc);
}

apsp_status layout_check(const layout *l, apsp_error *error) {
    size_t longest = l->local_rows > l->local_cols ? l->local_rows : l->local_cols;
    if ((uint64_t)BLOCK_SIDE * longest > INT_MAX)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "a panel of %zu x %d cells passes MPI's count limit: use more ranks", longest,
                    BLOCK_SIDE);
    return APSP_OK;
}
