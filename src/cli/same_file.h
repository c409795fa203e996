/* The files a run reads and writes, compared as the kernel knows them (issue 24.3): two names
 * for one file (./x and x, an absolute path, a symbolic or hard link) would make a run
 * overwrite its own input, or write one output over the other. */
#ifndef APSP_CLI_SAME_FILE_H
#define APSP_CLI_SAME_FILE_H

#include "apsp.h"

#include <stddef.h>

typedef struct named_file {
    const char *name;  /* as given; NULL: not used in this run; "-": the standard stream fd */
    const char *label; /* how messages name it, before the name: "INPUT ", "--predecessors=" */
    int fd;            /* the standard stream "-" means */
} named_file;

/* A usage error naming the two when any two of the files are one: the same existing file by
 * device and inode, or the same name in the same directory for files not made yet. Other kinds
 * of files (/dev/null, a pipe, a terminal) may be named twice. */
apsp_status refuse_same_files(const named_file *files, size_t count, apsp_error *err);

#endif
