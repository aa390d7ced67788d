// SPDX-License-Identifier: Apache-2.0
// Device profiles of the GPUs the planner tests plan for, without the devices.
#pragma once

#include <vector>

#include "planner/device_profile.hpp"

namespace ipt::test {

// A large NVIDIA GPU as OpenCL shows it: 48 KiB of local memory a work-group, 132 compute
// units of 228 KiB (an H200's, which the runtime finds from its compute capability),
// 128-byte cache lines, one work-group per compute unit resident at once.
inline planner::DeviceProfile nvidia_like() {
  planner::DeviceProfile p;
  p.local_mem_bytes = 48 * 1024;
  p.local_mem_per_unit = 228 * 1024;
  p.max_work_group_size = 1024;
  p.compute_units = 132;
  p.line_bytes = 128;
  p.vendor = "NVIDIA Corporation";
  p.resident_groups = true;
  return p;
}

// An AMD GPU of 64 compute units: 64-wide wavefronts, 32 KiB of local memory, work-groups
// of at most 256, one work-group per compute unit resident at once.
inline planner::DeviceProfile amd_like() {
  planner::DeviceProfile p;
  p.local_mem_bytes = 32 * 1024;
  p.max_work_group_size = 256;
  p.simd_width = 64;
  p.compute_units = 64;
  p.vendor = "Advanced Micro Devices, Inc.";
  p.resident_groups = true;
  return p;
}

// A CPU as PoCL shows it to a plan that runs there: no resident work-groups, large
// work-groups, two compute units.
inline planner::DeviceProfile cpu_like() {
  planner::DeviceProfile p = nvidia_like();
  p.resident_groups = false;
  p.max_work_group_size = 4096;
  p.compute_units = 2;
  return p;
}

// One compute unit with work-groups of at most max_wg and 48 KiB of local memory: the
// on-chip kernel's tests run one group (which never waits for another) or a few.
inline planner::DeviceProfile one_unit(std::size_t max_wg) {
  planner::DeviceProfile p;
  p.max_work_group_size = max_wg;
  p.local_mem_bytes = 48 * 1024;
  p.compute_units = 1;
  return p;
}

// A small GPU with resident work-groups: 8 compute units, 48 KiB of local memory. A
// 300 x 211 f32 matrix takes one on-chip pass there, two groups per compute unit: the
// tests of the planner's fallbacks around that kernel start from it.
inline planner::DeviceProfile eight_resident_units() {
  planner::DeviceProfile p;
  p.local_mem_bytes = 48 * 1024;
  p.compute_units = 8;
  p.resident_groups = true;
  return p;
}

struct NamedProfile {
  const char* name;
  planner::DeviceProfile device;
};

// The GPUs the planner tests plan for, by name.
inline std::vector<NamedProfile> gpu_profiles() {
  return {{"NVIDIA-like", nvidia_like()}, {"AMD-like", amd_like()}};
}

// The GPUs and the CPU.
inline std::vector<NamedProfile> gpu_and_cpu_profiles() {
  auto all = gpu_profiles();
  all.push_back({"CPU-like", cpu_like()});
  return all;
}

}  // namespace ipt::test
