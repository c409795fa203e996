/* Test graphs: deterministic from a seed, in the shapes that stress a blocked Floyd-Warshall.
 * Shared by the gen-graph tool and the library tests; independent of the library. */
#ifndef APSP_TEST_GRAPHGEN_H
#define APSP_TEST_GRAPHGEN_H

#include <stddef.h>
#include <stdint.h>

typedef enum gg_shape {
    GG_RANDOM,       /* E distinct pairs, no self-loops, weights 0..1000 (valid for the course) */
    GG_DENSE,        /* like random, meant for E near V(V-1); E <= 0 means every pair */
    GG_ZEROS,        /* E distinct pairs, three weights in four are 0 (zero-weight cycles) */
    GG_DUPS,         /* E entries: repeated pairs with varying weights, about 1 in 8 self-loops */
    GG_DISCONNECTED, /* up to 4 components of scattered vertices, E edges inside them */
    GG_CHAIN,        /* the path 0 -> 1 -> ... -> V-1 with weights near the largest allowed,
                        plus E extra edges back (src > dst): distances reach about 7/8 of the
                        unreachable marker */
    GG_EMPTY,        /* no edges; E must be 0 */
    GG_NEGATIVE,     /* E distinct pairs, w = w0 + p(src) - p(dst) with w0 in 0..100 (one in
                        four 0: zero-weight cycles) and potentials p in 0..1000: negative
                        weights, and every cycle weighs sum(w0) >= 0, so no negative cycle */
    GG_NEGCYCLE,     /* GG_NEGATIVE plus a planted cycle of 2 to 4 vertices weighing -1 (for
                        V >= 2): a negative cycle */
    GG_SHAPE_COUNT
} gg_shape;

typedef struct gg_edge {
    int32_t src, dst, w;
} gg_edge;

typedef struct gg_graph {
    int32_t v;
    size_t e;
    gg_edge *edges;
} gg_graph;

/* Returns 0 and sets *shape, or -1 for an unknown name. */
int gg_shape_parse(const char *name, gg_shape *shape);
const char *gg_shape_name(gg_shape shape);

/* The largest |w| with (v - 1) * |w| < 2^30 - 1, the hw3 reader's rule. */
int32_t gg_weight_limit(int32_t v);

/* Makes the graph; the same arguments always give the same edges in the same order. `e` is a
 * request: shapes of distinct pairs cap it at the number of pairs they can hold. Returns 0, or
 * -1 (bad arguments or out of memory) with a reason in *why. Free with gg_free. */
int gg_generate(gg_shape shape, int32_t v, int64_t e, uint64_t seed, gg_graph *graph,
                const char **why);
void gg_free(gg_graph *graph);

/* Writes the graph in the hw3 format. Returns 0 or -1 (errno set). */
int gg_write_hw3(const gg_graph *graph, const char *path);

/* splitmix64, exposed for tests that need more randomness from the same seed. */
uint64_t gg_next(uint64_t *state);
/* Uniform in [0, bound), bound >= 1. */
uint64_t gg_below(uint64_t *state, uint64_t bound);

#endif
