// The device scratch of one transposition call in ONE buffer: the bytes a padded plan
// borrows beyond the caller's matrix, the padding kernels' counters and flags, and the
// flag bits of every cycle-following stage. One allocation and one fill per call, instead
// of one of each per stage: on NVIDIA's driver (580, H200) every extra command cost
// about 20-25 us of GPU time between the kernels of a call (most of it, it turned out,
// the event each command carried: see event_slot).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/opencl.hpp"
#include "runtime/scratch_cache.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// Byte offsets and sizes of each region (size 0: the call does not need it). Kernels get
// the buffer and a region's offset, never a sub-buffer (see scratch_region.hpp); regions
// start at multiples of kAlign, a multiple of every element size and of the flag words,
// and a cache line so that no two regions share one.
//
// The on-chip kernel's scratch lives in a second buffer, of zero scratch
// (scratch_cache.hpp): that kernel finds it zero and leaves it zero, so that a call whose
// first command is that kernel needs no fill (it zeroes the first buffer's flags itself).
// When the call's last kernel can zero words on the way (BS or on-chip, and it is not
// also the first) and the plan is not padded, the flags of the stages before it go to
// the zero scratch as well (`zeroed_by_last`): they start zero, and that kernel leaves
// them zero for the next call, so a call starting with a cycle-following stage (2.2)
// needs no fill either.
struct CallScratchLayout {
  static constexpr std::uint64_t kAlign = 128;
  struct Region {
    std::uint64_t offset = 0, bytes = 0;
    bool zero = false;  // in the zero-scratch buffer
  };
  Region tail;            // the bytes beyond the caller's matrix that padding borrows
  Region pad, unpad;      // restride counters and flags
  Region onchip;          // the whole-matrix on-chip kernel's words and flags (zero scratch)
  Region zeroed_by_last;  // zero scratch covering the stage flags the last kernel zeroes
  // One per plan stage: the flags of a 0100! stage (zero scratch with zeroed_by_last),
  // the on-chip kernel's scratch of an on-chip 010! stage (zero scratch), else empty.
  std::vector<Region> stage;
  std::uint64_t total = 0;        // bytes of the first buffer
  std::uint64_t zero_total = 0;   // bytes of the zero-scratch buffer
  std::uint64_t flags_start = 0;  // where the first buffer's regions after `tail` begin
  // The first buffer after the borrowed bytes: flags and counters, which must start zeroed.
  Region flags() const;
};

CallScratchLayout call_scratch_layout(const planner::DeviceProfile& profile,
                                      const planner::TransposePlan& plan, std::size_t elem_size);

// The scratch buffers of a call and their regions (empty where the call needs none).
// With `fill`, the first buffer's flags are zeroed by a fill enqueued after `wait`, which
// has an event (zeroed()) only when `fill_event` asks for one (see event_slot); without,
// the caller zeroes layout.flags() itself, before any kernel uses them (a padded call
// does it in the command that saves the borrowed bytes; a call that starts with an
// on-chip or a BS kernel, in that kernel).
class CallScratch {
 public:
  CallScratch(const cl::CommandQueue& queue, bool in_order, const CallScratchLayout& layout,
              const std::vector<cl::Event>& wait, bool fill, bool fill_event);
  const cl::Event& zeroed() const { return zeroed_; }
  ScratchRegion region(const CallScratchLayout::Region& region) const;
  // The whole zero-scratch buffer, or null without one: the region of a whole-matrix
  // on-chip call (layout.onchip), without the copy of its handle that region() makes
  // (a clRetainMemObject, 0.2-0.8 us of an H200's host time before the kernel).
  const ScratchRegion* zero_scratch() const { return zero_.or_null(); }
  // Hands the buffers back to the scratch cache, tagged with `last` (the call's last
  // command): see scratch_cache.hpp.
  void release_after(const cl::Event& last);

 private:
  ScratchUse use_;
  cl::Buffer buffer_;
  ScratchRegion zero_;       // the whole zero-scratch buffer
  bool zero_fresh_ = false;  // new this call (scratch_cache.hpp: give_back_zero_scratch)
  cl::Event previous_[2];    // the buffers' earlier tags, dropped with this object
  cl::Event zeroed_;
};

}  // namespace ipt::runtime
