/* A batch's unweighted graph solved by breadth-first search over bit sets (drivers.h:
 * batch_hops), straight from its edges into its cells. When every edge weighs 1 a distance is
 * the number of edges of a shortest path, an exact small integer in every element type, so the
 * bytes are the Floyd-Warshall's; but the work is V searches of V + E steps, written once into
 * the cells, where the fill and the relaxations touch V x V cells V + 1 times. Molecule-sized
 * graphs (Graphormer's spatial encoding) are nearly all unweighted. */
#include "drivers/drivers.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

/* Vertex sets of `words` 64-bit words (1 up to 64 vertices, 2 up to 128), vertex v bit v % 64
 * of word v / 64. */
enum { SET_WORDS = BATCH_HOPS_MOST / 64 };

/* Graph g's edges as out-neighbour sets, adj[u * words ...] the vertices an edge from u reaches
 * (both ways when undirected; a self-loop adds u to its own set, which a search has reached
 * already). Returns the first edge outside the graph's vertices, or SIZE_MAX. */
static size_t neighbour_sets(const apsp_batch_edges *e, size_t from, size_t to, int64_t base,
                             size_t n, size_t words, uint64_t *adj) {
    memset(adj, 0, n * words * sizeof *adj);
    for (size_t k = from; k < to; k++) {
        const uint64_t s = (uint64_t)(e->source[k] - base), t = (uint64_t)(e->target[k] - base);
        if (s >= n || t >= n)
            return k;
        adj[s * words + t / 64] |= UINT64_C(1) << (t % 64);
        if (e->undirected)
            adj[t * words + s / 64] |= UINT64_C(1) << (s % 64);
    }
    return SIZE_MAX;
}

/* The edges from vertex i to each vertex of a shortest path to it, into hops (NO_PATH where
 * none): one level of the search a round, each vertex of a level given its number as its
 * neighbours join the next one, in the one loop (a loop's exit is a mispredicted branch: the
 * cost of a level, more than its few steps). Inlined with words a constant (search_1,
 * search_2), so that a graph of 64 vertices pays for no second word. */
enum { NO_PATH = 0xff };
static inline void search(const uint64_t *adj, size_t n, size_t words, size_t i, uint8_t *hops) {
    memset(hops, NO_PATH, n);
    uint64_t reached[SET_WORDS] = {0}, level_set[SET_WORDS] = {0};
    reached[i / 64] = level_set[i / 64] = UINT64_C(1) << (i % 64);
    for (uint8_t level = 0;; level++) {
        uint64_t next[SET_WORDS] = {0}, any = 0;
        for (size_t w = 0; w < words; w++)
            for (uint64_t f = level_set[w]; f; f &= f - 1) {
                const size_t u = w * 64 + (size_t)__builtin_ctzll(f);
                hops[u] = level;
                for (size_t x = 0; x < words; x++)
                    next[x] |= adj[u * words + x];
            }
        for (size_t x = 0; x < words; x++) {
            level_set[x] = next[x] & ~reached[x];
            reached[x] |= level_set[x];
            any |= level_set[x];
        }
        if (!any)
            return;
    }
}

static void search_1(const uint64_t *adj, size_t n, size_t i, uint8_t *hops) {
    search(adj, n, 1, i, hops);
}

static void search_2(const uint64_t *adj, size_t n, size_t i, uint8_t *hops) {
    search(adj, n, 2, i, hops);
}

/* Row i of the cells from hops (the type's marker for no path), then the marker to the end of
 * the block's row; the rows of the block past the graph all marker. A plain loop of selects,
 * which the compiler vectorises. */
#define WRITE_ROWS(NAME, CELL, MARKER)                                                             \
    static void NAME(const uint64_t *adj, size_t n, size_t rows, size_t stride, void *cells) {     \
        uint8_t hops[BATCH_HOPS_MOST];                                                             \
        for (size_t i = 0; i < rows; i++) {                                                        \
            CELL *row = (CELL *)cells + i * stride;                                                \
            size_t j = 0;                                                                          \
            if (i < n) {                                                                           \
                (n > 64 ? search_2 : search_1)(adj, n, i, hops);                                   \
                for (; j < n; j++)                                                                 \
                    row[j] = hops[j] == NO_PATH ? (MARKER) : (CELL)hops[j];                        \
            }                                                                                      \
            for (; j < rows; j++)                                                                  \
                row[j] = (MARKER);                                                                 \
        }                                                                                          \
    }

WRITE_ROWS(write_i32, int32_t, APSP_INF)
WRITE_ROWS(write_i64, int64_t, APSP_INF64)
WRITE_ROWS(write_f32, float, INFINITY)
WRITE_ROWS(write_f64, double, INFINITY)

int batch_hops_fits(const batch_plan *plan, size_t g) {
    const apsp_batch *b = plan->batch;
    return b->edges && !b->edges->weight && !b->predecessors && b->vertices[g] <= BATCH_HOPS_MOST;
}

apsp_status batch_hops(const batch_plan *plan, size_t g, apsp_error *error) {
    typedef void (*write_fn)(const uint64_t *adj, size_t n, size_t rows, size_t stride,
                             void *cells);
    static const write_fn write[] = {
        [APSP_INT32] = write_i32,
        [APSP_INT64] = write_i64,
        [APSP_FLOAT32] = write_f32,
        [APSP_FLOAT64] = write_f64,
    };
    const apsp_batch *b = plan->batch;
    const apsp_batch_edges *e = b->edges;
    const apsp_matrix m = batch_view(plan, g);
    const size_t from = e->first[g], to = e->first[g + 1];
    if (to < from)
        return batch_edges_unordered(from, to, error);
    uint64_t adj[BATCH_HOPS_MOST * SET_WORDS];
    const size_t words = m.n > 64 ? 2 : 1;
    const size_t bad = neighbour_sets(e, from, to, (int64_t)plan->nodes[g], m.n, words, adj);
    if (bad != SIZE_MAX)
        return batch_edge_outside(plan, g, bad, error);
    write[b->dtype](adj, m.n, b->pitch ? b->pitch : m.n, m.stride, m.cells);
    return APSP_OK;
}
