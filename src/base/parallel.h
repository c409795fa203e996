/* Splitting simple host work (filling the matrix, writing the output) over threads. */
#ifndef APSP_PARALLEL_H
#define APSP_PARALLEL_H

#include <stddef.h>

/* One slice of the work: items [begin, end). Returns 0, or an errno value on failure. */
typedef int (*slice_fn)(void *context, size_t begin, size_t end);

/* Runs work over [0, count) in up to `threads` contiguous slices (0: one per online core, at
 * most 16), the calling thread taking one. A slice whose thread the system refuses runs on the
 * calling thread, so the work always completes. Returns the first non-zero result, or 0. */
int parallel_slices(size_t count, unsigned threads, slice_fn work, void *context);

/* parallel_slices' `threads` for a thread count as the options give it (apsp_options.threads,
 * apsp_read_options.threads, --threads): the count, or 0 (one per core) for 0 or less. */
static inline unsigned threads_of(int count) {
    return count > 0 ? (unsigned)count : 0;
}

/* Below this many bytes a pass over a matrix runs on the calling thread alone: the threads
 * started for it (tens of microseconds each) would cost more than the pass (a 512 x 512 int32
 * matrix, 1 MiB, is copied in about 100 us). */
enum { PARALLEL_MIN_BYTES = 1 << 20 };

/* parallel_slices' `threads` for a pass over `bytes`: one below PARALLEL_MIN_BYTES. */
static inline unsigned threads_for_bytes(size_t bytes, unsigned threads) {
    return bytes < PARALLEL_MIN_BYTES ? 1 : threads;
}

#endif
