/* A batch's small graphs on a device that solves many at once (drivers.h: drive_batch_device,
 * backend.h: backend_graphs): a call per chunk of graphs, each chunk packed into one staging
 * buffer so that it goes up and down in one transfer each, whatever the batch's layout (packed,
 * padded, or with larger graphs between the small ones). The host's part (each graph made from
 * its edges, checked and packed; then unpacked and its diagonal read) runs on every core, so
 * that it keeps up with the device. */
#include "drivers/drivers.h"
#include "base/error.h"
#include "base/parallel.h"
#include "base/fault.h"
#include "base/util.h"

#include <pthread.h>
#include <stdint.h>
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

/* A pass over a chunk's graphs on the host's threads (parallel_slices): the first failure by
 * graph number kept. */
typedef struct pass {
    const batch_plan *plan;
    chunk *c;
    pthread_mutex_t lock;
    size_t failed; /* the least graph that failed; SIZE_MAX when none */
    apsp_error error;
} pass;

static void pass_fail(pass *p, size_t g, const apsp_error *cause) {
    pthread_mutex_lock(&p->lock);
    if (g < p->failed) {
        p->failed = g;
        p->error = *cause;
    }
    pthread_mutex_unlock(&p->lock);
}

/* Graphs [begin, end) of the chunk made ready and packed. */
static int pack_slice(void *context, size_t begin, size_t end) {
    pass *p = context;
    const size_t cell = apsp_dtype_size(p->plan->batch->dtype);
    for (size_t k = begin; k < end; k++) {
        cell_facts facts;
        apsp_error cause;
        const size_t g = p->c->graph[k];
        if (batch_ready(p->plan, g, &facts, &cause) != APSP_OK) {
            pass_fail(p, g, &cause);
            return 0;
        }
        const apsp_matrix view = batch_view(p->plan, g);
        p->c->negative[k] = facts.negative != 0;
        move_rows(&view, p->c->cells + p->c->offsets[k] * cell, 1);
    }
    return 0;
}

/* Graphs [begin, end) of the chunk unpacked, the negative ones' diagonals read. */
static int unpack_slice(void *context, size_t begin, size_t end) {
    pass *p = context;
    const size_t cell = apsp_dtype_size(p->plan->batch->dtype);
    for (size_t k = begin; k < end; k++) {
        const apsp_matrix view = batch_view(p->plan, p->c->graph[k]);
        move_rows(&view, p->c->cells + p->c->offsets[k] * cell, 0);
        apsp_error cause;
        if (p->c->negative[k] && matrix_check_cycles(&view, &cause) != APSP_OK)
            pass_fail(p, p->c->graph[k], &cause);
    }
    return 0;
}

/* One pass over the chunk, on every core for a chunk of a megabyte or more. */
static apsp_status run_pass(const batch_plan *plan, chunk *c, slice_fn work, apsp_error *error) {
    pass p = {.plan = plan, .c = c, .failed = SIZE_MAX};
    pthread_mutex_init(&p.lock, NULL);
    const size_t bytes = c->cells_count * apsp_dtype_size(plan->batch->dtype);
    parallel_slices(c->count, threads_for_bytes(bytes, 0), work, &p);
    pthread_mutex_destroy(&p.lock);
    return p.failed == SIZE_MAX ? APSP_OK : batch_fail(error, &p.error, p.failed);
}

/* The chunk made ready and packed, solved on the device, unpacked; then emptied. */
static apsp_status flush(backend_device *device, const batch_plan *plan, chunk *c,
                         graphs_times *times, apsp_error *error) {
    const graphs_call call = {plan->batch->dtype, c->cells,    c->cells_count, c->offsets,
                              c->sizes,           c->negative, c->count};
    apsp_status status = run_pass(plan, c, pack_slice, error);
    if (status == APSP_OK)
        status = device->impl->graphs->solve(device, &call, times, error);
    if (status == APSP_OK)
        status = run_pass(plan, c, unpack_slice, error);
    c->count = c->cells_count = 0;
    return status;
}

/* Graph g's place in the chunk (flushed first when it is full). */
static apsp_status take(backend_device *device, const batch_plan *plan, chunk *c, size_t g,
                        graphs_times *times, apsp_error *error) {
    const size_t n = plan->batch->vertices[g], cell = apsp_dtype_size(plan->batch->dtype);
    apsp_status status = APSP_OK;
    if (c->count == CHUNK_GRAPHS || (c->cells_count + n * n) * cell > CHUNK_BYTES)
        status = flush(device, plan, c, times, error);
    if (status != APSP_OK)
        return status;
    c->offsets[c->count] = c->cells_count;
    c->sizes[c->count] = (uint32_t)n;
    c->graph[c->count++] = g;
    c->cells_count += n * n;
    return APSP_OK;
}

apsp_status drive_batch_device(backend_device *device, const batch_plan *plan, size_t most,
                               graphs_times *times, apsp_error *error) {
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
            status = take(device, plan, &c, g, times, error);
    if (status == APSP_OK && c.count)
        status = flush(device, plan, &c, times, error);
    free(c.cells);
    free(c.offsets);
    free(c.sizes);
    free(c.negative);
    free(c.graph);
    return status;
}
