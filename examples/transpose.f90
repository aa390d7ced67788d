! Transpose a Fortran (column-major) array in place on an OpenCL device. The OpenCL
! set-up comes from the small cl_session helper of the tests, standing in for the
! application's own (clfortran, a C helper, ...).
program transpose_example
  use, intrinsic :: iso_c_binding
  use ipt
  use cl_session
  implicit none
  integer(c_int64_t), parameter :: m = 300, n = 200
  real(c_float), target :: a(m, n), b(n, m)
  type(c_ptr) :: context, queue, device, buffer, done
  integer(c_int) :: status

  call random_number(a)
  if (ipt_test_open(context, queue, device) /= 0) error stop "no OpenCL device"
  buffer = ipt_test_buffer(int(4 * m * n, c_size_t), c_loc(a))

  ! a(m, n) column-major is a row-major n x m matrix: rows = n, cols = m
  status = ipt_transpose_f32(queue, buffer, 0_c_int64_t, n, m, event=done)
  if (status /= IPT_SUCCESS) error stop ipt_status_string(status)
  if (ipt_test_wait(done) /= 0 .or. ipt_test_read(buffer, int(4 * m * n, c_size_t), c_loc(b)) /= 0) &
    error stop "read failed"
  if (any(b /= transpose(a))) error stop "wrong result"
  print '(a)', "b = transpose(a), computed in place on the device"
  call ipt_test_release_buffer(buffer)
  call ipt_test_close()
end program transpose_example
