/* The apsp command's signals: a signal that ends a run removes the temporary output file first,
 * then ends the process by that same signal, so that the exit status still says which. */
#ifndef APSP_CLI_SIGNALS_H
#define APSP_CLI_SIGNALS_H

#include "apsp.h"

/* Once, in main(), before the library starts any thread. */
void signals_install(void);
/* The output whose temporary file a signal removes; NULL once it was committed or aborted. */
void signals_watch_output(const apsp_output *output);

#endif
