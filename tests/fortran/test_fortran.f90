! SPDX-License-Identifier: Apache-2.0
! The ipt Fortran module on real column-major Fortran arrays: a(m, n) is passed as a
! row-major n x m matrix (rows = n, cols = m) and comes back as transpose(a).
program test_fortran
  use, intrinsic :: iso_c_binding
  use ipt
  use cl_session
  implicit none
  type(c_ptr) :: context, queue, device, buffer, event, gate
  integer :: failures = 0, checks = 0, i
  integer(c_int) :: status
  integer(c_int64_t) :: bytes
  real(c_float), allocatable, target :: a(:, :), b(:, :), c(:, :), ct(:, :)
  real(c_double), allocatable, target :: d(:), e(:)
  complex(c_double_complex), allocatable, target :: z(:, :), w(:, :)
  real(c_float), allocatable, target :: h32(:), x32(:, :)
  real(c_double), allocatable, target :: h64(:), x64(:, :)
  integer(c_int64_t), parameter :: m = 77, k = 23
  type(ipt_plan_info) :: info
  type(ipt_plan_options) :: options

  if (ipt_test_open(context, queue, device) /= 0) error stop "no OpenCL device"

  ! real(4) column-major m x m
  allocate(a(m, m), b(m, m))
  call random_number(a)
  a = a + 1.0
  buffer = ipt_test_buffer(int(4 * m * m, c_size_t), c_loc(a))
  status = ipt_transpose_f32(queue, buffer, 0_c_int64_t, m, m, event=event)
  call expect(status == IPT_SUCCESS, "f32 call: " // ipt_status_string(status))
  call expect(ipt_test_wait(event) == 0, "f32 wait")
  call expect(ipt_test_read(buffer, int(4 * m * m, c_size_t), c_loc(b)) == 0, "f32 read")
  call expect(all(b == transpose(a)), "f32 result is transpose(a)")

  ! Gated on a user event through wait_list: nothing happens before the gate opens.
  gate = ipt_test_user_event()
  status = ipt_transpose_f32(queue, buffer, 0_c_int64_t, m, m, event=event, wait_list=[gate])
  call expect(status == IPT_SUCCESS, "gated call")
  call expect(ipt_test_is_complete(event) == 0, "gated call waits for the gate")
  call expect(ipt_test_complete(gate) == 0, "open the gate")
  call expect(ipt_test_wait(event) == 0, "gated wait")
  call expect(ipt_test_wait(gate) == 0, "release the gate")
  call expect(ipt_test_read(buffer, int(4 * m * m, c_size_t), c_loc(b)) == 0, "gated read")
  call expect(all(b == a), "transposed twice gives a back")
  call ipt_test_release_buffer(buffer)

  ! real(8) k x k at an offset of 5 elements, guard values around it unchanged
  allocate(d(5 + k * k + 3), e(5 + k * k + 3))
  call random_number(d)
  buffer = ipt_test_buffer(int(8 * size(d), c_size_t), c_loc(d))
  status = ipt_transpose_f64(queue, buffer, 5_c_int64_t, k, k, event=event)
  call expect(status == IPT_SUCCESS .or. status == IPT_FP64_NOT_SUPPORTED, "f64 call")
  if (status == IPT_SUCCESS) then
    call expect(ipt_test_wait(event) == 0, "f64 wait")
  else
    status = ipt_transpose(queue, buffer, 5_c_int64_t, k, k, 8_c_int64_t)
  end if
  call expect(ipt_test_read(buffer, int(8 * size(d), c_size_t), c_loc(e)) == 0, "f64 read")
  call expect(all(e(1:5) == d(1:5)) .and. all(e(6 + k * k:) == d(6 + k * k:)), "f64 guards")
  call expect(all(reshape(e(6:5 + k * k), [k, k]) == transpose(reshape(d(6:5 + k * k), [k, k]))), &
              "f64 result")

  ! Bad input: the buffer stays as it was, the status and message say why.
  status = ipt_transpose(queue, buffer, 5_c_int64_t, k, k, 3_c_int64_t)
  call expect(status == IPT_INVALID_ELEMENT_SIZE, "elem_size 3 rejected")
  call expect(index(ipt_status_string(status), "IPT_INVALID_ELEMENT_SIZE") == 1, "status string")
  call expect(len(ipt_last_error_message()) > 0, "last error message")
  call expect(ipt_transpose_f32(queue, buffer, 0_c_int64_t, -1_c_int64_t, k) == IPT_INVALID_VALUE, &
              "negative rows rejected")
  d = e
  call expect(ipt_test_read(buffer, int(8 * size(d), c_size_t), c_loc(e)) == 0, "re-read")
  call expect(all(e == d), "buffer unchanged by rejected calls")
  call ipt_test_release_buffer(buffer)

  ! A non-square column-major array c(m, k) is a row-major k x m matrix: rows = k, cols = m.
  allocate(c(m, k), ct(k, m))
  call random_number(c)
  c = c + 1.0
  buffer = ipt_test_buffer(int(4 * m * k, c_size_t), c_loc(c))
  status = ipt_transpose_f32(queue, buffer, 0_c_int64_t, k, m, event=event)
  call expect(status == IPT_SUCCESS, "column-major m x k call: " // ipt_status_string(status))
  call expect(ipt_test_wait(event) == 0, "column-major wait")
  call expect(ipt_test_read(buffer, int(4 * m * k, c_size_t), c_loc(ct)) == 0, "column-major read")
  call expect(all(ct == transpose(c)), "column-major m x k result is transpose(c), k x m")
  call ipt_test_release_buffer(buffer)

  ! A batch of 5 column-major arrays c3(:, :, l), each m x k, in one call: each becomes
  ! its k x m transpose in place.
  block
    real(c_float), allocatable, target :: c3(:, :, :), t3(:, :, :)
    integer :: l
    allocate(c3(m, k, 5), t3(k, m, 5))
    call random_number(c3)
    c3 = c3 + 1.0
    buffer = ipt_test_buffer(int(4 * m * k * 5, c_size_t), c_loc(c3))
    status = ipt_transpose_batched_f32(queue, buffer, 0_c_int64_t, 5_c_int64_t, k, m, event=event)
    call expect(status == IPT_SUCCESS, "batched call: " // ipt_status_string(status))
    call expect(ipt_test_wait(event) == 0, "batched wait")
    call expect(ipt_test_read(buffer, int(4 * m * k * 5, c_size_t), c_loc(t3)) == 0, "batched read")
    do l = 1, 5
      call expect(all(t3(:, :, l) == transpose(c3(:, :, l))), "batched result, each array")
    end do
    call expect(ipt_transpose_batched_f32(queue, buffer, 0_c_int64_t, 6_c_int64_t, k, m) == &
                IPT_BUFFER_TOO_SMALL, "a batch past the buffer rejected")
    call expect(ipt_transpose_batched(queue, buffer, 0_c_int64_t, -1_c_int64_t, k, m, 4_c_int64_t) &
                == IPT_INVALID_VALUE, "negative batch rejected")
    call ipt_test_release_buffer(buffer)
  end block

  ! A column-major 3-D array permuted in place: p(j, k, i) = c(i, j, k), order [2, 3, 1],
  ! as MATLAB's permute(c, [2 3 1]); a bad order changes nothing.
  block
    real(c_float), allocatable, target :: c3(:, :, :), p3(:, :, :), back(:, :, :)
    integer :: i1, i2, i3
    allocate(c3(7, 5, 3), p3(5, 3, 7), back(7, 5, 3))
    call random_number(c3)
    c3 = c3 + 1.0
    buffer = ipt_test_buffer(int(4 * 7 * 5 * 3, c_size_t), c_loc(c3))
    call expect(ipt_permute(queue, buffer, 0_c_int64_t, [7_c_int64_t, 5_c_int64_t, 3_c_int64_t], &
                            [2_c_int64_t, 2_c_int64_t, 1_c_int64_t], 4_c_int64_t) == &
                IPT_INVALID_VALUE, "an order with a repeat rejected")
    call expect(ipt_permute(queue, buffer, 0_c_int64_t, [7_c_int64_t, 5_c_int64_t, 3_c_int64_t], &
                            [2_c_int64_t, 3_c_int64_t, 4_c_int64_t], 4_c_int64_t) == &
                IPT_INVALID_VALUE, "an order past the rank rejected")
    call expect(ipt_test_read(buffer, int(4 * 7 * 5 * 3, c_size_t), c_loc(back)) == 0, "read")
    call expect(all(back == c3), "refused permutations changed nothing")
    status = ipt_permute(queue, buffer, 0_c_int64_t, [7_c_int64_t, 5_c_int64_t, 3_c_int64_t], &
                         [2_c_int64_t, 3_c_int64_t, 1_c_int64_t], 4_c_int64_t, event=event)
    call expect(status == IPT_SUCCESS, "permute call: " // ipt_status_string(status))
    call expect(ipt_test_wait(event) == 0, "permute wait")
    call expect(ipt_test_read(buffer, int(4 * 7 * 5 * 3, c_size_t), c_loc(p3)) == 0, "permute read")
    do i3 = 1, 3
      do i2 = 1, 5
        do i1 = 1, 7
          if (p3(i2, i3, i1) /= c3(i1, i2, i3)) then
            call expect(.false., "permuted element")
          end if
        end do
      end do
    end do
    call ipt_test_release_buffer(buffer)
  end block

  ! complex(8) (16-byte elements)
  allocate(z(k, k), w(k, k))
  call random_number(a(1:k, 1:k))
  call random_number(b(1:k, 1:k))
  z = cmplx(a(1:k, 1:k), b(1:k, 1:k), c_double_complex)
  buffer = ipt_test_buffer(int(16 * k * k, c_size_t), c_loc(z))
  status = ipt_transpose(queue, buffer, 0_c_int64_t, k, k, 16_c_int64_t)
  call expect(status == IPT_SUCCESS, "complex call")
  call expect(ipt_test_read(buffer, int(16 * k * k, c_size_t), c_loc(w)) == 0, "complex read")
  call expect(all(w == transpose(z)), "complex result")
  call ipt_test_release_buffer(buffer)

  ! The plan API: the automatic plan, a forced one, and options that cannot work.
  status = ipt_plan(device, 7200_c_int64_t, 1800_c_int64_t, 4_c_int64_t, info)
  call expect(status == IPT_SUCCESS, "plan: " // ipt_status_string(status))
  call expect(info%sequence /= IPT_SEQUENCE_AUTO .and. info%num_stages >= 1, "plan sequence")
  call expect(info%m >= 1 .and. info%n >= 1, "plan factors")
  if (info%m >= 1 .and. info%n >= 1) then
    call expect(mod(info%padded_rows, info%m) == 0 .and. mod(info%padded_cols, info%n) == 0, &
                "plan factors divide the padded shape")
  end if
  call expect(info%padded_rows >= 7200 .and. info%padded_cols >= 1800, "plan padded shape")
  call expect(info%borrowed_bytes == (info%padded_rows * info%padded_cols - 7200_c_int64_t * 1800) * 4, &
              "plan borrowed bytes")
  call expect(len(info%description) > 0 .and. index(info%description, "7200") > 0, &
              "plan description: " // info%description)
  options%sequence = IPT_SEQUENCE_ONE_STAGE
  status = ipt_plan(device, k, m, 4_c_int64_t, info, options)
  call expect(status == IPT_SUCCESS .and. info%sequence == IPT_SEQUENCE_ONE_STAGE, "forced plan")
  call expect(ipt_sequence_name(info%sequence) == "1", "forced plan's sequence name")
  call expect(ipt_sequence_name(IPT_SEQUENCE_3_2) == "3.2" .and. &
              ipt_sequence_name(IPT_SEQUENCE_ON_CHIP) == "on-chip" .and. &
              ipt_sequence_name(42_c_int) == "unknown", "sequence names")
  call expect(ipt_plan(device, k, m, 4_c_int64_t, info, ipt_plan_options(sequence=IPT_SEQUENCE_SQUARE)) &
              == IPT_INVALID_VALUE, "square sequence refused for a rectangle")
  call expect(ipt_plan(device, k, m, 4_c_int64_t, info, ipt_plan_options(m=-1_c_int64_t)) &
              == IPT_INVALID_VALUE, "negative factor refused")
  call expect(ipt_plan(device, -1_c_int64_t, m, 4_c_int64_t, info) == IPT_INVALID_VALUE, &
              "plan refuses a negative dimension")

  ! A caller-adjusted plan on c(m, k) (row-major k x m), then the automatic one back.
  call random_number(c)
  c = c + 1.0
  buffer = ipt_test_buffer(int(4 * m * k, c_size_t), c_loc(c))
  status = ipt_transpose_with_options(queue, buffer, 0_c_int64_t, k, m, 4_c_int64_t, &
                                      ipt_plan_options(sequence=IPT_SEQUENCE_SQUARE), event=event)
  call expect(status == IPT_INVALID_VALUE, "with options: square refused for a rectangle")
  call expect(ipt_test_read(buffer, int(4 * m * k, c_size_t), c_loc(ct)) == 0, "refused read")
  call expect(all(reshape(ct, [m, k]) == c), "buffer unchanged by the refused options")
  options = ipt_plan_options(sequence=IPT_SEQUENCE_ONE_STAGE, padding=IPT_PADDING_OFF)
  status = ipt_transpose_with_options(queue, buffer, 0_c_int64_t, k, m, 4_c_int64_t, options, &
                                      event=event)
  call expect(status == IPT_SUCCESS, "with options: " // ipt_status_string(status))
  call expect(ipt_test_wait(event) == 0, "with options wait")
  call expect(ipt_test_read(buffer, int(4 * m * k, c_size_t), c_loc(ct)) == 0, "with options read")
  call expect(all(ct == transpose(c)), "with options: result is transpose(c)")
  status = ipt_transpose_with_options(queue, buffer, 0_c_int64_t, m, k, 4_c_int64_t, event=event)
  call expect(status == IPT_SUCCESS, "automatic with options: " // ipt_status_string(status))
  call expect(ipt_test_wait(event) == 0, "automatic wait")
  call expect(ipt_test_read(buffer, int(4 * m * k, c_size_t), c_loc(ct)) == 0, "automatic read")
  call expect(all(reshape(ct, [m, k]) == c), "transposed back gives c")
  call ipt_test_release_buffer(buffer)

  call expect(ipt_padded_size(device, m, k, 4_c_int64_t, bytes) == IPT_SUCCESS, "padded size")
  call expect(bytes == 4 * m * k, "padded size value")

  call expect(ipt_clear_cache() == IPT_SUCCESS, "clear cache")
  call expect(ipt_warmup(context, device, 16_c_int64_t) == IPT_SUCCESS, "warmup")
  call expect(ipt_warmup(context, device, -1_c_int64_t) == IPT_INVALID_VALUE, &
              "warmup refuses a negative element size")
  call expect(ipt_warmup(context, device, 3_c_int64_t) == IPT_INVALID_ELEMENT_SIZE, &
              "warmup refuses a bad element size")

  ! Host matrices: an array a(m, k) is the row-major k x m matrix; afterwards its bytes
  ! are those of the k x m array transpose(a): through the device and on the CPU.
  allocate(h32(m * k), h64(m * k))
  h32 = [(real(i * 7 + 3, c_float), i = 1, int(m * k))]
  x32 = transpose(reshape(h32, [m, k]))
  status = ipt_transpose_host_f32(queue, h32, k, m, scheme=IPT_HOST_DEVICE)
  call expect(status == IPT_SUCCESS, "host f32 through the device: " // ipt_status_string(status))
  call expect(all(reshape(h32, [k, m]) == x32), "host f32 through the device: the transpose")
  h64 = [(real(i * 5 + 1, c_double), i = 1, int(m * k))]
  x64 = transpose(reshape(h64, [m, k]))
  status = ipt_transpose_host_f64(c_null_ptr, h64, k, m, threads=3)
  call expect(status == IPT_SUCCESS, "host f64 on the CPU: " // ipt_status_string(status))
  call expect(all(reshape(h64, [k, m]) == x64), "host f64 on the CPU: the transpose")
  x32 = reshape(h32, [k, m])
  status = ipt_transpose_host_f32(queue, h32, m, k, scheme=IPT_HOST_DEVICE, slices=3)
  call expect(status == IPT_SUCCESS, "host f32, asynchronous scheme: " // ipt_status_string(status))
  call expect(all(reshape(h32, [m, k]) == transpose(x32)), "host f32, asynchronous: the transpose")
  call expect(ipt_transpose_host_f32(queue, h32, k + 1, m) == IPT_INVALID_VALUE, &
              "host f32 refuses a matrix larger than the array")
  call expect(ipt_transpose_host(c_null_ptr, c_loc(h32), k, m, 4_c_int64_t, &
                                 scheme=IPT_HOST_DEVICE) == IPT_INVALID_COMMAND_QUEUE, &
              "host through the device needs a queue")
  deallocate(h32, h64)

  ! Every refusal the module makes itself (a negative value, which size_t cannot hold; a
  ! host array smaller than the matrix) comes with its message, as the C library's do.
  block
    type(c_ptr) :: small
    type(ipt_plan_options) :: negative
    real(c_float), target :: f(6)
    real(c_double), target :: g(6)
    f = 1
    g = 1
    small = ipt_test_buffer(int(4 * size(f), c_size_t), c_loc(f))
    call expect_refusal(ipt_transpose_f32(queue, small, 0_c_int64_t, -5_c_int64_t, 2_c_int64_t), &
                        "ipt_transpose_f32: rows is negative (-5)")
    call expect_refusal(ipt_transpose_f64(queue, small, -1_c_int64_t, 1_c_int64_t, 1_c_int64_t), &
                        "ipt_transpose_f64: offset is negative (-1)")
    call expect_refusal(ipt_transpose(queue, small, 0_c_int64_t, 2_c_int64_t, 3_c_int64_t, &
                                      -4_c_int64_t), "ipt_transpose: elem_size is negative (-4)")
    call expect_refusal(ipt_transpose_batched(queue, small, 0_c_int64_t, -1_c_int64_t, 2_c_int64_t, &
                                              3_c_int64_t, 4_c_int64_t), &
                        "ipt_transpose_batched: batch is negative (-1)")
    call expect_refusal(ipt_transpose_batched_f32(queue, small, 0_c_int64_t, 1_c_int64_t, &
                                                  2_c_int64_t, -2_c_int64_t), &
                        "ipt_transpose_batched_f32: cols is negative (-2)")
    call expect_refusal(ipt_transpose_batched_f64(queue, small, 0_c_int64_t, 1_c_int64_t, &
                                                  -3_c_int64_t, 1_c_int64_t), &
                        "ipt_transpose_batched_f64: rows is negative (-3)")
    call expect_refusal(ipt_padded_size(device, 2_c_int64_t, -1_c_int64_t, 4_c_int64_t, bytes), &
                        "ipt_padded_size: cols is negative (-1)")
    call expect_refusal(ipt_plan(device, -7_c_int64_t, 3_c_int64_t, 4_c_int64_t, info), &
                        "ipt_plan: rows is negative (-7)")
    negative = ipt_plan_options(max_bytes=-8_c_int64_t)
    call expect_refusal(ipt_plan(device, 2_c_int64_t, 3_c_int64_t, 4_c_int64_t, info, negative), &
                        "ipt_plan: options%max_bytes is negative (-8)")
    call expect_refusal(ipt_transpose_with_options(queue, small, -2_c_int64_t, 2_c_int64_t, &
                                                   3_c_int64_t, 4_c_int64_t), &
                        "ipt_transpose_with_options: offset is negative (-2)")
    negative = ipt_plan_options(m=-3_c_int64_t)
    call expect_refusal(ipt_transpose_with_options(queue, small, 0_c_int64_t, 2_c_int64_t, &
                                                   3_c_int64_t, 4_c_int64_t, negative), &
                        "ipt_transpose_with_options: options%m is negative (-3)")
    call expect_refusal(ipt_warmup(context, device, -1_c_int64_t), &
                        "ipt_warmup: elem_size is negative (-1)")
    call expect_refusal(ipt_transpose_host(queue, c_loc(f), -1_c_int64_t, 3_c_int64_t, &
                                           4_c_int64_t), "ipt_transpose_host: rows is negative (-1)")
    call expect_refusal(ipt_transpose_host(queue, c_loc(f), 2_c_int64_t, 3_c_int64_t, &
                                           4_c_int64_t, slices=-1), &
                        "ipt_transpose_host: slices is negative (-1)")
    call expect_refusal(ipt_transpose_host(queue, c_loc(f), 2_c_int64_t, 3_c_int64_t, &
                                           4_c_int64_t, threads=-2), &
                        "ipt_transpose_host: threads is negative (-2)")
    call expect_refusal(ipt_transpose_host_f32(queue, f, 3_c_int64_t, 3_c_int64_t), &
                        "ipt_transpose_host_f32: a has 6 elements, fewer than rows * cols = 9")
    call expect_refusal(ipt_transpose_host_f64(queue, g, 2_c_int64_t, -3_c_int64_t), &
                        "ipt_transpose_host_f64: cols is negative (-3)")
    call expect(all(f == 1) .and. all(g == 1), "refused host calls leave the arrays unchanged")
    call ipt_test_release_buffer(small)
  end block

  call ipt_test_close()
  deallocate(a, b, c, ct, d, e, z, w)
  if (failures > 0) then
    print '(a, i0, a, i0, a)', "fortran: ", failures, " of ", checks, " checks failed"
    error stop 1
  end if
  print '(a, i0, a)', "fortran: all ", checks, " checks passed"

contains

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. condition) then
      failures = failures + 1
      print '(a, a)', "FAILED: ", what
    end if
  end subroutine

  ! `status` is IPT_INVALID_VALUE and the last error message is `message`, exactly.
  subroutine expect_refusal(status, message)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: message
    character(len=:), allocatable :: actual
    actual = ipt_last_error_message()
    call expect(status == IPT_INVALID_VALUE, message // ": status " // ipt_status_string(status))
    call expect(actual == message .and. len(actual) == len(message), &
                message // ": the message was '" // actual // "'")
  end subroutine

end program test_fortran
