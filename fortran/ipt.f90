! SPDX-License-Identifier: Apache-2.0
! libipt Fortran module: in-place matrix transposition on OpenCL devices.
!
! Fortran arrays are column-major. A Fortran array a(m, n) has the bytes of a row-major
! n x m matrix, so to transpose it call with rows = n, cols = m; afterwards the buffer
! holds the column-major n x m array transpose(a).
!
! OpenCL handles (cl_command_queue, cl_mem, cl_device_id, cl_event) are type(c_ptr).
! Dimensions and offsets are integer(c_int64_t) (offset in elements); negative values
! return IPT_INVALID_VALUE without touching anything, ipt_last_error_message naming the
! value. Every function returns an ipt
! status (IPT_SUCCESS = 0, errors negative); ipt_status_string and ipt_last_error_message
! explain it. Calls are asynchronous: pass `event` to get an event to wait on (release it
! with clReleaseEvent), `wait_list` to make the call wait for other events.
module ipt
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: IPT_SUCCESS = 0
  integer(c_int), parameter, public :: IPT_OUT_OF_RESOURCES = -5
  integer(c_int), parameter, public :: IPT_OUT_OF_HOST_MEMORY = -6
  integer(c_int), parameter, public :: IPT_BUILD_PROGRAM_FAILURE = -11
  integer(c_int), parameter, public :: IPT_INVALID_VALUE = -30
  integer(c_int), parameter, public :: IPT_INVALID_DEVICE = -33
  integer(c_int), parameter, public :: IPT_INVALID_CONTEXT = -34
  integer(c_int), parameter, public :: IPT_INVALID_COMMAND_QUEUE = -36
  integer(c_int), parameter, public :: IPT_INVALID_MEM_OBJECT = -38
  integer(c_int), parameter, public :: IPT_INVALID_EVENT_WAIT_LIST = -57
  integer(c_int), parameter, public :: IPT_INVALID_ELEMENT_SIZE = -1001
  integer(c_int), parameter, public :: IPT_SIZE_OVERFLOW = -1002
  integer(c_int), parameter, public :: IPT_BUFFER_TOO_SMALL = -1003
  integer(c_int), parameter, public :: IPT_FP64_NOT_SUPPORTED = -1004
  integer(c_int), parameter, public :: IPT_MATRIX_TOO_LARGE = -1005
  integer(c_int), parameter, public :: IPT_ROLLED_BACK = -1006
  integer(c_int), parameter, public :: IPT_BUFFER_UNDEFINED = -1007
  integer(c_int), parameter, public :: IPT_EXTERNAL_MEMORY_UNSUPPORTED = -1008
  integer(c_int), parameter, public :: IPT_INTERNAL_ERROR = -1999

  ! Sequences and padding of ipt_plan / ipt_transpose_with_options (ipt.h says what each
  ! sequence is).
  integer(c_int), parameter, public :: IPT_SEQUENCE_AUTO = 0
  integer(c_int), parameter, public :: IPT_SEQUENCE_SQUARE = 1
  integer(c_int), parameter, public :: IPT_SEQUENCE_ONE_STAGE = 2
  integer(c_int), parameter, public :: IPT_SEQUENCE_2_1 = 3
  integer(c_int), parameter, public :: IPT_SEQUENCE_2_2 = 4
  integer(c_int), parameter, public :: IPT_SEQUENCE_3_1 = 5
  integer(c_int), parameter, public :: IPT_SEQUENCE_3_2 = 6
  integer(c_int), parameter, public :: IPT_SEQUENCE_4_1 = 7
  integer(c_int), parameter, public :: IPT_SEQUENCE_4_2 = 8
  integer(c_int), parameter, public :: IPT_SEQUENCE_ON_CHIP = 9
  integer(c_int), parameter, public :: IPT_PADDING_AUTO = 0
  integer(c_int), parameter, public :: IPT_PADDING_OFF = 1
  integer(c_int), parameter, public :: IPT_HOST_AUTO = 0
  integer(c_int), parameter, public :: IPT_HOST_DEVICE = 1
  integer(c_int), parameter, public :: IPT_HOST_CPU = 2
  integer(c_int), parameter, public :: IPT_HOST_PIN_AUTO = 0
  integer(c_int), parameter, public :: IPT_HOST_PIN_OFF = 1
  integer(c_int), parameter, public :: IPT_HOST_PIN_ON = 2

  ! A caller-adjusted plan; the defaults mean "automatic" (as ipt_plan_options in ipt.h:
  ! m, n and the padded shape 0 for the planner's; max_bytes 0 for the buffer's size in a
  ! call, no limit in ipt_plan).
  type, public :: ipt_plan_options
    integer(c_int) :: sequence = IPT_SEQUENCE_AUTO
    integer(c_int64_t) :: m = 0, n = 0
    integer(c_int) :: padding = IPT_PADDING_AUTO
    integer(c_int64_t) :: padded_rows = 0, padded_cols = 0, max_bytes = 0
  end type

  ! What ipt_plan reports (ipt_plan_info in ipt.h); description is the plan in words.
  type, public :: ipt_plan_info
    integer(c_int) :: sequence = IPT_SEQUENCE_AUTO
    integer(c_int64_t) :: m = 0, n = 0, padded_rows = 0, padded_cols = 0
    integer(c_int) :: num_stages = 0
    integer(c_int64_t) :: scratch_bytes = 0
    integer(c_int64_t) :: borrowed_bytes = 0
    character(len=:), allocatable :: description
  end type

  ! The C layouts of ipt_plan_options and ipt_plan_info (enums and unsigned are int-sized).
  type, bind(C) :: c_plan_options
    integer(c_int) :: sequence
    integer(c_size_t) :: m, n
    integer(c_int) :: padding
    integer(c_size_t) :: padded_rows, padded_cols, max_bytes
  end type

  type, bind(C) :: c_plan_info
    integer(c_int) :: sequence
    integer(c_size_t) :: m, n, padded_rows, padded_cols
    integer(c_int) :: num_stages
    integer(c_size_t) :: scratch_bytes
    integer(c_size_t) :: borrowed_bytes
    character(kind=c_char) :: description(1024)
  end type

  public :: ipt_transpose_f32, ipt_transpose_f64, ipt_transpose, ipt_padded_size
  public :: ipt_warmup, ipt_clear_cache, ipt_status_string, ipt_last_error_message
  public :: ipt_plan, ipt_transpose_with_options, ipt_sequence_name
  public :: ipt_transpose_batched, ipt_transpose_batched_f32, ipt_transpose_batched_f64
  public :: ipt_permute
  public :: ipt_transpose_host, ipt_transpose_host_f32, ipt_transpose_host_f64

  ! The names of checked arguments, as array constructors take them ("").
  integer, parameter :: name_length = 20
  character(len=name_length), parameter :: name_t = ""

  type, bind(C) :: c_host_options
    integer(c_int) :: scheme
    integer(c_int32_t) :: threads
    integer(c_int) :: pinning
    integer(c_int32_t) :: slices
  end type

  interface
    function c_transpose(queue, buffer, offset, rows, cols, num_events, wait_list, event, &
                         elem_size) bind(C, name="ipt_transpose") result(status)
      import :: c_ptr, c_size_t, c_int32_t, c_int
      type(c_ptr), value :: queue, buffer, wait_list, event
      integer(c_size_t), value :: offset, rows, cols, elem_size
      integer(c_int32_t), value :: num_events
      integer(c_int) :: status
    end function
    function c_transpose_f64(queue, buffer, offset, rows, cols, num_events, wait_list, event) &
        bind(C, name="ipt_transpose_f64") result(status)
      import :: c_ptr, c_size_t, c_int32_t, c_int
      type(c_ptr), value :: queue, buffer, wait_list, event
      integer(c_size_t), value :: offset, rows, cols
      integer(c_int32_t), value :: num_events
      integer(c_int) :: status
    end function
    function c_transpose_batched(queue, buffer, offset, batch, rows, cols, num_events, &
                                 wait_list, event, elem_size) &
        bind(C, name="ipt_transpose_batched") result(status)
      import :: c_ptr, c_size_t, c_int32_t, c_int
      type(c_ptr), value :: queue, buffer, wait_list, event
      integer(c_size_t), value :: offset, batch, rows, cols, elem_size
      integer(c_int32_t), value :: num_events
      integer(c_int) :: status
    end function
    function c_transpose_batched_f64(queue, buffer, offset, batch, rows, cols, num_events, &
                                     wait_list, event) &
        bind(C, name="ipt_transpose_batched_f64") result(status)
      import :: c_ptr, c_size_t, c_int32_t, c_int
      type(c_ptr), value :: queue, buffer, wait_list, event
      integer(c_size_t), value :: offset, batch, rows, cols
      integer(c_int32_t), value :: num_events
      integer(c_int) :: status
    end function
    function c_permute(queue, buffer, offset, rank, dims, perm, elem_size, num_events, &
                       wait_list, event) bind(C, name="ipt_permute") result(status)
      import :: c_ptr, c_size_t, c_int32_t, c_int
      type(c_ptr), value :: queue, buffer, wait_list, event
      integer(c_size_t), value :: offset, rank, elem_size
      integer(c_size_t), intent(in) :: dims(*), perm(*)
      integer(c_int32_t), value :: num_events
      integer(c_int) :: status
    end function
    function c_padded_size(device, rows, cols, elem_size, bytes) &
        bind(C, name="ipt_padded_size") result(status)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: device
      integer(c_size_t), value :: rows, cols, elem_size
      integer(c_size_t), intent(out) :: bytes
      integer(c_int) :: status
    end function
    function c_warmup(context, device, elem_size) bind(C, name="ipt_warmup") result(status)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: context, device
      integer(c_size_t), value :: elem_size
      integer(c_int) :: status
    end function
    function c_transpose_host(queue, host, rows, cols, elem_size, options) &
        bind(C, name="ipt_transpose_host") result(status)
      import :: c_ptr, c_size_t, c_int, c_host_options
      type(c_ptr), value :: queue, host
      integer(c_size_t), value :: rows, cols, elem_size
      type(c_host_options), intent(in) :: options
      integer(c_int) :: status
    end function
    function c_clear_cache() bind(C, name="ipt_clear_cache") result(status)
      import :: c_int
      integer(c_int) :: status
    end function
    function c_status_string(status) bind(C, name="ipt_status_string") result(text)
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: text
    end function
    function c_last_error_message() bind(C, name="ipt_last_error_message") result(text)
      import :: c_ptr
      type(c_ptr) :: text
    end function
    function c_sequence_name(sequence) bind(C, name="ipt_sequence_name") result(text)
      import :: c_int, c_ptr
      integer(c_int), value :: sequence
      type(c_ptr) :: text
    end function
    function c_plan(device, rows, cols, elem_size, options, info) bind(C, name="ipt_plan") &
        result(status)
      import :: c_ptr, c_size_t, c_int, c_plan_info
      type(c_ptr), value :: device, options
      integer(c_size_t), value :: rows, cols, elem_size
      type(c_plan_info), intent(out) :: info
      integer(c_int) :: status
    end function
    function c_transpose_with_options(queue, buffer, offset, rows, cols, elem_size, options, &
                                      num_events, wait_list, event) &
        bind(C, name="ipt_transpose_with_options") result(status)
      import :: c_ptr, c_size_t, c_int32_t, c_int
      type(c_ptr), value :: queue, buffer, options, wait_list, event
      integer(c_size_t), value :: offset, rows, cols, elem_size
      integer(c_int32_t), value :: num_events
      integer(c_int) :: status
    end function
    function c_set_last_error(status, message) bind(C, name="ipt_set_last_error") &
        result(result_status)
      import :: c_int, c_char
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int) :: result_status
    end function
    function c_strlen(text) bind(C, name="strlen") result(length)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
      integer(c_size_t) :: length
    end function
  end interface

contains

  ! Transposes the row-major rows x cols matrix of 4-byte reals at `offset` in `buffer`.
  function ipt_transpose_f32(queue, buffer, offset, rows, cols, event, wait_list) result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, rows, cols
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    if (present(event)) event = c_null_ptr
    status = check_sizes("ipt_transpose_f32", "offset rows cols", [offset, rows, cols])
    if (status /= IPT_SUCCESS) return
    status = ipt_transpose(queue, buffer, offset, rows, cols, 4_c_int64_t, event, wait_list)
  end function

  ! Transposes 8-byte reals; IPT_FP64_NOT_SUPPORTED on a device without double support.
  function ipt_transpose_f64(queue, buffer, offset, rows, cols, event, wait_list) result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, rows, cols
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    type(c_ptr) :: event_arg, list_arg
    type(c_ptr), allocatable, target :: waits(:)
    integer(c_int32_t) :: count
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    status = check_sizes("ipt_transpose_f64", "offset rows cols", [offset, rows, cols])
    if (status /= IPT_SUCCESS) return
    status = c_transpose_f64(queue, buffer, int(offset, c_size_t), int(rows, c_size_t), &
                             int(cols, c_size_t), count, list_arg, event_arg)
  end function

  ! Transposes elements of elem_size bytes (1, 2, 4, 8 or 16: integers, reals, complex).
  function ipt_transpose(queue, buffer, offset, rows, cols, elem_size, event, wait_list) &
      result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, rows, cols, elem_size
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    type(c_ptr) :: event_arg, list_arg
    type(c_ptr), allocatable, target :: waits(:)
    integer(c_int32_t) :: count
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    status = check_sizes("ipt_transpose", "offset rows cols elem_size", &
                         [offset, rows, cols, elem_size])
    if (status /= IPT_SUCCESS) return
    status = c_transpose(queue, buffer, int(offset, c_size_t), int(rows, c_size_t), &
                         int(cols, c_size_t), count, list_arg, event_arg, int(elem_size, c_size_t))
  end function

  ! Transposes `batch` row-major rows x cols matrices of elem_size-byte elements, stored
  ! back to back from `offset` in `buffer`, each in place, in one call.
  function ipt_transpose_batched(queue, buffer, offset, batch, rows, cols, elem_size, event, &
                                 wait_list) result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, batch, rows, cols, elem_size
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    type(c_ptr) :: event_arg, list_arg
    type(c_ptr), allocatable, target :: waits(:)
    integer(c_int32_t) :: count
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    status = check_sizes("ipt_transpose_batched", "offset batch rows cols elem_size", &
                         [offset, batch, rows, cols, elem_size])
    if (status /= IPT_SUCCESS) return
    status = c_transpose_batched(queue, buffer, int(offset, c_size_t), int(batch, c_size_t), &
                                 int(rows, c_size_t), int(cols, c_size_t), count, list_arg, &
                                 event_arg, int(elem_size, c_size_t))
  end function

  ! ipt_transpose_batched of 4-byte reals.
  function ipt_transpose_batched_f32(queue, buffer, offset, batch, rows, cols, event, &
                                     wait_list) result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, batch, rows, cols
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    if (present(event)) event = c_null_ptr
    status = check_sizes("ipt_transpose_batched_f32", "offset batch rows cols", &
                         [offset, batch, rows, cols])
    if (status /= IPT_SUCCESS) return
    status = ipt_transpose_batched(queue, buffer, offset, batch, rows, cols, 4_c_int64_t, &
                                   event, wait_list)
  end function

  ! ipt_transpose_batched of 8-byte reals; IPT_FP64_NOT_SUPPORTED on a device without
  ! double support.
  function ipt_transpose_batched_f64(queue, buffer, offset, batch, rows, cols, event, &
                                     wait_list) result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, batch, rows, cols
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    type(c_ptr) :: event_arg, list_arg
    type(c_ptr), allocatable, target :: waits(:)
    integer(c_int32_t) :: count
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    status = check_sizes("ipt_transpose_batched_f64", "offset batch rows cols", &
                         [offset, batch, rows, cols])
    if (status /= IPT_SUCCESS) return
    status = c_transpose_batched_f64(queue, buffer, int(offset, c_size_t), &
                                     int(batch, c_size_t), int(rows, c_size_t), &
                                     int(cols, c_size_t), count, list_arg, event_arg)
  end function

  ! Permutes, in place, the dimensions of the column-major array of `extents` (its
  ! shape, first dimension fastest) of elem_size-byte elements at `offset` in `buffer`:
  ! afterwards the buffer holds the column-major array whose dimension k is the input's
  ! dimension order(k) (order 1-based, as MATLAB's permute(a, order)). In the C API's terms
  ! the array is the row-major tensor of sizes extents(rank), ..., extents(1), permuted by
  ! perm(i) = rank - order(rank - i) (i from 0). 1 to 8 dimensions; an order that is not a
  ! permutation of 1 .. rank, or a negative size, is IPT_INVALID_VALUE.
  function ipt_permute(queue, buffer, offset, extents, order, elem_size, event, wait_list) &
      result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, extents(:), order(:), elem_size
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    type(c_ptr) :: event_arg, list_arg
    type(c_ptr), allocatable, target :: waits(:)
    integer(c_int32_t) :: count
    integer(c_size_t) :: dims(8), perm(8)
    integer :: rank, i
    logical :: seen(8)
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    status = check_sizes("ipt_permute", "offset elem_size", [offset, elem_size])
    if (status /= IPT_SUCCESS) return
    rank = size(extents)
    if (rank < 1 .or. rank > 8 .or. size(order) /= rank) then
      status = invalid("ipt_permute: " // decimal(int(size(extents), c_int64_t)) // &
                       " extents and " // decimal(int(size(order), c_int64_t)) // &
                       " order entries; 1 to 8 of each, as many")
      return
    end if
    seen = .false.
    do i = 1, rank
      if (extents(i) < 0) then
        status = invalid("ipt_permute: extents(" // decimal(int(i, c_int64_t)) // &
                         ") is negative (" // decimal(extents(i)) // ")")
        return
      end if
      if (order(i) < 1 .or. order(i) > rank) then
        status = invalid("ipt_permute: order(" // decimal(int(i, c_int64_t)) // ") is " // &
                         decimal(order(i)) // "; it must be 1 to " // decimal(int(rank, c_int64_t)))
        return
      end if
      if (seen(order(i))) then
        status = invalid("ipt_permute: order holds " // decimal(order(i)) // " twice")
        return
      end if
      seen(order(i)) = .true.
    end do
    do i = 0, rank - 1
      dims(i + 1) = int(extents(rank - i), c_size_t)
      perm(i + 1) = int(rank - order(rank - i), c_size_t)
    end do
    status = c_permute(queue, buffer, int(offset, c_size_t), int(rank, c_size_t), dims, perm, &
                       int(elem_size, c_size_t), count, list_arg, event_arg)
  end function

  ! Bytes a buffer needs from the matrix's offset for the fastest plan on `device`.
  function ipt_padded_size(device, rows, cols, elem_size, bytes) result(status)
    type(c_ptr), intent(in) :: device
    integer(c_int64_t), intent(in) :: rows, cols, elem_size
    integer(c_int64_t), intent(out) :: bytes
    integer(c_int) :: status
    integer(c_size_t) :: c_bytes
    bytes = 0
    status = check_sizes("ipt_padded_size", "rows cols elem_size", [rows, cols, elem_size])
    if (status /= IPT_SUCCESS) return
    status = c_padded_size(device, int(rows, c_size_t), int(cols, c_size_t), &
                           int(elem_size, c_size_t), c_bytes)
    if (status == IPT_SUCCESS) bytes = int(c_bytes, c_int64_t)
  end function

  ! The plan libipt picks (or, with `options`, the caller-adjusted one) for a rows x cols
  ! transposition of elem_size-byte elements on `device`, as ipt_plan in ipt.h: the plan a
  ! call gets when its buffer has room for any padding. Negative sizes or options return
  ! IPT_INVALID_VALUE; options that cannot work for the shape too.
  function ipt_plan(device, rows, cols, elem_size, info, options) result(status)
    type(c_ptr), intent(in) :: device
    integer(c_int64_t), intent(in) :: rows, cols, elem_size
    type(ipt_plan_info), intent(out) :: info
    type(ipt_plan_options), intent(in), optional :: options
    integer(c_int) :: status
    type(c_plan_options), target :: c_options
    type(c_ptr) :: options_arg
    type(c_plan_info) :: c_info
    character(len=:), allocatable :: text
    integer :: length, i
    info%description = ""
    status = check_sizes("ipt_plan", "rows cols elem_size", [rows, cols, elem_size])
    if (status /= IPT_SUCCESS) return
    status = options_to_c("ipt_plan", options, c_options, options_arg)
    if (status /= IPT_SUCCESS) return
    status = c_plan(device, int(rows, c_size_t), int(cols, c_size_t), int(elem_size, c_size_t), &
                    options_arg, c_info)
    if (status /= IPT_SUCCESS) return
    info%sequence = c_info%sequence
    info%m = int(c_info%m, c_int64_t)
    info%n = int(c_info%n, c_int64_t)
    info%padded_rows = int(c_info%padded_rows, c_int64_t)
    info%padded_cols = int(c_info%padded_cols, c_int64_t)
    info%num_stages = c_info%num_stages
    info%scratch_bytes = int(c_info%scratch_bytes, c_int64_t)
    info%borrowed_bytes = int(c_info%borrowed_bytes, c_int64_t)
    length = 0
    do while (length < size(c_info%description))
      if (c_info%description(length + 1) == c_null_char) exit
      length = length + 1
    end do
    allocate(character(len=length) :: text)
    do i = 1, length
      text(i:i) = c_info%description(i)
    end do
    info%description = text
  end function

  ! The short name of a sequence ("auto", "square", "1", "2.1", ..., "on-chip"; "unknown"
  ! for other values), as ipt_sequence_name in ipt.h.
  function ipt_sequence_name(sequence) result(text)
    integer(c_int), intent(in) :: sequence
    character(len=:), allocatable :: text
    text = from_c(c_sequence_name(sequence))
  end function

  ! ipt_transpose with a caller-adjusted plan (`options` absent: automatic), as
  ! ipt_transpose_with_options in ipt.h. Options that cannot work return
  ! IPT_INVALID_VALUE and leave the buffer unchanged.
  function ipt_transpose_with_options(queue, buffer, offset, rows, cols, elem_size, options, &
                                      event, wait_list) result(status)
    type(c_ptr), intent(in) :: queue, buffer
    integer(c_int64_t), intent(in) :: offset, rows, cols, elem_size
    type(ipt_plan_options), intent(in), optional :: options
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    integer(c_int) :: status
    type(c_plan_options), target :: c_options
    type(c_ptr) :: options_arg, event_arg, list_arg
    type(c_ptr), allocatable, target :: waits(:)
    integer(c_int32_t) :: count
    if (present(event)) event = c_null_ptr
    status = check_sizes("ipt_transpose_with_options", "offset rows cols elem_size", &
                         [offset, rows, cols, elem_size])
    if (status /= IPT_SUCCESS) return
    status = options_to_c("ipt_transpose_with_options", options, c_options, options_arg)
    if (status /= IPT_SUCCESS) return
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    status = c_transpose_with_options(queue, buffer, int(offset, c_size_t), int(rows, c_size_t), &
                                      int(cols, c_size_t), int(elem_size, c_size_t), &
                                      options_arg, count, list_arg, event_arg)
  end function

  ! Builds (or loads from the caches) every kernel that calls on elem_size-byte elements
  ! can launch on `device` of `context`, so that no later call compiles. Blocks until done.
  function ipt_warmup(context, device, elem_size) result(status)
    type(c_ptr), intent(in) :: context, device
    integer(c_int64_t), intent(in) :: elem_size
    integer(c_int) :: status
    status = check_sizes("ipt_warmup", "elem_size", [elem_size])
    if (status /= IPT_SUCCESS) return
    status = c_warmup(context, device, int(elem_size, c_size_t))
  end function

  ! Releases every compiled program the library caches; later calls compile again.
  function ipt_clear_cache() result(status)
    integer(c_int) :: status
    status = c_clear_cache()
  end function

  ! The name and meaning of a status.
  function ipt_status_string(status) result(text)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: text
    text = from_c(c_status_string(status))
  end function

  ! What the calling thread's last failed call reported (empty after a success).
  function ipt_last_error_message() result(text)
    character(len=:), allocatable :: text
    text = from_c(c_last_error_message())
  end function

  ! The C arguments for the optional event and wait list. The wait list is copied into
  ! `waits`, which the caller owns for the duration of the C call, so that any array
  ! section works (the C API reads a contiguous array of cl_event).
  subroutine event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    type(c_ptr), intent(out) :: event_arg, list_arg
    integer(c_int32_t), intent(out) :: count
    type(c_ptr), allocatable, target, intent(inout) :: waits(:)
    type(c_ptr), intent(out), optional, target :: event
    type(c_ptr), intent(in), optional :: wait_list(:)
    event_arg = c_null_ptr
    list_arg = c_null_ptr
    count = 0
    if (present(event)) then
      event = c_null_ptr
      event_arg = c_loc(event)
    end if
    if (present(wait_list)) then
      if (size(wait_list) > 0) then
        waits = wait_list
        list_arg = c_loc(waits(1))
        count = int(size(wait_list), c_int32_t)
      end if
    end if
  end subroutine

  ! The C options for the optional Fortran ones (a null pointer when absent);
  ! IPT_INVALID_VALUE for a negative size, which size_t cannot hold.
  function options_to_c(function_name, options, c_options, options_arg) result(status)
    character(len=*), intent(in) :: function_name
    type(ipt_plan_options), intent(in), optional :: options
    type(c_plan_options), target, intent(out) :: c_options
    type(c_ptr), intent(out) :: options_arg
    integer(c_int) :: status
    status = IPT_SUCCESS
    options_arg = c_null_ptr
    c_options = c_plan_options(IPT_SEQUENCE_AUTO, 0, 0, IPT_PADDING_AUTO, 0, 0, 0)
    if (.not. present(options)) return
    status = check_sizes(function_name, &
                         "options%m options%n options%padded_rows options%padded_cols " // &
                         "options%max_bytes", &
                         [options%m, options%n, options%padded_rows, options%padded_cols, &
                         options%max_bytes])
    if (status /= IPT_SUCCESS) return
    c_options = c_plan_options(options%sequence, int(options%m, c_size_t), &
                               int(options%n, c_size_t), options%padding, &
                               int(options%padded_rows, c_size_t), &
                               int(options%padded_cols, c_size_t), &
                               int(options%max_bytes, c_size_t))
    options_arg = c_loc(c_options)
  end function

  ! IPT_SUCCESS, or IPT_INVALID_VALUE with ipt_last_error_message naming the function and
  ! the first negative value: size_t cannot hold it, so it never reaches the C library,
  ! whose message it would otherwise be.
  ! `names`: the values' names, separated by single spaces.
  function check_sizes(function_name, names, values) result(status)
    character(len=*), intent(in) :: function_name, names
    integer(c_int64_t), intent(in) :: values(:)
    integer(c_int) :: status
    integer :: i, start, length
    status = IPT_SUCCESS
    start = 1
    do i = 1, size(values)
      length = index(names(start:), " ") - 1
      if (length < 0) length = len(names) - start + 1
      if (values(i) < 0) then
        status = invalid(function_name // ": " // names(start:start + length - 1) // &
                         " is negative (" // decimal(values(i)) // ")")
        return
      end if
      start = start + length + 1
    end do
  end function

  ! IPT_INVALID_VALUE, with `message` as the calling thread's ipt_last_error_message.
  function invalid(message) result(status)
    character(len=*), intent(in) :: message
    integer(c_int) :: status
    status = c_set_last_error(IPT_INVALID_VALUE, message // c_null_char)
  end function

  function decimal(value) result(text)
    integer(c_int64_t), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=24) :: buffer
    write(buffer, '(I0)') value
    text = trim(buffer)
  end function

  function from_c(pointer) result(text)
    type(c_ptr), intent(in) :: pointer
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, length
    length = int(c_strlen(pointer))
    allocate(character(len=length) :: text)
    call c_f_pointer(pointer, chars, [length])
    do i = 1, length
      text(i:i) = chars(i)
    end do
  end function

  ! Transposes, in place, the rows x cols row-major matrix of elem_size-byte elements at
  ! `host` in host memory (c_loc of an array): a Fortran array a(m, n) is the row-major
  ! n x m matrix, so call with rows = n, cols = m; afterwards a holds the transpose as an
  ! array of shape (n, m). Through the device of `queue` (c_null_ptr: the CPU) or on the
  ! CPU: `scheme` IPT_HOST_AUTO (default), IPT_HOST_DEVICE or IPT_HOST_CPU; `threads`
  ! for the CPU path (default 0: one per hardware thread); `slices` the device path's Q
  ! (default 0: the library's choice; 1 the synchronous scheme). Blocks until done; the
  ! matrix is unchanged when it fails, except with IPT_BUFFER_UNDEFINED (partly written).
  function ipt_transpose_host(queue, host, rows, cols, elem_size, scheme, threads, slices) &
      result(status)
    type(c_ptr), intent(in) :: queue, host
    integer(c_int64_t), intent(in) :: rows, cols, elem_size
    integer(c_int), intent(in), optional :: scheme
    integer, intent(in), optional :: threads, slices
    integer(c_int) :: status
    type(c_host_options) :: options
    status = check_sizes("ipt_transpose_host", "rows cols elem_size", &
                         [rows, cols, elem_size])
    if (status /= IPT_SUCCESS) return
    options%scheme = IPT_HOST_AUTO
    options%threads = 0
    options%pinning = 0
    options%slices = 0
    if (present(scheme)) options%scheme = scheme
    if (present(slices)) then
      if (slices < 0) then
        status = invalid("ipt_transpose_host: slices is negative (" // &
                         decimal(int(slices, c_int64_t)) // ")")
        return
      end if
      options%slices = int(slices, c_int32_t)
    end if
    if (present(threads)) then
      if (threads < 0) then
        status = invalid("ipt_transpose_host: threads is negative (" // &
                         decimal(int(threads, c_int64_t)) // ")")
        return
      end if
      options%threads = int(threads, c_int32_t)
    end if
    status = c_transpose_host(queue, host, int(rows, c_size_t), int(cols, c_size_t), &
                              int(elem_size, c_size_t), options)
  end function

  ! ipt_transpose_host for 4-byte reals: a(rows * cols) (any shape) holds the matrix.
  function ipt_transpose_host_f32(queue, a, rows, cols, scheme, threads, slices) result(status)
    type(c_ptr), intent(in) :: queue
    real(c_float), intent(inout), target, contiguous :: a(:)
    integer(c_int64_t), intent(in) :: rows, cols
    integer(c_int), intent(in), optional :: scheme
    integer, intent(in), optional :: threads, slices
    integer(c_int) :: status
    status = check_sizes("ipt_transpose_host_f32", "rows cols", [rows, cols])
    if (status /= IPT_SUCCESS) return
    if (size(a, kind=c_int64_t) < rows * cols) then
      status = invalid("ipt_transpose_host_f32: a has " // decimal(size(a, kind=c_int64_t)) // &
                       " elements, fewer than rows * cols = " // decimal(rows * cols))
      return
    end if
    status = ipt_transpose_host(queue, c_loc(a), rows, cols, 4_c_int64_t, scheme, threads, slices)
  end function

  ! ipt_transpose_host for 8-byte reals: a(rows * cols) (any shape) holds the matrix.
  function ipt_transpose_host_f64(queue, a, rows, cols, scheme, threads, slices) result(status)
    type(c_ptr), intent(in) :: queue
    real(c_double), intent(inout), target, contiguous :: a(:)
    integer(c_int64_t), intent(in) :: rows, cols
    integer(c_int), intent(in), optional :: scheme
    integer, intent(in), optional :: threads, slices
    integer(c_int) :: status
    status = check_sizes("ipt_transpose_host_f64", "rows cols", [rows, cols])
    if (status /= IPT_SUCCESS) return
    if (size(a, kind=c_int64_t) < rows * cols) then
      status = invalid("ipt_transpose_host_f64: a has " // decimal(size(a, kind=c_int64_t)) // &
                       " elements, fewer than rows * cols = " // decimal(rows * cols))
      return
    end if
    status = ipt_transpose_host(queue, c_loc(a), rows, cols, 8_c_int64_t, scheme, threads, slices)
  end function

end module ipt
