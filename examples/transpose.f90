! SPDX-License-Identifier: Apache-2.0
! Transpose a Fortran (column-major) array in place on an OpenCL device, from Fortran.
! The few OpenCL calls an application needs for this (a context, a queue, a buffer, a
! read) are declared below with bind(C); an application with its own OpenCL binding
! (clfortran, a C helper) uses that instead. Needs only the installed libipt: the ipt
! module, libipt_fortran, libipt and the OpenCL library.
module opencl_calls
  use, intrinsic :: iso_c_binding
  implicit none
  integer(c_int64_t), parameter :: CL_DEVICE_TYPE_GPU = 4
  integer(c_int64_t), parameter :: CL_DEVICE_TYPE_ALL = int(z'FFFFFFFF', c_int64_t)
  integer(c_int64_t), parameter :: CL_MEM_READ_WRITE = 1, CL_MEM_COPY_HOST_PTR = 32
  integer(c_int), parameter :: CL_SUCCESS = 0, CL_TRUE = 1
  interface
    integer(c_int) function clGetPlatformIDs(num_entries, platforms, num_platforms) &
        bind(C, name="clGetPlatformIDs")
      import :: c_int, c_ptr
      integer(c_int), value :: num_entries
      type(c_ptr) :: platforms(*)
      integer(c_int) :: num_platforms
    end function
    integer(c_int) function clGetDeviceIDs(platform, device_type, num_entries, devices, &
                                           num_devices) bind(C, name="clGetDeviceIDs")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: platform
      integer(c_int64_t), value :: device_type
      integer(c_int), value :: num_entries
      type(c_ptr) :: devices
      type(c_ptr), value :: num_devices
    end function
    type(c_ptr) function clCreateContext(properties, num_devices, devices, notify, user_data, &
                                         errcode) bind(C, name="clCreateContext")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: properties
      integer(c_int), value :: num_devices
      type(c_ptr) :: devices
      type(c_funptr), value :: notify
      type(c_ptr), value :: user_data
      integer(c_int) :: errcode
    end function
    type(c_ptr) function clCreateCommandQueue(context, device, properties, errcode) &
        bind(C, name="clCreateCommandQueue")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: context, device
      integer(c_int64_t), value :: properties
      integer(c_int) :: errcode
    end function
    type(c_ptr) function clCreateBuffer(context, flags, bytes, host, errcode) &
        bind(C, name="clCreateBuffer")
      import :: c_int, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: context
      integer(c_int64_t), value :: flags
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: host
      integer(c_int) :: errcode
    end function
    integer(c_int) function clEnqueueReadBuffer(queue, buffer, blocking, offset, bytes, host, &
                                                num_events, wait_list, event) &
        bind(C, name="clEnqueueReadBuffer")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: queue, buffer
      integer(c_int), value :: blocking
      integer(c_size_t), value :: offset, bytes
      type(c_ptr), value :: host
      integer(c_int), value :: num_events
      type(c_ptr) :: wait_list
      type(c_ptr), value :: event
    end function
    integer(c_int) function clReleaseEvent(event) bind(C, name="clReleaseEvent")
      import :: c_int, c_ptr
      type(c_ptr), value :: event
    end function
    integer(c_int) function clReleaseMemObject(buffer) bind(C, name="clReleaseMemObject")
      import :: c_int, c_ptr
      type(c_ptr), value :: buffer
    end function
    integer(c_int) function clReleaseCommandQueue(queue) bind(C, name="clReleaseCommandQueue")
      import :: c_int, c_ptr
      type(c_ptr), value :: queue
    end function
    integer(c_int) function clReleaseContext(context) bind(C, name="clReleaseContext")
      import :: c_int, c_ptr
      type(c_ptr), value :: context
    end function
  end interface
contains
  ! The first GPU of any platform, else the first device of any kind (c_null_ptr: none).
  type(c_ptr) function pick_device() result(device)
    type(c_ptr) :: platforms(16)
    integer(c_int) :: count, i
    device = c_null_ptr
    count = 0
    if (clGetPlatformIDs(16, platforms, count) /= CL_SUCCESS) return
    do i = 1, min(count, 16)
      if (clGetDeviceIDs(platforms(i), CL_DEVICE_TYPE_GPU, 1, device, c_null_ptr) == CL_SUCCESS) &
        return
    end do
    do i = 1, min(count, 16)
      if (clGetDeviceIDs(platforms(i), CL_DEVICE_TYPE_ALL, 1, device, c_null_ptr) == CL_SUCCESS) &
        return
    end do
    device = c_null_ptr
  end function
end module opencl_calls

program transpose_example
  use, intrinsic :: iso_c_binding
  use ipt
  use opencl_calls
  implicit none
  integer(c_int64_t), parameter :: m = 300, n = 200
  integer(c_size_t), parameter :: bytes = 4 * m * n
  real(c_float), target :: a(m, n), b(n, m)
  type(c_ptr) :: device, context, queue, buffer
  type(c_ptr), target :: done
  integer(c_int) :: err, status

  call random_number(a)
  device = pick_device()
  if (.not. c_associated(device)) error stop "no OpenCL device"
  context = clCreateContext(c_null_ptr, 1, device, c_null_funptr, c_null_ptr, err)
  if (err /= CL_SUCCESS) error stop "clCreateContext failed"
  queue = clCreateCommandQueue(context, device, 0_c_int64_t, err)
  if (err /= CL_SUCCESS) error stop "clCreateCommandQueue failed"
  buffer = clCreateBuffer(context, ior(CL_MEM_READ_WRITE, CL_MEM_COPY_HOST_PTR), bytes, &
                          c_loc(a), err)
  if (err /= CL_SUCCESS) error stop "clCreateBuffer failed"

  ! a(m, n) column-major is a row-major n x m matrix: rows = n, cols = m
  status = ipt_transpose_f32(queue, buffer, 0_c_int64_t, n, m, event=done)
  if (status /= IPT_SUCCESS) error stop ipt_status_string(status)
  if (clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0_c_size_t, bytes, c_loc(b), 1, done, &
                          c_null_ptr) /= CL_SUCCESS) error stop "read failed"
  if (any(b /= transpose(a))) error stop "wrong result"
  print '(a)', "b = transpose(a), computed in place on the device"
  err = clReleaseEvent(done)
  err = clReleaseMemObject(buffer)
  err = clReleaseCommandQueue(queue)
  err = clReleaseContext(context)
end program transpose_example
