/* An input read through a decompressor when its first bytes are a gzip, zstd or bzip2 magic
 * (input.c). The stream is decoded as it is read, a buffer at a time: a streaming reader (hw3,
 * npy) holds no decompressed copy, a text reader holds the text as it would a plain file's. */
#ifndef APSP_COMPRESSED_H
#define APSP_COMPRESSED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct input_stream input_stream;

/* A stream over fd whose first bytes are read on the first input_stream_read: `head` (NULL or
 * head_bytes already read from fd's current position, which a regular file's pread left
 * unread) decides whether it is compressed. NULL: no memory. */
input_stream *input_stream_create(void);
void input_stream_destroy(input_stream *s);

/* Up to size bytes from fd at its position (offset < 0) or at the offset (pread), through short
 * reads and EINTR: fewer only at its end; -1 with errno on an error. */
ssize_t fd_read_full(int fd, void *buf, size_t size, int64_t offset);

/* The codec named by the bytes (the first bytes of an input), or NULL: a plain input. */
const struct codec *codec_of_magic(const unsigned char *bytes, size_t count);
enum { MAGIC_BYTES = 4 };

/* Whether the codec can be used in this build; else "NAME: a zstd stream, but apsp was built
 * without zstd (...)" in why (name "": no "NAME: "). */
int codec_built(const struct codec *c, const char *name, char *why, size_t size);

/* Reads up to size bytes of the (decompressed) input, as input_read: fewer only at its end, -1
 * with errno set on an error. A corrupt or truncated stream, a codec missing from the build or
 * a decompression bomb is -1 with errno EILSEQ and input_stream_problem saying what. */
ssize_t input_stream_read(input_stream *s, int fd, void *buf, size_t size);
const char *input_stream_problem(const input_stream *s);
/* The codec's name once the first bytes were read, else NULL (a plain input). */
const char *input_stream_codec(const input_stream *s);

#endif
