// SPDX-License-Identifier: Apache-2.0
#include "helpers/random_shapes.hpp"

#include <algorithm>
#include <utility>

namespace ipt::test {

using u64 = std::uint64_t;

u64 in_range(std::mt19937_64& random, u64 low, u64 high) { return low + random() % (high - low); }

u64 any_magnitude(std::mt19937_64& random, u64 limit) {
  int bits = 0;
  while ((limit >> bits) > 1) ++bits;
  const u64 top = std::min(limit, u64{1} << in_range(random, 0, bits + 1));
  return in_range(random, 1, top + 1);
}

planner::CallShape random_call(std::mt19937_64& random, std::size_t elem_size) {
  planner::CallShape call;
  call.elem_size = elem_size;
  const u64 kind = random() % 100;
  if (kind < 30) {  // small enough to check whole
    call.rows = in_range(random, 1, 65);
    call.cols = in_range(random, 1, 65);
  } else if (kind < 55) {  // the papers' range
    call.rows = in_range(random, 1000, 20001);
    call.cols = in_range(random, 1000, 20001);
  } else if (kind < 70) {  // AoS -> SoA
    call.rows = in_range(random, 10000, 10000000);
    call.cols = in_range(random, 2, 32);
  } else if (kind < 85) {  // SoA -> AoS
    call.rows = in_range(random, 2, 32);
    call.cols = in_range(random, 10000, 10000000);
  } else if (kind < 98) {  // a short side against a long one
    call.rows = in_range(random, 1, 65);
    call.cols = in_range(random, 1000, 20001);
    if (random() % 2 == 0) std::swap(call.rows, call.cols);
  } else {  // up to 2^40 elements
    call.rows = any_magnitude(random, u64{1} << 20);
    call.cols = any_magnitude(random, u64{1} << 20);
  }
  call.offset = random() % 4 == 0 ? in_range(random, 1, 40) : 0;
  return call;
}

planner::CallShape protocol_call(std::mt19937_64& random, std::size_t elem_size) {
  planner::CallShape call;
  call.elem_size = elem_size;
  call.rows = in_range(random, 1000, 20001);
  call.cols = in_range(random, 1000, 20001);
  return call;
}

}  // namespace ipt::test
