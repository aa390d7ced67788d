// SPDX-License-Identifier: Apache-2.0
// The copy kernel (kernels/copy.cl): its step builder.
#pragma once

#include <cstdint>

#include "planner/step.hpp"

namespace ipt::planner {

// Its step builder (planner/families/copy.cpp). A region left with Buffer::kNone is placed
// at the start of the call scratch, as a kernel run alone needs.
// Copies count elements; offsets in elements of each buffer (the matrix's from its start).
Step copy_step(const StepSite& site, Buffer from, std::uint64_t from_at, Buffer to,
               std::uint64_t to_at, std::uint64_t count, Region zeroes = {});

}  // namespace ipt::planner
