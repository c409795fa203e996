/* The exit status of the apsp and apsp-mpi commands for a status (include/apsp.h: APSP_STATUSES,
 * the one list; docs/usage.md, "Exit codes"). */
#ifndef APSP_CLI_EXIT_STATUS_H
#define APSP_CLI_EXIT_STATUS_H

#include "apsp.h"

enum { EXIT_STATUS_INTERNAL = 1 }; /* a status outside the list */

static inline int exit_status_of(apsp_status status) {
    switch (status) {
#define APSP_STATUS_EXIT(name, text, exit_status)                                                  \
    case name:                                                                                     \
        return exit_status;
        APSP_STATUSES(APSP_STATUS_EXIT)
#undef APSP_STATUS_EXIT
    }
    return EXIT_STATUS_INTERNAL;
}

#endif
