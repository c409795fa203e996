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

/* Not errno values (output_handle.h's TARGET_CHANGED, NOT_RENAMED and TARGET_BUSY are -1, -2
 * and -5): what the
 * kernel's rule for sticky directories refuses (path_resolve). */
enum {
    LINK_NOT_FOLLOWED = -3, /* a link of another user in a shared sticky directory */
    FOREIGN_FILE = -4,      /* a file or FIFO of another user there, not to be written */
};

/* What path_resolve found. */
typedef struct path_found {
    int exists;      /* the final target exists; st says what it is */
    int via_proc;    /* a /proc link was met: the target is that link, to an open file */
    struct stat st;  /* the target's (not following it); refused: the link's or the file's */
    int dir_fd;      /* the target's directory, held (else O_PATH); -1 after a failure */
    struct stat dir; /* that directory, as the checks saw it */
    char *link;      /* LINK_NOT_FOLLOWED: the link (malloc'ed), *target being what it names */
} path_found;

/* Follows *target (malloc'ed) through its symbolic links, one by one as open() would, replacing
 * it with the file that a write names, and holds that file's directory (found->dir_fd, for the
 * caller to keep or close; found->link to free). The kernel's rule for a sticky directory that
 * others may write is applied at every hop, root included, since the kernel's own
 * (fs.protected_symlinks, fs.protected_regular) cannot see links that apsp reads itself: a link
 * there is followed, and an existing file or FIFO there written, only where it belongs to this
 * user or to the directory's owner. Returns 0, an errno value, LINK_NOT_FOLLOWED or
 * FOREIGN_FILE. */
int path_resolve(char **target, path_found *found);

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
