/* See io.h. */
#include "mpi/io.h"
#include "mpi/agree.h"
#include "mpi/idle.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "backend/blocks.h"
#include "formats/rows.h"
#include "output/output_file.h"
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { B = BLOCK_SIDE };

/* ---- output ---------------------------------------------------------------------------------- */

/* Rank 0 makes the temporary file the way apsp does (src/output/: in OUTPUT's directory, held
 * open, O_EXCL and mode 0600 until the commit, OUTPUT's links followed, refused where only writing
 * in place could work), so that a bad output path is refused before any work; a named one, since
 * every rank opens it by that name. Every rank then knows the name, to write it and to remove it
 * on a signal. */
apsp_status io_output_open(const grid *g, const char *path, mpi_output *out, apsp_error *error) {
    *out = (mpi_output){.path = path, .fd = -1};
    apsp_status status = APSP_OK;
    if (g->rank == 0 && (status = output_open_shared(path, &out->file, error)) == APSP_OK) {
        const char *temp = apsp_output_temp_path(out->file);
        if (snprintf(out->temp, sizeof out->temp, "%s", temp) >= (int)sizeof out->temp)
            status = fail(error, APSP_ERR_OUTPUT, "%s: the path is too long", path);
        signals_watch_path(out->temp); /* from now on a signal removes it */
    }
    status = agree(g->world, status, error);
    if (status == APSP_OK) {
        MPI_Bcast(out->temp, (int)sizeof out->temp, MPI_CHAR, 0, g->world);
        /* Every rank removes it on a signal: rank 0 may be the one killed (SIGKILL), and mpirun
         * then ends the others with SIGTERM. */
        signals_watch_path(out->temp);
    }
    return status;
}

/* Collective, once V is known: rank 0 asks for the file's 4 V^2 bytes of room as apsp does
 * (output_begin: a file system that shows less room fails now, before the rounds; fallocate runs
 * on a thread beside them, so that tmpfs zeroes its pages then rather than during the write), and
 * the commit then knows the length, and looks for holes where the room was reserved. */
apsp_status io_output_reserve(const grid *g, mpi_output *out, size_t vertices, apsp_error *error) {
    apsp_status status = APSP_OK;
    if (g->rank == 0)
        status = output_begin(out->file, (uint64_t)vertices * vertices * sizeof(int32_t), error);
    return agree(g->world, status, error);
}

static apsp_status write_failed(apsp_error *error, int err, const char *path) {
    return fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", path, strerror(err));
}

/* ---- the write: block rows exchanged along the process row, then written whole ----------------
 *
 * A file row of B x V cells is spread over the Pc ranks of one process row in B-wide pieces;
 * written in place (a darray view with MPI_File_write_all) that is thousands of 512-byte pieces
 * per row, which Open MPI's collective I/O moved at 0.4 GB/s on one host. Instead the ranks of a
 * process row take their block rows in batches of Pc: in batch k, rank q receives everybody's
 * piece of block row k Pc + q (point to point along the row), assembles the whole B x V band and
 * writes it with one contiguous pwrite, while the next batch's pieces travel. */

typedef struct band_writer {
    const grid *g;
    const layout *l;
    const int32_t *local;
    int32_t *incoming[2];
    int32_t *band; /* B x V, the assembled file rows */
    MPI_Request *requests[2];
    int request_count[2];
} band_writer;

static size_t row_local_cols(const band_writer *w, int q) {
    return owned_blocks(w->l->blocks, w->g->cols, q) * B;
}

/* Posts batch k's exchange into buffer `slot`: my piece of block row k Pc + q to each q of my
 * process row, and every q's piece of block row k Pc + pc to me. */
static void exchange_start(band_writer *w, size_t k, int slot) {
    const grid *g = w->g;
    const size_t strip = (size_t)B * w->l->local_cols;
    const int receiving = k * (size_t)g->cols + (size_t)g->pc < w->l->block_rows;
    int count = 0;
    size_t at = 0;
    for (int q = 0; q < g->cols; q++) {
        size_t row = k * (size_t)g->cols + (size_t)q, cells = (size_t)B * row_local_cols(w, q);
        if (row < w->l->block_rows)
            MPI_Isend(w->local + row * strip, (int)strip, MPI_INT32_T, q, 1, g->row,
                      &w->requests[slot][count++]);
        if (receiving)
            MPI_Irecv(w->incoming[slot] + at, (int)cells, MPI_INT32_T, q, 1, g->row,
                      &w->requests[slot][count++]);
        at += cells;
    }
    w->request_count[slot] = count;
}

/* The band in buffer `slot`: the pieces of one block row, one per rank of the row. */
typedef struct band_pieces {
    const band_writer *w;
    int slot;
} band_pieces;

/* Rows [begin, end) of the band in `rows` (a band_fill_fn): each piece's B-wide strips at
 * their columns, V cells a row. */
static void assemble(void *context, unsigned char *rows, size_t begin, size_t end) {
    const band_pieces *p = context;
    const band_writer *w = p->w;
    const size_t v = w->l->vertices;
    const int32_t *piece = w->incoming[p->slot];
    for (int q = 0; q < w->g->cols; q++) {
        const size_t cols = row_local_cols(w, q);
        for (size_t bj = 0; bj * B < cols; bj++) {
            const size_t j0 = (bj * (size_t)w->g->cols + (size_t)q) * B;
            const size_t width = j0 >= v ? 0 : v - j0 < (size_t)B ? v - j0 : (size_t)B;
            for (size_t i = begin; i < end && width; i++)
                memcpy(rows + (i * v + j0) * sizeof *piece, piece + i * cols + bj * B,
                       width * sizeof *piece);
        }
        piece += (size_t)B * cols;
    }
}

static apsp_status band_failed(apsp_error *error, int err, const char *path) {
    if (err == EFAULT) /* a store into a page that a truncation took away (io_map.h) */
        return fail(error, APSP_ERR_OUTPUT,
                    "%s: writing the output failed: another process truncated the file while it "
                    "was written; the old output is kept",
                    path);
    return write_failed(error, err, path);
}

/* One band, global block row gb: its rows below V, contiguous in the file at the first one's
 * offset, assembled straight into the mapping where there is one (io_map.h), else in w->band
 * and written with one pwrite. */
static apsp_status write_band(band_writer *w, mpi_output *out, band_map *map, int slot, size_t gb,
                              apsp_error *error) {
    const size_t v = w->l->vertices, first = gb * B, row_bytes = v * sizeof(int32_t);
    const size_t rows = v - first < (size_t)B ? v - first : (size_t)B;
    band_pieces pieces = {w, slot};
    unsigned char *band = (unsigned char *)w->band;
    int err = 0;
    if (fault_hit(FAULT_IO))
        err = EIO;
    else if (map)
        err = band_map_write(map, first * row_bytes, rows, row_bytes, assemble, &pieces, band);
    else {
        assemble(&pieces, band, 0, rows);
        err = write_at(out->fd, band, rows * row_bytes, first * row_bytes);
    }
    return err ? band_failed(error, err, out->path) : APSP_OK;
}

static apsp_status writer_init(band_writer *w, const grid *g, const layout *l, const int32_t *local,
                               apsp_error *error) {
    *w = (band_writer){.g = g, .l = l, .local = local};
    size_t cells = (size_t)B * l->n, requests = 2 * (size_t)g->cols;
    for (int s = 0; s < 2; s++) {
        w->incoming[s] = apsp_malloc(cells * sizeof(int32_t));
        w->requests[s] = apsp_malloc(requests * sizeof(MPI_Request));
    }
    w->band = apsp_malloc((size_t)B * l->vertices * sizeof(int32_t));
    if (w->incoming[0] && w->incoming[1] && w->requests[0] && w->requests[1] && w->band)
        return APSP_OK;
    return fail(error, APSP_ERR_NO_MEMORY, "out of memory for rank %d's output rows", g->rank);
}

static void writer_free(band_writer *w) {
    for (int s = 0; s < 2; s++) {
        free(w->incoming[s]);
        free(w->requests[s]);
    }
    free(w->band);
}

/* Collective over the process row: every batch's exchange runs on every rank even after a
 * failed write, so that nobody waits for a rank that stopped. `map`: the file's mapping, or NULL
 * for pwrite. */
static apsp_status write_bands(band_writer *w, mpi_output *out, band_map *map, apsp_error *error) {
    const grid *g = w->g;
    const size_t batches = (w->l->block_rows + (size_t)g->cols - 1) / (size_t)g->cols;
    apsp_status status = APSP_OK;
    if (batches > 0)
        exchange_start(w, 0, 0);
    for (size_t k = 0; k < batches; k++) {
        int slot = (int)(k % 2);
        idle_wait(w->request_count[slot], w->requests[slot]);
        if (k + 1 < batches)
            exchange_start(w, k + 1, 1 - slot);
        size_t mine = k * (size_t)g->cols + (size_t)g->pc; /* my local block row this batch */
        if (mine >= w->l->block_rows || status != APSP_OK)
            continue;
        size_t gb = mine * (size_t)g->rows + (size_t)g->pr;
        if (gb * B < w->l->vertices)
            status = write_band(w, out, map, slot, gb, error);
    }
    return status;
}

/* Read and write, which a shared mapping needs (io_map.h); write only where reading is not
 * allowed, for pwrite. */
static int open_for_writing(const char *path) {
    const int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int fd = open(path, O_RDWR | flags);
    return fd < 0 && errno == EACCES ? open(path, O_WRONLY | flags) : fd;
}

/* The temporary file on a rank other than 0, by the name rank 0 made it under: never through a
 * symbolic link (O_NOFOLLOW), never a FIFO waited on (O_NONBLOCK until it is found a regular
 * file). */
static apsp_status open_by_name(const mpi_output *out, int *fd, apsp_error *error) {
    *fd = fault_hit(FAULT_IO) ? (errno = EIO, -1) : open_for_writing(out->temp);
    struct stat st;
    int err = *fd < 0 || fstat(*fd, &st) != 0 ? errno : 0;
    int replaced = err == ELOOP || (!err && !S_ISREG(st.st_mode));
    if (!err && !replaced && fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        err = errno;
    if (!err && !replaced)
        return APSP_OK;
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    if (replaced) /* the words of the commit's own check (src/output/) */
        return fail(error, APSP_ERR_OUTPUT,
                    "%s: writing the output failed: another process put something else in the "
                    "place of the temporary file %s; the old output is kept",
                    out->path, out->temp);
    return write_failed(error, err, out->path);
}

apsp_status io_output_prepare(const grid *g, mpi_output *out, const layout *l, unsigned threads,
                              int populate, apsp_error *error) {
    apsp_status status = APSP_OK;
    if (g->rank == 0)
        out->fd = output_file_fd(out->file);
    else
        status = open_by_name(out, &out->fd, error);
    if ((status = agree(g->world, status, error)) == APSP_OK)
        band_map_start(&out->map, g, l, out->file, out->fd, threads, populate);
    return status;
}

double io_output_stop_preparing(mpi_output *out, double rounds_end) {
    return band_map_stop(&out->map, rounds_end);
}

/* A rank other than 0: its descriptor synced and closed, so that a failure on another node's
 * file system is seen before rank 0 commits. */
static apsp_status close_by_name(mpi_output *out, apsp_status status, apsp_error *error) {
    if (status == APSP_OK && fsync(out->fd) != 0)
        status = write_failed(error, errno, out->path);
    if (close(out->fd) != 0 && status == APSP_OK)
        status = write_failed(error, errno, out->path);
    out->fd = -1;
    return status;
}

/* Collective: each rank writes its bands at their offsets, into the file's shared mapping where
 * every rank has one (io_map.h), else with pwrite: rank 0 through the descriptor it created the
 * file with (synced at the commit), the others through their own, opened by name before the
 * rounds (io_output_prepare). MPI-IO (MPI_File_write_at, then MPI_File_sync) took 1.3-1.4x as
 * long as pwrite, and followed a link put in the file's place (docs/distributed.md). */
static apsp_status write_all(const grid *g, mpi_output *out, const layout *l, const int32_t *local,
                             int *mapped, apsp_error *error) {
    band_writer w;
    apsp_status status = writer_init(&w, g, l, local, error);
    if (g->rank == 0 && status == APSP_OK)
        status = output_room(out->file, error); /* a full disk fails here, on every rank */
    if ((status = agree(g->world, status, error)) == APSP_OK) {
        *mapped = band_map_agree(&out->map);
        status = write_bands(&w, out, *mapped ? &out->map : NULL, error);
    }
    band_map_release(&out->map); /* the rows are in its pages: fsync takes them from there */
    if (g->rank != 0 && out->fd >= 0)
        status = close_by_name(out, status, error);
    writer_free(&w);
    return agree(g->world, status, error);
}

apsp_status io_output_commit(const grid *g, mpi_output *out, const layout *l, const int32_t *local,
                             int *mapped, apsp_error *error) {
    apsp_status status = write_all(g, out, l, local, mapped, error);
    if (status != APSP_OK)
        return status;
    if (g->rank == 0) {
        /* Synced, checked whole (V x V int32 cells, the length io_output_reserve gave: another
         * process may have cut it), given its mode and renamed over OUTPUT, as apsp's output is.
         * Where a test changes the file: fault_pause("commit") there (tests/mpi/test_mpi.py). */
        status = output_finish(out->file, error); /* frees it, and removes the file on failure */
        out->file = NULL;
        out->temp[0] = '\0';
        signals_watch_path(NULL);
    }
    return agree(g->world, status, error);
}

void io_output_abort(const grid *g, mpi_output *out) {
    band_map_release(&out->map); /* its thread first: it may be waiting for the file's room */
    if (g->rank != 0 && out->fd >= 0)
        close(out->fd);
    out->fd = -1;
    if (g->rank == 0)
        apsp_output_abort(out->file);
    out->file = NULL;
    signals_watch_path(NULL);
    out->temp[0] = '\0';
}

/* ---- input ----------------------------------------------------------------------------------- */

static int32_t *alloc_local(const layout *l) {
    size_t bytes = (l->local_rows * l->local_cols * sizeof(int32_t) + 63) / 64 * 64;
    return apsp_aligned_alloc(64, bytes ? bytes : 64);
}

/* Rank 0: the hw3 file as an edge list, read and checked on the rank's threads, refused as
 * apsp_read_hw3 refuses it (the same checks and words), and refused with a negative weight: the
 * ranks' kernels are the add-min ones only (backend/blocks.h's engines have no negative form yet).
 */
static apsp_status read_edges(const char *path, unsigned threads, apsp_graph **graph,
                              apsp_error *error) {
    apsp_read_options options;
    apsp_read_options_init(&options);
    options.format = APSP_FORMAT_HW3;
    options.threads = (int)threads;
    apsp_status status = apsp_read_graph(path, &options, graph, error);
    if (status == APSP_OK && (status = graph_check(*graph, threads, error)) != APSP_OK)
        fail_naming_input(error, status, path);
    if (status == APSP_OK && graph_has_negative(*graph))
        status =
            fail(error, APSP_ERR_USAGE,
                 "%s: negative weights: apsp-mpi runs only the add-min kernels (use apsp)", path);
    return status;
}

/* The edges every rank receives: three int32 arrays of `count` (the weights obey the int32 rule:
 * graph_check). On rank 0 source and target are the graph's own. */
typedef struct edge_arrays {
    size_t count;
    int32_t *source, *target, *weight;
    int owned; /* source and target were allocated here (not rank 0) */
} edge_arrays;

static void edges_free(edge_arrays *e) {
    if (e->owned) {
        free(e->source);
        free(e->target);
    }
    free(e->weight);
    *e = (edge_arrays){0};
}

static apsp_status edges_alloc(const grid *g, const apsp_graph *graph, size_t count, edge_arrays *e,
                               apsp_error *error) {
    size_t bytes = (count ? count : 1) * sizeof(int32_t);
    *e = (edge_arrays){.count = count, .owned = g->rank != 0};
    e->source = graph ? graph->source : apsp_malloc(bytes);
    e->target = graph ? graph->target : apsp_malloc(bytes);
    e->weight = apsp_malloc(bytes);
    if ((count == 0 || (e->source && e->target)) && e->weight) { /* a graph's may be NULL */
        for (size_t i = 0; graph && i < count; i++)
            e->weight[i] = (int32_t)graph->weight[i];
        return APSP_OK;
    }
    return fail(error, APSP_ERR_NO_MEMORY, "out of memory for rank %d's copy of the %zu edges",
                g->rank, count);
}

/* A broadcast from rank 0 of any number of int32 values (MPI counts are ints), waited on
 * quietly (idle.h). */
static void broadcast_ints(int32_t *data, size_t count, MPI_Comm comm) {
    const size_t most = (size_t)1 << 28;
    for (size_t at = 0; at < count; at += most) {
        MPI_Request request;
        MPI_Ibcast(data + at, (int)(count - at < most ? count - at : most), MPI_INT32_T, 0, comm,
                   &request);
        idle_wait(1, &request);
    }
}

/* Filling the local matrix as an edgeless graph's: APSP_INF, 0 on the global diagonal. */
typedef struct local_fill {
    const grid *g;
    const layout *l;
    int32_t *local;
} local_fill;

static int fill_block_rows(void *context, size_t begin, size_t end) {
    const local_fill *f = context;
    const size_t cols = f->l->local_cols;
    for (size_t lb = begin; lb < end; lb++) {
        int32_t *rows = f->local + lb * B * cols;
        for (size_t k = 0; k < (size_t)B * cols; k++)
            rows[k] = APSP_INF;
        size_t gb = lb * (size_t)f->g->rows + (size_t)f->g->pr; /* the global block row */
        if (gb % (size_t)f->g->cols != (size_t)f->g->pc)
            continue; /* its diagonal block is on another process column */
        size_t lc = gb / (size_t)f->g->cols;
        for (size_t i = 0; i < B; i++)
            rows[i * cols + lc * B + i] = 0;
    }
    return 0;
}

/* The rank's edges into its local matrix, the least weight of repeated ones; self-loops are
 * ignored (the diagonal stays 0), as apsp_graph_to_matrix does. */
static void place_edges(const grid *g, const layout *l, const edge_arrays *e, int32_t *local) {
    const size_t pr = (size_t)g->rows, pc = (size_t)g->cols;
    for (size_t k = 0; k < e->count; k++) {
        size_t u = (size_t)e->source[k], v = (size_t)e->target[k];
        if (u == v || (u / B) % pr != (size_t)g->pr || (v / B) % pc != (size_t)g->pc)
            continue;
        int32_t *cell =
            local + ((u / B) / pr * B + u % B) * l->local_cols + (v / B) / pc * B + v % B;
        if (e->weight[k] < *cell)
            *cell = e->weight[k];
    }
}

/* Collective after rank 0 has read the graph (NULL elsewhere): the edges to every rank, and
 * every rank's local matrix made from them. */
static apsp_status distribute(const grid *g, const apsp_graph *graph, const layout *l,
                              unsigned threads, int32_t **local, apsp_error *error) {
    uint64_t count = graph ? graph->edges : 0;
    MPI_Bcast(&count, 1, MPI_UINT64_T, 0, g->world);
    edge_arrays e;
    apsp_status status = edges_alloc(g, graph, (size_t)count, &e, error);
    *local = alloc_local(l);
    if (status == APSP_OK && !*local)
        status = fail(error, APSP_ERR_NO_MEMORY,
                      "out of memory for rank %d's %zu x %zu share of the matrix", g->rank,
                      l->local_rows, l->local_cols);
    if ((status = agree(g->world, status, error)) == APSP_OK) {
        broadcast_ints(e.source, e.count, g->world);
        broadcast_ints(e.target, e.count, g->world);
        broadcast_ints(e.weight, e.count, g->world);
        parallel_slices(l->block_rows, threads, fill_block_rows, &(local_fill){g, l, *local});
        place_edges(g, l, &e, *local);
    }
    edges_free(&e);
    if (status != APSP_OK) {
        free(*local);
        *local = NULL;
    }
    return status;
}

apsp_status io_read_distribute(const grid *g, const char *path, unsigned threads, layout *l,
                               int32_t **local, input_times *times, apsp_error *error) {
    double t0 = seconds_now();
    apsp_graph *graph = NULL;
    apsp_status status = g->rank == 0 ? read_edges(path, threads, &graph, error) : APSP_OK;
    if ((status = agree(g->world, status, error)) != APSP_OK) {
        apsp_graph_destroy(graph);
        return status;
    }
    uint64_t vertices = graph ? graph->vertices : 0;
    MPI_Bcast(&vertices, 1, MPI_UINT64_T, 0, g->world);
    layout_init(l, g, (size_t)vertices);
    times->read = seconds_now() - t0;
    /* The same answer on every rank: no agreement needed. A V that no machine could address is
     * refused in apsp's words before the grid's own limit (MPI's counts) is weighed. */
    status = matrix_addressable((size_t)vertices, APSP_INT32, error);
    if (status == APSP_OK)
        status = layout_check(l, error);
    if (status != APSP_OK)
        fail_naming_input(error, status, path);
    if (status == APSP_OK) {
        double t1 = seconds_now();
        status = distribute(g, graph, l, threads, local, error);
        times->distribute = seconds_now() - t1;
    }
    apsp_graph_destroy(graph);
    return status;
}
