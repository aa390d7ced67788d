! SPDX-License-Identifier: Apache-2.0
! Module ipt_mpi under mpirun: ipt_mpi_transpose_f32, _f64 and the elem_size form, with
! and without the TRANSPOSED flags and caller-given blocks (one where a rank holds
! nothing), each rank's block of the transpose checked against the global matrix, which
! every rank computes from each element's index, and the buffer's elements before the
! matrix and past its allocation unchanged; bad input, a negative size on one rank
! included, returns the same status on every rank and leaves every buffer as it was.
! MPI comes from tests/mpi/mpi_session.c, the device from tests/fortran/cl_session.cpp.
! Prints "mpi fortran (P ranks): N passed, N failed" on rank 0.
program test_mpi_fortran
  use, intrinsic :: iso_c_binding
  use ipt
  use ipt_mpi
  use cl_session
  implicit none
  interface
    integer(c_int) function ipt_test_mpi_init(rank, ranks) bind(C)
      import :: c_int
      integer(c_int), intent(out) :: rank, ranks
    end function
    integer(c_int) function ipt_test_mpi_min(value) bind(C)
      import :: c_int
      integer(c_int), value :: value
    end function
    integer(c_int) function ipt_test_mpi_max(value) bind(C)
      import :: c_int
      integer(c_int), value :: value
    end function
    integer(c_int) function ipt_test_mpi_sum(value) bind(C)
      import :: c_int
      integer(c_int), value :: value
    end function
    subroutine ipt_test_mpi_finalize() bind(C)
    end subroutine
  end interface

  integer(c_int64_t), parameter :: offset = 3, guard = 8  ! elements around the block
  integer :: comm
  integer(c_int) :: rank, ranks, passed_all, failed_all
  integer :: passed = 0, failed = 0
  type(c_ptr) :: context, queue, device

  comm = ipt_test_mpi_init(rank, ranks)
  if (ipt_test_open(context, queue, device) /= 0) error stop "no OpenCL device"

  call run("f32", 4_c_int64_t, 37_c_int64_t, 23_c_int64_t, 0)
  call run("f32", 4_c_int64_t, 37_c_int64_t, 23_c_int64_t, IPT_MPI_TRANSPOSED_IN)
  call run("f32", 4_c_int64_t, 5_c_int64_t, 131_c_int64_t, IPT_MPI_TRANSPOSED_OUT)
  call run("f64", 8_c_int64_t, 41_c_int64_t, 17_c_int64_t, 0)
  call run("f64", 8_c_int64_t, 41_c_int64_t, 17_c_int64_t, IPT_MPI_TRANSPOSED_OUT)
  call run("raw", 2_c_int64_t, 29_c_int64_t, 64_c_int64_t, 0)
  call run("raw", 16_c_int64_t, 13_c_int64_t, 19_c_int64_t, IPT_MPI_TRANSPOSED_IN)
  ! Rank 0 holds every row, the last ranks none of the transpose's.
  call run("f32", 4_c_int64_t, 37_c_int64_t, 23_c_int64_t, 0, block_rows=37_c_int64_t, &
           block_cols=12_c_int64_t)
  call run("f64", 8_c_int64_t, 37_c_int64_t, 23_c_int64_t, IPT_MPI_TRANSPOSED_IN, &
           options=ipt_mpi_options(block_rows=20, block_cols=23))
  call run("raw", 4_c_int64_t, 97_c_int64_t, 61_c_int64_t, 0, &
           options=ipt_mpi_options(scheme=IPT_MPI_SCHEME_ALLTOALL, staging_bytes=4096))
  call bad_input()

  call ipt_test_close()
  passed_all = ipt_test_mpi_sum(int(passed, c_int))
  failed_all = ipt_test_mpi_sum(int(failed, c_int))
  if (rank == 0) print '(a, i0, a, i0, a, i0, a)', "mpi fortran (", ranks, " ranks): ", &
    passed_all, " passed, ", failed_all, " failed"
  call ipt_test_mpi_finalize()
  if (failed_all /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      passed = passed + 1
    else
      failed = failed + 1
      print '(a, i0, a, a)', "rank ", rank, ": FAILED: ", what
    end if
  end subroutine

  logical function everywhere(status, want)
    integer(c_int), intent(in) :: status, want
    everywhere = ipt_test_mpi_min(status) == want .and. ipt_test_mpi_max(status) == want
  end function

  ! The e bytes of element (i, j) (from 0) of the global rows x cols matrix.
  function value(i, j, cols, e) result(bytes)
    integer(c_int64_t), intent(in) :: i, j, cols, e
    integer(c_int8_t) :: bytes(e)
    integer(c_int64_t) :: k
    k = i * cols + j + 1
    bytes = transfer([k * 7919_c_int64_t + 13, -k], bytes, int(e))
  end function

  ! The rank's buffer as bytes: a fill value, its input block at `offset`.
  subroutine fill(host, local, cols, e, transposed_in)
    integer(c_int8_t), intent(out) :: host(:)
    type(ipt_mpi_local), intent(in) :: local
    integer(c_int64_t), intent(in) :: cols, e
    logical, intent(in) :: transposed_in
    integer(c_int64_t) :: i, j, at
    host = -77
    do i = 0, local%local_rows - 1
      do j = 0, cols - 1
        at = i * cols + j
        if (transposed_in) at = j * local%local_rows + i
        host((offset + at) * e + 1:(offset + at + 1) * e) = value(local%local_row_start + i, j, &
                                                                   cols, e)
      end do
    end do
  end subroutine

  ! One distributed call by `form` (f32, f64, or raw: the elem_size form), checked.
  subroutine run(form, e, rows, cols, flags, block_rows, block_cols, options)
    character(len=*), intent(in) :: form
    integer(c_int64_t), intent(in) :: e, rows, cols
    integer(c_int), intent(in) :: flags
    integer(c_int64_t), intent(in), optional :: block_rows, block_cols
    type(ipt_mpi_options), intent(in), optional :: options
    type(ipt_mpi_local) :: local
    integer(c_int8_t), allocatable, target :: host(:), back(:)
    type(c_ptr) :: buffer
    integer(c_int) :: status
    integer(c_int64_t) :: i, j, at, n
    logical :: right, out
    character(len=120) :: what
    write (what, '(a, 1x, i0, a, i0, a, i0, a, i0, a, l1)') form, e, "-byte, ", rows, " x ", &
      cols, ", flags ", flags, ", options ", present(options) .or. present(block_rows)
    status = ipt_mpi_local_size(comm, rows, cols, local, block_rows, block_cols, options)
    call expect(status == IPT_SUCCESS, trim(what) // ": local size")
    n = (offset + local%alloc_elements + guard) * e
    allocate(host(n), back(n))
    call fill(host, local, cols, e, iand(flags, IPT_MPI_TRANSPOSED_IN) /= 0)
    buffer = ipt_test_buffer(int(n, c_size_t), c_loc(host))
    select case (form)
    case ("f32")
      status = ipt_mpi_transpose_f32(comm, queue, buffer, offset, rows, cols, local, flags, &
                                     block_rows=block_rows, block_cols=block_cols, options=options)
    case ("f64")
      status = ipt_mpi_transpose_f64(comm, queue, buffer, offset, rows, cols, local, flags, &
                                     block_rows=block_rows, block_cols=block_cols, options=options)
    case default
      status = ipt_mpi_transpose(comm, queue, buffer, offset, rows, cols, e, local, flags, &
                                 block_rows=block_rows, block_cols=block_cols, options=options)
    end select
    if (status == IPT_FP64_NOT_SUPPORTED .and. form == "f64") then
      ! Only the form without options checks, and it refuses on every rank.
      call expect(.not. (present(options) .or. present(block_rows)), trim(what) // ": fp64")
      call expect(everywhere(status, IPT_FP64_NOT_SUPPORTED), trim(what) // ": fp64 everywhere")
      call ipt_test_release_buffer(buffer)
      return
    end if
    call expect(everywhere(status, IPT_SUCCESS), trim(what) // ": " // &
                ipt_status_string(status) // " " // ipt_mpi_last_error_message())
    call expect(ipt_test_read(buffer, int(n, c_size_t), c_loc(back)) == 0, trim(what) // ": read")
    call ipt_test_release_buffer(buffer)
    call expect(all(back(1:offset * e) == host(1:offset * e)), &
                trim(what) // ": an element before the matrix changed")
    call expect(all(back(n - guard * e + 1:) == host(n - guard * e + 1:)), &
                trim(what) // ": an element past the allocation changed")
    ! Rows [col_start, col_start + local_cols) of the cols x rows transpose: its (j, i) is
    ! the matrix's (i, col_start + j).
    out = iand(flags, IPT_MPI_TRANSPOSED_OUT) /= 0
    right = .true.
    do j = 0, local%local_cols - 1
      do i = 0, rows - 1
        at = j * rows + i
        if (out) at = i * local%local_cols + j
        right = right .and. all(back((offset + at) * e + 1:(offset + at + 1) * e) == &
                                value(i, local%local_col_start + j, cols, e))
      end do
    end do
    call expect(right, trim(what) // ": the transpose")
  end subroutine

  subroutine bad_input()
    integer(c_int64_t), parameter :: rows = 37, cols = 23, e = 4
    type(ipt_mpi_local) :: local
    integer(c_int8_t), allocatable, target :: host(:), back(:)
    type(c_ptr) :: buffer
    integer(c_int) :: status
    integer(c_int64_t) :: n, my_rows
    status = ipt_mpi_local_size(comm, rows, cols, local)
    n = (offset + local%alloc_elements + guard) * e
    allocate(host(n), back(n))
    call fill(host, local, cols, e, .false.)
    buffer = ipt_test_buffer(int(n, c_size_t), c_loc(host))

    status = ipt_mpi_transpose(comm, queue, buffer, offset, rows, cols, 3_c_int64_t, local)
    call expect(everywhere(status, IPT_INVALID_ELEMENT_SIZE), "elem_size 3 on every rank")
    call expect(index(ipt_mpi_last_error_message(), "rank ") == 1, &
                "the message names the rank: " // ipt_mpi_last_error_message())
    ! Negative values on one rank: the others must not wait for it.
    my_rows = rows
    if (rank == 0) my_rows = -1
    status = ipt_mpi_transpose_f32(comm, queue, buffer, offset, my_rows, cols, local)
    call expect(everywhere(status, IPT_INVALID_VALUE), "negative rows on rank 0")
    if (rank == 0) call expect(ipt_mpi_last_error_message() == &
                               "ipt_mpi_transpose: rows is negative (-1)", &
                               "negative rows: the message names them: " // &
                               ipt_mpi_last_error_message())
    status = ipt_mpi_transpose_f64(comm, queue, buffer, offset, my_rows, cols, local)
    call expect(everywhere(status, IPT_INVALID_VALUE), "f64, negative rows on rank 0")
    if (rank == ranks - 1) then
      status = ipt_mpi_transpose_f32(comm, queue, buffer, offset, rows, cols, local, &
                                     block_rows=-5_c_int64_t)
    else
      status = ipt_mpi_transpose_f32(comm, queue, buffer, offset, rows, cols, local)
    end if
    call expect(everywhere(status, IPT_INVALID_VALUE), "a negative block on the last rank")
    if (rank == ranks - 1) call expect(ipt_mpi_last_error_message() == &
                                       "ipt_mpi_transpose: block_rows is negative (-5)", &
                                       "a negative block: the message names it: " // &
                                       ipt_mpi_last_error_message())
    status = ipt_mpi_transpose_f32(comm, queue, buffer, offset, rows, cols, local, &
                                   flags=4_c_int)
    call expect(everywhere(status, IPT_INVALID_VALUE), "unknown flags")
    status = ipt_mpi_transpose_f32(comm, queue, buffer, offset, rows, cols, local, &
                                   scheme=7_c_int)
    call expect(everywhere(status, IPT_INVALID_VALUE), "an unknown scheme")
    status = ipt_mpi_transpose_f32(comm, queue, buffer, offset, rows, cols, local, &
                                   block_rows=rows)
    call expect(everywhere(status, IPT_INVALID_VALUE), "a block that is not the rank's share")
    status = ipt_mpi_transpose_f32(comm, queue, buffer, n, rows, cols, local)
    call expect(everywhere(status, IPT_BUFFER_TOO_SMALL), "an offset past the buffer")
    call expect(ipt_test_read(buffer, int(n, c_size_t), c_loc(back)) == 0, "bad input: read")
    call expect(all(back == host), "bad input left the buffer as it was")
    call ipt_test_release_buffer(buffer)

    ! Not collective.
    call expect(ipt_mpi_local_size(comm, -1_c_int64_t, cols, local) == IPT_INVALID_VALUE, &
                "local size of negative rows")
    call expect(ipt_mpi_last_error_message() == "ipt_mpi_local_size: rows is negative (-1)", &
                "local size of negative rows: the message: " // ipt_mpi_last_error_message())
    call expect(local%alloc_elements == 0, "local size of negative rows: local is zero")
    call expect(ipt_mpi_local_size(comm, rows, cols, local, block_rows=1_c_int64_t) == &
                IPT_INVALID_VALUE .or. ranks >= rows, "blocks that do not cover the matrix")
    call expect(ipt_mpi_set_staging_bytes(-1_c_int64_t) == -1, "negative staging refused")
  end subroutine

end program test_mpi_fortran
