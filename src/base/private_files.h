/* Files that only this user (or root) can have written, for the kernel cache, whose files hold
 * native code that a driver runs (opencl/program_cache.c). The rule is OpenSSH's StrictModes: a
 * directory or file is trusted when it is owned by this user or root and is writable by neither
 * group nor others, and so is every directory above it up to the user's home (or /), where a
 * root-owned sticky one (/tmp) may be writable by all: others cannot rename or remove what is
 * ours in it. Files are opened without following a symbolic link and checked on the open
 * descriptor, so what is read is what was checked. */
#ifndef APSP_PRIVATE_FILES_H
#define APSP_PRIVATE_FILES_H

#include <stddef.h>

typedef enum private_dir_state {
    PRIVATE_DIR_TRUSTED,
    PRIVATE_DIR_ABSENT,  /* missing; the directory it would be made in is trusted */
    PRIVATE_DIR_REFUSED, /* `reason` names the directory and what is wrong with it */
} private_dir_state;

/* Checks `dir` and the directories above it. TRUSTED: `resolved` gets its absolute path with
 * every symbolic link resolved, the path to use from then on (a link that someone else owns
 * could be pointed elsewhere after the check). ABSENT: `resolved` gets the deepest directory
 * above it that exists, resolved and checked, and *missing points into `dir` at the
 * components still to be made below it (for private_dir_make). */
private_dir_state private_dir_check(const char *dir, char *resolved, size_t resolved_room,
                                    const char **missing, char *reason, size_t reason_room);

/* Makes the directories `missing` ("a/b") below `parent`, each private to the user (mode 0700)
 * and each made and opened relative to the one above it (mkdirat, then openat with O_NOFOLLOW),
 * never through a path again: a symbolic link put at a level after the check, by someone who
 * may write that directory (a sticky one such as /tmp), is not followed (ELOOP). 0, or -1 with
 * errno. Check the result again: a directory that was there keeps its mode. */
int private_dir_make(const char *parent, const char *missing);

/* The whole regular file at `path`, at most `most` bytes, when it is trusted: malloc'd, or NULL
 * with `reason` ("" when there is no such file). */
unsigned char *private_file_read(const char *path, size_t most, size_t *size, char *reason,
                                 size_t reason_room);

/* Replaces `path` by `size` bytes: a temporary file beside it, created exclusively with mode
 * 0600 and never through a symbolic link, renamed over it, so a reader sees the old file or
 * the whole new one. 0, or -1 with errno. */
int private_file_replace(const char *path, const void *data, size_t size);

/* Creates the file `path` of `size` bytes exclusively with mode 0600 (never through a symbolic
 * link); 0, or -1 with errno (EEXIST: it is there). */
int private_file_create(const char *path, const void *data, size_t size);

#endif
