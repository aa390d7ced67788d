// SPDX-License-Identifier: Apache-2.0
#include "planner/padding_plan.hpp"

#include <algorithm>

namespace ipt::planner {

std::uint64_t best_factor(std::uint64_t x, std::uint64_t min_factor, std::uint64_t cap) {
  std::uint64_t best = 0;
  for (std::uint64_t d = 1; d * d <= x; ++d) {
    if (x % d != 0) continue;
    for (std::uint64_t f : {d, x / d})
      if (f >= min_factor && f <= cap) best = std::max(best, f);
  }
  return best;
}

std::vector<std::uint64_t> padding_candidates(std::uint64_t side, std::uint64_t min_factor,
                                              std::uint64_t cap, std::uint64_t max_pad,
                                              std::uint64_t max_steps) {
  std::vector<std::uint64_t> sides{side};
  std::uint64_t factor = best_factor(side, min_factor, cap);
  const std::uint64_t last = std::min(max_pad, max_steps);
  for (std::uint64_t p = 1; p <= last && factor < cap / 2; ++p) {
    const std::uint64_t f = best_factor(side + p, min_factor, cap);
    if (f > factor) {
      sides.push_back(side + p);
      factor = f;
    }
  }
  return sides;
}

std::vector<std::uint64_t> line_multiple_sides(std::uint64_t side, std::uint64_t quantum,
                                               std::uint64_t max_pad, std::uint64_t max_count) {
  std::vector<std::uint64_t> sides;
  if (quantum == 0) return sides;
  for (std::uint64_t s = (side / quantum + 1) * quantum;
       s - side <= max_pad && sides.size() < max_count; s += quantum)
    sides.push_back(s);
  return sides;
}

bool padding_allowed(std::uint64_t rows, std::uint64_t cols, std::uint64_t padded_rows,
                     std::uint64_t padded_cols, std::uint64_t capacity,
                     const PaddingLimits& limits) {
  // A padded shape of more than 2^64 elements fits no buffer; its wrapped product could
  // look like a slightly larger matrix than rows x cols (padding a 1999 x (2^32 + 1000)
  // matrix to a square did).
  const std::uint64_t elements = rows * cols;
  std::uint64_t padded = 0;
  if (__builtin_mul_overflow(padded_rows, padded_cols, &padded) || padded > capacity) return false;
  return static_cast<double>(padded - elements) <=
         limits.max_overhead * static_cast<double>(elements);
}

}  // namespace ipt::planner
