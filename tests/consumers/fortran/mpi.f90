! SPDX-License-Identifier: Apache-2.0
! Uses the installed ipt_mpi module with the communicators of `use mpi`; needs no device:
! the ranks' shares must cover the matrix, and a NULL queue must be refused on every rank.
program consumer_mpi
  use, intrinsic :: iso_c_binding
  use mpi
  use ipt
  use ipt_mpi
  implicit none
  type(ipt_mpi_local) :: local
  integer(c_int) :: status
  integer :: ierr, rank, rows, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  status = ipt_mpi_local_size(MPI_COMM_WORLD, 37_c_int64_t, 23_c_int64_t, local)
  if (status /= IPT_SUCCESS) error stop "ipt_mpi_local_size failed"
  rows = int(local%local_rows)
  call MPI_Allreduce(rows, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= 37) error stop "the shares do not cover the matrix"
  status = ipt_mpi_transpose_f32(MPI_COMM_WORLD, c_null_ptr, c_null_ptr, 0_c_int64_t, &
                                 37_c_int64_t, 23_c_int64_t, local)
  if (status /= IPT_INVALID_COMMAND_QUEUE) error stop "unexpected status"
  if (rank == 0) print '(a)', "Fortran: " // ipt_status_string(status)
  call MPI_Finalize(ierr)
end program consumer_mpi
