/* What apsp and apsp-mpi do alike before their work: descriptors 0-2 made safe, and the rule for
 * options that take one value. */
#ifndef APSP_CLI_STARTUP_H
#define APSP_CLI_STARTUP_H

#include "apsp.h"

#include <getopt.h>

/* The standard streams a caller closed (`apsp IN OUT >&-`), as bits of startup_reserve_streams'
 * answer. */
enum { STREAM_IN_CLOSED = 1, STREAM_OUT_CLOSED = 2, STREAM_ERR_CLOSED = 4 };

/* Opens /dev/null on each of descriptors 0, 1 and 2 that is closed. Call it first in main: a
 * closed one leaves its number free, the next file the program opens (the output's temporary
 * file) takes it, and what is printed to "stdout" or "stderr" lands in that file, or it is read
 * as "stdin". Messages to a closed stderr are then dropped. Returns the closed ones
 * (STREAM_*_CLOSED bits), or -1 when /dev/null cannot be opened (errno says why). */
int startup_reserve_streams(void);

/* Refuses to use a standard stream that was closed at start (`closed` from
 * startup_reserve_streams; `fd` 0 or 1; `used`: the run reads or writes it, for `what`): stdin
 * would read as empty, and what goes to stdout would be lost. Returns APSP_OK, or fills error
 * (APSP_ERR_INPUT for stdin, APSP_ERR_OUTPUT for stdout) and returns its status. */
apsp_status startup_check_stream(int closed, int fd, int used, const char *what, apsp_error *error);

/* Option codes are below this: short options' characters and the programs' OPT_* from 256. */
enum { STARTUP_OPTION_CODES = 512 };

/* The long name of option `opt` when it takes a value and `seen` (zeroed by the caller, indexed
 * by option code) says it was given before, else NULL; marks it seen. A second --path or --tile
 * is refused rather than silently replacing the first. */
const char *startup_repeated_option(const struct option *longs, int opt,
                                    unsigned char seen[STARTUP_OPTION_CODES]);

#endif
