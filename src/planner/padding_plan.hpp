// SPDX-License-Identifier: Apache-2.0
// Padding (TPDS 2015 §6.2, Algorithm 5): a side with no good factor (a prime, twice a
// prime...) leaves only slow plans; adding a few rows or columns gives it one. These
// helpers pick which padded sides are worth trying; plan_transpose (transpose_plan.hpp)
// plans each candidate and keeps the fastest by the cost model.
#pragma once

#include <cstdint>
#include <vector>

namespace ipt::planner {

struct PaddingLimits {
  double max_overhead = 0.005;       // extra elements at most this fraction of the matrix
  std::uint64_t max_steps = 4096;    // sides tried per dimension
  std::uint64_t max_line_sides = 8;  // multiples of a cache line tried per dimension
};

// The largest divisor of x in [min_factor, cap], or 0.
std::uint64_t best_factor(std::uint64_t x, std::uint64_t min_factor, std::uint64_t cap);

// Lengths side, side + 1, ..., side + max_pad kept only where best_factor grows (the
// Pareto front of "fewest extra rows" against "best factor"), stopping once the factor
// reaches cap / 2. Always starts with `side` itself.
std::vector<std::uint64_t> padding_candidates(std::uint64_t side, std::uint64_t min_factor,
                                              std::uint64_t cap, std::uint64_t max_pad,
                                              std::uint64_t max_steps);

// The multiples of `quantum` in (side, side + max_pad], at most max_count of them: sides
// whose factors can be whole cache lines (quantum: the elements of a line). Empty for a
// quantum of 0.
std::vector<std::uint64_t> line_multiple_sides(std::uint64_t side, std::uint64_t quantum,
                                               std::uint64_t max_pad, std::uint64_t max_count);

// Whether a padded_rows x padded_cols matrix may replace rows x cols (of at most 2^64
// elements): it fits the `capacity` elements the buffer holds and adds at most
// limits.max_overhead.
bool padding_allowed(std::uint64_t rows, std::uint64_t cols, std::uint64_t padded_rows,
                     std::uint64_t padded_cols, std::uint64_t capacity,
                     const PaddingLimits& limits);

}  // namespace ipt::planner
