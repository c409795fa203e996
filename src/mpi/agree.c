/* See agree.h. */
#include "mpi/agree.h"
#include "mpi/idle.h"

apsp_status agree(MPI_Comm comm, apsp_status status, apsp_error *error) {
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (status != APSP_OK && error->status == APSP_OK)
        error->status = status; /* a status that came without a message still counts */
    int mine = status != APSP_OK ? rank : size;
    /* Non-blocking, and waited on quietly: a rank here may wait as long as its slowest peer
     * (rank 0 reading the input, one stopped by SIGSTOP). */
    MPI_Request request;
    MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &request);
    idle_wait(1, &request);
    if (first == size)
        return APSP_OK;
    MPI_Ibcast(error, (int)sizeof *error, MPI_BYTE, first, comm, &request);
    idle_wait(1, &request);
    return error->status;
}
