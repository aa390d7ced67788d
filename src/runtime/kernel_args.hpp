// Small helpers shared by the kernel launchers: the -D options every kernel family
// takes (kernels/common.cl) and index arguments sized to the kernel's idx_t.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

inline std::string element_options(std::size_t elem_size, bool index64) {
  return "-DIPT_ELEM_BYTES=" + std::to_string(elem_size) +
         " -DIPT_INDEX_64=" + (index64 ? "1" : "0");
}

// Sets an idx_t argument: cl_ulong for 64-bit kernels, cl_uint otherwise (the planner
// picks 32-bit indices only when every index fits).
inline void set_index_arg(cl::Kernel& kernel, cl_uint index, bool index64, std::uint64_t value) {
  if (index64)
    kernel.setArg(index, static_cast<cl_ulong>(value));
  else
    kernel.setArg(index, static_cast<cl_uint>(value));
}

// Sets the (skip, skip_word) pair of a kernel that may follow an on-chip attempt
// (IPT_RETURN_IF_DONE in kernels/common.cl): the attempt's decision word, or NULL.
inline void set_skip_args(cl::Kernel& kernel, cl_uint index, const ScratchRegion* skip) {
  kernel.setArg(index, skip != nullptr ? skip->buffer : cl::Buffer());
  kernel.setArg(index + 1, cl_ulong{skip != nullptr ? skip->offset / 4 : 0});
}

}  // namespace ipt::runtime
