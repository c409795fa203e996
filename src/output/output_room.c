/* See output_room.h. */
#define _GNU_SOURCE /* fallocate */
#include "output/output_room.h"
#include "base/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

int room_visible(int fd, uint64_t bytes) {
    struct statvfs fs;
    if (fstatvfs(fd, &fs) != 0 || fs.f_frsize == 0 || fs.f_blocks == 0)
        return 1; /* unknown (some file systems report no sizes): fallocate will say */
    return (uint64_t)fs.f_bavail >= bytes / fs.f_frsize;
}

int file_system_local(int fd) {
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0)
        return 0;
    switch ((unsigned long)fs.f_type) {
    case TMPFS_MAGIC:
    case EXT4_SUPER_MAGIC: /* also ext2 and ext3 */
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
        return 1;
    default:
        return 0;
    }
}

/* fallocate's errno where it matters: file systems without it are written as they are. */
static int reserve(file_room *room) {
    if (room->bytes == 0)
        return 0;
    if (fallocate(room->fd, 0, 0, (off_t)room->bytes) == 0) {
        room->mappable = file_system_local(room->fd);
        return 0;
    }
    return errno == EOPNOTSUPP || errno == ENOSYS || errno == EINTR ? 0 : errno;
}

static void *reserve_thread(void *context) {
    file_room *room = context;
    room->error = reserve(room);
    return NULL;
}

void room_request(file_room *room, int fd, uint64_t bytes) {
    *room = (file_room){.fd = fd, .bytes = bytes};
    room->started = bytes > 0 && !fault_hit(FAULT_ALLOC) &&
                    pthread_create(&room->thread, NULL, reserve_thread, room) == 0;
    if (!room->started)
        room->error = reserve(room);
}

void room_settle(file_room *room) {
    if (room->started)
        pthread_join(room->thread, NULL);
    room->started = 0;
}

int room_wait(file_room *room) {
    room_settle(room);
    int err = room->error;
    room->error = 0;
    return err;
}

int room_mappable(const file_room *room) {
    return !room->started && room->mappable;
}
