/* The interface every compute backend implements. The dispatcher in solve.c picks one; nothing
 * outside a backend's own file knows how it works. */
#ifndef APSP_BACKEND_H
#define APSP_BACKEND_H

#include "apsp.h"

/* A growable array of device entries, filled by each backend's list(). */
typedef struct device_list {
    apsp_device_info *items;
    size_t count;
    size_t capacity;
} device_list;

/* Appends a zeroed entry whose index is its position; NULL when out of memory. */
apsp_device_info *device_list_add(device_list *list);

typedef struct apsp_backend_impl {
    const char *name;
    apsp_backend_kind kind;
    /* Appends this backend's devices to the list. Finding none is not an error. */
    apsp_status (*list)(device_list *list, apsp_error *error);
    /* Solves in place on the listed device `device` (one of this backend's entries). */
    apsp_status (*solve)(apsp_matrix *matrix, const apsp_options *options,
                         const apsp_device_info *device, apsp_report *report, apsp_error *error);
} apsp_backend_impl;

extern const apsp_backend_impl apsp_backend_cpu;
#ifdef APSP_HAVE_OPENCL
extern const apsp_backend_impl apsp_backend_opencl;
#endif

#endif
