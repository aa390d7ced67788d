// SPDX-License-Identifier: Apache-2.0
// A transposition call: plans it (or finds it prepared), prepares its kernels, and
// enqueues its launch plan on the caller's queue after the wait list.
#pragma once

#include <cstdint>
#include <vector>

#include "ipt/ipt.h"
#include "planner/device_profile.hpp"
#include "planner/imatcopy_plan.hpp"
#include "planner/launch_plan.hpp"
#include "planner/permute_plan.hpp"
#include "planner/sequence.hpp"
#include "runtime/executor.hpp"
#include "runtime/onchip_residency.hpp"

namespace ipt::runtime {

// A call's plan as calls keep it (checked_plans.hpp): prepared, with the on-chip verdicts
// it was planned on (it is planned again when those change).
struct CheckedPlan {
  PreparedPlan prepared;
  OnChipWatch onchip;
};

struct TransposeRequest {
  cl_command_queue queue = nullptr;
  cl_mem buffer = nullptr;
  std::uint64_t offset = 0;  // in elements
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::uint64_t batch = 1;  // matrices of rows x cols back to back (ipt_transpose_batched)
  std::size_t elem_size = 0;
  cl_uint num_events_in_wait_list = 0;
  const cl_event* event_wait_list = nullptr;
  cl_event* event = nullptr;  // may be NULL
  bool forced_plan = false;   // plan_request replaces the IPT_OVERRIDES plan keys
  planner::PlanRequest plan_request;
  std::uint64_t max_bytes = 0;  // bytes from the offset a padded plan may use (0: the buffer's)
  // Filled in by api::validate_transpose, which queries them anyway.
  cl_context context = nullptr;   // the queue's
  cl_device_id device = nullptr;  // the queue's
  std::size_t buffer_bytes = 0;
};

// An ipt_imatcopy call (planner/imatcopy_plan.hpp): `call` holds the row-major view's
// rows and cols (the API swaps a column-major matrix's), the handles and the events.
struct ImatcopyRequest {
  TransposeRequest call;
  std::uint64_t lda = 0, ldb = 0;
  bool transpose = false;
  planner::ElementTransform transform;
};

// An ipt_permute call (planner/permute_plan.hpp): `call` holds the handles, the events, the
// offset and the element size; its rows are the tensor's elements and its cols 1.
struct PermuteRequest {
  TransposeRequest call;
  std::vector<std::uint64_t> dims;
  std::vector<std::size_t> perm;
};

// Enqueues a permutation that passed api::validate_permute; as execute_transpose.
void execute_permute(const PermuteRequest& request);

// The plan of a permutation, as plan_for_call (`shape.capacity` kUnlimited: no buffer),
// with IPT_OVERRIDES' plan keys for its transpositions.
planner::PermutePlan plan_for_permute(const planner::DeviceProfile& profile,
                                      const planner::PermuteShape& shape);

// Enqueues one stage alone (planner::plan_stage) on the request's buffer from its offset,
// after its wait list: the phases of the host scheme's slicing (host/host_slicing.hpp).
// The request's rows, cols and batch are not used. As execute_transpose.
void execute_stage(const TransposeRequest& request, const planner::Stage& stage);

// Enqueues `call` through `enqueue` (execute_transpose, execute_stage, ...) with an event
// of its own and returns that event. An enqueue that throws after handing the event out
// (a rolled-back call gives the caller the undo's event) has it released.
template <typename Enqueue>
cl::Event enqueue_with_event(TransposeRequest call, const Enqueue& enqueue) {
  cl_event done = nullptr;
  call.event = &done;
  try {
    enqueue(call);
  } catch (...) {
    if (done != nullptr) clReleaseEvent(done);
    throw;
  }
  return cl::Event(done);  // takes over the call's reference
}

// Enqueues an imatcopy call that passed api::validate_imatcopy; as execute_transpose.
void execute_imatcopy(const ImatcopyRequest& request);

// Enqueues the transposition. The request must have passed api::validate_transpose
// (which fills in its context, device and buffer_bytes). Throws ipt::Error or
// cl::Error; every check happens before the call's first command, so a call that fails
// them enqueues nothing that touches the caller's buffer.
void execute_transpose(const TransposeRequest& request);

// The launch plan a call would run: `request` when given, else IPT_OVERRIDES' plan keys,
// on the device's profile (with IPT_OVERRIDES' device keys), for a matrix `offset`
// elements into a buffer that holds `capacity` elements from the matrix's start (0:
// exactly the matrix, kUnlimited: no buffer, as many as the fastest plan wants). A plan
// that cannot work is ipt::Error(IPT_INVALID_VALUE), a forced padded shape without room
// ipt::Error(IPT_BUFFER_TOO_SMALL).
constexpr std::uint64_t kUnlimited = planner::kNoBuffer;
planner::LaunchPlan plan_for_call(const planner::DeviceProfile& profile, std::uint64_t rows,
                                  std::uint64_t cols, std::size_t elem_size, std::uint64_t offset,
                                  const planner::PlanRequest* request, std::uint64_t capacity = 0,
                                  std::uint64_t batch = 1);

// plan_for_call, prepared on `queue`'s device as a call would prepare it: a device that
// cannot run a kernel's work-group, or that refuses the on-chip kernel, gets another plan
// (unless `request` forced that choice). For tools that run a call's plan step by step.
PreparedPlan prepare_for_call(const cl::CommandQueue& queue, const planner::DeviceProfile& profile,
                              std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
                              std::uint64_t offset, const planner::PlanRequest* request,
                              std::uint64_t capacity = 0, std::uint64_t batch = 1);

// Builds (or loads from the caches) every program that a call of any shape of
// elem_size-byte elements can launch on `device` with default plans, at both index
// widths (kernel_set.hpp), so that no later call compiles. Arguments validated by the
// caller.
void warm_up(cl_context context, cl_device_id device, std::size_t elem_size);

// Drops the library's programs, prepared plans and kept scratch buffers (and with them
// its references to contexts).
void clear_caches();

}  // namespace ipt::runtime
