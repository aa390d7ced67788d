! libipt Fortran module: in-place matrix transposition on OpenCL devices.
!
! Fortran arrays are column-major. A Fortran array a(m, n) has the bytes of a row-major
! n x m matrix, so to transpose it call with rows = n, cols = m; afterwards the buffer
! holds the column-major n x m array transpose(a).
!
! OpenCL handles (cl_command_queue, cl_mem, cl_device_id, cl_event) are type(c_ptr).
! Dimensions and offsets are integer(c_int64_t) (offset in elements); negative values
! return IPT_INVALID_VALUE without touching anything. Every function returns an ipt
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
  integer(c_int), parameter, public :: IPT_SHAPE_NOT_SUPPORTED = -1005
  integer(c_int), parameter, public :: IPT_INTERNAL_ERROR = -1999

  public :: ipt_transpose_f32, ipt_transpose_f64, ipt_transpose, ipt_padded_size
  public :: ipt_warmup, ipt_clear_cache, ipt_status_string, ipt_last_error_message

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
    function c_padded_size(device, rows, cols, elem_size, bytes) &
        bind(C, name="ipt_padded_size") result(status)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: device
      integer(c_size_t), value :: rows, cols, elem_size
      integer(c_size_t), intent(out) :: bytes
      integer(c_int) :: status
    end function
    function c_warmup(context, device, rows, cols, elem_size) bind(C, name="ipt_warmup") &
        result(status)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: context, device
      integer(c_size_t), value :: rows, cols, elem_size
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
    if (offset < 0 .or. rows < 0 .or. cols < 0) then
      status = IPT_INVALID_VALUE
      return
    end if
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
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
    if (offset < 0 .or. rows < 0 .or. cols < 0 .or. elem_size < 0) then
      status = IPT_INVALID_VALUE
      return
    end if
    call event_and_list(event_arg, list_arg, count, waits, event, wait_list)
    status = c_transpose(queue, buffer, int(offset, c_size_t), int(rows, c_size_t), &
                         int(cols, c_size_t), count, list_arg, event_arg, int(elem_size, c_size_t))
  end function

  ! Bytes a buffer needs from the matrix's offset for the fastest plan on `device`.
  function ipt_padded_size(device, rows, cols, elem_size, bytes) result(status)
    type(c_ptr), intent(in) :: device
    integer(c_int64_t), intent(in) :: rows, cols, elem_size
    integer(c_int64_t), intent(out) :: bytes
    integer(c_int) :: status
    integer(c_size_t) :: c_bytes
    bytes = 0
    if (rows < 0 .or. cols < 0 .or. elem_size < 0) then
      status = IPT_INVALID_VALUE
      return
    end if
    status = c_padded_size(device, int(rows, c_size_t), int(cols, c_size_t), &
                           int(elem_size, c_size_t), c_bytes)
    if (status == IPT_SUCCESS) bytes = int(c_bytes, c_int64_t)
  end function

  ! Compiles (or loads from the caches) every kernel a rows x cols transposition of
  ! elem_size-byte elements needs on `device` of `context`, so that the first call of
  ! that shape class does not pay for it. Blocks until done.
  function ipt_warmup(context, device, rows, cols, elem_size) result(status)
    type(c_ptr), intent(in) :: context, device
    integer(c_int64_t), intent(in) :: rows, cols, elem_size
    integer(c_int) :: status
    if (rows < 0 .or. cols < 0 .or. elem_size < 0) then
      status = IPT_INVALID_VALUE
      return
    end if
    status = c_warmup(context, device, int(rows, c_size_t), int(cols, c_size_t), &
                      int(elem_size, c_size_t))
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

end module ipt
