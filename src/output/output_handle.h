/* The output handle's insides, shared by the parts of the output file (output_file.h is the
 * face the writers see): output_file.c decides how OUTPUT is written and opens it,
 * output_temporary.c makes its temporary file, output_commit.c puts the finished file into
 * place. Private to those three. */
#ifndef APSP_OUTPUT_HANDLE_H
#define APSP_OUTPUT_HANDLE_H

#include "output/output_room.h"
#include "base/error.h"
#include "apsp.h"
#include "apsp_io.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef enum output_mode { MODE_DIRECT, MODE_REPLACE, MODE_IN_PLACE } output_mode;

struct apsp_output {
    char *path;      /* as the caller gave it, for messages */
    char *target;    /* the file that `path` names after its symbolic links */
    char *temp_path; /* the temporary file's name (an unnamed file's at commit, in replace mode) */
    output_mode mode;
    /* MODE_REPLACE, MODE_IN_PLACE: the target's directory, held from the start. Every later step
     * names its files relative to it, so that whoever may rename that directory or one above it
     * cannot send the output elsewhere (a directory of another user: docs/security.md). */
    int dir_fd;
    const char *name; /* the target's last component, in dir_fd */
    /* The file written: MODE_REPLACE, the new file; MODE_IN_PLACE, a temporary copy (or, where
     * none could be made, the target itself); -1 for MODE_DIRECT. */
    int fd;
    /* MODE_IN_PLACE with a temporary copy: the target, opened at the start, which the copy goes
     * over at commit; -1 otherwise. */
    int target_fd;
    int unnamed;       /* fd is an O_TMPFILE file, which vanishes with the process */
    int temp_named;    /* temp_path names fd's file now: remove it on failure */
    int target_exists; /* at open: commit may link a new file straight in */
    dev_t target_dev;  /* and then which file it is: the only one ever written in place */
    ino_t target_ino;
    uint64_t length; /* the finished file's bytes (output_begin, output_set_length) */
    FILE *stream;    /* MODE_DIRECT */
    char *buffer;
    char warning[512]; /* why OUTPUT is written in place; "" when it is not */
    int warned;
    apsp_log_fn log;
    void *log_context;
    unsigned threads; /* apsp_output_set_threads (0: one per core) */
    /* output_open_shared: other processes open the temporary file by its name, so it is a named
     * one, mode 0600 until the commit gives it its mode (output_give_mode). */
    int shared;
    struct stat target_stat; /* the target found at open, where target_exists */
    int direct_locked;       /* fd is the target itself, written under its lock (output_lock.c) */
    file_room room;          /* output_begin's request for the file's room (output_room.h) */
    /* output_prepare's shared mapping of the whole file (output_map.h), or NULL; map_stop asks
     * its populating to end (the rounds are over). */
    unsigned char *map;
    size_t map_bytes;
    atomic_int map_stop;
};

enum {
    TARGET_CHANGED = -1,   /* not an errno value: the target is no longer the file found at open */
    TEMP_NAME_TRIES = 100, /* temporary names taken by someone else before giving up */
    NOT_RENAMED = -2,      /* not an errno value: a shared output that only writing in place or
                              through could reach (output_open_shared) */
    TARGET_BUSY = -5,      /* not an errno value: another writer holds the target's lock
                              (-3 and -4 are output_path.h's) */
};

/* The replacement, a temporary file in `dir`, the target's directory (dir_fd): unnamed, else
 * named and 0600; it takes the target's mode and owner where the target exists (`st`), else a
 * new file's, except a shared output's (output_give_mode). Returns 0 or an errno value. */
int output_open_temporary(apsp_output *o, const char *dir, int exists, const struct stat *st);
/* The temporary file alone (a copy of a file written in place): unnamed, else named and 0600.
 * Returns 0 or an errno value. */
int output_create_temporary(apsp_output *o, const char *dir);
/* What output_create_temporary left of a file that is not to be: its name. */
void output_drop_temporary(apsp_output *o);
/* A shared output's temporary file gets, just before it goes into place, the mode (and owner)
 * that output_open_temporary gives an unshared one at once. Returns 0 or an errno value. */
int output_give_mode(apsp_output *o);
/* The temporary file's name in dir_fd. */
const char *output_temp_name(const apsp_output *o);
/* The target, opened in dir_fd without following a link, only if it is still the file found at
 * open. Returns the descriptor, or -1 with *err an errno value or TARGET_CHANGED. */
int output_open_target(const apsp_output *o, int *err);
/* The lock on a target written in place, so that two runs writing it at once leave one whole
 * result (output_lock.c). output_lock_copy, for the copy over it at commit: waits while another
 * holds it, unless this process holds a direct one (then TARGET_BUSY). output_lock_direct, for
 * a target written directly for a whole run (o->fd): never waits. The lock goes when the
 * descriptor is closed, or the process dies; output_unlock_direct, just before that close,
 * forgets it. Return 0 (locked, or a file system without locks), TARGET_BUSY or an errno
 * value. */
int output_lock_copy(int fd);
int output_lock_direct(apsp_output *o);
void output_unlock_direct(apsp_output *o);
/* An errno value, or what TARGET_CHANGED or TARGET_BUSY means. */
const char *output_error_text(int err);
/* Why OUTPUT is written in place, for the log; reported once (output_report_warning). */
void output_set_warning(apsp_output *o, const char *format, ...) APSP_PRINTF(2, 3);
void output_report_warning(apsp_output *o);
/* The output is staged in a temporary file (replaced, or copied over the target at commit):
 * a failure before the commit leaves the old file as it was. */
int output_staged(const apsp_output *o);

#endif
