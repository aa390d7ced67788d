! SPDX-License-Identifier: Apache-2.0
! Interfaces to tests/fortran/cl_session.cpp: an OpenCL queue and buffers for Fortran tests.
module cl_session
  use, intrinsic :: iso_c_binding
  implicit none
  interface
    integer(c_int) function ipt_test_open(context, queue, device) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: context, queue, device
    end function
    subroutine ipt_test_close() bind(C)
    end subroutine
    type(c_ptr) function ipt_test_buffer(bytes, host) bind(C)
      import :: c_ptr, c_size_t
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: host
    end function
    integer(c_int) function ipt_test_read(buffer, bytes, host) bind(C)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: buffer, host
      integer(c_size_t), value :: bytes
    end function
    subroutine ipt_test_release_buffer(buffer) bind(C)
      import :: c_ptr
      type(c_ptr), value :: buffer
    end subroutine
    type(c_ptr) function ipt_test_user_event() bind(C)
      import :: c_ptr
    end function
    integer(c_int) function ipt_test_complete(event) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: event
    end function
    integer(c_int) function ipt_test_is_complete(event) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: event
    end function
    integer(c_int) function ipt_test_wait(event) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: event
    end function
  end interface
end module cl_session
