// The on-chip kernel (kernels/onchip.cl) run alone by its launcher, for its tests.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

#include "planner/onchip_plan.hpp"

namespace ipt::test {

// Runs the kernel on `instances` random rows x cols matrices in a row (one: a plain
// transposition) on the session's queue; returns its decision word (1: went ahead, 2:
// gave up; `give_up` makes it). Checks, with Catch, every instance transposed or the
// whole buffer untouched, and the guard bytes around the matrices.
cl_uint run_onchip_kernel(std::size_t instances, std::size_t rows, std::size_t cols,
                          std::size_t elem_size, const planner::OnChipConfig& config, bool give_up,
                          std::uint64_t seed);

}  // namespace ipt::test
