/* Messages on stderr with control bytes escaped (message.h). */
#include "message.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { SHORT_MESSAGE = 1024, ESCAPED_BYTES = 4 /* "\x1b" */ };

static int is_control(unsigned char c) {
    return c < 0x20 || c == 0x7f;
}

/* text escaped into out (room for ESCAPED_BYTES a byte, the newline and the '\0'), the newline
 * appended; returns the length. */
static size_t escape(const char *text, int keep_breaks, char *out) {
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (!is_control(*p) || (keep_breaks && (*p == '\n' || *p == '\t'))) {
            out[n++] = (char)*p;
            continue;
        }
        out[n++] = '\\';
        out[n++] = 'x';
        out[n++] = hex[*p >> 4];
        out[n++] = hex[*p & 15];
    }
    out[n++] = '\n';
    out[n] = '\0';
    return n;
}

/* Formats, escapes and writes; a message too long for the memory left goes out cut short. */
static void print_escaped(int keep_breaks, const char *format, va_list args) {
    char text[SHORT_MESSAGE], escaped[ESCAPED_BYTES * SHORT_MESSAGE + 2];
    va_list copy;
    va_copy(copy, args);
    int size = vsnprintf(text, sizeof text, format, copy);
    va_end(copy);
    char *whole = size >= SHORT_MESSAGE ? malloc((size_t)size + 1) : NULL;
    char *wide = whole ? malloc(ESCAPED_BYTES * (size_t)size + 2) : NULL;
    const char *from = text;
    char *to = escaped;
    if (whole && wide) {
        vsnprintf(whole, (size_t)size + 1, format, args);
        from = whole;
        to = wide;
    }
    fwrite(to, 1, escape(from, keep_breaks, to), stderr);
    free(whole);
    free(wide);
}

void message_print(const char *format, ...) {
    va_list args;
    va_start(args, format);
    print_escaped(0, format, args);
    va_end(args);
}

void message_print_lines(const char *format, ...) {
    va_list args;
    va_start(args, format);
    print_escaped(1, format, args);
    va_end(args);
}
