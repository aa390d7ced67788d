#include "runtime/plan_executor.hpp"

#include "planner/elementary_configs.hpp"
#include "runtime/bs_launcher.hpp"
#include "runtime/call_scratch.hpp"
#include "runtime/deferred_release.hpp"
#include "runtime/error.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/onchip_launcher.hpp"
#include "runtime/pttwac_launcher.hpp"
#include "runtime/soa_asta_launcher.hpp"

namespace ipt::runtime {
namespace {

using planner::Stage;

// One stage with its launch configuration; every stage of a plan uses the index width
// the whole matrix needs.
cl::Event launch_stage(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size, const Stage& stage,
                       const planner::DeviceProfile& profile, bool index64, bool dry_run,
                       bool event, const std::vector<cl::Event>& wait,
                       const ScratchRegion* zeroed_flags, const ScratchRegion* skip);

// An on-chip 010! stage: the attempt, then the regular 010! kernel gated by its decision
// (returned; `attempt`, when given, gets the attempt's event). The attempt and one on the
// whole matrix never meet: such a plan's fallback has no on-chip stage.
cl::Event launch_onchip_stage(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                              std::uint64_t offset, std::size_t elem_size, const Stage& stage,
                              const planner::DeviceProfile& profile, bool index64, bool dry_run,
                              bool event, const std::vector<cl::Event>& wait,
                              const ScratchRegion* zeroed_sync, bool give_up, cl::Event* attempt) {
  ScratchRegion own;
  if (!dry_run && (zeroed_sync == nullptr || zeroed_sync->empty())) {
    // Run outside a call's scratch (benchmarks of single stages): words of its own.
    const cl_uint zeros[kOnChipSyncBytes / 4] = {};
    own = {cl::Buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                      sizeof zeros, const_cast<cl_uint*>(zeros)),
           0, kOnChipSyncBytes};
    zeroed_sync = &own;
  }
  OnChipLaunch launch;
  launch.dry_run = dry_run;
  launch.event = !in_order(queue) || attempt != nullptr;
  launch.give_up = give_up;
  const cl::Event attempted =
      enqueue_onchip(queue, buffer, offset, stage.I * stage.A, stage.B, stage.C, elem_size,
                     planner::choose_onchip(profile, elem_size), wait, zeroed_sync, launch);
  if (attempt != nullptr) *attempt = attempted;
  Stage regular = stage;
  regular.onchip = false;
  if (dry_run)
    return launch_stage(queue, buffer, offset, elem_size, regular, profile, index64, true, event,
                        wait, nullptr, nullptr);
  const ScratchRegion decision = onchip_decision(*zeroed_sync);
  // The regular kernel's flags follow the attempt's words in a call's region.
  ScratchRegion flags;
  if (own.empty() && onchip_fallback_flag_bytes(profile, stage, elem_size) > 0)
    flags = {zeroed_sync->buffer, zeroed_sync->offset + CallScratchLayout::kAlign,
             zeroed_sync->bytes - CallScratchLayout::kAlign};
  cl::Event done =
      launch_stage(queue, buffer, offset, elem_size, regular, profile, index64, false,
                   event || !own.empty(), then(queue, attempted), flags.or_null(), &decision);
  if (!own.empty()) release_when_complete(done, own.buffer);
  return done;
}

cl::Event launch_stage(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size, const Stage& stage,
                       const planner::DeviceProfile& profile, bool index64, bool dry_run,
                       bool event, const std::vector<cl::Event>& wait,
                       const ScratchRegion* zeroed_flags, const ScratchRegion* skip) {
  if (stage.onchip) {
    if (skip != nullptr) fail(IPT_INTERNAL_ERROR, "an on-chip stage in an on-chip fallback");
    return launch_onchip_stage(queue, buffer, offset, elem_size, stage, profile, index64, dry_run,
                               event, wait, zeroed_flags, false, nullptr);
  }
  if (stage.kind == Stage::Kind::k010) {
    const std::uint64_t tiles = stage.I * stage.A;
    if (planner::bs_fits(profile, stage.B, stage.C, elem_size)) {
      planner::BsConfig config = planner::choose_bs(profile, tiles, stage.B, stage.C, elem_size);
      config.force_index64 = index64;
      config.dry_run = dry_run;
      config.event = event;
      return enqueue_bs_010(queue, buffer, offset, tiles, stage.B, stage.C, elem_size, config, wait,
                            skip);
    }
    planner::PttwacConfig config = planner::choose_pttwac(profile, stage.B, stage.C);
    config.force_index64 = index64;
    config.dry_run = dry_run;
    config.event = event;
    return enqueue_pttwac_010(queue, buffer, offset, tiles, stage.B, stage.C, elem_size, config,
                              wait, skip, zeroed_flags);
  }
  planner::SoaConfig config = planner::choose_soa(profile, stage.C, elem_size);
  config.force_index64 = index64;
  config.dry_run = dry_run;
  config.event = event;
  return enqueue_soa_0100(queue, buffer, offset, stage.I, stage.A, stage.B, stage.C, elem_size,
                          config, wait, zeroed_flags, skip);
}

}  // namespace

cl::Event enqueue_plan(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size,
                       const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                       const std::vector<cl::Event>& wait, const PlanRun& run) {
  if (plan.stages.empty()) fail(IPT_INTERNAL_ERROR, "enqueue_plan: a plan without stages");
  const bool index64 = needs_index64(offset, plan.padded_elements(), false);
  if (!run.checked || run.dry_run)
    for (const Stage& stage : plan.stages)  // build and check everything first
      launch_stage(queue, buffer, offset, elem_size, stage, profile, index64, true, true, {},
                   nullptr, nullptr);
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
  for (std::size_t i = 0; i <= last_stage; ++i) {
    const Stage& stage = plan.stages[i];
    if (stage.identity()) continue;
    const ScratchRegion* flags = nullptr;
    if (run.stage_flags != nullptr && i < run.stage_flags->size())
      flags = (*run.stage_flags)[i].or_null();
    const bool event = every_event || (run.last_event && i == last_stage);
    cl::Event attempt;
    if (stage.onchip) {
      if (run.skip != nullptr) fail(IPT_INTERNAL_ERROR, "an on-chip stage in an on-chip fallback");
      last = launch_onchip_stage(queue, buffer, offset, elem_size, stage, profile, index64, false,
                                 event, after, flags, run.onchip_give_up,
                                 run.stage_events != nullptr ? &attempt : nullptr);
    } else {
      last = launch_stage(queue, buffer, offset, elem_size, stage, profile, index64, false, event,
                          after, flags, run.skip);
    }
    after = then(queue, last);
    if (run.stage_events != nullptr && stage.onchip) run.stage_events->push_back(attempt);
    if (run.stage_events != nullptr) run.stage_events->push_back(last);
  }
  return last;
}

}  // namespace ipt::runtime
