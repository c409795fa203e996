/* The decompressors of compressed inputs (gzip, zstd, bz2), one file each over its well-kept
 * library, behind one step function that compressed.c drives. A codec built without its library
 * has no `open`: its input is refused by name ("built without zstd"). */
#ifndef APSP_CODEC_H
#define APSP_CODEC_H

#include <limits.h>
#include <stddef.h>

typedef enum codec_result {
    CODEC_MORE, /* went on: more input or room wanted */
    CODEC_END,  /* one whole stream (a gzip member, a zstd frame, a bz2 stream) ended here */
    CODEC_BAD,  /* corrupt: *why says how, in the library's words */
} codec_result;

/* One step's buffers: in[in_used, in_size) to decode, out[out_made, out_size) to fill. */
typedef struct codec_buffers {
    const unsigned char *in;
    size_t in_size, in_used;
    unsigned char *out;
    size_t out_size, out_made;
} codec_buffers;

/* What a step may take and fill, each at most UINT_MAX: zlib and libbz2 count in unsigned int. */
static inline unsigned codec_clamp(size_t bytes) {
    return bytes < UINT_MAX ? (unsigned)bytes : UINT_MAX;
}

typedef struct codec {
    const char *name;  /* "gzip", in messages */
    const char *magic; /* the first bytes of every stream */
    size_t magic_bytes;
    void *(*open)(void); /* NULL: built without the library; the state, NULL: no memory */
    codec_result (*step)(void *state, codec_buffers *b, const char **why);
    int (*restart)(void *state); /* for the next stream after CODEC_END; 0 when ready */
    void (*close)(void *state);
} codec;

extern const codec codec_gzip, codec_zstd, codec_bz2;

#endif
