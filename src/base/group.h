/* Items grouped by a key on the host's threads: a parallel counting sort (group.c). */
#ifndef APSP_GROUP_H
#define APSP_GROUP_H

#include <stddef.h>
#include <stdint.h>

/* Item i's group in [0, groups), or -1 to leave it out. */
typedef int64_t (*group_key_fn)(const void *context, size_t item);

/* Items [0, count) grouped by key_of: group g's are items[starts[g]] to items[starts[g + 1] - 1],
 * in increasing order, the same arrays whatever the thread count (up to `threads`, as
 * parallel_slices takes it). starts: groups + 1 entries; items: room for count. Returns 0, or
 * ENOMEM (nothing grouped). */
int group_by_key(size_t count, size_t groups, group_key_fn key_of, const void *context,
                 unsigned threads, size_t *starts, size_t *items);

/* `count` items of `size` bytes sorted by `order`: by insertion where there are few (most groups
 * of a sparse graph's rows), else by qsort. */
void sort_group(void *first, size_t count, size_t size, int (*order)(const void *, const void *));

#endif
