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

/* The same in steps, so that a reader can look a few lines ahead: the name's hash, a prefetch
 * of its slot (the lookup's cache miss, taken while the reader parses on), the lookup. */
uint64_t vertex_names_hash(const char *text, size_t len);
void vertex_names_prefetch(const vertex_names *names, uint64_t hash);
int64_t vertex_names_id_hashed(vertex_names *names, const char *text, size_t len, uint64_t hash);

size_t vertex_names_count(const vertex_names *names);
/* Name `id`'s bytes (its copy, followed by a '\0') and length. */
const char *vertex_names_at(const vertex_names *names, size_t id, size_t *len);

#endif
