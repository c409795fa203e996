/* The narrow integer path of the sparse methods (sssp.h): the bound that says when 32-bit
 * distances are exact, and the packed arcs the searches read. */
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "sssp/sssp.h"

#include <stdlib.h>

static uint64_t magnitude(int64_t w) {
    return w < 0 ? 0 - (uint64_t)w : (uint64_t)w;
}

static uint64_t add_saturating(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* How many of the `left` largest values fall in each bucket of the byte at `shift`, among those
 * whose higher bytes are `prefix`, and their sums: one pass of the radix selection below. */
typedef struct byte_buckets {
    size_t count[256];
    uint64_t sum[256];
} byte_buckets;

static void fill_buckets(const int64_t *weights, size_t edges, unsigned shift, uint64_t prefix,
                         byte_buckets *b) {
    for (unsigned i = 0; i < 256; i++)
        b->count[i] = 0, b->sum[i] = 0;
    for (size_t e = 0; e < edges; e++) {
        uint64_t x = magnitude(weights[e]);
        if (shift < 56 && (x >> (shift + 8)) != prefix) /* (every value matches the top byte) */
            continue;
        unsigned byte = (unsigned)(x >> shift) & 255u;
        b->count[byte]++;
        b->sum[byte] = add_saturating(b->sum[byte], x);
    }
}

/* A radix selection, byte by byte from the top: each pass adds the buckets wholly among the
 * `left` largest and narrows to the one that holds the boundary; after the last byte the values
 * left in it are all equal. Eight passes over the weights at most, no copy of them, exact (and
 * saturating at UINT64_MAX). */
uint64_t sssp_path_bound(const int64_t *weights, size_t edges, size_t vertices) {
    size_t left = vertices > 1 ? vertices - 1 : 0;
    uint64_t total = 0, prefix = 0;
    byte_buckets b;
    for (int shift = 56; shift >= 0 && left > 0; shift -= 8) {
        fill_buckets(weights, edges, (unsigned)shift, prefix, &b);
        int boundary = -1;
        for (int byte = 255; byte >= 0 && left > 0 && boundary < 0; byte--) {
            if (b.count[byte] <= left) {
                total = add_saturating(total, b.sum[byte]);
                left -= b.count[byte];
            } else
                boundary = byte;
        }
        if (boundary < 0) /* fewer than V - 1 edges, or the boundary met exactly */
            return total;
        prefix = (prefix << 8) | (uint64_t)boundary;
    }
    uint64_t value = prefix; /* the last byte's boundary bucket: `left` copies of one value */
    return left == 0                                 ? total
           : value != 0 && left > UINT64_MAX / value ? UINT64_MAX
                                                     : add_saturating(total, value * left);
}

int sssp_narrow_fits(uint64_t bound) {
    return bound <= (uint64_t)INT32_MAX - 1;
}

static int64_t largest_weight(const int64_t *weights, size_t edges) {
    int64_t largest = 0;
    for (size_t e = 0; e < edges; e++)
        largest = weights[e] > largest ? weights[e] : largest;
    return largest;
}

apsp_status sssp_narrow_arcs(const adjacency *g, const int64_t *weights, sssp_arc **arcs,
                             int64_t *largest, uint64_t *bound, apsp_error *error) {
    size_t v = g->vertices, edges = g->start[v];
    *largest = largest_weight(weights, edges);
    *bound = sssp_path_bound(weights, edges, v);
    *arcs = NULL;
    if (!sssp_narrow_fits(*bound) || edges > UINT32_MAX) /* (sssp_vertex's offsets) */
        return APSP_OK;
    *arcs = alloc_large((edges ? edges : 1) * sizeof **arcs);
    if (!*arcs)
        return fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for %zu arcs", edges);
    for (size_t e = 0; e < edges; e++) /* every weight is at most the bound, below INT32_MAX */
        (*arcs)[e] = (sssp_arc){g->other[e], (uint32_t)weights[e]};
    return APSP_OK;
}
