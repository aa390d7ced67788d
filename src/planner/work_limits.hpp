// SPDX-License-Identifier: Apache-2.0
// What the families' default configurations share: the largest default work-group, the
// local memory a kernel may use, powers of two.
#pragma once

#include <cstddef>

#include "planner/device_profile.hpp"

namespace ipt::planner {

// Default work-groups stay at or below 256 work-items: NVIDIA's OpenCL compiler gives
// these kernels, and the square kernel, a CL_KERNEL_WORK_GROUP_SIZE of 256, so larger
// groups would be refused at launch.
inline constexpr std::size_t kMaxDefaultWorkGroup = 256;

// Local memory a kernel's flags may take: the device's size less 1 KiB (half of it on tiny
// devices). A driver may need some local memory of its own: on NVIDIA's, a
// PTTWAC launch asking for all 49152 bytes of a 48 KiB device was refused ("needs 49153
// bytes").
inline std::size_t usable_local_bytes(const DeviceProfile& device) {
  return device.local_mem_bytes > 4096 ? device.local_mem_bytes - 1024 : device.local_mem_bytes / 2;
}

// Largest power of two <= x (x >= 1).
inline std::size_t floor_pow2(std::size_t x) {
  std::size_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// Smallest power of two >= x.
inline std::size_t ceil_pow2(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p *= 2;
  return p;
}

}  // namespace ipt::planner
