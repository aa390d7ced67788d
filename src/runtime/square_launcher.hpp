// Enqueues the square tiled-swap kernel (kernels/square.cl) for one plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/square_plan.hpp"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Thrown when the compiled kernel allows fewer work-items per group than the plan needs
// (register pressure can lower CL_KERNEL_WORK_GROUP_SIZE below the device maximum); the
// executor replans with `limit`. Nothing has been enqueued.
class WorkGroupTooLarge : public Error {
 public:
  WorkGroupTooLarge(std::size_t needed, std::size_t limit_)
      : Error(IPT_OUT_OF_RESOURCES, "square kernel needs work-groups of " + std::to_string(needed) +
                                        " work-items; the compiled kernel allows " +
                                        std::to_string(limit_)),
        limit(limit_) {}
  std::size_t limit;
};

// The kernel for `plan`, compiled on first use; throws WorkGroupTooLarge when the
// compiled kernel cannot run the plan's work-group.
cl::Kernel square_kernel(const cl::Context& context, const cl::Device& device,
                         std::size_t elem_size, const planner::SquarePlan& plan);

// Transposes the n x n matrix at `offset` elements into `buffer` after `wait` with a
// kernel from square_kernel; returns the kernel's event. The caller has validated the
// arguments. Throws ipt::Error. Without `event_wanted`, no event (see event_slot).
cl::Event enqueue_square(const cl::CommandQueue& queue, cl::Kernel& kernel,
                         const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t n,
                         const planner::SquarePlan& plan, const std::vector<cl::Event>& wait,
                         bool event_wanted = true);

// square_kernel + enqueue_square.
cl::Event enqueue_square(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t n, std::size_t elem_size,
                         const planner::SquarePlan& plan, const std::vector<cl::Event>& wait);

}  // namespace ipt::runtime
