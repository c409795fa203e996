/* Opening an input file for a reader: a path, or "-" for standard input. Text readers take the
 * whole input as one buffer (text.h); the hw3 reader reads its fixed-size records in blocks. An
 * input that starts as gzip, zstd or bzip2 is read decompressed, as a stream (compressed.h). */
#ifndef APSP_INPUT_H
#define APSP_INPUT_H

#include "apsp.h"
#include "formats/compressed.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct input_file {
    const char *name; /* for messages: the path, or "stdin" */
    int fd;
    int owned;     /* fd was opened here (standard input is left open) */
    int regular;   /* a regular file whose size is known (input_size_known), read by offsets */
    uint64_t size; /* regular files: the size in bytes */
    input_stream *stream; /* every input not read by offsets: plain or decompressed */
} input_file;

/* Opens path ("-": standard input). Refuses a directory and what cannot be opened, naming it. */
apsp_status input_open(const char *path, input_file *in, apsp_error *error);
void input_close(input_file *in);

/* Reads up to `size` bytes from the current position, through short reads and EINTR; returns
 * the bytes read (fewer only at the end of the input), or -1 with errno set. */
ssize_t input_read(const input_file *in, void *buf, size_t size);
/* The same at a byte offset (regular files). */
ssize_t input_pread(const input_file *in, void *buf, size_t size, uint64_t offset);

/* "%s: read error: %s" for the input, as APSP_ERR_INPUT; a compressed stream's problem (corrupt,
 * truncated, a bomb) as "%s: corrupt gzip stream: ...". */
apsp_status input_read_error(const input_file *in, int err, apsp_error *error);

#endif
