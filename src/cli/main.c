/* The apsp command: `apsp INPUT OUTPUT` like the course binary, everything else an option. */
#include "apsp.h"
#include "cli.h"
#include "env_options.h"
#include "exit_status.h"
#include "message.h"
#include "paths.h"
#include "platforms.h"
#include "report.h"
#include "same_file.h"
#include "option_help.h"
#include "option_table.h"
#include "signals.h"
#include "startup.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage_error(const char *format, const char *arg) {
    char detail[sizeof((apsp_error *)0)->message];
    snprintf(detail, sizeof detail, format, arg);
    message_print("apsp: %s (see apsp --help)", detail);
    return exit_status_of(APSP_ERR_USAGE);
}

/* The option's value refused: its table entry's message. */
static int value_error(int code, const char *arg) {
    char message[256];
    option_value_message(option_by_code(FOR_APSP, code), arg, message, sizeof message);
    return usage_error("%s", message);
}

/* A whole number in the option's range (option_table.c). */
static int int_option(int code, const char *arg, int *out) {
    char message[256];
    if (option_int(option_by_code(FOR_APSP, code), arg, out, message, sizeof message) != 0)
        return usage_error("%s", message);
    return -1;
}

/* --input-format, --output-format: a format of that direction. */
static int parse_format(const char *arg, int output, apsp_format *format) {
    apsp_format f;
    if (apsp_format_parse(arg, &f) != 0 ||
        (output ? f != APSP_FORMAT_HW3 && f != APSP_FORMAT_NPY && f != APSP_FORMAT_TEXT &&
                      f != APSP_FORMAT_CSV && f != APSP_FORMAT_TSV
                : f == APSP_FORMAT_TEXT))
        return value_error(output ? OPT_OUTPUT_FORMAT : OPT_INPUT_FORMAT, arg);
    *format = f;
    return -1;
}

/* The options about the graph and the files. Returns -1 to go on, or an exit code. */
static int apply_format_option(cli *c, int opt, const char *arg) {
    int vertices, code;
    switch (opt) {
    case OPT_INPUT_FORMAT:
        return parse_format(arg, 0, &c->read.format);
    case OPT_OUTPUT_FORMAT:
        return parse_format(arg, 1, &c->output_format);
    case OPT_VERTICES:
        if ((code = int_option(opt, arg, &vertices)) < 0)
            c->read.vertices = (size_t)vertices;
        return code;
    case OPT_UNDIRECTED:
        c->read.flags |= APSP_GRAPH_UNDIRECTED;
        return -1;
    case OPT_COLUMNS:
        c->read.columns = arg;
        return -1;
    case OPT_LIMIT:
        c->limited = 1;
        return cli_parse_limit(arg, &c->limit) == 0 ? -1 : value_error(opt, arg);
    case OPT_DTYPE:
        if (apsp_dtype_parse(arg, &c->read.dtype) != 0)
            return value_error(opt, arg);
        c->read.dtype_auto = 0;
        return -1;
    }
    c->read.flags |= APSP_GRAPH_UNWEIGHTED;
    return -1;
}

/* --help (the common options) or --help=all. */
static int print_help(const char *arg) {
    if (arg && strcmp(arg, "all") != 0)
        return value_error('h', arg);
    help_print(stdout, FOR_APSP, arg != NULL);
    return EXIT_SUCCESS;
}

/* --kernel-params=help: the parameters, from the library's list (docs/usage.md's table is this). */
static int list_kernel_params(void) {
    size_t count;
    const apsp_kernel_param *params = apsp_kernel_params(&count);
    if (count == 0) {
        puts("this apsp was built without OpenCL: there are no kernel parameters");
        return EXIT_SUCCESS;
    }
    printf("| name | fallback | range | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < count; i++)
        printf("| %s | %d | %d-%d | %s |\n", params[i].name, params[i].fallback, params[i].least,
               params[i].most, params[i].meaning);
    return EXIT_SUCCESS;
}

/* One option from getopt_long. Returns -1 to go on, or an exit code. */
static int apply_option(cli *c, int opt, const char *arg) {
    apsp_options *o = &c->options;
    char message[256];
    int taken = option_apply_library(FOR_APSP, opt, arg, o, message, sizeof message);
    if (taken < 0)
        return usage_error("%s", message);
    c->device_named |= opt == 'd' || (opt == OPT_BACKEND && o->backend == APSP_BACKEND_OPENCL);
    if (taken)
        return -1;
    switch (opt) {
    case OPT_LIST:
        c->list_devices = 1;
        return -1;
    case OPT_MAX_BUFFER:
        return apsp_parse_bytes(arg, &o->max_buffer_bytes) == 0 ? -1 : value_error(opt, arg);
    case OPT_DEVICE_MEMORY:
        return apsp_parse_bytes(arg, &o->device_memory) == 0 ? -1 : value_error(opt, arg);
    case OPT_KERNEL_PARAMS:
        if (strcmp(arg, "help") == 0)
            return list_kernel_params();
        o->kernel_params = arg;
        return -1;
    case OPT_DEVICE_SHARES:
        o->device_shares = arg;
        return -1;
    case OPT_PROGRESS:
        c->progress_lines = 1;
        return -1;
    case OPT_STATS_JSON:
        c->stats_json = 1;
        return -1;
    case OPT_KERNEL_CACHE:
        o->kernel_cache = arg;
        return -1;
    case OPT_FLOAT_KERNELS:
        o->float_kernels = 1;
        return -1;
    case OPT_PREDECESSORS:
        c->paths.predecessors = arg;
        return -1;
    case OPT_SOURCES:
        return sources_parse(&c->sources, arg, message, sizeof message) == 0
                   ? -1
                   : usage_error("%s", message);
    case OPT_METHOD:
        return sources_parse_method(&c->sources, arg) == 0 ? -1 : value_error(opt, arg);
    case OPT_PATH:
        return paths_parse_path(&c->paths, arg) == 0 ? -1 : value_error(opt, arg);
    case 'q':
        c->quiet = 1;
        return -1;
    case 'v':
        c->verbose = 1;
        return -1;
    case 'h':
        return print_help(arg);
    case OPT_VERSION:
        printf("apsp %s\n", apsp_version());
        return EXIT_SUCCESS;
    case OPT_INPUT_FORMAT:
    case OPT_OUTPUT_FORMAT:
    case OPT_VERTICES:
    case OPT_UNDIRECTED:
    case OPT_UNWEIGHTED:
    case OPT_DTYPE:
    case OPT_COLUMNS:
    case OPT_LIMIT:
        return apply_format_option(c, opt, arg);
    }
    return -1;
}

/* What getopt_long refused: an unknown, ambiguous or valueless option. */
static int refused_option(int opt, const char *spelled) {
    char message[256], letter[3] = {'-', (char)optopt, '\0'};
    if (opt == '?' && optopt > 0 && optopt < 256) /* a short one, maybe inside -qx */
        spelled = letter;
    option_refused_message(FOR_APSP, opt, optopt, spelled, message, sizeof message);
    return usage_error("%s", message);
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, cli *c) {
    struct option longs[OPTION_TABLE_MAX];
    char shorts[32];
    option_getopt(FOR_APSP, longs, shorts, sizeof shorts);
    memset(c, 0, sizeof *c);
    apsp_options_init(&c->options);
    apsp_read_options_init(&c->read);
    c->read.dtype_auto = 1; /* the distances' type follows the weights unless --dtype says */
    opterr = 0;
    int opt, code;
    unsigned char seen[STARTUP_OPTION_CODES] = {0};
    while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const char *repeated = startup_repeated_option(longs, opt, seen);
        if (repeated)
            return usage_error("--%s is given twice: it takes one value", repeated);
        if (opt == '?' || opt == ':')
            return refused_option(opt, argv[optind - 1]);
        if ((code = apply_option(c, opt, optarg)) >= 0)
            return code;
    }
    if (c->list_devices)
        return optind == argc ? -1 : usage_error("--list-devices takes no files%s", "");
    if (argc - optind != 2)
        return usage_error("expected INPUT and OUTPUT, got %s",
                           argc - optind < 2 ? "fewer" : "more");
    c->input = argv[optind];
    c->output = argv[optind + 1];
    char message[256];
    if (env_options_apply(&c->options, &c->show_build, message, sizeof message) != 0)
        return usage_error("%s", message);
    c->read.threads = c->options.threads; /* one count for every parallel part, reading too */
    /* both named: the device's method (bellman-ford, johnson) runs there or is refused, never
     * on the host instead */
    c->options.sources_device_only =
        c->device_named && c->sources.method_given &&
        (c->sources.method == APSP_METHOD_BELLMAN_FORD || c->sources.method == APSP_METHOD_JOHNSON);
    return -1;
}

static int list_devices(void) {
    apsp_device_info *devices;
    size_t count;
    apsp_error err;
    apsp_status status = apsp_list_devices(&devices, &count, &err);
    if (status != APSP_OK) {
        message_print("apsp: %s", err.message);
        return exit_status_of(status);
    }
    for (size_t i = 0; i < count; i++) {
        const apsp_device_info *d = &devices[i];
        printf("%d: %s [%s] (%s backend)\n", d->index, d->name, d->type,
               apsp_backend_name(d->backend));
        printf("    platform: %s; driver: %s\n", d->platform, d->driver);
        printf("    compute units: %u; global memory: %llu MiB; max allocation: %llu MiB; "
               "local memory: %llu KiB; max work-group: %zu\n",
               d->compute_units, (unsigned long long)(d->global_memory >> 20),
               (unsigned long long)(d->max_allocation >> 20),
               (unsigned long long)(d->local_memory >> 10), d->max_work_group);
    }
    free(devices);
    char missing[2048];
    if (platforms_not_started(missing, sizeof missing))
        printf("not listed: %s\n", missing);
    return EXIT_SUCCESS;
}

/* The library's diagnostics: build logs and profiles, on stderr. */
static void log_to_stderr(void *context, apsp_log_level level, const char *message) {
    const cli *c = context;
    int shown = level == APSP_LOG_WARNING ? c->verbose : level != APSP_LOG_DEBUG || c->show_build;
    if (shown)
        message_print_lines("apsp: %s", message);
}

/* Whether a device spec names a device by its index (a list item of digits only). */
static int names_an_index(const char *spec) {
    for (const char *item = spec; item && *item; item += strcspn(item, ",")) {
        item += *item == ',';
        size_t digits = strspn(item, "0123456789");
        if (digits > 0 && (item[digits] == ',' || item[digits] == '\0'))
            return 1;
    }
    return 0;
}

/* A platform that did not start shifts the device indices and hides its devices: a selection
 * that failed says so, and an index is refused (it may name another device than the user saw in
 * --list-devices). Both mean the whole device list was asked for. */
static apsp_status explain_missing_platforms(const cli *c, apsp_status status, apsp_error *err) {
    int named_index = status == APSP_OK && names_an_index(c->options.device);
    if (c->options.backend == APSP_BACKEND_CPU || !(status == APSP_ERR_NO_DEVICE || named_index))
        return status;
    char missing[768];
    if (platforms_not_started(missing, sizeof missing) == 0)
        return status;
    if (status == APSP_ERR_NO_DEVICE) {
        size_t used = strlen(err->message);
        snprintf(err->message + used, sizeof err->message - used, " (%s)", missing);
        return status;
    }
    snprintf(err->message, sizeof err->message,
             "-d %s: %s, so device indices are not what --list-devices shows when it runs; name "
             "the device instead",
             c->options.device, missing);
    return err->status = APSP_ERR_NO_DEVICE;
}

/* -v: a run that went on without a platform says so. */
static void note_missing_platforms(const apsp_report *report) {
    char missing[768];
    if (report->opencl_listed && platforms_not_started(missing, sizeof missing) > 0)
        message_print("apsp: note: %s", missing);
}

/* "-" for a standard stream the caller closed (startup.h), refused before any file is opened:
 * it is /dev/null now. */
static apsp_status refuse_closed_streams(const cli *c, apsp_error *err) {
    const char *pred = c->paths.predecessors;
    const int closed = c->closed_streams;
    apsp_status status =
        startup_check_stream(closed, STDIN_FILENO, strcmp(c->input, "-") == 0, "stdin", err);
    if (status == APSP_OK)
        status =
            startup_check_stream(closed, STDOUT_FILENO, strcmp(c->output, "-") == 0, "stdout", err);
    if (status == APSP_OK)
        status = startup_check_stream(closed, STDOUT_FILENO, pred && strcmp(pred, "-") == 0,
                                      "--predecessors=-", err);
    if (status == APSP_OK)
        status =
            startup_check_stream(closed, STDOUT_FILENO, c->paths.path_spec != NULL, "--path", err);
    return status;
}

apsp_status cli_open_solver(cli *c, size_t vertices, size_t edges, apsp_solver **solver,
                            apsp_error *err) {
    double start = cli_clock();
    c->options.vertices_hint = vertices;
    if (c->sources.asked) {
        c->options.sources_hint = sources_count(&c->sources, vertices);
        c->options.edges_hint = edges;
    }
    apsp_status status = apsp_solver_create(&c->options, solver, err);
    c->open_seconds += cli_clock() - start;
    return explain_missing_platforms(c, status, err);
}

/* Binary bytes on a terminal would garble it (and may drive it): OUTPUT - or --predecessors=-
 * in a binary format with standard output a terminal is refused, with the way out. */
static apsp_status refuse_binary_terminal(const cli *c, apsp_error *err) {
    apsp_format format = c->output_format ? c->output_format : apsp_format_for(c->output, 1);
    int binary = format == APSP_FORMAT_HW3 || format == APSP_FORMAT_NPY;
    const char *pred = c->paths.predecessors;
    if (!isatty(STDOUT_FILENO))
        return APSP_OK;
    if (strcmp(c->output, "-") == 0 && binary)
        snprintf(err->message, sizeof err->message,
                 "OUTPUT -: standard output is a terminal and %s is binary: give "
                 "--output-format=text, or redirect it to a file",
                 apsp_format_name(format));
    else if (pred && strcmp(pred, "-") == 0)
        snprintf(err->message, sizeof err->message,
                 "--predecessors=-: standard output is a terminal and the predecessors are "
                 "binary: name a file, or redirect it");
    else
        return APSP_OK;
    return err->status = APSP_ERR_USAGE;
}

/* What can be refused before the input is read: the standard streams, the names, the output
 * path. The devices and options (the solver) follow once the graph's size is known
 * (cli_read_input), and the size on them before the matrix exists. */
static apsp_status prepare(cli *c, apsp_output **out, apsp_error *err) {
    apsp_status status = refuse_closed_streams(c, err);
    if (status == APSP_OK)
        status = refuse_binary_terminal(c, err);
    if (status == APSP_OK)
        status = cli_refuse_unwritten_names(c, err);
    const named_file files[] = {{c->input, "INPUT ", STDIN_FILENO},
                                {c->output, "OUTPUT ", STDOUT_FILENO},
                                {c->paths.predecessors, "--predecessors=", STDOUT_FILENO}};
    if (status == APSP_OK)
        status = refuse_same_files(files, sizeof files / sizeof files[0], err);
    if (status == APSP_OK)
        status = apsp_output_open(c->output, out, err);
    if (status == APSP_OK)
        status = paths_open(&c->paths, c->output, err);
    if (status == APSP_OK) {
        signals_watch_output(*out);
        apsp_output_set_log(*out, log_to_stderr, c);
        apsp_output_set_threads(*out, c->options.threads);
    }
    return status;
}

static int run(cli *c) {
    double t0 = cli_clock();
    apsp_error err = {0};
    apsp_output *out = NULL;
    apsp_solver *solver = NULL;
    apsp_graph *g = NULL;
    apsp_report report;
    memset(&report, 0, sizeof report); /* (device_declined is read after any run) */
    run_times times = {0};
    progress prog = {.start = t0};
    if (c->progress_lines || (!c->quiet && isatty(STDERR_FILENO))) {
        prog.lines = c->progress_lines;
        c->options.progress = progress_show;
        c->options.progress_context = &prog;
        c->sources.shown = &prog;
    }
    c->options.log = log_to_stderr;
    c->options.log_context = c;
    apsp_status status = prepare(c, &out, &err);
    double t1 = cli_clock();
    if (status == APSP_OK)
        status = cli_read_input(c, &solver, &g, &err);
    times.read = cli_clock() - t1 - c->open_seconds;
    if (status == APSP_OK) {
        status = cli_solve_and_write(c, solver, g, out, &report, &times, &err);
        out = NULL;
    }
    apsp_output_abort(out);
    paths_release(&c->paths);
    sources_release(&c->sources);
    signals_watch_output(NULL);
    double closing = cli_clock();
    apsp_solver_destroy(solver);
    times.close = cli_clock() - closing;
    times.total = cli_clock() - t0;
    size_t vertices = g ? g->vertices : 0;
    apsp_graph_destroy(g);
    times.predecessors = c->paths.seconds;
    times.warm_up = c->platform_seconds;
    times.warm_up_waited = c->platform_waited;
    times.distances = c->distances;
    if (c->device_named)
        sources_say_declined(c->input, &report, status, &err);
    if (status == APSP_OK && c->verbose && c->sources.asked)
        sources_report(vertices, &report, &times);
    else if (status == APSP_OK && c->verbose) {
        report_print(vertices, &report, &times);
        note_missing_platforms(&report);
    }
    if (status == APSP_OK && c->stats_json)
        report_json(vertices, &report, &times);
    if (status != APSP_OK) {
        message_print("apsp: %s", err.message);
        return exit_status_of(status);
    }
    return EXIT_SUCCESS;
}

int main(int argc, char **argv) {
    int closed = startup_reserve_streams();
    if (closed < 0) {
        message_print("apsp: a standard stream is closed and /dev/null cannot be opened in its "
                      "place: %s",
                      strerror(errno));
        return exit_status_of(APSP_ERR_OUTPUT);
    }
    cli c;
    int code = parse_args(argc, argv, &c);
    if (code >= 0 || c.list_devices) /* an option's error, or nothing to solve */
        sources_release(&c.sources);
    if (code >= 0)
        return code;
    c.closed_streams = closed;
    if (c.list_devices)
        return list_devices();
    signals_install();
    return run(&c);
}
