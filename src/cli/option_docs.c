/* apsp-option-docs, a build tool: what is made of the option table besides --help (meson builds
 * it and runs it into build/doc/; docs/usage.md's tables are checked against it).
 *   apsp-option-docs man apsp|apsp-mpi VERSION     the man page (roff)
 *   apsp-option-docs markdown apsp|apsp-mpi        docs/usage.md's option table
 *   apsp-option-docs bash|zsh apsp|apsp-mpi        the shell completion (option_complete.c)
 *   apsp-option-docs solver apsp                   the options that are Python Solver keywords */
#include "option_complete.h"
#include "option_help.h"
#include "option_table.h"

#include <stdio.h>
#include <string.h>

/* Text in roff: `code` bold, '-' and '\' escaped, a line break a paragraph break. */
static void roff_text(FILE *out, const char *text) {
    int bold = 0, line_start = 1;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        line_start = 0;
        if (*p == '`')
            fputs((bold = !bold) ? "\\fB" : "\\fR", out);
        else if (*p == '-' || *p == '\\')
            fprintf(out, "\\%c", *p == '-' ? '-' : 'e');
        else if (*p == '\n')
            fputs("\n.PP\n", out), line_start = 1;
        else
            fputc(*p, out);
    }
    fputc('\n', out);
}

/* A section title in capitals. */
static void roff_section(FILE *out, const char *title) {
    fputs(".SH ", out);
    for (const char *p = title; *p; p++)
        fputc(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, out);
    fputc('\n', out);
}

static void man_page(FILE *out, unsigned command, const char *version) {
    const command_text *t = command_text_of(command);
    const char *name = option_command_name(command);
    fprintf(out, ".\\\" Generated from src/cli/option_table.c by apsp-option-docs: do not edit.\n");
    fprintf(out, ".TH %s 1 \"\" \"apsp %s\" \"User Commands\"\n",
            command == FOR_MPI ? "APSP-MPI" : "APSP", version);
    fprintf(out, ".SH NAME\n%s \\- %s\n.SH SYNOPSIS\n.nf\n",
            command == FOR_MPI ? "apsp\\-mpi" : name, t->whatis);
    const char *synopsis = t->synopsis + strlen("usage: ");
    for (const char *line = synopsis; *line;) {
        size_t len = strcspn(line, "\n");
        char one[200];
        snprintf(one, sizeof one, "%.*s", (int)len, line + strspn(line, " "));
        roff_text(out, one);
        line += len + (line[len] == '\n');
    }
    fputs(".fi\n.SH DESCRIPTION\n", out);
    roff_text(out, t->summary);
    fputs(".SH OPTIONS\n", out);
    size_t i = 0;
    for (const option_spec *s; (s = option_next(command, &i));) {
        char spelling[200], marked[210];
        help_spelling(s, 1, spelling, sizeof spelling);
        snprintf(marked, sizeof marked, "`%s`", spelling);
        fputs(".TP\n", out);
        roff_text(out, marked);
        roff_text(out, option_help(s, command));
    }
    fputs(".PP\nAn option that takes a value is given once.\n", out);
    for (const help_section *sec = t->sections; sec->title; sec++) {
        roff_section(out, sec->title);
        roff_text(out, sec->text);
    }
    fprintf(out,
            ".SH SEE ALSO\n%s\\fB%s\\fR \\-\\-help=all; docs/usage.md and README.md in apsp's "
            "source.\n",
            command == FOR_MPI ? "\\fBapsp\\fR(1), \\fBmpirun\\fR(1); " : "", name);
}

/* Text in a Markdown table cell: '|' escaped. */
static void markdown_cell(FILE *out, const char *text) {
    for (const char *p = text; *p; p++)
        fputs(*p == '|' ? "\\|" : *p == '\n' ? " " : (char[2]){*p, '\0'}, out);
}

static void markdown_table(FILE *out, unsigned command) {
    fputs("| option | meaning |\n|---|---|\n", out);
    size_t i = 0;
    for (const option_spec *s; (s = option_next(command, &i));) {
        char spelling[200];
        help_spelling(s, 1, spelling, sizeof spelling);
        fputs("| `", out);
        markdown_cell(out, spelling);
        fputs("` | ", out);
        markdown_cell(out, option_help(s, command));
        fputs(" |\n", out);
    }
}

/* The options that are Python Solver keywords, a line each: the keyword, the option, and for a
 * number its range, for a choice its words ('|' between them), else '-'. */
static void solver_keywords(FILE *out, unsigned command) {
    size_t i = 0;
    for (const option_spec *s; (s = option_next(command, &i));) {
        if (!s->solver)
            continue;
        if (s->value == VALUE_INT)
            fprintf(out, "%s %s %ld-%ld\n", s->solver, s->name, s->least, s->most);
        else
            fprintf(out, "%s %s %s\n", s->solver, s->name,
                    option_choices(s) ? option_choices(s) : "-");
    }
}

int main(int argc, char **argv) {
    unsigned command = argc > 2 && strcmp(argv[2], "apsp-mpi") == 0 ? FOR_MPI : FOR_APSP;
    if (argc == 4 && strcmp(argv[1], "man") == 0)
        man_page(stdout, command, argv[3]);
    else if (argc == 3 && strcmp(argv[1], "markdown") == 0)
        markdown_table(stdout, command);
    else if (argc == 3 && strcmp(argv[1], "bash") == 0)
        complete_bash(stdout, command);
    else if (argc == 3 && strcmp(argv[1], "zsh") == 0)
        complete_zsh(stdout, command);
    else if (argc == 3 && strcmp(argv[1], "solver") == 0)
        solver_keywords(stdout, command);
    else {
        fputs("usage: apsp-option-docs man|markdown|bash|zsh|solver apsp|apsp-mpi [VERSION]\n",
              stderr);
        return 2;
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
