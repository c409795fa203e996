/* A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990): a monotone priority queue of vertices
 * keyed by non-negative integer distances, Dijkstra's queue (dijkstra.c). Bucket 0 holds the
 * keys equal to the last key popped, bucket i >= 1 those whose highest bit that differs from it
 * is bit i - 1. A pop takes from bucket 0; when that is empty, the first non-empty bucket is
 * spread over the lower ones around its least key, and an item moves down at most once per key
 * bit in all, so a push and a pop cost O(1) amortised plus the spreading, with sequential access
 * throughout. There is no decrease-key: a lowered vertex is pushed again and its stale entries
 * are skipped when they come out (their key is above its distance). Docs/performance.md,
 * "Chosen sources", has it beside the 4-ary heap it replaced.
 *
 * One template, two instances: `radix_heap` with 64-bit keys (int64 and double distances: 16-byte
 * items) and `radix_heap32` with 32-bit keys (the narrow integer path: 8-byte items, half the
 * bytes moved per push, pop and spread). */
#ifndef APSP_SSSP_RADIX_HEAP_H
#define APSP_SSSP_RADIX_HEAP_H

#include "base/fault.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The heap type HEAP with items HEAP##_item of keys KEY_T (BITS wide, CLZ its count of leading
 * zeros) and the functions PREFIX##_reset, _free, _push and _pop. */
#define DEFINE_RADIX_HEAP(HEAP, PREFIX, KEY_T, BITS, CLZ)                                          \
    typedef struct HEAP##_item {                                                                   \
        KEY_T key;                                                                                 \
        int32_t vertex;                                                                            \
    } HEAP##_item;                                                                                 \
                                                                                                   \
    typedef struct HEAP##_bucket {                                                                 \
        HEAP##_item *items;                                                                        \
        size_t size, capacity;                                                                     \
    } HEAP##_bucket;                                                                               \
                                                                                                   \
    typedef struct HEAP {                                                                          \
        HEAP##_bucket buckets[BITS + 1];                                                           \
        KEY_T last; /* the last key popped: no key pushed may be below it */                       \
        size_t size;                                                                               \
        int out_of_memory; /* a push found no room: the distances are not to be used */            \
    } HEAP;                                                                                        \
                                                                                                   \
    static inline void PREFIX##_reset(HEAP *h) {                                                   \
        for (int i = 0; i <= BITS; i++)                                                            \
            h->buckets[i].size = 0;                                                                \
        h->last = 0;                                                                               \
        h->size = 0;                                                                               \
    }                                                                                              \
                                                                                                   \
    static inline void PREFIX##_free(HEAP *h) {                                                    \
        for (int i = 0; i <= BITS; i++)                                                            \
            free(h->buckets[i].items);                                                             \
    }                                                                                              \
                                                                                                   \
    static inline int PREFIX##_bucket_of(const HEAP *h, KEY_T key) {                               \
        return key == h->last ? 0 : BITS - CLZ(key ^ h->last);                                     \
    }                                                                                              \
                                                                                                   \
    /* The item into a bucket when `lower` is 1, past its end when 0 (push_if). */                 \
    static inline void PREFIX##_put(HEAP *h, int bucket, HEAP##_item item, unsigned lower) {       \
        HEAP##_bucket *b = &h->buckets[bucket];                                                    \
        if (b->size == b->capacity) {                                                              \
            size_t capacity = b->capacity ? 2 * b->capacity : 256;                                 \
            HEAP##_item *grown = apsp_realloc(b->items, capacity * sizeof *grown);                 \
            if (!grown) {                                                                          \
                h->out_of_memory = 1;                                                              \
                return;                                                                            \
            }                                                                                      \
            b->items = grown;                                                                      \
            b->capacity = capacity;                                                                \
        }                                                                                          \
        b->items[b->size] = item;                                                                  \
        b->size += lower;                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Pushes when `lower` is 1; no branch on it (dijkstra.c). */                                  \
    static inline void PREFIX##_push_if(HEAP *h, KEY_T key, int32_t vertex, unsigned lower) {      \
        PREFIX##_put(h, PREFIX##_bucket_of(h, key), (HEAP##_item){key, vertex}, lower);            \
        h->size += lower;                                                                          \
    }                                                                                              \
                                                                                                   \
    static inline void PREFIX##_push(HEAP *h, KEY_T key, int32_t vertex) {                         \
        PREFIX##_push_if(h, key, vertex, 1);                                                       \
    }                                                                                              \
                                                                                                   \
    /* Bucket 0 refilled from the first non-empty bucket, around its least key. */                 \
    static inline void PREFIX##_spread(HEAP *h) {                                                  \
        int i = 1;                                                                                 \
        while (h->buckets[i].size == 0)                                                            \
            i++;                                                                                   \
        HEAP##_bucket *b = &h->buckets[i];                                                         \
        KEY_T least = b->items[0].key;                                                             \
        for (size_t k = 1; k < b->size; k++)                                                       \
            least = b->items[k].key < least ? b->items[k].key : least;                             \
        h->last = least;                                                                           \
        for (size_t k = 0; k < b->size; k++) /* every key lands in a bucket below i */             \
            PREFIX##_put(h, PREFIX##_bucket_of(h, b->items[k].key), b->items[k], 1);               \
        b->size = 0;                                                                               \
    }                                                                                              \
                                                                                                   \
    /* Takes an item of least key out; the heap must not be empty. */                              \
    static inline HEAP##_item PREFIX##_pop(HEAP *h) {                                              \
        if (h->buckets[0].size == 0)                                                               \
            PREFIX##_spread(h);                                                                    \
        h->size--;                                                                                 \
        return h->buckets[0].items[--h->buckets[0].size];                                          \
    }

DEFINE_RADIX_HEAP(radix_heap, radix, uint64_t, 64, __builtin_clzll)
DEFINE_RADIX_HEAP(radix_heap32, radix32, uint32_t, 32, __builtin_clz)

#endif
