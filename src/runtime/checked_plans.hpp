// SPDX-License-Identifier: Apache-2.0
// Prepared plans (every kernel built and checked) for one (context, device, shape, buffer
// room, offset, environment). A later identical call reuses the plan and skips planning
// and preparing: those took 13-25 us of host work before the first command of a call
// reached an idle GPU, a share that shows on matrices of 10^7 elements (calls of
// 250-500 us). A call at another offset of the same buffer may get a plan moved there
// (find_moved_plan, below). Calls whose kernel sources come from IPT_KERNEL_DIR keep no
// plan (the files may change between calls).
//
// The environment texts that shape a plan or its kernels (IPT_OVERRIDES,
// IPT_BUILD_OPTIONS, IPT_KERNEL_DIR) are part of the key, so changing them between calls
// never reuses a plan made under other settings; so are the options of a caller-adjusted
// plan (ipt_transpose_with_options). Entries keep their context alive, so a
// key's context handle can never be reused by another context while it is cached.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "planner/launch_plan.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

struct CheckedPlan;  // runtime/transpose.hpp

struct CheckedPlanKey {
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  std::uint64_t rows = 0, cols = 0, capacity = 0, offset = 0, batch = 1;
  std::size_t elem_size = 0;
  std::string environment;  // environment_key() (runtime/environment.hpp)
  // What the call does besides transposing the shape ("" for a transposition): an
  // imatcopy's strides, operation and alpha.
  std::string operation;

  bool operator==(const CheckedPlanKey& other) const;
};

// Shared, not copied: a call only reads it.
std::shared_ptr<const CheckedPlan> find_checked_plan(const CheckedPlanKey& key);

// Remembers a prepared plan, in place of the key's earlier one if any. The cache is small
// (calls usually repeat a few shapes); when full it starts over.
void remember_checked_plan(const CheckedPlanKey& key, const cl::Context& context,
                           std::shared_ptr<const CheckedPlan> checked);

// Plans moved between offsets (planner/relocation.hpp), for a loop of calls over the
// matrices of one buffer, every call at a new offset. Calls that differ only in the offset
// and the room past the matrix form a class per offset modulo relocation_period; a
// plan that does not pad is the same for any room.
//
// find_moved_plan: the plan of `key`, moved from the plan its class keeps for another
// offset; null when the class has none or it cannot move to key.offset.
std::shared_ptr<const CheckedPlan> find_moved_plan(const CheckedPlanKey& key);

// Tells the class of `key` that `checked` was planned for key.offset. The first offset of
// a class is only noted, so that a call of one matrix plans nothing more; at the next,
// `plan_at` plans the call at two more offsets of the class (planning only), and if the
// three plans differ only in arguments that move with the offset, the class keeps
// `checked` to move. `plan_at` may throw: the class then keeps nothing.
void learn_moves(const CheckedPlanKey& key, const cl::Context& context,
                 std::shared_ptr<const CheckedPlan> checked,
                 const std::function<planner::LaunchPlan(std::uint64_t offset)>& plan_at);

// Drops what the class of `key` keeps (its plan was made on on-chip verdicts that changed).
void forget_moves(const CheckedPlanKey& key);

void clear_checked_plans();

struct CheckedPlanStats {
  std::size_t hits = 0, misses = 0, entries = 0;
  std::size_t moved = 0;  // misses served by a plan moved from another offset
};
CheckedPlanStats checked_plan_stats();

}  // namespace ipt::runtime
