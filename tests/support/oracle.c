/* The test oracle. Deliberately the simplest code that is obviously right: no blocking, no
 * padding, no threads. See oracle.h. */
#include "oracle.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(char *msg, size_t msg_size, const char *format, ...) {
    if (!msg || msg_size == 0)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(msg, msg_size, format, args);
    va_end(args);
}

int32_t *oracle_matrix_new(int32_t v) {
    if (v < 1)
        return NULL;
    size_t n = (size_t)v;
    if (n > SIZE_MAX / sizeof(int32_t) / n)
        return NULL;
    int32_t *d = malloc(n * n * sizeof *d);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = i == j ? 0 : ORACLE_INF;
    return d;
}

void oracle_add_edge(int32_t *d, int32_t v, int32_t src, int32_t dst, int32_t w) {
    if (src == dst)
        return;
    int32_t *cell = &d[(size_t)src * (size_t)v + (size_t)dst];
    if (w < *cell)
        *cell = w;
}

void oracle_floyd_warshall(int32_t *d, int32_t v) {
    size_t n = (size_t)v;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < n; i++) {
            int64_t ik = d[i * n + k];
            if (ik == ORACLE_INF)
                continue;
            for (size_t j = 0; j < n; j++) {
                int64_t kj = d[k * n + j];
                if (kj == ORACLE_INF)
                    continue;
                /* Only a negative cycle takes a sum below -ORACLE_INF: kept there, not wrapped. */
                int64_t sum = ik + kj < -ORACLE_INF ? -ORACLE_INF : ik + kj;
                if (sum < d[i * n + j])
                    d[i * n + j] = (int32_t)sum;
            }
        }
    }
}

int oracle_negative_cycle(const int32_t *d, int32_t v) {
    for (int32_t i = 0; i < v; i++)
        if (d[(size_t)i * (size_t)v + (size_t)i] < 0)
            return 1;
    return 0;
}

int oracle_on_negative_cycle(const int32_t *d, int32_t v, int32_t x) {
    size_t n = (size_t)v, at = (size_t)x;
    if (x < 0 || x >= v)
        return 0;
    for (size_t c = 0; c < n; c++)
        if (d[c * n + c] < 0 && d[at * n + c] != ORACLE_INF && d[c * n + at] != ORACLE_INF)
            return 1;
    return 0;
}

int oracle_named_vertex(const char *message) {
    const char *at = strstr(message, "vertex ");
    return at ? atoi(at + strlen("vertex ")) : -1;
}

static int32_t get_le32(const unsigned char *b) {
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return (int32_t)u;
}

static void put_le32(unsigned char *b, int32_t value) {
    uint32_t u = (uint32_t)value;
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(u >> (8 * i));
}

int oracle_read_hw3(const char *path, int32_t *v_out, int32_t **d_out, char *msg, size_t msg_size) {
    *d_out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        say(msg, msg_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char buf[12];
    int32_t *d = NULL;
    if (fread(buf, 1, 8, f) != 8) {
        say(msg, msg_size, "%s: no complete 8-byte header", path);
        goto fail;
    }
    int32_t v = get_le32(buf), e = get_le32(buf + 4);
    if (v < 1 || e < 0) {
        say(msg, msg_size, "%s: bad header V = %d, E = %d", path, v, e);
        goto fail;
    }
    d = oracle_matrix_new(v);
    if (!d) {
        say(msg, msg_size, "%s: no memory for V = %d", path, v);
        goto fail;
    }
    for (int32_t i = 0; i < e; i++) {
        if (fread(buf, 1, 12, f) != 12) {
            say(msg, msg_size, "%s: edge %d is missing or incomplete", path, i);
            goto fail;
        }
        int32_t src = get_le32(buf), dst = get_le32(buf + 4), w = get_le32(buf + 8);
        if (src < 0 || src >= v || dst < 0 || dst >= v) {
            say(msg, msg_size, "%s: edge %d: endpoint out of range", path, i);
            goto fail;
        }
        if ((int64_t)(v - 1) * (w < 0 ? -(int64_t)w : w) >= ORACLE_INF) {
            say(msg, msg_size, "%s: edge %d: weight %d out of range", path, i, w);
            goto fail;
        }
        oracle_add_edge(d, v, src, dst, w);
    }
    if (fgetc(f) != EOF) {
        say(msg, msg_size, "%s: bytes after the last edge", path);
        goto fail;
    }
    fclose(f);
    *v_out = v;
    *d_out = d;
    return 0;
fail:
    free(d);
    fclose(f);
    return -1;
}

int oracle_write_hw3(const char *path, const int32_t *d, int32_t v, char *msg, size_t msg_size) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        say(msg, msg_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cells = (size_t)v * (size_t)v;
    int ok = 1;
    for (size_t c = 0; c < cells && ok; c++) {
        unsigned char b[4];
        put_le32(b, d[c]);
        ok = fwrite(b, 1, 4, f) == 4;
    }
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        say(msg, msg_size, "%s: write failed: %s", path, strerror(errno));
        remove(path);
        return -1;
    }
    return 0;
}
