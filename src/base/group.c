/* The grouping of group.h: each group's items counted, then placed in the order the threads come
 * to them (an atomic cursor per group), then each group sorted back into increasing order. */
#include "base/group.h"
#include "base/fault.h"
#include "base/parallel.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct grouping {
    group_key_fn key_of;
    const void *context;
    atomic_size_t *cursor; /* per group: its items counted, then its next free slot */
    size_t *starts, *items;
} grouping;

static int count_items(void *context, size_t begin, size_t end) {
    const grouping *x = context;
    for (size_t i = begin; i < end; i++) {
        int64_t g = x->key_of(x->context, i);
        if (g >= 0)
            atomic_fetch_add_explicit(&x->cursor[g], 1, memory_order_relaxed);
    }
    return 0;
}

static int place_items(void *context, size_t begin, size_t end) {
    const grouping *x = context;
    for (size_t i = begin; i < end; i++) {
        int64_t g = x->key_of(x->context, i);
        if (g >= 0)
            x->items[atomic_fetch_add_explicit(&x->cursor[g], 1, memory_order_relaxed)] = i;
    }
    return 0;
}

static int by_index(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static int sort_groups(void *context, size_t begin, size_t end) {
    const grouping *x = context;
    for (size_t g = begin; g < end; g++)
        sort_group(x->items + x->starts[g], x->starts[g + 1] - x->starts[g], sizeof *x->items,
                   by_index);
    return 0;
}

void sort_group(void *first, size_t count, size_t size, int (*order)(const void *, const void *)) {
    unsigned char swap[64], *at = first;
    if (count > 16 || size > sizeof swap) { /* (a hub's many: insertion would be quadratic) */
        qsort(first, count, size, order);
        return;
    }
    for (size_t k = 1; k < count; k++)
        for (size_t j = k; j > 0 && order(at + (j - 1) * size, at + j * size) > 0; j--) {
            memcpy(swap, at + j * size, size);
            memcpy(at + j * size, at + (j - 1) * size, size);
            memcpy(at + (j - 1) * size, swap, size);
        }
}

int group_by_key(size_t count, size_t groups, group_key_fn key_of, const void *context,
                 unsigned threads, size_t *starts, size_t *items) {
    grouping x = {key_of, context, apsp_calloc(groups + 1, sizeof *x.cursor), starts, items};
    if (!x.cursor)
        return ENOMEM;
    unsigned working = threads_for_bytes(count * sizeof *items, threads);
    (void)parallel_slices(count, working, count_items, &x);
    starts[0] = 0;
    for (size_t g = 0; g < groups; g++) { /* each group's count becomes its cursor */
        size_t items_in = atomic_load_explicit(&x.cursor[g], memory_order_relaxed);
        atomic_store_explicit(&x.cursor[g], starts[g], memory_order_relaxed);
        starts[g + 1] = starts[g] + items_in;
    }
    (void)parallel_slices(count, working, place_items, &x);
    (void)parallel_slices(groups, working, sort_groups, &x);
    free(x.cursor);
    return 0;
}
