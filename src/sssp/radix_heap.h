/* A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990): a monotone priority queue of vertices
 * keyed by non-negative integer distances, Dijkstra's queue (dijkstra.c). Bucket 0 holds the
 * keys equal to the last key popped, bucket i >= 1 those whose highest bit that differs from it
 * is bit i - 1. A pop takes from bucket 0; when that is empty, the first non-empty bucket is
 * spread over the lower ones around its least key, and an item moves down at most 64 times in
 * all, so a push and a pop cost O(1) amortised plus the spreading, with sequential access
 * throughout. There is no decrease-key: a lowered vertex is pushed again and its stale entries
 * are skipped when they come out (their key is above its distance). Docs/performance.md,
 * "Chosen sources", has it beside the 4-ary heap it replaced. */
#ifndef APSP_SSSP_RADIX_HEAP_H
#define APSP_SSSP_RADIX_HEAP_H

#include "base/fault.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct radix_item {
    uint64_t key;
    int32_t vertex;
} radix_item;

typedef struct radix_bucket {
    radix_item *items;
    size_t size, capacity;
} radix_bucket;

enum { RADIX_BUCKETS = 65 };

typedef struct radix_heap {
    radix_bucket buckets[RADIX_BUCKETS];
    uint64_t last; /* the last key popped: no key pushed may be below it */
    size_t size;
    int out_of_memory; /* a push found no room: the distances are not to be used */
} radix_heap;

static inline void radix_reset(radix_heap *h) {
    for (int i = 0; i < RADIX_BUCKETS; i++)
        h->buckets[i].size = 0;
    h->last = 0;
    h->size = 0;
}

static inline void radix_free(radix_heap *h) {
    for (int i = 0; i < RADIX_BUCKETS; i++)
        free(h->buckets[i].items);
}

static inline int radix_bucket_of(const radix_heap *h, uint64_t key) {
    return key == h->last ? 0 : 64 - __builtin_clzll(key ^ h->last);
}

static inline void radix_put(radix_heap *h, int bucket, radix_item item) {
    radix_bucket *b = &h->buckets[bucket];
    if (b->size == b->capacity) {
        size_t capacity = b->capacity ? 2 * b->capacity : 256;
        radix_item *grown = apsp_realloc(b->items, capacity * sizeof *grown);
        if (!grown) {
            h->out_of_memory = 1;
            return;
        }
        b->items = grown;
        b->capacity = capacity;
    }
    b->items[b->size++] = item;
}

static inline void radix_push(radix_heap *h, uint64_t key, int32_t vertex) {
    radix_put(h, radix_bucket_of(h, key), (radix_item){key, vertex});
    h->size++;
}

/* Bucket 0 refilled from the first non-empty bucket, around its least key. */
static inline void radix_spread(radix_heap *h) {
    int i = 1;
    while (h->buckets[i].size == 0)
        i++;
    radix_bucket *b = &h->buckets[i];
    uint64_t least = b->items[0].key;
    for (size_t k = 1; k < b->size; k++)
        least = b->items[k].key < least ? b->items[k].key : least;
    h->last = least;
    for (size_t k = 0; k < b->size; k++) /* every key lands in a bucket below i */
        radix_put(h, radix_bucket_of(h, b->items[k].key), b->items[k]);
    b->size = 0;
}

/* Takes an item of least key out; the heap must not be empty. */
static inline radix_item radix_pop(radix_heap *h) {
    if (h->buckets[0].size == 0)
        radix_spread(h);
    h->size--;
    return h->buckets[0].items[--h->buckets[0].size];
}

#endif
