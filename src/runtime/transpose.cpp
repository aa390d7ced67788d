#include "runtime/transpose.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "planner/elementary_configs.hpp"
#include "planner/square_plan.hpp"
#include "runtime/device_profile.hpp"
#include "runtime/error.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/opencl.hpp"
#include "runtime/overrides.hpp"
#include "runtime/plan_executor.hpp"
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

// The square plan and its compiled kernel, replanned until the kernel can run it.
struct PreparedSquare {
  planner::SquarePlan plan;
  cl::Kernel kernel;
};

PreparedSquare prepare_square(const cl::Context& context, const cl::Device& device, std::uint64_t n,
                              std::size_t elem_size, std::uint64_t offset) {
  const auto overrides = current_overrides();
  planner::DeviceProfile profile = query_device_profile(device());
  for (;;) {
    PreparedSquare prepared;
    try {
      prepared.plan = planner::plan_square(profile, n, elem_size, offset, overrides.plan);
    } catch (const std::invalid_argument& e) {
      fail(IPT_INVALID_VALUE, std::string("IPT_OVERRIDES: ") + e.what());
    }
    try {
      prepared.kernel = square_kernel(context, device, elem_size, prepared.plan);
      return prepared;
    } catch (const WorkGroupTooLarge& e) {
      // Replan within the compiled kernel's limit, unless the caller forced the shape.
      const bool forced = overrides.plan.square_tile != 0 || overrides.plan.square_wg_rows != 0;
      if (forced || e.limit >= profile.max_work_group_size || e.limit == 0) throw;
      profile.max_work_group_size = e.limit;
    }
  }
}

}  // namespace

planner::TransposePlan plan_for_call(const planner::DeviceProfile& profile, std::uint64_t rows,
                                     std::uint64_t cols, std::size_t elem_size,
                                     const planner::PlanRequest* request) {
  const planner::PlanRequest forced =
      request != nullptr ? *request : current_overrides().plan.request;
  try {
    return planner::plan_transpose(profile, rows, cols, elem_size, forced);
  } catch (const std::invalid_argument& e) {
    fail(IPT_INVALID_VALUE,
         std::string(request != nullptr ? "plan options: " : "IPT_OVERRIDES: ") + e.what());
  }
}

std::uint64_t plan_scratch_bytes(const planner::DeviceProfile& profile,
                                 const planner::TransposePlan& plan, std::size_t elem_size) {
  std::uint64_t bytes = 0;
  for (const planner::Stage& stage : plan.stages) {
    if (stage.kind != planner::Stage::Kind::k0100) continue;
    // Items are super-elements cut into chunks of what a unit holds (soa_asta_launcher).
    const auto config = planner::choose_soa(profile, stage.C, elem_size);
    const std::uint64_t capacity =
        planner::soa_chunk_capacity(config, profile.local_mem_bytes, elem_size);
    const std::uint64_t chunk = std::max<std::uint64_t>(1, std::min(stage.C, capacity));
    const std::uint64_t items = stage.I * stage.A * stage.B * ((stage.C + chunk - 1) / chunk);
    if (stage.A > 1 && stage.B > 1) bytes += (items + 31) / 32 * 4;
  }
  return bytes;
}

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
  const cl::CommandQueue queue(request.queue, /*retainObject=*/true);
  const cl::Buffer buffer(request.buffer, /*retainObject=*/true);
  const auto device = queue.getInfo<CL_QUEUE_DEVICE>();
  const planner::DeviceProfile profile = query_device_profile(device());
  const planner::TransposePlan plan =
      plan_for_call(profile, request.rows, request.cols, request.elem_size,
                    request.forced_plan ? &request.plan_request : nullptr);
  if (plan.sequence != planner::Sequence::kSquare) {
    give_event(enqueue_plan(queue, buffer, request.offset, request.elem_size, plan, profile,
                            wait_events(request)),
               request.event);
    return;
  }
  PreparedSquare prepared =
      prepare_square(queue.getInfo<CL_QUEUE_CONTEXT>(), queue.getInfo<CL_QUEUE_DEVICE>(),
                     request.rows, request.elem_size, request.offset);
  const cl::Event done = enqueue_square(queue, prepared.kernel, buffer, request.offset,
                                        request.rows, prepared.plan, wait_events(request));
  give_event(done, request.event);
}

void warm_up(cl_context context, cl_device_id device, std::uint64_t rows, std::uint64_t cols,
             std::size_t elem_size) {
  if (rows == 0 || cols == 0) return;
  const cl::Context cl_context(context, true);
  const cl::Device cl_device(device, true);
  const cl::CommandQueue queue(cl_context, cl_device);
  // Some drivers (PoCL) finish compiling a kernel for its work-group size only at the
  // first launch, so each kernel is also run once, on scratch memory of its own, with the
  // same variant as the real shape.
  const planner::DeviceProfile profile = query_device_profile(device);
  const planner::TransposePlan plan = plan_for_call(profile, rows, cols, elem_size, nullptr);
  if (plan.sequence != planner::Sequence::kSquare) {
    // Builds and checks every stage's kernel without running it.
    const cl::Buffer scratch(cl_context, CL_MEM_READ_WRITE, elem_size);
    enqueue_plan(queue, scratch, 0, elem_size, plan, profile, {}, /*dry_run=*/true);
    return;
  }
  PreparedSquare prepared = prepare_square(cl_context, cl_device, rows, elem_size, 0);
  planner::SquarePlan scratch_plan =
      planner::complete_square_plan(prepared.plan, prepared.plan.tile, 0);
  scratch_plan.index64 = prepared.plan.index64;
  const cl::Buffer scratch(cl_context, CL_MEM_READ_WRITE,
                           prepared.plan.tile * prepared.plan.tile * elem_size);
  enqueue_square(queue, prepared.kernel, scratch, 0, prepared.plan.tile, scratch_plan, {});
  queue.finish();
}

}  // namespace ipt::runtime
