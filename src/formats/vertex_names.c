/* The vertex name table (vertex_names.h): open addressing over a power-of-two array of slots,
 * half full at most, each slot the name's hash and id; the names themselves in id order. */
#include "formats/vertex_names.h"
#include "base/fault.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint64_t hash; /* 0: empty (a name whose hash is 0 gets 1) */
    int64_t id;
} slot;

typedef struct name {
    const char *text;
    uint32_t len;
    int stable;
} name;

enum { ARENA_CHUNK = 1 << 20 };

typedef struct arena {
    struct arena *next;
    size_t used, size;
    char bytes[];
} arena;

struct vertex_names {
    slot *slots;
    size_t mask; /* slots - 1 */
    name *names;
    size_t count, capacity;
    arena *arena;
};

vertex_names *vertex_names_create(void) {
    vertex_names *n = apsp_calloc(1, sizeof *n);
    if (n && !(n->slots = apsp_calloc(1024, sizeof *n->slots))) {
        free(n);
        return NULL;
    }
    if (n)
        n->mask = 1023;
    return n;
}

void vertex_names_destroy(vertex_names *n) {
    if (!n)
        return;
    for (arena *a = n->arena, *next; a; a = next) {
        next = a->next;
        free(a);
    }
    free(n->slots);
    free(n->names);
    free(n);
}

/* A multiplicative hash over 8 bytes at a time: names are short, and this is the reader's
 * inner loop with the number parser. */
static uint64_t hash_of(const char *text, size_t len) {
    const uint64_t k = 0x9e3779b97f4a7c15u;
    uint64_t h = len * k;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, text + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    memcpy(&tail, text + i, len - i);
    h = (h ^ tail) * k;
    h ^= h >> 32;
    return h ? h : 1;
}

static int grow_slots(vertex_names *n) {
    size_t size = 2 * (n->mask + 1);
    slot *slots = apsp_calloc(size, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i <= n->mask; i++) {
        if (!n->slots[i].hash)
            continue;
        size_t j = n->slots[i].hash & (size - 1);
        while (slots[j].hash)
            j = (j + 1) & (size - 1);
        slots[j] = n->slots[i];
    }
    free(n->slots);
    n->slots = slots;
    n->mask = size - 1;
    return 0;
}

static const char *copy_name(vertex_names *n, const char *text, size_t len) {
    if (!n->arena || n->arena->size - n->arena->used < len + 1) {
        size_t size = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;
        arena *a = apsp_malloc(sizeof *a + size);
        if (!a)
            return NULL;
        *a = (arena){.next = n->arena, .size = size};
        n->arena = a;
    }
    char *at = n->arena->bytes + n->arena->used;
    memcpy(at, text, len);
    at[len] = '\0';
    n->arena->used += len + 1;
    return at;
}

/* The new name's id, appended to the names in order. */
static int64_t add(vertex_names *n, const char *text, size_t len, int stable) {
    if (n->count == INT32_MAX)
        return -2;
    if (n->count == n->capacity) {
        size_t capacity = n->capacity ? 2 * n->capacity : 1024;
        name *bigger = apsp_realloc(n->names, capacity * sizeof *bigger);
        if (!bigger)
            return -1;
        n->names = bigger;
        n->capacity = capacity;
    }
    if (!stable && !(text = copy_name(n, text, len)))
        return -1;
    n->names[n->count] = (name){text, (uint32_t)len, stable};
    return (int64_t)n->count++;
}

int64_t vertex_names_id(vertex_names *n, const char *text, size_t len, int stable) {
    uint64_t h = hash_of(text, len);
    size_t i = h & n->mask;
    for (; n->slots[i].hash; i = (i + 1) & n->mask) {
        const name *m = &n->names[n->slots[i].id];
        if (n->slots[i].hash == h && m->len == len && memcmp(m->text, text, len) == 0)
            return n->slots[i].id;
    }
    int64_t id = add(n, text, len, stable);
    if (id < 0)
        return id;
    n->slots[i] = (slot){h, id};
    if (2 * n->count > n->mask && grow_slots(n) < 0)
        return -1; /* (the table stays whole: the name is in it, at its id) */
    return id;
}

size_t vertex_names_count(const vertex_names *n) {
    return n->count;
}

const char *vertex_names_at(const vertex_names *n, size_t id, size_t *len, int *stable) {
    *len = n->names[id].len;
    *stable = n->names[id].stable;
    return n->names[id].text;
}
