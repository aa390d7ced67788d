// SPDX-License-Identifier: Apache-2.0
#include "planner/permute_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include "planner/families/bs.hpp"
#include "planner/families/soa.hpp"
#include "planner/families/square.hpp"

namespace ipt::planner {
namespace {

using Order = std::vector<std::size_t>;  // input axes, in memory order (outermost first)

template <typename T>
std::string list_text(const std::vector<T>& values) {
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i == 0 ? "" : ", ") + std::to_string(values[i]);
  return out + ")";
}

void check_shape(const PermuteShape& shape) {
  const std::size_t rank = shape.dims.size();
  if (rank == 0 || rank > kMaxRank)
    throw std::invalid_argument("a rank of " + std::to_string(rank) + ": 1 to " +
                                std::to_string(kMaxRank) + " axes");
  if (shape.perm.size() != rank)
    throw std::invalid_argument("perm has " + std::to_string(shape.perm.size()) +
                                " entries for a rank of " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (const std::size_t axis : shape.perm) {
    if (axis >= rank || seen[axis])
      throw std::invalid_argument("perm " + list_text(shape.perm) +
                                  " is not a permutation of 0 .. " + std::to_string(rank - 1));
    seen[axis] = true;
  }
  for (const std::uint64_t d : shape.dims)
    if (d == 0)
      throw std::invalid_argument("an empty tensor " + list_text(shape.dims) + " has no plan");
}

bool element_bytes(std::uint64_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
}

// Product of the sizes of order[from, to).
std::uint64_t product(const std::vector<std::uint64_t>& dims, const Order& order, std::size_t from,
                      std::size_t to) {
  std::uint64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= dims[order[i]];
  return p;
}

// What a block swap costs, in copies of the tensor, and whether it can run at all:
// a transposition (S = 1) always can; a 0100! over super-elements only where its flag
// bit per super-element stays within the memory bound (a tensor of kMemoryBudgetFrom
// elements or more), since the search can always go around it.
constexpr double kCannot = -1;
double swap_cost(const DeviceProfile& device, const BlockSwap& swap, std::size_t elem_size,
                 bool super_elements) {
  if (swap.S == 1) {
    // The transposition's fractions of the copy bandwidth: one BS pass for tiles that fit
    // local memory, the square kernel, else two or three passes (30-35% of copy over the
    // random protocol).
    if (bs_fits(device, swap.A, swap.B, elem_size)) return 1.0 / 0.8;
    if (swap.A == swap.B) return 1.0 / kSquareEfficiency;
    return 1.0 / 0.3;
  }
  if (!super_elements) return kCannot;
  const std::uint64_t elements = swap.P * swap.A * swap.B * swap.S;
  const double flag_bytes = static_cast<double>(swap.P * swap.A * swap.B) / 8.0;
  if (elements >= kMemoryBudgetFrom &&
      flag_bytes > kMaxExtraMemory * 0.8 * static_cast<double>(elements * elem_size))
    return kCannot;
  return std::max(1.0, 1.0 / soa_stage_efficiency(device, swap.S, elem_size));
}

// `text` with every line after the first indented by two spaces more.
std::string indented(std::string text) {
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 3))
    text.replace(at, 1, "\n  ");
  return text;
}

// Adjacent pairs of `order` (with the ends) that the target does not have: each swap
// mends at most three, so a third of them, rounded up, is a lower bound on the swaps left.
std::size_t breakpoints(const Order& order, const Order& target_position) {
  const std::size_t n = order.size();
  std::size_t count = 0;
  if (target_position[order[0]] != 0) ++count;
  if (target_position[order[n - 1]] != n - 1) ++count;
  for (std::size_t i = 0; i + 1 < n; ++i)
    if (target_position[order[i + 1]] != target_position[order[i]] + 1) ++count;
  return count;
}

}  // namespace

bool ReducedPermutation::identity() const {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != i) return false;
  return true;
}

ReducedPermutation reduce_permutation(const PermuteShape& shape) {
  check_shape(shape);
  // Axes of size 1, renumbered away.
  std::vector<std::size_t> new_index(shape.dims.size(), 0);
  std::vector<std::uint64_t> dims;
  for (std::size_t a = 0; a < shape.dims.size(); ++a)
    if (shape.dims[a] != 1) {
      new_index[a] = dims.size();
      dims.push_back(shape.dims[a]);
    }
  std::vector<std::size_t> perm;
  for (const std::size_t a : shape.perm)
    if (shape.dims[a] != 1) perm.push_back(new_index[a]);
  // Input axes a, a + 1 that are also adjacent in the output, in that order: one axis.
  std::vector<std::uint64_t> merged_dims;
  std::vector<std::size_t> group_of(dims.size(), 0);  // input axis -> merged axis
  for (std::size_t a = 0; a < dims.size(); ++a) {
    const auto at = std::find(perm.begin(), perm.end(), a) - perm.begin();
    const bool joins = a > 0 && at > 0 && perm[static_cast<std::size_t>(at) - 1] == a - 1;
    if (joins) {
      merged_dims.back() *= dims[a];
    } else {
      merged_dims.push_back(dims[a]);
    }
    group_of[a] = merged_dims.size() - 1;
  }
  std::vector<std::size_t> merged_perm;
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (i == 0 || group_of[perm[i]] != group_of[perm[i - 1]])
      merged_perm.push_back(group_of[perm[i]]);
  ReducedPermutation reduced;
  reduced.dims = merged_dims;
  reduced.perm = merged_perm;
  reduced.elem_size = shape.elem_size;
  reduced.offset = shape.offset;
  reduced.capacity = shape.capacity;
  // A last axis that stays last makes a larger element, where it is one the kernels move
  // and the tensor starts at such an element.
  const std::size_t rank = reduced.dims.size();
  if (rank >= 2 && reduced.perm.back() == rank - 1) {
    const std::uint64_t last = reduced.dims.back();
    if (element_bytes(last * shape.elem_size) && shape.offset % last == 0) {
      reduced.elem_size = static_cast<std::size_t>(last * shape.elem_size);
      reduced.offset = shape.offset / last;
      reduced.capacity = shape.capacity == kNoBuffer ? kNoBuffer : shape.capacity / last;
      reduced.dims.pop_back();
      reduced.perm.pop_back();
    }
  }
  if (reduced.dims.empty()) {  // a single element
    reduced.dims = {1};
    reduced.perm = {0};
  }
  return reduced;
}

std::vector<BlockSwap> permutation_swaps(const DeviceProfile& device,
                                         const ReducedPermutation& reduced, bool super_elements) {
  const std::size_t n = reduced.dims.size();
  if (reduced.identity()) return {};
  const std::vector<std::uint64_t>& dims = reduced.dims;
  Order target_position(n);
  for (std::size_t i = 0; i < n; ++i) target_position[reduced.perm[i]] = i;
  const Order& target = reduced.perm;
  // A*: g the cost so far, h a third of the breakpoints times the cheapest swap (no pass
  // is faster than a copy: swap_cost is at least 1).
  const double cheapest = 1.0;
  struct Visit {
    double g = 0;
    Order from;
    BlockSwap swap;
  };
  std::map<Order, Visit> best;
  using Entry = std::pair<double, Order>;  // f, order
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
  Order start(n);
  std::iota(start.begin(), start.end(), 0);
  best[start] = {0, {}, {}};
  open.push({0, start});
  while (!open.empty()) {
    const auto [f, order] = open.top();
    open.pop();
    const double g = best[order].g;
    if (order == target) break;
    const double h_here =
        std::ceil(static_cast<double>(breakpoints(order, target_position)) / 3.0) * cheapest;
    if (f > g + h_here + 1e-9) continue;  // a stale entry
    for (std::size_t i = 0; i + 1 < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        for (std::size_t k = j + 1; k <= n; ++k) {
          const BlockSwap swap{product(dims, order, 0, i), product(dims, order, i, j),
                               product(dims, order, j, k), product(dims, order, k, n)};
          const double cost = swap_cost(device, swap, reduced.elem_size, super_elements);
          if (cost == kCannot) continue;
          Order next(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i));
          next.insert(next.end(), order.begin() + static_cast<std::ptrdiff_t>(j),
                      order.begin() + static_cast<std::ptrdiff_t>(k));
          next.insert(next.end(), order.begin() + static_cast<std::ptrdiff_t>(i),
                      order.begin() + static_cast<std::ptrdiff_t>(j));
          next.insert(next.end(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end());
          const double g_next = g + cost;
          const auto found = best.find(next);
          if (found != best.end() && found->second.g <= g_next + 1e-12) continue;
          best[next] = {g_next, order, swap};
          const double h =
              std::ceil(static_cast<double>(breakpoints(next, target_position)) / 3.0) * cheapest;
          open.push({g_next + h, next});
        }
  }
  if (best.find(target) == best.end())
    throw std::logic_error("no sequence of block swaps found for " + list_text(reduced.perm));
  std::vector<BlockSwap> swaps;
  for (Order at = target; at != start; at = best[at].from) swaps.push_back(best[at].swap);
  std::reverse(swaps.begin(), swaps.end());
  return swaps;
}

namespace {

// One swap's plan. A permutation of one swap is that swap's call, in the buffer's room (a
// matrix transposition is exactly ipt_transpose's plan); one of several is a part, with
// an undo for every step, and keeps any padding in scratch (no part borrows).
LaunchPlan swap_plan(const DeviceProfile& device, const BlockSwap& swap,
                     const ReducedPermutation& reduced, const PlanOverrides& overrides,
                     bool alone) {
  if (swap.S == 1) {
    CallShape call{swap.A, swap.B, reduced.elem_size, reduced.offset, alone ? reduced.capacity : 0,
                   swap.P};
    call.undo_last = !alone;
    call.zero_scratch_flags = alone;
    return plan_call(device, call, overrides);
  }
  LaunchPlan plan = plan_stage_part(device, {Stage::Kind::k0100, swap.P, swap.A, swap.B, swap.S},
                                    reduced.elem_size, reduced.offset);
  if (alone && !plan.undo.empty()) plan.undo.pop_back();
  return plan;
}

// The swaps' part in words.
std::string part_text(const LaunchPlan& part, const BlockSwap& swap) {
  std::string text = "P " + std::to_string(swap.P) + ", A " + std::to_string(swap.A) + ", B " +
                     std::to_string(swap.B) + ", S " + std::to_string(swap.S) + ": ";
  if (swap.S == 1) return text + indented(describe(part));
  for (const Step& step : part.steps) text += step.what;
  return text;
}

// The plan of `swaps`, one after the other on one scratch.
PermutePlan composed_plan(const DeviceProfile& device, const PermuteShape& shape,
                          const ReducedPermutation& reduced, std::vector<BlockSwap> swaps,
                          const PlanOverrides& overrides) {
  PermutePlan plan;
  plan.shape = shape;
  plan.reduced = reduced;
  plan.swaps = std::move(swaps);
  LaunchPlan& launch = plan.launch;
  launch.elem_size = reduced.elem_size;
  launch.offset = reduced.offset;
  const std::uint64_t elements = std::accumulate(reduced.dims.begin(), reduced.dims.end(),
                                                 std::uint64_t{1}, std::multiplies<>());
  launch.transpose.rows = launch.transpose.padded_rows = elements;
  launch.transpose.cols = launch.transpose.padded_cols = 1;
  const bool alone = plan.swaps.size() == 1;
  bool first = true;
  for (const BlockSwap& swap : plan.swaps) {
    LaunchPlan part = swap_plan(device, swap, reduced, overrides, alone);
    plan.parts.push_back(part_text(part, swap));
    if (alone) {
      launch = std::move(part);
      break;
    }
    if (part.undo.size() != part.steps.size())
      throw std::logic_error("a block swap's plan lacks an undo");
    if (first) {  // the first part's scratch is zeroed by the plan's fill, as for one call
      launch.fill = part.fill;
      part.fill = {};
      first = false;
    }
    append_part(launch, std::move(part), 0);
  }
  if (!alone && !launch.undo.empty()) launch.undo.pop_back();
  return plan;
}

std::uint64_t extra_bytes(const LaunchPlan& plan) {
  return plan.scratch_bytes + plan.zero_scratch_bytes;
}

}  // namespace

PermutePlan plan_permutation(const DeviceProfile& device, const PermuteShape& shape,
                             const PlanOverrides& overrides) {
  const ReducedPermutation reduced = reduce_permutation(shape);
  PermutePlan plan =
      composed_plan(device, shape, reduced, permutation_swaps(device, reduced), overrides);
  // The parts share their scratch, each kind at the largest part's size, and keep their
  // flags in call scratch (CallShape::zero_scratch_flags). Where the 0100! passes still
  // take more than the bound, transpositions alone, and the plan of the two that takes
  // less.
  // (A plan of one swap is that swap's call plan: its transpose fields are the swap's.)
  const std::uint64_t elements = std::accumulate(reduced.dims.begin(), reduced.dims.end(),
                                                 std::uint64_t{1}, std::multiplies<>());
  if (elements >= kMemoryBudgetFrom &&
      static_cast<double>(extra_bytes(plan.launch)) >
          kMaxExtraMemory * static_cast<double>(elements * reduced.elem_size)) {
    PermutePlan transpositions =
        composed_plan(device, shape, reduced, permutation_swaps(device, reduced, false), overrides);
    if (extra_bytes(transpositions.launch) < extra_bytes(plan.launch))
      plan = std::move(transpositions);
  }
  check_allocations(plan.launch, device);
  return plan;
}

LaunchPlan plan_permute(const DeviceProfile& device, const PermuteShape& shape,
                        const PlanOverrides& overrides) {
  return plan_permutation(device, shape, overrides).launch;
}

std::string describe(const PermutePlan& plan) {
  const PermuteShape& shape = plan.shape;
  const ReducedPermutation& reduced = plan.reduced;
  std::string out = "permutation " + list_text(shape.perm) + " of " + list_text(shape.dims) + ", " +
                    std::to_string(shape.elem_size) + "-byte elements";
  if (reduced.dims != shape.dims || reduced.elem_size != shape.elem_size)
    out += "\n  as " + list_text(reduced.perm) + " of " + list_text(reduced.dims) + ", " +
           std::to_string(reduced.elem_size) + "-byte elements";
  if (plan.swaps.empty()) return out + "\n  nothing moves";
  out += "\n  " + std::to_string(plan.swaps.size()) +
         (plan.swaps.size() == 1 ? " block swap" : " block swaps") +
         " [P][A][B][S] -> [P][B][A][S]" +
         (plan.swaps.size() == 1 ? ":" : ", one after the other on one scratch:");
  for (const std::string& part : plan.parts) out += "\n  " + part;
  return out;
}

}  // namespace ipt::planner
