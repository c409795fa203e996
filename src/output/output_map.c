/* See output_map.h. Measured on the 2-core machine and the GPU hosts: docs/performance.md,
 * "Output pages prepared beside the rounds". */
#define _GNU_SOURCE /* process_vm_writev, MADV_POPULATE_WRITE */
#include "output/output_map.h"
#include "output/output_handle.h"
#include "base/fault.h"
#include "base/parallel.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack the name */
#endif

enum {
    /* One madvise's pages, between looks at the stop flag. Each call holds the process's memory
     * map lock through its faults, and a thread that must change the map waits behind it: with
     * 64 MiB calls, two GPUs' rounds took 2.55-2.67 s where they take 2.33 s without the
     * preparation; with 4 MiB (or 1 MiB) 2.33-2.37 s (2 x H200, V = 40000, 2026-11-28). */
    POPULATE_CHUNK = 4 << 20,
    TOUCH_PAGES = 1024, /* IOV_MAX: the pages of one process_vm_writev */
};

/* One zero byte into each page of the chunk, by the kernel's copy: a page gone is EFAULT. */
static int touch_chunk(unsigned char *p, size_t bytes, size_t page) {
    static const unsigned char zeros[TOUCH_PAGES];
    struct iovec remote[TOUCH_PAGES];
    for (size_t at = 0; at < bytes;) {
        size_t count = 0;
        for (; count < TOUCH_PAGES && at < bytes; count++, at += page)
            remote[count] = (struct iovec){p + at, 1};
        struct iovec local = {(void *)zeros, count};
        ssize_t done = process_vm_writev(getpid(), &local, 1, remote, count, 0);
        if (done != (ssize_t)count)
            return done < 0 ? errno : EFAULT;
    }
    return 0;
}

int populate_pages(unsigned char *map, size_t bytes, populate_method method,
                   const atomic_int *stop) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t at = 0; at < bytes; at += POPULATE_CHUNK) {
        if (stop && atomic_load(stop))
            return POPULATE_STOPPED;
        size_t chunk = bytes - at < POPULATE_CHUNK ? bytes - at : POPULATE_CHUNK;
        int err = 0;
        if (method != POPULATE_TOUCH && madvise(map + at, chunk, MADV_POPULATE_WRITE) != 0)
            err = errno;
        if (err == EINVAL && method == POPULATE_AUTO) /* a kernel before 5.14 */
            method = POPULATE_TOUCH;
        if (method == POPULATE_TOUCH)
            err = touch_chunk(map + at, chunk, page);
        if (err)
            return err;
    }
    return 0;
}

/* Chunks [begin, end) of the whole mapping (a parallel_slices slice). */
static int populate_slice(void *context, size_t begin, size_t end) {
    apsp_output *o = context;
    size_t first = begin * (size_t)POPULATE_CHUNK, last = end * (size_t)POPULATE_CHUNK;
    last = last < o->map_bytes ? last : o->map_bytes;
    int err = populate_pages(o->map + first, last - first, POPULATE_AUTO, &o->map_stop);
    return err == POPULATE_STOPPED ? 0 : err;
}

/* Once the room is settled: whether the file may be mapped and is not yet. */
static int map_wanted(apsp_output *o) {
    room_settle(&o->room);
    return !o->map && o->length > 0 && o->length <= SIZE_MAX && room_mappable(&o->room);
}

/* The whole file, shared; 0 where it cannot be mapped (a file opened write-only: written in
 * place). */
static int map_whole(apsp_output *o) {
    void *map = mmap(NULL, (size_t)o->length, PROT_WRITE, MAP_SHARED, o->fd, 0);
    if (map == MAP_FAILED)
        return 0;
    o->map = map;
    o->map_bytes = (size_t)o->length;
    return 1;
}

void output_release_written(unsigned char *begin, size_t bytes) {
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = (uintptr_t)begin, last = first + bytes;
    first = (first + page - 1) / page * page;
    last = last / page * page;
    if (page > 0 && last > first)
        (void)madvise((void *)first, last - first, MADV_DONTNEED);
}

unsigned char *output_map(apsp_output *o) {
    if (map_wanted(o))
        (void)map_whole(o);
    return o->map;
}

void output_prepare(apsp_output *o, unsigned threads) {
    if (!map_wanted(o) || fault_hit(FAULT_IO) || !map_whole(o))
        return;
    /* On the output's threads, a chunk (POPULATE_CHUNK) each at a time: the host's cores idle while
     * the devices compute, and page faults on one mapping scale with them (the probe: 6.4
     * GB on tmpfs in 1.3-2.2 s on 16 threads). A failure leaves the rest to the copies: a page
     * truncated away fails them (EFAULT), one that could not be faulted in now (no memory) is
     * faulted in then. */
    size_t chunks = (o->map_bytes + POPULATE_CHUNK - 1) / POPULATE_CHUNK;
    unsigned own = o->threads;
    (void)parallel_slices(chunks, threads && (!own || threads < own) ? threads : own,
                          populate_slice, o);
    fault_pause("prepared");
}

void output_stop_preparing(apsp_output *o) {
    atomic_store(&o->map_stop, 1);
}

unsigned char *output_mapping(const apsp_output *o) {
    return o->map;
}

void output_unmap(apsp_output *o) {
    if (o->map)
        munmap(o->map, o->map_bytes);
    o->map = NULL;
    o->map_bytes = 0;
}
