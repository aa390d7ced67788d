// SPDX-License-Identifier: Apache-2.0
// Lanes of the asynchronous host scheme (ipt_transpose_host with slices): each an
// in-order command queue on the call's device and two pinned staging buffers
// (CL_MEM_ALLOC_HOST_PTR, mapped once for good), through which the caller's pageable
// memory moves by copies on the host while the driver moves the other buffer at the
// speed of pinned memory. Pinned memory costs milliseconds to allocate, so lanes are
// kept per (context, device) for later calls; a call takes the lanes it uses for itself
// and gives them back when it returns.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/opencl.hpp"

namespace ipt::host {

// Bytes of each staging buffer: large enough that a transfer runs at the link's speed
// (8 MiB moved at 25 GB/s each way over PCIe), small enough that 16 lanes pin 256 MiB.
inline constexpr std::size_t kStagingBytes = std::size_t{8} << 20;

struct Lane {
  cl::CommandQueue queue;
  cl::Buffer staging[2];
  void* mapped[2] = {nullptr, nullptr};
  ~Lane();  // unmaps the staging buffers
};

class TakenLanes {
 public:
  TakenLanes(cl_context context, cl_device_id device, std::vector<std::unique_ptr<Lane>> lanes)
      : context_(context), device_(device), lanes_(std::move(lanes)) {}
  ~TakenLanes();  // gives them back
  TakenLanes(const TakenLanes&) = delete;
  TakenLanes& operator=(const TakenLanes&) = delete;

  Lane& operator[](std::size_t i) { return *lanes_[i]; }
  const Lane& operator[](std::size_t i) const { return *lanes_[i]; }
  std::size_t size() const { return lanes_.size(); }

 private:
  cl_context context_;
  cl_device_id device_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

// `count` lanes on `device` of `context`: kept ones, or new ones. Throws cl::Error (an
// allocation or a queue that cannot be had) with nothing taken.
TakenLanes take_lanes(const cl::Context& context, const cl::Device& device, unsigned count);

// Drops the kept lanes (ipt_clear_cache).
void clear_host_lanes();

}  // namespace ipt::host
