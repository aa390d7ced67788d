// SPDX-License-Identifier: Apache-2.0
#include "runtime/deferred_release.hpp"

namespace ipt::runtime {
namespace {

void CL_CALLBACK release_buffer(cl_event, cl_int, void* buffer) {
  clReleaseMemObject(static_cast<cl_mem>(buffer));
}

}  // namespace

void release_when_complete(const cl::Event& done, cl::Buffer&& buffer) {
  if (done() == nullptr || buffer() == nullptr) return;
  if (clSetEventCallback(done(), CL_COMPLETE, release_buffer, buffer()) == CL_SUCCESS)
    buffer() = nullptr;  // the callback's reference now
}

}  // namespace ipt::runtime
