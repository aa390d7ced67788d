// SPDX-License-Identifier: Apache-2.0
// Single kernel steps as the kernel tests and ipt-kernel-bench run them: the planner's
// step builders describe a launch (planner/launch_plan.hpp), the executor runs it alone,
// and the step's own Move gives its host reference. One description per operation, for
// tests and benchmarks alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "planner/launch_plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"

namespace ipt::support {

// The elements `move` reads and writes once each: a kPermute move's view (a part of a
// stage in two kernels: its own instances), a kRestride move's rows, a kCopy's count.
// A step's throughput is 2 * this * elem_size / time.
std::uint64_t moved_elements(const planner::Move& move);

// The bytes of a matrix buffer (from the matrix's start) after `move`, bit-exact: the
// permutation of a kPermute move (support/host_reference.hpp); a kRestride move's rows at
// their new stride, the gaps between them as they were in `in`. `in` must hold every
// element the move touches. Copies (which involve scratch) are not modelled here.
std::vector<unsigned char> reference_of(const std::vector<unsigned char>& in,
                                        const planner::Move& move, std::size_t elem_size);

// Prepares and enqueues `steps` alone (planner::plan_of_steps: noops dropped, their
// scratch zeroed by a fill) on `queue` over `buffer`, after `wait`; returns the plan's
// last event. Throws ipt::Error as a call would (IPT_OUT_OF_RESOURCES for a launch the
// device refuses, with nothing enqueued). Prepares on every call: timed loops prepare
// once (runtime::prepare_plan) and only enqueue. The step builders themselves throw
// std::invalid_argument (a config that makes no sense) or planner::ResourceError.
cl::Event run_steps(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                    std::vector<planner::Step> steps, std::size_t elem_size, std::uint64_t offset,
                    const std::vector<cl::Event>& wait = {},
                    const runtime::EnqueueOptions& options = {});

}  // namespace ipt::support
