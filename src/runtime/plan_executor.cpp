#include "runtime/plan_executor.hpp"

#include "planner/elementary_configs.hpp"
#include "runtime/bs_launcher.hpp"
#include "runtime/call_scratch.hpp"
#include "runtime/deferred_release.hpp"
#include "runtime/error.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/onchip_launcher.hpp"
#include "runtime/pttwac_launcher.hpp"
#include "runtime/scratch_cache.hpp"
#include "runtime/soa_asta_launcher.hpp"

namespace ipt::runtime {
namespace {

using planner::Stage;

// An on-chip 010! stage: one kernel, which falls back to cycle following by itself when
// the device cannot run every group at once (onchip_launcher.hpp). `scratch`: its zero
// scratch; without one (benchmarks of single stages) it takes its own.
cl::Event launch_onchip_stage(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                              std::uint64_t offset, std::size_t elem_size, const Stage& stage,
                              const planner::DeviceProfile& profile, bool dry_run, bool event,
                              const std::vector<cl::Event>& wait, const ScratchRegion* scratch,
                              const ScratchRegion* zero, bool give_up) {
  const std::uint64_t instances = stage.I * stage.A;
  ScratchRegion own;
  std::vector<cl::Event> after = wait;
  ScratchUse use;
  cl::Event previous;  // the kept buffer's tag, dropped after the enqueue (scratch_cache.hpp)
  bool fresh = false;
  if (!dry_run && (scratch == nullptr || scratch->empty())) {
    const std::uint64_t bytes = onchip_scratch_bytes(instances * stage.B * stage.C);
    use = {queue_context(queue)(), queue(), in_order(queue)};
    TakenScratch taken = take_zero_scratch(use, bytes);
    own = {std::move(taken.buffer), 0, bytes};
    previous = std::move(taken.previous);
    fresh = taken.fresh;
    if (fresh) {
      cl::Event zeroed;
      check_cl(queue.enqueueFillBuffer(own.buffer, cl_uint{0}, 0, static_cast<std::size_t>(bytes),
                                       &after, event_slot(zeroed, !use.in_order)),
               "clEnqueueFillBuffer");
      if (zeroed() != nullptr) after = {zeroed};
    }
    scratch = &own;
  }
  OnChipLaunch launch;
  launch.dry_run = dry_run;
  launch.event = event || !own.empty();
  launch.give_up = give_up;
  launch.zero = zero;
  cl::Event done =
      enqueue_onchip(queue, buffer, offset, instances, stage.B, stage.C, elem_size,
                     planner::choose_onchip(profile, elem_size), after, scratch, launch);
  if (!own.empty()) give_back_zero_scratch(done, use, std::move(own.buffer), fresh);
  return done;
}

bool zeroes_on_the_way(const Stage& stage, const planner::DeviceProfile& profile,
                       std::size_t elem_size) {
  return stage.onchip || (stage.kind == Stage::Kind::k010 &&
                          planner::bs_fits(profile, stage.B, stage.C, elem_size));
}

// `zero`: words that a BS stage zeroes on the way (zeroes_on_the_way).
cl::Event launch_stage(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size, const Stage& stage,
                       const planner::DeviceProfile& profile, bool index64, bool dry_run,
                       bool event, const std::vector<cl::Event>& wait,
                       const ScratchRegion* zeroed_flags, const ScratchRegion* zero = nullptr) {
  if (stage.onchip)
    return launch_onchip_stage(queue, buffer, offset, elem_size, stage, profile, dry_run, event,
                               wait, zeroed_flags, nullptr, false);
  if (stage.kind == Stage::Kind::k010) {
    const std::uint64_t tiles = stage.I * stage.A;
    if (planner::bs_fits(profile, stage.B, stage.C, elem_size)) {
      planner::BsConfig config = planner::choose_bs(profile, tiles, stage.B, stage.C, elem_size);
      config.force_index64 = index64;
      config.dry_run = dry_run;
      config.event = event;
      return enqueue_bs_010(queue, buffer, offset, tiles, stage.B, stage.C, elem_size, config, wait,
                            zero);
    }
    if (zero != nullptr) fail(IPT_INTERNAL_ERROR, "PTTWAC 010! asked to zero words");
    planner::PttwacConfig config = planner::choose_pttwac(profile, stage.B, stage.C);
    config.force_index64 = index64;
    config.dry_run = dry_run;
    config.event = event;
    return enqueue_pttwac_010(queue, buffer, offset, tiles, stage.B, stage.C, elem_size, config,
                              wait, zeroed_flags);
  }
  if (zero != nullptr) fail(IPT_INTERNAL_ERROR, "SoA-ASTA asked to zero words");
  planner::SoaConfig config = planner::choose_soa(profile, stage.C, elem_size);
  config.force_index64 = index64;
  config.dry_run = dry_run;
  config.event = event;
  return enqueue_soa_0100(queue, buffer, offset, stage.I, stage.A, stage.B, stage.C, elem_size,
                          config, wait, zeroed_flags);
}

}  // namespace

bool first_kernel_zeroes(const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                         std::size_t elem_size) {
  for (const Stage& stage : plan.stages)
    if (!stage.identity()) return zeroes_on_the_way(stage, profile, elem_size);
  return false;
}

bool last_kernel_zeroes(const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                        std::size_t elem_size) {
  const Stage* first = nullptr;
  const Stage* last = nullptr;
  for (const Stage& stage : plan.stages) {
    if (stage.identity()) continue;
    if (first == nullptr) first = &stage;
    last = &stage;
  }
  return last != nullptr && last != first && zeroes_on_the_way(*last, profile, elem_size);
}

cl::Event enqueue_plan(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size,
                       const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                       const std::vector<cl::Event>& wait, const PlanRun& run) {
  if (plan.stages.empty()) fail(IPT_INTERNAL_ERROR, "enqueue_plan: a plan without stages");
  const bool index64 = needs_index64(offset, plan.padded_elements(), false);
  if (!run.checked || run.dry_run)
    for (const Stage& stage : plan.stages)  // build and check everything first
      launch_stage(queue, buffer, offset, elem_size, stage, profile, index64, true, true, {},
                   nullptr);
  if (run.dry_run) return cl::Event();
  // Identity stages (a factor of 1) enqueue nothing: their launchers would return a
  // marker, whose profiling times some drivers (NVIDIA 580) take when it is enqueued,
  // not when what it waits for ends, so a call ending with one looked instantaneous.
  std::size_t last_stage = plan.stages.size();
  for (std::size_t i = 0; i < plan.stages.size(); ++i)
    if (!plan.stages[i].identity()) last_stage = i;
  if (last_stage == plan.stages.size()) return enqueue_identity(queue, wait, run.last_event);
  // On an in-order queue only the last stage needs an event (see event_slot), unless the
  // caller wants every stage's.
  const bool every_event = !in_order(queue) || run.stage_events != nullptr;
  std::vector<cl::Event> after = wait;
  cl::Event last;
  bool first = true;
  for (std::size_t i = 0; i <= last_stage; ++i) {
    const Stage& stage = plan.stages[i];
    if (stage.identity()) continue;
    const ScratchRegion* flags = nullptr;
    if (run.stage_flags != nullptr && i < run.stage_flags->size())
      flags = (*run.stage_flags)[i].or_null();
    const bool event = every_event || (run.last_event && i == last_stage);
    const ScratchRegion* zero = first ? run.zero_first : nullptr;
    if (i == last_stage && !first && run.zero_last != nullptr) {
      if (zero != nullptr) fail(IPT_INTERNAL_ERROR, "two regions for one kernel to zero");
      zero = run.zero_last;
    }
    if (stage.onchip) {
      last = launch_onchip_stage(queue, buffer, offset, elem_size, stage, profile, false, event,
                                 after, flags, zero, run.onchip_give_up);
    } else {
      last = launch_stage(queue, buffer, offset, elem_size, stage, profile, index64, false, event,
                          after, flags, zero);
    }
    first = false;
    after = then(queue, last);
    if (run.stage_events != nullptr) run.stage_events->push_back(last);
  }
  return last;
}

}  // namespace ipt::runtime
