// SPDX-License-Identifier: Apache-2.0
// The kernel programs of an element size, built together (planner/kernel_variants.hpp):
// by ipt_warmup, and by the first call of an element size on a GPU, so that no later
// call of a new shape waits for the compiler.
#pragma once

#include <cstddef>

#include "planner/device_profile.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Builds, on several threads at once, every program of kernel_variants(profile,
// elem_size, index64) not built yet for `device` in `context` (the program cache keeps
// them), and returns when all are built. Throws the first failure (ipt::Error).
void build_kernel_set(const cl::Context& context, const cl::Device& device,
                      const planner::DeviceProfile& profile, std::size_t elem_size, bool index64);

// Whether a call's first use of an element size builds its whole set (build_kernel_set)
// rather than only the programs its plan launches: on GPUs and accelerators, where a
// program takes 0.1-1.4 s to build and the set builds on many threads at once; not on CPU
// devices (PoCL), where a build takes as long and the threads are the device's own, nor
// while sources are read from IPT_KERNEL_DIR (kernel development). IPT_KERNEL_SET=all|used
// decides instead when set.
bool builds_whole_set(const cl::Device& device);

// The set of `elem_size` at the index width a plan needs, once per (context, device,
// element size, width) in a process; nothing when builds_whole_set is false. A failed
// build is left to the call that launches that program, if any, to report.
void ensure_kernel_set(const cl::Context& context, const cl::Device& device,
                       const planner::DeviceProfile& profile, std::size_t elem_size, bool index64);

// Forgets which sets were built (ipt_clear_cache drops the programs themselves).
void clear_kernel_sets();

}  // namespace ipt::runtime
