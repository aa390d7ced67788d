! SPDX-License-Identifier: Apache-2.0
! libipt_mpi Fortran module: in-place transposition of a matrix distributed over the ranks
! of an MPI communicator by blocks of rows (ipt_mpi.h says what each call does).
!
! Communicators are Fortran integer handles, as `use mpi` gives them (with `use mpi_f08`,
! pass comm%MPI_VAL), so this module needs no Fortran MPI library. OpenCL handles are
! type(c_ptr), sizes and offsets integer(c_int64_t) as in module ipt, whose status
! constants (IPT_SUCCESS, ...) and ipt_status_string these functions share.
!
!   type(ipt_mpi_local) :: local
!   status = ipt_mpi_local_size(comm, rows, cols, local)
!   ! buffer: local%alloc_elements elements; rows local%local_row_start + [0, local_rows)
!   ! of the row-major rows x cols matrix (a Fortran array a(cols, local_rows))
!   status = ipt_mpi_transpose_f32(comm, queue, buffer, 0_c_int64_t, rows, cols, local)
!   ! now rows local%local_col_start + [0, local_cols) of the cols x rows transpose
!
! Blocks and the exchange: the optional block_rows, block_cols, scheme and staging_bytes
! (or a whole ipt_mpi_options, whose fields these override); every rank must pass the
! same. The transposing calls are collective and block until done. Bad input on any rank
! returns the same status on every rank with every buffer unchanged: a negative size,
! offset or option too (IPT_INVALID_VALUE, or IPT_INVALID_ELEMENT_SIZE for a negative
! elem_size; the module passes an invalid scheme to make every rank refuse, and the rank
! with the negative value names it in its ipt_mpi_last_error_message).
module ipt_mpi
  use, intrinsic :: iso_c_binding
  use ipt, only: IPT_INVALID_VALUE
  implicit none
  private

  integer(c_int), parameter, public :: IPT_MPI_TRANSPOSED_IN = 1
  integer(c_int), parameter, public :: IPT_MPI_TRANSPOSED_OUT = 2
  integer(c_int), parameter, public :: IPT_MPI_SCHEME_AUTO = 0
  integer(c_int), parameter, public :: IPT_MPI_SCHEME_PAIRWISE = 1
  integer(c_int), parameter, public :: IPT_MPI_SCHEME_ALLTOALL = 2

  ! A rank's share of the matrix and of its transpose (ipt_mpi_local in ipt_mpi.h).
  type, bind(C), public :: ipt_mpi_local
    integer(c_size_t) :: local_rows = 0, local_row_start = 0
    integer(c_size_t) :: local_cols = 0, local_col_start = 0
    integer(c_size_t) :: alloc_elements = 0
  end type

  ! The blocks and the exchange (ipt_mpi_options in ipt_mpi.h); 0 means the default.
  type, bind(C), public :: ipt_mpi_options
    integer(c_size_t) :: block_rows = 0, block_cols = 0
    integer(c_int) :: scheme = IPT_MPI_SCHEME_AUTO
    integer(c_size_t) :: staging_bytes = 0
  end type

  public :: ipt_mpi_local_size, ipt_mpi_transpose, ipt_mpi_transpose_f32
  public :: ipt_mpi_transpose_f64, ipt_mpi_set_staging_bytes, ipt_mpi_last_error_message

  ! Not a scheme: makes every rank of a call refuse it.
  integer(c_int), parameter :: invalid_scheme = -1

  interface
    function c_local_size(comm, rows, cols, options, local) &
        bind(C, name="ipt_mpi_local_size_fortran") result(status)
      import :: c_int, c_size_t, ipt_mpi_options, ipt_mpi_local
      integer(c_int), value :: comm
      integer(c_size_t), value :: rows, cols
      type(ipt_mpi_options), intent(in) :: options
      type(ipt_mpi_local), intent(out) :: local
      integer(c_int) :: status
    end function
    function c_transpose(comm, queue, buffer, offset, rows, cols, elem_size, local_rows, &
                         local_row_start, flags, options) &
        bind(C, name="ipt_mpi_transpose_fortran") result(status)
      import :: c_int, c_ptr, c_size_t, ipt_mpi_options
      integer(c_int), value :: comm, flags
      type(c_ptr), value :: queue, buffer
      integer(c_size_t), value :: offset, rows, cols, elem_size, local_rows, local_row_start
      type(ipt_mpi_options), intent(in) :: options
      integer(c_int) :: status
    end function
    function c_transpose_f64(comm, queue, buffer, offset, rows, cols, local_rows, &
                             local_row_start, flags, options) &
        bind(C, name="ipt_mpi_transpose_f64_fortran") result(status)
      import :: c_int, c_ptr, c_size_t, ipt_mpi_options
      integer(c_int), value :: comm, flags
      type(c_ptr), value :: queue, buffer
      integer(c_size_t), value :: offset, rows, cols, local_rows, local_row_start
      type(ipt_mpi_options), intent(in) :: options
      integer(c_int) :: status
    end function
    function c_set_staging_bytes(bytes) bind(C, name="ipt_mpi_set_staging_bytes") &
        result(previous)
      import :: c_size_t
      integer(c_size_t), value :: bytes
      integer(c_size_t) :: previous
    end function
    function c_set_last_error(status, message) bind(C, name="ipt_mpi_set_last_error") &
        result(result_status)
      import :: c_int, c_char
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int) :: result_status
    end function
    function c_last_error_message() bind(C, name="ipt_mpi_last_error_message") result(text)
      import :: c_ptr
      type(c_ptr) :: text
    end function
    function c_strlen(text) bind(C, name="strlen") result(length)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
      integer(c_size_t) :: length
    end function
  end interface

contains

  ! This rank's share in `comm` of a rows x cols matrix and of its transpose, with FFTW's
  ! default blocks or the given ones. Not collective. Returns IPT_SUCCESS,
  ! IPT_INVALID_VALUE (also for a negative argument) or IPT_SIZE_OVERFLOW.
  function ipt_mpi_local_size(comm, rows, cols, local, block_rows, block_cols, options) &
      result(status)
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in) :: rows, cols
    type(ipt_mpi_local), intent(out) :: local
    integer(c_int64_t), intent(in), optional :: block_rows, block_cols
    type(ipt_mpi_options), intent(in), optional :: options
    integer(c_int) :: status
    type(ipt_mpi_options) :: c_options
    character(len=:), allocatable :: negative
    local = ipt_mpi_local()
    negative = negative_argument("ipt_mpi_local_size", "rows cols", [rows, cols], block_rows, &
                                 block_cols, options=options)
    if (.not. options_to_c(c_options, options, block_rows, block_cols) .or. &
        len(negative) > 0) then
      status = c_set_last_error(IPT_INVALID_VALUE, negative // c_null_char)
      return
    end if
    status = c_local_size(int(comm, c_int), int(rows, c_size_t), int(cols, c_size_t), &
                          c_options, local)
  end function

  ! Collective over `comm`: transposes the rows x cols matrix of elem_size-byte elements
  ! (1, 2, 4, 8 or 16) distributed by blocks of rows; this rank's block at element
  ! `offset` of `buffer`, which must hold local%alloc_elements elements from there.
  ! `local`: this rank's share, from ipt_mpi_local_size with the same blocks. flags:
  ! IPT_MPI_TRANSPOSED_IN, IPT_MPI_TRANSPOSED_OUT (default 0).
  function ipt_mpi_transpose(comm, queue, buffer, offset, rows, cols, elem_size, local, flags, &
                             block_rows, block_cols, scheme, staging_bytes, options) &
      result(status)
    integer, intent(in) :: comm
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, rows, cols, elem_size
    type(ipt_mpi_local), intent(in) :: local
    integer(c_int), intent(in), optional :: flags, scheme
    integer(c_int64_t), intent(in), optional :: block_rows, block_cols, staging_bytes
    type(ipt_mpi_options), intent(in), optional :: options
    integer(c_int) :: status
    type(ipt_mpi_options) :: c_options
    integer(c_int) :: c_flags
    integer(c_int64_t) :: sizes(4)
    character(len=:), allocatable :: negative
    c_flags = 0
    if (present(flags)) c_flags = flags
    sizes = [offset, rows, cols, elem_size]
    ! A negative value cannot reach C as a size_t; this rank must still take part.
    if (.not. options_to_c(c_options, options, block_rows, block_cols, scheme, staging_bytes) &
        .or. any(sizes < 0)) then
      c_options = ipt_mpi_options(scheme=invalid_scheme)
      sizes = max(sizes, 0_c_int64_t)
    end if
    status = c_transpose(int(comm, c_int), queue, buffer, int(sizes(1), c_size_t), &
                         int(sizes(2), c_size_t), int(sizes(3), c_size_t), &
                         int(sizes(4), c_size_t), local%local_rows, local%local_row_start, &
                         c_flags, c_options)
    ! Every rank refused the invalid scheme; this rank's message names what it found.
    negative = negative_argument("ipt_mpi_transpose", "offset rows cols elem_size", &
                                 [offset, rows, cols, elem_size], block_rows, block_cols, &
                                 staging_bytes, options)
    if (len(negative) > 0 .and. status /= 0) &
      status = c_set_last_error(status, negative // c_null_char)
  end function

  ! ipt_mpi_transpose of 4-byte reals.
  function ipt_mpi_transpose_f32(comm, queue, buffer, offset, rows, cols, local, flags, &
                                 block_rows, block_cols, scheme, staging_bytes, options) &
      result(status)
    integer, intent(in) :: comm
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, rows, cols
    type(ipt_mpi_local), intent(in) :: local
    integer(c_int), intent(in), optional :: flags, scheme
    integer(c_int64_t), intent(in), optional :: block_rows, block_cols, staging_bytes
    type(ipt_mpi_options), intent(in), optional :: options
    integer(c_int) :: status
    status = ipt_mpi_transpose(comm, queue, buffer, offset, rows, cols, 4_c_int64_t, local, &
                               flags, block_rows, block_cols, scheme, staging_bytes, options)
  end function

  ! ipt_mpi_transpose of 8-byte reals (ipt_mpi_transpose_f64_with_options):
  ! IPT_FP64_NOT_SUPPORTED on every rank when a rank's device lacks doubles.
  function ipt_mpi_transpose_f64(comm, queue, buffer, offset, rows, cols, local, flags, &
                                 block_rows, block_cols, scheme, staging_bytes, options) &
      result(status)
    integer, intent(in) :: comm
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, rows, cols
    type(ipt_mpi_local), intent(in) :: local
    integer(c_int), intent(in), optional :: flags, scheme
    integer(c_int64_t), intent(in), optional :: block_rows, block_cols, staging_bytes
    type(ipt_mpi_options), intent(in), optional :: options
    integer(c_int) :: status
    integer(c_int) :: c_flags
    type(ipt_mpi_options) :: c_options
    ! A negative value cannot reach C as a size_t: the generic form makes every rank refuse.
    if (.not. options_to_c(c_options, options, block_rows, block_cols, scheme, staging_bytes) &
        .or. offset < 0 .or. rows < 0 .or. cols < 0) then
      status = ipt_mpi_transpose(comm, queue, buffer, offset, rows, cols, 8_c_int64_t, local, &
                                 flags, block_rows, block_cols, scheme, staging_bytes, options)
      return
    end if
    c_flags = 0
    if (present(flags)) c_flags = flags
    status = c_transpose_f64(int(comm, c_int), queue, buffer, int(offset, c_size_t), &
                             int(rows, c_size_t), int(cols, c_size_t), local%local_rows, &
                             local%local_row_start, c_flags, c_options)
  end function

  ! The process's default host staging per rank (at least 4 KiB); returns the previous
  ! value, or -1 for a negative `bytes`, which changes nothing.
  function ipt_mpi_set_staging_bytes(bytes) result(previous)
    integer(c_int64_t), intent(in) :: bytes
    integer(c_int64_t) :: previous
    previous = -1
    if (bytes >= 0) previous = int(c_set_staging_bytes(int(bytes, c_size_t)), c_int64_t)
  end function

  ! What the calling thread's last failed libipt_mpi call found, and on which rank
  ! (empty after a success).
  function ipt_mpi_last_error_message() result(text)
    character(len=:), allocatable :: text
    type(c_ptr) :: pointer
    character(kind=c_char), pointer :: chars(:)
    integer :: i, length
    pointer = c_last_error_message()
    length = int(c_strlen(pointer))
    allocate(character(len=length) :: text)
    call c_f_pointer(pointer, chars, [length])
    do i = 1, length
      text(i:i) = chars(i)
    end do
  end function

  ! The message for the first negative argument of `function_name` ("" when none is): the
  ! values `sizes` named by `names` (separated by single spaces), then the options.
  function negative_argument(function_name, names, sizes, block_rows, block_cols, &
                             staging_bytes, options) result(message)
    character(len=*), intent(in) :: function_name, names
    integer(c_int64_t), intent(in) :: sizes(:)
    integer(c_int64_t), intent(in), optional :: block_rows, block_cols, staging_bytes
    type(ipt_mpi_options), intent(in), optional :: options
    character(len=:), allocatable :: message
    integer :: i, start, length
    message = ""
    start = 1
    do i = 1, size(sizes)
      length = index(names(start:), " ") - 1
      if (length < 0) length = len(names) - start + 1
      call note(names(start:start + length - 1), sizes(i))
      start = start + length + 1
    end do
    if (present(options)) then
      call note("options%block_rows", int(options%block_rows, c_int64_t))
      call note("options%block_cols", int(options%block_cols, c_int64_t))
      call note("options%staging_bytes", int(options%staging_bytes, c_int64_t))
    end if
    if (present(block_rows)) call note("block_rows", block_rows)
    if (present(block_cols)) call note("block_cols", block_cols)
    if (present(staging_bytes)) call note("staging_bytes", staging_bytes)
  contains
    subroutine note(name, value)
      character(len=*), intent(in) :: name
      integer(c_int64_t), intent(in) :: value
      character(len=24) :: digits
      if (len(message) > 0 .or. value >= 0) return
      write(digits, '(I0)') value
      message = function_name // ": " // name // " is negative (" // trim(digits) // ")"
    end subroutine
  end function

  ! The C options: `options` (or the defaults) with the given fields in its place. False
  ! for a negative one, which size_t cannot hold.
  logical function options_to_c(c_options, options, block_rows, block_cols, scheme, &
                                staging_bytes) result(ok)
    type(ipt_mpi_options), intent(out) :: c_options
    type(ipt_mpi_options), intent(in), optional :: options
    integer(c_int64_t), intent(in), optional :: block_rows, block_cols, staging_bytes
    integer(c_int), intent(in), optional :: scheme
    ok = .true.
    c_options = ipt_mpi_options()
    if (present(options)) c_options = options
    if (present(block_rows)) then
      ok = ok .and. block_rows >= 0
      c_options%block_rows = int(max(block_rows, 0_c_int64_t), c_size_t)
    end if
    if (present(block_cols)) then
      ok = ok .and. block_cols >= 0
      c_options%block_cols = int(max(block_cols, 0_c_int64_t), c_size_t)
    end if
    if (present(staging_bytes)) then
      ok = ok .and. staging_bytes >= 0
      c_options%staging_bytes = int(max(staging_bytes, 0_c_int64_t), c_size_t)
    end if
    if (present(scheme)) c_options%scheme = scheme
    ok = ok .and. c_options%block_rows >= 0 .and. c_options%block_cols >= 0 .and. &
         c_options%staging_bytes >= 0
  end function

end module ipt_mpi
