/* apsp_idle_work.int32_cells and apsp_row_writer_put_int32 (include/apsp_rows.h, apsp_io.h): a
 * float64 or float32 graph of whole weights solved by the int32 kernels into a .npy, its int32
 * rows widened on their way into the file, gives the bytes of the same solve whose rows the
 * library converted first and of the float path (apsp_options.float_kernels), unreachable pairs
 * +inf: into the file's mapping by process_vm_writev (the library's default), by stores (the
 * fault guard enabled, a SIGBUS handler that hands faults to it) and into a pipe (written in
 * order, converted through a buffer). The conversion is called only where the int32 kernels run
 * (not for a fractional weight); a text writer does not take int32 rows. The pthread backend:
 * the CLI's GPU path (tests/opencl/test_overlap.py) takes the same writer.
 *
 *   test-int32-cells DIR        (DIR: where the outputs go) */
#define _GNU_SOURCE
#include "apsp.h"
#include "check.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { V = 700, OUT_DEGREE = 4, UNREACHED = 30 }; /* the last UNREACHED vertices: no in-edges */

static apsp_graph *whole_graph(double fraction) {
    apsp_graph *g;
    apsp_error err;
    if (apsp_graph_create(V, V * OUT_DEGREE, &g, &err) != APSP_OK)
        return NULL;
    for (int i = 0; i < V; i++)
        for (int k = 0; k < OUT_DEGREE; k++)
            apsp_graph_append_real(g, i, (i * 37 + k * 101) % (V - UNREACHED),
                                   (i * 13 + k) % 900 + 1 + (i == 5 ? fraction : 0), &err);
    return g;
}

/* Counts the int32 batches on their way to the writer. */
typedef struct counted {
    apsp_row_writer *writer;
    int calls;
} counted;

static apsp_status count_int32(void *context, size_t first_row, size_t count, const int32_t *rows,
                               size_t pitch, apsp_error *error) {
    counted *c = context;
    __atomic_add_fetch(&c->calls, 1, __ATOMIC_RELAXED);
    return apsp_row_writer_put_int32(c->writer, first_row, count, rows, pitch, error);
}

static apsp_status put_cells(void *context, size_t first_row, size_t count, const void *rows,
                             size_t pitch, apsp_error *error) {
    return apsp_row_writer_put_cells(((counted *)context)->writer, first_row, count, rows, pitch,
                                     error);
}

/* The graph solved for `dtype` rows into a .npy at `path`, converted by the writer (widen) or
 * by the library; the int32 batches into *calls. */
static void solve_into(apsp_solver *solver, const apsp_graph *g, apsp_dtype dtype, const char *path,
                       int widen, int *calls) {
    apsp_error err;
    apsp_output *out = NULL;
    counted c = {NULL, 0};
    CHECK(apsp_output_open(path, &out, &err) == APSP_OK, "open %s: %s", path, err.message);
    if (!out)
        return;
    CHECK(apsp_row_writer_begin_typed(out, APSP_FORMAT_NPY, dtype, V, V, &c.writer, &err) ==
              APSP_OK,
          "writer: %s", err.message);
    CHECK(apsp_row_writer_takes_int32(c.writer), "a float .npy writer takes int32 rows");
    const apsp_idle_work work = {.int32_cells = widen ? count_int32 : NULL};
    apsp_status status =
        apsp_solver_solve_graph_idle(solver, g, dtype, put_cells, &c, &work, NULL, &err);
    CHECK(status == APSP_OK, "solve into %s: %s", path, err.message);
    if (status == APSP_OK)
        CHECK(apsp_row_writer_finish(c.writer, &err) == APSP_OK, "finish: %s", err.message);
    else
        apsp_row_writer_abort(c.writer);
    *calls = c.calls;
}

static char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    char *bytes = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        bytes = n >= 0 ? malloc((size_t)n + 1) : NULL;
        *size = bytes ? fread(bytes, 1, (size_t)n, f) : 0;
    }
    if (f)
        fclose(f);
    return bytes;
}

static int same_file(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && na > 0 && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* A pipe's bytes, read on a thread of its own into a file. */
typedef struct drain {
    int fd;
    const char *path;
} drain;

static void *drain_pipe(void *context) {
    const drain *d = context;
    FILE *f = fopen(d->path, "wb");
    char buffer[1 << 16];
    ssize_t n;
    while ((n = read(d->fd, buffer, sizeof buffer)) > 0)
        if (f)
            fwrite(buffer, 1, (size_t)n, f);
    if (f)
        fclose(f);
    return NULL;
}

static void on_bus(int sig, siginfo_t *info, void *context) {
    apsp_fault_guard_recover(sig, info, context);
    signal(SIGBUS, SIG_DFL); /* not the copy's: die of it */
}

static void check_type(apsp_solver *solver, apsp_solver *float_path, apsp_dtype dtype,
                       const char *dir) {
    const char *name = dtype == APSP_FLOAT64 ? "float64" : "float32";
    char ref[512], converted[512], widened[512], stored[512], piped[512];
    snprintf(ref, sizeof ref, "%s/%s.float-path.npy", dir, name);
    snprintf(converted, sizeof converted, "%s/%s.converted.npy", dir, name);
    snprintf(widened, sizeof widened, "%s/%s.widened.npy", dir, name);
    snprintf(stored, sizeof stored, "%s/%s.stored.npy", dir, name);
    snprintf(piped, sizeof piped, "%s/%s.piped.npy", dir, name);
    apsp_graph *g = whole_graph(0), *fractional = whole_graph(0.5);
    int calls = 0;
    solve_into(float_path, g, dtype, ref, 1, &calls);
    CHECK(calls == 0, "%s, the float path: int32_cells not called (%d)", name, calls);
    solve_into(solver, g, dtype, converted, 0, &calls);
    solve_into(solver, g, dtype, widened, 1, &calls);
    CHECK(calls > 0, "%s: the int32 rows went through int32_cells", name);
    CHECK(same_file(widened, ref) && same_file(converted, ref),
          "%s by process_vm_writev: the float path's bytes", name);

    struct sigaction action, old;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &action, &old);
    apsp_fault_guard_enable(1);
    solve_into(solver, g, dtype, stored, 1, &calls);
    apsp_fault_guard_enable(0);
    sigaction(SIGBUS, &old, NULL);
    CHECK(same_file(stored, ref), "%s by stores: the float path's bytes", name);

    int fds[2];
    CHECK(pipe(fds) == 0, "a pipe");
    drain d = {fds[0], piped};
    pthread_t reader;
    char through[64];
    snprintf(through, sizeof through, "/proc/self/fd/%d", fds[1]);
    if (pthread_create(&reader, NULL, drain_pipe, &d) == 0) {
        solve_into(solver, g, dtype, through, 1, &calls);
        close(fds[1]);
        pthread_join(reader, NULL);
        CHECK(same_file(piped, ref), "%s into a pipe: the float path's bytes", name);
    }
    close(fds[0]);

    snprintf(widened, sizeof widened, "%s/%s.fraction.npy", dir, name);
    solve_into(solver, fractional, dtype, widened, 1, &calls);
    CHECK(calls == 0, "%s with a fractional weight (the float kernels): int32_cells not called",
          name);
    apsp_graph_destroy(g);
    apsp_graph_destroy(fractional);
}

static void check_text_refuses(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/text.out", dir);
    apsp_error err;
    apsp_output *out = NULL;
    apsp_row_writer *w = NULL;
    if (apsp_output_open(path, &out, &err) != APSP_OK ||
        apsp_row_writer_begin_typed(out, APSP_FORMAT_CSV, APSP_FLOAT64, 2, 2, &w, &err) !=
            APSP_OK) {
        CHECK(0, "a csv writer: %s", err.message);
        return;
    }
    const int32_t rows[4] = {0, 1, 1, 0};
    CHECK(!apsp_row_writer_takes_int32(w) &&
              apsp_row_writer_put_int32(w, 0, 2, rows, 2, &err) == APSP_ERR_USAGE,
          "a csv writer takes no int32 rows");
    apsp_row_writer_abort(w);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test-int32-cells DIR\n");
        return 2;
    }
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_CPU;
    o.threads = 2;
    apsp_options floats = o;
    floats.float_kernels = 1;
    apsp_solver *solver = NULL, *float_path = NULL;
    apsp_error err;
    if (apsp_solver_create(&o, &solver, &err) != APSP_OK ||
        apsp_solver_create(&floats, &float_path, &err) != APSP_OK) {
        fprintf(stderr, "solver: %s\n", err.message);
        return 1;
    }
    check_type(solver, float_path, APSP_FLOAT64, argv[1]);
    check_type(solver, float_path, APSP_FLOAT32, argv[1]);
    check_text_refuses(argv[1]);
    apsp_solver_destroy(solver);
    apsp_solver_destroy(float_path);
    printf("test-int32-cells: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
