/* SHA-256 (sha256.h), as FIPS 180-4 section 6.2 describes it: the message padded with a 1 bit,
 * zeros and its length in bits to a multiple of 64 bytes, each 64-byte block compressed into the
 * eight-word state. */
#include "base/sha256.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { BLOCK_BYTES = 64, LENGTH_BYTES = 8 };

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t round_constant[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
static const uint32_t initial_state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static uint32_t rotate_right(uint32_t x, int n) {
    return x >> n | x << (32 - n);
}

static uint32_t load_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The message schedule: the block's 16 words, stretched to 64. */
static void schedule(const unsigned char block[BLOCK_BYTES], uint32_t w[64]) {
    for (int i = 0; i < 16; i++)
        w[i] = load_be32(block + 4 * i);
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ w[i - 15] >> 3;
        uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ w[i - 2] >> 10;
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
}

/* v[0..7] are the working variables a..h. */
static void compress(uint32_t state[8], const unsigned char block[BLOCK_BYTES]) {
    uint32_t w[64], v[8];
    schedule(block, w);
    memcpy(v, state, sizeof v);
    for (int i = 0; i < 64; i++) {
        uint32_t e = v[4], a = v[0];
        uint32_t choose = (e & v[5]) ^ (~e & v[6]);
        uint32_t majority = (a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]);
        uint32_t t1 = v[7] + (rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25)) +
                      choose + round_constant[i] + w[i];
        uint32_t t2 = (rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22)) + majority;
        memmove(v + 1, v, 7 * sizeof v[0]); /* h = g, g = f, ..., b = a */
        v[4] += t1;                         /* e = d + t1 (d has moved to v[4]) */
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        state[i] += v[i];
}

void sha256(const void *data, size_t size, unsigned char digest[SHA256_BYTES]) {
    const unsigned char *p = data;
    uint32_t state[8];
    memcpy(state, initial_state, sizeof state);
    size_t whole = size - size % BLOCK_BYTES;
    for (size_t at = 0; at < whole; at += BLOCK_BYTES)
        compress(state, p + at);
    /* The rest, the 1 bit, zeros and the length in bits: one block, or two when the rest
     * leaves no room for the 9 bytes. */
    unsigned char tail[2 * BLOCK_BYTES] = {0};
    size_t rest = size - whole;
    if (rest > 0) /* (data may be NULL when size is 0) */
        memcpy(tail, p + whole, rest);
    tail[rest] = 0x80;
    size_t tail_bytes = rest + 1 + LENGTH_BYTES <= BLOCK_BYTES ? BLOCK_BYTES : 2 * BLOCK_BYTES;
    uint64_t bits = (uint64_t)size * 8;
    for (int i = 0; i < LENGTH_BYTES; i++)
        tail[tail_bytes - 1 - i] = (unsigned char)(bits >> (8 * i));
    for (size_t at = 0; at < tail_bytes; at += BLOCK_BYTES)
        compress(state, tail + at);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            digest[4 * i + j] = (unsigned char)(state[i] >> (24 - 8 * j));
}

void sha256_hex(const void *data, size_t size, char hex[SHA256_HEX]) {
    unsigned char digest[SHA256_BYTES];
    sha256(data, size, digest);
    for (int i = 0; i < SHA256_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}
