// SPDX-License-Identifier: Apache-2.0
// A rough model of how long a plan takes, used to choose the tile factors m, n and
// whether padding pays. Each pass over the matrix costs 1 / (its fraction of the copy
// bandwidth). The fractions are measured ones, from a GPU of 128-byte cache lines; each
// family's curve lives with the family: bs_efficiency, soa_efficiency and
// soa_stage_efficiency, restride_efficiency (families/), onchip_efficiency
// (families/onchip.hpp), kSquareEfficiency (families/square.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/sequence.hpp"
#include "planner/tile_layout.hpp"

namespace ipt::planner {

// Estimated time of the whole plan, padding and unpadding included, in units of the
// time a copy of the caller's matrix takes; its on-chip stages stage tiles in
// `onchip_tiles`.
double estimated_cost(const DeviceProfile& device, const TransposePlan& plan, std::size_t elem_size,
                      TileLayout onchip_tiles = TileLayout::kPadded);

}  // namespace ipt::planner
