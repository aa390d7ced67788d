/* SPDX-License-Identifier: Apache-2.0 */
/* MPI for the Fortran test of module ipt_mpi, from C, so that the test needs no Fortran
 * MPI library: MPI_COMM_WORLD as a Fortran handle, and the reductions of its checks. */
#include <mpi.h>

int ipt_test_mpi_init(int* rank, int* ranks);
int ipt_test_mpi_min(int value);
int ipt_test_mpi_max(int value);
int ipt_test_mpi_sum(int value);
void ipt_test_mpi_finalize(void);

/* Returns MPI_COMM_WORLD's Fortran handle. */
int ipt_test_mpi_init(int* rank, int* ranks) {
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, ranks);
  return (int)MPI_Comm_c2f(MPI_COMM_WORLD);
}

static int reduce(int value, MPI_Op op) {
  int result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_INT, op, MPI_COMM_WORLD);
  return result;
}

int ipt_test_mpi_min(int value) { return reduce(value, MPI_MIN); }
int ipt_test_mpi_max(int value) { return reduce(value, MPI_MAX); }
int ipt_test_mpi_sum(int value) { return reduce(value, MPI_SUM); }

void ipt_test_mpi_finalize(void) { MPI_Finalize(); }
