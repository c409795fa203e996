/* Named vertices (CSV and TSV inputs): each distinct name gets the next id, in the order names
 * are first seen. Names point into the input's buffer where it holds them as they are; others
 * (quoted names with "" inside, names merged from another table) are copied into the table's
 * own memory. */
#ifndef APSP_VERTEX_NAMES_H
#define APSP_VERTEX_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct vertex_names vertex_names;

vertex_names *vertex_names_create(void);
void vertex_names_destroy(vertex_names *names); /* accepts NULL */

/* The id of the `len` bytes at text, added when new (copied first unless `stable`: text then
 * outlives the table). -1: out of memory; -2: INT32_MAX names already. */
int64_t vertex_names_id(vertex_names *names, const char *text, size_t len, int stable);

size_t vertex_names_count(const vertex_names *names);
/* Name `id`'s bytes and length; *stable: whether they live outside the table. */
const char *vertex_names_at(const vertex_names *names, size_t id, size_t *len, int *stable);

#endif
