/* The OpenCL platforms loaded beside the read (warm_up.h). The ICD loader enumerates its vendors
 * once a process and the vendors start their platforms once; the listing after that is cheap. */
#include "warm_up.h"

#include "apsp.h"
#include "report.h"

#include <stdlib.h>

static void *load_platforms(void *context) {
    warm_up *w = context;
    double start = cli_clock();
    apsp_device_info *devices = NULL;
    size_t count = 0;
    apsp_error error;
    (void)apsp_list_devices(&devices, &count, &error);
    free(devices);
    w->seconds = cli_clock() - start;
    return NULL;
}

void warm_up_start(warm_up *w) {
    w->seconds = 0.0;
    w->started = pthread_create(&w->thread, NULL, load_platforms, w) == 0;
}

void warm_up_join(warm_up *w) {
    if (!w->started)
        return;
    pthread_join(w->thread, NULL);
    w->started = 0;
}
