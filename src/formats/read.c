/* What the text readers share beyond the scanner: opening and loading, the weight rule at a
 * line, room for announced edges, and parsing a long body on several threads. */
#include "base/fault.h"
#include "base/graph.h"
#include "base/parallel.h"
#include "base/util.h"
#include "formats/readers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

apsp_status text_check_weight(const text_input *t, const apsp_read_options *options, int64_t w,
                              size_t vertices, apsp_error *error) {
    char why[320];
    if (options->flags & APSP_GRAPH_UNWEIGHTED)
        return APSP_OK;
    const char *problem = weight_problem(w, vertices, read_rule_dtype(options), why, sizeof why);
    return problem ? text_fail(t, error, "%s", problem) : APSP_OK;
}

apsp_status text_check_real(const text_input *t, const apsp_read_options *options,
                            const text_weight *w, size_t vertices, apsp_error *error) {
    char why[320], written[TEXT_WRITTEN_BYTES];
    if (options->flags & APSP_GRAPH_UNWEIGHTED)
        return APSP_OK;
    const char *problem = real_weight_problem(w->real, text_written(w, written, sizeof written),
                                              vertices, read_real_dtype(options), why, sizeof why);
    return problem ? text_fail(t, error, "%s", problem) : APSP_OK;
}

apsp_status text_push_weight(const text_input *t, const apsp_read_options *options, apsp_graph *g,
                             int32_t source, int32_t target, const text_weight *w, size_t vertices,
                             apsp_error *error) {
    apsp_status status = w->is_real ? text_check_real(t, options, w, vertices, error)
                                    : text_check_weight(t, options, w->value, vertices, error);
    if (status != APSP_OK)
        return status;
    if (w->is_real && !read_takes_fractions(options)) {
        /* Integer distances: text_check_real let only a whole number within int64 through
         * ("2.0", "3e2", "999999999999999999.99" once rounded), which is that integer, under the
         * integers' rule (checked again once V is known). */
        int64_t value = (int64_t)w->real;
        status = text_check_weight(t, options, value, vertices, error);
        return status == APSP_OK ? graph_push(g, source, target, value, error) : status;
    }
    return w->is_real ? graph_push_real(g, source, target, w->real, error)
                      : graph_push(g, source, target, w->value, error);
}

static uint64_t magnitude(int64_t w) {
    return w < 0 ? -(uint64_t)w : (uint64_t)w;
}

/* Whether real weight a is larger in magnitude than b (which may be none yet). */
static int larger_real(const text_weight *a, const text_weight *b) {
    return a->is_real && (!b->is_real || fabs(a->real) > fabs(b->real));
}

apsp_status text_take_weight(const text_input *t, const apsp_read_options *options, text_weight *w,
                             weight_extremes *x, apsp_error *error) {
    apsp_status status = APSP_OK;
    if (w->is_real) {
        status = text_check_real(t, options, w, options->vertices, error);
        if (status == APSP_OK && larger_real(w, &x->real)) {
            x->real = *w;
            x->real_line = t->line;
        }
        if (status != APSP_OK || read_takes_fractions(options))
            return status;
        /* Integer distances: a whole number written as a real is that integer (above). */
        *w = (text_weight){.value = (int64_t)w->real};
    }
    status = text_check_weight(t, options, w->value, options->vertices, error);
    if (status == APSP_OK && magnitude(w->value) > magnitude(x->largest)) {
        x->largest = w->value;
        x->largest_line = t->line;
    }
    return status;
}

void weight_extremes_merge(weight_extremes *into, const weight_extremes *piece) {
    if (magnitude(piece->largest) > magnitude(into->largest)) {
        into->largest = piece->largest;
        into->largest_line = piece->largest_line;
    }
    if (larger_real(&piece->real, &into->real)) {
        into->real = piece->real;
        into->real_line = piece->real_line;
    }
}

const char *weight_extremes_problem(const weight_extremes *x, const apsp_read_options *options,
                                    size_t vertices, char *why, size_t size, uint64_t *line) {
    if (options->flags & APSP_GRAPH_UNWEIGHTED)
        return NULL;
    *line = x->largest_line;
    const char *problem = weight_problem(x->largest, vertices, read_rule_dtype(options), why, size);
    if (problem || !x->real.is_real || !read_takes_fractions(options))
        return problem;
    char written[TEXT_WRITTEN_BYTES];
    *line = x->real_line;
    return real_weight_problem(x->real.real, text_written(&x->real, written, sizeof written),
                               vertices, read_real_dtype(options), why, size);
}

apsp_status text_open(const char *path, text_input *t, size_t longest_line, apsp_error *error) {
    input_file in;
    apsp_status status = input_open(path, &in, error);
    if (status != APSP_OK) {
        *t = (text_input){0};
        return status;
    }
    status = text_load(&in, t, longest_line, error);
    input_close(&in);
    return status;
}

apsp_status reserve_announced(apsp_graph *g, const text_input *t, uint64_t announced,
                              size_t least_bytes, apsp_error *error) {
    uint64_t could = (uint64_t)(t->end - t->data) / least_bytes + 1;
    return apsp_graph_reserve(g, (size_t)(announced < could ? announced : could), error);
}

/* The pieces of a body, each parsed by a copy of the reader of its own (body_reader). */
typedef struct pieces {
    const body_reader *how;
    char *readers; /* count copies, how->size bytes each */
    apsp_status *status;
    apsp_error *errors;
} pieces;

static void *piece_at(const pieces *p, size_t i) {
    return p->readers + i * p->how->size;
}

static text_input *input_of(const body_reader *how, void *reader) {
    return (text_input *)((char *)reader + how->input_offset);
}

static apsp_graph **graph_of(const body_reader *how, void *reader) {
    return (apsp_graph **)((char *)reader + how->graph_offset);
}

static int parse_pieces(void *context, size_t begin, size_t end) {
    pieces *p = context;
    for (size_t i = begin; i < end; i++)
        p->status[i] = p->how->body(piece_at(p, i), &p->errors[i]);
    return 0;
}

/* Appends the pieces' edges to the reader's graph, in order: real weights for all when one
 * piece has real ones. */
static apsp_status concat(apsp_graph *into, const pieces *p, size_t count) {
    size_t total = into->edges;
    int real = into->real_weight != NULL;
    for (size_t i = 0; i < count; i++) {
        const apsp_graph *g = *graph_of(p->how, piece_at(p, i));
        total += g->edges;
        real |= g->real_weight != NULL;
    }
    apsp_status status = apsp_graph_reserve(into, total, NULL);
    if (status == APSP_OK && real)
        status = graph_make_real(into, NULL);
    for (size_t i = 0; i < count && status == APSP_OK; i++) {
        const apsp_graph *g = *graph_of(p->how, piece_at(p, i));
        if (g->edges == 0)
            continue;
        memcpy(into->source + into->edges, g->source, g->edges * sizeof *g->source);
        memcpy(into->target + into->edges, g->target, g->edges * sizeof *g->target);
        if (!real)
            memcpy(into->weight + into->edges, g->weight, g->edges * sizeof *g->weight);
        for (size_t e = 0; real && e < g->edges; e++)
            into->real_weight[into->edges + e] = graph_weight_real(g, e);
        into->edges += g->edges;
    }
    return status;
}

/* The reader's state after all pieces, into `result` (a copy of the reader): 1 when every piece
 * was read without a problem and the reader accepts the whole. */
static int combine(void *result, const pieces *p, size_t count) {
    const body_reader *how = p->how;
    for (size_t i = 0; i < count; i++)
        if (p->status[i] != APSP_OK)
            return 0;
    apsp_graph *g = *graph_of(how, result);
    size_t before = g->edges;
    if (concat(g, p, count) != APSP_OK)
        return 0;
    for (size_t i = 0; how->merge && i < count; i++)
        how->merge(result, piece_at(p, i));
    if (how->accept && !how->accept(result)) {
        g->edges = before;
        return 0;
    }
    text_input *t = input_of(how, result);
    t->p = t->end; /* all read */
    return 1;
}

/* 1 when the pieces were read and combined into the reader; 0 (the reader untouched but for
 * spare room in its graph) when that did not work out. */
static int in_pieces(void *reader, const body_reader *how, const text_input *inputs, size_t count) {
    pieces p = {.how = how,
                .readers = apsp_calloc(count + 1, how->size),
                .status = apsp_calloc(count, sizeof *p.status),
                .errors = apsp_calloc(count, sizeof *p.errors)};
    int done = 0, made = 0;
    if (p.readers && p.status && p.errors) {
        for (; made < (int)count; made++) {
            void *piece = piece_at(&p, (size_t)made);
            memcpy(piece, reader, how->size);
            *input_of(how, piece) = inputs[made];
            /* Room for an edge per line (two for a symmetric matrix): no growing on the way. */
            size_t room = how->edges_per_line * text_count_lines(&inputs[made]);
            if (apsp_graph_create((*graph_of(how, reader))->vertices, room, graph_of(how, piece),
                                  NULL) != APSP_OK)
                break;
        }
    }
    if (made == (int)count) {
        parallel_slices(count, (unsigned)count, parse_pieces, &p);
        void *result = piece_at(&p, count);
        memcpy(result, reader, how->size);
        done = combine(result, &p, count);
        if (done)
            memcpy(reader, result, how->size);
    }
    for (int i = 0; i < made; i++) {
        apsp_graph_destroy(*graph_of(how, piece_at(&p, (size_t)i)));
        if (how->release)
            how->release(piece_at(&p, (size_t)i));
    }
    free(p.readers);
    free(p.status);
    free(p.errors);
    return done;
}

apsp_status parse_body(void *reader, const body_reader *how, int threads, apsp_error *error) {
    text_input inputs[TEXT_MAX_PIECES];
    size_t pieces = threads > 0 ? (size_t)threads : online_cores();
    size_t count = text_split(input_of(how, reader), pieces, inputs);
    if (count > 1 && in_pieces(reader, how, inputs, count))
        return APSP_OK;
    return how->body(reader, error);
}
