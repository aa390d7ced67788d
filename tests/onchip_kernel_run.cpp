#include "onchip_kernel_run.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "runtime/onchip_launcher.hpp"
#include "runtime/opencl.hpp"
#include "support/host_reference.hpp"
#include "test_support.hpp"

namespace ipt::test {

cl_uint run_onchip_kernel(std::size_t instances, std::size_t rows, std::size_t cols,
                          std::size_t elem_size, const ipt::planner::OnChipConfig& config,
                          bool give_up, std::uint64_t seed) {
  const std::size_t offset = seed % 5;
  GuardedMatrix m(instances * rows, cols, elem_size, offset, 3 * elem_size + 1, seed);
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer buffer(m.buffer(), true);
  const auto context = queue.getInfo<CL_QUEUE_CONTEXT>();
  // The kernel's scratch, 16 bytes into a zeroed buffer, and 40 words of another buffer,
  // all 0xA5 bytes, of which it zeroes words 3 to 36.
  const std::size_t bytes = ipt::runtime::onchip_scratch_bytes(instances * rows * cols);
  const std::size_t lead = 16, trail = 64;
  ipt::runtime::ScratchRegion scratch{cl::Buffer(context, CL_MEM_READ_WRITE, lead + bytes + trail),
                                      lead, bytes};
  queue.enqueueFillBuffer(scratch.buffer, cl_uchar{0}, 0, lead + bytes + trail);
  ipt::runtime::ScratchRegion dirty{cl::Buffer(context, CL_MEM_READ_WRITE, 160), 12, 34 * 4};
  queue.enqueueFillBuffer(dirty.buffer, cl_uchar{0xA5}, 0, 160);
  ipt::runtime::ScratchRegion report{cl::Buffer(context, CL_MEM_READ_WRITE, 4), 0, 4};
  queue.enqueueFillBuffer(report.buffer, cl_uint{0}, 0, 4);
  ipt::runtime::OnChipLaunch launch;
  launch.give_up = give_up;
  launch.zero = &dirty;
  launch.report = &report;
  ipt::runtime::enqueue_onchip(queue, buffer, offset, instances, rows, cols, elem_size, config, {},
                               &scratch, launch)
      .wait();
  cl_uint decision = 0;
  queue.enqueueReadBuffer(report.buffer, CL_TRUE, 0, 4, &decision);
  INFO(instances << " x (" << rows << " x " << cols << "), elem_size " << elem_size << ", "
                 << config.groups << " groups of " << config.work_group << ", decision "
                 << decision);
  REQUIRE((decision == 1 || decision == 2));
  // Its scratch is zero again (the next kernel given it needs it so), nothing around it
  // touched; exactly the words asked for are zeroed in the other buffer.
  std::vector<unsigned char> left(lead + bytes + trail);
  queue.enqueueReadBuffer(scratch.buffer, CL_TRUE, 0, left.size(), left.data());
  std::size_t nonzero = 0;
  for (unsigned char b : left) nonzero += b != 0;
  CHECK(nonzero == 0);
  std::vector<unsigned char> other(160);
  queue.enqueueReadBuffer(dirty.buffer, CL_TRUE, 0, other.size(), other.data());
  for (std::size_t i = 0; i < other.size(); ++i) {
    INFO("byte " << i << " of the buffer with words to zero");
    CHECK(other[i] == (i >= 12 && i < 12 + 34 * 4 ? 0 : 0xA5));
  }
  CHECK(m.check_holds(ipt::support::permute_0100(m.matrix_before(), instances, rows, cols, 1,
                                                 elem_size)) == "");
  return decision;
}

}  // namespace ipt::test
