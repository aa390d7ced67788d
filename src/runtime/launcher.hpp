// SPDX-License-Identifier: Apache-2.0
// The one launcher of every kernel family: builds a step's program, checks that the
// device can run the launch, and enqueues it with the plan's buffers bound. It decides
// nothing: the step (planner/launch_plan.hpp) says what to build and how to launch it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "planner/launch_plan.hpp"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

// Thrown when a compiled kernel allows fewer work-items per group than its step needs
// (register pressure can lower CL_KERNEL_WORK_GROUP_SIZE below the device maximum); the
// caller may plan again for `limit`. Nothing has been enqueued.
class WorkGroupTooLarge : public Error {
 public:
  WorkGroupTooLarge(const std::string& message, std::size_t limit_)
      : Error(IPT_OUT_OF_RESOURCES, message), limit(limit_) {}
  std::size_t limit;
};

// Builds (or finds in the program cache) the step's program and checks its launch: the
// work-group against the compiled kernel's limit, the local memory against the device's
// (a step whose launch its probe checks: see Step::probed_launch). Throws ipt::Error:
// WorkGroupTooLarge, IPT_OUT_OF_RESOURCES, IPT_BUILD_PROGRAM_FAILURE.
ProgramRef prepare_step(const cl::Context& context, const cl::Device& device,
                        const planner::Step& step);

// The buffers a plan's arguments name (planner::Buffer); null where a plan uses none.
struct BoundBuffers {
  const cl::Buffer* matrix = nullptr;
  const cl::Buffer* scratch = nullptr;
  const cl::Buffer* zero_scratch = nullptr;
  const cl::Buffer* report = nullptr;
};

// Enqueues a prepared step with `kernel` (of the step's program) after `wait`; its event
// only when `event` (see event_slot).
cl::Event enqueue_step(const cl::CommandQueue& queue, PooledKernel& kernel,
                       const planner::Step& step, const BoundBuffers& buffers,
                       const std::vector<cl::Event>& wait, bool event);

// Where a launch asks the driver to put its command's event: `event`, or nowhere when the
// caller needs none. On NVIDIA's driver with a profiling queue, a kernel enqueued with an
// event took about 10 us of host time against 3.5 us without one, and each event also
// added 4-6 us of GPU time between kernels (probe: 5 short kernels ran in 56.5 us with an
// event each, 30 us with one on the last). A call on an in-order queue therefore asks for
// an event only on its last command.
inline cl::Event* event_slot(cl::Event& event, bool wanted) { return wanted ? &event : nullptr; }

// Whether commands enqueued one after another on `queue` run in that order.
inline bool in_order(const cl::CommandQueue& queue) {
  return (queue.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
}

}  // namespace ipt::runtime
