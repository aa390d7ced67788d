// SPDX-License-Identifier: Apache-2.0
#include "mpi_host_buffer.hpp"

#include <cstring>

namespace ipt::bench {

HostBuffer::HostBuffer(const support::Session& session, std::size_t bytes) : session_(session) {
  cl_int code = CL_SUCCESS;
  buffer_ = clCreateBuffer(session.context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes,
                           nullptr, &code);
  if (code == CL_SUCCESS)
    data_ = static_cast<unsigned char*>(clEnqueueMapBuffer(session.queue(), buffer_, CL_TRUE,
                                                           CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                                           nullptr, nullptr, &code));
  if (code != CL_SUCCESS || data_ == nullptr) {
    release();
    pageable_.resize(bytes);
    data_ = pageable_.data();
  }
  std::memset(data_, 0x5a, bytes);
}

void HostBuffer::release() {
  if (buffer_ == nullptr) return;
  if (data_ != nullptr)
    clEnqueueUnmapMemObject(session_.queue(), buffer_, data_, 0, nullptr, nullptr);
  clFinish(session_.queue());
  clReleaseMemObject(buffer_);
  buffer_ = nullptr;
  data_ = nullptr;
}

}  // namespace ipt::bench
