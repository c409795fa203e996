/* gzip inputs through zlib (codec.h). */
#include "formats/codec.h"

#ifdef APSP_HAVE_ZLIB
#include <stdlib.h>
#include <zlib.h>

static void *gzip_open(void) {
    z_stream *z = calloc(1, sizeof *z);
    if (z && inflateInit2(z, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip header, not zlib's */
        free(z);
        z = NULL;
    }
    return z;
}

static codec_result gzip_step(void *state, codec_buffers *b, const char **why) {
    z_stream *z = state;
    z->next_in = (unsigned char *)b->in + b->in_used;
    z->avail_in = codec_clamp(b->in_size - b->in_used);
    z->next_out = b->out + b->out_made;
    z->avail_out = codec_clamp(b->out_size - b->out_made);
    uInt in_before = z->avail_in, out_before = z->avail_out;
    int rc = inflate(z, Z_NO_FLUSH);
    b->in_used += in_before - z->avail_in;
    b->out_made += out_before - z->avail_out;
    if (rc == Z_STREAM_END)
        return CODEC_END;
    if (rc == Z_OK || rc == Z_BUF_ERROR) /* Z_BUF_ERROR: no progress possible this step */
        return CODEC_MORE;
    *why = z->msg ? z->msg : rc == Z_MEM_ERROR ? "out of memory" : "corrupt data";
    return CODEC_BAD;
}

static int gzip_restart(void *state) {
    return inflateReset(state) == Z_OK ? 0 : -1;
}

static void gzip_close(void *state) {
    if (state)
        inflateEnd(state);
    free(state);
}

const codec codec_gzip = {"gzip", "\x1f\x8b", 2, gzip_open, gzip_step, gzip_restart, gzip_close};
#else
const codec codec_gzip = {"gzip", "\x1f\x8b", 2, NULL, NULL, NULL, NULL};
#endif
