/* The vertex name table (vertex_names.h): open addressing over a power-of-two array of slots,
 * half full at most, each slot the high half of the name's hash and its id. Every name is copied
 * into the table's own chunks, packed: a pointer into the input's buffer would send each lookup to
 * a random place in hundreds of megabytes (a CSV of 20 million edges ran 10x slower than the edge
 * list so, perf: the compares' cache misses). Names that are plain numbers skip the hashing and
 * the slots: their ids are at their numbers in an array (vertex_key). */
#include "formats/vertex_names.h"
#include "base/fault.h"

#include <stdlib.h>
#include <string.h>

typedef struct name {
    const char *text;
    uint32_t len;
} name;

/* A short name (OSM ids, station codes) lives in its slot: a lookup is one cache line, not the
 * three of slot, name and bytes (perf: those misses were two thirds of a CSV read). */
enum { INLINE_BYTES = 11 };
typedef struct slot {
    uint32_t tag; /* the hash's high half: most other names are passed by it alone */
    int32_t id;   /* -1: empty */
    uint8_t len;  /* the name's length where it is at most INLINE_BYTES, else 255 */
    char bytes[INLINE_BYTES];
} slot;

static slot slot_of(uint64_t h, int32_t id, const char *text, size_t len) {
    slot s = {(uint32_t)(h >> 32), id, len <= INLINE_BYTES ? (uint8_t)len : 255, {0}};
    if (len <= INLINE_BYTES)
        memcpy(s.bytes, text, len);
    return s;
}

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
    size_t hashed; /* the names in the slots: count less the numbered ones */
    arena *arena;
    /* VERTEX_NUMBERS entries, id + 1 of the name that is that number (0: none yet); allocated
     * zeroed at the first such name, so that only the pages of the numbers seen are touched. */
    int32_t *numbered;
};

vertex_names *vertex_names_create(void) {
    vertex_names *n = apsp_calloc(1, sizeof *n);
    if (n && !(n->slots = apsp_malloc(1024 * sizeof *n->slots))) {
        free(n);
        return NULL;
    }
    if (n) {
        memset(n->slots, 0xff, 1024 * sizeof *n->slots);
        n->mask = 1023;
    }
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
    free(n->numbered);
    free(n);
}

/* MurmurHash3's finaliser: every bit of x moves every bit of the result. */
static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53u;
    return x ^ (x >> 33);
}

/* 8 bytes at a time, each word mixed in: names are short, and this is the reader's inner loop
 * with the number parser. */
static uint64_t hash_bytes(const char *text, size_t len) {
    uint64_t h = len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, text + i, 8);
        h = mix(h ^ w);
    }
    uint64_t tail = 0; /* (a loop, not memcpy: its call for a few bytes showed in perf) */
    for (size_t j = 0; i + j < len; j++)
        tail |= (uint64_t)(unsigned char)text[i + j] << 8 * j;
    return mix(h ^ tail ^ (uint64_t)len << 56);
}

/* The name's number where it is written plainly ("0", or no leading zero) and below
 * VERTEX_NUMBERS (7 digits at most), else -1. */
static int64_t plain_number(const char *text, size_t len) {
    if (len == 0 || len > 7 || (text[0] == '0' && len > 1))
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned digit = (unsigned)(unsigned char)text[i] - '0';
        if (digit > 9)
            return -1;
        v = v * 10 + digit;
    }
    return v < VERTEX_NUMBERS ? v : -1;
}

vertex_key vertex_names_key(const char *text, size_t len) {
    int64_t number = plain_number(text, len);
    return (vertex_key){number < 0 ? hash_bytes(text, len) : 0, number};
}

static int grow_slots(vertex_names *n) {
    size_t size = 2 * (n->mask + 1);
    slot *slots = apsp_malloc(size * sizeof *slots);
    if (!slots)
        return -1;
    memset(slots, 0xff, size * sizeof *slots);
    for (size_t id = 0; id < n->count; id++) {
        if (plain_number(n->names[id].text, n->names[id].len) >= 0)
            continue; /* (in the numbered array) */
        uint64_t h = hash_bytes(n->names[id].text, n->names[id].len);
        size_t j = h & (size - 1);
        while (slots[j].id >= 0)
            j = (j + 1) & (size - 1);
        slots[j] = slot_of(h, (int32_t)id, n->names[id].text, n->names[id].len);
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

/* The new name's id, appended to the names in order (text: its copy). */
static int64_t add(vertex_names *n, const char *text, size_t len) {
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
    n->names[n->count] = (name){text, (uint32_t)len};
    return (int64_t)n->count++;
}

/* A byte loop: names are a few bytes, shorter than memcmp's call. */
static int same_bytes(const char *a, const char *b, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

void vertex_names_prefetch(const vertex_names *n, vertex_key key) {
#if defined(__GNUC__)
    if (key.number < 0)
        __builtin_prefetch(&n->slots[key.hash & n->mask]);
    else if (n->numbered)
        __builtin_prefetch(&n->numbered[key.number]);
#else
    (void)n, (void)key;
#endif
}

int64_t vertex_names_id(vertex_names *n, const char *text, size_t len) {
    return vertex_names_id_keyed(n, text, len, vertex_names_key(text, len));
}

/* A name not seen before: copied, and given the next id (-1: no memory, -2: too many). */
static int64_t new_name(vertex_names *n, const char *text, size_t len) {
    const char *copy = n->count < INT32_MAX ? copy_name(n, text, len) : NULL;
    return copy ? add(n, copy, len) : n->count < INT32_MAX ? -1 : -2;
}

static int64_t numbered_id(vertex_names *n, const char *text, size_t len, int64_t number) {
    if (!n->numbered && !(n->numbered = apsp_calloc(VERTEX_NUMBERS, sizeof *n->numbered)))
        return -1;
    if (n->numbered[number])
        return n->numbered[number] - 1;
    int64_t id = new_name(n, text, len);
    if (id >= 0)
        n->numbered[number] = (int32_t)(id + 1);
    return id;
}

int64_t vertex_names_id_keyed(vertex_names *n, const char *text, size_t len, vertex_key key) {
    if (key.number >= 0)
        return numbered_id(n, text, len, key.number);
    const uint64_t h = key.hash;
    const uint32_t tag = (uint32_t)(h >> 32);
    size_t i = h & n->mask;
    for (; n->slots[i].id >= 0; i = (i + 1) & n->mask) {
        const slot *s = &n->slots[i];
        if (s->tag != tag)
            continue;
        if (len <= INLINE_BYTES ? s->len == len && same_bytes(s->bytes, text, len)
                                : s->len == 255 && n->names[s->id].len == len &&
                                      same_bytes(n->names[s->id].text, text, len))
            return s->id;
    }
    int64_t id = new_name(n, text, len);
    if (id < 0)
        return id;
    n->slots[i] = slot_of(h, (int32_t)id, text, len);
    if (2 * ++n->hashed > n->mask && grow_slots(n) < 0)
        return -1; /* (the table stays whole: the name is in it, at its id) */
    return id;
}

size_t vertex_names_count(const vertex_names *n) {
    return n->count;
}

const char *vertex_names_at(const vertex_names *n, size_t id, size_t *len) {
    *len = n->names[id].len;
    return n->names[id].text;
}
