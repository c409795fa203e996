/* apsp-mpi's files. Input: rank 0 reads the hw3 file as an edge list with the library's reader
 * (the same checks and messages as apsp) and broadcasts the edges (12 bytes each, against 4 V^2
 * bytes of matrix); every rank makes its own blocks from them on `threads` threads, so no rank
 * ever holds the whole matrix. Output: a temporary file beside OUTPUT, made by rank 0 before any
 * work as apsp makes its own (src/output/), its room asked for while the rounds run, written by
 * every rank at once (each process row's block rows, assembled along the row, at their offsets;
 * through a shared mapping of the file where it can be, io_map.h, else with pwrite), and put in
 * OUTPUT's place by rank 0 (src/output/'s commit) only after every rank has written and rank 0 has
 * found it whole (its 4 V^2 bytes). Every function here is collective over the grid and returns the
 * agreed status (agree.h). */
#ifndef APSP_MPI_IO_H
#define APSP_MPI_IO_H

#include "apsp.h"
#include "apsp_io.h"
#include "mpi/grid.h"
#include "mpi/io_map.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct mpi_output {
    const char *path;    /* as given, for messages */
    apsp_output *file;   /* rank 0: the temporary file and its commit (src/output/) */
    char temp[PATH_MAX]; /* every rank: the temporary file's name; "" when there is none */
    int fd;              /* the rank's descriptor of it (io_output_prepare); -1: none */
    band_map map;        /* its shared mapping (io_map.h) */
} mpi_output;

apsp_status io_output_open(const grid *g, const char *path, mpi_output *out, apsp_error *error);
/* Once V is known: the output's 4 V^2 bytes of room asked for (a full disk fails now). */
apsp_status io_output_reserve(const grid *g, mpi_output *out, size_t vertices, apsp_error *error);
/* Before the rounds: every rank's descriptor of the file (the others open it by name), and the
 * file's mapping started (io_map.h), its pages faulted in beside the rounds where `populate`
 * (the rank's device is off the host). */
apsp_status io_output_prepare(const grid *g, mpi_output *out, const layout *l, unsigned threads,
                              int populate, apsp_error *error);
/* After the rounds (not collective): the seconds the pages were faulted in before rounds_end. */
double io_output_stop_preparing(mpi_output *out, double rounds_end);
/* Writes the rank's local matrix (layout l) and renames the file over OUTPUT; a file that is no
 * longer 4 V^2 bytes long (another process changed it) is refused with APSP_ERR_OUTPUT.
 * *mapped: 1 where the bands went through the mapping, 0 by pwrite. */
apsp_status io_output_commit(const grid *g, mpi_output *out, const layout *l, const int32_t *local,
                             int *mapped, apsp_error *error);
/* Removes the temporary file, if any (rank 0), and frees what open kept. */
void io_output_abort(const grid *g, mpi_output *out);

/* Reads INPUT on rank 0, fills *l and the rank's local matrix *local (free() it). */
typedef struct input_times {
    double read, distribute;
} input_times;
apsp_status io_read_distribute(const grid *g, const char *path, unsigned threads, layout *l,
                               int32_t **local, input_times *times, apsp_error *error);

#endif
