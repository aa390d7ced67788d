// SPDX-License-Identifier: Apache-2.0
#include "runtime/deferred_release.hpp"

namespace ipt::runtime {
namespace {

void CL_CALLBACK release_buffer(cl_event, cl_int, void* buffer) {
  clReleaseMemObject(static_cast<cl_mem>(buffer));
}

}  // namespace

void when_complete(const cl::Event& done, const cl::Buffer& buffer, BufferCallback callback) {
  if (done() == nullptr || buffer() == nullptr) return;
  cl_mem mem = buffer();
  if (clRetainMemObject(mem) != CL_SUCCESS) return;
  if (clSetEventCallback(done(), CL_COMPLETE, callback, mem) != CL_SUCCESS) clReleaseMemObject(mem);
}

void release_when_complete(const cl::Event& done, cl::Buffer buffer) {
  when_complete(done, buffer, release_buffer);
}

}  // namespace ipt::runtime
