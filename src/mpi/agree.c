/* See agree.h. */
#include "mpi/agree.h"

apsp_status agree(MPI_Comm comm, apsp_status status, apsp_error *error) {
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (status != APSP_OK && error->status == APSP_OK)
        error->status = status; /* a status that came without a message still counts */
    int mine = status != APSP_OK ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size)
        return APSP_OK;
    MPI_Bcast(error, (int)sizeof *error, MPI_BYTE, first, comm);
    return error->status;
}
