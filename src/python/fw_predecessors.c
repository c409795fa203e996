/* SciPy's Floyd-Warshall predecessors from solved distances (core.h: fw_predecessors), for the
 * package's floyd_warshall and the NetworkX backend's Floyd-Warshall functions, whose own
 * Floyd-Warshall loops update a pair only on a strict improvement, with k in order. Where several
 * shortest paths tie, theirs keeps the first found: for the pair (i, j) that is the split at
 * K(i,j), the least k such that some shortest path from i to j has no intermediate vertex above
 * k (-1: the edge (i, j) itself is a shortest path), and its predecessor is then that of
 * (K(i,j), j), whose distance was already final before step K(i,j) (K(K(i,j), j) < K(i,j)). So
 * pred(i, j) = the last row r of the chain i, K(i,j), K(K(i,j),j), ... and K(r,j) = -1.
 *
 * Two passes, neither touching the kernels: each source's K row by a min-max search over its
 * tight edges (d(i,k) + w(k,j) = d(i,j)), whose labels only grow along a path, so a bucket queue
 * over the labels settles each vertex once (O(V + E) per source, as the library's derivation);
 * then each column's chains, followed once each (O(V) per column). The library's own rule (the
 * least tight k: apsp_predecessors) stays the apsp command's and the C API's. */
#include "core.h"
#include "base/element_types.h"

#include "base/parallel.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

enum { UNSEEN = INT32_MAX, NONE = -1 }; /* bucket list ends */

typedef struct fw_job {
    const apsp_matrix *d;
    const pred_request *p;
    size_t v;
    int32_t *out; /* V x V: the K rows, then the predecessors */
} fw_job;

/* One thread's scratch for the K rows. */
typedef struct k_scratch {
    int64_t *whole; /* row i's distances: the integer types (INT64_MAX unreachable) */
    double *real;   /* the floating-point ones */
    int32_t *label, *head, *next, *prev;
} k_scratch;

static int finite_at(const k_scratch *s, size_t j) {
    return s->real ? isfinite(s->real[j]) != 0 : s->whole[j] != INT64_MAX;
}

static void load_row(const apsp_matrix *d, size_t i, k_scratch *s) {
    const void *row = apsp_matrix_row_cells(d, i);
    for (size_t j = 0; j < d->n; j++)
        switch (d->dtype) {
#define LOAD_CELL(TYPE, NAME, C, NONE, REAL, DIGITS)                                               \
    case TYPE: {                                                                                   \
        C x = ((const C *)row)[j];                                                                 \
        if (REAL)                                                                                  \
            s->real[j] = (double)x;                                                                \
        else                                                                                       \
            s->whole[j] = x >= (C)(NONE) ? INT64_MAX : (int64_t)x;                                 \
        break;                                                                                     \
    }
            ELEMENT_TYPES(LOAD_CELL)
#undef LOAD_CELL
        }
}

/* Whether edge e (k -> j) is tight for the loaded source: exactly for the integer types, within
 * the tolerance (relative, as the library's derivation) for the floating-point ones. */
static int tight(const fw_job *job, const k_scratch *s, int32_t k, size_t e, int32_t j) {
    const void *w = job->p->weights.buf;
    switch (job->d->dtype) {
    case APSP_INT32:
        return s->whole[k] + ((const int32_t *)w)[e] == s->whole[j];
    case APSP_INT64: /* |d| < 2^62 and |w| < 2^62: no overflow */
        return s->whole[k] + ((const int64_t *)w)[e] == s->whole[j];
    default: {
        double weight =
            job->d->dtype == APSP_FLOAT32 ? ((const float *)w)[e] : ((const double *)w)[e];
        double dj = s->real[j];
        double slack = job->p->tolerance * (fabs(dj) > 1 && isfinite(dj) ? fabs(dj) : 1);
        return isfinite(dj) && fabs(s->real[k] + weight - dj) <= slack;
    }
    }
}

/* Vertex x into the bucket of label (-2: the source, -1, 0 ... V - 1), out of its old one. */
static void move_to(k_scratch *s, int32_t x, int32_t label) {
    if (s->label[x] != UNSEEN) {
        if (s->prev[x] != NONE)
            s->next[s->prev[x]] = s->next[x];
        else
            s->head[s->label[x] + 2] = s->next[x];
        if (s->next[x] != NONE)
            s->prev[s->next[x]] = s->prev[x];
    }
    s->label[x] = label;
    s->prev[x] = NONE;
    s->next[x] = s->head[label + 2];
    if (s->next[x] != NONE)
        s->prev[s->next[x]] = x;
    s->head[label + 2] = x;
}

/* Source i's K row into `row`: K(i,j) as the label of j, the least over tight paths from i of
 * their largest intermediate vertex. Returns 0, or EDOM where a vertex at a finite distance is
 * reached by no tight path (distances the graph does not give). */
static int k_row(const fw_job *job, size_t i, k_scratch *s, int32_t *row) {
    const int64_t *indptr = job->p->indptr.buf;
    const int32_t *indices = job->p->indices.buf;
    const size_t v = job->v;
    load_row(job->d, i, s);
    for (size_t x = 0; x < v; x++)
        s->label[x] = UNSEEN;
    for (size_t b = 0; b < v + 2; b++)
        s->head[b] = NONE;
    move_to(s, (int32_t)i, -2);
    for (size_t b = 0; b < v + 2; b++)
        for (int32_t k; (k = s->head[b]) != NONE;) {
            s->head[b] = s->next[k]; /* popped; its label is final */
            if (s->next[k] != NONE)
                s->prev[s->next[k]] = NONE;
            const int32_t label = (int32_t)b - 2;
            for (int64_t e = indptr[k]; e < indptr[k + 1]; e++) {
                int32_t j = indices[e];
                int32_t via = (size_t)k == i ? -1 : label > k ? label : k;
                if ((size_t)j == i || j == k || via >= s->label[j] || !tight(job, s, k, e, j))
                    continue;
                move_to(s, j, via);
            }
        }
    for (size_t j = 0; j < v; j++) {
        row[j] = j == i || !finite_at(s, j) ? APSP_NO_PREDECESSOR : s->label[j];
        if (row[j] == UNSEEN)
            return EDOM;
    }
    return 0;
}

static int k_slice(void *context, size_t begin, size_t end) {
    const fw_job *job = context;
    const size_t v = job->v;
    int real = element_is_real(job->d->dtype);
    k_scratch s = {.whole = real ? NULL : malloc(v * sizeof *s.whole),
                   .real = real ? malloc(v * sizeof *s.real) : NULL,
                   .label = malloc(v * sizeof *s.label),
                   .head = malloc((v + 2) * sizeof *s.head),
                   .next = malloc(v * sizeof *s.next),
                   .prev = malloc(v * sizeof *s.prev)};
    int result = (s.whole || s.real) && s.label && s.head && s.next && s.prev ? 0 : ENOMEM;
    for (size_t i = begin; i < end && !result; i++)
        result = k_row(job, i, &s, job->out + i * v);
    free(s.whole);
    free(s.real);
    free(s.label);
    free(s.head);
    free(s.next);
    free(s.prev);
    return result;
}

/* Columns [begin, end): each pair's K chain followed to its last row r (K(r,j) = -1), which is
 * the predecessor; each vertex's end is kept, so a column costs O(V). */
static int chain_slice(void *context, size_t begin, size_t end) {
    const fw_job *job = context;
    const size_t v = job->v;
    int32_t *last = malloc(v * sizeof *last), *stack = malloc(v * sizeof *stack);
    int result = last && stack ? 0 : ENOMEM;
    for (size_t j = begin; j < end && !result; j++) {
        for (size_t x = 0; x < v; x++)
            last[x] = NONE;
        for (size_t x = 0; x < v && !result; x++) {
            size_t top = 0, y = x;
            while (job->out[y * v + j] != APSP_NO_PREDECESSOR && last[y] == NONE) {
                int32_t k = job->out[y * v + j];
                if (k == -1) {
                    last[y] = (int32_t)y;
                    break;
                }
                if (top == v || (size_t)k >= v) { /* a chain that loops: labels not SciPy's */
                    result = EDOM;
                    break;
                }
                stack[top++] = (int32_t)y;
                y = (size_t)k;
            }
            if (top > 0 && last[y] == NONE) /* a chain into an unreached row: not SciPy's */
                result = EDOM;
            while (top > 0 && !result)
                last[stack[--top]] = last[y];
        }
        for (size_t x = 0; x < v && !result; x++)
            if (job->out[x * v + j] != APSP_NO_PREDECESSOR)
                job->out[x * v + j] = last[x];
    }
    free(last);
    free(stack);
    return result;
}

apsp_status fw_predecessors(const apsp_matrix *m, const pred_request *p, apsp_error *err) {
    fw_job job = {.d = m, .p = p, .v = m->n, .out = p->pred.buf};
    const unsigned threads = threads_for_bytes(m->n * m->n * sizeof(int32_t), p->threads);
    int result = parallel_slices(m->n, threads, k_slice, &job);
    if (!result)
        result = parallel_slices(m->n, threads, chain_slice, &job);
    if (!result)
        return APSP_OK;
    if (result == ENOMEM) {
        snprintf(err->message, sizeof err->message, "predecessors: out of memory");
        return err->status = APSP_ERR_NO_MEMORY;
    }
    snprintf(err->message, sizeof err->message,
             "predecessors: the distances are not the graph's (a vertex at a finite distance "
             "that no shortest path reaches)");
    return err->status = APSP_ERR_INTERNAL;
}
