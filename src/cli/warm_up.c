/* The read beside the platforms' load (warm_up.h). The ICD loader enumerates its vendors once a
 * process and the vendors start their platforms once; the listing after that is cheap. */
#include "warm_up.h"

#include "report.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct reading {
    const char *input;
    const apsp_read_options *options;
    apsp_graph *graph;
    apsp_status status;
    apsp_error error;
    double done; /* cli_clock() when the read ended */
} reading;

static void *read_graph(void *context) {
    reading *r = context;
    r->status = apsp_read_graph(r->input, r->options, &r->graph, &r->error);
    r->done = cli_clock();
    return NULL;
}

apsp_status warm_up_read(const char *input, const apsp_read_options *options, int load_platforms,
                         apsp_graph **graph, double *platform_seconds, double *waited,
                         apsp_error *error) {
    *platform_seconds = *waited = 0.0;
    reading r = {.input = input, .options = options};
    pthread_t thread;
    if (!load_platforms || pthread_create(&thread, NULL, read_graph, &r) != 0)
        return apsp_read_graph(input, options, graph, error);
    double start = cli_clock();
    apsp_device_info *devices = NULL;
    size_t count = 0;
    apsp_error ignored;
    (void)apsp_list_devices(&devices, &count, &ignored);
    free(devices);
    double loaded = cli_clock();
    *platform_seconds = loaded - start;
    pthread_join(thread, NULL);
    *waited = loaded > r.done ? loaded - r.done : 0.0;
    *graph = r.graph;
    if (r.status != APSP_OK)
        *error = r.error;
    return r.status;
}
