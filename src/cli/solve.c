/* The graph in, the solve, the output out (cli.h). */
#include "cli.h"
#include "warm_up.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_input_is_hw3_file(const cli *c) {
    apsp_format format = c->read.format ? c->read.format : apsp_format_for(c->input, 0);
    return format == APSP_FORMAT_HW3 && strcmp(c->input, "-") != 0;
}

/* The error's message with the input's name in front (the matrix's errors do not know it). */
static apsp_status naming_input(const cli *c, apsp_status status, apsp_error *err) {
    if (status == APSP_OK)
        return status;
    char detail[sizeof err->message];
    memcpy(detail, err->message, sizeof detail);
    const char *name = strcmp(c->input, "-") == 0 ? "stdin" : c->input;
    int n = snprintf(err->message, sizeof err->message, "%s: ", name);
    if (n > 0 && (size_t)n < sizeof err->message)
        memcpy(err->message + n, detail, strnlen(detail, sizeof detail - (size_t)n - 1));
    err->message[sizeof err->message - 1] = '\0';
    return status;
}

/* --predecessors' V x V matrix is held in host memory beside the distances' (the paths are
 * derived from the whole matrix), so the two must fit what is free together. */
static apsp_status check_predecessor_room(size_t vertices, apsp_dtype dtype, apsp_error *err) {
    uint64_t distances = apsp_matrix_bytes_typed(vertices, dtype);
    uint64_t pred = (uint64_t)vertices * vertices * sizeof(int32_t);
    char what[160];
    snprintf(what, sizeof what,
             "V = %zu: the %s distance matrix with the V x V predecessor matrix beside it",
             vertices, apsp_dtype_name(dtype));
    return apsp_memory_check(distances > UINT64_MAX - pred ? UINT64_MAX : distances + pred, what,
                             err);
}

/* The graph's size on the solver's devices and in host memory, refused naming the input ("V =
 * ...: the distance matrix would need ..." says nothing of where V came from). */
static apsp_status check_size(const cli *c, apsp_solver *solver, size_t vertices, apsp_dtype dtype,
                              apsp_error *err) {
    /* Chosen sources need no V x V matrix, unless Floyd-Warshall is asked for (auto picks it
     * only where the matrix fits). */
    if (c->sources.asked && c->sources.method != APSP_METHOD_FW)
        return APSP_OK;
    apsp_status status = apsp_solver_check_typed(solver, vertices, dtype, err);
    if (status == APSP_OK && c->paths.predecessors)
        status = check_predecessor_room(vertices, dtype, err);
    return naming_input(c, status, err);
}

/* The hw3 reader's hint that its input is text (apsp_io.h), in this command's words. */
static apsp_status hint_input_format(apsp_status status, apsp_error *err) {
    char *hint = status == APSP_OK ? NULL : strstr(err->message, APSP_HW3_TEXT_HINT);
    if (hint)
        snprintf(hint, sizeof err->message - (size_t)(hint - err->message),
                 " (text? use --input-format=edgelist|csv|dimacs|mtx)");
    return status;
}

/* The graph, with the solver opened for its size: a hw3 file's size (or that of a .npy file
 * named as one) comes from its header, so that a graph too large for the devices is refused
 * before its edges are read. */
apsp_status cli_read_input(cli *c, apsp_solver **solver, apsp_graph **g, apsp_error *err) {
    size_t vertices = 0;
    /* (chosen sources: their work depends on the edges, so the solver waits for them) */
    apsp_status status = cli_input_is_hw3_file(c) && !c->sources.asked
                             ? apsp_hw3_vertices(c->input, &vertices, err)
                             : APSP_OK;
    /* Before the weights are known, the least type they may need: --dtype's, else int32. */
    const apsp_dtype least = c->read.dtype_auto ? APSP_INT32 : c->read.dtype;
    if (status == APSP_OK && vertices > 0)
        status = cli_open_solver(c, vertices, 0, solver, err);
    if (status == APSP_OK && vertices > 0)
        status = check_size(c, *solver, vertices, least, err);
    /* OpenCL's platforms will be loaded whatever the graph (a device or --backend=opencl
     * named), and the solver opens only after the read: the load goes beside it. */
    int load_platforms = vertices == 0 && c->device_named && c->options.backend != APSP_BACKEND_CPU;
    if (status == APSP_OK)
        status = warm_up_read(c->input, &c->read, load_platforms, g, &c->platform_seconds,
                              &c->platform_waited, err);
    c->open_seconds += c->platform_waited; /* (the load past the read is not the read's) */
    if (status == APSP_OK && vertices == 0)
        status = cli_open_solver(c, (*g)->vertices, (*g)->edges, solver, err);
    if (status == APSP_OK && vertices == 0)
        status = check_size(c, *solver, (*g)->vertices, least, err);
    if (status == APSP_OK)
        status = paths_check(&c->paths, (*g)->vertices, err);
    if (status == APSP_OK)
        status = cli_pick_dtype(c, *g, err);
    /* The checks above were the least type's: a wider one takes twice the memory. */
    if (status == APSP_OK && c->dtype != least)
        status = check_size(c, *solver, (*g)->vertices, c->dtype, err);
    return hint_input_format(status, err);
}

/* The writer's clock started by the first of the batches being written at once, stopped by the
 * last. */
static void writing_begins(timed_writer *t) {
    pthread_mutex_lock(&t->lock);
    if (t->writing++ == 0)
        t->since = cli_clock();
    pthread_mutex_unlock(&t->lock);
}

static void writing_ends(timed_writer *t) {
    pthread_mutex_lock(&t->lock);
    if (--t->writing == 0)
        t->seconds += cli_clock() - t->since;
    pthread_mutex_unlock(&t->lock);
}

apsp_status cli_put_cells_timed(void *context, size_t first_row, size_t count, const void *rows,
                                size_t pitch, apsp_error *error) {
    timed_writer *t = context;
    writing_begins(t);
    apsp_status status = apsp_row_writer_put_cells(t->writer, first_row, count, rows, pitch, error);
    writing_ends(t);
    return status;
}

/* cli_put_cells_timed's int32 rows for a float file (apsp_idle_work.int32_cells). */
static apsp_status put_int32_timed(void *context, size_t first_row, size_t count,
                                   const int32_t *rows, size_t pitch, apsp_error *error) {
    timed_writer *t = context;
    writing_begins(t);
    apsp_status status = apsp_row_writer_put_int32(t->writer, first_row, count, rows, pitch, error);
    writing_ends(t);
    return status;
}

int cli_parse_limit(const char *text, double *limit) {
    char *end;
    errno = 0;
    *limit = strtod(text, &end);
    return end != text && *end == '\0' && errno == 0 && isfinite(*limit) ? 0 : -1;
}

static apsp_format output_format(const cli *c) {
    return c->output_format ? c->output_format : apsp_format_for(c->output, 1);
}

static int long_output(const cli *c) {
    apsp_format format = output_format(c);
    return format == APSP_FORMAT_CSV || format == APSP_FORMAT_TSV;
}

/* The long table's names and --limit on a row writer begun for the graph's rows. */
static apsp_status set_table(const cli *c, const apsp_graph *g, apsp_row_writer *w,
                             apsp_error *err) {
    return apsp_row_writer_set_table(w, apsp_graph_labels(g), NULL, c->limited, c->limit, err);
}

/* A host matrix into OUTPUT: a long table through a row writer, all rows in one batch; a matrix
 * format whole, --limit's cells cut first. Takes the output over. */
static apsp_status commit_matrix(const cli *c, const apsp_graph *g, apsp_output *out,
                                 apsp_matrix *m, apsp_error *err) {
    if (!long_output(c)) {
        if (c->limited)
            apsp_matrix_cut(m, c->limit);
        return apsp_output_commit(out, c->output_format, m, err);
    }
    apsp_row_writer *w = NULL;
    apsp_status status =
        apsp_row_writer_begin_typed(out, c->output_format, m->dtype, m->n, m->n, &w, err);
    if (status == APSP_OK)
        status = set_table(c, g, w, err);
    if (status == APSP_OK)
        status = apsp_row_writer_put_cells(w, 0, m->n, m->cells, m->stride, err);
    if (status == APSP_OK)
        return apsp_row_writer_finish(w, err);
    apsp_row_writer_abort(w);
    return status;
}

/* OUTPUT.labels beside a matrix OUTPUT of a graph whose vertices are named (a long output holds
 * the names itself; standard output has no "beside"). Before the solve: a bad name fails first. */
static apsp_status write_labels(const cli *c, const apsp_graph *g, apsp_error *err) {
    if (!apsp_graph_labels(g) || long_output(c) || strcmp(c->output, "-") == 0)
        return APSP_OK;
    size_t len = strlen(c->output);
    char *path = malloc(len + sizeof ".labels");
    if (!path) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return err->status = APSP_ERR_NO_MEMORY;
    }
    memcpy(path, c->output, len);
    memcpy(path + len, ".labels", sizeof ".labels");
    apsp_status status = apsp_write_labels(path, g, err);
    free(path);
    return status;
}

/* A binary output (hw3, npy) is written as the rows come off the devices: the host never holds
 * the matrix (nor, for whole float weights, a float one: apsp_solver_solve_graph_typed). Takes
 * the output over. */
static apsp_status solve_to_rows(cli *c, apsp_solver *solver, const apsp_graph *g, apsp_output *out,
                                 apsp_report *report, run_times *times, apsp_error *err) {
    timed_writer t = TIMED_WRITER_INIT;
    apsp_status status = apsp_row_writer_begin_typed(out, c->output_format, c->dtype, g->vertices,
                                                     g->vertices, &t.writer, err);
    if (status == APSP_OK) /* before any_order, which a limit's cut in one buffer turns off */
        status = set_table(c, g, t.writer, err);
    /* While the devices compute, the output's pages are made ready for the rows, which several
     * devices then write at once, each as they come down (on a few threads beside a streamed
     * solve: run_threads); the int32 rows of whole float weights are widened on their way into
     * the file (int32_cells). */
    const int takes_int32 = status == APSP_OK && apsp_row_writer_takes_int32(t.writer);
    const apsp_idle_work prepare = {.run = apsp_row_writer_prepare,
                                    .stop = apsp_row_writer_stop_preparing,
                                    .context = t.writer,
                                    .rows_in_any_order =
                                        status == APSP_OK && apsp_row_writer_any_order(t.writer),
                                    .run_threads = apsp_row_writer_prepare_threads,
                                    .int32_cells = takes_int32 ? put_int32_timed : NULL};
    if (status == APSP_OK)
        status = apsp_solver_solve_graph_idle(solver, g, c->dtype, cli_put_cells_timed, &t,
                                              &prepare, report, err);
    double start = cli_clock();
    if (status == APSP_OK)
        status = apsp_row_writer_finish(t.writer, err);
    else
        apsp_row_writer_abort(t.writer);
    times->write = t.seconds + (cli_clock() - start);
    if (status == APSP_OK)
        report->download_seconds -= t.seconds;
    return status;
}

/* The text output, the paths and every type but int32 need the whole matrix. Takes the output
 * over. */
static apsp_status solve_to_matrix(cli *c, apsp_solver *solver, const apsp_graph *g,
                                   apsp_output *out, apsp_report *report, run_times *times,
                                   apsp_error *err) {
    apsp_matrix *m = NULL;
    apsp_status status = naming_input(
        c, apsp_graph_to_matrix_threads(g, c->dtype, c->options.threads, &m, err), err);
    if (status == APSP_OK)
        status = paths_wanted(&c->paths) ? paths_solve(&c->paths, solver, g, m, report,
                                                       (unsigned)c->options.threads, err)
                                         : apsp_solver_solve(solver, m, report, err);
    double start = cli_clock();
    if (status == APSP_OK) /* before OUTPUT, so that a failure here leaves OUTPUT untouched */
        status = paths_commit(&c->paths, m, err);
    if (status == APSP_OK)
        status = commit_matrix(c, g, out, m, err);
    else
        apsp_output_abort(out);
    times->write = cli_clock() - start;
    if (status == APSP_OK)
        status = paths_print(&c->paths, m, err);
    apsp_matrix_destroy(m);
    return status;
}

/* The paths need the whole matrix. Rows come off the devices as int32, and as float rows when
 * the int32 kernels solve a graph of whole float weights; the float path and int64 make a host
 * matrix in the library, whose rows are handed on as well, into the output prepared while the
 * devices solved it. */
static int streams_rows(const cli *c) {
    if (paths_wanted(&c->paths))
        return 0;
    apsp_format format = output_format(c);
    return format == APSP_FORMAT_NPY || (format == APSP_FORMAT_HW3 && c->dtype == APSP_INT32) ||
           long_output(c);
}

apsp_status cli_solve_and_write(cli *c, apsp_solver *solver, const apsp_graph *g, apsp_output *out,
                                apsp_report *report, run_times *times, apsp_error *err) {
    apsp_status status = write_labels(c, g, err);
    if (status != APSP_OK) {
        apsp_output_abort(out);
        return status;
    }
    c->sources.labels = apsp_graph_labels(g);
    c->sources.limited = c->limited;
    c->sources.limit = c->limit;
    if (c->sources.asked)
        return sources_solve_and_write(&c->sources, solver, g, c->dtype, out, c->output_format,
                                       &c->paths, report, times, err);
    return (streams_rows(c) ? solve_to_rows : solve_to_matrix)(c, solver, g, out, report, times,
                                                               err);
}
