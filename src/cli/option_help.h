/* --help, --help=all and the man pages' text: what the commands say about themselves beside the
 * option table (usage.c), and the layout of both (option_help.c). */
#ifndef APSP_CLI_OPTION_HELP_H
#define APSP_CLI_OPTION_HELP_H

#include <stdio.h>

/* A titled part of --help=all and of the man page (paragraphs, `code` marked as in the table). */
typedef struct help_section {
    const char *title; /* NULL ends a list */
    const char *text;
} help_section;

typedef struct command_text {
    const char *synopsis;         /* the usage lines, '\n' between */
    const char *summary;          /* what the command does, in the short --help */
    const help_section *sections; /* --help=all after the options, and the man page */
    const char *whatis;           /* the man page's NAME line, after "apsp \- " */
} command_text;

/* The text of apsp (FOR_APSP) or apsp-mpi (FOR_MPI) (usage.c). */
const command_text *command_text_of(unsigned command);

/* --help (all 0: the summary and the common options, at most 25 lines of 80 columns) or
 * --help=all (every option in full, the sections). */
void help_print(FILE *out, unsigned command, int all);

/* `text` wrapped to `width` columns, each line indented by `indent` spaces, `code` marks
 * dropped, '\n' kept as a paragraph break. */
void help_wrap(FILE *out, const char *text, int indent, int width);

/* "--name=ARG", "-d, --device=SPEC", "--help[=all]": the option as the help lists it; `choices`
 * 1 shows the choices (auto|cpu|opencl) instead of the value's name. */
struct option_spec;
void help_spelling(const struct option_spec *s, int choices, char *out, size_t size);

#endif
