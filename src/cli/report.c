#include "report.h"
#include "json.h"
#include "message.h"

#include <stdio.h>
#include <time.h>

double cli_clock(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A terminal gets a line that rewrites itself twice a second; a log a line every few seconds. */
enum { TERMINAL_PERIOD_MS = 500, LOG_PERIOD_MS = 5000 };

int progress_line(progress *p, double now, size_t done, size_t total, char *line, size_t size) {
    double period = 1e-3 * (p->lines ? LOG_PERIOD_MS : TERMINAL_PERIOD_MS);
    if (p->first_time == 0.0) {
        p->first_time = now;
        p->first_done = done;
    }
    if (done < total && now - p->last_shown < period)
        return 0;
    p->last_shown = now;
    const char *unit = p->sources && total == p->sources ? "source" : "round";
    int used =
        snprintf(line, size, "apsp: %s %zu/%zu, %.1f s elapsed", unit, done, total, now - p->start);
    if (done > p->first_done && done < total) {
        double each = (now - p->first_time) / (double)(done - p->first_done);
        snprintf(line + used, size - (size_t)used, ", about %.1f s left",
                 each * (double)(total - done));
    } else if (done < total) {
        snprintf(line + used, size - (size_t)used, ", estimating the time left");
    }
    return 1;
}

void progress_show(void *context, size_t done, size_t total) {
    progress *p = context;
    char line[160];
    if (!progress_line(p, cli_clock(), done, total, line, sizeof line))
        return;
    fprintf(stderr, "%s%s%s", p->lines ? "" : "\r\033[K", line, p->lines ? "\n" : "");
    if (done == total && !p->lines)
        fputs("\r\033[K", stderr);
}

static double relax_per_second(const apsp_report *r) {
    double relax = (double)r->padded * (double)r->padded * (double)r->padded;
    return r->compute_seconds > 0 ? relax / r->compute_seconds : 0.0;
}

/* The run's time that no step above accounts for (the process's own start and end are outside
 * `total` as well): what to look into when the total exceeds the steps. */
static double other_seconds(const apsp_report *r, const run_times *t) {
    /* Chosen sources on a device (no padded matrix, no host threads): compute_s is the solve's
     * wall, its upload and download inside it. */
    int transfers_in_compute = r->padded == 0 && r->threads == 0;
    double transfers = transfers_in_compute ? 0.0 : r->upload_seconds + r->download_seconds;
    double steps = t->read + t->warm_up_waited + r->setup_seconds + transfers + r->compute_seconds +
                   r->release_seconds + r->whole_seconds + t->write + t->close +
                   (t->predecessors > 0 ? t->predecessors : 0.0);
    return t->total - steps;
}

void report_warm_up(const run_times *t) {
    if (t->warm_up > 0)
        message_print("apsp: OpenCL's platforms loaded in %.3f s while the input was read on "
                      "another thread, %.3f s past the read",
                      t->warm_up, t->warm_up_waited);
}

void report_print(size_t vertices, const apsp_report *r, const run_times *t) {
    message_print(
        "apsp: backend %s on %s; V = %zu padded to %zu; round depth %d; programs built %d",
        r->backend, r->device, vertices, r->padded, r->tile, r->program_builds);
    message_print("apsp: chosen by %s", r->choice);
    if (t->distances)
        message_print("apsp: distances %s", t->distances);
    message_print("apsp: kernels: %s (%.3f s choosing and converting)", r->kernels_why,
                  r->whole_seconds);
    message_print(
        "apsp: read %.3f s, setup %.3f s, upload %.3f s, compute %.3f s (%.2f G relax/s; "
        "overlapped %.3f s of output preparation), download %.3f s, release %.3f s, write %.3f s, "
        "close %.3f s, other %.3f s, total %.3f s",
        t->read, r->setup_seconds, r->upload_seconds, r->compute_seconds, relax_per_second(r) / 1e9,
        r->overlapped_seconds, r->download_seconds, r->release_seconds, t->write, t->close,
        other_seconds(r, t), t->total);
    report_warm_up(t);
    if (r->streamed)
        message_print(
            "apsp: streamed from host memory: %zu pivots per super-round (%zu super-rounds), "
            "%zu blocks of %zu rows per super-round; moved %.3f GB up, %.3f GB down",
            r->stream_pivots, (r->padded + r->stream_pivots - 1) / r->stream_pivots,
            r->stream_blocks, r->stream_rows, 1e-9 * (double)r->stream_bytes_up,
            1e-9 * (double)r->stream_bytes_down);
    if (t->predecessors >= 0)
        message_print("apsp: predecessors derived in %.3f s on the %s (%.1f%% of compute)",
                      t->predecessors, r->paths_on_device ? "device" : "host",
                      r->compute_seconds > 0 ? 100.0 * t->predecessors / r->compute_seconds : 0.0);
}

/* `text` as a JSON string: quotes and backslashes escaped, control characters as \u00XX. */
void report_json(size_t vertices, const apsp_report *r, const run_times *t) {
    fputs("{\"backend\":", stderr);
    json_write_string(stderr, r->backend);
    fputs(",\"device\":", stderr);
    json_write_string(stderr, r->device);
    fputs(",\"choice\":", stderr);
    json_write_string(stderr, r->choice);
    fputs(",\"method\":", stderr);
    json_write_string(stderr, r->method);
    fprintf(stderr,
            ",\"kernels\":\"%s\",\"whole_s\":%.6f,\"kernels_why\":", apsp_dtype_name(r->kernels),
            r->whole_seconds);
    json_write_string(stderr, r->kernels_why);
    fprintf(stderr,
            ",\"devices\":%d,\"vertices\":%zu,\"padded\":%zu,\"round_depth\":%d,\"threads\":%d,"
            "\"programs_built\":%d,\"read_s\":%.6f,\"setup_s\":%.6f,\"warm_up_s\":%.6f,"
            "\"warm_up_waited_s\":%.6f,"
            "\"upload_s\":%.6f,"
            "\"compute_s\":%.6f,\"overlapped_s\":%.6f,\"download_s\":%.6f,\"release_s\":%.6f,"
            "\"write_s\":%.6f,"
            "\"close_s\":%.6f,\"other_s\":%.6f,\"total_s\":%.6f,"
            "\"relax_per_s\":%.6g,\"streamed\":%s,\"stream_pivots\":%zu,\"stream_blocks\":%zu,"
            "\"stream_rows\":%zu,\"stream_bytes_up\":%llu,\"stream_bytes_down\":%llu",
            r->devices, vertices, r->padded, r->tile, r->threads, r->program_builds, t->read,
            r->setup_seconds, t->warm_up, t->warm_up_waited, r->upload_seconds, r->compute_seconds,
            r->overlapped_seconds, r->download_seconds, r->release_seconds, t->write, t->close,
            other_seconds(r, t), t->total, relax_per_second(r), r->streamed ? "true" : "false",
            r->stream_pivots, r->stream_blocks, r->stream_rows,
            (unsigned long long)r->stream_bytes_up, (unsigned long long)r->stream_bytes_down);
    if (t->predecessors >= 0)
        fprintf(stderr, ",\"predecessors_s\":%.6f,\"predecessors_on_device\":%s}\n",
                t->predecessors, r->paths_on_device ? "true" : "false");
    else
        fputs(",\"predecessors_s\":null}\n", stderr);
}
