/* zstd inputs through libzstd (codec.h). */
#include "formats/codec.h"

#ifdef APSP_HAVE_ZSTD
#include <zstd.h>

static void *zstd_open(void) {
    return ZSTD_createDStream();
}

static codec_result zstd_step(void *state, codec_buffers *b, const char **why) {
    ZSTD_inBuffer in = {b->in, b->in_size, b->in_used};
    ZSTD_outBuffer out = {b->out, b->out_size, b->out_made};
    size_t rc = ZSTD_decompressStream(state, &out, &in);
    b->in_used = in.pos;
    b->out_made = out.pos;
    if (ZSTD_isError(rc)) {
        *why = ZSTD_getErrorName(rc);
        return CODEC_BAD;
    }
    /* 0: a frame decoded and flushed whole; the next call starts the next frame by itself. */
    return rc == 0 ? CODEC_END : CODEC_MORE;
}

static int zstd_restart(void *state) {
    (void)state;
    return 0;
}

static void zstd_close(void *state) {
    ZSTD_freeDStream(state);
}

const codec codec_zstd = {"zstd",    "\x28\xb5\x2f\xfd", 4,         zstd_open,
                          zstd_step, zstd_restart,       zstd_close};
#else
const codec codec_zstd = {"zstd", "\x28\xb5\x2f\xfd", 4, NULL, NULL, NULL, NULL};
#endif
