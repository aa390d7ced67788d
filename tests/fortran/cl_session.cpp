// SPDX-License-Identifier: Apache-2.0
// A C-callable OpenCL session for the Fortran tests and examples: opens a context and
// queue on the device IPT_DEVICE names and moves data in and out of buffers, so that the
// Fortran code only needs libipt's own module.
#include <CL/cl.h>

#include <cstdio>
#include <exception>

#include "support/device_select.hpp"

namespace {
ipt::support::Session* session = nullptr;
}

extern "C" {

// Returns 0 and the handles, or 1 after printing why no device could be opened.
int ipt_test_open(cl_context* context, cl_command_queue* queue, cl_device_id* device) {
  try {
    if (session == nullptr) session = new ipt::support::Session;
    *context = session->context();
    *queue = session->queue();
    *device = session->device();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

void ipt_test_close(void) {
  delete session;
  session = nullptr;
}

cl_mem ipt_test_buffer(size_t bytes, const void* host) {
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(session->context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 bytes, const_cast<void*>(host), &code);
  return code == CL_SUCCESS ? buffer : nullptr;
}

int ipt_test_read(cl_mem buffer, size_t bytes, void* host) {
  return clEnqueueReadBuffer(session->queue(), buffer, CL_TRUE, 0, bytes, host, 0, nullptr,
                             nullptr);
}

void ipt_test_release_buffer(cl_mem buffer) { clReleaseMemObject(buffer); }

cl_event ipt_test_user_event(void) {
  cl_int code = CL_SUCCESS;
  cl_event event = clCreateUserEvent(session->context(), &code);
  return code == CL_SUCCESS ? event : nullptr;
}

int ipt_test_complete(cl_event user_event) { return clSetUserEventStatus(user_event, CL_COMPLETE); }

int ipt_test_is_complete(cl_event event) {
  cl_int status = 0;
  clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr);
  return status == CL_COMPLETE ? 1 : 0;
}

// Waits for the event and releases it.
int ipt_test_wait(cl_event event) {
  const cl_int code = clWaitForEvents(1, &event);
  clReleaseEvent(event);
  return code;
}

}  // extern "C"
