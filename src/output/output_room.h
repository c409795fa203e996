/* The room of an output file on its file system (output_file.c's helper): asked for at once with
 * fallocate, on a thread beside the solve, so that a full disk fails before the writing and the
 * pages that tmpfs allocates (and zeroes) are not allocated while the rows go out. */
#ifndef APSP_OUTPUT_ROOM_H
#define APSP_OUTPUT_ROOM_H

#include <pthread.h>
#include <stdint.h>

typedef struct output_room {
    int fd;
    uint64_t bytes;
    pthread_t thread;
    int started;  /* the thread runs: room_wait joins it */
    int error;    /* fallocate's errno; 0: the room is there (or cannot be asked for) */
    int mappable; /* fallocate gave the file all its room, on a local file system: room_mappable */
} file_room;

/* Whether the file system shows `bytes` free for fd's file: 1 also when it does not say. */
int room_visible(int fd, uint64_t bytes);
/* Asks for `bytes` of room for fd's file, on a thread when one starts, else at once. */
void room_request(file_room *room, int fd, uint64_t bytes);
/* Waits for the request, its errno kept for room_wait. */
void room_settle(file_room *room);
/* Waits for the request; its errno (0: fine), once. */
int room_wait(file_room *room);
/* After room_wait: the room reserved on a local file system (tmpfs, ext2-4, xfs, btrfs), where a
 * store into a shared mapping of the file can neither lack space nor wait on a server that could
 * fail it (either would be a SIGBUS). */
int room_mappable(const file_room *room);
/* Whether fd's file is on one of those local file systems. */
int file_system_local(int fd);

#endif
