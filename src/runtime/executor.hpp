// SPDX-License-Identifier: Apache-2.0
// The executor: prepares a launch plan once (builds and checks every step's kernel) and
// enqueues it in one loop, with the call's scratch taken from the scratch cache.
#pragma once

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "planner/launch_plan.hpp"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

// A plan whose every kernel is built and has passed its launch check on one device.
struct PreparedPlan {
  planner::LaunchPlan plan;
  std::vector<ProgramRef> programs;       // one per step
  std::vector<ProgramRef> undo_programs;  // one per plan.undo step
};

// Thrown by enqueue_plan when a command failed after some of the plan's kernels were
// enqueued and the library enqueued their undo (planner::rollback_plan): once `done`
// completes, the buffer holds its original bytes again. Status IPT_ROLLED_BACK.
class CallRolledBack : public Error {
 public:
  // With the status and message of `rolled_back`, copied without allocating.
  CallRolledBack(const Error& rolled_back, cl::Event done_) noexcept
      : Error(rolled_back), done(std::move(done_)) {}
  cl::Event done;
};

// What went wrong, in words (an OpenCL error with its code, out of host memory, ...), for
// the message of a call that failed part-way.
std::string cause_of(const std::exception_ptr& cause);

// Builds and checks every step (runtime/launcher.hpp), so that a plan that cannot run
// fails here, before any command of the call; the launch of a step whose probe checks it
// (Step::probed_launch) is checked by that probe (runtime/onchip_residency.hpp). Throws
// ipt::Error.
PreparedPlan prepare_plan(const cl::CommandQueue& queue, planner::LaunchPlan plan);

struct EnqueueOptions {
  // (benchmarks) every step's event, in order; every step then carries one.
  std::vector<cl::Event>* step_events = nullptr;
  // (tests, benchmarks) the buffer a plan's Buffer::kReport names.
  const cl::Buffer* report = nullptr;
  // (tests) scratch buffers of the caller's instead of the cache's: at least the plan's
  // sizes; the zero one must be all zero and is left so.
  const cl::Buffer* scratch = nullptr;
  const cl::Buffer* zero_scratch = nullptr;
};

// Enqueues the plan on `queue` after `wait` on the matrix in `buffer`; returns an event
// that completes when the whole plan has (a marker for a plan without steps). On an
// in-order queue only the last command carries an event (see event_slot): the queue
// orders the others. The call's scratch is taken before its first command. Throws
// ipt::Error or cl::Error with nothing that touches `buffer` enqueued; CallRolledBack when
// a failure came after some kernels were enqueued and they were undone; ipt::Error
// IPT_BUFFER_UNDEFINED when undoing them failed too.
cl::Event enqueue_plan(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       const PreparedPlan& prepared, const std::vector<cl::Event>& wait,
                       const EnqueueOptions& options = {});

}  // namespace ipt::runtime
