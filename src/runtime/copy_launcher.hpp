// Enqueues the element copy between two buffers (kernels/copy.cl).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// Copies `count` elements of `elem_size` bytes from element `src_offset` of `src` to
// element `dst_offset` of `dst` (the ranges must not overlap) after `wait`, and, in the
// same command, zeroes the region `zero` when given (overlapping neither range; its
// offset and size multiples of 4 bytes). With `dry_run` it only builds and checks the
// kernel (no event); without `event` it returns none (see event_slot). The caller checks
// that the buffers hold the ranges. Throws ipt::Error.
cl::Event enqueue_copy(const cl::CommandQueue& queue, const cl::Buffer& src,
                       std::uint64_t src_offset, const cl::Buffer& dst, std::uint64_t dst_offset,
                       std::uint64_t count, std::size_t elem_size,
                       const std::vector<cl::Event>& wait, bool dry_run = false, bool event = true,
                       const ScratchRegion* zero = nullptr);

}  // namespace ipt::runtime
