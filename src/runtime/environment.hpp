// SPDX-License-Identifier: Apache-2.0
// The library's environment (docs/environment.md), read in environment.cpp and nowhere
// else: the variables, and IPT_OVERRIDES="key=value,...", whose keys (override_keys.hpp)
// make the planner see a different device or force planning choices. Tests steer the
// same keys through the seam (faults::steered_overrides) so that PoCL plans as a GPU would.
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
  std::optional<std::size_t> word;           // DeviceProfile::word_bytes (1, 2, 4, 8 or 16)
  std::optional<std::size_t> onchip_groups;  // DeviceProfile::onchip_groups (1 or 2)
  std::optional<bool> onchip_hold;           // DeviceProfile::onchip_hold
  planner::PlanOverrides plan;
};

// The variables the library reads.
enum class Variable {
  kOverrides,     // IPT_OVERRIDES
  kBuildOptions,  // IPT_BUILD_OPTIONS
  kKernelDir,     // IPT_KERNEL_DIR
  kKernelSet,     // IPT_KERNEL_SET
  kCacheDir,      // IPT_CACHE_DIR
  kCacheDisable,  // IPT_CACHE_DISABLE
  kXdgCacheHome,  // XDG_CACHE_HOME: the disk cache's default place
  kHome,          // HOME: likewise
};

// Its value now; nullptr when unset or empty.
const char* variable(Variable which);

// Throws ipt::Error(IPT_INVALID_VALUE) naming the unknown key or bad value
// (override_keys.cpp).
Overrides parse_overrides(const std::string& text);

// The overrides IPT_OVERRIDES holds now (read on every call; empty when unset), or those
// a test steers through the seam (faults::steered_overrides) in its place.
Overrides current_overrides();

// Replaces the profile's fields that `overrides` sets; local_mem and max_wg can only
// lower the device's limits.
void apply_overrides(const Overrides& overrides, planner::DeviceProfile& profile);

// The environment texts a plan and its kernels depend on (IPT_OVERRIDES,
// IPT_BUILD_OPTIONS, IPT_KERNEL_DIR), joined: part of a checked plan's key.
std::string environment_key();

}  // namespace ipt::runtime
