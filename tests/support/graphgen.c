/* Test graph shapes; see graphgen.h. */
#include "graphgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GG_INF = 1073741823, GG_MAX_WEIGHT = 1000, GG_COMPONENTS = 4 };

static const char *const shape_names[GG_SHAPE_COUNT] = {
    [GG_RANDOM] = "random",
    [GG_DENSE] = "dense",
    [GG_ZEROS] = "zeros",
    [GG_DUPS] = "dups",
    [GG_DISCONNECTED] = "disconnected",
    [GG_CHAIN] = "chain",
    [GG_EMPTY] = "empty",
    [GG_NEGATIVE] = "negative",
    [GG_NEGCYCLE] = "negcycle",
};

int gg_shape_parse(const char *name, gg_shape *shape) {
    for (int s = 0; s < GG_SHAPE_COUNT; s++) {
        if (strcmp(name, shape_names[s]) == 0) {
            *shape = (gg_shape)s;
            return 0;
        }
    }
    return -1;
}

const char *gg_shape_name(gg_shape shape) {
    return (unsigned)shape < GG_SHAPE_COUNT ? shape_names[shape] : "?";
}

int32_t gg_weight_limit(int32_t v) {
    return v > 1 ? (GG_INF - 1) / (v - 1) : GG_INF - 1;
}

uint64_t gg_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t gg_below(uint64_t *state, uint64_t bound) {
    uint64_t reject_from = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = gg_next(state);
    while (x >= reject_from);
    return x % bound;
}

/* Uniform in [lo, hi]. */
static int32_t between(uint64_t *rng, int32_t lo, int32_t hi) {
    return lo + (int32_t)gg_below(rng, (uint64_t)hi - (uint64_t)lo + 1);
}

typedef struct builder {
    gg_graph *g;
    size_t capacity;
    uint8_t *seen; /* one bit per ordered pair, for shapes of distinct pairs */
} builder;

static int add(builder *b, int32_t src, int32_t dst, int32_t w) {
    gg_graph *g = b->g;
    if (g->e == b->capacity) {
        size_t capacity = b->capacity ? 2 * b->capacity : 64;
        gg_edge *edges = realloc(g->edges, capacity * sizeof *edges);
        if (!edges)
            return -1;
        g->edges = edges;
        b->capacity = capacity;
    }
    g->edges[g->e++] = (gg_edge){src, dst, w};
    return 0;
}

/* Marks the pair; returns 1 if it was new. */
static int mark(builder *b, int32_t src, int32_t dst) {
    size_t bit = (size_t)src * (size_t)b->g->v + (size_t)dst;
    uint8_t mask = (uint8_t)(1u << (bit % 8));
    if (b->seen[bit / 8] & mask)
        return 0;
    b->seen[bit / 8] |= mask;
    return 1;
}

static void shuffle(gg_edge *edges, size_t n, uint64_t *rng) {
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)gg_below(rng, i);
        gg_edge t = edges[i - 1];
        edges[i - 1] = edges[j];
        edges[j] = t;
    }
}

static int32_t draw_weight(gg_shape shape, uint64_t *rng, int32_t max_w) {
    if (shape == GG_ZEROS && gg_below(rng, 4) != 0)
        return 0;
    if ((shape == GG_NEGATIVE || shape == GG_NEGCYCLE) && gg_below(rng, 4) == 0)
        return 0;
    return between(rng, 0, max_w);
}

/* `want` distinct pairs src != dst out of all V(V-1). */
static int all_pairs_shape(builder *b, gg_shape shape, uint64_t want, uint64_t *rng,
                           int32_t max_w) {
    int32_t v = b->g->v;
    uint64_t pairs = (uint64_t)v * (uint64_t)(v - 1);
    if (want > pairs)
        want = pairs;
    if (want * 2 > pairs) {
        /* Selection sampling (Knuth's algorithm S): exactly `want`, then shuffled. */
        uint64_t left = pairs;
        for (int32_t s = 0; s < v; s++) {
            for (int32_t t = 0; t < v; t++) {
                if (s == t)
                    continue;
                if (gg_below(rng, left--) < want) {
                    want--;
                    if (add(b, s, t, draw_weight(shape, rng, max_w)) != 0)
                        return -1;
                }
            }
        }
        shuffle(b->g->edges, b->g->e, rng);
        return 0;
    }
    while (b->g->e < want) {
        int32_t s = (int32_t)gg_below(rng, (uint64_t)v);
        int32_t t = (int32_t)gg_below(rng, (uint64_t)v);
        if (s != t && mark(b, s, t) && add(b, s, t, draw_weight(shape, rng, max_w)) != 0)
            return -1;
    }
    return 0;
}

static int dups_shape(builder *b, uint64_t want, uint64_t *rng, int32_t max_w) {
    int32_t v = b->g->v;
    /* A small pool of pairs, each used about four times. */
    size_t pool_size = want / 4 + 1;
    gg_edge *pool = malloc(pool_size * sizeof *pool);
    if (!pool)
        return -1;
    for (size_t p = 0; p < pool_size; p++) {
        pool[p].src = (int32_t)gg_below(rng, (uint64_t)v);
        pool[p].dst = (int32_t)gg_below(rng, (uint64_t)v);
    }
    int rc = 0;
    for (uint64_t i = 0; i < want && rc == 0; i++) {
        int32_t w = between(rng, 0, max_w);
        if (gg_below(rng, 8) == 0 || v == 1) {
            int32_t x = (int32_t)gg_below(rng, (uint64_t)v);
            rc = add(b, x, x, w);
        } else {
            const gg_edge *p = &pool[gg_below(rng, pool_size)];
            rc = add(b, p->src, p->dst, w);
        }
    }
    free(pool);
    return rc;
}

static int disconnected_shape(builder *b, uint64_t want, uint64_t *rng, int32_t max_w) {
    int32_t v = b->g->v;
    /* 2 to 4 components (V = 1: one); V = 2 gives two single vertices and no edges at all. */
    int32_t parts = v / 3 < GG_COMPONENTS ? v / 3 : GG_COMPONENTS;
    if (parts < 2)
        parts = v > 1 ? 2 : 1;
    /* Scatter the vertices: component c holds the vertices at positions c, c + parts, ... of a
     * random permutation, so no component is a contiguous range (or a whole tile). */
    int32_t *perm = malloc((size_t)v * sizeof *perm);
    int32_t *part_of = malloc((size_t)v * sizeof *part_of);
    int rc = -1;
    if (!perm || !part_of)
        goto done;
    for (int32_t i = 0; i < v; i++)
        perm[i] = i;
    for (int32_t i = v; i > 1; i--) {
        int32_t j = (int32_t)gg_below(rng, (uint64_t)i);
        int32_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    uint64_t capacity = 0;
    for (int32_t i = 0; i < v; i++)
        part_of[perm[i]] = i % parts;
    for (int32_t c = 0; c < parts; c++) {
        uint64_t size = (uint64_t)((v - c + parts - 1) / parts);
        capacity += size * (size - 1);
    }
    if (want > capacity)
        want = capacity;
    rc = 0;
    while (b->g->e < want && rc == 0) {
        /* A random source, then a random member of its component. */
        int32_t s = (int32_t)gg_below(rng, (uint64_t)v);
        int32_t c = part_of[s];
        uint64_t size = (uint64_t)((v - c + parts - 1) / parts);
        int32_t t = perm[c + parts * (int32_t)gg_below(rng, size)];
        if (s != t && mark(b, s, t))
            rc = add(b, s, t, between(rng, 0, max_w));
    }
done:
    free(perm);
    free(part_of);
    return rc;
}

static int chain_shape(builder *b, uint64_t extra, uint64_t *rng) {
    int32_t v = b->g->v;
    int32_t limit = gg_weight_limit(v);
    for (int32_t i = 0; i + 1 < v; i++)
        if (add(b, i, i + 1, between(rng, limit - limit / 4, limit)) != 0)
            return -1;
    /* Extra edges only lead back (src > dst): they close cycles without shortcutting the chain,
     * so d(0, V-1) stays the sum of all chain weights, about 7/8 of the unreachable marker. */
    uint64_t back_pairs = (uint64_t)v * (uint64_t)(v - 1) / 2;
    uint64_t want = b->g->e + (extra < back_pairs ? extra : back_pairs);
    while (b->g->e < want) {
        int32_t s = (int32_t)gg_below(rng, (uint64_t)v);
        int32_t t = (int32_t)gg_below(rng, (uint64_t)v);
        if (s > t && mark(b, s, t) && add(b, s, t, between(rng, 0, limit)) != 0)
            return -1;
    }
    return 0;
}

/* Random pairs with w0 >= 0, reweighted by potentials: w = w0 + p(src) - p(dst). A cycle's weight
 * is the sum of its w0, so there is no negative cycle, until GG_NEGCYCLE plants one of -1. */
static int potential_shape(builder *b, gg_shape shape, uint64_t want, uint64_t *rng) {
    int32_t v = b->g->v, limit = gg_weight_limit(v) / 4;
    int32_t most_p = limit < GG_MAX_WEIGHT ? limit : GG_MAX_WEIGHT;
    int32_t most_w0 = limit < 100 ? limit : 100; /* |w| <= most_w0 + most_p: within the rule */
    int32_t *p = malloc((size_t)v * sizeof *p);
    if (!p)
        return -1;
    for (int32_t i = 0; i < v; i++)
        p[i] = between(rng, 0, most_p);
    int rc = all_pairs_shape(b, shape, want, rng, most_w0);
    for (size_t e = 0; rc == 0 && e < b->g->e; e++) {
        gg_edge *edge = &b->g->edges[e];
        edge->w += p[edge->src] - p[edge->dst];
    }
    if (rc == 0 && shape == GG_NEGCYCLE && v >= 2) {
        int32_t length = v < 4 ? v : 2 + (int32_t)gg_below(rng, 3);
        int32_t first = (int32_t)gg_below(rng, (uint64_t)v), step = v / length; /* distinct */
        int32_t ring[4];
        for (int32_t i = 0; i < length; i++)
            ring[i] = (int32_t)((first + (int64_t)i * step) % v);
        for (int32_t i = 0; rc == 0 && i < length; i++) {
            int32_t s = ring[i], t = ring[(i + 1) % length];
            rc = add(b, s, t, p[s] - p[t] - (i == 0));
        }
        if (rc == 0)
            shuffle(b->g->edges, b->g->e, rng);
    }
    free(p);
    return rc;
}

int gg_generate(gg_shape shape, int32_t v, int64_t e, uint64_t seed, gg_graph *graph,
                const char **why) {
    static const char *no_memory = "out of memory";
    memset(graph, 0, sizeof *graph);
    graph->v = v;
    if (v < 1) {
        *why = "V must be at least 1";
        return -1;
    }
    if (e < 0 && shape != GG_DENSE) {
        *why = "E must not be negative";
        return -1;
    }
    if (shape == GG_EMPTY && e != 0) {
        *why = "the empty shape has E = 0";
        return -1;
    }
    if ((unsigned)shape >= GG_SHAPE_COUNT) {
        *why = "unknown shape";
        return -1;
    }
    uint64_t want = e > 0 ? (uint64_t)e : 0;
    if (shape == GG_DENSE && e <= 0)
        want = UINT64_MAX;
    /* Different shapes from one seed should not share their random stream. */
    uint64_t rng = seed ^ (0x6a09e667f3bcc909u * (uint64_t)(shape + 1));
    int32_t max_w = gg_weight_limit(v) < GG_MAX_WEIGHT ? gg_weight_limit(v) : GG_MAX_WEIGHT;
    builder b = {.g = graph};
    if (shape == GG_RANDOM || shape == GG_ZEROS || shape == GG_DISCONNECTED || shape == GG_CHAIN ||
        shape == GG_NEGATIVE || shape == GG_NEGCYCLE || (shape == GG_DENSE && want < UINT64_MAX)) {
        if ((uint64_t)v > SIZE_MAX / (uint64_t)v ||
            !(b.seen = calloc((size_t)v * (size_t)v / 8 + 1, 1))) {
            *why = no_memory;
            return -1;
        }
    }
    int rc = 0;
    switch (shape) {
    case GG_RANDOM:
    case GG_DENSE:
    case GG_ZEROS:
        rc = all_pairs_shape(&b, shape, want, &rng, max_w);
        break;
    case GG_DUPS:
        rc = dups_shape(&b, want, &rng, max_w);
        break;
    case GG_DISCONNECTED:
        rc = disconnected_shape(&b, want, &rng, max_w);
        break;
    case GG_CHAIN:
        rc = chain_shape(&b, want, &rng);
        break;
    case GG_NEGATIVE:
    case GG_NEGCYCLE:
        rc = potential_shape(&b, shape, want, &rng);
        break;
    case GG_EMPTY:
    case GG_SHAPE_COUNT:
        break;
    }
    free(b.seen);
    if (rc == 0 && graph->e > INT32_MAX) {
        *why = "more than 2^31 - 1 edges";
        rc = -1;
    } else if (rc != 0) {
        *why = no_memory;
    }
    if (rc != 0)
        gg_free(graph);
    return rc;
}

void gg_free(gg_graph *graph) {
    free(graph->edges);
    graph->edges = NULL;
    graph->e = 0;
}

static void put_le32(unsigned char *p, int32_t value) {
    uint32_t u = (uint32_t)value;
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
    p[2] = (unsigned char)(u >> 16);
    p[3] = (unsigned char)(u >> 24);
}

int gg_write_hw3(const gg_graph *graph, const char *path) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    unsigned char buf[12];
    put_le32(buf, graph->v);
    put_le32(buf + 4, (int32_t)graph->e);
    int ok = fwrite(buf, 1, 8, f) == 8;
    for (size_t i = 0; i < graph->e && ok; i++) {
        put_le32(buf, graph->edges[i].src);
        put_le32(buf + 4, graph->edges[i].dst);
        put_le32(buf + 8, graph->edges[i].w);
        ok = fwrite(buf, 1, 12, f) == 12;
    }
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        remove(path);
        errno = saved;
        return -1;
    }
    return 0;
}
