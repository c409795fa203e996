/* The options apsp and apsp-mpi both take, listed once: their spellings, whether they take a
 * value, and their getopt codes. Each command builds its getopt_long table from this list and
 * its own options (codes from OPT_OWN on), and applies them itself (main.c, mpi/main.c), since
 * what --backend or --threads means differs between one process and a grid of ranks. */
#ifndef APSP_CLI_SHARED_OPTIONS_H
#define APSP_CLI_SHARED_OPTIONS_H

#include <getopt.h>

/* X(NAME, HAS_ARG, CODE): NAME as given after --, HAS_ARG getopt's required_argument or
 * no_argument, CODE a short option's character or an OPT_* below. */
#define CLI_SHARED_OPTIONS(X)                                                                      \
    X("backend", required_argument, OPT_BACKEND)                                                   \
    X("device", required_argument, 'd')                                                            \
    X("threads", required_argument, OPT_THREADS)                                                   \
    X("tile", required_argument, OPT_TILE)                                                         \
    X("stats-json", no_argument, OPT_STATS_JSON)                                                   \
    X("quiet", no_argument, 'q')                                                                   \
    X("verbose", no_argument, 'v')                                                                 \
    X("help", no_argument, 'h')                                                                    \
    X("version", no_argument, OPT_VERSION)

enum { OPT_BACKEND = 256, OPT_THREADS, OPT_TILE, OPT_STATS_JSON, OPT_VERSION, OPT_OWN };

/* One getopt_long entry of the list. */
#define CLI_OPTION_ENTRY(name, has_arg, code) {name, has_arg, NULL, code},

#endif
