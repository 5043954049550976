/*
 * mpi_run.h - `streamlab run` under mpirun / srun (issue 15; docs/scale.md).
 */
#ifndef SL_MPI_RUN_H
#define SL_MPI_RUN_H

#include <stddef.h>

/* Non-zero when this process was started by an MPI launcher: one of
 * OMPI_COMM_WORLD_SIZE (Open MPI), PMI_SIZE (MPICH, Intel MPI, Slurm's
 * PMI-2), PMIX_RANK (PMIx: Open MPI 5, srun --mpi=pmix) or
 * MV2_COMM_WORLD_SIZE (MVAPICH2) is set. `what` (may be NULL) gets
 * "NAME=value". */
int cli_mpi_launched(char *what, size_t len);

/* `streamlab run` with one rank per device. In a build without MPI: a
 * message saying why MPI mode is unavailable and how to get it, exit 2. */
int cmd_run_mpi(int argc, char **argv);

#endif /* SL_MPI_RUN_H */
