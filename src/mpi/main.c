/* apsp-mpi: `mpirun -np P apsp-mpi [OPTIONS] INPUT OUTPUT`, the apsp command over a Pr x Pc grid
 * of MPI ranks (grid.h). The same arguments where they apply and the same output bytes as apsp.
 *
 * Every phase ends in a collective agreement on its status (agree.h): a rank that fails (bad
 * input, bad output path, out of memory) makes every rank stop at the same point, rank 0 prints
 * the one error line, every rank exits with the same code, and no output file appears. */
#include "apsp.h"
#include "base/error.h"
#include "base/util.h"
#include "env_options.h"
#include "exit_status.h"
#include "message.h"
#include "option_help.h"
#include "option_table.h"
#include "mpi/agree.h"
#include "mpi/grid.h"
#include "mpi/io.h"
#include "mpi/engine.h"
#include "mpi/report.h"
#include "mpi/rounds.h"
#include "signals.h"
#include "startup.h"

#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cli {
    apsp_options options;
    const char *input, *output;
    int rows, cols; /* --grid; 0: automatic */
    int verbose, stats_json;
    int no_look_ahead; /* --no-look-ahead: the plain synchronous rounds */
    int help_all;      /* --help=all */
} cli;

/* The option's value refused: its table entry's message. */
static apsp_status value_error(int code, const char *arg, apsp_error *error) {
    char message[256];
    option_value_message(option_by_code(FOR_MPI, code), arg, message, sizeof message);
    return fail(error, APSP_ERR_USAGE, "%s", message);
}

/* One option. Returns APSP_OK to go on, or the status to stop with (APSP_OK-like stop for
 * --help and --version is *done). */
static apsp_status apply_option(cli *c, int opt, const char *arg, int *done, apsp_error *error) {
    char message[256];
    int taken = option_apply_library(FOR_MPI, opt, arg, &c->options, message, sizeof message);
    if (taken < 0)
        return fail(error, APSP_ERR_USAGE, "%s", message);
#ifndef APSP_HAVE_OPENCL
    if (opt == OPT_BACKEND && c->options.backend == APSP_BACKEND_OPENCL)
        return fail(error, APSP_ERR_USAGE,
                    "--backend=%s: this apsp-mpi was built without OpenCL; expected %s or %s", arg,
                    apsp_backend_name(APSP_BACKEND_AUTO), apsp_backend_name(APSP_BACKEND_CPU));
#endif
    if (taken)
        return APSP_OK;
    switch (opt) {
    case OPT_GRID:
        return grid_parse(arg, &c->rows, &c->cols) == 0 ? APSP_OK : value_error(opt, arg, error);
    case OPT_STATS_JSON:
        c->stats_json = 1;
        return APSP_OK;
    case OPT_NO_LOOK_AHEAD:
        c->no_look_ahead = 1;
        return APSP_OK;
    case 'q':
        return APSP_OK;
    case 'v':
        c->verbose = 1;
        return APSP_OK;
    case 'h':
        if (arg && strcmp(arg, "all") != 0)
            return value_error(opt, arg, error);
        c->help_all = arg != NULL;
        *done = opt;
        return APSP_OK;
    case OPT_VERSION:
        *done = opt;
        return APSP_OK;
    }
    return APSP_OK;
}

/* What getopt_long refused: an unknown, ambiguous or valueless option. */
static apsp_status refused_option(int opt, const char *spelled, apsp_error *error) {
    char message[256], letter[3] = {'-', (char)optopt, '\0'};
    if (opt == '?' && optopt > 0 && optopt < 256) /* a short one, maybe inside -qx */
        spelled = letter;
    option_refused_message(FOR_MPI, opt, optopt, spelled, message, sizeof message);
    return fail(error, APSP_ERR_USAGE, "%s", message);
}

/* The same answer on every rank: each parses the same arguments. */
static apsp_status parse_args(int argc, char **argv, cli *c, int *done, apsp_error *error) {
    struct option longs[OPTION_TABLE_MAX];
    char shorts[32];
    option_getopt(FOR_MPI, longs, shorts, sizeof shorts);
    memset(c, 0, sizeof *c);
    apsp_options_init(&c->options);
    opterr = 0;
    int opt;
    unsigned char seen[STARTUP_OPTION_CODES] = {0};
    while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const char *repeated = startup_repeated_option(longs, opt, seen);
        if (repeated)
            return fail(error, APSP_ERR_USAGE, "--%s is given twice: it takes one value", repeated);
        if (opt == '?' || opt == ':')
            return refused_option(opt, argv[optind - 1], error);
        apsp_status status = apply_option(c, opt, optarg, done, error);
        if (status != APSP_OK || *done)
            return status;
    }
    if (argc - optind != 2)
        return fail(error, APSP_ERR_USAGE, "expected INPUT and OUTPUT, got %s",
                    argc - optind < 2 ? "fewer" : "more");
    c->input = argv[optind];
    c->output = argv[optind + 1];
    if (strcmp(c->output, "-") == 0)
        return fail(error, APSP_ERR_USAGE,
                    "OUTPUT -: apsp-mpi cannot write standard output, which cannot take its "
                    "ranks' writes at their offsets; name a file (./- for one named -)");
    int show_build;
    char message[256];
    if (env_options_apply(&c->options, &show_build, message, sizeof message) != 0)
        return fail(error, APSP_ERR_USAGE, "%s", message);
    return APSP_OK;
}

/* This rank's index among its node's ranks, and their number. */
static void node_place(const grid *g, int *node_rank, int *node_ranks) {
    MPI_Comm node;
    MPI_Comm_split_type(g->world, MPI_COMM_TYPE_SHARED, g->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, node_rank);
    MPI_Comm_size(node, node_ranks);
    MPI_Comm_free(&node);
}

/* The node's cores shared among the node's ranks, within this rank's CPU affinity (mpirun
 * binds ranks to cores unless told --bind-to none). */
static unsigned default_threads(int node_ranks) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned share = cores > node_ranks ? (unsigned)(cores / node_ranks) : 1;
    unsigned mine = online_cores();
    return share < mine ? share : mine;
}

/* The engine's diagnostics (APSP_PROFILE=1: where the rounds' time went), each rank's on its
 * own lines; a warning (a kernel cache not trusted: it costs a compile, not the result) only
 * under -v, as apsp shows it. */
typedef struct rank_log {
    const grid *g;
    int verbose;
} rank_log;

static void log_to_stderr(void *context, apsp_log_level level, const char *message) {
    const rank_log *log = context;
    int shown = level == APSP_LOG_WARNING ? log->verbose : level != APSP_LOG_DEBUG;
    if (shown)
        message_print_lines("apsp-mpi: rank %d: %s", log->g->rank, message);
}

/* Whether the output's pages are faulted in beside the rounds (io_output_prepare), as apsp
 * prepares its own (apsp_options.overlap, APSP_OVERLAP): where the engine's device is off the
 * host, whose cores its rounds leave idle, or beside any OpenCL device when asked for; never
 * beside the pthread engine, whose rounds take every core. */
static int beside_rounds(const apsp_options *options, const rank_engine *engine) {
    return options->overlap >= 0 && (engine->off_host || (options->overlap > 0 && engine->opencl));
}

/* The solve proper, after the output file exists: read, rounds, write. */
static apsp_status solve(const cli *c, const grid *g, mpi_output *out, run_report *r, layout *l,
                         apsp_error *error) {
    int32_t *local = NULL;
    rank_engine engine = {0};
    round_buffers buffers = {0};
    int node_rank = 0, node_ranks = 1;
    node_place(g, &node_rank, &node_ranks);
    unsigned threads =
        c->options.threads > 0 ? (unsigned)c->options.threads : default_threads(node_ranks);
    apsp_options options = c->options;
    rank_log log = {g, c->verbose};
    options.log = log_to_stderr;
    options.log_context = &log;
    apsp_status status = io_read_distribute(g, c->input, threads, l, &local, &r->input, error);
    if (status == APSP_OK)
        status = io_output_reserve(g, out, l->vertices, error);
    if (status == APSP_OK) {
        status = rank_engine_open(&options, threads, node_rank, &engine, error);
        if (status == APSP_OK)
            status = engine.ops->load(engine.blocks, &(block_shape){l->block_rows, l->block_cols},
                                      local, error);
        if (status == APSP_OK)
            status = round_buffers_prepare(l, engine.ops, engine.blocks, &buffers, error);
        status = agree(g->world, status, error);
    }
    if (status == APSP_OK)
        status = io_output_prepare(g, out, l, threads, beside_rounds(&options, &engine), error);
    if (status == APSP_OK) {
        const backend_blocks *ops = engine.ops;
        rank_engine_describe(&engine, r->engine, sizeof r->engine);
        double t0 = MPI_Wtime();
        rounds_run(g, l, ops, engine.blocks, &buffers, !c->no_look_ahead, &r->rounds);
        double t1 = MPI_Wtime(); /* the engines wait for their device at the last round's end */
        r->overlapped_seconds = io_output_stop_preparing(out, seconds_now());
        status = agree(g->world, ops->store(engine.blocks, local, error), error);
        r->rounds_seconds = t1 - t0;
        r->store_seconds = MPI_Wtime() - t1;
        if (status == APSP_OK && options.profile && ops->log_profile)
            ops->log_profile(engine.blocks, l->blocks, r->rounds_seconds);
    }
    /* the engine's memory: it waits for the device */
    round_buffers_release(engine.ops, engine.blocks, &buffers);
    rank_engine_close(&engine);
    if (status == APSP_OK) {
        double t0 = MPI_Wtime();
        status = io_output_commit(g, out, l, local, &r->mapped, error);
        r->write_seconds = MPI_Wtime() - t0;
    }
    free(local);
    return status;
}

static apsp_status run(const cli *c, const grid *g, apsp_error *error) {
    double t0 = MPI_Wtime();
    run_report r = {0};
    layout l;
    mpi_output out;
    apsp_status status = io_output_open(g, c->output, &out, error);
    if (status == APSP_OK)
        status = solve(c, g, &out, &r, &l, error);
    io_output_abort(g, &out);
    r.total_seconds = MPI_Wtime() - t0;
    if (status == APSP_OK && (c->verbose || c->stats_json))
        report_print(g, &l, &r, c->verbose, c->stats_json);
    return status;
}

/* A test's fault or pause (APSP_FAULT, APSP_FAULT_PAUSE, -Dfault_injection=true) hits only rank
 * APSP_FAULT_RANK, if set. */
static void aim_fault(int rank) {
    const char *aim = getenv("APSP_FAULT_RANK");
    if (aim && atoi(aim) != rank) {
        unsetenv("APSP_FAULT");
        unsetenv("APSP_FAULT_PAUSE");
    }
}

int main(int argc, char **argv) {
    int streams = startup_reserve_streams(); /* before MPI opens anything */
    int streams_errno = errno;
    /* Before MPI starts its threads, which then keep the signals blocked for signals.c's own
     * thread: SIGTERM (mpirun's, when it is interrupted or a rank dies) removes the temporary
     * output file, as in apsp. */
    signals_install();
    int provided; /* only the main thread calls MPI; the pool's threads never do */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    aim_fault(rank);
    cli c;
    int done = 0;
    apsp_error error = {0};
    apsp_status status =
        streams < 0 ? fail(&error, APSP_ERR_OUTPUT,
                           "a standard stream is closed and /dev/null cannot be opened in its "
                           "place: %s",
                           strerror(streams_errno))
                    : parse_args(argc, argv, &c, &done, &error);
    grid g = {.row = MPI_COMM_NULL, .col = MPI_COMM_NULL};
    if (status == APSP_OK && !done) {
        if (!c.rows)
            grid_auto(size, &c.rows, &c.cols);
        status = grid_create(MPI_COMM_WORLD, c.rows, c.cols, &g, &error);
    }
    if (status == APSP_OK && !done)
        status = run(&c, &g, &error);
    grid_destroy(&g);
    if (rank == 0 && done == 'h')
        help_print(stdout, FOR_MPI, c.help_all);
    if (rank == 0 && done == OPT_VERSION)
        printf("apsp-mpi %s\n", apsp_version());
    if (rank == 0 && status != APSP_OK)
        message_print("apsp-mpi: %s%s", error.message,
                      status == APSP_ERR_USAGE ? " (see apsp-mpi --help)" : "");
    MPI_Finalize();
    return exit_status_of(status);
}
