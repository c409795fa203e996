/* The lock of a file written in place (output_handle.h): one writer at a time, so that two runs
 * with one OUTPUT (a file of several hard links) leave one whole result, not the bytes of both.
 * An OFD lock (F_OFD_SETLKW) belongs to the open file, not to the process: another open of the
 * same file in this process conflicts too, and the kernel drops it when the file is closed,
 * also by a process killed while it held it. flock has the same two properties where OFD locks
 * are missing (kernels before 3.15). */
#define _GNU_SOURCE /* F_OFD_SETLKW */
#include "output/output_handle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/file.h>

/* Files this process writes directly under its lock, held for a whole run. While it holds one
 * it never waits for another lock: two runs each holding one and waiting for the other's (an
 * OUTPUT that is the other's --predecessors) would wait for ever, and OFD locks detect no such
 * cycle. A copy's lock is held only while the copy runs, which waits for nothing. */
static atomic_int direct_locks;

static int ofd_lock(int fd, int wait) {
#ifdef F_OFD_SETLKW
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int r;
    while ((r = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &whole)) != 0 && errno == EINTR)
        continue;
    return r == 0 ? 0 : errno;
#else
    (void)fd;
    (void)wait;
    return EINVAL;
#endif
}

static int flock_lock(int fd, int wait) {
    int r;
    while ((r = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR)
        continue;
    return r == 0 ? 0 : errno;
}

/* 0 when locked, or where the file system keeps no locks (written unlocked, as before);
 * TARGET_BUSY when another holds it and `wait` is 0; else an errno value. */
static int lock_target(int fd, int wait) {
    int err = ofd_lock(fd, wait);
    if (err == EINVAL)
        err = flock_lock(fd, wait);     /* no OFD locks in this kernel */
    if (err == EAGAIN || err == EACCES) /* flock's EWOULDBLOCK is EAGAIN */
        return TARGET_BUSY;
    return err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS || err == EINVAL ? 0 : err;
}

int output_lock_copy(int fd) {
    return lock_target(fd, atomic_load(&direct_locks) == 0);
}

int output_lock_direct(apsp_output *o) {
    int err = lock_target(o->fd, 0);
    if (!err) {
        atomic_fetch_add(&direct_locks, 1);
        o->direct_locked = 1;
    }
    return err;
}

void output_unlock_direct(apsp_output *o) {
    if (o->direct_locked)
        atomic_fetch_sub(&direct_locks, 1);
    o->direct_locked = 0; /* the lock itself goes with the descriptor */
}
