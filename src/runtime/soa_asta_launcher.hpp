// Enqueues 100! / 0100! / 1000! by cycle following over super-elements with done-flags in
// global memory (kernels/soa_asta.cl).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/elementary_configs.hpp"
#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// 0100!: (I, A, B, C) -> (I, B, A, C), I independent instances, the array starting
// `offset` elements into `buffer`. Needs ceil(I*K*A*B / 32) + 1 zeroed words of flags and
// start counter (K = chunks per super-element; planner::soa_launch_flag_bytes): those of
// the region `zeroed_flags` when given (zeroed before `wait` completes), else a buffer
// allocated and zeroed here with clEnqueueFillBuffer and released when the kernel
// completes; nothing blocks the host.
// Throws ipt::Error (IPT_OUT_OF_RESOURCES, nothing enqueued, when config.chunk exceeds
// what a unit can hold or the work-group does not fit the compiled kernel).
cl::Event enqueue_soa_0100(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           std::uint64_t offset, std::uint64_t I, std::uint64_t A, std::uint64_t B,
                           std::uint64_t C, std::size_t elem_size, const planner::SoaConfig& config,
                           const std::vector<cl::Event>& wait,
                           const ScratchRegion* zeroed_flags = nullptr);

// 100!: (A, B, C) -> (B, A, C).
cl::Event enqueue_soa_100(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                          std::uint64_t offset, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                          std::size_t elem_size, const planner::SoaConfig& config,
                          const std::vector<cl::Event>& wait);

// 1000!: (A, B, C, D) -> (B, A, C, D), i.e. 100! with super-elements of C*D elements.
cl::Event enqueue_soa_1000(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           std::uint64_t offset, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                           std::uint64_t D, std::size_t elem_size, const planner::SoaConfig& config,
                           const std::vector<cl::Event>& wait);

}  // namespace ipt::runtime
