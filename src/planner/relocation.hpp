// SPDX-License-Identifier: Apache-2.0
// Plans moved to another offset of their buffer. A loop of calls over the matrices of one
// buffer is a new offset for every call, and planning one took as long as the call's
// commands on a matrix of a few million elements. Yet the planner's decisions depend on
// the offset only through alignments of at most 16 bytes and whether indices pass 32 bits,
// and the kernels' arguments move with it. So a plan made at one offset serves every
// offset a multiple of relocation_period() away whose indices stay 32-bit, its arguments
// shifted.
//
// Which arguments shift, and by how much, is not declared by the families: it is found
// by planning at three offsets of one class (o, o + P, o + 2P) and comparing. Every field
// of the three plans but the arguments must be equal, and each argument that differs must
// change by the same amount from one to the next, a multiple or a divisor of P. A plan
// that pads (its room and split depend on the buffer past the matrix) is never relocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "planner/launch_plan.hpp"

namespace ipt::planner {

// Offsets this many elements apart agree in every alignment the planner tests: 256 bytes
// of elements, rounded up to whole elements.
std::uint64_t relocation_period(std::size_t elem_size);

struct Relocation {
  std::uint64_t base = 0;    // the offset of the plan it moves
  std::uint64_t period = 0;  // relocation_period
  struct Shift {
    enum class List { kSteps, kUndo, kAvoided } list = List::kSteps;
    std::size_t step = 0, arg = 0;
    std::uint64_t per_period = 0;  // added to the argument per period the offset moves
  };
  std::vector<Shift> shifts;
};

// How `at` moves with its offset, from the same call planned `period` and 2 * `period`
// elements further into its buffer (`next`, `after`); nothing when they differ otherwise,
// when it pads, or when `after` needs 64-bit indices.
std::optional<Relocation> find_relocation(const LaunchPlan& at, const LaunchPlan& next,
                                          const LaunchPlan& after, std::uint64_t period);

// `plan` (the plan of relocation.base) moved to `offset`: nothing unless `offset` lies a
// multiple of the period from the base, is not 0, and keeps every index 32-bit.
std::optional<LaunchPlan> relocated(const LaunchPlan& plan, const Relocation& relocation,
                                    std::uint64_t offset);

}  // namespace ipt::planner
