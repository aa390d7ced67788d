// SPDX-License-Identifier: Apache-2.0
// The on-chip kernel (kernels/onchip.cl), its step run alone, for its tests.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

#include "planner/families/onchip.hpp"

namespace ipt::test {

// Runs the kernel on `instances` random rows x cols matrices in a row (one: a plain
// transposition) on the session's queue; returns the way it reported (1: in one pass, 2:
// by cycle following, which `give_up` forces). Checks, with Catch, every instance
// transposed and the guard bytes around the matrices unchanged, its scratch zero again,
// and the words it was given to zero zeroed (and nothing around them). `cycles_only`: the
// step of planner::onchip_cycles_step instead (no words to zero; it reports 2).
cl_uint run_onchip_kernel(std::size_t instances, std::size_t rows, std::size_t cols,
                          std::size_t elem_size, const planner::OnChipConfig& config, bool give_up,
                          std::uint64_t seed, bool cycles_only = false);

}  // namespace ipt::test
