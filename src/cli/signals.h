/* The apsp command's signals (apsp-mpi's too): a signal that ends a run removes the temporary
 * output file first, then ends the process by that same signal, so that the exit status still
 * says which. */
#ifndef APSP_CLI_SIGNALS_H
#define APSP_CLI_SIGNALS_H

#include "apsp.h"

/* Once, in main(), before the library starts any thread. */
void signals_install(void);
/* The output whose temporary file a signal removes; NULL once it was committed or aborted. */
void signals_watch_output(const apsp_output *output);
/* The same for a temporary file known by name: apsp-mpi's, which every rank opens by that name
 * (so it cannot be an unnamed one), and which every rank removes on a signal, since any of them
 * may be the one still alive (mpirun ends the others with SIGTERM when one dies). NULL: none. */
void signals_watch_path(const char *temp);

#endif
