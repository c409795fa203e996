/* See engine.h. */
#include "mpi/engine.h"
#include "base/error.h"
#include "devices/backends.h"

#include <stdio.h>
#include <string.h>

#ifdef APSP_HAVE_OPENCL
static int has_gpu(const device_list *list) {
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i].type, "gpu") == 0)
            return 1;
    return 0;
}

/* The devices -d names in `list`, else its GPUs, else its CPU devices; the rank's among them. */
static apsp_status choose_device(const apsp_options *options, int node_rank,
                                 const device_list *list, const apsp_device_info **info,
                                 char *choice, size_t size, apsp_error *error) {
    const apsp_device_info *chosen[MAX_DEVICES];
    size_t n = 0;
    if (options->device && *options->device) {
        apsp_status status =
            devices_select(list, APSP_BACKEND_OPENCL, options->device, chosen, &n, error);
        if (status != APSP_OK)
            return status;
    }
    for (int pass = 0; pass < 2 && n == 0; pass++)
        for (size_t i = 0; i < list->count && n < MAX_DEVICES; i++)
            if (strcmp(list->items[i].type, pass == 0 ? "gpu" : "cpu") == 0)
                chosen[n++] = &list->items[i];
    if (n == 0)
        return fail(error, APSP_ERR_NO_DEVICE, "no OpenCL GPU or CPU device was found");
    int position = node_rank % (int)n;
    *info = chosen[position];
    snprintf(choice, size, "; node rank %d takes %d of %zu", node_rank, position + 1, n);
    return APSP_OK;
}

/* The OpenCL engine on the rank's device, or *r left alone (auto without a GPU: the pthread
 * engine's turn). */
static apsp_status open_opencl(const apsp_options *options, unsigned threads, int node_rank,
                               rank_engine *r, apsp_error *error) {
    device_list list;
    const apsp_device_info *info = NULL;
    apsp_status status = devices_collect(&list, APSP_BACKEND_OPENCL, error);
    int wanted = options->backend == APSP_BACKEND_OPENCL || (status == APSP_OK && has_gpu(&list));
    if (options->backend == APSP_BACKEND_AUTO && !wanted)
        status = APSP_OK; /* no GPU (or no platform): the pthread engine */
    else if (status == APSP_OK)
        status =
            choose_device(options, node_rank, &list, &info, r->choice, sizeof r->choice, error);
    if (status == APSP_OK && info) {
        r->ops = backend_for(info)->blocks;
        r->opencl = 1;
        r->off_host = strcmp(info->type, "gpu") == 0 || strcmp(info->type, "accelerator") == 0;
        status = r->ops->open(info, options, threads, &r->blocks, error);
    }
    device_list_free(&list);
    return status;
}
#endif

apsp_status rank_engine_open(const apsp_options *options, unsigned threads, int node_rank,
                             rank_engine *r, apsp_error *error) {
    *r = (rank_engine){0};
#ifdef APSP_HAVE_OPENCL
    if (options->backend != APSP_BACKEND_CPU) {
        apsp_status status = open_opencl(options, threads, node_rank, r, error);
        if (status != APSP_OK || r->ops)
            return status;
    }
#else
    (void)node_rank;
#endif
    r->ops = backends_find(APSP_BACKEND_CPU)->blocks;
    return r->ops->open(NULL, options, threads, &r->blocks, error);
}

void rank_engine_close(rank_engine *r) {
    if (r->ops)
        r->ops->close(r->blocks);
    r->blocks = NULL;
}

void rank_engine_describe(const rank_engine *r, char *text, size_t size) {
    r->ops->describe(r->blocks, text, size);
    size_t used = strlen(text);
    snprintf(text + used, size - used, "%s", r->choice);
}
