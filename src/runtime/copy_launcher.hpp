// Enqueues the element copy between two buffers (kernels/copy.cl).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Copies `count` elements of `elem_size` bytes from element `src_offset` of `src` to
// element `dst_offset` of `dst` (the ranges must not overlap) after `wait`. With
// `dry_run` it only builds and checks the kernel (no event); without `event` it returns
// none (see event_slot). The caller checks that both buffers hold the ranges. Throws
// ipt::Error.
cl::Event enqueue_copy(const cl::CommandQueue& queue, const cl::Buffer& src,
                       std::uint64_t src_offset, const cl::Buffer& dst, std::uint64_t dst_offset,
                       std::uint64_t count, std::size_t elem_size,
                       const std::vector<cl::Event>& wait, bool dry_run = false, bool event = true);

}  // namespace ipt::runtime
