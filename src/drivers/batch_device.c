/* A batch's small graphs on a device that solves many at once (drivers.h: drive_batch_device,
 * backend.h: backend_graphs): a call per chunk of graphs, each chunk packed into one staging
 * buffer so that it goes up and down in one transfer each, whatever the batch's layout (packed,
 * padded, or with larger graphs between the small ones). */
#include "drivers/drivers.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* A chunk's most graphs and bytes: large enough that the calls and launches cost little beside
 * the transfers, small enough that the staging stays a small part of the host's memory. */
enum { CHUNK_GRAPHS = 1 << 16, CHUNK_BYTES = 64 << 20 };

typedef struct chunk {
    char *cells; /* CHUNK_BYTES, packed */
    uint64_t *offsets;
    uint32_t *sizes;
    uint8_t *negative;
    size_t *graph; /* the batch's number of each graph of the chunk */
    size_t count, cells_count;
} chunk;

/* A graph's rows into (out) or out of its packed cells in a chunk. */
static void move_rows(const apsp_matrix *view, char *packed, int out) {
    const size_t row = view->n * apsp_dtype_size(view->dtype);
    for (size_t i = 0; i < view->n; i++) {
        char *cells = apsp_matrix_row_cells(view, i);
        if (out)
            memcpy(packed + i * row, cells, row);
        else
            memcpy(cells, packed + i * row, row);
    }
}

/* The chunk solved on the device, unpacked and its negative graphs' diagonals read. */
static apsp_status flush(const apsp_backend_impl *impl, backend_device *device,
                         const batch_plan *plan, chunk *c, graphs_times *times, apsp_error *error) {
    const graphs_call call = {plan->batch->dtype, c->cells,    c->cells_count, c->offsets,
                              c->sizes,           c->negative, c->count};
    apsp_status status = impl->graphs->solve(device, &call, times, error);
    const size_t cell = apsp_dtype_size(plan->batch->dtype);
    for (size_t k = 0; status == APSP_OK && k < c->count; k++) {
        const apsp_matrix view = batch_view(plan, c->graph[k]);
        move_rows(&view, c->cells + c->offsets[k] * cell, 0);
        apsp_error cause;
        if (c->negative[k] && matrix_check_cycles(&view, &cause) != APSP_OK)
            status = batch_fail(error, &cause, c->graph[k]);
    }
    c->count = c->cells_count = 0;
    return status;
}

/* Graph g made ready and packed into the chunk (flushed first when it is full). */
static apsp_status take(const apsp_backend_impl *impl, backend_device *device,
                        const batch_plan *plan, chunk *c, size_t g, graphs_times *times,
                        apsp_error *error) {
    cell_facts facts;
    apsp_error cause;
    if (batch_ready(plan, g, &facts, &cause) != APSP_OK)
        return batch_fail(error, &cause, g);
    const apsp_matrix view = batch_view(plan, g);
    if (view.n == 0)
        return APSP_OK;
    const size_t cell = apsp_dtype_size(view.dtype), cells = view.n * view.n;
    apsp_status status = APSP_OK;
    if (c->count == CHUNK_GRAPHS || (c->cells_count + cells) * cell > CHUNK_BYTES)
        status = flush(impl, device, plan, c, times, error);
    if (status != APSP_OK)
        return status;
    c->offsets[c->count] = c->cells_count;
    c->sizes[c->count] = (uint32_t)view.n;
    c->negative[c->count] = facts.negative != 0;
    c->graph[c->count++] = g;
    move_rows(&view, c->cells + c->cells_count * cell, 1);
    c->cells_count += cells;
    return APSP_OK;
}

apsp_status drive_batch_device(const apsp_backend_impl *impl, backend_device *device,
                               const batch_plan *plan, size_t most, graphs_times *times,
                               apsp_error *error) {
    chunk c = {0};
    c.cells = apsp_malloc(CHUNK_BYTES);
    c.offsets = apsp_malloc(CHUNK_GRAPHS * sizeof *c.offsets);
    c.sizes = apsp_malloc(CHUNK_GRAPHS * sizeof *c.sizes);
    c.negative = apsp_malloc(CHUNK_GRAPHS * sizeof *c.negative);
    c.graph = apsp_malloc(CHUNK_GRAPHS * sizeof *c.graph);
    apsp_status status = APSP_OK;
    if (!c.cells || !c.offsets || !c.sizes || !c.negative || !c.graph)
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory for a batch's staging of %d bytes",
                      CHUNK_BYTES);
    const apsp_batch *b = plan->batch;
    for (size_t g = 0; status == APSP_OK && g < b->count; g++)
        if (b->vertices[g] <= most)
            status = take(impl, device, plan, &c, g, times, error);
    if (status == APSP_OK && c.count)
        status = flush(impl, device, plan, &c, times, error);
    free(c.cells);
    free(c.offsets);
    free(c.sizes);
    free(c.negative);
    free(c.graph);
    return status;
}
