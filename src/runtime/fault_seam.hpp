// SPDX-License-Identifier: Apache-2.0
// The seam through which every command the library enqueues, every buffer and kernel
// object it creates and every other OpenCL call it makes between commands passes, and the
// choices that a test may steer (the on-chip probe, the overrides). The library's definitions
// (fault_seam.cpp) are weak and do nothing: the test suite links strong ones
// (tests/helpers/fault_injection.cpp) that make the n-th command or allocation fail as an
// OpenCL runtime would. libipt.so carries only the no-ops.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "planner/launch_plan.hpp"

namespace ipt::runtime::faults {

enum class Site {
  kEnqueue,     // a command; fails with CL_OUT_OF_RESOURCES
  kAllocation,  // a buffer, program or kernel object; fails with
                // CL_MEM_OBJECT_ALLOCATION_FAILURE
  kCall,        // another call before or between commands (clBuildProgram, clSetKernelArg,
                // clFlush, clRetainEvent); fails with CL_OUT_OF_HOST_MEMORY
  kKeep,        // the clRetainEvent that keeps a call's scratch for later calls, after its
                // last command; fails with CL_OUT_OF_RESOURCES, and nothing is kept
};

// Before each command and allocation: throws cl::Error(code, what) where a test made
// this one fail; `what` names the OpenCL call ("clEnqueueNDRangeKernel", ...).
void point(Site site, const char* what);

// The groups that probes of the on-chip kernel (onchip_residency.cpp) launch and await: all of
// the call's, unless a test steers them.
planner::ProbeGroups onchip_probe_groups();

// The age at which crowded verdicts are checked again, where a test sets one (else
// kCrowdedRecheckAge, onchip_residency.hpp).
std::optional<std::chrono::milliseconds> crowded_recheck_age();

// The overrides a test gives the library in place of IPT_OVERRIDES (runtime/environment.hpp):
// their text ("" for none), or nothing where no test steers them (the environment's).
// Tests steer through this rather than setenv, which races with the library's threads.
std::optional<std::string> steered_overrides();

}  // namespace ipt::runtime::faults
