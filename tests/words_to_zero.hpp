// A region of words in a buffer of 0xA5 bytes, for the kernels that zero the words of
// another buffer on the way (copy, BS): afterwards the region must be all zero and every
// byte around it as it was.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/opencl.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::test {

class WordsToZero {
 public:
  WordsToZero(const cl::CommandQueue& queue, std::uint64_t words)
      : total_(kBefore + words * 4 + kAfter) {
    region_ = {cl::Buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                          static_cast<std::size_t>(total_)),
               kBefore, words * 4};
    queue.enqueueFillBuffer(region_.buffer, cl_uchar{0xa5}, 0, static_cast<std::size_t>(total_));
  }
  const ipt::runtime::ScratchRegion* region() const { return &region_; }
  // Bytes that are not as they should be: zero inside the region, 0xA5 around it.
  std::size_t wrong_bytes(const cl::CommandQueue& queue) const {
    std::vector<unsigned char> now(static_cast<std::size_t>(total_));
    queue.enqueueReadBuffer(region_.buffer, CL_TRUE, 0, now.size(), now.data());
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
  ipt::runtime::ScratchRegion region_;
};

}  // namespace ipt::test
