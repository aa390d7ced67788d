// SPDX-License-Identifier: Apache-2.0
#include "runtime/transpose.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "planner/crowded_onchip.hpp"
#include "planner/refused_plans.hpp"
#include "planner/sequence.hpp"
#include "runtime/checked_plans.hpp"
#include "runtime/device_query.hpp"
#include "runtime/environment.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/external_memory.hpp"
#include "runtime/fault_seam.hpp"
#include "runtime/kernel_set.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/launcher.hpp"
#include "runtime/onchip_residency.hpp"
#include "runtime/opencl.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/scratch_cache.hpp"

namespace ipt::runtime {
namespace {

using planner::CallPlanner;

// The planner's choices for a call: IPT_OVERRIDES', with the plan keys replaced by the
// caller's request when it gives one. The on-chip tile layout stays IPT_OVERRIDES': it is
// how a kernel is built, not a plan option of the API.
planner::PlanOverrides overrides_for(const planner::PlanRequest* request) {
  planner::PlanOverrides overrides = current_overrides().plan;
  if (request != nullptr) {
    const planner::TileLayout onchip_tiles = overrides.request.onchip_tiles;
    overrides.request = *request;
    overrides.request.onchip_tiles = onchip_tiles;
  }
  return overrides;
}

planner::LaunchPlan plan_with(const CallPlanner& plan, const planner::DeviceProfile& profile,
                              const planner::PlanOverrides& overrides, bool forced) {
  const std::string source = forced ? "plan options: " : "IPT_OVERRIDES: ";
  try {
    return plan(profile, overrides);
  } catch (const std::length_error& e) {
    fail(IPT_BUFFER_TOO_SMALL, source + e.what());
  } catch (const std::invalid_argument& e) {
    fail(IPT_INVALID_VALUE, source + e.what());
  } catch (const planner::MatrixTooLarge& e) {
    fail(IPT_MATRIX_TOO_LARGE, e.what());
  } catch (const planner::ResourceError& e) {
    fail(IPT_OUT_OF_RESOURCES, e.what());
  } catch (const std::logic_error& e) {
    fail(IPT_INTERNAL_ERROR, std::string("planner: ") + e.what());
  }
}

// The planner of a transposition call (a CallPlanner once a call has to plan).
auto transposition(const planner::CallShape& call) {
  return [call](const planner::DeviceProfile& profile, const planner::PlanOverrides& overrides) {
    return planner::plan_call(profile, call, overrides);
  };
}

// Plans and prepares a call on the on-chip verdicts known so far (onchip_residency.hpp),
// and probes its new on-chip programs. What the device refuses while a plan is prepared is
// reported to the planner, which plans around it (refused_plans.hpp); when it cannot,
// the call fails with what the device said.
CheckedPlan prepare_call(const cl::CommandQueue& queue, planner::DeviceProfile profile,
                         const CallPlanner& plan_of, const planner::PlanOverrides& overrides,
                         bool forced) {
  const bool follows =
      profile.resident_groups && overrides.request.onchip != planner::OnChip::kForce;
  // The generation first: a verdict that comes between the two has the plan made again.
  const std::uint64_t generation = onchip_verdict_generation();
  profile.crowded_onchip = crowded_onchip_programs(queue_context(queue)(), queue_device(queue)());
  std::optional<CheckedPlan> checked;
  std::exception_ptr refused;
  const auto prepare = [&](const planner::LaunchPlan& plan, planner::Refusal& refusal) {
    // The first call of an element size (at an index width) builds all its programs.
    for (const bool index64 : {false, true})
      if (std::any_of(plan.steps.begin(), plan.steps.end(),
                      [index64](const planner::Step& s) { return s.index64 == index64; }))
        ensure_kernel_set(queue_context(queue), queue_device(queue), profile, plan.elem_size,
                          index64);
    try {
      CheckedPlan prepared{prepare_plan(queue, plan), {}};
      probe_onchip_programs(queue, prepared.prepared);
      prepared.onchip = watch_verdicts(queue, prepared.prepared.plan, follows, generation);
      // A call that keeps no plan (sources from IPT_KERNEL_DIR) checks the old verdicts of
      // what it avoids here.
      recheck_avoided(queue, prepared.onchip, prepared.prepared.plan);
      checked = std::move(prepared);
      return true;
    } catch (const WorkGroupTooLarge& e) {
      refused = std::current_exception();
      refusal.work_group_limit = e.limit;
      return false;
    } catch (const Error& e) {
      if (e.status() != IPT_OUT_OF_RESOURCES) throw;
      refused = std::current_exception();
      return false;
    }
  };
  // Planner errors get their statuses from plan_with; the device's are thrown as they are.
  const CallPlanner with_statuses = [&plan_of, forced](const planner::DeviceProfile& device,
                                                       const planner::PlanOverrides& chosen) {
    return plan_with(plan_of, device, chosen, forced);
  };
  if (!planner::plan_and_prepare(profile, overrides, with_statuses, prepare))
    std::rethrow_exception(refused);
  return std::move(*checked);
}

// What a caller-adjusted plan (ipt_transpose_with_options) asks for, in the text of a
// checked plan's key: empty without options (max_bytes is in the key's capacity).
std::string plan_request_key(const TransposeRequest& request) {
  if (!request.forced_plan) return {};
  const planner::PlanRequest& r = request.plan_request;
  return "; options sequence " +
         std::string(r.auto_sequence ? "auto" : planner::sequence_name(r.sequence)) + " m " +
         std::to_string(r.m) + " n " + std::to_string(r.n) + " padding " +
         std::to_string(static_cast<int>(r.padding)) + " padded " + std::to_string(r.padded_rows) +
         " x " + std::to_string(r.padded_cols) + " onchip " +
         std::to_string(static_cast<int>(r.onchip));
}

std::vector<cl::Event> wait_events(const TransposeRequest& request) {
  std::vector<cl::Event> events;
  events.reserve(request.num_events_in_wait_list);
  for (cl_uint i = 0; i < request.num_events_in_wait_list; ++i)
    events.emplace_back(request.event_wait_list[i], /*retainObject=*/true);
  return events;
}

// Hands the caller the call's reference to `event`: moved, not retained, so that nothing
// can fail once the call's commands are on the queue.
void give_event(cl::Event event, cl_event* out) {
  if (out == nullptr) return;
  *out = event();
  event() = nullptr;  // the caller's now: not released here
}

// Elements the buffer holds from the matrix's start, at most max_bytes of them.
std::uint64_t buffer_capacity(std::size_t buffer_bytes, std::uint64_t offset, std::size_t elem_size,
                              std::uint64_t max_bytes) {
  std::uint64_t bytes = buffer_bytes - offset * elem_size;
  if (max_bytes != 0) bytes = std::min(bytes, max_bytes);
  return bytes / elem_size;
}

}  // namespace

planner::LaunchPlan plan_for_call(const planner::DeviceProfile& profile, std::uint64_t rows,
                                  std::uint64_t cols, std::size_t elem_size, std::uint64_t offset,
                                  const planner::PlanRequest* request, std::uint64_t capacity,
                                  std::uint64_t batch) {
  return plan_with(transposition({rows, cols, elem_size, offset, capacity, batch}), profile,
                   overrides_for(request), request != nullptr);
}

PreparedPlan prepare_for_call(const cl::CommandQueue& queue, const planner::DeviceProfile& profile,
                              std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
                              std::uint64_t offset, const planner::PlanRequest* request,
                              std::uint64_t capacity, std::uint64_t batch) {
  return prepare_call(queue, profile,
                      transposition({rows, cols, elem_size, offset, capacity, batch}),
                      overrides_for(request), request != nullptr)
      .prepared;
}

namespace {

// Enqueues a validated call whose plan `plan_of` makes (the same for every call with the
// same key: `operation` names what else than the shape it depends on). A call whose plan
// is cached never wraps the planner in a CallPlanner (an allocation on every call).
// `plan_at` (nullptr: none) plans the call at another offset, so that its plan can be
// moved to the class's other offsets (checked_plans.hpp, learn_moves).
template <typename Planner, typename PlannerAt = std::nullptr_t>
void execute_call(const TransposeRequest& request, std::uint64_t capacity,
                  const std::string& operation, const Planner& plan_of,
                  const PlannerAt& plan_at = nullptr) {
  constexpr bool movable = !std::is_same_v<PlannerAt, std::nullptr_t>;
  // The caller's handles, valid for the whole call (validated).
  const Borrowed<cl::CommandQueue> queue(request.queue);
  const Borrowed<cl::Buffer> buffer(request.buffer);
  // A call that repeats an earlier one (same shape, room, offset and settings) reuses its
  // prepared plan: no planning, no building, no checks (checked_plans.hpp).
  const CheckedPlanKey key{request.context,   request.device,
                           request.rows,      request.cols,
                           capacity,          request.offset,
                           request.batch,     request.elem_size,
                           environment_key(), operation + plan_request_key(request)};
  // Sources read from IPT_KERNEL_DIR may be edited between calls: such calls look their
  // programs up again (the program cache compares the text), so they keep no plan.
  const bool cacheable = !kernel_sources_from_files();
  // plan_at plans without the caller's options: a call with options moves no plan.
  const bool moves = cacheable && !request.forced_plan;
  std::shared_ptr<const CheckedPlan> checked;
  bool moved = false;
  if (cacheable) checked = find_checked_plan(key);
  // A plan moved from another offset is not kept under this one: a loop over a buffer's
  // matrices would push every other call's plan out of the cache.
  if constexpr (movable) {
    if (moves && checked == nullptr) {
      checked = find_moved_plan(key);
      moved = checked != nullptr;
    }
  }
  // A verdict may come back after the plan was made, and one checked again may find a
  // program that the plan avoids resident now.
  if (checked != nullptr && verdicts_changed(queue, checked->onchip, checked->prepared.plan)) {
    if (moved) forget_moves(key);
    checked = nullptr;
  }
  if (checked == nullptr) {
    checked = std::make_shared<const CheckedPlan>(prepare_call(
        queue, query_device_profile(request.device), CallPlanner(plan_of),
        overrides_for(request.forced_plan ? &request.plan_request : nullptr), request.forced_plan));
    if (cacheable) remember_checked_plan(key, Borrowed<cl::Context>(request.context), checked);
    if constexpr (movable) {
      if (moves) learn_moves(key, Borrowed<cl::Context>(request.context), checked, plan_at);
    }
  }
  const PreparedPlan& prepared = checked->prepared;
  const cl_mem external = external_memory_of(request.buffer);
  if (external == nullptr) {
    try {
      give_event(enqueue_plan(queue, buffer, prepared, wait_events(request)), request.event);
    } catch (CallRolledBack& e) {
      // The caller's event says when the buffer is whole again.
      if (e.done() != nullptr) give_event(std::move(e.done), request.event);
      throw;
    }
    return;
  }
  // Memory of another API: acquired for the call's commands, released after them, also
  // when they failed (external_memory.hpp).
  const Borrowed<cl::Buffer> memory(external);
  const cl::Event acquired = acquire_external(queue, memory, wait_events(request));
  // After a failure the release follows everything enqueued so far: kernels may be on
  // the queue (an undo, or IPT_BUFFER_UNDEFINED's commands), and an out-of-order queue
  // would not order the release after them by itself.
  const auto after_all = [&queue, &acquired]() {
    try {
      cl::Event marker;
      queue.enqueueMarkerWithWaitList(nullptr, &marker);
      return marker;
    } catch (...) {
      return acquired;
    }
  };
  try {
    give_event(release_external(queue, memory, enqueue_plan(queue, buffer, prepared, {acquired})),
               request.event);
  } catch (CallRolledBack& e) {
    cl::Event released =
        release_external(queue, memory, e.done() != nullptr ? std::move(e.done) : after_all());
    if (released() != nullptr) give_event(std::move(released), request.event);
    throw;
  } catch (...) {
    release_external(queue, memory, after_all());
    throw;
  }
}

// Quick return; a marker still gives the caller an event that completes after the wait
// list, so that dependent work can be chained the same way for every shape.
void enqueue_marker(const TransposeRequest& request) {
  if (request.event == nullptr) return;
  faults::point(faults::Site::kEnqueue, "clEnqueueMarkerWithWaitList");
  check_cl(clEnqueueMarkerWithWaitList(request.queue, request.num_events_in_wait_list,
                                       request.event_wait_list, request.event),
           "clEnqueueMarkerWithWaitList");
}

}  // namespace

void execute_transpose(const TransposeRequest& request) {
  if (request.rows == 0 || request.cols == 0 || request.batch == 0) return enqueue_marker(request);
  const std::uint64_t capacity =
      buffer_capacity(request.buffer_bytes, request.offset, request.elem_size, request.max_bytes);
  const planner::CallShape call{request.rows,   request.cols, request.elem_size,
                                request.offset, capacity,     request.batch};
  // The plan prepare_call makes first at another offset: planning only.
  const auto plan_at = [&request, call](std::uint64_t offset) {
    planner::DeviceProfile profile = query_device_profile(request.device);
    profile.crowded_onchip = crowded_onchip_programs(request.context, request.device);
    planner::CallShape elsewhere = call;
    elsewhere.offset = offset;
    return planner::plan_around_crowded(profile, overrides_for(nullptr),
                                        CallPlanner(transposition(elsewhere)));
  };
  execute_call(request, capacity, "", transposition(call), plan_at);
}

void execute_stage(const TransposeRequest& request, const planner::Stage& stage) {
  const std::string operation = std::string("stage ") +
                                (stage.kind == planner::Stage::Kind::k010 ? "010 " : "0100 ") +
                                std::to_string(stage.I) + " " + std::to_string(stage.A) + " " +
                                std::to_string(stage.B) + " " + std::to_string(stage.C);
  TransposeRequest call = request;
  call.rows = stage.I * stage.A;
  call.cols = stage.B * stage.C;
  const std::size_t elem_size = request.elem_size;
  const std::uint64_t offset = request.offset;
  execute_call(call, 0, operation,
               [stage, elem_size, offset](const planner::DeviceProfile& profile,
                                          const planner::PlanOverrides&) {
                 return planner::plan_stage(profile, stage, elem_size, offset);
               });
}

namespace {

auto permutation(const planner::PermuteShape& shape) {
  return [shape](const planner::DeviceProfile& profile, const planner::PlanOverrides& overrides) {
    return planner::plan_permute(profile, shape, overrides);
  };
}

}  // namespace

planner::PermutePlan plan_for_permute(const planner::DeviceProfile& profile,
                                      const planner::PermuteShape& shape) {
  planner::PermutePlan plan;
  // plan_with gives the planner's errors their statuses.
  plan_with(
      [&plan, &shape](const planner::DeviceProfile& device,
                      const planner::PlanOverrides& overrides) {
        plan = planner::plan_permutation(device, shape, overrides);
        return plan.launch;
      },
      profile, overrides_for(nullptr), false);
  return plan;
}

void execute_permute(const PermuteRequest& request) {
  const TransposeRequest& call = request.call;
  if (call.rows == 0) return enqueue_marker(call);
  const std::uint64_t capacity =
      buffer_capacity(call.buffer_bytes, call.offset, call.elem_size, call.max_bytes);
  planner::PermuteShape shape;
  shape.dims = request.dims;
  shape.perm = request.perm;
  shape.elem_size = call.elem_size;
  shape.offset = call.offset;
  shape.capacity = capacity;
  std::string operation = "permute";
  for (const std::uint64_t d : shape.dims) operation += " " + std::to_string(d);
  operation += " |";
  for (const std::size_t p : shape.perm) operation += " " + std::to_string(p);
  execute_call(call, capacity, operation, permutation(shape));
}

void execute_imatcopy(const ImatcopyRequest& request) {
  const TransposeRequest& call = request.call;
  if (call.rows == 0 || call.cols == 0) return enqueue_marker(call);
  planner::ImatcopyShape shape;
  shape.rows = call.rows;
  shape.cols = call.cols;
  shape.lda = request.lda;
  shape.ldb = request.ldb;
  shape.transpose = request.transpose;
  shape.transform = request.transform;
  shape.elem_size = call.elem_size;
  shape.offset = call.offset;
  const planner::ElementTransform& t = shape.transform;
  const std::string operation = "imatcopy " + std::to_string(shape.lda) + " " +
                                std::to_string(shape.ldb) + (shape.transpose ? " T" : " N") +
                                t.options() + " " + std::to_string(t.alpha[0]) + " " +
                                std::to_string(t.alpha[1]);
  execute_call(
      call, shape.capacity(), operation,
      [shape](const planner::DeviceProfile& profile, const planner::PlanOverrides& overrides) {
        return planner::plan_imatcopy(profile, shape, overrides);
      });
}

void warm_up(cl_context context, cl_device_id device, std::size_t elem_size) {
  const cl::Context cl_context(context, true);
  const cl::Device cl_device(device, true);
  const planner::DeviceProfile profile = query_device_profile(device);
  for (const bool index64 : {false, true})
    build_kernel_set(cl_context, cl_device, profile, elem_size, index64);
}

void clear_caches() {
  clear_checked_plans();  // a prepared plan holds programs of the program cache
  clear_program_cache();
  clear_onchip_verdicts();
  clear_kernel_sets();
  clear_scratch_cache();
}

}  // namespace ipt::runtime
