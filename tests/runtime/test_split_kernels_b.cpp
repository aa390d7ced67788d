// SPDX-License-Identifier: Apache-2.0
// Split-matrix variants of the kernels (IPT_SPLIT, kernels/common.cl): SoA-ASTA, the
// square kernel and the on-chip kernel run alone on a matrix whose first `split` elements
// are in a buffer of exactly offset + split elements and the rest in call scratch
// (split_check.hpp), at split points that fall on the first element, a super-element,
// tile or instance boundary, inside one, the middle and the last element.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "helpers/split_check.hpp"
#include "helpers/step_check.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/families/square.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"
#include "support/random_data.hpp"
#include "support/step_run.hpp"

using ipt::planner::Buffer;
using ipt::planner::Region;
using ipt::planner::StepSite;
using ipt::test::after_tail;
using ipt::test::check_split_step;
using ipt::test::session;
using ipt::test::split_points;
using ipt::test::split_site;

namespace {

constexpr std::uint64_t kOffset = 3;

ipt::planner::SoaConfig soa_config(std::size_t vw, std::size_t units, std::size_t regs,
                                   bool index64) {
  ipt::planner::SoaConfig config;
  config.vw = vw;
  config.units = units;
  config.regs = regs;
  config.max_groups = 3;  // few groups: long chains that cross the split many times
  config.force_index64 = index64;
  return config;
}

std::string run_soa(const std::array<std::uint64_t, 4>& shape, std::size_t elem_size,
                    const ipt::planner::SoaConfig& config, std::uint64_t split,
                    std::uint64_t seed) {
  const auto [I, A, B, C] = shape;
  const std::uint64_t elements = I * A * B * C;
  const StepSite site = split_site(elem_size, kOffset, split, elements, config.force_index64);
  // The flags after the tail: built once where the step puts them, to learn their size.
  const auto sized = ipt::planner::soa_step(site, I, A, B, C, config);
  const auto step =
      ipt::planner::soa_step(site, I, A, B, C, config, after_tail(site, sized.flags.bytes));
  if (step.index64 != config.force_index64) return "wrong index width";
  if (step.options.find("-DIPT_SPLIT=1") == std::string::npos) return "built without the split";
  return check_split_step(step, site, elements, seed);
}

// The on-chip kernel on a split matrix, with a zero scratch of the test's (all zero before,
// checked all zero after) and its report: split_check.hpp's runner binds neither. Returns
// the way the kernel went (1: one pass, 2: cycle following). `block`: the blocks the
// step must move (1: none), the matrix `offset` elements into its buffer.
cl_uint run_onchip(std::uint64_t instances, std::uint64_t rows, std::uint64_t cols,
                   std::size_t elem_size, const ipt::planner::OnChipConfig& config, bool give_up,
                   std::uint64_t split, std::uint64_t seed, std::uint64_t block = 1,
                   std::uint64_t offset = kOffset, bool cycles_only = false) {
  const std::uint64_t elements = instances * rows * cols;
  const StepSite site = split_site(elem_size, offset, split, elements);
  // Words of call scratch after the tail for the kernel to zero on the way, checked
  // zeroed exactly: zeroing on the way must not disturb the split matrix. (The cycle
  // following alone, an undo's step, zeroes none.)
  auto step = cycles_only ? ipt::planner::onchip_cycles_step(site, instances, rows, cols, config)
                          : ipt::planner::onchip_step(site, instances, rows, cols, config, {},
                                                      after_tail(site, 64), give_up);
  REQUIRE(step.options.find("-DIPT_SPLIT=1") != std::string::npos);
  REQUIRE((step.options.find("-DIPT_CYCLES_ONLY=1") != std::string::npos) == cycles_only);
  REQUIRE(step.touches == split);
  const std::string blocks = block > 1 ? "-DIPT_BLOCK=" + std::to_string(block) + " " : "";
  REQUIRE((step.options.find("-DIPT_BLOCK=") != std::string::npos) == (block > 1));
  REQUIRE(step.options.find(blocks) != std::string::npos);

  // Neighbours in the move's rows differ (equal 1-byte ones would hide a misplaced element).
  std::vector<unsigned char> logical =
      ipt::support::random_bytes(static_cast<std::size_t>(elements * elem_size), seed);
  ipt::support::separate_neighbours(logical.data(), static_cast<std::size_t>(elements), elem_size,
                                    static_cast<std::size_t>(ipt::test::row_length_of(step.move)));
  const std::vector<unsigned char> expected =
      ipt::support::reference_of(logical, step.move, elem_size);
  const std::size_t before = offset * elem_size, head = split * elem_size;
  std::vector<unsigned char> initial = ipt::support::random_bytes(before, seed ^ 0x5eedu);
  initial.insert(initial.end(), logical.begin(), logical.begin() + head);
  const std::size_t tail_at = site.tail.offset, tail_bytes = site.tail.bytes;
  const std::size_t zeroed_at = step.zeroes.offset, zeroed = step.zeroes.bytes;
  const std::size_t scratch_bytes = std::max(zeroed_at + zeroed, tail_at + tail_bytes) + 128;
  std::vector<unsigned char> scratch_initial(scratch_bytes, 0xA5);
  std::copy(logical.begin() + head, logical.end(), scratch_initial.begin() + tail_at);
  const std::size_t zero_bytes = step.flags.offset + step.flags.bytes + 64;

  const cl::Context context(session().context(), true);
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, initial.size(),
                          initial.data());
  const cl::Buffer scratch(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, scratch_bytes,
                           scratch_initial.data());
  const cl::Buffer zero_scratch(context, CL_MEM_READ_WRITE, zero_bytes);
  queue.enqueueFillBuffer(zero_scratch, cl_uchar{0}, 0, zero_bytes);
  const cl::Buffer report(context, CL_MEM_READ_WRITE, 4);
  queue.enqueueFillBuffer(report, cl_uint{0}, 0, 4);
  ipt::runtime::EnqueueOptions options;
  options.scratch = &scratch;
  options.zero_scratch = &zero_scratch;
  options.report = &report;
  ipt::support::run_steps(queue, buffer, {step}, elem_size, offset, {}, options).wait();

  std::vector<unsigned char> buffer_now(initial.size()), scratch_now(scratch_bytes),
      zero_now(zero_bytes);
  cl_uint decision = 0;
  queue.enqueueReadBuffer(buffer, CL_TRUE, 0, buffer_now.size(), buffer_now.data());
  queue.enqueueReadBuffer(scratch, CL_TRUE, 0, scratch_bytes, scratch_now.data());
  queue.enqueueReadBuffer(zero_scratch, CL_TRUE, 0, zero_bytes, zero_now.data());
  queue.enqueueReadBuffer(report, CL_TRUE, 0, 4, &decision);
  INFO(instances << " x (" << rows << " x " << cols << "), elem_size " << elem_size << ", "
                 << config.groups << " groups of " << config.work_group << ", split " << split
                 << ", decision " << decision);
  CHECK(std::equal(initial.begin(), initial.begin() + before, buffer_now.begin()));
  std::vector<unsigned char> now(buffer_now.begin() + before, buffer_now.end());
  now.insert(now.end(), scratch_now.begin() + tail_at, scratch_now.begin() + tail_at + tail_bytes);
  std::size_t wrong = 0;
  for (std::size_t e = 0; e < elements; ++e)
    wrong += !std::equal(expected.begin() + e * elem_size, expected.begin() + (e + 1) * elem_size,
                         now.begin() + e * elem_size);
  CHECK(wrong == 0);
  // Call scratch: the tail as checked above, the words to zero zeroed, nothing else touched.
  std::size_t changed = 0, not_zeroed = 0;
  for (std::size_t b = 0; b < scratch_bytes; ++b) {
    if (b >= tail_at && b < tail_at + tail_bytes) continue;
    if (b >= zeroed_at && b < zeroed_at + zeroed)
      not_zeroed += scratch_now[b] != 0;
    else
      changed += scratch_now[b] != 0xA5;
  }
  CHECK(changed == 0);
  CHECK(not_zeroed == 0);
  // Its zero scratch is zero again.
  CHECK(std::all_of(zero_now.begin(), zero_now.end(), [](unsigned char b) { return b == 0; }));
  REQUIRE((decision == 1 || decision == 2));
  return decision;
}

}  // namespace

TEST_CASE("SoA-ASTA on a split matrix", "[split][soa]") {
  std::uint64_t seed = 70000;
  // (I, A, B, C): 100!, 0100!, and a C of many chunks (the chunk below).
  const std::vector<std::array<std::uint64_t, 4>> shapes{{1, 7, 5, 3}, {3, 4, 6, 5}, {1, 5, 9, 23}};
  for (bool index64 : {false, true})
    for (std::size_t elem_size : {1, 4, 8, 16})
      for (std::size_t regs : {0, 2}) {
        // Register tiling: units of 4 lanes holding 8 elements; local: 8 lanes.
        auto config = regs > 0 ? soa_config(4, 8, regs, index64) : soa_config(8, 4, 0, index64);
        for (const auto& shape : shapes) {
          const auto [I, A, B, C] = shape;
          config.chunk = C == 23 ? 5 : 0;  // 23 = 4 chunks of 5 and one of 3
          const std::uint64_t elements = I * A * B * C;
          // A super-element boundary, one inside a super-element (a chunk boundary where
          // chunked), an instance boundary.
          for (std::uint64_t split :
               split_points(elements, {C, 2 * C + (C == 23 ? 5 : 1), A * B * C + C})) {
            INFO("shape " << I << "x" << A << "x" << B << "x" << C << " elem " << elem_size
                          << " regs " << regs << " idx64 " << index64 << " split " << split);
            CHECK(run_soa(shape, elem_size, config, split, ++seed) == "");
          }
        }
      }
}

TEST_CASE("square kernel on a split matrix", "[split][square]") {
  std::uint64_t seed = 71000;
  // n = 1 has no split point (a split lies strictly inside the matrix).
  const std::uint64_t sizes[] = {2, 7, 16, 17, 33, 64, 65, 100, 130};
  for (std::size_t tile : {16, 32, 64})
    for (std::size_t elem_size : {1, 4, 16}) {
      if (ipt::planner::square_local_bytes(tile, elem_size) > ipt::test::device_local_mem())
        continue;  // two tiles of this size do not fit the device's local memory
      for (std::uint64_t n : sizes) {
        ipt::planner::SquarePlan plan;
        plan.tile = tile;
        plan.wg_rows = 4;
        plan = ipt::planner::complete_square_plan(plan, n, 3);  // several grid rows
        const std::uint64_t elements = n * n;
        // A tile row's end, a point inside a tile, a tile's column boundary in row 0.
        for (std::uint64_t split :
             split_points(elements, {tile * n, tile * n + tile / 2 + 1, tile})) {
          const bool index64 = split == elements / 2 && n == 130;  // one of each width
          const StepSite site = split_site(elem_size, kOffset, split, elements, index64);
          const auto step = ipt::planner::square_step(site, n, plan);
          INFO("tile " << tile << " elem " << elem_size << " n " << n << " split " << split
                       << " idx64 " << index64);
          REQUIRE(step.index64 == index64);
          CHECK(check_split_step(step, site, elements, ++seed) == "");
        }
      }
    }
}

TEST_CASE("on-chip kernel on a split matrix", "[split][onchip]") {
  std::uint64_t seed = 72000;
  for (std::size_t elem_size : {1, 4, 16}) {  // 1: word tiles
    // A GPU-like group of 256 on one compute unit, as tests/runtime/test_onchip*.cpp use.
    ipt::planner::DeviceProfile profile = ipt::test::one_unit(256);
    auto config = ipt::planner::choose_onchip(profile, elem_size);
    REQUIRE(config.work_group == 256);
    // Sides of 32 or more: tiles of 32 x 32, one program per element size. As many tiles
    // as one group holds (16-byte elements: fewer).
    std::uint64_t rows = 45, cols = 40;
    if (!ipt::planner::onchip_fits(config, rows, cols)) rows = 32;
    if (!ipt::planner::onchip_fits(config, rows, cols)) cols = 32;
    REQUIRE(ipt::planner::onchip_fits(config, rows, cols));
    const std::uint64_t area = rows * cols;
    for (std::uint64_t instances : {std::uint64_t{1}, std::uint64_t{5}}) {
      const std::uint64_t elements = instances * area;
      // An instance boundary, a tile row's end, a tile's column boundary.
      for (std::uint64_t split : split_points(elements, {area, 32 * cols, 32, 2 * area + 17})) {
        config.groups = 1;  // one group never waits for another: one pass
        CHECK(run_onchip(instances, rows, cols, elem_size, config, false, split, ++seed) == 1);
        CHECK(run_onchip(instances, rows, cols, elem_size, config, true, split, ++seed) == 2);
        config.groups = 3;  // a CPU device may not run them at once: either way is right
        run_onchip(instances, rows, cols, elem_size, config, false, split, ++seed);
      }
    }
  }
}

TEST_CASE("the on-chip kernel's cycle following alone on a split matrix", "[split][onchip]") {
  // An undo's step: any shape, the split at an instance boundary, inside a row and at the
  // first and last element.
  std::uint64_t seed = 72500;
  for (std::size_t elem_size : {1, 2, 8}) {
    auto config = ipt::planner::choose_onchip(ipt::test::one_unit(1024), elem_size);
    for (std::uint64_t groups : {1, 3}) {
      config.groups = groups;
      const std::uint64_t instances = 3, rows = 37, cols = 29, area = rows * cols;
      for (std::uint64_t split : split_points(instances * area, {area, cols + 5, 2 * area + 17}))
        CHECK(run_onchip(instances, rows, cols, elem_size, config, false, split, ++seed, 1, kOffset,
                         true) == 2);
    }
  }
}

TEST_CASE("on-chip kernel in blocks on a split matrix", "[split][onchip]") {
  // 1- and 2-byte elements keep their blocks (IPT_BLOCK) where the split falls on a word of
  // them and the tail starts on one: every word then lies on one side. Splits at the first
  // and last word, an instance boundary, a row of blocks' end and inside instances.
  std::uint64_t seed = 73000;
  struct Case {
    std::size_t elem_size;
    std::uint64_t rows, cols, block;
  };
  for (const Case& c : {Case{1, 64, 62, 4}, Case{1, 62, 40, 2}, Case{2, 40, 34, 2}}) {
    ipt::planner::OnChipConfig config =
        ipt::planner::choose_onchip(ipt::test::one_unit(256), c.elem_size);
    REQUIRE(config.blocks);
    config.groups = 1;
    REQUIRE(ipt::planner::onchip_fits(config, c.rows, c.cols));
    const std::uint64_t area = c.rows * c.cols, b = c.block;
    for (std::uint64_t instances : {std::uint64_t{1}, std::uint64_t{3}}) {
      const std::uint64_t elements = instances * area;
      for (std::uint64_t split :
           {b, area, b * c.cols, elements / 2 / b * b, elements - b, area + 7 * b}) {
        if (split == 0 || split >= elements) continue;
        const std::uint64_t offset = seed % 2 * b;  // 0 or a word in
        config.groups = 1;
        CHECK(run_onchip(instances, c.rows, c.cols, c.elem_size, config, false, split, ++seed, b,
                         offset) == 1);
        CHECK(run_onchip(instances, c.rows, c.cols, c.elem_size, config, true, split, ++seed, b,
                         offset) == 2);
        config.groups = 3;  // a CPU device may not run them at once: either way is right
        run_onchip(instances, c.rows, c.cols, c.elem_size, config, false, split, ++seed, b, offset);
      }
    }
  }
}

TEST_CASE("the probe of a split on-chip program in blocks keeps its block in its own buffer",
          "[split][onchip]") {
  // The probe runs a step's program on a matrix of one block, in a buffer of its own, with
  // the split arguments pointing at the zero scratch that holds the kernel's barrier words:
  // the split must lie past the block's words, or the block's loads and stores would read
  // and overwrite those words. The probe transposes the block in its buffer.
  std::uint64_t seed = 74000;
  struct Case {
    std::size_t elem_size;
    std::uint64_t rows, cols, block;
  };
  for (const Case& c : {Case{1, 64, 64, 4}, Case{1, 62, 40, 2}, Case{2, 40, 34, 2}}) {
    const auto config = ipt::planner::choose_onchip(ipt::test::one_unit(256), c.elem_size);
    const StepSite site = split_site(c.elem_size, 0, c.block * c.cols, c.rows * c.cols);
    const auto step = ipt::planner::onchip_step(site, 1, c.rows, c.cols, config);
    REQUIRE(step.options.find("-DIPT_BLOCK=" + std::to_string(c.block) + " ") != std::string::npos);
    REQUIRE(step.options.find("-DIPT_SPLIT=1") != std::string::npos);
    const auto probe = ipt::planner::onchip_probe_step(step, ipt::planner::ProbeGroups::kOne);
    INFO(probe.options);

    const std::size_t bytes = ipt::planner::kOnChipProbeBytes;
    const std::vector<unsigned char> before = ipt::support::random_bytes(bytes, ++seed);
    // Its block's transpose, in the block's first c.block * c.block elements.
    std::vector<unsigned char> expected = before;
    const std::size_t b = c.block, e = c.elem_size;
    for (std::size_t r = 0; r < b; ++r)
      for (std::size_t k = 0; k < b; ++k)
        std::copy_n(before.begin() + (r * b + k) * e, e, expected.begin() + (k * b + r) * e);
    const cl::Context context(session().context(), true);
    const cl::CommandQueue queue(session().queue(), true);
    const cl::Buffer one(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                         const_cast<unsigned char*>(before.data()));
    const cl::Buffer zero_scratch(context, CL_MEM_READ_WRITE, probe.flags.bytes);
    queue.enqueueFillBuffer(zero_scratch, cl_uchar{0}, 0, probe.flags.bytes);
    const cl::Buffer report(context, CL_MEM_READ_WRITE, 4);
    queue.enqueueFillBuffer(report, cl_uint{0}, 0, 4);
    ipt::runtime::EnqueueOptions options;
    options.zero_scratch = &zero_scratch;
    options.report = &report;
    ipt::support::run_steps(queue, one, {probe}, c.elem_size, 0, {}, options).wait();
    std::vector<unsigned char> after(bytes);
    cl_uint decision = 0;
    queue.enqueueReadBuffer(one, CL_TRUE, 0, bytes, after.data());
    queue.enqueueReadBuffer(report, CL_TRUE, 0, 4, &decision);
    CHECK(decision == ipt::planner::kOnChipAllResident);
    CHECK(after == expected);
  }
}
