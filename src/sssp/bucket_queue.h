/* Dial's bucket queue: a monotone priority queue of vertices keyed by integer distances whose
 * pushes lie within `span` - 1 of the last key popped (Dijkstra's with weights below `span`).
 * Bucket k % span holds the keys equal to k, so at any time each bucket holds one key; a pop
 * moves the cursor to the next non-empty bucket, found in a bitmap of the occupied ones (at most
 * span / 64 words read, one on a dense graph). An item is the vertex alone (its key is the
 * cursor's when it comes out): 4 bytes, written once and read once, where a radix heap's item
 * is 8 bytes and moves down through its buckets. Stale entries are skipped by Dijkstra as with
 * the radix heap. The narrow path takes it for weights below SSSP_BUCKET_SPAN
 * (sssp_scratch_narrow). The same functions as radix_heap.h's, for dijkstra.c's template. */
#ifndef APSP_SSSP_BUCKET_QUEUE_H
#define APSP_SSSP_BUCKET_QUEUE_H

#include "base/fault.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct bucket_queue_item {
    uint32_t key;
    int32_t vertex;
} bucket_queue_item;

typedef struct bucket_queue_bucket {
    int32_t *vertices;
    size_t size, capacity;
} bucket_queue_bucket;

typedef struct bucket_queue {
    bucket_queue_bucket *buckets; /* span of them, kept with their memory across searches */
    uint64_t *occupied;           /* bit b: bucket b is not empty */
    uint32_t span;
    uint32_t cursor; /* the last key popped */
    uint32_t at;     /* cursor % span */
    size_t size;
    int out_of_memory;
} bucket_queue;

/* Room for `span` buckets; returns 0, or 1 without memory. */
static inline int bucket_queue_init(bucket_queue *q, uint32_t span) {
    q->buckets = apsp_calloc(span, sizeof *q->buckets);
    q->occupied = apsp_calloc((span + 63) / 64, sizeof *q->occupied);
    q->span = q->buckets && q->occupied ? span : 0;
    return !q->span;
}

static inline void bucket_queue_reset(bucket_queue *q) {
    for (uint32_t i = 0; i < q->span; i++)
        q->buckets[i].size = 0;
    for (uint32_t w = 0; w < (q->span + 63) / 64; w++)
        q->occupied[w] = 0;
    q->cursor = q->at = 0;
    q->size = 0;
}

static inline void bucket_queue_free(bucket_queue *q) {
    for (uint32_t i = 0; i < q->span; i++)
        free(q->buckets[i].vertices);
    free(q->buckets);
    free(q->occupied);
}

/* Pushes the item when `lower` is 1, writes it past the end when 0: no branch on a comparison
 * that goes either way at random (dijkstra.c). */
static inline void bucket_queue_push_if(bucket_queue *q, uint32_t key, int32_t vertex,
                                        unsigned lower) {
    uint32_t at = q->at + (key - q->cursor); /* key - cursor < span */
    at = at >= q->span ? at - q->span : at;
    bucket_queue_bucket *b = &q->buckets[at];
    if (b->size == b->capacity) {
        size_t capacity = b->capacity ? 2 * b->capacity : 64;
        int32_t *grown = apsp_realloc(b->vertices, capacity * sizeof *grown);
        if (!grown) {
            q->out_of_memory = 1;
            return;
        }
        b->vertices = grown;
        b->capacity = capacity;
    }
    b->vertices[b->size] = vertex;
    b->size += lower;
    q->occupied[at / 64] |= (uint64_t)lower << (at % 64);
    q->size += lower;
}

static inline void bucket_queue_push(bucket_queue *q, uint32_t key, int32_t vertex) {
    bucket_queue_push_if(q, key, vertex, 1);
}

/* The first occupied bucket from the cursor's on, round the circle: the least key. */
static inline uint32_t bucket_queue_next(const bucket_queue *q) {
    uint32_t words = (q->span + 63) / 64, w = q->at / 64;
    uint64_t bits = q->occupied[w] & (~UINT64_C(0) << (q->at % 64));
    while (!bits) { /* (back at the cursor's word, its bits below the cursor are keys past it) */
        w = w + 1 == words ? 0 : w + 1;
        bits = q->occupied[w];
    }
    return w * 64 + (uint32_t)__builtin_ctzll(bits);
}

/* Takes an item of least key out; the queue must not be empty. */
static inline bucket_queue_item bucket_queue_pop(bucket_queue *q) {
    if (q->buckets[q->at].size == 0) {
        uint32_t next = bucket_queue_next(q);
        q->cursor += next >= q->at ? next - q->at : next + q->span - q->at;
        q->at = next;
    }
    bucket_queue_bucket *b = &q->buckets[q->at];
    if (--b->size == 0)
        q->occupied[q->at / 64] &= ~(UINT64_C(1) << (q->at % 64));
    q->size--;
    return (bucket_queue_item){q->cursor, b->vertices[b->size]};
}

#endif
