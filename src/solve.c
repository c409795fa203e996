/* The library's entry points that span backends: listing devices and solving. */
#include "devices.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

apsp_status apsp_list_devices(apsp_device_info **devices, size_t *count, apsp_error *error) {
    device_list list;
    apsp_status status = devices_collect(&list, error);
    *devices = status == APSP_OK ? list.items : NULL;
    *count = status == APSP_OK ? list.count : 0;
    return status;
}

apsp_status apsp_solve(apsp_matrix *matrix, const apsp_options *options, apsp_report *report,
                       apsp_error *error) {
    apsp_options defaults;
    if (!options) {
        apsp_options_init(&defaults);
        options = &defaults;
    }
    if (report)
        memset(report, 0, sizeof *report);
    /* $APSP_DEVICE picks among devices; it does not override an explicit --backend=cpu. */
    const char *spec = options->device;
    if (!spec && options->backend != APSP_BACKEND_CPU)
        spec = getenv("APSP_DEVICE");

    device_list list;
    apsp_status status = devices_collect(&list, error);
    if (status != APSP_OK)
        return status;
    const apsp_device_info *device;
    status = devices_select(&list, options->backend, spec, &device, error);
    if (status == APSP_OK) {
        const apsp_backend_impl *impl = backend_for(device);
        status = impl ? impl->solve(matrix, options, device, report, error)
                      : fail(error, APSP_ERR_INTERNAL, "no backend runs device %d", device->index);
    }
    devices_free(&list);
    return status;
}
