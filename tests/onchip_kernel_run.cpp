#include "onchip_kernel_run.hpp"

#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>

#include "runtime/onchip_launcher.hpp"
#include "runtime/opencl.hpp"
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
  ipt::runtime::ScratchRegion sync{cl::Buffer(context, CL_MEM_READ_WRITE, 64), 32,
                                   ipt::runtime::kOnChipSyncBytes};
  queue.enqueueFillBuffer(sync.buffer, cl_uint{0}, 0, 64);
  ipt::runtime::OnChipLaunch launch;
  launch.give_up = give_up;
  ipt::runtime::enqueue_onchip(queue, buffer, offset, instances, rows, cols, elem_size, config, {},
                               &sync, launch)
      .wait();
  cl_uint words[16] = {};
  queue.enqueueReadBuffer(sync.buffer, CL_TRUE, 0, 64, words);
  const cl_uint decision = words[8 + 1];
  INFO(instances << " x (" << rows << " x " << cols << "), elem_size " << elem_size << ", "
                 << config.groups << " groups of " << config.work_group << ", decision "
                 << decision);
  REQUIRE((decision == 1 || decision == 2));
  // Every group took a ticket (the count, under the CLOSED bit), or left after the close.
  CHECK((words[8] & 0x80000000u) != 0);
  if (decision == 2) {
    CHECK(m.check_unchanged() == "");
    return decision;
  }
  const auto before = m.initial();
  const auto now = m.read_all();
  REQUIRE(before.size() == now.size());
  const std::size_t start = offset * elem_size, end = start + instances * rows * cols * elem_size;
  CHECK(std::memcmp(before.data(), now.data(), start) == 0);
  CHECK(std::memcmp(before.data() + end, now.data() + end, before.size() - end) == 0);
  std::size_t wrong = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < instances; ++i)
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) {
        const std::size_t base = start + i * rows * cols * elem_size;
        const std::size_t from = base + (r * cols + c) * elem_size;
        const std::size_t to = base + (c * rows + r) * elem_size;
        if (std::memcmp(before.data() + from, now.data() + to, elem_size) != 0 && wrong++ == 0)
          first << "instance " << i << " element (" << r << ", " << c << ")";
      }
  INFO("first wrong: " << first.str());
  CHECK(wrong == 0);
  return decision;
}

}  // namespace ipt::test
