/* Collective agreement on failure: every rank learns whether any rank failed, and the first
 * failing rank's error, so that all of them stop at the same point (never a rank left waiting in
 * a collective) and rank 0 prints one line. */
#ifndef APSP_MPI_AGREE_H
#define APSP_MPI_AGREE_H

#include "apsp.h"

#include <mpi.h>

/* Collective over comm. Returns APSP_OK when every rank passed APSP_OK; otherwise the status of
 * the lowest-ranked failing rank, whose error is copied into every rank's *error. */
apsp_status agree(MPI_Comm comm, apsp_status status, apsp_error *error);

#endif
