#include "runtime/transpose.hpp"

#include <stdexcept>
#include <vector>

#include "planner/square_plan.hpp"
#include "runtime/device_profile.hpp"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"
#include "runtime/overrides.hpp"
#include "runtime/square_launcher.hpp"

namespace ipt::runtime {
namespace {

std::vector<cl::Event> wait_events(const TransposeRequest& request) {
  std::vector<cl::Event> events;
  events.reserve(request.num_events_in_wait_list);
  for (cl_uint i = 0; i < request.num_events_in_wait_list; ++i)
    events.emplace_back(request.event_wait_list[i], /*retainObject=*/true);
  return events;
}

// Hands the caller its own reference to `event`.
void give_event(const cl::Event& event, cl_event* out) {
  if (out == nullptr) return;
  check_cl(clRetainEvent(event()), "clRetainEvent");
  *out = event();
}

}  // namespace

void execute_transpose(const TransposeRequest& request) {
  if (request.rows == 0 || request.cols == 0) {
    // Quick return; a marker still gives the caller an event that completes after the
    // wait list, so that dependent work can be chained the same way for every shape.
    if (request.event != nullptr)
      check_cl(clEnqueueMarkerWithWaitList(request.queue, request.num_events_in_wait_list,
                                           request.event_wait_list, request.event),
               "clEnqueueMarkerWithWaitList");
    return;
  }
  if (request.rows != request.cols)
    fail(IPT_SHAPE_NOT_SUPPORTED, "only square matrices are supported in this version");

  const cl::CommandQueue queue(request.queue, /*retainObject=*/true);
  const cl::Buffer buffer(request.buffer, /*retainObject=*/true);
  const auto device = queue.getInfo<CL_QUEUE_DEVICE>();
  const auto overrides = current_overrides();
  planner::DeviceProfile profile = query_device_profile(device());
  const auto waits = wait_events(request);
  for (;;) {
    planner::SquarePlan plan;
    try {
      plan = planner::plan_square(profile, request.rows, request.elem_size, request.offset,
                                  overrides.plan);
    } catch (const std::invalid_argument& e) {
      fail(IPT_INVALID_VALUE, std::string("IPT_OVERRIDES: ") + e.what());
    }
    try {
      const cl::Event done = enqueue_square(queue, buffer, request.offset, request.rows,
                                            request.elem_size, plan, waits);
      give_event(done, request.event);
      return;
    } catch (const WorkGroupTooLarge& e) {
      // Replan within the compiled kernel's limit, unless the caller forced the shape.
      const bool forced = overrides.plan.square_tile != 0 || overrides.plan.square_wg_rows != 0;
      if (forced || e.limit >= profile.max_work_group_size || e.limit == 0) throw;
      profile.max_work_group_size = e.limit;
    }
  }
}

}  // namespace ipt::runtime
