// SPDX-License-Identifier: Apache-2.0
// Host memory the exchange stages through: slots of pinned memory (a mapped
// CL_MEM_ALLOC_HOST_PTR buffer, which the driver moves at the link's rate), or pageable
// memory where the device gives no pinned memory.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <vector>

namespace ipt::mpi {

class Staging {
 public:
  // `slots` slots of `slot_bytes` each, in the queue's context. Never throws: on failure
  // data() is null.
  Staging(cl_command_queue queue, std::size_t slots, std::size_t slot_bytes) noexcept;
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  unsigned char* slot(std::size_t k) const { return base_ + k * slot_bytes_; }
  bool ok() const { return base_ != nullptr || bytes_ == 0; }
  bool pinned() const { return pinned_ != nullptr; }

 private:
  cl_command_queue queue_;
  std::size_t slot_bytes_;
  std::size_t bytes_;  // all slots'
  cl_mem pinned_ = nullptr;
  unsigned char* base_ = nullptr;
  std::vector<unsigned char> pageable_;
};

}  // namespace ipt::mpi
