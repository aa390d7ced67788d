#include "runtime/executor.hpp"

#include "runtime/error.hpp"
#include "runtime/launcher.hpp"
#include "runtime/scratch_cache.hpp"

namespace ipt::runtime {

PreparedPlan prepare_plan(const cl::CommandQueue& queue, planner::LaunchPlan plan) {
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  PreparedPlan prepared;
  prepared.programs.reserve(plan.steps.size());
  for (const planner::Step& step : plan.steps)
    prepared.programs.push_back(prepare_step(queue, context, device, step));
  prepared.plan = std::move(plan);
  return prepared;
}

cl::Event enqueue_plan(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       const PreparedPlan& prepared, const std::vector<cl::Event>& wait,
                       const EnqueueOptions& options) {
  const planner::LaunchPlan& plan = prepared.plan;
  const bool ordered = in_order(queue);
  // What the next command waits for: the caller's events first; after that, on an
  // in-order queue nothing (an explicit event between two commands of one in-order queue
  // cost about 20 us of GPU time on NVIDIA's driver 580), else the previous command.
  std::vector<cl::Event> after = wait;
  const auto then = [&](const cl::Event& done) {
    if (ordered)
      after.clear();
    else
      after = {done};
  };
  const ScratchUse use{queue_context(queue)(), queue(), ordered};
  BoundBuffers buffers;
  buffers.matrix = &buffer;
  buffers.report = options.report;
  // Taken buffers and their earlier tags, dropped only once this call's commands are
  // enqueued (scratch_cache.hpp: dropping an event can take an H200's driver 1 us).
  TakenScratch zero, scratch;
  if (plan.zero_scratch_bytes > 0) {
    if (options.zero_scratch != nullptr) {
      buffers.zero_scratch = options.zero_scratch;
    } else {
      zero = take_zero_scratch(use, plan.zero_scratch_bytes);
      buffers.zero_scratch = &zero.buffer;
      if (zero.fresh) {  // zeroed once; the plans that use it leave it zero
        cl::Event zeroed;
        check_cl(queue.enqueueFillBuffer(zero.buffer, cl_uint{0}, 0,
                                         static_cast<std::size_t>(plan.zero_scratch_bytes), &after,
                                         event_slot(zeroed, !ordered)),
                 "clEnqueueFillBuffer");
        then(zeroed);
      }
    }
  }
  if (plan.scratch_bytes > 0) {
    if (options.scratch != nullptr) {
      buffers.scratch = options.scratch;
    } else {
      scratch = take_scratch(use, plan.scratch_bytes);
      buffers.scratch = &scratch.buffer;
    }
    if (!plan.fill.empty()) {
      cl::Event filled;
      check_cl(queue.enqueueFillBuffer(
                   *buffers.scratch, cl_uint{0}, static_cast<std::size_t>(plan.fill.offset),
                   static_cast<std::size_t>(plan.fill.bytes), &after, event_slot(filled, !ordered)),
               "clEnqueueFillBuffer");
      then(filled);
    }
  }
  cl::Event last;
  if (plan.steps.empty()) {
    check_cl(queue.enqueueMarkerWithWaitList(&after, &last), "clEnqueueMarkerWithWaitList");
  } else {
    const auto device = queue_device(queue);
    const bool every_event = !ordered || options.step_events != nullptr;
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
      const bool is_last = i + 1 == plan.steps.size();
      last = enqueue_step(queue, device, prepared.programs[i], plan.steps[i], buffers, after,
                          every_event || is_last);
      if (options.step_events != nullptr) options.step_events->push_back(last);
      then(last);
    }
  }
  if (options.zero_scratch == nullptr && zero.buffer() != nullptr)
    give_back_zero_scratch(last, use, std::move(zero.buffer), zero.fresh);
  if (options.scratch == nullptr && scratch.buffer() != nullptr)
    give_back_scratch(last, use, std::move(scratch.buffer));
  return last;
}

}  // namespace ipt::runtime
