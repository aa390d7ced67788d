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

}  // namespace ipt::runtime
