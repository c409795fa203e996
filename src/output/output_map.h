/* The output file's pages made ready while the devices compute (output_map.c): a shared mapping
 * of the whole file, its pages populated for writing, so that the rows that come down after the
 * last round are a copy into memory. */
#ifndef APSP_OUTPUT_MAP_H
#define APSP_OUTPUT_MAP_H

#include "apsp.h"

#include <stdatomic.h>
#include <stddef.h>

typedef enum populate_method {
    POPULATE_AUTO,    /* madvise where the kernel has it (5.14), else touching */
    POPULATE_MADVISE, /* madvise(MADV_POPULATE_WRITE) alone: EINVAL where the kernel lacks it */
    POPULATE_TOUCH,   /* a byte written into each page, by process_vm_writev */
} populate_method;

enum { POPULATE_STOPPED = -1 }; /* populate_pages: *stop was set before the end */

/* Faults in every page of [map, map + bytes) for writing, a chunk at a time until *stop is set.
 * A page that a truncation took away is EFAULT, never a SIGBUS (either method). Returns 0,
 * POPULATE_STOPPED or an errno value. Touching writes a zero byte at the start of each page: for
 * a file whose room fallocate reserved (zeros) before any row was written. */
int populate_pages(unsigned char *map, size_t bytes, populate_method method,
                   const atomic_int *stop);

/* On an apsp_idle_work's thread: waits for the output's room (output_begin's fallocate; its
 * failure stays for output_room), then, where output_mappable allows, maps the whole file and
 * populates it on up to `threads` threads (0: the output's own) until output_stop_preparing.
 * Any failure leaves the rows to be written as without it. */
void output_prepare(apsp_output *output, unsigned threads);
void output_stop_preparing(apsp_output *output);
/* output_prepare's first half alone, for a writer that populates only its own part (apsp-mpi's
 * ranks, src/mpi/io_map.c): waits for the room, then maps the whole file where output_mappable
 * allows. Returns the mapping (output_mapping's), or NULL. */
unsigned char *output_map(apsp_output *output);
/* The whole pages of [begin, begin + bytes), once written, out of the process's page tables
 * (MADV_DONTNEED; the file keeps them, dirty). Unmapping a prepared mapping of 6.4 GB at the
 * commit tore down one page-table entry per 4 KiB page on one thread: 0.30-0.43 s after the last
 * row (2 x H200 host, 2026-11-28). Let go as each slice is written, on the writer's threads while
 * the next rows come, that work is shared and hidden. The pages at the ends, which a neighbour
 * may still write, stay until the unmap. A failure costs nothing but that time. */
void output_release_written(unsigned char *begin, size_t bytes);
/* output_prepare's mapping of the whole file (output_begin's bytes), or NULL. */
unsigned char *output_mapping(const apsp_output *output);
/* Gives the mapping up: before the file is synced, and when the output is dropped. */
void output_unmap(apsp_output *output);

#endif
