// Enqueues the one-pass on-chip transposition attempt (kernels/onchip.cl).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/onchip_plan.hpp"
#include "runtime/opencl.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// The kernel's scratch for `elements` elements: its words (tickets, decision, loads
// announced, groups gone), then, a cache line on, a flag bit per element for the cycle
// following it falls back to. Zero scratch (take_zero_scratch): the kernel finds it all
// zero and leaves it so.
inline constexpr std::uint64_t kOnChipFlagsAt = 128;
constexpr std::uint64_t onchip_scratch_bytes(std::uint64_t elements) {
  return kOnChipFlagsAt + (elements + 31) / 32 * 4;
}

struct OnChipLaunch {
  bool dry_run = false;  // only build and check the kernel
  bool event = true;     // return the kernel's event (see event_slot)
  bool give_up = false;  // wait for one group more than launched: always the fallback
  // Words (offset and bytes multiples of 4) of another buffer that the kernel zeroes on
  // the way: the flags of the call's next kernel, which then needs no fill, or, from the
  // call's last kernel, those its earlier kernels left set (call_scratch.hpp).
  const ScratchRegion* zero = nullptr;
  // (tests, benchmarks) a word in which the kernel writes which way it went: 1 in one
  // pass, 2 by cycle following.
  const ScratchRegion* report = nullptr;
  // The kernel's program when the caller already has it (a call that repeats a checked
  // plan: building the options and looking the program up took about 1 us of an H200's
  // host time); without, it is looked up. `built`, when set, receives the one used.
  const ProgramRef* program = nullptr;
  ProgramRef* built = nullptr;
};

// Transposes, after `wait`, the `instances` consecutive rows x cols matrices that start
// `offset` elements into `buffer` (010! on (instances, rows, cols)) in ONE command: in
// one pass each, in rounds of as many whole instances as the device holds, when every
// work-group runs at once; else by cycle following (slower, but without waiting for any
// group). One instance must fit (planner::onchip_fits). `scratch` is zero scratch of
// onchip_scratch_bytes(instances * rows * cols), used by no other command until this one
// completes. Throws ipt::Error (IPT_OUT_OF_RESOURCES, nothing of the call enqueued, when
// the compiled kernel cannot run the configured work-group). A dry run may launch the
// kernel once on buffers of its own (see try_launch).
cl::Event enqueue_onchip(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t instances, std::uint64_t rows,
                         std::uint64_t cols, std::size_t elem_size,
                         const planner::OnChipConfig& config, const std::vector<cl::Event>& wait,
                         const ScratchRegion* scratch, const OnChipLaunch& launch);

}  // namespace ipt::runtime
