// SPDX-License-Identifier: Apache-2.0
#include "staging.hpp"

#include <new>

namespace ipt::mpi {

Staging::Staging(cl_command_queue queue, std::size_t slots, std::size_t slot_bytes) noexcept
    : queue_(queue), slot_bytes_(slot_bytes), bytes_(slots * slot_bytes) {
  const std::size_t bytes = bytes_;
  if (bytes == 0) return;
  cl_context context = nullptr;
  cl_int code = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr);
  if (code == CL_SUCCESS)
    pinned_ =
        clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &code);
  if (pinned_ != nullptr) {
    void* mapped = clEnqueueMapBuffer(queue, pinned_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                      0, nullptr, nullptr, &code);
    if (code == CL_SUCCESS && mapped != nullptr) {
      base_ = static_cast<unsigned char*>(mapped);
      return;
    }
    clReleaseMemObject(pinned_);
    pinned_ = nullptr;
  }
  try {
    pageable_.resize(bytes);
    base_ = pageable_.data();
  } catch (const std::bad_alloc&) {
    base_ = nullptr;
  }
}

Staging::~Staging() {
  if (pinned_ == nullptr) return;
  cl_event unmapped = nullptr;
  if (clEnqueueUnmapMemObject(queue_, pinned_, base_, 0, nullptr, &unmapped) == CL_SUCCESS) {
    clWaitForEvents(1, &unmapped);
    clReleaseEvent(unmapped);
  }
  clReleaseMemObject(pinned_);
}

}  // namespace ipt::mpi
