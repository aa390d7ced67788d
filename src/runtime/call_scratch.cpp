#include "runtime/call_scratch.hpp"

#include "planner/elementary_configs.hpp"
#include "runtime/error.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/onchip_launcher.hpp"
#include "runtime/plan_executor.hpp"
#include "runtime/scratch_cache.hpp"

namespace ipt::runtime {
namespace {

using Region = CallScratchLayout::Region;

}  // namespace

CallScratchLayout call_scratch_layout(const planner::DeviceProfile& profile,
                                      const planner::TransposePlan& plan, std::size_t elem_size) {
  CallScratchLayout layout;
  auto take = [&layout](std::uint64_t bytes, bool zero = false) {
    Region region;
    if (bytes == 0) return region;
    std::uint64_t& total = zero ? layout.zero_total : layout.total;
    region.offset = total;
    region.bytes = bytes;
    region.zero = zero;
    total += (bytes + CallScratchLayout::kAlign - 1) / CallScratchLayout::kAlign *
             CallScratchLayout::kAlign;
    return region;
  };
  if (plan.onchip) {
    // One command: the plan's stages (the planner's regular plan) do not run.
    layout.onchip = take(onchip_scratch_bytes(plan.rows * plan.cols), true);
    layout.stage.resize(plan.stages.size());
    return layout;
  }
  layout.tail = take((plan.padded_elements() - plan.rows * plan.cols) * elem_size);
  layout.flags_start = layout.total;  // every region taken from here on starts zeroed
  const auto restride = planner::choose_restride(profile, elem_size);
  if (plan.padded_cols != plan.cols && plan.rows > 1)
    layout.pad = take(planner::restride_scratch_bytes(restride, plan.rows * plan.cols));
  auto flag_bytes = [&](const planner::Stage& stage) -> std::uint64_t {
    if (stage.kind != planner::Stage::Kind::k0100 || stage.identity()) return 0;
    const auto config = planner::choose_soa(profile, stage.C, elem_size);
    return planner::soa_launch_flag_bytes(config, profile.local_mem_bytes, elem_size, stage.I,
                                          stage.A, stage.B, stage.C);
  };
  // Flags the last kernel leaves zero go first in the zero scratch, in one range that
  // holds no on-chip stage's words (that kernel must not clear its own scratch).
  const bool by_last = !plan.padded() && last_kernel_zeroes(plan, profile, elem_size);
  layout.stage.resize(plan.stages.size());
  if (by_last) {
    for (std::size_t i = 0; i < plan.stages.size(); ++i)
      if (!plan.stages[i].onchip) layout.stage[i] = take(flag_bytes(plan.stages[i]), true);
    layout.zeroed_by_last = {0, layout.zero_total, true};
  }
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    const planner::Stage& stage = plan.stages[i];
    if (stage.onchip)
      layout.stage[i] = take(onchip_scratch_bytes(stage.I * stage.A * stage.B * stage.C), true);
    else if (!by_last)
      layout.stage[i] = take(flag_bytes(stage));
  }
  if (plan.padded_rows != plan.rows && plan.cols > 1)
    layout.unpad = take(planner::restride_scratch_bytes(restride, plan.rows * plan.cols));
  return layout;
}

CallScratchLayout::Region CallScratchLayout::flags() const {
  return {flags_start, total - flags_start};
}

CallScratch::CallScratch(const cl::CommandQueue& queue, bool in_order,
                         const CallScratchLayout& layout, const std::vector<cl::Event>& wait,
                         bool fill, bool fill_event) {
  if (layout.total == 0 && layout.zero_total == 0) return;
  use_ = {queue_context(queue)(), queue(), in_order};
  std::vector<cl::Event> after = wait;
  if (layout.zero_total > 0) {
    TakenScratch taken = take_zero_scratch(use_, layout.zero_total);
    zero_ = {std::move(taken.buffer), 0, layout.zero_total};
    previous_[0] = std::move(taken.previous);
    zero_fresh_ = taken.fresh;
    if (taken.fresh) {  // zeroed once; its kernels leave it zero for the calls that reuse it
      check_cl(queue.enqueueFillBuffer(zero_.buffer, cl_uint{0}, 0,
                                       static_cast<std::size_t>(layout.zero_total), &after,
                                       event_slot(zeroed_, fill_event)),
               "clEnqueueFillBuffer");
      if (zeroed_() != nullptr) after = {zeroed_};
    }
  }
  if (layout.total == 0) return;
  TakenScratch taken = take_scratch(use_, layout.total);
  buffer_ = std::move(taken.buffer);
  previous_[1] = std::move(taken.previous);
  const CallScratchLayout::Region flags = layout.flags();
  if (!fill || flags.bytes == 0) return;
  check_cl(queue.enqueueFillBuffer(buffer_, cl_uint{0}, static_cast<std::size_t>(flags.offset),
                                   static_cast<std::size_t>(flags.bytes), &after,
                                   event_slot(zeroed_, fill_event)),
           "clEnqueueFillBuffer");
}

ScratchRegion CallScratch::region(const Region& region) const {
  if (region.bytes == 0) return {};
  return {region.zero ? zero_.buffer : buffer_, region.offset, region.bytes};
}

void CallScratch::release_after(const cl::Event& last) {
  give_back_scratch(last, use_, std::move(buffer_));
  give_back_zero_scratch(last, use_, std::move(zero_.buffer), zero_fresh_);
  buffer_ = cl::Buffer();
  zero_ = ScratchRegion{};
}

}  // namespace ipt::runtime
