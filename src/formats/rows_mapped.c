/* The binary outputs' rows copied into a shared mapping of the file (rows.h: rows_write_mapped),
 * which rows.c chooses where output_mappable allows. */
#define _GNU_SOURCE /* process_vm_writev */
#include "formats/rows.h"
#include "base/fault.h"
#include "base/parallel.h"
#include "base/util.h"
#include "output/fault_guard.h"
#include "output/output_file.h"
#include "output/output_map.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

/* A batch's rows into a shared mapping of their span of the file. */
typedef struct mapped_rows {
    unsigned char *dst; /* the batch's first byte in the mapping */
    const apsp_matrix *batch;
    apsp_dtype file_type; /* the batch's, or wider (rows_store_cells) */
    size_t row_bytes;     /* in the file */
    int release;          /* let the written pages go (output_release_written) */
} mapped_rows;

enum { CONVERTED_BYTES = 4 << 20 }; /* vm_write_converted's buffer, at most */

/* Rows [begin, end) into the mapping by process_vm_writev on this very process: the kernel
 * copies, and where a page of the mapping is gone it returns EFAULT where a store would raise
 * SIGBUS. A page goes when the file is truncated, which whoever may open /proc/PID/fd/N can do
 * (this user, root). The way for an application whose SIGBUS handler does not call
 * apsp_fault_guard_recover (the Python package, other library users): a library cannot take the
 * process's handler over, and giving the mapping up would give up its speed (rows_write_mapped)
 * everywhere for a rare misdeed. The cost, tests/bench/write_floor /dev/shm 4G on the 16-core
 * H100 host (2026-11-25, medians of 3): 3.54 GB/s where stores into an unpopulated mapping
 * reached 4.16 on 16 threads; into the populated one of output_prepare, 4.7 GB/s against 51-56
 * (issue 37). Returns 0, EFAULT, or the call's errno (ENOSYS, EPERM: not allowed here, as under
 * some seccomp policies; pwrite then takes over). */
static int vm_write_converted(const mapped_rows *m, size_t begin, size_t end);

static int vm_write_rows(const mapped_rows *m, size_t begin, size_t end) {
    if (m->batch->dtype != m->file_type)
        return vm_write_converted(m, begin, end);
    struct iovec rows[ROWS_PER_CALL];
    for (size_t i = begin; i < end; i += ROWS_PER_CALL) {
        size_t count = end - i < ROWS_PER_CALL ? end - i : ROWS_PER_CALL;
        for (size_t r = 0; r < count; r++)
            rows[r] = (struct iovec){apsp_matrix_row_cells(m->batch, i + r), m->row_bytes};
        struct iovec span = {m->dst + i * m->row_bytes, count * m->row_bytes};
        ssize_t done = process_vm_writev(getpid(), rows, count, &span, 1, 0);
        if (done != (ssize_t)span.iov_len)
            return done < 0 && errno != EFAULT ? errno : EFAULT;
    }
    return 0;
}

/* vm_write_rows for rows of another type than the file's: converted into a buffer of a few
 * MiB first. */
static int vm_write_converted(const mapped_rows *m, size_t begin, size_t end) {
    const size_t per = m->row_bytes < CONVERTED_BYTES ? CONVERTED_BYTES / m->row_bytes : 1;
    unsigned char *buffer = apsp_malloc(per * m->row_bytes);
    if (!buffer)
        return ENOMEM;
    int err = 0;
    for (size_t i = begin; i < end && !err; i += per) {
        const size_t count = end - i < per ? end - i : per;
        for (size_t r = 0; r < count; r++)
            rows_store_cells(buffer + r * m->row_bytes, apsp_matrix_row_cells(m->batch, i + r),
                             m->batch->n, m->batch->dtype, m->file_type);
        struct iovec local = {buffer, count * m->row_bytes};
        struct iovec span = {m->dst + i * m->row_bytes, count * m->row_bytes};
        ssize_t done = process_vm_writev(getpid(), &local, 1, &span, 1, 0);
        if (done != (ssize_t)span.iov_len)
            err = done < 0 && errno != EFAULT ? errno : EFAULT;
    }
    free(buffer);
    return err;
}

/* A slice's rows for store_rows. */
typedef struct stored_slice {
    const mapped_rows *m;
    size_t begin, end;
} stored_slice;

/* The slice's rows by stores, row by row (the batch's rows have a pitch of their own), inside
 * fault_guard_run: a store into a page truncated away ends it there. */
static void store_rows(void *context) {
    const stored_slice *s = context;
    const mapped_rows *m = s->m;
    for (size_t i = s->begin; i < s->end; i++) {
        rows_store_cells(m->dst + i * m->row_bytes, apsp_matrix_row_cells(m->batch, i), m->batch->n,
                         m->batch->dtype, m->file_type);
        if (i == s->begin)
            fault_pause("stores-begun");
    }
}

/* Rows [begin, end) into the mapping (a parallel_slices slice): by stores where the
 * application's SIGBUS handler recovers them (fault_guard.h), else by process_vm_writev. */
static int copy_mapped(void *context, size_t begin, size_t end) {
    const mapped_rows *m = context;
    stored_slice s = {m, begin, end};
    int stored = fault_guard_run(m->dst + begin * m->row_bytes, (end - begin) * m->row_bytes,
                                 store_rows, &s);
    int err = stored >= 0 ? stored : vm_write_rows(m, begin, end);
    if (!err && m->release)
        output_release_written(m->dst + begin * m->row_bytes, (end - begin) * m->row_bytes);
    return err;
}

/* A file that output_mappable allows (its room reserved by fallocate, on a local file system),
 * little-endian int32 rows: through a shared mapping, copied on every core. On tmpfs this ran at
 * 4.2 GB/s where pwrite on any number of threads stayed at 2.3-2.5 (tests/bench/write_floor,
 * H200 host, 14.4 GB); the reserved room means no store can meet a full disk (SIGBUS), and
 * copy_mapped turns a page taken away into an error. Returns 0, an errno, or -1 when the file
 * cannot be mapped (opened write-only: written in place) or copied into, for pwrite to take
 * over. */
int rows_write_mapped(apsp_output *output, uint64_t base, const apsp_matrix *batch,
                      apsp_dtype file_type, size_t count) {
    const size_t row_bytes = batch->n * apsp_dtype_size(file_type);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const uint64_t at = base / page * page;
    const size_t span = (size_t)(base - at) + count * row_bytes;
    if (count == 0 || page == 0)
        return -1;
    /* Prepared beside the rounds (output_map.h): its pages already there, no mapping to make. */
    unsigned char *whole = output_mapping(output);
    void *map = whole ? whole + at
                      : mmap(NULL, span, PROT_WRITE, MAP_SHARED, output_file_fd(output), (off_t)at);
    if (map == MAP_FAILED)
        return -1;
    /* (pages let go only from the prepared mapping: a mapping of the batch's own is unmapped
     * whole right after) */
    mapped_rows m = {(unsigned char *)map + (base - at), batch, file_type, row_bytes,
                     whole != NULL};
    /* The output's threads: by default one per core (at most 16: the floor's best on a 16-core
     * host). */
    unsigned threads =
        (uint64_t)count * row_bytes >= PARALLEL_WRITE_BYTES ? output_threads(output) : 1;
    int err = parallel_slices(count, threads, copy_mapped, &m);
    if (!whole && munmap(map, span) != 0 && !err)
        err = errno;
    return err == ENOSYS || err == EPERM ? -1 : err;
}
