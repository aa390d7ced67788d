#include "runtime/call_scratch.hpp"

#include "planner/elementary_configs.hpp"
#include "runtime/error.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/onchip_launcher.hpp"
#include "runtime/scratch_cache.hpp"

namespace ipt::runtime {
namespace {

using Region = CallScratchLayout::Region;

}  // namespace

std::uint64_t onchip_fallback_flag_bytes(const planner::DeviceProfile& profile,
                                         const planner::Stage& stage, std::size_t elem_size) {
  if (planner::bs_fits(profile, stage.B, stage.C, elem_size)) return 0;
  return planner::pttwac_launch_flag_bytes(planner::choose_pttwac(profile, stage.B, stage.C),
                                           profile.local_mem_bytes, elem_size, stage.I * stage.A,
                                           stage.B, stage.C);
}

CallScratchLayout call_scratch_layout(const planner::DeviceProfile& profile,
                                      const planner::TransposePlan& plan, std::size_t elem_size) {
  CallScratchLayout layout;
  auto take = [&layout](std::uint64_t bytes) {
    Region region;
    if (bytes == 0) return region;
    region.offset = layout.total;
    region.bytes = bytes;
    layout.total += (bytes + CallScratchLayout::kAlign - 1) / CallScratchLayout::kAlign *
                    CallScratchLayout::kAlign;
    return region;
  };
  layout.tail = take((plan.padded_elements() - plan.rows * plan.cols) * elem_size);
  layout.flags_start = layout.total;  // every region taken from here on starts zeroed
  if (plan.onchip) layout.onchip = take(kOnChipSyncBytes);
  const auto restride = planner::choose_restride(profile, elem_size);
  if (plan.padded_cols != plan.cols && plan.rows > 1)
    layout.pad = take(planner::restride_scratch_bytes(restride, plan.rows * plan.cols));
  for (const planner::Stage& stage : plan.stages) {
    std::uint64_t bytes = 0;
    if (stage.onchip) {
      // The attempt's words, then the flags of the regular kernel after it: in the call's
      // one fill, not in a buffer and a fill of the kernel's own (which cost an H200 call
      // 100-250 us between its kernels).
      bytes = CallScratchLayout::kAlign + onchip_fallback_flag_bytes(profile, stage, elem_size);
    } else if (stage.kind == planner::Stage::Kind::k0100 && !stage.identity()) {
      const auto config = planner::choose_soa(profile, stage.C, elem_size);
      bytes = planner::soa_launch_flag_bytes(config, profile.local_mem_bytes, elem_size, stage.I,
                                             stage.A, stage.B, stage.C);
    }
    layout.stage.push_back(take(bytes));
  }
  if (plan.padded_rows != plan.rows && plan.cols > 1)
    layout.unpad = take(planner::restride_scratch_bytes(restride, plan.rows * plan.cols));
  return layout;
}

CallScratchLayout::Region CallScratchLayout::flags() const {
  return {flags_start, total - flags_start};
}

CallScratch::CallScratch(const cl::CommandQueue& queue, const CallScratchLayout& layout,
                         const std::vector<cl::Event>& wait, bool fill, bool fill_event) {
  if (layout.total == 0) return;
  const auto context = queue.getInfo<CL_QUEUE_CONTEXT>();
  buffer_ = take_scratch(context, layout.total);
  const CallScratchLayout::Region flags = layout.flags();
  if (!fill || flags.bytes == 0) return;
  check_cl(queue.enqueueFillBuffer(buffer_, cl_uint{0}, static_cast<std::size_t>(flags.offset),
                                   static_cast<std::size_t>(flags.bytes), &wait,
                                   event_slot(zeroed_, fill_event)),
           "clEnqueueFillBuffer");
}

ScratchRegion CallScratch::region(const Region& region) const {
  if (region.bytes == 0) return {};
  return {buffer_, region.offset, region.bytes};
}

void CallScratch::release_after(const cl::Event& last) {
  give_back_scratch_when_complete(last, buffer_);
  buffer_ = cl::Buffer();
}

}  // namespace ipt::runtime
