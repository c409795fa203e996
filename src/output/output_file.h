/* The output file. A regular OUTPUT (or a new one) is replaced atomically: everything goes to a
 * temporary file in the target's directory (on Linux an unnamed one, which vanishes with the
 * process however it dies), synced and renamed over the target only after the last byte was
 * written, so a failed run leaves no partial file and never clobbers an existing one. Symbolic
 * links are followed to the file they name. A pipe or a device is written directly; a target that
 * cannot be replaced is written in place, with a warning (output_file.c says when), its new bytes
 * copied over the old ones only at commit. Format writers (hw3.c) write through this handle; the
 * commit is output_commit.c's. */
#ifndef APSP_OUTPUT_FILE_H
#define APSP_OUTPUT_FILE_H

#include "apsp.h"

#include <stdint.h>
#include <stdio.h>

/* apsp_output (declared in apsp_io.h) is this module's handle. */
/* As apsp_output_open, for a file that other processes write too (apsp-mpi's ranks, which open
 * the temporary file by its name, apsp_output_temp_path, with MPI-IO): a regular OUTPUT, or a
 * new one, replaced through a named temporary file beside it (O_EXCL, mode 0600 until the commit
 * gives it the mode a replacement takes). What only writing in place or through could reach
 * (a device, a pipe, a file with several hard links, another user's file in a sticky directory)
 * is refused (APSP_ERR_OUTPUT, the reason in the message). Commit with output_finish after
 * output_set_length (or output_begin); apsp_output_abort removes the file. */
apsp_status output_open_shared(const char *path, apsp_output **out, apsp_error *error);
FILE *output_stream(apsp_output *output);
const char *output_target_path(const apsp_output *output);
/* The descriptor of a regular output file, for positioned writes (pwrite) in place of the
 * stream; -1 when the output is a pipe or a device, which only the stream can write. Asked after
 * output_begin, which may choose the file (a copy of a file written in place). */
int output_file_fd(apsp_output *output);
/* The threads that write a large output (apsp_output_set_threads; 0: one per core). */
unsigned output_threads(const apsp_output *output);
/* Before the first byte of `bytes`: a file written in place loses its old bytes now, a file
 * system that shows less room fails now, and room for the whole output is asked for at once
 * (fallocate, on a thread: output_room), so that a full disk fails before the writing. */
apsp_status output_begin(apsp_output *output, uint64_t bytes, apsp_error *error);
/* The finished file's length, where output_begin could not know it (the text output): the
 * commit refuses a file of another length (output_begin's `bytes` otherwise). */
void output_set_length(apsp_output *output, uint64_t bytes);
/* Waits for output_begin's request for room; its failure, if any, once. Every writer calls it
 * before its first byte (output_finish does too). */
apsp_status output_room(apsp_output *output, apsp_error *error);
/* After output_room: whether the file may be written through a shared mapping: every byte has
 * its room (fallocate succeeded), so no store can fail for want of space, on a local file system
 * (tmpfs, ext4, xfs, btrfs), where no store waits on a server. */
int output_mappable(const apsp_output *output);
/* Syncs and closes the file and puts it into place; frees the handle either way. */
apsp_status output_finish(apsp_output *output, apsp_error *error);

#endif
