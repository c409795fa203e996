#include "paths.h"
#include "report.h"
#include "base/element_types.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void set_error(apsp_error *error, apsp_status status, const char *message, const char *arg) {
    error->status = status;
    snprintf(error->message, sizeof error->message, message, arg);
}

/* The predecessor rows, `bytes` of fresh memory that the derivation's threads touch first: a
 * large array is aligned to and advised for transparent huge pages where the system has them,
 * since first-touch faults of 4 KiB pages cost more than the writes (about 0.7 s a GB on one
 * thread, against 0.3 s with 2 MiB pages). free() releases either kind. */
enum { HUGE_PAGE = 2 << 20 };

static int32_t *alloc_pred(size_t bytes) {
#ifdef MADV_HUGEPAGE
    void *pred = NULL;
    if (bytes >= 16 * (size_t)HUGE_PAGE && posix_memalign(&pred, HUGE_PAGE, bytes) == 0) {
        madvise(pred, bytes, MADV_HUGEPAGE); /* only advice: refused, the small pages do */
        return pred;
    }
#endif
    return malloc(bytes);
}

int paths_wanted(const cli_paths *p) {
    return p->predecessors != NULL || p->path_spec != NULL;
}

static int parse_vertex(const char *text, const char *end, size_t *out) {
    if (text == end || end - text > 10)
        return -1;
    uint64_t v = 0;
    for (const char *c = text; c < end; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        v = v * 10 + (uint64_t)(*c - '0');
    }
    if (v > INT32_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

int paths_parse_path(cli_paths *p, const char *arg) {
    const char *comma = strchr(arg, ',');
    if (!comma || parse_vertex(arg, comma, &p->from) != 0 ||
        parse_vertex(comma + 1, comma + 1 + strlen(comma + 1), &p->to) != 0)
        return -1;
    p->path_spec = arg;
    return 0;
}

/* Standard output takes one of OUTPUT "-", --predecessors=- and --path's line: two would run
 * together there (a binary matrix and a line of text), so the second is refused. */
static apsp_status refuse_shared_stdout(const cli_paths *p, const char *output, apsp_error *error) {
    int output_stdout = strcmp(output, "-") == 0;
    int pred_stdout = p->predecessors && strcmp(p->predecessors, "-") == 0;
    const char *second = pred_stdout && (output_stdout || p->path_spec) ? "--predecessors=-"
                         : p->path_spec && output_stdout                ? "--path"
                                                                        : NULL;
    if (!second)
        return APSP_OK;
    error->status = APSP_ERR_USAGE;
    snprintf(error->message, sizeof error->message,
             "%s: standard output already takes %s: one of OUTPUT -, --predecessors=- and "
             "--path may write there (see apsp --help)",
             second, output_stdout ? "OUTPUT" : "--path's line");
    return APSP_ERR_USAGE;
}

apsp_status paths_open(cli_paths *p, const char *output, apsp_error *error) {
    p->seconds = -1;
    apsp_status refused = refuse_shared_stdout(p, output, error);
    if (refused != APSP_OK || !p->predecessors)
        return refused; /* the same file as OUTPUT by another name: refuse_same_files */
    apsp_status status = apsp_output_open(p->predecessors, &p->out, error);
    if (status != APSP_OK) {
        char detail[sizeof error->message];
        memcpy(detail, error->message, sizeof detail);
        snprintf(error->message, sizeof error->message, "--predecessors: %.1000s", detail);
    }
    return status;
}

apsp_status paths_check(const cli_paths *p, size_t vertices, apsp_error *error) {
    if (!p->path_spec || (p->from < vertices && p->to < vertices))
        return APSP_OK;
    error->status = APSP_ERR_USAGE;
    snprintf(error->message, sizeof error->message,
             "--path=%.64s: the graph's vertices are 0 to %zu (see apsp --help)", p->path_spec,
             vertices ? vertices - 1 : 0);
    if (vertices == 0)
        snprintf(error->message, sizeof error->message, "--path=%.64s: the graph has no vertices",
                 p->path_spec);
    return APSP_ERR_USAGE;
}

/* p->rows rows of v predecessors, refused before they are taken when they do not fit what is
 * free (check_size counted them with the distances; this is what is free now). */
static apsp_status take_pred(cli_paths *p, size_t v, apsp_error *error) {
    if (v > 0 && p->rows > SIZE_MAX / sizeof *p->pred / v) {
        set_error(error, APSP_ERR_TOO_LARGE, "the predecessor matrix%s exceeds memory", "");
        return APSP_ERR_TOO_LARGE;
    }
    size_t bytes = (p->rows * v > 0 ? p->rows * v : 1) * sizeof *p->pred;
    char what[96];
    snprintf(what, sizeof what, "V = %zu: the predecessor matrix", v);
    apsp_status status = apsp_memory_check(bytes, what, error);
    if (status != APSP_OK)
        return status;
    p->pred = alloc_pred(bytes);
    if (!p->pred) {
        set_error(error, APSP_ERR_NO_MEMORY, "out of memory for the predecessor matrix%s", "");
        return APSP_ERR_NO_MEMORY;
    }
    return APSP_OK;
}

apsp_status paths_derive(cli_paths *p, const apsp_graph *graph, const apsp_matrix *distances,
                         unsigned threads, apsp_error *error) {
    size_t v = distances->n;
    p->first = p->predecessors ? 0 : p->from;
    p->rows = p->predecessors ? v : 1;
    apsp_status status = take_pred(p, v, error);
    if (status != APSP_OK)
        return status;
    double t0 = cli_clock();
    status = apsp_predecessors(graph, distances, p->first, p->rows, threads, p->pred, error);
    p->seconds = cli_clock() - t0;
    return status;
}

/* Cell j of a row of distances as the text output writes it: integers as they are, the
 * floating-point types with the digits that read back to the same value (%.9g, %.17g). */
static void print_distance(const void *row, apsp_dtype dtype, size_t j) {
    switch (dtype) {
#define PRINT_CELL(TYPE, NAME, C, NONE, REAL, DIGITS)                                              \
    case TYPE:                                                                                     \
        if (REAL)                                                                                  \
            printf("%.*g", DIGITS, (double)((const C *)row)[j]);                                   \
        else                                                                                       \
            printf("%lld", (long long)((const C *)row)[j]);                                        \
        break;
        ELEMENT_TYPES(PRINT_CELL)
#undef PRINT_CELL
    }
}

apsp_status paths_solve(cli_paths *p, apsp_solver *solver, const apsp_graph *graph, apsp_matrix *m,
                        apsp_report *report, unsigned threads, apsp_error *error) {
    /* --path alone (one source's row), and every type but int32 (the devices derive from int32
     * distances): on the host, after the solve. */
    if (!p->predecessors || m->dtype != APSP_INT32) {
        apsp_status status = apsp_solver_solve(solver, m, report, error);
        return status == APSP_OK ? paths_derive(p, graph, m, threads, error) : status;
    }
    size_t v = m->n;
    p->first = 0;
    p->rows = v;
    apsp_status status = take_pred(p, v, error);
    if (status != APSP_OK)
        return status;
    status = apsp_solver_solve_paths(solver, m, graph, p->pred, report, error);
    if (status == APSP_OK)
        p->seconds = report->paths_seconds;
    return status;
}

apsp_status paths_print_line(const cli_paths *p, const int32_t *pred_row, const void *dist_row,
                             apsp_dtype dtype, size_t vertices, apsp_error *error) {
    int32_t *path = malloc((vertices ? vertices : 1) * sizeof *path);
    if (!path) {
        set_error(error, APSP_ERR_NO_MEMORY, "out of memory for --path%s", "");
        return APSP_ERR_NO_MEMORY;
    }
    size_t length;
    apsp_status status = apsp_path(pred_row, vertices, p->from, p->to, path, &length, error);
    if (status == APSP_OK && length == 0) {
        printf("no path from %zu to %zu\n", p->from, p->to);
    } else if (status == APSP_OK) {
        printf("length ");
        print_distance(dist_row, dtype, p->to);
        printf(": ");
        for (size_t k = 0; k < length; k++)
            printf("%s%d", k ? " -> " : "", (int)path[k]);
        putchar('\n');
    }
    free(path);
    if (status == APSP_OK && fflush(stdout) != 0) {
        set_error(error, APSP_ERR_OUTPUT, "--path: standard output: %s", strerror(errno));
        return APSP_ERR_OUTPUT;
    }
    return status;
}

apsp_status paths_commit(cli_paths *p, const apsp_matrix *distances, apsp_error *error) {
    if (!p->out)
        return APSP_OK;
    /* The predecessors are the V x V int32 rows: .npy or the raw hw3-style binary. */
    size_t v = distances->n;
    apsp_matrix view = {.n = v, .padded = v, .stride = v, .dtype = APSP_INT32, .data = p->pred};
    apsp_format format =
        apsp_format_for(p->predecessors, 1) == APSP_FORMAT_NPY ? APSP_FORMAT_NPY : APSP_FORMAT_HW3;
    apsp_status status = apsp_output_commit(p->out, format, &view, error);
    p->out = NULL;
    if (status != APSP_OK) {
        char detail[sizeof error->message];
        memcpy(detail, error->message, sizeof detail);
        snprintf(error->message, sizeof error->message, "--predecessors: %.1000s", detail);
    }
    return status;
}

apsp_status paths_print(cli_paths *p, const apsp_matrix *distances, apsp_error *error) {
    if (!p->path_spec)
        return APSP_OK;
    size_t v = distances->n;
    return paths_print_line(p, p->pred + (p->from - p->first) * v,
                            apsp_matrix_row_cells(distances, p->from), distances->dtype, v, error);
}

void paths_release(cli_paths *p) {
    apsp_output_abort(p->out);
    p->out = NULL;
    free(p->pred);
    p->pred = NULL;
}
