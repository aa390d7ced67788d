// SPDX-License-Identifier: Apache-2.0
// Words of 0xA5 bytes for the kernels that zero words of scratch on the way (copy, BS,
// on-chip): a step names region(), the run binds buffer() through options(); afterwards
// the region must be all zero and every byte around it as it was.
//
// The region lies in the zero scratch: a run of steps alone zeroes every region of the
// call scratch that its steps name before the first (planner::plan_of_steps), which would
// clear the words before the kernel could, while a zero scratch the caller binds is never
// filled. The kernels do not tell the two apart.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/launch_plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"

namespace ipt::test {

class WordsToZero {
 public:
  WordsToZero(const cl::CommandQueue& queue, std::uint64_t words)
      : total_(kBefore + words * 4 + kAfter),
        region_{planner::Buffer::kZeroScratch, kBefore, words * 4},
        buffer_(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                static_cast<std::size_t>(total_)) {
    queue.enqueueFillBuffer(buffer_, cl_uchar{0xa5}, 0, static_cast<std::size_t>(total_));
  }
  const planner::Region& region() const { return region_; }
  runtime::EnqueueOptions options() const {
    runtime::EnqueueOptions options;
    options.zero_scratch = &buffer_;
    return options;
  }
  // Bytes that are not as they should be: zero inside the region, 0xA5 around it.
  std::size_t wrong_bytes(const cl::CommandQueue& queue) const {
    std::vector<unsigned char> now(static_cast<std::size_t>(total_));
    queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, now.size(), now.data());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < now.size(); ++i) {
      const bool inside = i >= region_.offset && i < region_.offset + region_.bytes;
      if (now[i] != (inside ? 0 : 0xa5)) ++wrong;
    }
    return wrong;
  }

 private:
  static constexpr std::uint64_t kBefore = 128, kAfter = 64;
  std::uint64_t total_;
  planner::Region region_;
  cl::Buffer buffer_;
};

}  // namespace ipt::test
