// SPDX-License-Identifier: Apache-2.0
// The library's side of the seam: nothing happens. Weak, so that the test suite's strong
// definitions (tests/helpers/fault_injection.cpp), linked beside the library's objects, replace
// them; libipt.so, which the suite does not link into, keeps these.
#include "runtime/fault_seam.hpp"

namespace ipt::runtime::faults {

__attribute__((weak)) void point(Site, const char*) {}

__attribute__((weak)) planner::ProbeGroups onchip_probe_groups() {
  return planner::ProbeGroups::kAll;
}

__attribute__((weak)) std::optional<std::chrono::milliseconds> crowded_recheck_age() {
  return std::nullopt;
}

__attribute__((weak)) std::optional<std::string> steered_overrides() { return std::nullopt; }

}  // namespace ipt::runtime::faults
