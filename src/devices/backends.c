/* The backends this build has, the combined device list, and choosing an entry from it. */
#include "devices/backends.h"
#include "base/error.h"
#include "base/util.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const apsp_backend_impl *const backends[] = {
#ifdef APSP_HAVE_OPENCL
    &apsp_backend_opencl,
#endif
    &apsp_backend_cpu,
};
enum { BACKEND_COUNT = sizeof backends / sizeof backends[0] };

/* The type words a device spec may be (apsp_device_info.type). */
static const char *const type_words[] = {"gpu", "cpu", "accelerator", "host"};
enum { TYPE_COUNT = sizeof type_words / sizeof type_words[0] };

apsp_status devices_collect(device_list *list, apsp_backend_kind only, apsp_error *error) {
    memset(list, 0, sizeof *list);
    for (size_t b = 0; b < BACKEND_COUNT; b++) {
        if (only != APSP_BACKEND_AUTO && backends[b]->kind != only)
            continue;
        apsp_status status = backends[b]->list(list, error);
        if (status != APSP_OK) {
            device_list_free(list);
            return status;
        }
    }
    return APSP_OK;
}

const apsp_backend_impl *backends_find(apsp_backend_kind kind) {
    for (size_t b = 0; b < BACKEND_COUNT; b++)
        if (backends[b]->kind == kind)
            return backends[b];
    return NULL;
}

const apsp_backend_impl *backend_for(const apsp_device_info *device) {
    return backends_find(device->backend);
}

static int accepts(apsp_backend_kind backend, const apsp_device_info *d) {
    return backend == APSP_BACKEND_AUTO || d->backend == backend;
}

static const apsp_device_info *first_of_type(const device_list *list, apsp_backend_kind backend,
                                             const char *type) {
    for (size_t i = 0; i < list->count; i++)
        if (accepts(backend, &list->items[i]) && strcmp(list->items[i].type, type) == 0)
            return &list->items[i];
    return NULL;
}

static int parse_index(const char *spec, size_t *index) {
    char *end;
    if (!isdigit((unsigned char)spec[0]))
        return -1;
    unsigned long long v = strtoull(spec, &end, 10);
    if (*end != '\0')
        return -1;
    *index = (size_t)v;
    return 0;
}

static const apsp_device_info *match_spec(const device_list *list, apsp_backend_kind backend,
                                          const char *spec) {
    size_t index;
    if (parse_index(spec, &index) == 0)
        return index < list->count && accepts(backend, &list->items[index]) ? &list->items[index]
                                                                            : NULL;
    for (size_t t = 0; t < TYPE_COUNT; t++) {
        const apsp_device_info *d;
        if (strcasecmp(spec, type_words[t]) == 0 &&
            (d = first_of_type(list, backend, type_words[t])))
            return d;
    }
    for (size_t i = 0; i < list->count; i++) {
        const apsp_device_info *d = &list->items[i];
        if (accepts(backend, d) &&
            (contains_ignoring_case(d->name, spec) || contains_ignoring_case(d->platform, spec)))
            return d;
    }
    return NULL;
}

/* A name substring that also matches a device of another name (PoCL's "pthread-..." and the
 * pthread backend for "pthread") would pick one of two different things silently: the other
 * one, or NULL when the spec is no name or matches one kind of device only. */
static const apsp_device_info *other_match(const device_list *list, apsp_backend_kind backend,
                                           const char *spec, const apsp_device_info *first) {
    size_t index;
    if (parse_index(spec, &index) == 0 || !first)
        return NULL;
    for (size_t t = 0; t < TYPE_COUNT; t++)
        if (strcasecmp(spec, type_words[t]) == 0)
            return NULL;
    for (size_t i = 0; i < list->count; i++) {
        const apsp_device_info *d = &list->items[i];
        if (accepts(backend, d) && strcmp(d->name, first->name) != 0 &&
            (contains_ignoring_case(d->name, spec) || contains_ignoring_case(d->platform, spec)))
            return d;
    }
    return NULL;
}

static const apsp_device_info *default_device(const device_list *list, apsp_backend_kind backend) {
    const apsp_device_info *gpu = first_of_type(list, backend, "gpu");
    if (gpu)
        return gpu;
    for (size_t i = 0; i < list->count; i++) {
        const apsp_device_info *d = &list->items[i];
        /* auto runs on the pthread backend rather than on an OpenCL CPU device. */
        if (accepts(backend, d) && (backend != APSP_BACKEND_AUTO || d->backend == APSP_BACKEND_CPU))
            return d;
    }
    return NULL;
}

/* "0: NVIDIA H100 (gpu), 1: CPU threads (host)" for error messages. */
static void describe_devices(const device_list *list, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < list->count && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%d: %s (%s)", i ? ", " : "",
                         list->items[i].index, list->items[i].name, list->items[i].type);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Every device of type `type` ("gpus" names every "gpu"): appended to chosen. */
static size_t all_of_type(const device_list *list, apsp_backend_kind backend, const char *type,
                          const apsp_device_info **chosen, size_t count) {
    for (size_t i = 0; i < list->count && count < MAX_DEVICES; i++)
        if (accepts(backend, &list->items[i]) && strcmp(list->items[i].type, type) == 0)
            chosen[count++] = &list->items[i];
    return count;
}

/* The devices one comma-separated item names, appended to chosen; the new count (unchanged
 * when it names none). */
static size_t match_item(const device_list *list, apsp_backend_kind backend, const char *item,
                         const apsp_device_info **chosen, size_t count, apsp_error *error) {
    static const char *const plurals[][2] = {
        {"gpus", "gpu"}, {"cpus", "cpu"}, {"accelerators", "accelerator"}};
    for (size_t p = 0; p < sizeof plurals / sizeof plurals[0]; p++)
        if (strcasecmp(item, plurals[p][0]) == 0)
            return all_of_type(list, backend, plurals[p][1], chosen, count);
    const apsp_device_info *d = match_spec(list, backend, item);
    const apsp_device_info *other = other_match(list, backend, item, d);
    if (other) {
        fail(error, APSP_ERR_USAGE,
             "-d %s matches device %d (%s) and device %d (%s): name one by its index", item,
             d->index, d->name, other->index, other->name);
        return SIZE_MAX;
    }
    if (d && count < MAX_DEVICES)
        chosen[count++] = d;
    return count;
}

static apsp_status no_match(const device_list *list, apsp_backend_kind backend, const char *spec,
                            apsp_error *error) {
    char known[640], why[sizeof list->missing + 4] = "";
    describe_devices(list, known, sizeof known);
    if (list->missing[0]) /* why the OpenCL devices may be missing */
        snprintf(why, sizeof why, " (%s)", list->missing);
    if (spec && *spec)
        return fail(error, APSP_ERR_NO_DEVICE, "no %s%sdevice matches '%s'; the devices are: %s%s",
                    backend == APSP_BACKEND_AUTO ? "" : apsp_backend_name(backend),
                    backend == APSP_BACKEND_AUTO ? "" : " ", spec, known, why);
    return fail(error, APSP_ERR_NO_DEVICE, "no usable %s device was found; the devices are: %s%s",
                apsp_backend_name(backend), known, why);
}

/* Several devices share a solve only when they are different devices of one backend. */
static apsp_status check_together(const apsp_device_info *const *chosen, size_t count,
                                  const char *spec, apsp_error *error) {
    for (size_t i = 1; i < count; i++) {
        if (chosen[i]->backend != chosen[0]->backend)
            return fail(error, APSP_ERR_USAGE,
                        "-d %s: devices %d (%s backend) and %d (%s backend) cannot share a solve",
                        spec, chosen[0]->index, apsp_backend_name(chosen[0]->backend),
                        chosen[i]->index, apsp_backend_name(chosen[i]->backend));
        for (size_t j = 0; j < i; j++)
            if (chosen[j] == chosen[i])
                return fail(error, APSP_ERR_USAGE, "-d %s: device %d is named twice", spec,
                            chosen[i]->index);
    }
    return APSP_OK;
}

apsp_status devices_select(const device_list *list, apsp_backend_kind backend, const char *spec,
                           const apsp_device_info **chosen, size_t *count, apsp_error *error) {
    *count = 0;
    if (!spec || !*spec) {
        chosen[0] = default_device(list, backend);
        *count = chosen[0] ? 1 : 0;
        return *count ? APSP_OK : no_match(list, backend, spec, error);
    }
    for (const char *item = spec; *item;) {
        size_t len = strcspn(item, ",");
        if (len == 0)
            return fail(error, APSP_ERR_USAGE, "-d %s: an empty item in the device list", spec);
        char word[256];
        snprintf(word, sizeof word, "%.*s", (int)len, item);
        size_t before = *count;
        size_t after = match_item(list, backend, word, chosen, *count, error);
        if (after == SIZE_MAX)
            return APSP_ERR_USAGE; /* ambiguous: the error says so */
        if (after == before)
            return no_match(list, backend, word, error);
        *count = after;
        item += len + (item[len] == ',');
    }
    return check_together(chosen, *count, spec, error);
}
