// SPDX-License-Identifier: Apache-2.0
// The one documented override path: IPT_OVERRIDES="key=value,..." makes the planner see
// a different device (local_mem, max_wg, max_alloc, simd, compute_units, fp64, line,
// resident_groups, word) and forces planning choices (square.tile, square.wg_rows, sequence, m,
// n, padding, padded_rows, padded_cols, onchip; onchip.abort makes every on-chip attempt
// give up, so that its fallback runs; square.tiles, onchip.tiles, or tiles for both, lay
// the kernels' local tiles out padded, the default, or swizzled). Tests use it so that
// PoCL plans as a GPU would.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "planner/device_profile.hpp"
#include "planner/launch_plan.hpp"

namespace ipt::runtime {

struct Overrides {
  std::optional<std::size_t> local_mem, max_wg, simd, compute_units;
  std::optional<std::uint64_t> max_alloc;  // can only lower the device's
  std::optional<bool> fp64;
  std::optional<std::size_t> line;           // the cache line size the planner aligns to (0: none)
  std::optional<bool> resident_groups;       // DeviceProfile::resident_groups
  std::optional<std::size_t> word;           // DeviceProfile::word_bytes (1, 2 or 4)
  std::optional<std::size_t> onchip_groups;  // DeviceProfile::onchip_groups (1 or 2)
  planner::PlanOverrides plan;
};

// Throws ipt::Error(IPT_INVALID_VALUE) naming the unknown key or bad value.
Overrides parse_overrides(const std::string& text);

// The overrides IPT_OVERRIDES holds now (read on every call; empty when unset).
Overrides current_overrides();

// Replaces the profile's fields that `overrides` sets; local_mem and max_wg can only
// lower the device's limits.
void apply_overrides(const Overrides& overrides, planner::DeviceProfile& profile);

// The environment texts a plan and its kernels depend on (IPT_OVERRIDES,
// IPT_BUILD_OPTIONS, IPT_KERNEL_DIR), joined: part of a checked plan's key.
std::string environment_key();

}  // namespace ipt::runtime
