/* Streaming's profile (options->profile, stream.c): each engine's busy time, how long two or
 * three of them ran at once, and a timeline of the first blocks, from the recorded events. */
#include "base/log.h"
#include "opencl/device.h"
#include "opencl/stream_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TIMELINE_LINES = 12 };

/* A command's device times in seconds; 0 when it has none. */
static void span_of(cl_event event, double *start, double *end) {
    cl_ulong a = 0, b = 0;
    *start = *end = 0;
    if (event &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) ==
            CL_SUCCESS) {
        *start = 1e-9 * (double)a;
        *end = 1e-9 * (double)b;
    }
}

enum { ENGINES = 3 };
static const char *const engine_names[ENGINES] = {"up", "kernels", "down"};

typedef struct edge {
    double at;
    int engine, delta;
} edge;

static int by_time(const void *a, const void *b) {
    const edge *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at ? 1 : x->delta - y->delta;
}

/* Sweeps the engines' busy intervals: the time each was busy, two or more at once, all three. */
static void sweep(edge *edges, size_t count, double busy[ENGINES], double *two, double *three) {
    qsort(edges, count, sizeof *edges, by_time);
    int active[ENGINES] = {0}, engines = 0;
    for (size_t i = 0; i + 1 < count; i++) {
        int e = edges[i].engine;
        engines += (active[e] == 0 && edges[i].delta > 0) - (active[e] == 1 && edges[i].delta < 0);
        active[e] += edges[i].delta;
        double dt = edges[i + 1].at - edges[i].at;
        for (int k = 0; k < ENGINES; k++)
            busy[k] += active[k] > 0 ? dt : 0;
        *two += engines >= 2 ? dt : 0;
        *three += engines == 3 ? dt : 0;
    }
}

/* The profile: each engine's busy time and rate, the overlap, and the first blocks' timeline. */
void stream_log_overlap(const cl_device *d) {
    const cl_stream *s = &d->stream;
    edge *edges = apsp_calloc(6 * s->record_count + 1, sizeof *edges);
    if (!edges || s->record_count == 0) {
        free(edges);
        return;
    }
    size_t count = 0;
    double origin = 0, last = 0;
    for (size_t i = 0; i < s->record_count; i++) {
        const cl_stream_record *r = &s->records[i];
        double a[ENGINES][2];
        double ignored;
        span_of(r->up, &a[0][0], &a[0][1]);
        span_of(r->first, &a[1][0], &ignored); /* the kernels run from the first to the last */
        span_of(r->last, &ignored, &a[1][1]);
        span_of(r->down, &a[2][0], &a[2][1]);
        for (int e = 0; e < ENGINES; e++) {
            if (a[e][1] <= 0)
                continue;
            origin = origin == 0 || a[e][0] < origin ? a[e][0] : origin;
            last = a[e][1] > last ? a[e][1] : last;
            edges[count++] = (edge){a[e][0], e, 1};
            edges[count++] = (edge){a[e][1], e, -1};
        }
    }
    double busy[ENGINES] = {0}, two = 0, three = 0, wall = last - origin;
    sweep(edges, count, busy, &two, &three);
    free(edges);
    log_message(d->options, APSP_LOG_INFO,
                "stream profile, %zu blocks over %.4f s of device time: up busy %.4f s (%.2f "
                "GB/s), kernels %.4f s, down %.4f s (%.2f GB/s); two or more at once %.4f s "
                "(%.0f%%), all three %.4f s",
                s->record_count, wall, busy[0], busy[0] > 0 ? 1e-9 * s->bytes_up / busy[0] : 0,
                busy[1], busy[2], busy[2] > 0 ? 1e-9 * s->bytes_down / busy[2] : 0, two,
                wall > 0 ? 100 * two / wall : 0, three);
}

/* The first super-round's first blocks (after the gathering pass, which has no downloads),
 * each engine's interval in ms from the first of them. */
void stream_log_timeline(const cl_device *d) {
    const cl_stream *s = &d->stream;
    size_t from = 0;
    while (from + 1 < s->record_count && !s->records[from].down)
        from++;
    double origin = 0, ignored;
    const cl_stream_record *head = &s->records[from];
    span_of(head->up ? head->up : head->first, &origin, &ignored);
    for (size_t i = from; i < s->record_count && i < from + TIMELINE_LINES; i++) {
        const cl_stream_record *r = &s->records[i];
        char text[256];
        size_t used = (size_t)snprintf(
            text, sizeof text, "stream timeline, rows %zu-%zu:", r->row_begin, r->row_end - 1);
        cl_event starts[ENGINES] = {r->up, r->first, r->down};
        cl_event ends[ENGINES] = {r->up, r->last, r->down};
        for (int e = 0; e < ENGINES && used < sizeof text; e++) {
            double a, b;
            span_of(starts[e], &a, &ignored);
            span_of(ends[e], &ignored, &b);
            if (starts[e])
                used += (size_t)snprintf(text + used, sizeof text - used, " %s %.3f-%.3f ms",
                                         engine_names[e], 1e3 * (a - origin), 1e3 * (b - origin));
        }
        log_message(d->options, APSP_LOG_INFO, "%s", text);
    }
}
