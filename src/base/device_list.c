#include "base/device_list.h"
#include "base/fault.h"

#include <stdlib.h>
#include <string.h>

apsp_device_info *device_list_add(device_list *list) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 8;
        apsp_device_info *items = apsp_realloc(list->items, capacity * sizeof *items);
        if (!items)
            return NULL;
        list->items = items;
        list->capacity = capacity;
    }
    apsp_device_info *d = &list->items[list->count];
    memset(d, 0, sizeof *d);
    d->index = (int)list->count++;
    return d;
}

void device_list_free(device_list *list) {
    free(list->items);
    memset(list, 0, sizeof *list);
}
