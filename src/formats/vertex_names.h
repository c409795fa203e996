/* Named vertices (CSV and TSV inputs): each distinct name gets the next id, in the order names
 * are first seen; the table keeps a copy of each. */
#ifndef APSP_VERTEX_NAMES_H
#define APSP_VERTEX_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct vertex_names vertex_names;

vertex_names *vertex_names_create(void);
void vertex_names_destroy(vertex_names *names); /* accepts NULL */

/* The id of the `len` bytes at text, added (copied) when new. -1: out of memory; -2: INT32_MAX
 * names already. */
int64_t vertex_names_id(vertex_names *names, const char *text, size_t len);

/* Where a name is looked up: a name that is a number written plainly ("0", or digits without a
 * leading zero) below VERTEX_NUMBERS at that number in a plain array (number >= 0), any other by
 * its hash. The same bytes always go the same way, so ids do not depend on it. */
enum { VERTEX_NUMBERS = 1 << 22 };
typedef struct vertex_key {
    uint64_t hash;
    int64_t number; /* -1: looked up by the hash */
} vertex_key;

/* The same in steps, so that a reader can look a few lines ahead: the name's key, a prefetch
 * of its slot (the lookup's cache miss, taken while the reader parses on), the lookup. */
vertex_key vertex_names_key(const char *text, size_t len);
void vertex_names_prefetch(const vertex_names *names, vertex_key key);
int64_t vertex_names_id_keyed(vertex_names *names, const char *text, size_t len, vertex_key key);

size_t vertex_names_count(const vertex_names *names);
/* Name `id`'s bytes (its copy, followed by a '\0') and length. */
const char *vertex_names_at(const vertex_names *names, size_t id, size_t *len);

#endif
