/* A growable array of device entries, filled by each backend's list(). */
#ifndef APSP_DEVICE_LIST_H
#define APSP_DEVICE_LIST_H

#include "apsp.h"

typedef struct device_list {
    apsp_device_info *items;
    size_t count;
    size_t capacity;
    /* Why a backend listed fewer devices than the machine may have ("" when nothing is known:
     * OpenCL's loader found no platform, a platform failed, too few file descriptors), for the
     * message of a selection that found none. */
    char missing[320];
} device_list;

/* Appends a zeroed entry whose index is its position; NULL when out of memory. */
apsp_device_info *device_list_add(device_list *list);
void device_list_free(device_list *list);

#endif
