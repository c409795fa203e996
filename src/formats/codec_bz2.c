/* bzip2 inputs through libbz2 (codec.h). */
#include "formats/codec.h"

#ifdef APSP_HAVE_BZ2
#include <bzlib.h>
#include <stdlib.h>

static void *bz2_open(void) {
    bz_stream *z = calloc(1, sizeof *z);
    if (z && BZ2_bzDecompressInit(z, 0, 0) != BZ_OK) {
        free(z);
        z = NULL;
    }
    return z;
}

static const char *bz2_why(int rc) {
    switch (rc) {
    case BZ_DATA_ERROR_MAGIC:
        return "not a bzip2 stream";
    case BZ_MEM_ERROR:
        return "out of memory";
    default:
        return "corrupt data";
    }
}

static codec_result bz2_step(void *state, codec_buffers *b, const char **why) {
    bz_stream *z = state;
    z->next_in = (char *)(b->in + b->in_used);
    z->avail_in = codec_clamp(b->in_size - b->in_used);
    z->next_out = (char *)(b->out + b->out_made);
    z->avail_out = codec_clamp(b->out_size - b->out_made);
    unsigned in_before = z->avail_in, out_before = z->avail_out;
    int rc = BZ2_bzDecompress(z);
    b->in_used += in_before - z->avail_in, b->out_made += out_before - z->avail_out;
    if (rc == BZ_STREAM_END || rc == BZ_OK)
        return rc == BZ_OK ? CODEC_MORE : CODEC_END;
    *why = bz2_why(rc);
    return CODEC_BAD;
}

/* pbzip2 and lbzip2 write one stream per block: each after the first starts afresh. */
static int bz2_restart(void *state) {
    bz_stream *z = state;
    BZ2_bzDecompressEnd(z);
    *z = (bz_stream){0};
    return BZ2_bzDecompressInit(z, 0, 0) == BZ_OK ? 0 : -1;
}

static void bz2_close(void *state) {
    if (state)
        BZ2_bzDecompressEnd(state);
    free(state);
}

const codec codec_bz2 = {"bzip2", "BZh", 3, bz2_open, bz2_step, bz2_restart, bz2_close};
#else
const codec codec_bz2 = {"bzip2", "BZh", 3, NULL, NULL, NULL, NULL};
#endif
