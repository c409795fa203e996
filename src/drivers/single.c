/* One device holds the whole matrix: plan, load, the rounds, store. */
#include "base/util.h"
#include "drivers/drivers.h"

#include <stdio.h>
#include <string.h>

/* With progress, round r is waited on when round r + PROGRESS_LAG has been queued: the device
 * stays busy while the caller reports. */
enum { PROGRESS_LAG = 4 };

static apsp_status report_round(const apsp_backend_impl *impl, backend_device *device,
                                const apsp_options *options, size_t round, size_t rounds,
                                apsp_error *error) {
    apsp_status status = impl->wait_round(device, round, error);
    if (status == APSP_OK)
        options->progress(options->progress_context, round + 1, rounds);
    return status;
}

static apsp_status run_rounds(const apsp_backend_impl *impl, backend_device *device,
                              const solve_geometry *g, const apsp_options *options,
                              apsp_error *error) {
    const size_t rounds = g->n / g->tile;
    apsp_status status = APSP_OK;
    size_t reported = 0;
    for (size_t r = 0; r < rounds && status == APSP_OK; r++) {
        status = impl->close_pivot(device, r, error);
        if (status == APSP_OK)
            status = impl->relax(device, r, error);
        if (status == APSP_OK && options->progress && r >= PROGRESS_LAG)
            status = report_round(impl, device, options, reported++, rounds, error);
    }
    while (status == APSP_OK && options->progress && reported < rounds)
        status = report_round(impl, device, options, reported++, rounds, error);
    /* The rounds' time is the compute time: wait for the last one before the download. */
    if (status == APSP_OK && rounds > 0)
        status = impl->wait_round(device, rounds - 1, error);
    return status;
}

apsp_status drive_single(const apsp_backend_impl *impl, backend_device *device, apsp_matrix *m,
                         const apsp_options *options, apsp_report *report, apsp_error *error) {
    solve_geometry g;
    double t0 = seconds_now();
    apsp_status status = impl->plan(device, m->n, &g, error);
    double t1 = seconds_now();
    if (status == APSP_OK)
        status = impl->load(device, &g, m, 0, g.n, error);
    double t2 = seconds_now();
    if (status == APSP_OK)
        status = run_rounds(impl, device, &g, options, error);
    double t3 = seconds_now();
    if (status == APSP_OK)
        status = impl->store(device, m, error);
    double t4 = seconds_now();
    impl->unload(device);
    if (status != APSP_OK || !report)
        return status;
    device_summary summary;
    impl->summarize(device, &summary);
    snprintf(report->backend, sizeof report->backend, "%s", apsp_backend_name(impl->kind));
    snprintf(report->device, sizeof report->device, "%s", summary.device);
    report->padded = g.n;
    report->tile = summary.tile;
    report->threads = summary.threads;
    report->program_builds = summary.program_builds;
    report->setup_seconds = t1 - t0;
    report->upload_seconds = t2 - t1;
    report->compute_seconds = t3 - t2;
    report->download_seconds = t4 - t3;
    return APSP_OK;
}
