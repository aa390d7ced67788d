// Enqueues 010! (A, B, C) -> (A, C, B) by PTTWAC cycle following (kernels/pttwac.cl).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/elementary_configs.hpp"
#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// Transposes each of the A tiles of B x C elements in place, after `wait`. With
// config.global_flags (the planner sets it when a tile's flags do not fit local memory)
// it runs 0100! on (A, B, C, 1): one flag bit per element in global memory, no size
// limit, slower. Throws ipt::Error: IPT_INVALID_VALUE for a spreading factor that is not
// 1, 2, 4, 8, 16 or 32; IPT_OUT_OF_RESOURCES (nothing enqueued) when the local flags do
// not fit the device. `zeroed_flags`: the global flags, zeroed, of
// planner::pttwac_launch_flag_bytes (NULL: allocated and zeroed here).
cl::Event enqueue_pttwac_010(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                             std::uint64_t offset, std::uint64_t A, std::uint64_t B,
                             std::uint64_t C, std::size_t elem_size,
                             const planner::PttwacConfig& config,
                             const std::vector<cl::Event>& wait,
                             const ScratchRegion* zeroed_flags = nullptr);

}  // namespace ipt::runtime
