/* apsp-mpi's output through a shared mapping of the temporary file, as apsp writes its own
 * (src/output/output_map.c, src/formats/rows_mapped.c). pwrite into one file on tmpfs takes the
 * inode's lock and allocates each page inside the call, so the ranks' band writes went one at a
 * time at about 1.5 GB/s (docs/performance.md, issue 37.3). Here every rank maps the whole file;
 * on a rank whose device computes off the host, a thread beside the rounds faults in the pages of
 * the rank's own bands (io.c's write_bands gives each its bands), and the bands are then stored
 * into the mapping on the rank's threads, inside fault_guard_run: a page that another process
 * truncated away ends the copy with EFAULT, not the process. Only where rank 0's room was
 * reserved on a local file system (output_mappable) and every rank could map the file; anywhere
 * else every rank writes with pwrite. */
#ifndef APSP_MPI_IO_MAP_H
#define APSP_MPI_IO_MAP_H

#include "apsp.h"
#include "base/beside.h"
#include "mpi/grid.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct band_map {
    const grid *g;
    const layout *l;
    apsp_output *file; /* rank 0: the output, which holds the mapping (output_map.h) */
    int fd;            /* the rank's descriptor of the file (rank 0: its output's) */
    unsigned threads;
    unsigned char *map; /* the whole file (4 V^2 bytes), or NULL */
    size_t bytes;
    atomic_int stop;
    apsp_idle_work work;
    beside helper;
} band_map;

/* Before the rounds: the file and its descriptor; with `populate` (a device off the host, whose
 * rounds leave the host idle), a thread that maps the file and faults in the rank's bands. */
void band_map_start(band_map *m, const grid *g, const layout *l, apsp_output *file, int fd,
                    unsigned threads, int populate);
/* After the rounds: stops that thread and joins it; the seconds it ran before rounds_end. */
double band_map_stop(band_map *m, double rounds_end);
/* Collective, after rank 0's room was waited for: maps the file where it is not yet; 1 on every
 * rank when every rank has it mapped (rank 0's where output_mappable allows), else 0 with every
 * mapping given up. */
int band_map_agree(band_map *m);

/* Fills rows [begin, end) of a band whose first row is at `rows` (row pitch V cells). */
typedef void (*band_fill_fn)(void *context, unsigned char *rows, size_t begin, size_t end);
/* The band's `count` rows of row_bytes at byte `offset` of the file, filled straight into the
 * mapping on the rank's threads, each slice inside a fault guard; a slice that no guard can
 * take is filled into `spare` (a band's bytes) and written with pwrite. Returns 0, EFAULT (the
 * file was truncated under it) or an errno value. */
int band_map_write(band_map *m, uint64_t offset, size_t count, size_t row_bytes, band_fill_fn fill,
                   void *context, unsigned char *spare);
/* Gives the mapping up (before the file is synced); accepts one never started. */
void band_map_release(band_map *m);

#endif
