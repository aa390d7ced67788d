/* ipt_mpi_transpose_f64 for module ipt_mpi, whose communicators are Fortran handles: the
 * C API's _fortran forms take an elem_size and so never check for double support. */
#include "ipt/ipt_mpi.h"

ipt_status ipt_mpi_fortran_transpose_f64(MPI_Fint comm, cl_command_queue queue, cl_mem buffer,
                                         size_t offset, size_t rows, size_t cols, size_t local_rows,
                                         size_t local_row_start, unsigned flags);

ipt_status ipt_mpi_fortran_transpose_f64(MPI_Fint comm, cl_command_queue queue, cl_mem buffer,
                                         size_t offset, size_t rows, size_t cols, size_t local_rows,
                                         size_t local_row_start, unsigned flags) {
  return ipt_mpi_transpose_f64(MPI_Comm_f2c(comm), queue, buffer, offset, rows, cols, local_rows,
                               local_row_start, flags);
}
