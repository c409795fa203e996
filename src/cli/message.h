/* What apsp and apsp-mpi print on stderr: one place that makes a user's bytes (file names,
 * option values, the lines of a --sources file, as the library's messages quote them) safe for a
 * terminal. */
#ifndef APSP_CLI_MESSAGE_H
#define APSP_CLI_MESSAGE_H

#if defined(__GNUC__) || defined(__clang__)
#define MESSAGE_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MESSAGE_PRINTF(fmt, args)
#endif

/* Prints the formatted message and a newline on stderr, in one write, with every control byte
 * (below 0x20, and 0x7f) written as \xNN: an ESC sequence in a name cannot move the cursor,
 * recolour or retitle the terminal, and a line break cannot forge a second message. \xNN is the
 * notation of the readers' quoting of a field (src/formats/text.c), whose escapes are printable
 * and so pass through unchanged. */
void message_print(const char *format, ...) MESSAGE_PRINTF(1, 2);
/* The same for a diagnostic of several lines (an OpenCL build log): line breaks and tabs kept. */
void message_print_lines(const char *format, ...) MESSAGE_PRINTF(1, 2);

#endif
