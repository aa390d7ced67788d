// SPDX-License-Identifier: Apache-2.0
// Random calls for the planner tests: the shape classes users have (the papers' range,
// AoS <-> SoA, a short side against a long one, huge matrices), drawn the same way on
// every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

#include "planner/launch_plan.hpp"

namespace ipt::test {

// A number in [low, high); unlike std::uniform_int_distribution, the same on every
// platform.
std::uint64_t in_range(std::mt19937_64& random, std::uint64_t low, std::uint64_t high);

// About log-uniform in [1, limit]: sides of every magnitude.
std::uint64_t any_magnitude(std::mt19937_64& random, std::uint64_t limit);

// A call of elem_size-byte elements with its buffer exactly the matrix (capacity 0),
// at a small offset one time in four.
planner::CallShape random_call(std::mt19937_64& random, std::size_t elem_size);

// A call of the random benchmark protocol: both sides in [1000, 20000].
planner::CallShape protocol_call(std::mt19937_64& random, std::size_t elem_size);

}  // namespace ipt::test
