// Runs the stages of a TransposePlan (2.1, 2.2, 3.1, 3.2 or one-stage) on the caller's
// queue, each stage waiting for the one before; the square plan has its own launcher.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Builds and checks every stage's kernel first, so that a failure (build error, a launch
// the device refuses) leaves the buffer untouched; then enqueues the stages after `wait`
// and returns the last one's event. With dry_run, stops after the checks (no event).
// `stage_events` (benchmarks) receives every stage's event in order. `stage_flags`, when
// given, holds for each stage the zeroed flags of its cycle following (an empty buffer:
// the stage allocates and zeroes its own; see CallScratch). Without `last_event` (the
// caller enqueues more after it on an in-order queue) it may return no event at all:
// only what an out-of-order queue needs to order the stages gets one (see event_slot).
cl::Event enqueue_plan(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size,
                       const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                       const std::vector<cl::Event>& wait, bool dry_run = false,
                       std::vector<cl::Event>* stage_events = nullptr,
                       const std::vector<cl::Buffer>* stage_flags = nullptr,
                       bool last_event = true);

}  // namespace ipt::runtime
