// Enqueues the one-pass on-chip transposition attempt (kernels/onchip.cl).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/onchip_plan.hpp"
#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// Words of the attempt's zeroed scratch: tickets, the decision (1: done, which the
// fallback's kernels read as `skip`), the barrier count.
inline constexpr std::uint64_t kOnChipSyncBytes = 16;

// The decision word of an attempt whose scratch is `sync`: what the fallback's kernels
// take as their `skip` argument.
ScratchRegion onchip_decision(const ScratchRegion& sync);

struct OnChipLaunch {
  bool dry_run = false;  // only build and check the kernel
  bool event = true;     // return the kernel's event (see event_slot)
  bool give_up = false;  // wait for one group more than launched: the attempt always gives up
};

// Tries to transpose, after `wait`, the `instances` consecutive rows x cols matrices that
// start `offset` elements into `buffer` (010! on (instances, rows, cols)), each in one
// pass, in rounds of as many whole instances as the device holds; one instance must fit
// (planner::onchip_fits). `sync` is zeroed scratch of kOnChipSyncBytes. When the device
// does not run every group at once, the kernel leaves the matrices untouched and the
// decision word says so. Throws ipt::Error
// (IPT_OUT_OF_RESOURCES, nothing of the call enqueued, when the compiled kernel cannot run
// the configured work-group). A dry run may launch the kernel once on scratch of its own
// (see try_launch).
cl::Event enqueue_onchip(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t instances, std::uint64_t rows,
                         std::uint64_t cols, std::size_t elem_size,
                         const planner::OnChipConfig& config, const std::vector<cl::Event>& wait,
                         const ScratchRegion* sync, const OnChipLaunch& launch);

}  // namespace ipt::runtime
