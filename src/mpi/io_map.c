/* See io_map.h. */
#include "mpi/io_map.h"
#include "backend/blocks.h"
#include "base/fault.h"
#include "base/parallel.h"
#include "formats/rows.h"
#include "output/fault_guard.h"
#include "output/output_map.h"
#include "output/output_room.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { B = BLOCK_SIDE };

/* ---- the mapping ----------------------------------------------------------------------------- */

/* A rank other than 0: the file mapped once rank 0's fallocate gave it its length (it sets the
 * length last), on a local file system, where a store can neither lack room nor wait on a server.
 * Whether rank 0's fallocate succeeded is rank 0's to say (band_map_agree). */
static void map_by_descriptor(band_map *m) {
    struct stat st;
    if (m->map || m->fd < 0 || !file_system_local(m->fd) || fstat(m->fd, &st) != 0 ||
        (uint64_t)st.st_size < m->bytes)
        return;
    void *map = mmap(NULL, m->bytes, PROT_WRITE, MAP_SHARED, m->fd, 0);
    m->map = map == MAP_FAILED ? NULL : map; /* (a descriptor opened write-only) */
}

static void map_file(band_map *m) {
    if (m->g->rank == 0)
        m->map = output_map(m->file); /* waits for the fallocate beside the rounds */
    else
        map_by_descriptor(m);
}

/* Waits (napping, as idle.c) until rank 0's fallocate gave the file its length or the rounds
 * ended; 1 when the file has its length. */
static int length_reached(band_map *m) {
    static const struct timespec nap = {0, 1000 * 1000};
    struct stat st;
    while (fstat(m->fd, &st) == 0 && (uint64_t)st.st_size < m->bytes)
        if (atomic_load(&m->stop) || nanosleep(&nap, NULL) != 0)
            return 0;
    return (uint64_t)st.st_size >= m->bytes;
}

/* ---- its pages faulted in beside the rounds -------------------------------------------------- */

/* The rank's i-th band (io.c's write_bands: its local block rows pc, pc + Pc, ... as global
 * block rows), as a byte span of the file; 0 bytes past V. */
static size_t band_span(const band_map *m, size_t i, size_t *offset) {
    const size_t mine = (size_t)m->g->pc + i * (size_t)m->g->cols, v = m->l->vertices;
    const size_t first = (mine * (size_t)m->g->rows + (size_t)m->g->pr) * B;
    if (mine >= m->l->block_rows || first >= v)
        return 0;
    *offset = first * v * sizeof(int32_t);
    return (v - first < (size_t)B ? v - first : (size_t)B) * v * sizeof(int32_t);
}

/* Bands [begin, end) (a parallel_slices slice), widened to whole pages: populating a page that a
 * neighbour's band shares changes none of its bytes (madvise), and where the kernel lacks
 * MADV_POPULATE_WRITE its zero byte goes in before any rank writes (every rank's populating ends
 * with its rounds, before the agreement after the store). A failure leaves the rest to the
 * stores, as in output_prepare. */
static int populate_bands(void *context, size_t begin, size_t end) {
    band_map *m = context;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = begin; i < end; i++) {
        size_t offset = 0, bytes = band_span(m, i, &offset);
        size_t first = offset / page * page, last = offset + bytes;
        if (bytes == 0)
            continue;
        int err = populate_pages(m->map + first, last - first, POPULATE_AUTO, &m->stop);
        if (err)
            return err == POPULATE_STOPPED ? 0 : err;
    }
    return 0;
}

static size_t band_count(const band_map *m) {
    const size_t cols = (size_t)m->g->cols, pc = (size_t)m->g->pc;
    return m->l->block_rows > pc ? (m->l->block_rows - pc + cols - 1) / cols : 0;
}

static void prepare(void *context) {
    band_map *m = context;
    if (m->g->rank != 0 && !length_reached(m))
        return;
    map_file(m);
    if (m->map && !atomic_load(&m->stop))
        (void)parallel_slices(band_count(m), m->threads, populate_bands, m);
}

static void stop_preparing(void *context) {
    atomic_store(&((band_map *)context)->stop, 1);
}

void band_map_start(band_map *m, const grid *g, const layout *l, apsp_output *file, int fd,
                    unsigned threads, int populate) {
    *m = (band_map){.g = g, .l = l, .file = file, .fd = fd, .threads = threads};
    m->bytes = l->vertices * l->vertices * sizeof(int32_t);
    m->work = (apsp_idle_work){.run = prepare, .stop = stop_preparing, .context = m};
    beside_start(&m->helper, populate && m->bytes > 0 ? &m->work : NULL);
}

double band_map_stop(band_map *m, double rounds_end) {
    return beside_finish(&m->helper, rounds_end);
}

void band_map_release(band_map *m) {
    band_map_stop(m, 0.0);
    if (m->g && m->g->rank == 0 && m->file)
        output_unmap(m->file);
    else if (m->map)
        munmap(m->map, m->bytes);
    m->map = NULL;
    m->file = NULL; /* which the commit then frees */
}

int band_map_agree(band_map *m) {
    if (m->bytes > 0)
        map_file(m);
    int mine = m->map != NULL, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, m->g->world);
    if (!all)
        band_map_release(m);
    return all;
}

/* ---- the band's rows stored into it ---------------------------------------------------------- */

typedef struct band_job {
    band_map *m;
    uint64_t offset;
    size_t row_bytes;
    band_fill_fn fill;
    void *context;
    unsigned char *spare;
} band_job;

typedef struct band_slice {
    const band_job *job;
    size_t begin, end;
} band_slice;

/* Inside the guard: the slice's first row, then the rest (a test truncates the file between
 * them: fault_pause). */
static void store_slice(void *context) {
    const band_slice *s = context;
    const band_job *j = s->job;
    unsigned char *rows = j->m->map + j->offset;
    const size_t second = s->begin < s->end ? s->begin + 1 : s->end;
    j->fill(j->context, rows, s->begin, second);
    fault_pause("stores-begun");
    j->fill(j->context, rows, second, s->end);
}

static int write_slice(void *context, size_t begin, size_t end) {
    const band_job *j = context;
    band_slice s = {j, begin, end};
    const size_t at = begin * j->row_bytes, bytes = (end - begin) * j->row_bytes;
    int stored = fault_guard_run(j->m->map + j->offset + at, bytes, store_slice, &s);
    if (stored == 0) /* (as apsp's rows: the unmap then finds nothing to tear down) */
        output_release_written(j->m->map + j->offset + at, bytes);
    if (stored >= 0)
        return stored;
    /* No guard for this thread now (a library's SIGBUS handler over ours, or all slots taken):
     * the slice as the pwrite path writes it. */
    j->fill(j->context, j->spare, begin, end);
    return write_at(j->m->fd, j->spare + at, bytes, j->offset + at);
}

int band_map_write(band_map *m, uint64_t offset, size_t count, size_t row_bytes, band_fill_fn fill,
                   void *context, unsigned char *spare) {
    band_job j = {m, offset, row_bytes, fill, context, spare};
    return parallel_slices(count, threads_for_bytes(count * row_bytes, m->threads), write_slice,
                           &j);
}
