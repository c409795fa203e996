/* The grouping of group.h: each group's items counted, then placed in the order the threads come
 * to them (an atomic cursor per group), then each group sorted back into increasing order. */
#include "base/group.h"
#include "base/fault.h"
#include "base/parallel.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

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
    for (size_t g = begin; g < end; g++) {
        size_t *first = x->items + x->starts[g], count = x->starts[g + 1] - x->starts[g];
        if (count > 16) { /* (a hub's many: insertion would be quadratic) */
            qsort(first, count, sizeof *first, by_index);
            continue;
        }
        for (size_t k = 1; k < count; k++)
            for (size_t j = k; j > 0 && first[j - 1] > first[j]; j--) {
                size_t swap = first[j];
                first[j] = first[j - 1], first[j - 1] = swap;
            }
    }
    return 0;
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
