// Enqueues the square tiled-swap kernel (kernels/square.cl) for one plan.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/square_plan.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Transposes the n x n matrix at `offset` elements into `buffer` after `wait`; returns
// the kernel's event. The caller has validated the arguments. Throws ipt::Error.
cl::Event enqueue_square(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t n, std::size_t elem_size,
                         const planner::SquarePlan& plan, const std::vector<cl::Event>& wait);

}  // namespace ipt::runtime
