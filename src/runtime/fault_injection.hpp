// SPDX-License-Identifier: Apache-2.0
// Fault injection for tests: makes the n-th enqueue, or the n-th buffer allocation, that
// the library attempts fail as an OpenCL runtime would, so that a test can fail each
// command of each plan in turn and check that the caller's buffer survives. Every
// command the library enqueues and every buffer it creates passes one of these points.
// Disarmed (always, outside tests) a point costs one relaxed atomic load.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "planner/launch_plan.hpp"

namespace ipt::runtime::faults {

enum class Site {
  kEnqueue,     // fails with CL_OUT_OF_RESOURCES
  kAllocation,  // fails with CL_MEM_OBJECT_ALLOCATION_FAILURE
};

// Counts both sites from zero from now on; the enqueues numbered in `enqueues` (1: the
// first from now) and the allocations numbered in `allocations` fail. Empty lists only
// count. Not for concurrent calls: the counts are the process's.
void arm(std::vector<std::uint64_t> enqueues, std::vector<std::uint64_t> allocations = {});

// Stops failing and counting.
void disarm();

// Points passed at `site` since arm().
std::uint64_t count(Site site);

// What each point passed at `site` since arm() stood for ("clEnqueueNDRangeKernel", ...),
// in order: a test finds a call's first kernel among its commands by it.
std::vector<const char*> passed(Site site);

// A point: throws cl::Error(code, what) when armed to fail this one.
void point(Site site, const char* what);

// The groups that probes of the on-chip kernel (launcher.cpp) launch and await: all of
// the call's (the default); one more awaited than launched, as on a device that cannot
// hold them all at once (the kernel really takes its fallback and reports so); or one
// group only, as on a device that holds them all, whatever runs the tests.
void steer_onchip_probes(planner::ProbeGroups groups);
planner::ProbeGroups onchip_probe_groups();

// While set, crowded verdicts are checked again at this age instead of
// kCrowdedRecheckAge (launcher.hpp). Unset by default.
void recheck_crowded_at(std::optional<std::chrono::milliseconds> age);
std::optional<std::chrono::milliseconds> crowded_recheck_age();

}  // namespace ipt::runtime::faults
