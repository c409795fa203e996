/* The kernel cache's file format, apart from OpenCL and from the file system so that its parser
 * can be fuzzed on bytes alone (tests/fuzz/fuzz_cache_file.c):
 *
 *     key text (no NUL inside)  NUL
 *     binary size               8 bytes, little-endian
 *     SHA-256 of the binary     32 bytes
 *     binary
 *
 * A file is named by a digest of its key and holds the key in full, so a stale file or a name
 * collision is never taken for another's. opencl/program_cache.c makes the key and says why the
 * binary is checked before a driver sees it. */
#ifndef APSP_CACHE_FILE_H
#define APSP_CACHE_FILE_H

#include <stddef.h>

/* A cache file larger than this is not ours (fw.cl's binaries are a few hundred KiB). */
enum { CACHE_FILE_MOST_BYTES = 64 << 20 };

/* The binary of `file` (size bytes) when the file holds `key` and its binary is whole and
 * matches its digest: a pointer into `file`. Else NULL, and *refusal says why in a few words. */
const unsigned char *cache_file_binary(const unsigned char *file, size_t size, const char *key,
                                       size_t *binary_size, const char **refusal);

/* The file holding `key` and `binary`, malloc'd (*file_size bytes), or NULL when out of memory
 * or too large for a cache file. */
unsigned char *cache_file_make(const char *key, const unsigned char *binary, size_t size,
                               size_t *file_size);

/* The file's name for `key` with `suffix` (".clbin", ".loading"): a digest of the key. */
void cache_file_name(const char *key, const char *suffix, char *name, size_t room);

#endif
