/* A 4-ary min-heap of vertices keyed by int64 distances, with decrease-key: Dijkstra's queue
 * (dijkstra.c). Four children per node halve the depth of a binary heap, and a node's children
 * share a cache line (16-byte entries, the key beside the vertex so that a comparison reads no
 * other array), which is what the pops, nearly all of the work on a road-like graph, pay for. */
#ifndef APSP_SSSP_HEAP_H
#define APSP_SSSP_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct heap_entry {
    int64_t key;
    int32_t vertex;
} heap_entry;

/* `at[v]` is v's index in `entries`, or -1 while v is not in the heap (never pushed, or popped:
 * with non-negative weights a popped vertex is never pushed again). */
typedef struct heap {
    heap_entry *entries; /* room for every vertex */
    int32_t *at;         /* one per vertex */
    size_t size;
} heap;

enum { HEAP_ARITY = 4 };

static inline void heap_place(heap *h, size_t i, heap_entry e) {
    h->entries[i] = e;
    h->at[e.vertex] = (int32_t)i;
}

/* Moves e up from slot i to where its parent's key is not above its own. */
static inline void heap_sift_up(heap *h, size_t i, heap_entry e) {
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_ARITY;
        if (h->entries[parent].key <= e.key)
            break;
        heap_place(h, i, h->entries[parent]);
        i = parent;
    }
    heap_place(h, i, e);
}

/* v's key lowered to `key`, or v pushed with it when it is not in the heap. */
static inline void heap_lower(heap *h, int32_t v, int64_t key) {
    int32_t i = h->at[v];
    heap_sift_up(h, i < 0 ? h->size++ : (size_t)i, (heap_entry){key, v});
}

/* Takes the entry of least key out; the heap must not be empty. */
static inline heap_entry heap_pop(heap *h) {
    heap_entry top = h->entries[0];
    h->at[top.vertex] = -1;
    heap_entry last = h->entries[--h->size];
    size_t i = 0, n = h->size;
    for (;;) {
        size_t first = i * HEAP_ARITY + 1, least = i;
        int64_t key = last.key;
        size_t end = first + HEAP_ARITY < n ? first + HEAP_ARITY : n;
        for (size_t c = first; c < end; c++)
            if (h->entries[c].key < key) {
                key = h->entries[c].key;
                least = c;
            }
        if (least == i)
            break;
        heap_place(h, i, h->entries[least]);
        i = least;
    }
    if (n > 0)
        heap_place(h, i, last);
    return top;
}

#endif
