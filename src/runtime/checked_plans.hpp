// SPDX-License-Identifier: Apache-2.0
// Prepared plans (every kernel built and checked) for one (context, device, shape, buffer
// room, offset, environment). A later identical call reuses the plan and skips planning
// and preparing: those took 13-25 us of host work before the first command of a call
// reached an idle GPU, a share that shows on matrices of 10^7 elements (calls of
// 250-500 us). Calls whose kernel sources come from IPT_KERNEL_DIR keep no plan (the
// files may change between calls).
//
// The environment texts that shape a plan or its kernels (IPT_OVERRIDES,
// IPT_BUILD_OPTIONS, IPT_KERNEL_DIR) are part of the key, so changing them between calls
// never reuses a plan made under other settings. Calls with a caller-adjusted plan
// (ipt_transpose_with_options) are not cached. Entries keep their context alive, so a
// key's context handle can never be reused by another context while it is cached.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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

void clear_checked_plans();

struct CheckedPlanStats {
  std::size_t hits = 0, misses = 0, entries = 0;
};
CheckedPlanStats checked_plan_stats();

}  // namespace ipt::runtime
