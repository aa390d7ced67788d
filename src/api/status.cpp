// SPDX-License-Identifier: Apache-2.0
// Status names, version and last-error message: the parts of the C API that need no device.
#include "api/last_error.hpp"
#include "ipt/ipt.h"

extern "C" {

const char* ipt_status_string(ipt_status status) {
  switch (status) {
    case IPT_SUCCESS:
      return "IPT_SUCCESS: success";
    case IPT_OUT_OF_RESOURCES:
      return "IPT_OUT_OF_RESOURCES: the device ran out of resources";
    case IPT_OUT_OF_HOST_MEMORY:
      return "IPT_OUT_OF_HOST_MEMORY: out of host memory";
    case IPT_BUILD_PROGRAM_FAILURE:
      return "IPT_BUILD_PROGRAM_FAILURE: a kernel failed to compile (see ipt_last_error_message)";
    case IPT_INVALID_VALUE:
      return "IPT_INVALID_VALUE: a required pointer argument is NULL or a value is invalid";
    case IPT_INVALID_DEVICE:
      return "IPT_INVALID_DEVICE: the device is NULL or invalid";
    case IPT_INVALID_CONTEXT:
      return "IPT_INVALID_CONTEXT: the buffer and the queue belong to different contexts";
    case IPT_INVALID_COMMAND_QUEUE:
      return "IPT_INVALID_COMMAND_QUEUE: the queue is NULL or invalid";
    case IPT_INVALID_MEM_OBJECT:
      return "IPT_INVALID_MEM_OBJECT: the buffer is NULL, invalid, not a buffer, read-only or "
             "write-only";
    case IPT_INVALID_EVENT_WAIT_LIST:
      return "IPT_INVALID_EVENT_WAIT_LIST: the event count and list disagree or an event is "
             "invalid or has already failed";
    case IPT_INVALID_ELEMENT_SIZE:
      return "IPT_INVALID_ELEMENT_SIZE: elem_size must be 1, 2, 4, 8 or 16";
    case IPT_SIZE_OVERFLOW:
      return "IPT_SIZE_OVERFLOW: (offset + rows * cols) * elem_size overflows size_t";
    case IPT_BUFFER_TOO_SMALL:
      return "IPT_BUFFER_TOO_SMALL: offset + matrix reaches past the end of the buffer";
    case IPT_FP64_NOT_SUPPORTED:
      return "IPT_FP64_NOT_SUPPORTED: the device does not support double precision";
    case IPT_MATRIX_TOO_LARGE:
      return "IPT_MATRIX_TOO_LARGE: the matrix is larger than the device can hold (see "
             "ipt_last_error_message)";
    case IPT_ROLLED_BACK:
      return "IPT_ROLLED_BACK: a command failed part-way; what was enqueued is undone and the "
             "buffer holds its original bytes once those commands complete";
    case IPT_BUFFER_UNDEFINED:
      return "IPT_BUFFER_UNDEFINED: a command failed part-way and could not be undone: the "
             "matrix's contents are undefined";
    case IPT_EXTERNAL_MEMORY_UNSUPPORTED:
      return "IPT_EXTERNAL_MEMORY_UNSUPPORTED: the device or the OpenCL loader cannot import "
             "this external memory handle (see ipt_last_error_message)";
    case IPT_INTERNAL_ERROR:
      return "IPT_INTERNAL_ERROR: internal error in libipt (please report it)";
  }
  if (status < 0 && status > -1000) return "OpenCL error (see ipt_last_error_message)";
  return "unknown ipt_status";
}

const char* ipt_last_error_message(void) { return ipt::api::last_error(); }

ipt_status ipt_set_last_error(ipt_status status, const char* message) {
  try {
    ipt::api::set_last_error(message != nullptr ? message : "");
  } catch (...) {  // no memory for the copy: the status alone still says what failed
    ipt::api::clear_last_error();
  }
  return status;
}

unsigned ipt_version(void) { return IPT_VERSION; }

const char* ipt_version_string(void) {
#define IPT_STR2(x) #x
#define IPT_STR(x) IPT_STR2(x)
  return IPT_STR(IPT_VERSION_MAJOR) "." IPT_STR(IPT_VERSION_MINOR) "." IPT_STR(IPT_VERSION_PATCH);
#undef IPT_STR
#undef IPT_STR2
}

}  // extern "C"
