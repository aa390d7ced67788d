// SPDX-License-Identifier: Apache-2.0
// What the planner knows of a device: plain numbers, no OpenCL types, so that plans can
// be computed and tested without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ipt::planner {

struct DeviceProfile {
  std::size_t local_mem_bytes = 48 * 1024;  // CL_DEVICE_LOCAL_MEM_SIZE
  std::size_t max_work_group_size = 1024;   // CL_DEVICE_MAX_WORK_GROUP_SIZE
  std::size_t simd_width = 32;              // warp / wavefront width
  std::size_t compute_units = 1;            // CL_DEVICE_MAX_COMPUTE_UNITS
  std::uint64_t max_alloc_bytes = 0;        // CL_DEVICE_MAX_MEM_ALLOC_SIZE (0: no limit)
  std::uint64_t global_mem_bytes = 0;       // CL_DEVICE_GLOBAL_MEM_SIZE (0: unknown)
  bool has_fp64 = true;                     // CL_DEVICE_DOUBLE_FP_CONFIG != 0
  std::string vendor;                       // CL_DEVICE_VENDOR
  // Local memory of a compute unit, which the work-groups resident on it share: more than
  // one group's local_mem_bytes on NVIDIA GPUs (228 KiB on an H200, 48 KiB a group).
  // 0: local_mem_bytes (a group can take all of it, as on AMD GPUs).
  std::size_t local_mem_per_unit = 0;
  // CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE; 0: the planner prefers no alignment (TPDS's
  // Algorithms 2 and 5 as published).
  std::size_t line_bytes = 0;
  // Whether a kernel of one work-group of up to 1024 work-items per compute unit (or two
  // of 512) normally has all of them running at once: NVIDIA and AMD GPUs (a compute unit
  // is a multiprocessor). Only there does the planner choose the on-chip plan by itself
  // (families/onchip.hpp); elsewhere (CPUs, GPUs that count execution units as compute
  // units) its attempt would mostly give up after waiting.
  bool resident_groups = false;
  // The widest word in which the kernels that move runs of contiguous elements (the SoA
  // kernel's super-elements, the restride kernel's rows) move narrower elements, when a
  // run fills whole words (narrow_words.hpp, word_factor). 1: element by element. 8- and
  // 16-byte words made the 100! steps of 4-byte elements whose super-elements fill them
  // 2-10 points of copy faster. Capped at 8 bytes, 5 of 8 steps that 16-byte words move
  // ran slower (by up to 14%), and the random protocol no faster.
  std::size_t word_bytes = 16;
  // Work-groups of the on-chip kernel per compute unit, sharing its 1024 work-items'
  // registers and its local memory: 1 or 2 (IPT_OVERRIDES onchip.groups); 0: the
  // planner's choice (families/onchip.cpp).
  std::size_t onchip_groups = 0;
  // Whether the on-chip kernel holds tiles in local memory as well as in registers
  // (IPT_OVERRIDES onchip.hold; families/onchip.cpp).
  bool onchip_hold = true;
  // The build options of the on-chip programs found not to run every work-group at once
  // on this device (a probe's verdict, runtime/onchip_residency.hpp). Where the planner
  // counts on resident groups, plans go around them (crowded_onchip.hpp).
  std::vector<std::string> crowded_onchip;
};

}  // namespace ipt::planner
