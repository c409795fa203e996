/* A breadth-first search over the tight out-edges from each source (search.h): the edge by which
 * it first reaches j gives j's predecessor, so the predecessors form a tree even where tight
 * edges close cycles (of weight 0). O(E) per source; it stops once every vertex at a finite
 * distance is reached. Each source's row of distances is loaded once into a scratch row of
 * int64 (the integer types, the unreachable marker as INT64_MAX) or double (+inf), so that one
 * search serves every element type. */
#include "paths/search.h"
#include "base/fault.h"
#include "base/element_types.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The scratch of one thread: the queue and the source's distances. */
typedef struct scratch {
    int32_t *queue;
    int64_t *whole; /* the integer types */
    double *real;   /* the floating-point types */
} scratch;

/* Row i of the distances into the scratch; returns the number of vertices at a finite distance. */
static size_t load_row(const apsp_matrix *d, size_t i, scratch *s) {
    const void *row = apsp_matrix_row_cells(d, i);
    size_t v = d->n, finite = 0;
    for (size_t j = 0; j < v; j++) {
        switch (d->dtype) {
#define LOAD_CELL(TYPE, NAME, C, NONE, REAL, DIGITS)                                               \
    case TYPE: {                                                                                   \
        C x = ((const C *)row)[j];                                                                 \
        if (REAL) {                                                                                \
            double real = (double)x;                                                               \
            s->real[j] = real;                                                                     \
            finite += isfinite(real) != 0;                                                         \
        } else {                                                                                   \
            s->whole[j] = x >= (C)(NONE) ? INT64_MAX : (int64_t)x;                                 \
            finite += x < (C)(NONE);                                                               \
        }                                                                                          \
        break;                                                                                     \
    }
            ELEMENT_TYPES(LOAD_CELL)
#undef LOAD_CELL
        }
    }
    return finite;
}

/* How edge e from k relates to d(i,j) = dj: 0 tight, 1 longer, -1 shorter (a mismatch). */
static int relation(const search_job *jb, const scratch *s, int32_t k, size_t e, int32_t j) {
    const adjacency *a = jb->out;
    if (!s->real) {
        int64_t via = s->whole[k] + a->weight[e]; /* |d| < 2^62 and |w| < 2^62: no overflow */
        return via == s->whole[j] ? 0 : via < s->whole[j] ? -1 : 1;
    }
    double w = a->real ? a->real[e] : (double)a->weight[e];
    double via = s->real[k] + w, dj = s->real[j];
    double slack = jb->tolerance * (fabs(dj) > 1 && isfinite(dj) ? fabs(dj) : 1);
    return fabs(via - dj) <= slack ? 0 : via < dj ? -1 : 1;
}

/* The search from source i into the predecessor row p. Returns 0, or 1 with *bad filled. */
static int search(const search_job *jb, size_t i, int32_t *p, scratch *s, mismatch *bad) {
    const adjacency *a = jb->out;
    size_t v = a->vertices, finite = load_row(jb->d, i, s);
    for (size_t j = 0; j < v; j++)
        p[j] = APSP_NO_PREDECESSOR;
    size_t head = 0, tail = 0, found = 1;
    s->queue[tail++] = (int32_t)i;
    while (head < tail && found < finite) {
        int32_t k = s->queue[head++];
        for (size_t e = a->start[k], end = a->start[k + 1]; e < end; e++) {
            int32_t j = a->other[e];
            int r = relation(jb, s, k, e, j);
            if (r < 0) {
                *bad = (mismatch){1, i, (size_t)j, 0};
                return 1;
            }
            if (r > 0 || p[j] != APSP_NO_PREDECESSOR || (size_t)j == i)
                continue;
            p[j] = k;
            s->queue[tail++] = j;
            found++;
        }
    }
    if (found == finite)
        return 0;
    for (size_t j = 0; j < v; j++) {
        int reachable = s->real ? isfinite(s->real[j]) != 0 : s->whole[j] != INT64_MAX;
        if (reachable && p[j] == APSP_NO_PREDECESSOR && j != i) {
            *bad = (mismatch){1, i, j, 1};
            return 1;
        }
    }
    return 0;
}

int search_slice(void *context, size_t begin, size_t end) {
    const search_job *jb = context;
    size_t v = jb->out->vertices ? jb->out->vertices : 1;
    int real = element_is_real(jb->d->dtype);
    scratch s = {.queue = apsp_malloc(v * sizeof *s.queue),
                 .whole = real ? NULL : apsp_malloc(v * sizeof *s.whole),
                 .real = real ? apsp_malloc(v * sizeof *s.real) : NULL};
    int result = s.queue && (s.whole || s.real) ? 0 : ENOMEM;
    for (size_t r = begin; r < end && !result; r++)
        if (search(jb, jb->first + r, jb->pred + r * jb->out->vertices, &s, &jb->bad[begin]))
            result = SEARCH_MISMATCH;
    free(s.queue);
    free(s.whole);
    free(s.real);
    return result;
}
