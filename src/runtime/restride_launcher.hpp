// Enqueues the in-place row re-stride (kernels/restride.cl): padding a matrix's rows
// from stride s_in to a larger s_out, or unpadding to a smaller one.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/elementary_configs.hpp"
#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// Moves `rows` rows of `len` elements that start `offset` elements into `buffer` from
// stride s_in to stride s_out (both >= len), in place, after `wait`; returns the kernel's
// event. Elements between the rows at the new stride keep whatever they held. The buffer
// must hold offset + rows * max(s_in, s_out) elements (the caller checks). Scratch: a
// counter and one int per chunk (planner::restride_scratch_bytes), the region
// `zeroed_scratch` when given (zeroed before `wait` completes), else allocated and zeroed
// here and released when the kernel completes. Throws
// ipt::Error (IPT_OUT_OF_RESOURCES, nothing enqueued, when the device cannot run it).
cl::Event enqueue_restride(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           std::uint64_t offset, std::uint64_t rows, std::uint64_t len,
                           std::uint64_t s_in, std::uint64_t s_out, std::size_t elem_size,
                           const planner::RestrideConfig& config,
                           const std::vector<cl::Event>& wait,
                           const ScratchRegion* zeroed_scratch = nullptr);

}  // namespace ipt::runtime
