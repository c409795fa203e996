/* The option table read by the commands (option_table.h): getopt's table, the range checks, and
 * the messages for a value or an option refused. */
#include "option_table.h"
#include "apsp.h"
#include "apsp_sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *option_command_name(unsigned command) {
    return command == FOR_MPI ? "apsp-mpi" : "apsp";
}

const option_spec *option_next(unsigned command, size_t *i) {
    while (*i < option_count && !(option_table[*i].commands & command))
        ++*i;
    return *i < option_count ? &option_table[(*i)++] : NULL;
}

const option_spec *option_by_code(unsigned command, int code) {
    size_t i = 0;
    for (const option_spec *s; (s = option_next(command, &i));)
        if (s->code == code)
            return s;
    return NULL;
}

const char *option_brief(const option_spec *s, unsigned command) {
    return command == FOR_MPI && s->mpi_brief ? s->mpi_brief : s->brief;
}

const char *option_help(const option_spec *s, unsigned command) {
    return command == FOR_MPI && s->mpi_help ? s->mpi_help : s->help;
}

/* The library's name of `value` in the list, "unknown" past its end. */
static const char *library_word(option_words words, int value) {
    switch (words) {
    case WORDS_BACKEND:
        return apsp_backend_name((apsp_backend_kind)value);
    case WORDS_METHOD:
        return apsp_method_name((apsp_method)value);
    case WORDS_DTYPE:
        return apsp_dtype_name((apsp_dtype)value);
    case WORDS_NONE:
    case WORDS_COUNT:
        break;
    }
    return "unknown";
}

const char *option_choices(const option_spec *s) {
    static char lists[WORDS_COUNT][160]; /* made once, on the command's one thread */
    if (s->words == WORDS_NONE || s->words >= WORDS_COUNT)
        return s->choices;
    char *list = lists[s->words];
    size_t used = 0;
    if (*list == '\0')
        for (int v = 0; strcmp(library_word(s->words, v), "unknown") != 0; v++)
            used += (size_t)snprintf(list + used, sizeof lists[0] - used, "%s%s", v ? "|" : "",
                                     library_word(s->words, v));
    return list;
}

int option_needs_value(const option_spec *s) {
    return s->value != VALUE_NONE && s->value != VALUE_OPTIONAL;
}

void option_getopt(unsigned command, struct option *longs, char *shorts, size_t size) {
    size_t n = 0, used = 0, i = 0;
    used += (size_t)snprintf(shorts, size, ":");
    for (const option_spec *s; (s = option_next(command, &i)) && n + 1 < OPTION_TABLE_MAX; n++) {
        int arg = option_needs_value(s)        ? required_argument
                  : s->value == VALUE_OPTIONAL ? optional_argument
                                               : no_argument;
        longs[n] = (struct option){s->name, arg, NULL, s->code};
        if (s->code < 256 && used + 3 < size) /* a short option: its letter, ':' for a value */
            used += (size_t)snprintf(shorts + used, size - used, "%c%s", s->code,
                                     arg == required_argument ? ":" : "");
    }
    longs[n] = (struct option){NULL, 0, NULL, 0};
}

int option_int(const option_spec *s, const char *arg, int *out, char *message, size_t size) {
    char *end;
    errno = 0;
    long v = *arg >= '0' && *arg <= '9' ? strtol(arg, &end, 10) : -1;
    if (*arg < '0' || *arg > '9' || errno || end == arg || *end != '\0' || v < s->least ||
        v > s->most) {
        option_value_message(s, arg, message, size);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int option_apply_library(unsigned command, int code, const char *arg, apsp_options *o,
                         char *message, size_t size) {
    const option_spec *s = option_by_code(command, code);
    switch (code) {
    case OPT_THREADS:
        return option_int(s, arg, &o->threads, message, size) == 0 ? 1 : -1;
    case OPT_TILE:
        return option_int(s, arg, &o->tile, message, size) == 0 ? 1 : -1;
    case OPT_BACKEND:
        if (apsp_backend_parse(arg, &o->backend) == 0)
            return 1;
        option_value_message(s, arg, message, size);
        return -1;
    case 'd':
        o->device = arg;
        return 1;
    }
    return 0;
}

/* "a, b or c" from "a|b|c". */
static void either(const char *choices, char *out, size_t size) {
    size_t used = 0;
    for (const char *c = choices; *c && used < size;) {
        size_t len = strcspn(c, "|");
        const char *next = c + len + (c[len] == '|');
        const char *joint = c == choices ? "" : *next ? ", " : " or ";
        used += (size_t)snprintf(out + used, size - used, "%s%.*s", joint, (int)len, c);
        c = next;
    }
}

void option_value_message(const option_spec *s, const char *arg, char *message, size_t size) {
    char expected[160];
    if (s->value == VALUE_INT)
        snprintf(expected, sizeof expected, "a whole number from %ld to %ld", s->least, s->most);
    else if (option_choices(s) && !s->expected)
        either(option_choices(s), expected, sizeof expected);
    else
        snprintf(expected, sizeof expected, "%s", s->expected ? s->expected : "a value");
    snprintf(message, size, "--%s=%s: expected %s", s->name, arg, expected);
}

/* The edit distance of a and b (insertions, deletions, changes and swaps of neighbours), at most
 * 63 characters of each: enough to tell a typo from another option. */
static size_t distance(const char *a, size_t la, const char *b) {
    enum { MAX = 64 };
    size_t lb = strlen(b);
    la = la < MAX - 1 ? la : MAX - 1;
    lb = lb < MAX - 1 ? lb : MAX - 1;
    static size_t d[MAX][MAX];
    for (size_t i = 0; i <= la; i++)
        for (size_t j = 0; j <= lb; j++) {
            if (i == 0 || j == 0) {
                d[i][j] = i + j;
                continue;
            }
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
            best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The options of `command` whose name starts with name[0..len), as getopt_long matches an
 * abbreviation, written "--a, --b or --c" into out. Returns their number. */
static size_t prefixed(unsigned command, const char *name, size_t len, char *out, size_t size) {
    size_t n = 0, i = 0;
    char list[512] = "";
    for (const option_spec *s; (s = option_next(command, &i));)
        if (strncmp(s->name, name, len) == 0) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s--%s", n ? "|" : "", s->name);
            n++;
        }
    either(list, out, size);
    return n;
}

/* " (an apsp-mpi option)", or "; did you mean --tile?" for a near name, or "". */
static void suggest(unsigned command, const char *name, size_t len, char *out, size_t size) {
    size_t i = 0, best = (size_t)-1;
    const option_spec *nearest = NULL;
    for (; i < option_count; i++)
        if (!(option_table[i].commands & command) && strlen(option_table[i].name) == len &&
            strncmp(option_table[i].name, name, len) == 0) {
            snprintf(out, size, " (an %s option)",
                     option_command_name(option_table[i].commands & ~command));
            return;
        }
    i = 0;
    for (const option_spec *s; (s = option_next(command, &i));) {
        size_t d = distance(name, len, s->name);
        if (d < best)
            best = d, nearest = s;
    }
    *out = '\0';
    if (nearest && best <= 1 + len / 4)
        snprintf(out, size, "; did you mean --%s?", nearest->name);
}

void option_refused_message(unsigned command, int opt, int missing, const char *spelled,
                            char *message, size_t size) {
    const option_spec *s = option_by_code(command, missing);
    if (s) { /* '?' for a known one: a value given to a flag (--quiet=1) */
        snprintf(message, size, "--%s %s", s->name,
                 opt == ':' ? "needs a value" : "takes no value");
        return;
    }
    if (strncmp(spelled, "--", 2) != 0 || opt == ':') {
        snprintf(message, size, "%s: %s", spelled, opt == ':' ? "needs a value" : "unknown option");
        return;
    }
    const char *name = spelled + 2;
    size_t len = strcspn(name, "=");
    char found[600];
    if (prefixed(command, name, len, found, sizeof found) > 1) {
        snprintf(message, size, "--%.*s is ambiguous: it could be %s", (int)len, name, found);
        return;
    }
    suggest(command, name, len, found, sizeof found);
    snprintf(message, size, "--%.*s: unknown option%s", (int)len, name, found);
}
