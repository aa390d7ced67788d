! SPDX-License-Identifier: Apache-2.0
! Uses the installed ipt module; needs no device: a NULL queue must be refused by name.
program consumer
  use, intrinsic :: iso_c_binding
  use ipt
  implicit none
  integer(c_int) :: status
  status = ipt_transpose_f32(c_null_ptr, c_null_ptr, 0_c_int64_t, 4_c_int64_t, 4_c_int64_t)
  if (status /= IPT_INVALID_COMMAND_QUEUE) error stop "unexpected status"
  print '(a)', ipt_status_string(status)
end program consumer
