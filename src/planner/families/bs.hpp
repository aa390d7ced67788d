// SPDX-License-Identifier: Apache-2.0
// BS (kernels/bs.cl): its launch configuration, fit test and default.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/step.hpp"

namespace ipt::planner {

// 010! (A, B, C) -> (A, C, B) by barrier synchronisation.
struct BsConfig {
  std::size_t work_group = 256;       // work-items per group
  std::uint64_t tiles_per_group = 1;  // > 1: the small-tile ("virtual SIMD units") variant
  std::uint64_t max_groups = 0;       // grid-stride cap; 0 = one group per chunk of tiles
  bool force_index64 = false;         // 64-bit indices even where 32 bits would do
  // 1- and 2-byte elements in 4-byte words where the tiles and the matrix allow
  // (kernels/bs.cl; bs_step decides).
  bool words = true;
};

// Elements one work-group's local memory holds for BS (tiles plus the PAD slots).
std::uint64_t bs_local_elements(std::uint64_t tile_elements, std::uint64_t tiles_per_group);

// Whether a BS tile of B x C elements fits the local memory a kernel may use
// (usable_local_bytes): the one test of "fits a work-group" for planning and launching.
bool bs_fits(const DeviceProfile& device, std::uint64_t B, std::uint64_t C, std::size_t elem_size);
// Defaults for a B x C tile (it must fit: bs_fits).
BsConfig choose_bs(const DeviceProfile& device, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                   std::size_t elem_size);

// Its cost curve: the fraction of the copy bandwidth a 010! stage of B x C tiles reaches
// (75-93% measured where a tile fits a work-group; a tenth where it does not).
double bs_efficiency(const DeviceProfile& device, std::uint64_t B, std::uint64_t C,
                     std::size_t elem_size);

// Its step builder (planner/families/bs.cpp). A region left with Buffer::kNone is placed
// at the start of the call scratch, as a kernel run alone needs.
Step bs_step(const StepSite& site, std::uint64_t A, std::uint64_t B, std::uint64_t C,
             const BsConfig& config, Region zeroes = {});

}  // namespace ipt::planner
