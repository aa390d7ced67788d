// SPDX-License-Identifier: Apache-2.0
// Fault injection for tests, through the library's seam (runtime/fault_seam.hpp): makes
// the n-th enqueue, or the n-th buffer allocation, that the library attempts fail as an
// OpenCL runtime would, so that a test can fail each command of each plan in turn and
// check that the caller's buffer survives; and steers the on-chip probe and the overrides. Linked
// into the internal tests only, whose strong definitions replace the library's no-ops. Disarmed, a
// point costs one relaxed atomic load.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/fault_seam.hpp"

namespace ipt::runtime::faults {

// Counts every site from zero from now on; the enqueues numbered in `enqueues` (1: the
// first from now), the allocations numbered in `allocations`, the other calls numbered in
// `calls` and the keeps numbered in `keeps` fail. Empty lists only count. Not for
// concurrent calls: the counts are the process's.
void arm(std::vector<std::uint64_t> enqueues, std::vector<std::uint64_t> allocations = {},
         std::vector<std::uint64_t> calls = {}, std::vector<std::uint64_t> keeps = {});

// Stops failing and counting.
void disarm();

// Points passed at `site` since arm().
std::uint64_t count(Site site);

// What each point passed at `site` since arm() stood for ("clEnqueueNDRangeKernel", ...),
// in order: a test finds a call's first kernel among its commands by it.
std::vector<const char*> passed(Site site);

// Every point passed since arm(), of every site, in order.
std::vector<std::pair<Site, const char*>> sequence();

// The groups that probes of the on-chip kernel launch and await: all of the call's (the
// default); one more awaited than launched, as on a device that cannot hold them all at
// once (the kernel really takes its fallback and reports so); or one group only, as on a
// device that holds them all, whatever runs the tests.
void steer_onchip_probes(planner::ProbeGroups groups);

// While set, crowded verdicts are checked again at this age instead of
// kCrowdedRecheckAge (onchip_residency.hpp). Unset by default.
void recheck_crowded_at(std::optional<std::chrono::milliseconds> age);

// The overrides the library sees in place of IPT_OVERRIDES while set ("" for none);
// nothing: the environment's again. For the whole process, as the environment is.
void steer_overrides(std::optional<std::string> text);
std::optional<std::string> overrides_steered_now();

}  // namespace ipt::runtime::faults

namespace ipt::test {

// Steers the library's overrides (IPT_OVERRIDES' keys) for a scope, and gives back what
// was steered before: as ScopedEnv("IPT_OVERRIDES", text) did, without setenv, which
// races with the library's threads reading the environment. nullptr: no overrides.
class ScopedOverrides {
 public:
  explicit ScopedOverrides(const char* text) : before_(runtime::faults::overrides_steered_now()) {
    runtime::faults::steer_overrides(std::string(text != nullptr ? text : ""));
  }
  explicit ScopedOverrides(const std::string& text) : ScopedOverrides(text.c_str()) {}
  ~ScopedOverrides() { runtime::faults::steer_overrides(before_); }
  ScopedOverrides(const ScopedOverrides&) = delete;
  ScopedOverrides& operator=(const ScopedOverrides&) = delete;

 private:
  std::optional<std::string> before_;
};

}  // namespace ipt::test
