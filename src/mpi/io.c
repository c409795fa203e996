/* See io.h. */
#include "mpi/io.h"
#include "mpi/agree.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "cpu/kernels.h"
#include "formats/output_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { B = ROUND_DEPTH };

/* ---- output ---------------------------------------------------------------------------------- */

/* A new file gets the mode open() would give it; a replaced one keeps its own. */
static mode_t output_mode(int exists, const struct stat *st) {
    if (exists)
        return st->st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Rank 0: follows OUTPUT's links and makes the hidden temporary file `.NAME.apsp-mpi-XXXXXX`
 * beside the file it names, so that a bad output path is refused before any work. */
static apsp_status make_temp(mpi_output *out, apsp_error *error) {
    int exists = 0, via_proc = 0, err;
    struct stat st;
    out->target = apsp_strdup(out->path);
    if (!out->target)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for the output path");
    if ((err = path_resolve(&out->target, &exists, &st, &via_proc)) != 0)
        return fail(error, APSP_ERR_OUTPUT, "%s: %s", out->path, strerror(err));
    if (via_proc || (exists && !S_ISREG(st.st_mode)))
        return fail(error, APSP_ERR_OUTPUT,
                    "%s: apsp-mpi writes a regular file (renamed into place), and this is not one",
                    out->path);
    size_t dir = path_dir_length(out->target);
    int len = snprintf(out->temp, sizeof out->temp, "%.*s.%s.apsp-mpi-XXXXXX", (int)dir,
                       out->target, out->target + dir);
    if (len < 0 || (size_t)len >= sizeof out->temp)
        return fail(error, APSP_ERR_OUTPUT, "%s: the path is too long", out->path);
    int fd = mkstemp(out->temp);
    if (fd < 0) {
        err = errno;
        out->temp[0] = '\0';
        return fail(error, APSP_ERR_OUTPUT, "%s: cannot create a temporary file beside it: %s",
                    out->path, strerror(err));
    }
    int bad = fchmod(fd, output_mode(exists, &st)) != 0;
    bad |= close(fd) != 0;
    if (bad)
        return fail(error, APSP_ERR_OUTPUT, "%s: cannot prepare %s: %s", out->path, out->temp,
                    strerror(errno));
    return APSP_OK;
}

apsp_status io_output_open(const grid *g, const char *path, mpi_output *out, apsp_error *error) {
    *out = (mpi_output){.path = path};
    apsp_status status = g->rank == 0 ? make_temp(out, error) : APSP_OK;
    status = agree(g->world, status, error);
    if (status == APSP_OK)
        MPI_Bcast(out->temp, (int)sizeof out->temp, MPI_CHAR, 0, g->world);
    return status;
}

static apsp_status mpi_failed(apsp_error *error, int code, const char *what, const char *path) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return fail(error, APSP_ERR_OUTPUT, "%s: %s failed: %.*s", path, what, len, text);
}

/* The rank's share of the file (every rank's block-cyclic cells of the V x V result) and of its
 * local matrix (the valid prefix of its whole blocks). */
static void make_types(const grid *g, const layout *l, MPI_Datatype *file_type,
                       MPI_Datatype *memory_type, int *count) {
    int gsizes[2] = {(int)l->vertices, (int)l->vertices};
    int distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {B, B}, psizes[2] = {g->rows, g->cols};
    MPI_Type_create_darray(g->size, g->rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C,
                           MPI_INT32_T, file_type);
    MPI_Type_commit(file_type);
    *count = l->valid_rows > 0 && l->valid_cols > 0;
    int sizes[2] = {(int)l->local_rows, (int)l->local_cols};
    int subsizes[2] = {(int)l->valid_rows, (int)l->valid_cols}, starts[2] = {0, 0};
    if (*count)
        MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT32_T, memory_type);
    else
        MPI_Type_contiguous(0, MPI_INT32_T, memory_type);
    MPI_Type_commit(memory_type);
}

/* Collective: every rank writes its cells through the darray view. */
static apsp_status write_all(const grid *g, const mpi_output *out, const layout *l,
                             const int32_t *local, apsp_error *error) {
    MPI_File file;
    int code = MPI_File_open(g->world, out->temp, MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
    apsp_status status =
        code == MPI_SUCCESS ? APSP_OK : mpi_failed(error, code, "MPI_File_open", out->path);
    if ((status = agree(g->world, status, error)) != APSP_OK)
        return status;
    MPI_Datatype file_type, memory_type;
    int count;
    make_types(g, l, &file_type, &memory_type, &count);
    code = MPI_File_set_view(file, 0, MPI_INT32_T, file_type, "native", MPI_INFO_NULL);
    if (code != MPI_SUCCESS)
        status = mpi_failed(error, code, "MPI_File_set_view", out->path);
    if (status == APSP_OK && (code = MPI_File_write_all(file, local, count, memory_type,
                                                        MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        status = mpi_failed(error, code, "writing (MPI_File_write_all)", out->path);
    if (status == APSP_OK && (code = MPI_File_sync(file)) != MPI_SUCCESS)
        status = mpi_failed(error, code, "MPI_File_sync", out->path);
    if ((code = MPI_File_close(&file)) != MPI_SUCCESS && status == APSP_OK)
        status = mpi_failed(error, code, "MPI_File_close", out->path);
    MPI_Type_free(&file_type);
    MPI_Type_free(&memory_type);
    return agree(g->world, status, error);
}

apsp_status io_output_commit(const grid *g, mpi_output *out, const layout *l, const int32_t *local,
                             apsp_error *error) {
    apsp_status status = write_all(g, out, l, local, error);
    if (status != APSP_OK)
        return status;
    if (g->rank == 0) {
        if (rename(out->temp, out->target) != 0)
            status = fail(error, APSP_ERR_OUTPUT, "%s: cannot rename %s over it: %s", out->path,
                          out->temp, strerror(errno));
        else
            out->temp[0] = '\0';
        path_sync_dir(out->target); /* best effort: the data itself was synced */
    }
    return agree(g->world, status, error);
}

void io_output_abort(const grid *g, mpi_output *out) {
    if (g->rank == 0 && out->temp[0])
        unlink(out->temp);
    out->temp[0] = '\0';
    free(out->target);
    out->target = NULL;
}

/* ---- input ----------------------------------------------------------------------------------- */

static int32_t *alloc_local(const layout *l) {
    size_t bytes = (l->local_rows * l->local_cols * sizeof(int32_t) + 63) / 64 * 64;
    return apsp_aligned_alloc(64, bytes ? bytes : 64);
}

/* Rank 0: copies block row `row` of rank q's local matrix (layout lq) out of the whole matrix. */
static void pack_strip(const apsp_matrix *m, const grid *g, int q, const layout *lq, size_t row,
                       int32_t *strip) {
    size_t gi = row * (size_t)g->rows + (size_t)(q / g->cols);
    for (size_t bj = 0; bj < lq->block_cols; bj++) {
        size_t gj = bj * (size_t)g->cols + (size_t)(q % g->cols);
        for (size_t i = 0; i < B; i++)
            memcpy(strip + i * lq->local_cols + bj * B, apsp_matrix_row(m, gi * B + i) + gj * B,
                   sizeof(int32_t) * B);
    }
}

/* Collective: each rank's blocks, one block row (B x local_cols) per message. */
static void scatter(const grid *g, const apsp_matrix *m, const layout *l, int32_t *local,
                    int32_t *strip) {
    const size_t strip_count = (size_t)B * l->local_cols;
    if (g->rank != 0) {
        for (size_t row = 0; row < l->block_rows; row++)
            MPI_Recv(local + row * strip_count, (int)strip_count, MPI_INT32_T, 0, 0, g->world,
                     MPI_STATUS_IGNORE);
        return;
    }
    for (int q = 0; q < g->size; q++) {
        grid other = *g;
        other.pr = q / g->cols;
        other.pc = q % g->cols;
        layout lq;
        layout_init(&lq, &other, l->vertices);
        for (size_t row = 0; row < lq.block_rows; row++) {
            pack_strip(m, g, q, &lq, row, q == 0 ? local + row * strip_count : strip);
            if (q != 0)
                MPI_Send(strip, (int)((size_t)B * lq.local_cols), MPI_INT32_T, q, 0, g->world);
        }
    }
}

/* The ranks' kernels are the add-min ones only (cpu/kernels.h: no negative form here yet). */
static int has_negative(const apsp_matrix *m) {
    for (size_t i = 0; i < m->n; i++)
        for (size_t j = 0; j < m->n; j++)
            if (apsp_matrix_row(m, i)[j] < 0)
                return 1;
    return 0;
}

apsp_status io_read_scatter(const grid *g, const char *path, layout *l, int32_t **local,
                            input_times *times, apsp_error *error) {
    double t0 = seconds_now();
    apsp_matrix *m = NULL;
    apsp_status status = g->rank == 0 ? apsp_read_hw3(path, &m, error) : APSP_OK;
    if (status == APSP_OK && m && has_negative(m)) {
        status =
            fail(error, APSP_ERR_USAGE,
                 "%s: negative weights: apsp-mpi runs only the add-min kernels (use apsp)", path);
        apsp_matrix_destroy(m);
        m = NULL;
    }
    if ((status = agree(g->world, status, error)) != APSP_OK)
        return status;
    uint64_t vertices = m ? m->n : 0;
    MPI_Bcast(&vertices, 1, MPI_UINT64_T, 0, g->world);
    layout_init(l, g, (size_t)vertices);
    times->read = seconds_now() - t0;
    /* Rank 0 packs the other ranks' block rows in a strip of at most n columns. */
    if ((status = layout_check(l, error)) != APSP_OK) {
        apsp_matrix_destroy(m); /* the same answer on every rank: no agreement needed */
        return status;
    }
    int32_t *strip = g->rank == 0 ? apsp_malloc((size_t)B * l->n * sizeof *strip) : NULL;
    *local = alloc_local(l);
    if (!*local || (g->rank == 0 && !strip))
        status = fail(error, APSP_ERR_NO_MEMORY,
                      "out of memory for rank %d's %zu x %zu share of the matrix", g->rank,
                      l->local_rows, l->local_cols);
    if ((status = agree(g->world, status, error)) == APSP_OK) {
        double t1 = seconds_now();
        scatter(g, m, l, *local, strip);
        times->scatter = seconds_now() - t1;
    }
    free(strip);
    apsp_matrix_destroy(m);
    if (status != APSP_OK) {
        free(*local);
        *local = NULL;
    }
    return status;
}
