// A zeroed region of device scratch that a kernel uses for its flags and counters,
// addressed as (buffer, byte offset) rather than as a sub-buffer. On NVIDIA's driver (580,
// H200 and H100) releasing a sub-buffer that a queued kernel uses blocked the host until
// the GPU had run it (probe: 290 us for a kernel of 130 us), so a call that cut its one
// scratch buffer into sub-buffers waited for its own kernels when it returned.
#pragma once

#include <cstdint>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

struct ScratchRegion {
  cl::Buffer buffer;
  std::uint64_t offset = 0;  // bytes from the start of `buffer`; a multiple of 16
  std::uint64_t bytes = 0;   // 0: no region
  bool empty() const { return bytes == 0; }
  // What a launcher's optional `given` scratch argument takes: this region, or none.
  const ScratchRegion* or_null() const { return empty() ? nullptr : this; }
};

}  // namespace ipt::runtime
