/* Descriptors 0-2 and options of one value, for apsp and apsp-mpi (startup.h). */
#include "startup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int startup_reserve_streams(void) {
    int closed = 0;
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        /* open() takes the lowest free number, fd itself: those below it are open by now. */
        if (open("/dev/null", O_RDWR) != fd)
            return -1;
        closed |= 1 << fd;
    }
    return closed;
}

apsp_status startup_check_stream(int closed, int fd, int used, const char *what,
                                 apsp_error *error) {
    if (!used || !(closed & (1 << fd)))
        return APSP_OK;
    error->status = fd == STDIN_FILENO ? APSP_ERR_INPUT : APSP_ERR_OUTPUT;
    snprintf(error->message, sizeof error->message,
             fd == STDIN_FILENO
                 ? "%.200s: standard input is closed, so there is nothing to read"
                 : "%.200s: standard output is closed, so what goes there would be lost",
             what);
    return error->status;
}

const char *startup_repeated_option(const struct option *longs, int opt,
                                    unsigned char seen[STARTUP_OPTION_CODES]) {
    if (opt < 0 || opt >= STARTUP_OPTION_CODES)
        return NULL;
    for (const struct option *o = longs; o->name; o++)
        if (o->val == opt && o->flag == NULL && o->has_arg == required_argument)
            return seen[opt]++ ? o->name : NULL;
    return NULL;
}
