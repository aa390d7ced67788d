// SPDX-License-Identifier: Apache-2.0
// Fault injection for tests, through the library's seam (runtime/fault_seam.hpp): makes
// the n-th enqueue, or the n-th buffer allocation, that the library attempts fail as an
// OpenCL runtime would, so that a test can fail each command of each plan in turn and
// check that the caller's buffer survives; and steers the on-chip probe. Linked into the
// internal tests only, whose strong definitions replace the library's no-ops. Disarmed,
// a point costs one relaxed atomic load.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
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
// kCrowdedRecheckAge (launcher.hpp). Unset by default.
void recheck_crowded_at(std::optional<std::chrono::milliseconds> age);

}  // namespace ipt::runtime::faults
