/* CSV fields and the header (csv_header.h). */
#include "formats/csv_header.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Whether p ends a field: the separator, the line's end ("\n", "\r\n") or the input's. */
static int ends_field(const text_input *t, const char *p, char delimiter) {
    return p == t->end || *p == delimiter || *p == '\n' ||
           (*p == '\r' && (p + 1 == t->end || p[1] == '\n'));
}

static apsp_status quoted(text_input *t, char delimiter, csv_field *f, const char **after,
                          apsp_error *error) {
    const char *q = t->p + 1;
    f->escaped = 0;
    for (;;) {
        while (q < t->end && *q != '"' && *q != '\n')
            q++;
        if (q == t->end || *q == '\n')
            return text_fail(t, error,
                             "a quoted field that does not close on its line: an unbalanced quote, "
                             "or a line break inside a name, which apsp refuses (its labels file "
                             "holds one name a line)");
        if (q + 1 < t->end && q[1] == '"') {
            f->escaped = 1;
            q += 2;
            continue;
        }
        break;
    }
    f->start = t->p + 1;
    f->len = (size_t)(q - f->start);
    *after = q + 1;
    if (!ends_field(t, *after, delimiter))
        return text_fail(t, error, "a closing quote must end its field (RFC 4180)");
    return APSP_OK;
}

/* The bytes that may end an unquoted field, a bit for each delimiter (STOPS_COMMA, STOPS_TAB):
 * the scan tests one table entry a byte, not four compares (perf: the field scan was a fifth of
 * a CSV read). A '\0' stops it too, to check for the input's end (the '\0' after its last byte)
 * there rather than at every byte. */
enum { STOPS_COMMA = 1, STOPS_TAB = 2 };
static const unsigned char stops[256] = {
    ['\0'] = STOPS_COMMA | STOPS_TAB,
    ['\n'] = STOPS_COMMA | STOPS_TAB,
    ['"'] = STOPS_COMMA | STOPS_TAB,
    [','] = STOPS_COMMA,
    ['\t'] = STOPS_TAB,
};

/* The first byte from p that ends an unquoted field: the delimiter, a line break, a quote or the
 * input's end. */
static const char *unquoted_end(const text_input *t, const char *p, char delimiter) {
    const unsigned char mask = delimiter == ',' ? STOPS_COMMA : STOPS_TAB;
    for (;;) {
        while (!(stops[(unsigned char)*p] & mask))
            p++;
        if (*p != '\0' || p >= t->end)
            return p < t->end ? p : t->end;
        p++; /* a '\0' inside the input: part of the field */
    }
}

apsp_status csv_next_field(text_input *t, char delimiter, csv_field *f, int *last,
                           apsp_error *error) {
    const char *p = t->p;
    if (p < t->end && *p == '"') {
        apsp_status status = quoted(t, delimiter, f, &p, error);
        if (status != APSP_OK)
            return status;
    } else {
        p = unquoted_end(t, p, delimiter);
        if (p < t->end && *p == '"')
            return text_fail(t, error,
                             "a quote inside an unquoted field: quote the whole field, "
                             "its quotes doubled (RFC 4180)");
        *f = (csv_field){t->p, (size_t)(p - t->p), 0};
        f->len -= f->len > 0 && p[-1] == '\r' && (p == t->end || *p == '\n');
        p -= p > t->p && p[-1] == '\r' && (p == t->end || *p == '\n');
    }
    if (f->len > CSV_LONGEST_LINE)
        return text_fail(t, error, "a field longer than %d bytes: refused", CSV_LONGEST_LINE);
    *last = !(p < t->end && *p == delimiter);
    t->p = *last ? p : p + 1;
    return APSP_OK;
}

size_t csv_unquote(const csv_field *f, char *out) {
    size_t n = 0;
    for (size_t i = 0; i < f->len; i++) {
        out[n++] = f->start[i];
        i += f->start[i] == '"'; /* the second of "" */
    }
    return n;
}

apsp_status csv_missing_field(const text_input *t, const csv_columns *c, int field,
                              apsp_error *error) {
    int which = -1; /* the first column past the line's end */
    for (int k = 0; k < 3; k++)
        if (c->index[k] >= field && (which < 0 || c->index[k] < c->index[which]))
            which = k;
    which = which < 0 ? 0 : which; /* (a line ends before the columns it must hold: always one) */
    return text_fail(t, error, "%d field%s, but %s is field %d", field, field == 1 ? "" : "s",
                     c->name[which], c->index[which] + 1);
}

static const char *const default_names[3] = {
    "source from u src",
    "target to v dst",
    "weight length distance cost",
};

/* Whether the space-separated list holds the name, in any case. */
static int listed(const char *list, const char *name) {
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t word = strcspn(p, " ");
        if (word == len && strncasecmp(p, name, len) == 0)
            return 1;
        p += word + (p[word] == ' ');
    }
    return 0;
}

/* The wanted column `k` ("from,to,length"'s k-th name), or "" past its end. */
static void wanted_name(const char *wanted, int k, char *buf, size_t size) {
    const char *p = wanted;
    for (int i = 0; i < k && p; i++)
        p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
    size_t len = p ? strcspn(p, ",") : 0;
    snprintf(buf, size, "%.*s", (int)len, p ? p : "");
}

/* The header's field i matched against the columns: by `wanted`'s names exactly, else by the
 * default names in any case (the first of each found). */
static void match(csv_columns *c, const char *wanted, const char *name, int i) {
    for (int k = 0; k < 3; k++) {
        char want[CSV_COLUMN_NAME];
        if (wanted)
            wanted_name(wanted, k, want, sizeof want);
        if (c->index[k] < 0 &&
            (wanted ? want[0] && strcmp(name, want) == 0 : listed(default_names[k], name))) {
            c->index[k] = i;
            snprintf(c->name[k], sizeof c->name[k], "column '%.40s'", name);
        }
    }
}

/* The columns `wanted` names that the header lacks, refused with the header's names. */
static apsp_status check_wanted(const text_input *t, const csv_columns *c, const char *wanted,
                                const char *seen, apsp_error *error) {
    for (int k = 0; k < 3; k++) {
        char want[CSV_COLUMN_NAME];
        wanted_name(wanted, k, want, sizeof want);
        if ((k < 2 || want[0]) && c->index[k] < 0)
            return text_fail(t, error, "no column named '%s' in the header (%s)",
                             want[0] ? want : "(none)", seen);
    }
    return APSP_OK;
}

/* The first line's fields against the column names; `seen` lists them for a message. */
static apsp_status header_fields(text_input *t, char delimiter, const char *wanted, csv_columns *c,
                                 int *count, char *seen, size_t size, apsp_error *error) {
    int last = 0;
    size_t used = 0;
    for (*count = 0; !last; ++*count) {
        csv_field f;
        apsp_status status = csv_next_field(t, delimiter, &f, &last, error);
        if (status != APSP_OK)
            return status;
        char name[CSV_COLUMN_NAME];
        size_t len = f.len < sizeof name - 1 ? f.len : sizeof name - 1;
        csv_field head = {f.start, len, f.escaped};
        name[f.escaped ? csv_unquote(&head, name) : (memcpy(name, f.start, len), len)] = '\0';
        match(c, wanted, name, *count);
        if (used + 1 < size)
            used += (size_t)snprintf(seen + used, size - used, "%s%.24s", *count ? ", " : "", name);
    }
    return APSP_OK;
}

apsp_status csv_read_header(text_input *t, char delimiter, const char *wanted, csv_columns *c,
                            int *header, apsp_error *error) {
    *c = (csv_columns){.delimiter = delimiter, .index = {-1, -1, -1}};
    if (t->end - t->p >= 3 && memcmp(t->p, "\xef\xbb\xbf", 3) == 0) /* a UTF-8 mark (Excel's) */
        t->p = t->line_start = t->p + 3;
    const char *start = t->p;
    char seen[160] = "";
    int count = 0;
    apsp_status status = header_fields(t, delimiter, wanted, c, &count, seen, sizeof seen, error);
    if (status == APSP_OK && wanted)
        status = check_wanted(t, c, wanted, seen, error);
    if (status != APSP_OK)
        return status;
    *header = c->index[0] >= 0 && c->index[1] >= 0;
    if (!*header) { /* the first edge: columns 1, 2 and 3 where it has one */
        *c = (csv_columns){.delimiter = delimiter, .index = {0, 1, count >= 3 ? 2 : -1}};
        for (int k = 0; k < 3; k++)
            snprintf(c->name[k], sizeof c->name[k], "column %d", k + 1);
        t->p = start;
    }
    for (int k = 0; k < 3; k++)
        c->fields = c->index[k] + 1 > c->fields ? c->index[k] + 1 : c->fields;
    return APSP_OK;
}
