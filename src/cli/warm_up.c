/* The read beside the devices' start (warm_up.h). The ICD loader enumerates its vendors once a
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

void warm_up_list_platforms(void *unused) {
    (void)unused;
    apsp_device_info *devices = NULL;
    size_t count = 0;
    apsp_error ignored;
    (void)apsp_list_devices(&devices, &count, &ignored);
    free(devices);
}

apsp_status warm_up_read(const char *input, const apsp_read_options *options,
                         void (*beside)(void *context), void *context, apsp_graph **graph,
                         double *beside_seconds, double *waited, apsp_error *error) {
    *beside_seconds = *waited = 0.0;
    reading r = {.input = input, .options = options};
    pthread_t thread;
    int threaded = beside && pthread_create(&thread, NULL, read_graph, &r) == 0;
    if (!threaded) {
        if (beside)
            beside(context);
        return apsp_read_graph(input, options, graph, error);
    }
    double start = cli_clock();
    beside(context);
    double finished = cli_clock();
    *beside_seconds = finished - start;
    pthread_join(thread, NULL);
    *waited = finished > r.done ? finished - r.done : 0.0;
    *graph = r.graph;
    if (r.status != APSP_OK)
        *error = r.error;
    return r.status;
}
