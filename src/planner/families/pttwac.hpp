// SPDX-License-Identifier: Apache-2.0
// PTTWAC (kernels/pttwac.cl): its launch configuration, flags and default.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/step.hpp"

namespace ipt::planner {

// 010! by cycle following with local-memory flags.
struct PttwacConfig {
  std::size_t work_group = 256;
  std::size_t spreading = 1;     // R in {1, 2, 4, 8, 16, 32} (PPoPP eq. 3)
  bool padding = true;           // one unused flag word after every 32 (PPoPP §5.1.2)
  bool global_flags = false;     // run as 0100! on (A, B, C, 1) with flags in global memory
  std::uint64_t max_groups = 0;  // grid-stride cap; 0 = one group per tile
  bool force_index64 = false;
};

// 32-bit flag words PTTWAC needs for a tile of n positions (n >= 1).
std::uint64_t pttwac_flag_words(std::uint64_t n, std::size_t spreading, bool padding);

// The zeroed flag bytes PTTWAC with global flags needs for A tiles of B x C (0: local
// flags); it runs as a SoA launch (soa.hpp, pttwac_global_soa).
std::uint64_t pttwac_launch_flag_bytes(const PttwacConfig& config, std::size_t local_mem_bytes,
                                       std::size_t elem_size, std::uint64_t A, std::uint64_t B,
                                       std::uint64_t C);
PttwacConfig choose_pttwac(const DeviceProfile& device, std::uint64_t B, std::uint64_t C);

// Its step builder (planner/families/pttwac.cpp). A region left with Buffer::kNone is placed
// at the start of the call scratch, as a kernel run alone needs.
Step pttwac_step(const StepSite& site, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                 const PttwacConfig& config, Region flags = {});

}  // namespace ipt::planner
