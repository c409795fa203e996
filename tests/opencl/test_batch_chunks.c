/* The device batch's chunks (src/drivers/batch_device.c: graphs packed into three pinned staging
 * slots in turn, pipelined): with apsp_options.device_memory at 6 x 512 KiB each slot holds
 * 512 KiB of cells (src/opencl/batch.c: a sixth of the cap, never less than a graph of 128
 * vertices takes), so that 32 graphs of 64 vertices fill a chunk exactly (int32 and float32).
 * Batches whose graphs fill one, three, five and seven chunks exactly, or with the last chunk's
 * last graph one vertex short and a graph that no longer fits it, or with a graph over; random
 * sizes of 0-128 vertices with graphs of 129-200 (too large for a work-group: solved alone)
 * between them; only empty graphs; an empty batch; each in int32 and float32, some graphs with
 * negative weights (no negative cycle), byte for byte against the pthread backend's batch
 * (tests/api/test_batch.c checks that against the oracle). Then a negative cycle in a late chunk
 * and a refused cell in a later one: the cycle's graph is named (the least graph that failed),
 * and the solver still solves the next batch. Batches made from edges (the device makes their
 * cells), packed and padded, and the chunks whose cells the host makes after all (test_edges).
 *
 *   test-batch-chunks [--device=SPEC]
 *
 * Exit status: 0 passed, 1 a failure, 77 (skipped) without an OpenCL device unless
 * APSP_TEST_REQUIRE_DEVICE=1. */
#include "apsp.h"
#include "batch_solvers.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SLOT_BYTES = 512 << 10, SIDE = 64, PER_CHUNK = 32, MOST = 1200 };

/* A graph's packed cells: 0 diagonal, an edge with probability 1/4 of weight 1 to 10 shifted by
 * potentials p(i) - p(j) of 0 to 5 on `negative` graphs (every cycle still weighs at least 1),
 * else the type's marker. */
static void fill(apsp_dtype t, char *cells, size_t n, int negative) {
    int p[200];
    for (size_t v = 0; v < n; v++)
        p[v] = negative ? rand() % 6 : 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const int edge = i != j && rand() % 4 == 0, w = 1 + rand() % 10 + p[i] - p[j];
            if (t == APSP_INT32)
                ((int32_t *)cells)[i * n + j] = i == j ? 0 : edge ? w : APSP_INF;
            else
                ((float *)cells)[i * n + j] = i == j ? 0.0f : edge ? (float)w : INFINITY;
        }
}

/* The batch of `count` graphs of sizes[] made, solved on both solvers, and compared. */
static void same_bytes(apsp_solver *cpu, apsp_solver *cl, apsp_dtype t, const size_t *sizes,
                       size_t count, const char *what) {
    const size_t cell = apsp_dtype_size(t);
    size_t cells = 0;
    for (size_t g = 0; g < count; g++)
        cells += sizes[g] * sizes[g];
    char *in = malloc(cells * cell + 1),
         *out[2] = {malloc(cells * cell + 1), malloc(cells * cell + 1)};
    for (size_t g = 0, at = 0; g < count; at += sizes[g] * sizes[g], g++)
        fill(t, in + at * cell, sizes[g], g % 3 == 1);
    apsp_solver *solver[2] = {cpu, cl};
    apsp_report report;
    apsp_error err;
    for (int s = 0; s < 2; s++) {
        memcpy(out[s], in, cells * cell);
        const apsp_batch batch = {count, sizes, t, out[s], 0, NULL, NULL};
        CHECK(apsp_solver_solve_batch(solver[s], &batch, &report, &err) == APSP_OK,
              "%s %s (%s): %s", apsp_dtype_name(t), what, s ? "opencl" : "cpu", err.message);
    }
    if (count && cells)
        CHECK(strstr(report.device, "work-group per graph") != NULL, "%s: the device path: %s",
              what, report.device);
    CHECK(memcmp(out[0], out[1], cells * cell) == 0, "%s %s: the pthread batch's bytes",
          apsp_dtype_name(t), what);
    free(in), free(out[0]), free(out[1]);
}

static void test_type(apsp_solver *cpu, apsp_solver *cl, apsp_dtype t) {
    size_t sizes[MOST];
    char what[96];
    /* PER_CHUNK graphs of SIDE vertices a chunk: whole chunks; the last graph of SIDE - 1
     * vertices (2 SIDE - 1 cells short) and one of 12 that does not fit there; a graph over. */
    const size_t chunks[] = {1, 3, 5, 7};
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
        for (int shape = 0; shape < 3; shape++) {
            size_t count = chunks[c] * PER_CHUNK;
            for (size_t g = 0; g < count; g++)
                sizes[g] = SIDE;
            if (shape == 1)
                sizes[count - 1] = SIDE - 1, sizes[count++] = 12;
            else if (shape == 2)
                sizes[count++] = SIDE;
            snprintf(what, sizeof what, "%zu chunks%s", chunks[c],
                     shape == 0   ? " exactly"
                     : shape == 1 ? ", the last graph short and one past"
                                  : " and a graph");
            same_bytes(cpu, cl, t, sizes, count, what);
        }
    /* Random sizes, a large graph every 37 (alone) and an empty one every 11. */
    for (size_t g = 0; g < 400; g++)
        sizes[g] = g % 37 == 5   ? 129 + (size_t)(rand() % 72)
                   : g % 11 == 3 ? 0
                                 : (size_t)(rand() % 129);
    same_bytes(cpu, cl, t, sizes, 400, "random sizes, large ones between");
    for (size_t g = 0; g < 100; g++)
        sizes[g] = 0;
    same_bytes(cpu, cl, t, sizes, 100, "only empty graphs");
    same_bytes(cpu, cl, t, sizes, 0, "no graph");
}

/* 2000 graphs of 16 vertices (512 a chunk): graph 1100 (chunk 2) with a negative cycle, graph
 * 1900 (chunk 3, packed while chunks 1 and 2 are in flight) with a cell past the marker; the
 * cycle's graph is named; then a good batch is solved. */
static void test_failures(apsp_solver *cpu, apsp_solver *cl) {
    enum { COUNT = 2000, CYCLE = 1100, BAD = 1900 };
    size_t sizes[COUNT];
    int32_t *cells = malloc(COUNT * 256 * sizeof *cells);
    for (size_t g = 0; g < COUNT; g++) {
        sizes[g] = 16;
        fill(APSP_INT32, (char *)(cells + g * 256), 16, 0);
    }
    int32_t *cycle = cells + CYCLE * 256;
    cycle[0 * 16 + 1] = 1, cycle[1 * 16 + 2] = -3, cycle[2 * 16 + 0] = 1; /* 0 -> 1 -> 2 -> 0 */
    cells[BAD * 256 + 1] = APSP_INF + 1;
    const apsp_batch batch = {COUNT, sizes, APSP_INT32, cells, 0, NULL, NULL};
    apsp_error err;
    CHECK(apsp_solver_solve_batch(cl, &batch, NULL, &err) == APSP_ERR_NEGATIVE_CYCLE &&
              strncmp(err.message, "graph 1100: ", 12) == 0,
          "the least graph that failed: %s", err.message);
    free(cells);
    for (size_t g = 0; g < 200; g++)
        sizes[g] = 1 + (size_t)(rand() % 128);
    same_bytes(cpu, cl, APSP_INT32, sizes, 200, "after a failure");
}

/* A batch's edges: graphs of least-most vertices, E = per_vertex V directed edges of weights 1
 * to 9, on every third graph shifted by potentials (negative weights, no negative cycle). */
enum { EDGE_GRAPHS = 800 };
typedef struct edge_batch {
    size_t count, sizes[EDGE_GRAPHS], first[EDGE_GRAPHS + 1], edges, cells;
    int64_t *src, *dst;
    double *w;
    void *weight; /* w in the batch's type */
} edge_batch;

static void make_edge_batch(edge_batch *e, size_t count, size_t least, size_t most,
                            size_t per_vertex) {
    size_t node = 0;
    e->count = count, e->cells = e->edges = 0;
    for (size_t g = 0; g < count; g++) {
        e->sizes[g] = least + (size_t)rand() % (most - least + 1);
        e->cells += e->sizes[g] * e->sizes[g], e->edges += per_vertex * e->sizes[g];
    }
    e->src = malloc(e->edges * sizeof *e->src + 1), e->dst = malloc(e->edges * sizeof *e->dst + 1);
    e->w = malloc(e->edges * sizeof *e->w + 1), e->weight = malloc(e->edges * 8 + 1);
    size_t k = 0;
    for (size_t g = 0; g < count; node += e->sizes[g], g++) {
        int p[256];
        for (size_t v = 0; v < e->sizes[g]; v++)
            p[v] = g % 3 == 1 ? rand() % 6 : 0;
        e->first[g] = k;
        for (size_t j = 0; j < per_vertex * e->sizes[g]; j++, k++) {
            const size_t a = (size_t)rand() % e->sizes[g], b = (size_t)rand() % e->sizes[g];
            e->src[k] = (int64_t)(node + a), e->dst[k] = (int64_t)(node + b);
            e->w[k] = 1 + rand() % 9 + p[a] - p[b];
        }
    }
    e->first[count] = k;
}

static void free_edge_batch(edge_batch *e) {
    free(e->src), free(e->dst), free(e->w), free(e->weight);
}

/* The batch in type t solved from its edges on both solvers, packed or padded at `pitch` (the
 * arrays' cells garbage before: the padding is written too), compared whole; or, where `refused`,
 * refused by both with the same message. */
static void edges_same(apsp_solver *cpu, apsp_solver *cl, edge_batch *e, apsp_dtype t, size_t pitch,
                       int undirected, int unweighted, int refused, const char *what) {
    const size_t cell = apsp_dtype_size(t);
    const size_t bytes = (pitch ? e->count * pitch * pitch : e->cells) * cell;
    for (size_t k = 0; k < e->edges; k++) { /* (undirected: |w|, a negative edge is a cycle) */
        const double w = undirected ? fabs(e->w[k]) : e->w[k];
        if (t == APSP_INT32)
            ((int32_t *)e->weight)[k] = (int32_t)w;
        else
            ((float *)e->weight)[k] = (float)w;
    }
    const apsp_batch_edges list = {e->src,   e->dst,     unweighted ? NULL : e->weight,
                                   e->first, undirected, 0};
    char *out[2] = {malloc(bytes + 1), malloc(bytes + 1)};
    apsp_error err[2];
    for (int s = 0; s < 2; s++) {
        memset(out[s], 0x5a, bytes);
        const apsp_batch batch = {e->count, e->sizes, t, out[s], pitch, NULL, &list};
        const apsp_status status = apsp_solver_solve_batch(s ? cl : cpu, &batch, NULL, &err[s]);
        CHECK(refused ? status == APSP_ERR_USAGE : status == APSP_OK, "%s %s (%s): %s",
              apsp_dtype_name(t), what, s ? "opencl" : "cpu", err[s].message);
    }
    if (refused)
        CHECK(strcmp(err[0].message, err[1].message) == 0, "%s: the same refusal: %s / %s", what,
              err[0].message, err[1].message);
    else
        CHECK(memcmp(out[0], out[1], bytes) == 0, "%s %s: the pthread batch's bytes",
              apsp_dtype_name(t), what);
    free(out[0]), free(out[1]);
}

/* Batches made from edges, which go up as edges (the device makes the cells): over many chunks,
 * packed and padded (graphs above 128 vertices alone between them), directed and undirected,
 * weighted and not; chunks whose cells the host makes after all (a self-loop's weight past the
 * rule, which the cells do not hold; a graph with more edges than a slot takes); a float weight
 * past the rule and an edge outside its graph in a late chunk, refused as the threads refuse
 * them. */
static void test_edges(apsp_solver *cpu, apsp_solver *cl) {
    edge_batch e;
    make_edge_batch(&e, EDGE_GRAPHS, 0, 128, 2);
    edges_same(cpu, cl, &e, APSP_INT32, 0, 0, 0, 0, "packed, directed");
    edges_same(cpu, cl, &e, APSP_FLOAT32, 0, 1, 1, 0, "packed, undirected, unweighted");
    const size_t late = EDGE_GRAPHS - 10 + (size_t)rand() % 5;
    e.w[e.first[late] + 1] = 3e37; /* (float32: past the rule for V >= 2) */
    edges_same(cpu, cl, &e, APSP_FLOAT32, 0, 0, 0, 1, "a float weight past the rule");
    e.dst[e.first[late] + 1] = -1;
    edges_same(cpu, cl, &e, APSP_INT32, 0, 0, 0, 1, "an edge outside its graph");
    free_edge_batch(&e);

    make_edge_batch(&e, 300, 0, 200, 3);
    edges_same(cpu, cl, &e, APSP_FLOAT32, 200, 1, 0, 0, "padded, undirected");
    edges_same(cpu, cl, &e, APSP_INT32, 200, 0, 1, 0, "padded, directed, unweighted");
    free_edge_batch(&e);

    make_edge_batch(&e, 400, 4, 64, 2);
    e.src[e.first[100]] = e.dst[e.first[100]]; /* a self-loop of 2^29 in graph 100 */
    e.w[e.first[100]] = 1 << 29;
    edges_same(cpu, cl, &e, APSP_INT32, 0, 0, 0, 0, "a self-loop past the rule");
    size_t node = 0; /* 2^29 from vertex 0 to 1 of graph 300 */
    for (size_t g = 0; g < 300; g++)
        node += e.sizes[g];
    e.src[e.first[300]] = (int64_t)node, e.dst[e.first[300]] = (int64_t)node + 1;
    e.w[e.first[300]] = 1 << 29;
    edges_same(cpu, cl, &e, APSP_INT32, 0, 0, 0, 1, "an int32 weight past the rule");
    free_edge_batch(&e);

    make_edge_batch(&e, 200, 64, 64, 1);
    const size_t dense = 20000; /* graph 150's edges: more than the 16384 of a 512 KiB slot */
    e.src = realloc(e.src, (e.edges + dense) * sizeof *e.src);
    e.dst = realloc(e.dst, (e.edges + dense) * sizeof *e.dst);
    e.w = realloc(e.w, (e.edges + dense) * sizeof *e.w);
    e.weight = realloc(e.weight, (e.edges + dense) * 8);
    const size_t at = e.first[151];
    memmove(e.src + at + dense, e.src + at, (e.edges - at) * sizeof *e.src);
    memmove(e.dst + at + dense, e.dst + at, (e.edges - at) * sizeof *e.dst);
    memmove(e.w + at + dense, e.w + at, (e.edges - at) * sizeof *e.w);
    for (size_t k = 0; k < dense; k++)
        e.src[at + k] = 150 * 64 + rand() % 64, e.dst[at + k] = 150 * 64 + rand() % 64,
                   e.w[at + k] = 1 + rand() % 100;
    for (size_t g = 151; g <= e.count; g++)
        e.first[g] += dense;
    e.edges += dense;
    edges_same(cpu, cl, &e, APSP_INT32, 0, 0, 0, 0, "a graph with more edges than a slot");
    free_edge_batch(&e);
}

int main(int argc, char **argv) {
    srand(11);
    apsp_options c;
    apsp_options_init(&c);
    c.backend = APSP_BACKEND_OPENCL;
    c.device_memory = 6 * SLOT_BYTES;
    for (int a = 1; a < argc; a++) {
        if (strncmp(argv[a], "--device=", 9) == 0)
            c.device = argv[a] + 9;
        else {
            fprintf(stderr, "usage: test-batch-chunks [--device=SPEC]\n");
            return 2;
        }
    }
    apsp_solver *cpu = NULL, *cl = NULL;
    const int status = batch_solvers(&c, &cpu, &cl);
    if (status)
        return status;
    test_type(cpu, cl, APSP_INT32);
    test_type(cpu, cl, APSP_FLOAT32);
    test_failures(cpu, cl);
    test_edges(cpu, cl);
    apsp_solver_destroy(cl);
    apsp_solver_destroy(cpu);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
