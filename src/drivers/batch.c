/* Many small graphs over the host's threads (drivers.h: drive_batch), a graph per thread: a
 * graph of a few thousand cells stays in its core's cache from the check to the last
 * relaxation, where one graph at a time over every thread would wake them for microseconds of
 * work each. */
#include "drivers/drivers.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "drivers/fw_tracked.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Graphs per item of the pool: enough that handing out an item costs little beside a graph of a
 * few vertices, few enough that the threads end together. */
enum { GRAPHS_PER_ITEM = 8 };

apsp_matrix batch_view(const batch_plan *plan, size_t g) {
    const apsp_batch *b = plan->batch;
    const size_t n = b->vertices[g];
    apsp_matrix m = {
        .n = n,
        .padded = n,
        .stride = b->pitch ? b->pitch : n,
        .dtype = b->dtype,
    };
    m.cells = (char *)b->cells + plan->offsets[g] * apsp_dtype_size(b->dtype);
    return m;
}

int32_t *batch_pred(const batch_plan *plan, size_t g) {
    return plan->batch->predecessors ? plan->batch->predecessors + plan->offsets[g] : NULL;
}

apsp_status batch_fail(apsp_error *error, const apsp_error *cause, size_t g) {
    return fail(error, cause->status, "graph %zu: %s", g, cause->message);
}

typedef struct batch_run {
    const apsp_backend_impl *impl;
    const batch_plan *plan;
    char *scratch; /* per thread: fw_tracked's for the largest graph */
    size_t scratch_bytes;
    pthread_mutex_t lock;
    size_t failed; /* the least graph that failed; the batch's count when none */
    apsp_error error;
} batch_run;

/* (drivers.h) The fill wrote only the diagonal's 0, the marker and weights; a weight past the
 * rule goes to the check, which names it. The host's fill gives no most_real (-1): its float
 * cells are always checked. */
int batch_facts_suffice(size_t n, apsp_dtype dtype, const cell_facts *facts, double most_real) {
    const uint64_t inf = matrix_integer_inf(dtype);
    if (!inf)
        return most_real >= 0 && most_real <= real_weight_most(n, dtype);
    return n < 2 || facts->most <= (inf - 1) / (n - 1);
}

apsp_status batch_ready(const batch_plan *plan, size_t g, cell_facts *facts, apsp_error *error) {
    apsp_matrix m = batch_view(plan, g);
    *facts = (cell_facts){0, 0};
    const int edges = plan->batch->edges != NULL;
    apsp_status status = edges ? batch_fill(plan, g, facts, error) : APSP_OK;
    return status == APSP_OK ? batch_ready_cells(&m, edges, facts, error) : status;
}

apsp_status batch_ready_cells(apsp_matrix *m, int edges, cell_facts *facts, apsp_error *error) {
    apsp_status status = APSP_OK;
    if (m->n == 0)
        return status;
    if (!edges || !batch_facts_suffice(m->n, m->dtype, facts, -1))
        status = matrix_check_graph_cells(m, &facts->negative, &facts->most, error);
    if (status == APSP_OK)
        matrix_clear_negative_zeros(m, 1); /* as apsp_solver_solve's float path does */
    return status;
}

/* One graph made ready, solved and its diagonal read, as drive_small does it alone. */
static apsp_status solve_graph(const batch_run *r, size_t g, void *scratch, apsp_error *error) {
    if (batch_hops_fits(r->plan, g))
        return batch_hops(r->plan, g, error);
    apsp_matrix m = batch_view(r->plan, g);
    cell_facts facts;
    apsp_status status = batch_ready(r->plan, g, &facts, error);
    if (status != APSP_OK || m.n == 0)
        return status;
    int32_t *pred = batch_pred(r->plan, g);
    if (pred)
        fw_tracked(m.dtype, m.cells, m.n, m.stride, pred, scratch);
    else if ((status = r->impl->solve_small(&m, facts.negative, facts.most, error)) != APSP_OK)
        return status;
    return facts.negative ? matrix_check_cycles(&m, error) : APSP_OK;
}

static void solve_item(void *context, size_t item, unsigned thread) {
    batch_run *r = context;
    const apsp_batch *b = r->plan->batch;
    const size_t end = item * GRAPHS_PER_ITEM + GRAPHS_PER_ITEM;
    void *scratch = r->scratch + thread * r->scratch_bytes;
    for (size_t g = item * GRAPHS_PER_ITEM; g < end && g < b->count; g++) {
        const size_t n = b->vertices[g];
        apsp_error error;
        if (n > r->impl->small_vertices || solve_graph(r, g, scratch, &error) == APSP_OK)
            continue;
        pthread_mutex_lock(&r->lock);
        if (g < r->failed) {
            r->failed = g;
            r->error = error;
        }
        pthread_mutex_unlock(&r->lock);
    }
}

apsp_status drive_batch(backend_device *device, const batch_plan *plan, apsp_error *error) {
    const apsp_backend_impl *impl = device->impl;
    const apsp_batch *b = plan->batch;
    batch_run r = {.impl = impl, .plan = plan, .failed = b->count};
    if (b->predecessors) {
        size_t most = 0;
        for (size_t g = 0; g < b->count; g++)
            if (b->vertices[g] <= impl->small_vertices && b->vertices[g] > most)
                most = b->vertices[g];
        r.scratch_bytes = (fw_tracked_scratch(b->dtype, most) + 63) / 64 * 64; /* aligned */
    }
    const unsigned threads = impl->host_threads(device);
    if (r.scratch_bytes && !(r.scratch = apsp_malloc(r.scratch_bytes * threads)))
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for %u threads' scratch of %zu bytes",
                    threads, r.scratch_bytes);
    pthread_mutex_init(&r.lock, NULL);
    impl->run_items(device, solve_item, &r, (b->count + GRAPHS_PER_ITEM - 1) / GRAPHS_PER_ITEM);
    pthread_mutex_destroy(&r.lock);
    free(r.scratch);
    if (r.failed == b->count)
        return APSP_OK;
    return batch_fail(error, &r.error, r.failed);
}
