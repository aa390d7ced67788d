#include "runtime/transpose.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "planner/elementary_configs.hpp"
#include "planner/square_plan.hpp"
#include "runtime/call_scratch.hpp"
#include "runtime/checked_plans.hpp"
#include "runtime/copy_launcher.hpp"
#include "runtime/device_profile.hpp"
#include "runtime/error.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/onchip_launcher.hpp"
#include "runtime/opencl.hpp"
#include "runtime/overrides.hpp"
#include "runtime/plan_executor.hpp"
#include "runtime/restride_launcher.hpp"
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
                                     const planner::PlanRequest* request, std::uint64_t capacity) {
  const planner::PlanRequest forced =
      request != nullptr ? *request : current_overrides().plan.request;
  const std::string source = request != nullptr ? "plan options: " : "IPT_OVERRIDES: ";
  try {
    return planner::plan_transpose(profile, rows, cols, elem_size, forced, {}, capacity);
  } catch (const std::length_error& e) {
    fail(IPT_BUFFER_TOO_SMALL, source + e.what());
  } catch (const std::invalid_argument& e) {
    fail(IPT_INVALID_VALUE, source + e.what());
  }
}

std::uint64_t plan_scratch_bytes(const planner::DeviceProfile& profile,
                                 const planner::TransposePlan& plan, std::size_t elem_size) {
  const CallScratchLayout layout = call_scratch_layout(profile, plan, elem_size);
  return layout.total + layout.zero_total;
}

namespace {

// Elements the buffer holds from the matrix's start, at most max_bytes of them.
std::uint64_t buffer_capacity(std::size_t buffer_bytes, std::uint64_t offset, std::size_t elem_size,
                              std::uint64_t max_bytes) {
  std::uint64_t bytes = buffer_bytes - offset * elem_size;
  if (max_bytes != 0) bytes = std::min(bytes, max_bytes);
  return bytes / elem_size;
}

// Everything a call enqueues, in order: save the bytes padding borrows, spread the rows
// (pad), transpose the padded matrix, close its rows up (unpad), give the bytes back.
// With dry_run it only builds and checks every kernel, so that a failure leaves the
// buffer untouched; the real run then cannot fail for those reasons. On an in-order queue
// only the last command carries an event (see event_slot): the others are ordered by the
// queue, and each event cost host and GPU time.
cl::Event enqueue_call(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       std::uint64_t offset, std::size_t elem_size,
                       const planner::TransposePlan& plan, const planner::DeviceProfile& profile,
                       PreparedSquare* square, std::vector<cl::Event> after, bool dry_run,
                       ProgramRef* onchip_program = nullptr) {
  const std::uint64_t M = plan.rows, N = plan.cols;
  auto restride_config = planner::choose_restride(profile, elem_size);
  restride_config.dry_run = dry_run;
  const bool ordered = in_order(queue);
  // The padded matrix runs past the caller's: keep those elements and restore them at
  // the end, so that the buffer beyond the matrix is as the caller left it.
  const std::uint64_t tail = plan.padded_elements() - M * N, tail_start = offset + M * N;
  const bool restores_tail = tail > 0;
  const bool unpads = plan.padded_rows != M;
  // All scratch in two buffers (CallScratch). The flags of the first are zeroed by one
  // fill, or by the call's first command when that is the kernel that saves borrowed
  // bytes, an on-chip kernel or a BS kernel (one command fewer); or the flags live in the
  // zero scratch, which the call's last kernel leaves zero (layout.zeroed_by_last). The
  // commands of the call then follow each other on the queue (`then`).
  const CallScratchLayout layout = call_scratch_layout(profile, plan, elem_size);
  const bool first_zeroes = plan.onchip || (!restores_tail && square == nullptr &&
                                            first_kernel_zeroes(plan, profile, elem_size));
  std::optional<CallScratch> scratch;
  if (!dry_run && (layout.total > 0 || layout.zero_total > 0)) {
    scratch.emplace(queue, ordered, layout, after, /*fill=*/!restores_tail && !first_zeroes,
                    !ordered);
    if (scratch->zeroed()() != nullptr) after = then(queue, scratch->zeroed());
  }
  auto region = [&](const CallScratchLayout::Region& r) {
    return scratch ? scratch->region(r) : ScratchRegion{};
  };
  const ScratchRegion zeroed_by_last = region(layout.zeroed_by_last);
  const ScratchRegion saved = region(layout.tail), pad_flags = region(layout.pad),
                      unpad_flags = region(layout.unpad), call_flags = region(layout.flags());
  std::vector<ScratchRegion> stage_flags;
  for (const auto& r : layout.stage) stage_flags.push_back(region(r));
  const bool give_up = plan.uses_onchip() && current_overrides().plan.onchip_abort;
  if (plan.onchip) {
    // The whole matrix in one command, which falls back by itself (onchip_launcher.hpp);
    // the plan's stages are what runs where the kernel cannot (the replan below).
    OnChipLaunch launch;
    launch.dry_run = dry_run;
    launch.give_up = give_up;
    // A checked plan's program (onchip_program set), or the dry run's (reported there).
    if (onchip_program != nullptr && *onchip_program) launch.program = onchip_program;
    if (dry_run) launch.built = onchip_program;
    const ScratchRegion* own = scratch ? scratch->zero_scratch() : nullptr;
    const cl::Event done =
        enqueue_onchip(queue, buffer, offset, 1, M, N, elem_size,
                       planner::choose_onchip(profile, elem_size), after, own, launch);
    if (scratch) scratch->release_after(done);
    return done;
  }
  if (restores_tail) {
    const ScratchRegion flags = region(layout.flags());
    const cl::Event copied =
        enqueue_copy(queue, buffer, tail_start, saved.buffer, saved.offset / elem_size, tail,
                     elem_size, after, dry_run, !ordered, flags.or_null());
    if (!dry_run) after = then(queue, copied);
  }
  if (plan.padded_cols != N) {
    restride_config.event = !ordered;
    cl::Event padded = enqueue_restride(queue, buffer, offset, M, N, N, plan.padded_cols, elem_size,
                                        restride_config, after, pad_flags.or_null());
    if (!dry_run) after = then(queue, padded);
  }
  // The transposition is the call's last command unless an unpad or a restore follows.
  const bool transpose_last = !ordered || (!unpads && !restores_tail);
  cl::Event done;
  if (square != nullptr) {
    if (!dry_run)
      done = enqueue_square(queue, square->kernel, buffer, offset, plan.padded_rows, square->plan,
                            after, transpose_last);
  } else {
    PlanRun run;
    run.dry_run = dry_run;
    run.checked = !dry_run;  // every real run follows a dry run (execute_transpose)
    run.last_event = transpose_last;
    run.stage_flags = &stage_flags;
    if (first_zeroes) run.zero_first = call_flags.or_null();
    run.zero_last = zeroed_by_last.or_null();
    run.onchip_give_up = give_up;
    done = enqueue_plan(queue, buffer, offset, elem_size, plan, profile, after, run);
  }
  if (!dry_run) after = then(queue, done);
  cl::Event last = done;
  if (unpads) {
    // The padded transpose has padded_cols rows of padded_rows; the first N are ours.
    restride_config.event = !ordered || !restores_tail;
    last = enqueue_restride(queue, buffer, offset, N, M, plan.padded_rows, M, elem_size,
                            restride_config, after, unpad_flags.or_null());
    if (!dry_run) after = then(queue, last);
  }
  if (restores_tail)
    last = enqueue_copy(queue, saved.buffer, saved.offset / elem_size, buffer, tail_start, tail,
                        elem_size, after, dry_run);
  if (scratch) scratch->release_after(last);
  return dry_run ? cl::Event() : last;
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
  // The caller's handles, valid for the whole call (validated).
  const Borrowed<cl::CommandQueue> queue(request.queue);
  const Borrowed<cl::Buffer> buffer(request.buffer);
  const Borrowed<cl::Device> device(request.device);
  const Borrowed<cl::Context> context(request.context);
  const std::uint64_t capacity =
      buffer_capacity(request.buffer_bytes, request.offset, request.elem_size, request.max_bytes);
  // A call that repeats an earlier one (same shape, room, offset and settings) reuses its
  // plan, already built and checked: no planning and no dry run (checked_plans.hpp).
  CheckedPlanKey key{context(), device(),       request.rows,      request.cols,
                     capacity,  request.offset, request.elem_size, environment_key()};
  std::shared_ptr<const CheckedPlan> cached;
  if (!request.forced_plan) cached = find_checked_plan(key);
  const bool known = cached != nullptr;
  std::optional<CheckedPlan> fresh;
  if (!known) {
    const planner::DeviceProfile profile = query_device_profile(device());
    fresh =
        CheckedPlan{profile,
                    plan_for_call(profile, request.rows, request.cols, request.elem_size,
                                  request.forced_plan ? &request.plan_request : nullptr, capacity),
                    nullptr};
  }
  const CheckedPlan& checked = known ? *cached : *fresh;
  const planner::DeviceProfile& profile = checked.profile;
  const planner::TransposePlan* plan = &checked.plan;
  PreparedSquare square;
  const bool is_square = plan->sequence == planner::Sequence::kSquare;
  if (is_square)
    square = prepare_square(context, device, plan->padded_rows, request.elem_size, request.offset);
  PreparedSquare* square_ptr = is_square ? &square : nullptr;
  // Sources read from IPT_KERNEL_DIR may change between calls: looked up every time.
  ProgramRef onchip_program =
      known && !kernel_sources_from_files() ? cached->onchip_program : nullptr;
  if (!known) {
    try {
      enqueue_call(queue, buffer, request.offset, request.elem_size, *plan, profile, square_ptr, {},
                   /*dry_run=*/true, &onchip_program);
    } catch (const Error& e) {
      // A device whose compiler cannot fit the on-chip kernel's work-group (registers)
      // gets a plan without it (neither on the whole matrix nor in a stage), unless the
      // caller asked for the on-chip one.
      const bool forced_onchip =
          (request.forced_plan ? request.plan_request : current_overrides().plan.request).onchip ==
          planner::OnChip::kForce;
      if (!plan->uses_onchip() || forced_onchip || e.status() != IPT_OUT_OF_RESOURCES) throw;
      planner::PlanRequest regular =
          request.forced_plan ? request.plan_request : current_overrides().plan.request;
      regular.onchip = planner::OnChip::kOff;
      fresh->plan =
          plan_for_call(profile, request.rows, request.cols, request.elem_size, &regular, capacity);
      onchip_program = nullptr;
      enqueue_call(queue, buffer, request.offset, request.elem_size, *plan, profile, square_ptr, {},
                   /*dry_run=*/true);
    }
    fresh->onchip_program = onchip_program;
    if (!request.forced_plan) remember_checked_plan(key, context, *fresh);
  }
  give_event(enqueue_call(queue, buffer, request.offset, request.elem_size, *plan, profile,
                          square_ptr, wait_events(request), /*dry_run=*/false, &onchip_program),
             request.event);
}

void warm_up(cl_context context, cl_device_id device, std::uint64_t rows, std::uint64_t cols,
             std::size_t elem_size) {
  if (rows == 0 || cols == 0) return;
  const cl::Context cl_context(context, true);
  const cl::Device cl_device(device, true);
  const cl::CommandQueue queue(cl_context, cl_device);
  const planner::DeviceProfile profile = query_device_profile(device);
  // A call plans by the room its buffer has: warm both the unpadded plan (a buffer of
  // exactly the matrix) and the padded one (ipt_padded_size bytes) when they differ.
  const planner::TransposePlan exact = plan_for_call(profile, rows, cols, elem_size, nullptr, 0);
  const planner::TransposePlan roomy =
      plan_for_call(profile, rows, cols, elem_size, nullptr, kUnlimited);
  const cl::Buffer one(cl_context, CL_MEM_READ_WRITE, elem_size);
  for (const planner::TransposePlan* plan : {&exact, &roomy}) {
    if (plan == &roomy && !roomy.padded()) break;
    if (plan->sequence != planner::Sequence::kSquare) {
      // Builds and checks every kernel (padding ones included) without running it.
      enqueue_call(queue, one, 0, elem_size, *plan, profile, nullptr, {}, /*dry_run=*/true);
      continue;
    }
    PreparedSquare prepared =
        prepare_square(cl_context, cl_device, plan->padded_rows, elem_size, 0);
    enqueue_call(queue, one, 0, elem_size, *plan, profile, &prepared, {}, /*dry_run=*/true);
    // Some drivers (PoCL) finish compiling a kernel for its work-group size only at the
    // first launch, so the square kernel also runs once, on a scratch tile of its own.
    planner::SquarePlan scratch_plan =
        planner::complete_square_plan(prepared.plan, prepared.plan.tile, 0);
    scratch_plan.index64 = prepared.plan.index64;
    const cl::Buffer scratch(cl_context, CL_MEM_READ_WRITE,
                             prepared.plan.tile * prepared.plan.tile * elem_size);
    enqueue_square(queue, prepared.kernel, scratch, 0, prepared.plan.tile, scratch_plan, {});
  }
  queue.finish();
}

}  // namespace ipt::runtime
