// Enqueues 010! (A, B, C) -> (A, C, B) by barrier synchronisation (kernels/bs.cl).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/elementary_configs.hpp"
#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// Transposes, in place, each of the A tiles of B x C elements that start `offset`
// elements into `buffer`, after `wait`; returns the kernel's event. Every tile (times
// tiles_per_group) must fit the device's local memory. `zero`, when given: words (offset
// and bytes multiples of 4) of another buffer that the kernel zeroes on the way (the
// flags of the call's next kernel, or of its earlier ones). Throws ipt::Error (IPT_OUT_OF_RESOURCES
// with nothing enqueued when the launch cannot fit the device).
cl::Event enqueue_bs_010(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                         std::size_t elem_size, const planner::BsConfig& config,
                         const std::vector<cl::Event>& wait, const ScratchRegion* zero = nullptr);

}  // namespace ipt::runtime
