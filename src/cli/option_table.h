/* The options of apsp and apsp-mpi, listed once (option_table.c): each one's spelling, value,
 * range, error text and help. getopt_long's tables, the range checks and their messages, "did you
 * mean", --help and --help=all (option_help.c) and, at build time, the man pages, the bash and
 * zsh completions and docs/usage.md's option tables (option_docs.c) all come from it.
 *
 * It lives beside the two commands rather than in the library: it is made of command-line
 * spellings and help text, which the library (an API of apsp_options fields, which prints and
 * reads nothing) has no use for, and an exported table would widen the library's ABI for two
 * programs that are built from this tree anyway. What each option does stays in each command's
 * apply_option (src/cli/main.c, src/mpi/main.c), but for the few they give the library as they
 * are (option_apply_library): each command's own take on them (apsp-mpi's threads per rank, its
 * engine) is in the help text and in what it does with apsp_options afterwards.
 *
 * To add an option: an OPT_* code below (or a short option's letter), one entry in
 * option_table.c, and its case in the apply_option of each command that takes it; the help, the
 * man page, the completions and docs/usage.md (regenerate it: docs/building.md) follow. */
#ifndef APSP_CLI_OPTION_TABLE_H
#define APSP_CLI_OPTION_TABLE_H

#include "apsp.h"

#include <getopt.h>
#include <stddef.h>

/* The commands an option belongs to (option_spec.commands). */
enum { FOR_APSP = 1, FOR_MPI = 2, FOR_BOTH = FOR_APSP | FOR_MPI };

/* getopt codes: a short option's letter, or one of these. */
enum {
    OPT_BACKEND = 256,
    OPT_THREADS,
    OPT_TILE,
    OPT_STATS_JSON,
    OPT_VERSION,
    OPT_LIST,
    OPT_MAX_BUFFER,
    OPT_DEVICE_MEMORY,
    OPT_KERNEL_PARAMS,
    OPT_DEVICE_SHARES,
    OPT_PROGRESS,
    OPT_KERNEL_CACHE,
    OPT_FLOAT_KERNELS,
    OPT_INPUT_FORMAT,
    OPT_OUTPUT_FORMAT,
    OPT_VERTICES,
    OPT_UNDIRECTED,
    OPT_UNWEIGHTED,
    OPT_PREDECESSORS,
    OPT_PATH,
    OPT_DTYPE,
    OPT_SOURCES,
    OPT_METHOD,
    OPT_COLUMNS,
    OPT_LIMIT,
    OPT_GRID,
    OPT_NO_LOOK_AHEAD,
};

/* What an option's value is: how it is checked here, and what completes it. */
typedef enum option_value {
    VALUE_NONE,     /* a flag */
    VALUE_INT,      /* a whole number within [least, most] (option_int) */
    VALUE_CHOICE,   /* one of `choices` (the command's parser checks it; option_expected) */
    VALUE_OPTIONAL, /* a flag, or =one of `choices` (--help=all) */
    VALUE_SIZE,     /* a byte count like 512M (apsp_parse_bytes) */
    VALUE_FILE,     /* a file name ('-': a standard stream) */
    VALUE_DIR,      /* a directory, or a word in `choices` (--kernel-cache=DIR|off) */
    VALUE_TEXT,     /* anything else the command parses: a list, a spec */
} option_value;

/* The lists the library keeps, with its name functions, that an option's words are: taken from
 * there (option_choices) rather than typed here again. */
typedef enum option_words {
    WORDS_NONE,    /* `choices` as written, or none */
    WORDS_BACKEND, /* apsp_backend_name's: auto, cpu, opencl */
    WORDS_METHOD,  /* apsp_method_name's */
    WORDS_DTYPE,   /* apsp_dtype_name's */
    WORDS_COUNT
} option_words;

typedef struct option_spec {
    const char *name;      /* the long name, after -- */
    int code;              /* getopt's: the short option's letter, or an OPT_* */
    unsigned commands;     /* FOR_APSP, FOR_MPI */
    option_value value;    /* what follows the = */
    const char *arg;       /* the value's name in the help: N, FILE, SPEC; NULL for a flag */
    const char *choices;   /* VALUE_CHOICE, _OPTIONAL, _DIR: the words, '|' between them */
    option_words words;    /* or the library's list (read either through option_choices) */
    long least, most;      /* VALUE_INT: the range */
    const char *expected;  /* "expected ..." for a refused value where not derived (below) */
    int brief_listed;      /* 1: in apsp's short --help (apsp-mpi's lists every option) */
    const char *brief;     /* one line (the short --help, zsh's description), <= 50 columns */
    const char *help;      /* apsp's meaning in full: --help=all, man page, docs; `code` marked */
    const char *mpi_brief; /* apsp-mpi's, where they differ; NULL: the same as apsp's */
    const char *mpi_help;
    /* The Python Solver's keyword of the same setting (apsp.Solver(tile=...)), NULL for none: the
     * Solver is not built from this table (the extension links the library alone), so
     * tests/cli/test_option_table.py checks its keywords and ranges against these. */
    const char *solver;
} option_spec;

extern const option_spec option_table[];
extern const size_t option_count;

/* Upper bound on one command's options (getopt's table and a NULL entry). */
enum { OPTION_TABLE_MAX = 48 };

/* The command's name ("apsp", "apsp-mpi") and its options one by one: `*i` from 0, NULL at the
 * end. */
const char *option_command_name(unsigned command);
const option_spec *option_next(unsigned command, size_t *i);
/* The option of getopt code `code` that `command` takes, or NULL. */
const option_spec *option_by_code(unsigned command, int code);
/* The option's words, '|' between them: `choices`, or the library's list that `words` names;
 * NULL for an option without. */
const char *option_choices(const option_spec *s);
/* Whether the option must have a value (getopt's required_argument). */
int option_needs_value(const option_spec *s);
/* apsp-mpi's help text where it has its own, else apsp's. */
const char *option_brief(const option_spec *s, unsigned command);
const char *option_help(const option_spec *s, unsigned command);

/* getopt_long's table for the command (OPTION_TABLE_MAX entries, NULL-terminated) and its short
 * options ("d:qvh" with a leading ':', so that a missing value is told apart). */
void option_getopt(unsigned command, struct option *longs, char *shorts, size_t size);

/* --NAME's value as a whole number in the option's range: 0, or -1 with the message. Digits only
 * (strtol alone would take blanks, a sign and trailing text). */
int option_int(const option_spec *s, const char *arg, int *out, char *message, size_t size);
/* The options that both commands hand the library as given (--backend, -d, --tile, --threads)
 * applied to `o`. Returns 1 for one of them, -1 for its value refused (with the message), 0 for
 * any other option: the command's own. */
int option_apply_library(unsigned command, int code, const char *arg, apsp_options *o,
                         char *message, size_t size);
/* The one-line message for a value the option refuses: "--NAME=ARG: expected ...", the expected
 * part from the range, the choices or s->expected. */
void option_value_message(const option_spec *s, const char *arg, char *message, size_t size);

/* The message for what getopt_long refused (it returned '?' or ':'; `spelled` the argument it
 * was at, `missing` its optopt): "--tiel: unknown option; did you mean --tile?", "--ver is
 * ambiguous: it could be --verbose or --version", "--tile needs a value", "--quiet takes no
 * value". */
void option_refused_message(unsigned command, int opt, int missing, const char *spelled,
                            char *message, size_t size);

#endif
