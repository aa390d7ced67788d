// Runs the stages of a TransposePlan (2.1, 2.2, 3.1, 3.2 or one-stage) on the caller's
// queue, each stage waiting for the one before; the square plan has its own launcher.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// How enqueue_plan runs a plan.
struct PlanRun {
  bool dry_run = false;  // build and check every stage's kernel, enqueue nothing (no event)
  // The plan passed a dry run on this queue's device with this buffer's offset and element
  // size: skip the checks (10-20 us of host time per call on an H200).
  bool checked = false;
  // Without it (the caller enqueues more after the plan on an in-order queue) the last
  // stage gets no event either: only what an out-of-order queue needs to order the stages
  // gets one (see event_slot).
  bool last_event = true;
  // (benchmarks) every stage's event.
  std::vector<cl::Event>* stage_events = nullptr;
  // For each stage, the zeroed flags of its cycle following, or the zero scratch of an
  // on-chip 010! stage (an empty region: the stage allocates its own; see CallScratch).
  const std::vector<ScratchRegion>* stage_flags = nullptr;
  // Words that the plan's first kernel zeroes (the call's scratch, which then needs no
  // fill); only where that kernel can (first_kernel_zeroes), none otherwise.
  const ScratchRegion* zero_first = nullptr;
  // Words that the plan's last kernel zeroes on the way: earlier stages' flags kept in
  // zero scratch, which it leaves zero for the next call; only where that kernel can
  // (last_kernel_zeroes).
  const ScratchRegion* zero_last = nullptr;
  // Every on-chip 010! stage takes its fallback (IPT_OVERRIDES onchip.abort=1: tests of
  // the path a device that cannot run every group at once takes).
  bool onchip_give_up = false;
};

// Whether the first kernel of the plan's stages can zero words of another buffer on the
// way (PlanRun::zero_first): an on-chip 010! stage or a BS 010! stage. Identity stages
// enqueue nothing and are skipped.
bool first_kernel_zeroes(const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                         std::size_t elem_size);

// The same for the last kernel, when it is not also the first (PlanRun::zero_last).
bool last_kernel_zeroes(const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                        std::size_t elem_size);

// Builds and checks every stage's kernel first (unless run.checked), so that a failure
// (build error, a launch the device refuses) leaves the buffer untouched; then enqueues
// the stages after `wait` and returns the last one's event.
cl::Event enqueue_plan(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size,
                       const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                       const std::vector<cl::Event>& wait, const PlanRun& run = {});

}  // namespace ipt::runtime
