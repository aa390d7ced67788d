// SPDX-License-Identifier: Apache-2.0
#include "helpers/onchip_kernel_run.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "helpers/step_check.hpp"
#include "helpers/test_support.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"

namespace ipt::test {

cl_uint run_onchip_kernel(std::size_t instances, std::size_t rows, std::size_t cols,
                          std::size_t elem_size, const ipt::planner::OnChipConfig& config,
                          bool give_up, std::uint64_t seed, bool cycles_only) {
  using ipt::planner::Buffer;
  const std::size_t offset = seed % 5;
  const cl::CommandQueue queue(session().queue(), true);
  const auto context = queue.getInfo<CL_QUEUE_CONTEXT>();
  // One zero scratch, as a call's: the kernel's scratch 16 bytes in, zero bytes around it,
  // then, from `dirty` on, 160 bytes of 0xA5 of which it must zero words 3 to 36 (an
  // earlier kernel's flags that the call's last kernel clears).
  const std::size_t bytes = ipt::planner::onchip_scratch_bytes(config, elem_size);
  const std::size_t lead = 16, trail = 64, dirty = (lead + bytes + trail + 15) / 16 * 16;
  const std::size_t total = dirty + 160, zeroed_at = dirty + 12, zeroed = cycles_only ? 0 : 34 * 4;
  const cl::Buffer zero_scratch(context, CL_MEM_READ_WRITE, total);
  queue.enqueueFillBuffer(zero_scratch, cl_uchar{0}, 0, dirty);
  queue.enqueueFillBuffer(zero_scratch, cl_uchar{0xA5}, dirty, 160);
  const cl::Buffer report(context, CL_MEM_READ_WRITE, 4);
  queue.enqueueFillBuffer(report, cl_uint{0}, 0, 4);
  const auto site = site_of(elem_size, offset);
  const ipt::planner::Region scratch{Buffer::kZeroScratch, lead, bytes};
  const auto step =
      cycles_only ? ipt::planner::onchip_cycles_step(site, instances, rows, cols, config, scratch)
                  : ipt::planner::onchip_step(site, instances, rows, cols, config, scratch,
                                              {Buffer::kZeroScratch, zeroed_at, zeroed}, give_up);
  REQUIRE((step.options.find("-DIPT_CYCLES_ONLY=1") != std::string::npos) == cycles_only);
  ipt::runtime::EnqueueOptions options;
  options.zero_scratch = &zero_scratch;
  options.report = &report;
  const std::string result =
      check_step(step, site, instances * rows * cols, 3 * elem_size + 1, seed, options);
  cl_uint decision = 0;
  queue.enqueueReadBuffer(report, CL_TRUE, 0, 4, &decision);
  INFO(instances << " x (" << rows << " x " << cols << "), elem_size " << elem_size << ", "
                 << config.groups << " groups of " << config.work_group << ", decision "
                 << decision);
  CHECK(result == "");
  REQUIRE((decision == 1 || decision == 2));
  // Its scratch is zero again (the next kernel given it needs it so), nothing around it
  // touched; exactly the words asked for are zeroed.
  std::vector<unsigned char> left(total);
  queue.enqueueReadBuffer(zero_scratch, CL_TRUE, 0, left.size(), left.data());
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < dirty; ++i) nonzero += left[i] != 0;
  CHECK(nonzero == 0);
  for (std::size_t i = dirty; i < total; ++i) {
    INFO("byte " << i - dirty << " of the words around those to zero");
    CHECK(left[i] == (i >= zeroed_at && i < zeroed_at + zeroed ? 0 : 0xA5));
  }
  return decision;
}

}  // namespace ipt::test
