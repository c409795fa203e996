/* Atomic output: everything goes to a temporary file beside the target, which is renamed over
 * the target only after the last byte was written. A failed run leaves no partial file and
 * never clobbers an existing one. Format writers (io_*.c) write into the stream. */
#ifndef APSP_OUTPUT_FILE_H
#define APSP_OUTPUT_FILE_H

#include "apsp.h"

#include <stdio.h>

/* apsp_output (declared in apsp.h) is this module's handle. */
FILE *output_stream(apsp_output *output);
const char *output_target_path(const apsp_output *output);
/* The descriptor of a regular output file, for positioned writes (pwrite) in place of the
 * stream; -1 when the output is a pipe or a device, which only the stream can write. */
int output_file_fd(apsp_output *output);
/* Closes the stream and renames the temporary file into place; frees the handle either way. */
apsp_status output_finish(apsp_output *output, apsp_error *error);

#endif
