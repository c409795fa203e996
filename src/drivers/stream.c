/* A matrix larger than the device's memory, streamed through one device from host memory
 * (docs/design/opencl.md; backend.h says what each call does).
 *
 * The pivots go in super-rounds of K (a multiple of the round depth T, chosen by the backend
 * from the device's memory). In super-round [s, s + K) the K x n pivot rows R are closed on the
 * device (for pivots in the range, a cell in those rows needs only cells of R) and stay there;
 * every other row then passes through the device in blocks, each uploaded once, relaxed by
 * D = min(D, A (x) R) with A the block's own K pivot columns as they came (blocked Floyd-Warshall
 * with a K-deep tile; A needs no closing because R is closed: cl/fw.cl's header) and downloaded
 * once. A block also leaves behind its part of the next super-round's R, so the pivot rows of
 * super-round s + 1 are on the device when its blocks begin; the first super-round's are
 * uploaded before it. Per super-round that is 2 * c n^2 bytes over the bus (c bytes a cell)
 * against K n^2 relaxations: K / 2c relaxations per byte, which is why K is as large as the
 * memory allows.
 * Integer shortest-path distances are unique, so their bytes equal the in-core solve's; floating
 * point differs in the last bits, since the K-deep products associate a path's sum in other ways
 * than the in-core rounds do (docs/design/opencl.md, "Streaming from host memory"). */
#include "base/error.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "drivers/drivers.h"

#include <stdio.h>

typedef struct streamer {
    backend_device *device;
    apsp_matrix *matrix;
    const apsp_options *options;
    solve_geometry geometry;
    stream_shape shape;
    size_t most_blocks; /* blocks of the fullest super-round, for the report */
} streamer;

static size_t least(size_t a, size_t b) {
    return a < b ? a : b;
}

/* Asked between blocks: the caller's cancel function, which stops the solve when nonzero. The
 * blocks already queued finish in drive_stream's drain. */
static apsp_status go_on(const streamer *st, apsp_error *error) {
    const apsp_options *o = st->options;
    if (o->cancelled && o->cancelled(o->cancel_context))
        return fail(error, APSP_ERR_CANCELLED, "the streamed solve was cancelled");
    return APSP_OK;
}

/* Every row below `n` outside [skip_begin, skip_end) through the device, in blocks of at most
 * the shape's height that do not straddle the skipped range. */
static apsp_status stream_blocks(streamer *st, size_t n, size_t skip_begin, size_t skip_end,
                                 apsp_error *error) {
    const size_t height = st->shape.block_rows;
    size_t blocks = 0;
    apsp_status status = APSP_OK;
    for (size_t row = 0; row < n && status == APSP_OK; blocks++) {
        if (row == skip_begin && skip_end > skip_begin)
            row = skip_end;
        if (row >= n)
            break;
        size_t end = least(row + height, n);
        if (row < skip_begin)
            end = least(end, skip_begin);
        status = st->device->impl->stream->rows(st->device, st->matrix, row, end, error);
        if (status == APSP_OK)
            status = go_on(st, error);
        row = end;
    }
    if (blocks > st->most_blocks)
        st->most_blocks = blocks;
    return status;
}

/* Before the first super-round: its pivot rows up, in blocks. */
static apsp_status gather_first(streamer *st, apsp_error *error) {
    const size_t first = least(st->shape.pivots, st->geometry.n);
    apsp_status status =
        st->device->impl->stream->pivots(st->device, st->matrix, 0, 0, first, error);
    if (status == APSP_OK)
        status = stream_blocks(st, first, 0, 0, error);
    st->most_blocks = 0; /* the report counts the blocks of a super-round */
    return status;
}

static apsp_status run_super_rounds(streamer *st, apsp_error *error) {
    const size_t n = st->geometry.n, k = st->shape.pivots, tile = st->geometry.tile;
    apsp_status status = APSP_OK;
    for (size_t s = 0; s < n && status == APSP_OK; s += k) {
        const size_t count = least(k, n - s);
        const size_t next = s + count < n ? least(k, n - s - count) : 0;
        status = st->device->impl->stream->pivots(st->device, st->matrix, s, count, next, error);
        if (status == APSP_OK)
            status = stream_blocks(st, n, s, s + count, error);
        /* Every round of the super-round is done now: each is reported, as apsp.h promises. */
        for (size_t r = s / tile;
             status == APSP_OK && st->options->progress && r < (s + count) / tile; r++)
            st->options->progress(st->options->progress_context, r + 1, n / tile);
    }
    return status;
}

static void describe(const streamer *st, const stream_totals *totals, apsp_report *report) {
    device_summary summary;
    st->device->impl->summarize(st->device, &summary);
    snprintf(report->backend, sizeof report->backend, "%s",
             apsp_backend_name(st->device->impl->kind));
    snprintf(report->device, sizeof report->device, "%s", summary.device);
    report->program_builds += summary.program_builds;
    report->tile = summary.tile;
    report->threads = summary.threads;
    report->devices = 1;
    report->padded = st->geometry.n;
    report->streamed = 1;
    report->stream_pivots = st->shape.pivots;
    report->stream_blocks = st->most_blocks;
    report->stream_rows = st->shape.block_rows;
    report->stream_bytes_up = totals->bytes_up;
    report->stream_bytes_down = totals->bytes_down;
}

/* The geometry and the streaming shape, with room made on the device. */
static apsp_status arrange(streamer *st, size_t vertices, apsp_dtype dtype, apsp_error *error) {
    apsp_status status = st->device->impl->plan(st->device, vertices, dtype, &st->geometry, error);
    if (status == APSP_OK)
        status = st->device->impl->stream->prepare(st->device, &st->geometry, &st->shape, error);
    return status;
}

int drive_streams(backend_device *const *devices, size_t count, size_t vertices, apsp_dtype dtype) {
    solve_geometry g;
    apsp_error ignored;
    const apsp_backend_impl *impl = devices[0]->impl;
    return count == 1 && impl->stream &&
           impl->plan(devices[0], vertices, dtype, &g, &ignored) == APSP_OK &&
           !impl->stream->fits(devices[0], &g, g.n);
}

apsp_status drive_stream_check(backend_device *device, size_t vertices, apsp_dtype dtype,
                               const apsp_options *options, uint64_t *staging, apsp_error *error) {
    const apsp_backend_impl *impl = device->impl;
    streamer st = {.device = device, .options = options};
    apsp_status status = arrange(&st, vertices, dtype, error);
    *staging = status == APSP_OK ? st.shape.pinned_bytes : 0;
    impl->drain(device);
    impl->unload(device, 0); /* a streamed solve's buffers are its super-rounds': none kept */
    return status;
}

apsp_status drive_stream(backend_device *device, apsp_matrix *m, const apsp_options *options,
                         apsp_report *report, apsp_error *error) {
    const apsp_backend_impl *impl = device->impl;
    streamer st = {.device = device, .matrix = m, .options = options};
    stream_totals totals = {0, 0};
    double t0 = seconds_now();
    apsp_status status = arrange(&st, m->n, m->dtype, error);
    int negative = 0;
    if (status == APSP_OK) /* read only once the device said it can take it */
        status = matrix_check_cells(m, threads_of(options->threads), &negative, NULL, error);
    kernel_form form = {m->dtype, negative, 0}; /* streamed: the exact negative form */
    if (status == APSP_OK)
        status = impl->set_form(device, &form, error);
    double t1 = seconds_now();
    if (status == APSP_OK)
        status = gather_first(&st, error);
    double t2 = seconds_now();
    if (status == APSP_OK)
        status = run_super_rounds(&st, error);
    double t3 = seconds_now();
    if (status == APSP_OK)
        status = impl->stream->finish(device, m, &totals, error);
    if (status == APSP_OK && negative)
        status = matrix_check_cycles(m, error);
    double t4 = seconds_now();
    impl->drain(device);
    impl->unload(device, 0);
    if (status != APSP_OK || !report)
        return status;
    describe(&st, &totals, report);
    report->setup_seconds = t1 - t0;
    report->upload_seconds = t2 - t1;
    report->compute_seconds = t3 - t2;
    report->download_seconds = t4 - t3;
    return APSP_OK;
}
