/* --help and --help=all from the option table (option_help.h). */
#include "option_help.h"
#include "option_table.h"

#include <string.h>

enum { WIDTH = 80, SPELLING_COLUMN = 30, FULL_INDENT = 8 };

void help_spelling(const option_spec *s, int choices, char *out, size_t size) {
    const char *words = option_choices(s);
    const char *value = choices && words && s->value != VALUE_DIR ? words : s->arg;
    char letter[8] = "";
    if (s->code < 256)
        snprintf(letter, sizeof letter, "-%c, ", s->code);
    if (s->value == VALUE_NONE)
        snprintf(out, size, "%s--%s", letter, s->name);
    else if (s->value == VALUE_OPTIONAL)
        snprintf(out, size, "%s--%s[=%s]", letter, s->name, value);
    else if (s->value == VALUE_DIR && choices)
        snprintf(out, size, "%s--%s=%s|%s", letter, s->name, s->arg, words);
    else
        snprintf(out, size, "%s--%s=%s", letter, s->name, value);
}

/* The next word of `text` (up to a blank or a line break), its length without `code` marks. */
static size_t word_length(const char *text, size_t *shown) {
    size_t len = strcspn(text, " \n");
    *shown = 0;
    for (size_t i = 0; i < len; i++)
        *shown += text[i] != '`';
    return len;
}

void help_wrap(FILE *out, const char *text, int indent, int width) {
    int column = 0;
    for (const char *p = text; *p;) {
        if (*p == ' ' || *p == '\n') {
            if (*p == '\n' && column > 0)
                fputc('\n', out), column = 0;
            p++;
            continue;
        }
        size_t shown, len = word_length(p, &shown);
        if (column > indent && column + 1 + (int)shown > width)
            fputc('\n', out), column = 0;
        if (column == 0)
            column = fprintf(out, "%*s", indent, "");
        else
            column += fprintf(out, " ");
        for (size_t i = 0; i < len; i++)
            if (p[i] != '`')
                fputc(p[i], out), column++;
        p += len;
    }
    if (column > 0)
        fputc('\n', out);
}

/* "  -d, --device=SPEC" or "      --tile=N": short options first, long ones aligned after. */
static int print_spelling(FILE *out, const option_spec *s, int choices) {
    char spelling[160];
    help_spelling(s, choices, spelling, sizeof spelling);
    return fprintf(out, "%s%s", s->code < 256 ? "  " : "      ", spelling);
}

static void print_brief(FILE *out, const option_spec *s, unsigned command) {
    int column = print_spelling(out, s, 0);
    if (column >= SPELLING_COLUMN)
        fprintf(out, "\n%*s", SPELLING_COLUMN, ""), column = SPELLING_COLUMN;
    fprintf(out, "%*s%s\n", SPELLING_COLUMN - column, "", option_brief(s, command));
}

void help_print(FILE *out, unsigned command, int all) {
    const command_text *t = command_text_of(command);
    const char *name = option_command_name(command);
    fprintf(out, "%s\n\n", t->synopsis);
    help_wrap(out, t->summary, 0, WIDTH);
    fprintf(out, "\n%s:\n", all ? "options" : "common options");
    size_t i = 0;
    for (const option_spec *s; (s = option_next(command, &i));) {
        if (!all && (s->brief_listed || command == FOR_MPI))
            print_brief(out, s, command);
        if (all) {
            print_spelling(out, s, 1);
            fputc('\n', out);
            help_wrap(out, option_help(s, command), FULL_INDENT, WIDTH);
        }
    }
    if (!all) {
        fprintf(out,
                "\nEvery option, the formats and the exit codes: %s --help=all, man %s,\n"
                "and docs/usage.md.\n",
                name, name);
        return;
    }
    fputs("An option that takes a value is given once.\n", out);
    for (const help_section *sec = t->sections; sec->title; sec++) {
        fprintf(out, "\n%s:\n", sec->title);
        help_wrap(out, sec->text, 2, WIDTH);
    }
    fprintf(out, "\nThe manual: man %s, and docs/usage.md.\n", name);
}
