// SPDX-License-Identifier: Apache-2.0
#include "runtime/executor.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "runtime/deferred_release.hpp"
#include "runtime/error.hpp"
#include "runtime/fault_seam.hpp"
#include "runtime/kernel_set.hpp"
#include "runtime/launcher.hpp"
#include "runtime/scratch_cache.hpp"

namespace ipt::runtime {
namespace {

const cl::Buffer& bound(const BoundBuffers& buffers, planner::Buffer which) {
  const cl::Buffer* buffer = nullptr;
  if (which == planner::Buffer::kScratch) buffer = buffers.scratch;
  if (which == planner::Buffer::kZeroScratch) buffer = buffers.zero_scratch;
  if (buffer == nullptr) fail(IPT_INTERNAL_ERROR, "a fill of a buffer the call has not bound");
  return *buffer;
}

// The commands of one call, each after the previous: the caller's wait list first; after
// that, on an in-order queue nothing (an explicit event between two commands of one
// in-order queue cost about 20 us of GPU time on NVIDIA's driver), else the previous
// command's event.
class Chain {
 public:
  Chain(const cl::CommandQueue& queue, const std::vector<cl::Event>& wait, bool every_event)
      : queue_(queue),
        device_(queue_device(queue)),
        ordered_(in_order(queue)),
        every_event_(every_event || !ordered_),
        after_(wait) {
    after_.reserve(1);  // then() moves each event in without allocating
  }

  void fill(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes) {
    faults::point(faults::Site::kEnqueue, "clEnqueueFillBuffer");
    cl::Event filled;
    check_cl(queue_.enqueueFillBuffer(buffer, cl_uint{0}, static_cast<std::size_t>(offset),
                                      static_cast<std::size_t>(bytes), &after_,
                                      event_slot(filled, every_event_)),
             "clEnqueueFillBuffer");
    then(std::move(filled));
  }

  // Counts the step in *enqueued, when given, as soon as its command is on the queue:
  // what follows (keeping its event) can fail, and the step must then be undone too.
  void step(PooledKernel& kernel, const planner::Step& step, const BoundBuffers& buffers,
            bool event, std::size_t* enqueued = nullptr) {
    cl::Event done = enqueue_step(queue_, kernel, step, buffers, after_, every_event_ || event);
    if (enqueued != nullptr) ++*enqueued;
    then(std::move(done));
  }

  const cl::Device& device() const { return device_; }

  void marker() {
    faults::point(faults::Site::kEnqueue, "clEnqueueMarkerWithWaitList");
    cl::Event done;
    check_cl(queue_.enqueueMarkerWithWaitList(&after_, &done), "clEnqueueMarkerWithWaitList");
    then(std::move(done));
  }

  // The last command's event (when it was asked for one).
  const cl::Event& last() { return last_event(); }
  // The same, moved out, as the chain's last use: handing it on retains nothing (a
  // clRetainEvent that failed after the call's last command would report a failure for a
  // call that runs).
  cl::Event take_last() { return std::move(last_event()); }

 private:
  // The event is kept in one place, moved, never retained: a clRetainEvent that failed
  // once the command is queued would lose the event that an undo must wait for. On an
  // out-of-order queue it is the next command's wait list, in room reserved beforehand.
  void then(cl::Event&& done) {
    after_.clear();
    if (ordered_)
      last_ = std::move(done);
    else
      after_.push_back(std::move(done));
    commands_ = true;
  }
  cl::Event& last_event() { return ordered_ || !commands_ ? last_ : after_.front(); }

  const cl::CommandQueue& queue_;
  const cl::Device device_;
  const bool ordered_, every_event_;
  std::vector<cl::Event> after_;  // the next command's wait list
  cl::Event last_;                // in order: the last command's event
  bool commands_ = false;         // whether a command was enqueued
};

// The kernel objects of a call: one for each step and each undo step, taken from their
// programs' pools (or created) before the call's first command, since creating one can
// fail and a failure after that command would have to be undone.
class CallKernels {
 public:
  CallKernels(const PreparedPlan& prepared, const cl::Device& device) {
    const planner::LaunchPlan& plan = prepared.plan;
    steps_.reserve(plan.steps.size());
    for (std::size_t i = 0; i < plan.steps.size(); ++i)
      steps_.emplace_back(prepared.programs[i], planner::family_kernel(plan.steps[i].family),
                          device);
    undo_.reserve(plan.undo.size());
    for (std::size_t i = 0; i < plan.undo.size(); ++i)
      undo_.emplace_back(prepared.undo_programs[i], planner::family_kernel(plan.undo[i].family),
                         device);
  }
  PooledKernel& step(std::size_t i) { return steps_[i]; }
  PooledKernel& undo(std::size_t i) { return undo_[i]; }

 private:
  std::vector<PooledKernel> steps_, undo_;
};

// compose()'s text, or none where host memory is out.
template <typename Compose>
std::string message_or_empty(Compose&& compose) noexcept {
  try {
    return compose();
  } catch (...) {
    return std::string();
  }
}

// ipt::Error(status, message), or with no message where copying it runs out of host
// memory: the status is what the caller must get. (Copying an Error copies no text.)
Error error_with_status(ipt_status status, const std::string& message) noexcept {
  try {
    return Error(status, message);
  } catch (...) {
    return Error(status, std::string());
  }
}

// Enqueues the undo of the first `done` steps (planner::rollback_plan) after them and
// throws: CallRolledBack with the undo's last event when it is enqueued, else
// IPT_BUFFER_UNDEFINED.
// The messages are built where host memory allows, and are empty where it does not: an
// allocation that fails here must not replace the status that says what state the buffer
// is in (IPT_OUT_OF_HOST_MEMORY would say it is unchanged, and skip the undo).
[[noreturn]] void roll_back(Chain& chain, const PreparedPlan& prepared, CallKernels& kernels,
                            std::size_t done, const BoundBuffers& buffers,
                            const std::exception_ptr& cause) {
  const std::string what = message_or_empty([&] {
    return cause_of(cause) + ", after " + std::to_string(done) + " of the " +
           std::to_string(prepared.plan.steps.size()) + " kernels were enqueued";
  });
  try {
    const planner::LaunchPlan undo = planner::rollback_plan(prepared.plan, done);
    for (std::size_t k = 0; k < undo.steps.size(); ++k) {
      const planner::Step& step = undo.steps[k];
      const bool last = k + 1 == undo.steps.size();
      if (!step.fill_before.empty())
        chain.fill(bound(buffers, step.fill_before.buffer), step.fill_before.offset,
                   step.fill_before.bytes);
      chain.step(kernels.undo(done - 1 - k), step, buffers, last);
    }
  } catch (...) {
    const std::exception_ptr undo_failure = std::current_exception();
    throw error_with_status(IPT_BUFFER_UNDEFINED, message_or_empty([&] {
                              return what + "; undoing them failed too (" + cause_of(undo_failure) +
                                     "): the buffer's contents are undefined";
                            }));
  }
  const Error rolled_back = error_with_status(
      IPT_ROLLED_BACK, message_or_empty([&] {
        return what +
               "; they were undone: once the commands enqueued complete, the buffer holds its "
               "original bytes";
      }));
  throw CallRolledBack(rolled_back, chain.take_last());
}

}  // namespace

std::string cause_of(const std::exception_ptr& cause) {
  try {
    std::rethrow_exception(cause);
  } catch (const cl::Error& e) {
    return std::string(e.what()) + " failed with OpenCL error " + std::to_string(e.err());
  } catch (const std::bad_alloc&) {
    return "out of host memory";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an unknown exception";
  }
}

PreparedPlan prepare_plan(const cl::CommandQueue& queue, planner::LaunchPlan plan) {
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  // The programs first, side by side where the plan has several (a padded plan: up to
  // five), then each step finds its own built.
  std::vector<planner::KernelVariant> variants;
  for (const auto* steps : {&plan.steps, &plan.undo})
    for (const planner::Step& step : *steps) variants.push_back(planner::variant_of(step));
  std::sort(variants.begin(), variants.end());
  variants.erase(std::unique(variants.begin(), variants.end()), variants.end());
  build_programs(context, device, variants);
  PreparedPlan prepared;
  prepared.programs.reserve(plan.steps.size());
  for (const planner::Step& step : plan.steps)
    prepared.programs.push_back(prepare_step(context, device, step));
  // An inverse mostly runs a program of the plan's own (same family and options); the
  // others are built now, so that undoing a call never builds anything.
  for (const planner::Step& undo : plan.undo) {
    ProgramRef program;
    for (std::size_t i = 0; i < plan.steps.size() && !program; ++i)
      if (plan.steps[i].family == undo.family && plan.steps[i].options == undo.options &&
          plan.steps[i].groups_per_unit == undo.groups_per_unit &&
          plan.steps[i].work_group() == undo.work_group() &&
          plan.steps[i].local_bytes >= undo.local_bytes)
        program = prepared.programs[i];
    prepared.undo_programs.push_back(program ? program : prepare_step(context, device, undo));
  }
  prepared.plan = std::move(plan);
  return prepared;
}

cl::Event enqueue_plan(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       const PreparedPlan& prepared, const std::vector<cl::Event>& wait,
                       const EnqueueOptions& options) {
  const planner::LaunchPlan& plan = prepared.plan;
  const ScratchUse use{queue_context(queue)(), queue(), in_order(queue)};
  BoundBuffers buffers;
  buffers.matrix = &buffer;
  buffers.report = options.report;
  // Every buffer before any command, so that a failed allocation enqueues nothing. Taken
  // buffers and their earlier tags are dropped only once this call's commands are
  // enqueued (scratch_cache.hpp: dropping an event can take a driver 1 us).
  TakenScratch zero, scratch;
  buffers.zero_scratch = options.zero_scratch;
  if (plan.zero_scratch_bytes > 0 && options.zero_scratch == nullptr) {
    zero = take_zero_scratch(use, plan.zero_scratch_bytes);
    buffers.zero_scratch = &zero.buffer;
  }
  buffers.scratch = options.scratch;
  if (plan.scratch_bytes > 0 && options.scratch == nullptr) {
    scratch = take_scratch(use, plan.scratch_bytes);
    buffers.scratch = &scratch.buffer;
  }
  Chain chain(queue, wait, options.step_events != nullptr);
  CallKernels kernels(prepared, chain.device());
  // A new zero scratch is zeroed once; the plans that use it leave it zero.
  if (zero.fresh) chain.fill(zero.buffer, 0, plan.zero_scratch_bytes);
  if (!plan.fill.empty()) chain.fill(*buffers.scratch, plan.fill.offset, plan.fill.bytes);
  if (plan.steps.empty()) chain.marker();
  std::size_t done = 0;  // steps enqueued: commands that change the caller's buffer
  try {
    while (done < plan.steps.size()) {
      const planner::Step& step = plan.steps[done];
      if (!step.fill_before.empty())
        chain.fill(bound(buffers, step.fill_before.buffer), step.fill_before.offset,
                   step.fill_before.bytes);
      chain.step(kernels.step(done), step, buffers, done + 1 == plan.steps.size(), &done);
      if (options.step_events != nullptr) options.step_events->push_back(chain.last());
    }
  } catch (...) {
    if (done == 0) throw;  // nothing has touched the caller's buffer
    const std::exception_ptr cause = std::current_exception();
    // The zero scratch is left dirty: released once the commands complete (the undo's,
    // where it was enqueued), never kept. Nothing here may replace the status thrown.
    const auto release_after = [&](const cl::Event& last) noexcept {
      try {
        if (zero.buffer() != nullptr) release_when_complete(last, std::move(zero.buffer));
        if (scratch.buffer() != nullptr) give_back_scratch(last, use, std::move(scratch.buffer));
      } catch (...) {  // released as the call returns: legal while commands use them
      }
    };
    try {
      roll_back(chain, prepared, kernels, done, buffers, cause);
    } catch (const CallRolledBack& rolled_back) {
      release_after(rolled_back.done);
      throw;
    } catch (...) {
      release_after(chain.last());
      throw;
    }
  }
  if (zero.buffer() != nullptr)
    give_back_zero_scratch(chain.last(), use, std::move(zero.buffer), zero.fresh);
  if (scratch.buffer() != nullptr) give_back_scratch(chain.last(), use, std::move(scratch.buffer));
  return chain.take_last();
}

}  // namespace ipt::runtime
