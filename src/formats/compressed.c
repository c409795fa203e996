/* Compressed inputs (compressed.h): the codec picked by the first bytes, compressed bytes read in
 * blocks and decoded into the caller's buffer, one stream after another (a file of concatenated
 * gzip members, zstd frames or bzip2 streams, as `cat a.gz b.gz`, pigz and pbzip2 make), and the
 * bound on what a few bytes may expand to. */
#include "formats/compressed.h"
#include "base/fault.h"
#include "formats/codec.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { COMPRESSED_BLOCK = 1 << 18 };

/* No more output than deflate's own ceiling (1032:1) per input byte, past a first MiB: zstd and
 * bzip2 can expand a few kilobytes into terabytes of one byte (a "decompression bomb"), which a
 * text reader would try to hold. Real edge lists compress 3-20:1. */
enum { MOST_RATIO = 1032, RATIO_SLACK = 1 << 20 };

struct input_stream {
    const codec *codec; /* NULL: plain, once probed */
    void *state;
    int probed, ended, eof;
    unsigned char *block; /* read from fd: [pos, end) not yet decoded (or given, when plain) */
    size_t pos, end;
    uint64_t bytes_in, bytes_out;
    char problem[200];
};

static const codec *const codecs[] = {&codec_gzip, &codec_zstd, &codec_bz2};

input_stream *input_stream_create(void) {
    input_stream *s = apsp_calloc(1, sizeof *s);
    if (s)
        s->block = apsp_malloc(COMPRESSED_BLOCK);
    if (s && !s->block) {
        free(s);
        s = NULL;
    }
    return s;
}

void input_stream_destroy(input_stream *s) {
    if (!s)
        return;
    if (s->state)
        s->codec->close(s->state);
    free(s->block);
    free(s);
}

const codec *codec_of_magic(const unsigned char *bytes, size_t count) {
    for (size_t i = 0; i < sizeof codecs / sizeof *codecs; i++)
        if (count >= codecs[i]->magic_bytes &&
            memcmp(bytes, codecs[i]->magic, codecs[i]->magic_bytes) == 0)
            /* bzip2's "BZh" is followed by the block size, '1' to '9' */
            if (codecs[i] != &codec_bz2 || (count > 3 && bytes[3] >= '1' && bytes[3] <= '9'))
                return codecs[i];
    return NULL;
}

int codec_built(const codec *c, const char *name, char *why, size_t size) {
    if (c->open)
        return 1;
    snprintf(why, size,
             "%s%sa %s stream, but apsp was built without %s (install its library, Debian "
             "%s, and build again)",
             name, *name ? ": " : "", c->name, c->name,
             c == &codec_gzip   ? "zlib1g-dev"
             : c == &codec_zstd ? "libzstd-dev"
                                : "libbz2-dev");
    return 0;
}

/* The problem, and where: the compressed byte the decoder had reached, as a text reader's own
 * refusals name their line. */
static ssize_t refused(input_stream *s, const char *format, const char *a, const char *b) {
    int n = snprintf(s->problem, sizeof s->problem, format, a, b);
    uint64_t at = s->bytes_in - (s->end - s->pos);
    if (n > 0 && (size_t)n < sizeof s->problem)
        snprintf(s->problem + n, sizeof s->problem - (size_t)n, " (at byte %llu of the %s stream)",
                 (unsigned long long)at, s->codec->name);
    errno = EILSEQ;
    return -1;
}

/* More bytes from fd into the block (which the decoder has used up): 0, or -1 with errno. */
static int refill(input_stream *s, int fd) {
    s->pos = s->end = 0;
    for (;;) {
        ssize_t n = read(fd, s->block, COMPRESSED_BLOCK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        s->end = (size_t)n;
        s->eof = n == 0;
        s->bytes_in += (uint64_t)n;
        return 0;
    }
}

ssize_t fd_read_full(int fd, void *buf, size_t size, int64_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = offset < 0 ? read(fd, (char *)buf + done, size - done)
                               : pread(fd, (char *)buf + done, size - done,
                                       (off_t)((uint64_t)offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* The first bytes read and the codec they name, opened. */
static int probe(input_stream *s, int fd) {
    s->probed = 1;
    ssize_t n = fd_read_full(fd, s->block, MAGIC_BYTES, -1);
    if (n < 0)
        return -1;
    s->end = (size_t)n;
    s->eof = n < MAGIC_BYTES;
    s->bytes_in = s->end;
    s->codec = codec_of_magic(s->block, s->end);
    if (!s->codec)
        return 0;
    if (!codec_built(s->codec, "", s->problem, sizeof s->problem)) {
        errno = EILSEQ;
        return -1;
    }
    s->state = s->codec->open();
    if (!s->state) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static ssize_t read_plain(input_stream *s, int fd, unsigned char *buf, size_t size) {
    size_t pending = s->end - s->pos < size ? s->end - s->pos : size;
    memcpy(buf, s->block + s->pos, pending);
    s->pos += pending;
    ssize_t n = pending < size ? fd_read_full(fd, buf + pending, size - pending, -1) : 0;
    return n < 0 ? -1 : (ssize_t)pending + n;
}

/* One decoder step into buf[*made, size): 1 at the clean end of the input, 0 to go on, -1. */
static int decode_step(input_stream *s, int fd, unsigned char *buf, size_t size, size_t *made) {
    if (s->pos == s->end && !s->eof && refill(s, fd) < 0)
        return -1;
    if (s->ended) {
        if (s->pos == s->end && s->eof)
            return 1;
        if (s->codec->restart(s->state) != 0)
            return errno = ENOMEM, -1;
        s->ended = 0;
    }
    codec_buffers b = {s->block, s->end, s->pos, buf, size, *made};
    const char *why = "corrupt data";
    codec_result rc = s->codec->step(s->state, &b, &why);
    int stuck = b.in_used == s->pos && b.out_made == *made;
    s->pos = b.in_used;
    s->bytes_out += b.out_made - *made;
    *made = b.out_made;
    if (rc == CODEC_BAD)
        return (int)refused(s, "corrupt %s stream: %s", s->codec->name, why);
    s->ended = rc == CODEC_END;
    if (!s->ended && stuck && s->pos == s->end && s->eof)
        return (int)refused(s, "truncated %s stream: it ends inside its data%s", s->codec->name,
                            "");
    if (s->bytes_out > (uint64_t)MOST_RATIO * s->bytes_in + RATIO_SLACK)
        return (int)refused(s,
                            "the %s stream expands more than 1032 times (deflate's ceiling): "
                            "refused as a decompression bomb%s",
                            s->codec->name, "");
    return 0;
}

ssize_t input_stream_read(input_stream *s, int fd, void *buf, size_t size) {
    if (!s->probed && probe(s, fd) < 0)
        return -1;
    if (!s->codec)
        return read_plain(s, fd, buf, size);
    size_t made = 0;
    while (made < size) {
        int rc = decode_step(s, fd, buf, size, &made);
        if (rc < 0)
            return -1;
        if (rc > 0)
            break;
    }
    return (ssize_t)made;
}

const char *input_stream_problem(const input_stream *s) {
    return s->problem[0] ? s->problem : NULL;
}

const char *input_stream_codec(const input_stream *s) {
    return s->codec ? s->codec->name : NULL;
}
