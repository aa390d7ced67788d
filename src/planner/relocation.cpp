// SPDX-License-Identifier: Apache-2.0
#include "planner/relocation.hpp"

#include <limits>
#include <numeric>
#include <tuple>

namespace ipt::planner {
namespace {

using List = Relocation::Shift::List;

bool same(const Region& a, const Region& b) {
  return std::tie(a.buffer, a.offset, a.bytes) == std::tie(b.buffer, b.offset, b.bytes);
}

bool same(const Move& a, const Move& b) {
  return std::tie(a.kind, a.I, a.A, a.B, a.C, a.rows, a.len, a.s_in, a.s_out, a.from, a.to,
                  a.from_at, a.to_at, a.count, a.base, a.split, a.tail_at) ==
         std::tie(b.kind, b.I, b.A, b.B, b.C, b.rows, b.len, b.s_in, b.s_out, b.from, b.to,
                  b.from_at, b.to_at, b.count, b.base, b.split, b.tail_at);
}

// Every field of the two steps, and the kinds and buffers of their arguments.
bool same_apart_from_args(const Step& a, const Step& b) {
  if (a.args.size() != b.args.size()) return false;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (a.args[i].kind != b.args[i].kind || a.args[i].buffer != b.args[i].buffer) return false;
  return std::tie(a.family, a.options, a.index64, a.unit_bytes, a.transformed, a.dims, a.global[0],
                  a.global[1], a.local[0], a.local[1], a.local_bytes, a.probed_launch,
                  a.groups_per_unit, a.touches, a.what) ==
             std::tie(b.family, b.options, b.index64, b.unit_bytes, b.transformed, b.dims,
                      b.global[0], b.global[1], b.local[0], b.local[1], b.local_bytes,
                      b.probed_launch, b.groups_per_unit, b.touches, b.what) &&
         same(a.flags, b.flags) && same(a.zeroes, b.zeroes) && same(a.tail, b.tail) &&
         same(a.fill_before, b.fill_before) && same(a.move, b.move);
}

bool same(const TransposePlan& a, const TransposePlan& b) {
  if (a.stages.size() != b.stages.size()) return false;
  for (std::size_t i = 0; i < a.stages.size(); ++i) {
    const Stage& x = a.stages[i];
    const Stage& y = b.stages[i];
    if (std::tie(x.kind, x.I, x.A, x.B, x.C, x.onchip) !=
        std::tie(y.kind, y.I, y.A, y.B, y.C, y.onchip))
      return false;
  }
  return std::tie(a.rows, a.cols, a.padded_rows, a.padded_cols, a.sequence, a.m, a.n, a.onchip,
                  a.batch) == std::tie(b.rows, b.cols, b.padded_rows, b.padded_cols, b.sequence,
                                       b.m, b.n, b.onchip, b.batch);
}

// Every field of the plans but their offsets and their steps' arguments.
bool same_apart_from_args(const LaunchPlan& a, const LaunchPlan& b) {
  return same(a.transpose, b.transpose) &&
         std::tie(a.elem_size, a.scratch_bytes, a.zero_scratch_bytes, a.borrowed_bytes, a.split,
                  a.part_matrices) == std::tie(b.elem_size, b.scratch_bytes, b.zero_scratch_bytes,
                                               b.borrowed_bytes, b.split, b.part_matrices) &&
         same(a.fill, b.fill) && same(a.split_tail, b.split_tail);
}

// The list of steps a shift names, of a const plan or not.
template <typename Plan>
auto& steps_of(Plan& plan, List list) {
  return list == List::kSteps ? plan.steps : list == List::kUndo ? plan.undo : plan.avoided;
}

// The shifts of one list of steps; false where the steps differ otherwise, or an argument
// does not move by one amount per period (a multiple or a divisor of it).
bool add_shifts(const LaunchPlan& at, const LaunchPlan& next, const LaunchPlan& after, List list,
                std::uint64_t period, std::vector<Relocation::Shift>& shifts) {
  const std::vector<Step>& a = steps_of(at, list);
  const std::vector<Step>& b = steps_of(next, list);
  const std::vector<Step>& c = steps_of(after, list);
  if (a.size() != b.size() || a.size() != c.size()) return false;
  for (std::size_t s = 0; s < a.size(); ++s) {
    if (!same_apart_from_args(a[s], b[s]) || !same_apart_from_args(a[s], c[s])) return false;
    for (std::size_t i = 0; i < a[s].args.size(); ++i) {
      const std::uint64_t v0 = a[s].args[i].value, v1 = b[s].args[i].value, v2 = c[s].args[i].value;
      if (v0 == v1 && v1 == v2) continue;
      const KernelArg::Kind kind = a[s].args[i].kind;
      if (kind == KernelArg::Kind::kBuffer || kind == KernelArg::Kind::kLocal) return false;
      if (v1 <= v0 || v2 - v1 != v1 - v0) return false;
      const std::uint64_t d = v1 - v0;
      if (period % d != 0 && d % period != 0) return false;
      shifts.push_back({list, s, i, d});
    }
  }
  return true;
}

}  // namespace

std::uint64_t relocation_period(std::size_t elem_size) {
  constexpr std::uint64_t kBytes = 256;
  return kBytes / std::gcd<std::uint64_t>(kBytes, elem_size);
}

std::optional<Relocation> find_relocation(const LaunchPlan& at, const LaunchPlan& next,
                                          const LaunchPlan& after, std::uint64_t period) {
  if (period == 0 || next.offset != at.offset + period || after.offset != next.offset + period)
    return std::nullopt;
  // A padded plan's split and borrowed bytes follow the room past the matrix.
  if (at.transpose.padded() || at.borrowed_bytes != 0 || at.split != 0) return std::nullopt;
  if (needs_index64(after.offset, at.transpose.batch_elements())) return std::nullopt;
  if (!same_apart_from_args(at, next) || !same_apart_from_args(at, after)) return std::nullopt;
  Relocation relocation;
  relocation.base = at.offset;
  relocation.period = period;
  for (const List list : {List::kSteps, List::kUndo, List::kAvoided})
    if (!add_shifts(at, next, after, list, period, relocation.shifts)) return std::nullopt;
  return relocation;
}

std::optional<LaunchPlan> relocated(const LaunchPlan& plan, const Relocation& relocation,
                                    std::uint64_t offset) {
  const std::uint64_t period = relocation.period, base = relocation.base;
  if (period == 0 || offset == 0 || plan.offset != base) return std::nullopt;
  const bool up = offset >= base;
  const std::uint64_t distance = up ? offset - base : base - offset;
  if (distance % period != 0) return std::nullopt;
  if (needs_index64(offset, plan.transpose.batch_elements())) return std::nullopt;
  const std::uint64_t periods = distance / period;
  LaunchPlan moved = plan;
  moved.offset = offset;
  for (const Relocation::Shift& shift : relocation.shifts) {
    std::vector<Step>& steps = steps_of(moved, shift.list);
    if (shift.step >= steps.size() || shift.arg >= steps[shift.step].args.size())
      return std::nullopt;
    Step& step = steps[shift.step];
    KernelArg& arg = step.args[shift.arg];
    std::uint64_t delta = 0;
    if (__builtin_mul_overflow(periods, shift.per_period, &delta)) return std::nullopt;
    if (up ? __builtin_add_overflow(arg.value, delta, &arg.value) : arg.value < delta)
      return std::nullopt;
    if (!up) arg.value -= delta;
    const bool narrow = arg.kind == KernelArg::Kind::kUint ||
                        (arg.kind == KernelArg::Kind::kIndex && !step.index64);
    if (narrow && arg.value > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  }
  return moved;
}

}  // namespace ipt::planner
