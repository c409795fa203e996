/* See same_file.h. */
#include "same_file.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Which file a name is: an existing regular file by its device and inode (stat follows links,
 * as opening it would); one not made yet by its directory and its last component, found as the
 * output would find it, so that a dangling link is the name it would create. */
typedef struct identity {
    int known; /* 0: not a regular file, or nothing to compare by */
    dev_t dev;
    ino_t ino;
    char leaf[NAME_MAX + 1]; /* "" for an existing file */
} identity;

/* A name not made yet: by the directory and the name a write to it would create. */
static identity identify_new(const char *name) {
    identity id = {0};
    char target[PATH_MAX], dir[PATH_MAX];
    apsp_error ignored;
    if (apsp_output_target(name, target, sizeof target, &ignored) != APSP_OK)
        return id; /* refused: opening it as the output says why */
    const char *slash = strrchr(target, '/');
    const char *leaf = slash ? slash + 1 : target;
    int n = slash ? snprintf(dir, sizeof dir, "%.*s", (int)(slash - target + 1), target)
                  : snprintf(dir, sizeof dir, ".");
    struct stat st;
    if (n > 0 && (size_t)n < sizeof dir && strlen(leaf) < sizeof id.leaf && stat(dir, &st) == 0) {
        id = (identity){1, st.st_dev, st.st_ino, ""};
        snprintf(id.leaf, sizeof id.leaf, "%s", leaf);
    }
    return id;
}

static identity identify(const named_file *f) {
    identity id = {0};
    struct stat st;
    int stream = strcmp(f->name, "-") == 0;
    if (stream ? fstat(f->fd, &st) == 0 : stat(f->name, &st) == 0) {
        if (S_ISREG(st.st_mode))
            id = (identity){1, st.st_dev, st.st_ino, ""};
        return id;
    }
    return stream || errno != ENOENT ? id : identify_new(f->name);
}

static int same(const identity *a, const identity *b) {
    return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
           strcmp(a->leaf, b->leaf) == 0;
}

apsp_status refuse_same_files(const named_file *files, size_t count, apsp_error *err) {
    identity ids[8];
    if (count > sizeof ids / sizeof ids[0])
        count = sizeof ids / sizeof ids[0];
    for (size_t j = 0; j < count; j++) {
        ids[j] = files[j].name ? identify(&files[j]) : (identity){0};
        for (size_t i = 0; i < j; i++) {
            /* "-" twice is one standard stream: the command's own check (paths.c) says that. */
            if (!same(&ids[i], &ids[j]) ||
                (strcmp(files[i].name, "-") == 0 && strcmp(files[j].name, "-") == 0))
                continue;
            snprintf(err->message, sizeof err->message,
                     "%s%.400s: the same file as %s%.400s: name another (see apsp --help)",
                     files[j].label, files[j].name, files[i].label, files[i].name);
            return err->status = APSP_ERR_USAGE;
        }
    }
    return APSP_OK;
}
