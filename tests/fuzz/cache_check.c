/* The kernel cache file parser's fuzzing properties (cache_check.h). */
#include "cache_check.h"
#include "base/cache_file.h"
#include "base/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KEY_MOST = 4096, SIZE_BYTES = 8, HEADER_BYTES = SIZE_BYTES + SHA256_BYTES };

static uint64_t load_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Whether cache_file.h's layout holds a binary for `key` in data, and where. */
static int layout_holds(const uint8_t *data, size_t size, const char *key, size_t *offset,
                        size_t *length) {
    size_t key_size = strlen(key) + 1;
    if (size < key_size + HEADER_BYTES || memcmp(data, key, key_size) != 0)
        return 0;
    uint64_t stored = load_le64(data + key_size);
    if (stored == 0 || stored != size - key_size - HEADER_BYTES)
        return 0;
    unsigned char digest[SHA256_BYTES];
    sha256(data + key_size + HEADER_BYTES, (size_t)stored, digest);
    if (memcmp(digest, data + key_size + SIZE_BYTES, SHA256_BYTES) != 0)
        return 0;
    *offset = key_size + HEADER_BYTES;
    *length = (size_t)stored;
    return 1;
}

/* The input parsed with its own key agrees with the layout. */
static int parse_agrees(const uint8_t *data, size_t size, const char *key, int *accepted, char *why,
                        size_t room) {
    size_t offset = 0, length = 0, got_size = 0;
    const char *refusal = NULL;
    const unsigned char *got = cache_file_binary(data, size, key, &got_size, &refusal);
    int want = layout_holds(data, size, key, &offset, &length);
    *accepted = got != NULL;
    if (!got != !want)
        snprintf(why, room, "the parser %s it (%s), the layout says %s",
                 got ? "accepted" : "refused", refusal ? refusal : "no reason",
                 want ? "it holds a binary" : "it does not");
    else if (got && (got != data + offset || got_size != length || refusal))
        snprintf(why, room, "accepted, but the binary is %zu bytes at %zu, not %zu at %zu",
                 got_size, (size_t)(got - data), length, offset);
    else if (!got && (!refusal || !*refusal))
        snprintf(why, room, "refused without a reason");
    else
        return 0;
    return -1;
}

/* A file made of key and binary gives the binary back, and a changed one is refused. */
static int round_trip(const char *key, const uint8_t *binary, size_t size, char *why, size_t room) {
    size_t file_size = 0, got_size = 0;
    const char *refusal = NULL;
    unsigned char *file = cache_file_make(key, binary, size, &file_size);
    char other[KEY_MOST + 2];
    snprintf(other, sizeof other, "%sx", key);
    const unsigned char *got =
        file ? cache_file_binary(file, file_size, key, &got_size, &refusal) : NULL;
    if (!file || !got || got_size != size || memcmp(got, binary, size) != 0)
        snprintf(why, room, "a %zu-byte binary did not come back (%s)", size,
                 !file     ? "not made"
                 : refusal ? refusal
                           : "changed");
    else if (cache_file_binary(file, file_size, other, &got_size, &refusal))
        snprintf(why, room, "the file was accepted under another key");
    else if (cache_file_binary(file, file_size - 1, key, &got_size, &refusal))
        snprintf(why, room, "the file was accepted cut by one byte");
    else {
        file[file_size - 1 - binary[0] % size] ^= (unsigned char)(1u << (size % 8));
        if (cache_file_binary(file, file_size, key, &got_size, &refusal))
            snprintf(why, room, "the file was accepted with a bit of its binary flipped");
        else
            why[0] = '\0';
    }
    free(file);
    return why[0] ? -1 : 0;
}

cache_outcome cache_check(const uint8_t *data, size_t size, char *why, size_t why_size) {
    char key[KEY_MOST + 1];
    size_t key_length = 0;
    while (key_length < size && key_length < KEY_MOST && data[key_length] != 0)
        key_length++;
    memcpy(key, data, key_length);
    key[key_length] = '\0';
    int accepted = 0;
    why[0] = '\0';
    if (parse_agrees(data, size, key, &accepted, why, why_size) != 0)
        return CACHE_FAILED;
    size_t rest = key_length < size ? size - key_length - 1 : 0;
    if (rest > 0 && round_trip(key, data + key_length + 1, rest, why, why_size) != 0)
        return CACHE_FAILED;
    if (rest == 0 && cache_file_make(key, data, 0, &rest)) {
        snprintf(why, why_size, "a file was made of an empty binary");
        return CACHE_FAILED;
    }
    return accepted ? CACHE_ACCEPTED : CACHE_REFUSED;
}
