/* A batch's small graphs on a device that solves many at once (drivers.h: drive_batch_device,
 * backend.h: backend_graphs): chunks of graphs through the backend's staging slots, each chunk
 * packed into one slot so that it goes up and down in one transfer each, whatever the batch's
 * layout (packed, padded, or with larger graphs between the small ones). The chunks are
 * pipelined: chunk k is packed while chunks k - 1 and k - 2 are on the device, after chunk k - 3
 * (the slot's last) came back and was unpacked. The host's part (each graph made from its edges,
 * checked and packed; then unpacked and its diagonal read) runs on every core, so that the
 * device waits on no single thread. */
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
 * the transfers, small enough that the slots stay a small part of the host's memory. */
enum { CHUNK_GRAPHS = 1 << 16, CHUNK_BYTES = 64 << 20 };

/* The first failure by graph number: SIZE_MAX when none. */
typedef struct failure {
    size_t graph;
    apsp_error cause;
} failure;

static void keep_least(failure *f, size_t g, const apsp_error *cause) {
    if (g < f->graph) {
        f->graph = g;
        f->cause = *cause;
    }
}

/* A graph's rows into (out) or out of its packed cells in a chunk: one copy where the batch is
 * packed too. */
static void move_rows(const apsp_matrix *view, char *packed, int out) {
    const size_t row = view->n * apsp_dtype_size(view->dtype);
    const size_t rows = view->stride == view->n ? 1 : view->n;
    const size_t bytes = rows == 1 ? row * view->n : row;
    for (size_t i = 0; i < rows; i++) {
        char *cells = apsp_matrix_row_cells(view, i);
        if (out)
            memcpy(packed + i * row, cells, bytes);
        else
            memcpy(cells, packed + i * row, bytes);
    }
}

/* A pass over a chunk's graphs on the host's threads (parallel_slices). */
typedef struct pass {
    const batch_plan *plan;
    graphs_slot *slot;
    const size_t *graph; /* the batch's number of each graph of the chunk */
    pthread_mutex_t lock;
    failure failed;
    int cells_needed; /* (from_edges) a graph's facts did not show the weight rule */
} pass;

static void pass_fail(pass *p, size_t g, const apsp_error *cause) {
    pthread_mutex_lock(&p->lock);
    keep_least(&p->failed, g, cause);
    pthread_mutex_unlock(&p->lock);
}

/* Graph k's size and form into the chunk's index. */
static void set_form(pass *p, size_t k, const cell_facts *facts) {
    p->slot->index[4 * k + 1] =
        (uint32_t)p->plan->batch->vertices[p->graph[k]] | (facts->negative ? GRAPHS_NEGATIVE : 0);
}

/* Graph g made ready in the chunk's cells at `packed`: made from its edges straight there where
 * the batch is packed (nothing of the caller's is read, and its cells are written once, at the
 * unpacking), else made ready in the caller's cells and copied (a padded batch's block outside
 * the graph is written by the fill). */
static apsp_status pack_graph(const batch_plan *plan, size_t g, char *packed, cell_facts *facts,
                              apsp_error *error) {
    const apsp_batch *b = plan->batch;
    const apsp_matrix view = batch_view(plan, g);
    if (b->edges && !b->pitch) {
        apsp_matrix staged = view;
        staged.cells = packed;
        apsp_status status = batch_fill_to(plan, g, &staged, view.n, facts, error);
        return status == APSP_OK ? batch_ready_cells(&staged, 1, facts, error) : status;
    }
    apsp_status status = batch_ready(plan, g, facts, error);
    if (status == APSP_OK)
        move_rows(&view, packed, 1);
    return status;
}

/* Graphs [begin, end) of the chunk made ready and packed. */
static int pack_slice(void *context, size_t begin, size_t end) {
    pass *p = context;
    const size_t cell = apsp_dtype_size(p->plan->batch->dtype);
    for (size_t k = begin; k < end; k++) {
        cell_facts facts;
        apsp_error cause;
        char *packed = (char *)p->slot->cells + p->slot->index[4 * k] * cell;
        if (pack_graph(p->plan, p->graph[k], packed, &facts, &cause) != APSP_OK) {
            pass_fail(p, p->graph[k], &cause);
            return 0;
        }
        set_form(p, k, &facts);
    }
    return 0;
}

/* Graphs [begin, end) of a from_edges chunk: their edges packed for the device. */
static int pack_edges_slice(void *context, size_t begin, size_t end) {
    pass *p = context;
    graphs_slot *slot = p->slot;
    const size_t cell = apsp_dtype_size(p->plan->batch->dtype);
    for (size_t k = begin; k < end; k++) {
        cell_facts facts;
        apsp_error cause;
        int suffice = 1;
        const size_t first = slot->index[4 * k + 2];
        if (batch_edges_pack(p->plan, p->graph[k], slot->edges + first,
                             slot->unweighted ? NULL : (char *)slot->weights + first * cell, &facts,
                             &suffice, &cause) != APSP_OK) {
            pass_fail(p, p->graph[k], &cause);
            return 0;
        }
        set_form(p, k, &facts);
        if (!suffice) {
            pthread_mutex_lock(&p->lock);
            p->cells_needed = 1;
            pthread_mutex_unlock(&p->lock);
        }
    }
    return 0;
}

/* Graphs [begin, end) of the chunk unpacked (a padded batch's block around a graph made on the
 * device written as the fill writes it), the negative ones' diagonals read. */
static int unpack_slice(void *context, size_t begin, size_t end) {
    pass *p = context;
    const size_t cell = apsp_dtype_size(p->plan->batch->dtype);
    const uint32_t *index = p->slot->index;
    const int padding = p->slot->from_edges && p->plan->batch->pitch;
    for (size_t k = begin; k < end; k++) {
        const apsp_matrix view = batch_view(p->plan, p->graph[k]);
        if (padding)
            batch_fill_padding(p->plan, p->graph[k]);
        move_rows(&view, (char *)p->slot->cells + index[4 * k] * cell, 0);
        apsp_error cause;
        if ((index[4 * k + 1] & GRAPHS_NEGATIVE) && matrix_check_cycles(&view, &cause) != APSP_OK)
            pass_fail(p, p->graph[k], &cause);
    }
    return 0;
}

/* One pass over a chunk, on every core for a chunk of a megabyte or more; its failure into *f.
 * Returns whether the chunk's cells must be made on the host (pack_edges_slice). */
static int run_pass(const batch_plan *plan, graphs_slot *slot, const size_t *graph, slice_fn work,
                    failure *f) {
    pass p = {.plan = plan, .slot = slot, .graph = graph, .failed = {SIZE_MAX, {0}}};
    pthread_mutex_init(&p.lock, NULL);
    const size_t bytes = slot->cells_count * apsp_dtype_size(plan->batch->dtype);
    parallel_slices(slot->count, threads_for_bytes(bytes, 0), work, &p);
    pthread_mutex_destroy(&p.lock);
    if (p.failed.graph != SIZE_MAX)
        keep_least(f, p.failed.graph, &p.failed.cause);
    return p.cells_needed;
}

/* The pipeline: the stage, each slot's graphs, which slots are on the device, the first
 * failure (a graph's, or the device's at SIZE_MAX - 1: before none of a graph's). */
typedef struct pipeline {
    backend_device *device;
    const batch_plan *plan;
    size_t most, next; /* next: the first graph not yet in a chunk */
    graphs_stage *stage;
    size_t *graph[GRAPHS_SLOTS];
    int busy[GRAPHS_SLOTS];
    graphs_times *times;
    failure failed;
} pipeline;

static void device_failed(pipeline *p, const apsp_error *cause) {
    if (p->failed.graph == SIZE_MAX)
        p->failed = (failure){SIZE_MAX - 1, *cause};
}

/* Graph g's edges (0 for `first` decreasing: the packing refuses it). */
static size_t edges_of(const apsp_batch *b, size_t g) {
    const size_t from = b->edges->first[g], to = b->edges->first[g + 1];
    return to > from ? to - from : 0;
}

/* Graph g's place in slot s, its edges' where the chunk is made from edges: 0 when the chunk is
 * full (a chunk whose first graph has more edges than the slot holds has its cells made on the
 * host). */
static int place(pipeline *p, graphs_slot *slot, size_t g) {
    const apsp_batch *b = p->plan->batch;
    const size_t n = b->vertices[g], e = slot->from_edges ? edges_of(b, g) : 0;
    if (slot->count == p->stage->graphs ||
        slot->cells_count + n * n > p->stage->bytes / apsp_dtype_size(b->dtype))
        return 0;
    if (slot->from_edges && slot->edges_count + e > p->stage->edges) {
        if (slot->count)
            return 0;
        slot->from_edges = 0;
    }
    uint32_t *index = slot->index + 4 * slot->count;
    index[0] = (uint32_t)slot->cells_count;
    index[1] = (uint32_t)n;
    index[2] = (uint32_t)slot->edges_count;
    index[3] = (uint32_t)(slot->from_edges ? e : 0);
    p->graph[slot - p->stage->slot][slot->count++] = g;
    slot->cells_count += n * n;
    slot->edges_count += slot->from_edges ? e : 0;
    slot->most = n > slot->most ? n : slot->most;
    return 1;
}

/* The graphs from p->next on that fit slot s, in order: their places, none packed yet. A batch
 * with edges goes up as edges (the device makes the cells). */
static void gather(pipeline *p, size_t s) {
    const apsp_batch *b = p->plan->batch;
    graphs_slot *slot = &p->stage->slot[s];
    slot->count = slot->cells_count = slot->most = slot->edges_count = 0;
    slot->from_edges = b->edges != NULL;
    slot->undirected = b->edges && b->edges->undirected;
    slot->unweighted = b->edges && !b->edges->weight;
    for (; p->next < b->count; p->next++)
        if (b->vertices[p->next] <= p->most && !place(p, slot, p->next))
            break;
}

/* Slot s's chunk packed: its edges, or (without edges, or where a graph's facts did not show the
 * weight rule) its cells. */
static void pack(pipeline *p, size_t s) {
    graphs_slot *slot = &p->stage->slot[s];
    if (slot->from_edges && !run_pass(p->plan, slot, p->graph[s], pack_edges_slice, &p->failed))
        return;
    slot->from_edges = 0;
    if (p->failed.graph == SIZE_MAX)
        run_pass(p->plan, slot, p->graph[s], pack_slice, &p->failed);
}

/* Slot s's chunk, once back, unpacked (after a failure only waited for). */
static void finish(pipeline *p, size_t s) {
    if (!p->busy[s])
        return;
    p->busy[s] = 0;
    apsp_error cause;
    if (p->device->impl->graphs->finish(p->device, s, p->times, &cause) != APSP_OK)
        device_failed(p, &cause);
    else if (p->failed.graph != SIZE_MAX - 1) /* (a graph's failure: a lesser one may be here) */
        run_pass(p->plan, &p->stage->slot[s], p->graph[s], unpack_slice, &p->failed);
}

/* Slot s's last chunk finished, the next chunk packed into it and started; 0 when no graph is
 * left. */
static int feed(pipeline *p, size_t s) {
    finish(p, s);
    if (p->failed.graph != SIZE_MAX)
        return 0;
    gather(p, s);
    if (p->stage->slot[s].count == 0)
        return 0;
    pack(p, s);
    if (p->failed.graph != SIZE_MAX)
        return 0;
    apsp_error cause;
    if (p->device->impl->graphs->start(p->device, s, p->plan->batch->dtype, &cause) != APSP_OK) {
        device_failed(p, &cause);
        return 0;
    }
    p->busy[s] = 1;
    return 1;
}

/* The bytes of cells and the graphs of the small ones, for slots no larger than the batch. */
static void small_totals(const apsp_batch *b, size_t most, uint64_t *bytes, size_t *graphs) {
    *bytes = 0, *graphs = 0;
    for (size_t g = 0; g < b->count; g++)
        if (b->vertices[g] <= most)
            *bytes += (uint64_t)b->vertices[g] * b->vertices[g], ++*graphs;
    *bytes *= apsp_dtype_size(b->dtype);
}

static apsp_status run_pipeline(pipeline *p, apsp_error *error) {
    const graphs_stage *stage = p->stage;
    for (size_t s = 0; s < GRAPHS_SLOTS; s++)
        if (!(p->graph[s] = apsp_malloc(stage->graphs * sizeof *p->graph[s])))
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory for a chunk of %zu graphs",
                        stage->graphs);
    size_t s = 0;
    while (feed(p, s))
        s = (s + 1) % GRAPHS_SLOTS;
    for (size_t k = 0; k < GRAPHS_SLOTS; k++) /* the rest, oldest first */
        finish(p, (s + k) % GRAPHS_SLOTS);
    if (p->failed.graph == SIZE_MAX)
        return APSP_OK;
    if (p->failed.graph == SIZE_MAX - 1) {
        *error = p->failed.cause;
        return error->status;
    }
    return batch_fail(error, &p->failed.cause, p->failed.graph);
}

apsp_status drive_batch_device(backend_device *device, const batch_plan *plan, size_t most,
                               graphs_times *times, apsp_error *error) {
    const apsp_batch *b = plan->batch;
    uint64_t bytes;
    size_t graphs;
    small_totals(b, most, &bytes, &graphs);
    if (graphs == 0)
        return APSP_OK;
    pipeline p = {
        .device = device, .plan = plan, .most = most, .times = times, .failed = {SIZE_MAX, {0}}};
    apsp_status status = device->impl->graphs->stage(
        device, b->dtype, bytes < CHUNK_BYTES ? (size_t)bytes : CHUNK_BYTES,
        graphs < CHUNK_GRAPHS ? graphs : CHUNK_GRAPHS, &p.stage, times, error);
    if (status == APSP_OK)
        status = run_pipeline(&p, error);
    for (size_t s = 0; s < GRAPHS_SLOTS; s++)
        free(p.graph[s]);
    return status;
}
