// SPDX-License-Identifier: Apache-2.0
// Host memory for ipt-bench mpi's all-to-all: pinned (a mapped CL_MEM_ALLOC_HOST_PTR
// buffer) where the driver gives it, else pageable.
#pragma once

#include <cstddef>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

class HostBuffer {
 public:
  HostBuffer(const support::Session& session, std::size_t bytes);
  ~HostBuffer() { release(); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  unsigned char* data() const { return data_; }
  bool pinned() const { return buffer_ != nullptr; }

 private:
  void release();

  const support::Session& session_;
  cl_mem buffer_ = nullptr;
  unsigned char* data_ = nullptr;
  std::vector<unsigned char> pageable_;
};

}  // namespace ipt::bench
