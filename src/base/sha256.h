/* SHA-256 (FIPS 180-4). The kernel cache checks its files with it before an OpenCL driver sees
 * them (opencl/program_cache.c); the library links no crypto library, and this is the one
 * digest it needs. */
#ifndef APSP_SHA256_H
#define APSP_SHA256_H

#include <stddef.h>

enum { SHA256_BYTES = 32, SHA256_HEX = 2 * SHA256_BYTES + 1 };

void sha256(const void *data, size_t size, unsigned char digest[SHA256_BYTES]);

/* The digest as lowercase hexadecimal, NUL-terminated. */
void sha256_hex(const void *data, size_t size, char hex[SHA256_HEX]);

#endif
