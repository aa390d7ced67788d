// SPDX-License-Identifier: Apache-2.0
#include "runtime/onchip_residency.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include "runtime/deferred_release.hpp"
#include "runtime/device_query.hpp"
#include "runtime/environment.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/fault_seam.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/launcher.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {
namespace {

std::atomic<std::size_t> probes{0}, verdicts{0};
std::atomic<std::uint64_t> generation{0};

struct Entry {
  cl::Context context;  // retained: the key's handle is never another context's
  VerdictRef verdict;
};
// The step's build options, the caller's IPT_BUILD_OPTIONS and, for sources read from
// IPT_KERNEL_DIR (which may be edited between calls), the source text (else empty): the
// program's identity, as the program cache has it.
using Key = std::tuple<cl_context, cl_device_id, std::string, std::string, std::string>;

struct Table {
  std::mutex mutex;
  std::map<Key, Entry> entries;
};

// Never destroyed, as the program cache.
Table& table() {
  static Table* instance = new Table;
  return *instance;
}

std::string build_options_variable() {
  const char* extra = variable(Variable::kBuildOptions);
  return extra == nullptr ? std::string() : std::string(extra);
}

// The on-chip kernel's source text where it is read from IPT_KERNEL_DIR, else empty; empty
// too where it cannot be read (no program of it then, and no verdict to match).
std::string onchip_source_text() {
  if (!kernel_sources_from_files()) return {};
  try {
    return program_source(planner::family_source(planner::Family::kOnChip));
  } catch (...) {
    return {};
  }
}

// What a probe's read brings back, owned by the read's callback.
struct ProbeReading {
  VerdictRef verdict;
  OnChipVerdict::Residency unjudged;  // what a probe that brings back no verdict leaves
  cl_uint decision = 0;
};

void CL_CALLBACK settle_reading(cl_event, cl_int status, void* data) {
  const std::unique_ptr<ProbeReading> reading(static_cast<ProbeReading*>(data));
  using Residency = OnChipVerdict::Residency;
  reading->verdict->settle(status != CL_COMPLETE ? reading->unjudged
                           : reading->decision == planner::kOnChipAllResident
                               ? Residency::kResident
                               : Residency::kCrowded);
  ++verdicts;
}

// Launches the probe of `step`'s program and has its report read back without waiting
// for it: the read's callback settles `verdict` (pending or rechecking). Throws
// IPT_OUT_OF_RESOURCES when the device refuses the launch or the probe's buffers; past the
// launch, a failure only leaves the verdict `unjudged` (unprobed, or crowded for a
// recheck: the verdict is advice; the kernel's fallback keeps every call right).
void probe(const cl::CommandQueue& queue, const ProgramRef& program, const planner::Step& step,
           const VerdictRef& verdict, OnChipVerdict::Residency unjudged) {
  const cl::Context context = queue_context(queue);
  const cl::Device device = queue_device(queue);
  PooledKernel kernel(program, planner::family_kernel(step.family), device);
  const planner::Step probe_step = planner::onchip_probe_step(step, faults::onchip_probe_groups());
  std::vector<cl_uint> zeros(probe_step.flags.bytes / 4, 0);
  cl::Buffer sync, one, report;
  try {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    sync = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.size() * 4,
                      zeros.data());
    one = cl::Buffer(context, CL_MEM_READ_WRITE, planner::kOnChipProbeBytes);
    report = cl::Buffer(context, CL_MEM_READ_WRITE, 4);
  } catch (const cl::Error& e) {
    fail(IPT_OUT_OF_RESOURCES,
         "on-chip transposition: no memory for its probe (" + std::to_string(e.err()) + ")");
  }
  BoundBuffers buffers;
  buffers.matrix = &one;
  buffers.zero_scratch = &sync;
  buffers.report = &report;
  std::vector<cl::Event> done(1);
  try {
    done[0] = enqueue_step(queue, kernel, probe_step, buffers, {}, true);
  } catch (const cl::Error& e) {
    fail(IPT_OUT_OF_RESOURCES, "on-chip transposition: the device refuses work-groups of " +
                                   std::to_string(probe_step.work_group()) + " work-items (" +
                                   std::to_string(e.err()) + ")");
  }
  ++probes;
  verdict->accept_launch();
  release_when_complete(done[0], std::move(sync));
  release_when_complete(done[0], std::move(one));
  auto reading = std::make_unique<ProbeReading>();
  reading->verdict = verdict;
  reading->unjudged = unjudged;
  cl::Event read;
  try {
    if (!in_order(queue)) {
      faults::point(faults::Site::kEnqueue, "clEnqueueBarrierWithWaitList");
      queue.enqueueBarrierWithWaitList(&done);
    }
    faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
    queue.enqueueReadBuffer(report, CL_FALSE, 0, 4, &reading->decision, &done, &read);
  } catch (const cl::Error&) {
    release_when_complete(done[0], std::move(report));
    verdict->settle(unjudged);  // accepted, not judged: probed again
    return;
  }
  release_when_complete(read, std::move(report));
  try {
    if (read.setCallback(CL_COMPLETE, settle_reading, reading.get()) == CL_SUCCESS) {
      reading.release();  // the callback's now
      return;
    }
  } catch (const cl::Error&) {
  }
  // No callback: left unjudged rather than waited for (the queue may hold commands that
  // wait for the caller). The read may still write into the reading, which is left to it.
  verdict->settle(unjudged);
  reading->verdict.reset();
  static_cast<void>(reading.release());
}

// Probes `step`'s program (prepared: `program`) if nobody has, or waits for the launch of
// the probe another thread started.
void probe_once(const cl::CommandQueue& queue, const ProgramRef& program,
                const planner::Step& step) {
  const VerdictRef verdict = onchip_verdict(queue_context(queue)(), queue_device(queue)(), step);
  for (;;) {
    if (verdict->start_probe()) {
      try {
        probe(queue, program, step, verdict, OnChipVerdict::Residency::kUnprobed);
      } catch (...) {
        verdict->settle(OnChipVerdict::Residency::kUnprobed);
        throw;
      }
      return;
    }
    if (verdict->launch_accepted()) return;
    std::this_thread::yield();
  }
}

// Probes the program of `step` again if its crowded verdict is old (see verdicts_changed).
void recheck(const cl::CommandQueue& queue, const VerdictRef& verdict, const planner::Step& step) {
  const auto age = faults::crowded_recheck_age().value_or(kCrowdedRecheckAge);
  if (!verdict->start_recheck(OnChipVerdict::Clock::now(), age)) return;
  try {
    const cl::Context context = queue_context(queue);
    const cl::Device device = queue_device(queue);
    const ProgramRef program = get_program(context, device, planner::family_source(step.family),
                                           step.options, step.groups_per_unit);
    probe(queue, program, step, verdict, OnChipVerdict::Residency::kCrowded);
  } catch (...) {
    // Advice only: the program stays avoided, and is checked again when this verdict is old.
    verdict->settle(OnChipVerdict::Residency::kCrowded);
  }
}

}  // namespace

bool OnChipVerdict::settle(Residency verdict) {
  const bool was = crowded();
  if (verdict == Residency::kCrowded) crowded_since_.store(Clock::now().time_since_epoch().count());
  residency_.store(verdict, std::memory_order_release);
  const bool is = verdict == Residency::kCrowded || verdict == Residency::kRechecking;
  if (was != is) ++generation;
  return was != is;
}

VerdictRef onchip_verdict(cl_context context, cl_device_id device, const planner::Step& step) {
  Key key{context, device, step.options, build_options_variable(), onchip_source_text()};
  std::lock_guard<std::mutex> lock(table().mutex);
  auto found = table().entries.find(key);
  if (found == table().entries.end()) {
    Entry entry{cl::Context(context, /*retainObject=*/true), std::make_shared<OnChipVerdict>()};
    found = table().entries.emplace(std::move(key), std::move(entry)).first;
  }
  return found->second.verdict;
}

std::vector<std::string> crowded_onchip_programs(cl_context context, cl_device_id device) {
  const std::string extra = build_options_variable();
  const bool from_files = kernel_sources_from_files();
  std::optional<std::string> text;  // read only where a crowded verdict needs it
  std::vector<std::string> crowded;
  std::lock_guard<std::mutex> lock(table().mutex);
  for (const auto& [key, entry] : table().entries) {
    const auto& [key_context, key_device, options, key_extra, key_text] = key;
    if (key_context != context || key_device != device || key_extra != extra ||
        !entry.verdict->crowded() || key_text.empty() == from_files)
      continue;
    if (from_files && (text ? *text : *(text = onchip_source_text())) != key_text) continue;
    crowded.push_back(options);
  }
  return crowded;
}

std::uint64_t onchip_verdict_generation() { return generation.load(std::memory_order_acquire); }

void probe_onchip_programs(const cl::CommandQueue& queue, const PreparedPlan& prepared) {
  const auto each = [&queue](const std::vector<planner::Step>& steps,
                             const std::vector<ProgramRef>& programs) {
    for (std::size_t i = 0; i < steps.size() && i < programs.size(); ++i)
      if (steps[i].probed_launch) probe_once(queue, programs[i], steps[i]);
  };
  each(prepared.plan.steps, prepared.programs);
  each(prepared.plan.undo, prepared.undo_programs);
}

OnChipWatch watch_verdicts(const cl::CommandQueue& queue, const planner::LaunchPlan& plan,
                           bool follows, std::uint64_t planned_generation) {
  OnChipWatch watch;
  watch.follows = follows && (plan.uses_onchip() || !plan.avoided.empty());
  watch.generation = planned_generation;
  for (const planner::Step& step : plan.avoided)
    watch.avoided.push_back(onchip_verdict(queue_context(queue)(), queue_device(queue)(), step));
  return watch;
}

void recheck_avoided(const cl::CommandQueue& queue, const OnChipWatch& watch,
                     const planner::LaunchPlan& plan) {
  if (!watch.follows) return;
  for (std::size_t i = 0; i < watch.avoided.size() && i < plan.avoided.size(); ++i)
    if (watch.avoided[i]->crowded()) recheck(queue, watch.avoided[i], plan.avoided[i]);
}

bool verdicts_changed(const cl::CommandQueue& queue, const OnChipWatch& watch,
                      const planner::LaunchPlan& plan) {
  if (!watch.follows) return false;
  recheck_avoided(queue, watch, plan);
  return onchip_verdict_generation() != watch.generation;
}

std::size_t onchip_probe_count() { return probes.load(); }

std::size_t onchip_probe_verdicts() { return verdicts.load(); }

void clear_onchip_verdicts() {
  std::map<Key, Entry> dropped;  // their contexts released after the lock
  std::lock_guard<std::mutex> lock(table().mutex);
  dropped.swap(table().entries);
  ++generation;  // a plan made on the verdicts dropped is made again
}

}  // namespace ipt::runtime
