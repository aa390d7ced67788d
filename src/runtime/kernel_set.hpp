// SPDX-License-Identifier: Apache-2.0
// Programs built together: a call's own (the steps of its plan), and the kernel programs
// of an element size (planner/kernel_variants.hpp), which ipt_warmup builds so that no
// later call of a new shape waits for the compiler.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/device_profile.hpp"
#include "planner/kernel_variants.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Builds every program of `variants` not built yet for `device` in `context` (the program
// cache keeps them), several at once where there are several, and returns when all are
// built. Throws the first failure (ipt::Error). Measured on NVIDIA's driver, front ends
// (source to PTX) ran side by side but its translation of PTX to machine code, most of a
// build when its compute cache is cold, ran one at a time: 47 programs took 11.2 s on one
// thread, 7.3 s on 16.
void build_programs(const cl::Context& context, const cl::Device& device,
                    const std::vector<planner::KernelVariant>& variants);

// build_programs of kernel_variants(profile, elem_size, index64).
void build_kernel_set(const cl::Context& context, const cl::Device& device,
                      const planner::DeviceProfile& profile, std::size_t elem_size, bool index64);

// Whether a call's first use of an element size builds its whole set (build_kernel_set)
// rather than only the programs its plan launches: only when IPT_KERNEL_SET=all (and
// sources are not read from IPT_KERNEL_DIR). A call builds what it launches: on a machine
// whose driver cache is cold, the whole f32 set took an H200 8.6 s, a plan's own programs
// 0.1-1.1 s.
bool builds_whole_set();

// The set of `elem_size` at the index width a plan needs, once per (context, device,
// element size, width) in a process; nothing when builds_whole_set is false. A failed
// build is left to the call that launches that program, if any, to report.
void ensure_kernel_set(const cl::Context& context, const cl::Device& device,
                       const planner::DeviceProfile& profile, std::size_t elem_size, bool index64);

// Forgets which sets were built (ipt_clear_cache drops the programs themselves).
void clear_kernel_sets();

}  // namespace ipt::runtime
