/* The kernel cache's file format (cache_file.h). */
#include "base/cache_file.h"
#include "base/fault.h"
#include "base/sha256.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { SIZE_BYTES = 8, HEADER_BYTES = SIZE_BYTES + SHA256_BYTES, NAME_HEX = 32 };

static void store_le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t load_le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static const unsigned char *refuse(const char **refusal, const char *why) {
    *refusal = why;
    return NULL;
}

const unsigned char *cache_file_binary(const unsigned char *file, size_t size, const char *key,
                                       size_t *binary_size, const char **refusal) {
    size_t key_size = strlen(key) + 1;
    if (size < key_size || memcmp(file, key, key_size) != 0)
        return refuse(refusal, size < key_size ? "cut short" : "another key");
    if (size - key_size < HEADER_BYTES)
        return refuse(refusal, "cut short");
    const unsigned char *header = file + key_size, *binary = header + HEADER_BYTES;
    size_t room = size - key_size - HEADER_BYTES;
    uint64_t stored = load_le64(header);
    if (stored == 0 || stored != room)
        return refuse(refusal, stored == 0 ? "an empty binary" : "a binary size not the file's");
    unsigned char digest[SHA256_BYTES];
    sha256(binary, room, digest);
    if (memcmp(digest, header + SIZE_BYTES, SHA256_BYTES) != 0)
        return refuse(refusal, "a binary that does not match its SHA-256");
    *binary_size = room;
    *refusal = NULL;
    return binary;
}

unsigned char *cache_file_make(const char *key, const unsigned char *binary, size_t size,
                               size_t *file_size) {
    size_t key_size = strlen(key) + 1;
    unsigned char *file = NULL;
    if (size == 0 || size > CACHE_FILE_MOST_BYTES ||
        key_size + HEADER_BYTES > CACHE_FILE_MOST_BYTES - size ||
        !(file = apsp_malloc(key_size + HEADER_BYTES + size)))
        return NULL;
    memcpy(file, key, key_size);
    store_le64(file + key_size, size);
    sha256(binary, size, file + key_size + SIZE_BYTES);
    memcpy(file + key_size + HEADER_BYTES, binary, size);
    *file_size = key_size + HEADER_BYTES + size;
    return file;
}

void cache_file_name(const char *key, const char *suffix, char *name, size_t room) {
    char hex[SHA256_HEX];
    sha256_hex(key, strlen(key), hex);
    snprintf(name, room, "%.*s%s", NAME_HEX, hex, suffix);
}
