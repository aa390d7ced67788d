// SPDX-License-Identifier: Apache-2.0
// Probes of the on-chip kernel launch and await the given groups while a SteeredProbes
// lives (runtime::faults::steer_onchip_probes), for the internal tests.
#pragma once

#include "helpers/fault_injection.hpp"
#include "planner/launch_plan.hpp"

namespace ipt::test {

class SteeredProbes {
 public:
  explicit SteeredProbes(planner::ProbeGroups groups) { set(groups); }
  ~SteeredProbes() { set(planner::ProbeGroups::kAll); }
  SteeredProbes(const SteeredProbes&) = delete;
  SteeredProbes& operator=(const SteeredProbes&) = delete;
  void set(planner::ProbeGroups groups) { runtime::faults::steer_onchip_probes(groups); }
};

}  // namespace ipt::test
