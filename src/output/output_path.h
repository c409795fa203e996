/* Paths for the output file: the directory part of a path, following symbolic links to the
 * file a write names (as open() would, with /proc's links to open files taken as they are), and
 * making a rename in a directory last. */
#ifndef APSP_OUTPUT_PATH_H
#define APSP_OUTPUT_PATH_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

/* The length of "dir/" in "dir/name" (0 for a bare name). */
size_t path_dir_length(const char *path);

/* The directory part of a path as a path of its own ("." for a bare name), into dir without
 * allocating (it is needed after the rename too, where a failure must not be an error).
 * Returns 0 or ENAMETOOLONG. */
int path_dir(const char *path, char dir[PATH_MAX]);

/* Follows *target (malloc'ed) through its symbolic links, one by one as open() would, replacing
 * it with the file that a write names. *exists and *st say whether that exists and what it is;
 * *via_proc, that a /proc link was met (then the target is that link, to an open file).
 * Returns 0 or an errno value. */
int path_resolve(char **target, int *exists, struct stat *st, int *via_proc);

/* fsync of target's directory, so that a rename into it lasts; 0 where the directory cannot be
 * opened or synced by this process or file system, else an errno value. */
int path_sync_dir(const char *target);
/* The same for a directory already open (O_PATH included, which cannot be synced). */
int dir_sync(int dir_fd);

/* "dir/name" -> "dir/.name.apsp-XXXXXX" (malloc'ed; NULL: no memory), the name cut short where
 * the whole would pass the file system's limit on a name (NAME_MAX, 255 bytes on most). */
char *path_temp_template(const char *target, const char *dir);
/* Six random characters over the XXXXXX at x: names of outputs opened at once, on several
 * threads or processes, differ. */
void path_random_suffix(char *x);

#endif
