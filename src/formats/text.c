/* The text formats' shared scanner (text.h). */
#include "formats/text.h"
#include "base/fault.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { FIRST_BUFFER = 1 << 16, FIELD_SHOWN = 24 };

/* Refuses the line that has run past `longest` bytes (0: no limit) in the first `size` bytes of
 * data, of which [checked, size) are new; *line_start: where the current line starts. A stream
 * with a line of gigabytes is refused as it comes, not held. */
static apsp_status check_lines(const input_file *in, const char *data, size_t checked, size_t size,
                               size_t longest, size_t *line_start, apsp_error *error) {
    if (!longest)
        return APSP_OK;
    for (const char *p = data + size; p > data + checked; p--)
        if (p[-1] == '\n') {
            *line_start = (size_t)(p - data);
            break;
        }
    if (size - *line_start <= longest)
        return APSP_OK;
    uint64_t line = 1;
    for (size_t i = 0; i < *line_start; i++)
        line += data[i] == '\n';
    return fail(error, APSP_ERR_INPUT, "%s: line %llu: longer than %zu bytes: refused", in->name,
                (unsigned long long)line, longest);
}

/* A stream is read into a buffer that doubles: what it brings is all it costs. */
static apsp_status load_stream(input_file *in, text_input *t, size_t *size, size_t longest,
                               apsp_error *error) {
    size_t capacity = 0, line_start = 0;
    *size = 0;
    for (;;) {
        if (*size + 1 >= capacity) {
            capacity = capacity ? 2 * capacity : FIRST_BUFFER;
            char *bigger = apsp_realloc(t->data, capacity);
            if (!bigger)
                return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", in->name);
            t->data = bigger;
        }
        ssize_t n = input_read(in, t->data + *size, capacity - 1 - *size);
        if (n < 0)
            return input_read_error(in, errno, error);
        *size += (size_t)n;
        apsp_status status =
            check_lines(in, t->data, *size - (size_t)n, *size, longest, &line_start, error);
        if (status != APSP_OK)
            return status;
        if ((size_t)n < capacity - 1 - (*size - (size_t)n))
            return APSP_OK;
    }
}

apsp_status text_load(input_file *in, text_input *t, size_t longest_line, apsp_error *error) {
    *t = (text_input){.name = in->name};
    size_t size = 0;
    apsp_status status = APSP_OK;
    if (in->regular) {
        if (in->size >= SIZE_MAX)
            return fail(error, APSP_ERR_TOO_LARGE, "%s: too large to read", in->name);
        t->data = apsp_malloc((size_t)in->size + 1);
        if (!t->data)
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", in->name);
        ssize_t n = input_read(in, t->data, (size_t)in->size);
        if (n < 0)
            status = input_read_error(in, errno, error);
        size = n > 0 ? (size_t)n : 0; /* a file that shrank since is read as it is now */
    } else {
        status = load_stream(in, t, &size, longest_line, error);
    }
    if (status != APSP_OK) {
        text_free(t);
        return status;
    }
    t->data[size] = '\0';
    t->end = t->data + size;
    t->p = t->line_start = t->data;
    return APSP_OK;
}

void text_free(text_input *t) {
    free(t->data);
    t->data = NULL;
}

static int is_blank(char c) {
    return c == ' ' || c == '\t';
}

int text_at_line_end(text_input *t) {
    while (t->p < t->end && is_blank(*t->p))
        t->p++;
    return t->p == t->end || *t->p == '\n' ||
           (*t->p == '\r' && (t->p + 1 == t->end || t->p[1] == '\n'));
}

/* strchr without its call and without matching the terminator: one or two marks. */
static int is_comment_mark(const char *comments, char c) {
    for (; *comments; comments++)
        if (*comments == c)
            return 1;
    return 0;
}

int text_next_line(text_input *t, const char *comments) {
    int first = !t->started;
    t->started = 1;
    for (;;) {
        if (!first) {
            /* The cursor is usually at the line's end already: a loop beats memchr's call. */
            const char *p = t->p;
            while (p < t->end && *p != '\n')
                p++;
            if (p == t->end) {
                t->p = t->end;
                return 0;
            }
            t->p = p + 1;
        }
        first = 0;
        t->line++;
        t->line_start = t->p;
        if (t->p == t->end)
            return 0;
        if (text_at_line_end(t))
            continue;
        if (!is_comment_mark(comments, *t->p))
            return 1;
    }
}

apsp_status text_fail(const text_input *t, apsp_error *error, const char *format, ...) {
    char detail[sizeof error->message];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    return fail(error, APSP_ERR_INPUT, "%s: line %llu: %s", t->name, (unsigned long long)t->line,
                detail);
}

const char *text_field(const text_input *t, char *buf, size_t size) {
    const char *p = t->p;
    if (p == t->end || *p == '\n' || (*p == '\r' && (p + 1 == t->end || p[1] == '\n'))) {
        snprintf(buf, size, "the end of the line");
        return buf;
    }
    size_t n = 0;
    n += (size_t)snprintf(buf, size, "'");
    for (int shown = 0; p < t->end && !is_blank(*p) && *p != '\n' && n + 6 < size; p++, shown++) {
        if (shown == FIELD_SHOWN) {
            n += (size_t)snprintf(buf + n, size - n, "...");
            break;
        }
        unsigned char c = (unsigned char)*p;
        n += (size_t)(c >= 0x20 && c < 0x7f ? snprintf(buf + n, size - n, "%c", c)
                                            : snprintf(buf + n, size - n, "\\x%02x", c));
    }
    snprintf(buf + n, size - n, "'");
    return buf;
}

/* A field ends at a blank or the end of the line. */
static int field_ends(const text_input *t, const char *p) {
    return p == t->end || is_blank(*p) || *p == '\n' ||
           (*p == '\r' && (p + 1 == t->end || p[1] == '\n'));
}

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

static apsp_status expected(text_input *t, const char *what, apsp_error *error) {
    char shown[96];
    return text_fail(t, error, "expected %s, found %s", what, text_field(t, shown, sizeof shown));
}

static apsp_status too_large(text_input *t, const char *what, const char *p, apsp_error *error) {
    int len = (int)(p - t->p);
    return text_fail(t, error, "%s %.*s%s is too large", what,
                     len > FIELD_SHOWN ? FIELD_SHOWN : len, t->p, len > FIELD_SHOWN ? "..." : "");
}

apsp_status text_uint(text_input *t, const char *what, uint64_t most, uint64_t *value,
                      apsp_error *error) {
    text_at_line_end(t);
    const char *p = t->p;
    uint64_t v = 0;
    int big = 0;
    for (; p < t->end && is_digit(*p); p++) {
        big |= v > (UINT64_MAX - 9) / 10;
        v = big ? v : v * 10 + (uint64_t)(*p - '0');
    }
    if (p == t->p || !field_ends(t, p))
        return expected(t, what, error);
    if (big || v > most) {
        while (!field_ends(t, p))
            p++;
        return too_large(t, what, p, error);
    }
    *value = v;
    t->p = p;
    return APSP_OK;
}

/* A number as text: sign, digits, and for reals a fraction and an exponent. Its value is
 * digits x 10^scale, the digits without leading or trailing zeros. */
typedef struct number {
    int negative, real;
    char digits[24]; /* int64 has 19; more make it too large whatever the scale */
    int count, long_digits;
    int64_t scale;
    const char *end;
} number;

static void take_digit(number *n, char c, int fraction) {
    if (c == '0' && n->count == 0 && !n->long_digits) {
        n->scale -= fraction; /* a leading zero */
        return;
    }
    if (n->count < (int)sizeof n->digits)
        n->digits[n->count++] = c;
    else
        n->long_digits = 1, n->scale++; /* only the size matters from here on */
    n->scale -= fraction;
}

/* Scans the number at p; returns 0 unless p holds one that ends as a field must. */
static int scan_number(const text_input *t, const char *p, int allow_real, number *n) {
    *n = (number){0};
    n->negative = p < t->end && *p == '-';
    p += p < t->end && (*p == '-' || *p == '+');
    const char *first = p;
    for (; p < t->end && is_digit(*p); p++)
        take_digit(n, *p, 0);
    int have_digits = p > first;
    if (allow_real && p < t->end && *p == '.') {
        for (p++; p < t->end && is_digit(*p); p++, have_digits = 1)
            take_digit(n, *p, 1), n->real = 1;
    }
    if (allow_real && have_digits && p < t->end && (*p == 'e' || *p == 'E')) {
        int minus = p + 1 < t->end && p[1] == '-';
        p += 1 + (p + 1 < t->end && (p[1] == '-' || p[1] == '+'));
        if (p == t->end || !is_digit(*p))
            return 0;
        int64_t e = 0;
        for (; p < t->end && is_digit(*p); p++)
            e = e < 100000 ? e * 10 + (*p - '0') : e;
        n->scale += minus ? -e : e;
        n->real = 1;
    }
    n->end = p;
    return have_digits && field_ends(t, p);
}

typedef enum number_fit { FITS, NOT_INTEGRAL, TOO_LARGE } number_fit;

static number_fit number_value(number *n, int64_t *value) {
    while (n->count > 0 && n->digits[n->count - 1] == '0')
        n->count--, n->scale++; /* trailing zeros */
    if (n->count == 0) {
        *value = 0;
        return FITS;
    }
    if (n->scale < 0)
        return NOT_INTEGRAL;
    if (n->long_digits || n->count + n->scale > 19)
        return TOO_LARGE;
    uint64_t v = 0, most = n->negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (int i = 0; i < n->count + n->scale; i++) {
        unsigned d = i < n->count ? (unsigned)(n->digits[i] - '0') : 0;
        if (v > (most - d) / 10)
            return TOO_LARGE;
        v = v * 10 + d;
    }
    *value = n->negative ? (int64_t)(0 - v) : (int64_t)v;
    return FITS;
}

/* The common case, a plain unsigned integer of up to 18 digits (no overflow possible), parsed
 * at once; anything else (a sign, a fraction, more digits, an error) takes the full path. */
static int plain_integer(text_input *t, int64_t *value) {
    const char *p = t->p;
    int64_t v = 0;
    for (; p < t->end && is_digit(*p) && p - t->p < 18; p++)
        v = v * 10 + (*p - '0');
    if (p == t->p || !field_ends(t, p))
        return 0;
    *value = v;
    t->p = p;
    return 1;
}

static apsp_status parse_number(text_input *t, const char *what, int allow_real, int64_t *value,
                                apsp_error *error) {
    text_at_line_end(t);
    if (plain_integer(t, value))
        return APSP_OK;
    number n;
    if (!scan_number(t, t->p, allow_real, &n))
        return expected(t, what, error);
    number_fit fit = number_value(&n, value);
    if (fit == TOO_LARGE)
        return too_large(t, what, n.end, error);
    if (fit == NOT_INTEGRAL) {
        int len = (int)(n.end - t->p);
        return text_fail(t, error, "%s %.*s%s is not a whole number", what,
                         len > FIELD_SHOWN ? FIELD_SHOWN : len, t->p,
                         len > FIELD_SHOWN ? "..." : "");
    }
    t->p = n.end;
    return APSP_OK;
}

apsp_status text_int(text_input *t, const char *what, int64_t *value, apsp_error *error) {
    return parse_number(t, what, 0, value, error);
}

apsp_status text_integral(text_input *t, const char *what, int64_t *value, apsp_error *error) {
    return parse_number(t, what, 1, value, error);
}

/* "inf", "infinity" or "nan" (any case, with a sign): what strtod would take but a weight may not
 * be. */
static int non_finite_word(const text_input *t, const char **end) {
    static const char *const words[] = {"infinity", "inf", "nan"};
    const char *p = t->p + (t->p < t->end && (*t->p == '-' || *t->p == '+'));
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t len = strlen(words[w]);
        if ((size_t)(t->end - p) >= len && strncasecmp(p, words[w], len) == 0 &&
            field_ends(t, p + len)) {
            *end = p + len;
            return 1;
        }
    }
    return 0;
}

/* The field [start, end) as written, into w (a message shows its first bytes only). */
static void keep_text(text_weight *w, const char *start, const char *end) {
    w->text = start;
    w->length = end - start < INT_MAX ? (int)(end - start) : INT_MAX;
}

const char *text_written(const text_weight *w, char *buf, size_t size) {
    snprintf(buf, size, "%.*s%s", w->length > FIELD_SHOWN ? FIELD_SHOWN : w->length, w->text,
             w->length > FIELD_SHOWN ? "..." : "");
    return buf;
}

/* A real number strtod reads out of double's range is refused; one below the normal range was
 * rounded to a subnormal or 0 (ERANGE): a nonzero value keeps at least the least subnormal of its
 * sign, for the weight rule to refuse (base/graph.h), where 0 would pass as a weight of 0. */
static apsp_status read_real(text_input *t, const char *what, const number *n, text_weight *w,
                             apsp_error *error) {
    errno = 0;
    char *stop;
    double v = strtod(t->p, &stop);
    if (stop != n->end || (errno == ERANGE && isinf(v))) {
        int len = (int)(n->end - t->p);
        return text_fail(t, error, "%s %.*s%s is out of the range of a double", what,
                         len > FIELD_SHOWN ? FIELD_SHOWN : len, t->p,
                         len > FIELD_SHOWN ? "..." : "");
    }
    if (v == 0) /* number_value saw nonzero digits, or the integer path would have taken it */
        v = n->negative ? -0x1p-1074 : 0x1p-1074;
    w->real = v;
    w->is_real = 1;
    keep_text(w, t->p, n->end);
    t->p = n->end;
    return APSP_OK;
}

apsp_status text_number(text_input *t, const char *what, text_weight *w, apsp_error *error) {
    text_at_line_end(t);
    w->is_real = 0;
    const char *start = t->p;
    if (plain_integer(t, &w->value)) {
        keep_text(w, start, t->p);
        return APSP_OK;
    }
    number n;
    const char *end;
    if (non_finite_word(t, &end)) {
        int len = (int)(end - t->p);
        return text_fail(t, error, "%s %.*s is not finite", what, len, t->p);
    }
    if (!scan_number(t, t->p, 1, &n))
        return expected(t, what, error);
    if (number_value(&n, &w->value) == FITS) {
        keep_text(w, t->p, n.end);
        t->p = n.end;
        return APSP_OK;
    }
    /* The field is a decimal number (scan_number checked its form), which strtod reads the same
     * way; the input ends with a '\0', so strtod stops within it. */
    return read_real(t, what, &n, w, error);
}

apsp_status text_word(text_input *t, const char *what, char *buf, size_t size, apsp_error *error) {
    text_at_line_end(t);
    size_t n = 0;
    const char *p = t->p;
    for (; p < t->end && !field_ends(t, p) && n + 1 < size; p++) {
        char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '_'))
            break;
        buf[n++] = c;
    }
    if (n == 0 || !field_ends(t, p))
        return expected(t, what, error);
    buf[n] = '\0';
    t->p = p;
    return APSP_OK;
}

apsp_status text_line_done(text_input *t, const char *after, apsp_error *error) {
    if (text_at_line_end(t))
        return APSP_OK;
    char shown[96];
    return text_fail(t, error, "unexpected %s after %s", text_field(t, shown, sizeof shown), after);
}

size_t text_split(const text_input *t, size_t most, text_input *pieces) {
    const char *nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
    const char *first = nl ? nl + 1 : t->end; /* after the cursor's line */
    size_t bytes = (size_t)(t->end - first), count = bytes / TEXT_PIECE_BYTES;
    most = most < TEXT_MAX_PIECES ? most : TEXT_MAX_PIECES; /* the caller's array */
    count = count < most ? count : most;
    if (count < 2)
        return 0;
    size_t made = 0;
    for (const char *start = first; made < count && start < t->end; made++) {
        /* Piece i ends at the first line end from its share's end, measured from the body's
         * first byte; a long line may have carried the previous piece past that point. */
        const char *share_end = first + bytes * (made + 1) / count;
        const char *from = share_end > start ? share_end : start;
        const char *cut = made + 1 == count ? NULL : memchr(from, '\n', (size_t)(t->end - from));
        const char *end = cut ? cut + 1 : t->end;
        pieces[made] = (text_input){
            .name = t->name, .data = t->data, .end = end, .p = start, .line_start = start};
        start = end;
    }
    return made < 2 ? 0 : made;
}

size_t text_count_lines(const text_input *t) {
    size_t lines = 1; /* (a loop the compiler vectorizes) */
    for (const char *p = t->p; p < t->end; p++)
        lines += *p == '\n';
    return lines;
}
