// SPDX-License-Identifier: Apache-2.0
// 100!, 0100! and 1000! by SoA-ASTA cycle following (kernels/soa_asta.cl), their steps
// run alone: every virtual SIMD width with local-memory and register tiling,
// whole-work-group units, super-elements much larger than a unit (chunked, nothing
// dropped), every element size, 32- and 64-bit indices, and one array above 2^24.
#include <array>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "helpers/fault_injection.hpp"
#include "helpers/step_check.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/opencl.hpp"

using ipt::test::check_step;
using ipt::test::session;
using ipt::test::site_of;

namespace {

using Shape4 = std::array<std::uint64_t, 4>;  // I, A, B, C

std::string run_0100(const Shape4& s, std::size_t elem_size, const ipt::planner::SoaConfig& config,
                     std::uint64_t seed) {
  const auto [I, A, B, C] = s;
  const auto site = site_of(elem_size, 7);
  const auto step = ipt::planner::soa_step(site, I, A, B, C, config);
  // Every shape here indexes within 32 bits: the width is the one the config forces.
  if (!step.noop() && step.index64 != config.force_index64) return "wrong index width";
  // Items in 32 bits under 64-bit indices unless forced wide too (every shape here fits).
  const bool items32 = step.options.find("-DIPT_ITEMS32=1") != std::string::npos;
  if (!step.noop() && items32 != (config.force_index64 && !config.force_items64))
    return "wrong item width";
  return check_step(step, site, I * A * B * C, 17, seed);
}

std::string describe(const Shape4& s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) + "x" +
         std::to_string(s[3]);
}

ipt::planner::SoaConfig make_config(std::size_t vw, std::size_t units, std::size_t regs,
                                    std::uint64_t chunk = 0) {
  ipt::planner::SoaConfig config;
  config.vw = vw;
  config.units = units;
  config.regs = regs;
  config.chunk = chunk;
  config.max_groups = 3;  // few groups: many rounds, long chains, idle units
  return config;
}

}  // namespace

TEST_CASE("100! every virtual SIMD width with local-memory tiling", "[soa][elementary]") {
  std::uint64_t seed = 10000;
  for (std::size_t vw : {1, 2, 4, 8, 16, 32})
    for (std::uint64_t C : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{vw},
                            std::uint64_t{2 * vw + 1}, std::uint64_t{37}})
      for (const auto& ab : std::vector<std::array<std::uint64_t, 2>>{
               {1, 1}, {1, 7}, {7, 1}, {2, 3}, {5, 3}, {16, 16}, {31, 37}, {64, 3}}) {
        const Shape4 s{1, ab[0], ab[1], C};
        INFO("vw " << vw << " shape " << describe(s));
        CHECK(run_0100(s, 4, make_config(vw, 128 / vw, 0), ++seed) == "");
      }
}

TEST_CASE("100! every virtual SIMD width with register tiling", "[soa][elementary]") {
  std::uint64_t seed = 11000;
  for (std::size_t vw : {1, 2, 4, 8, 16, 32})
    for (std::size_t regs : {1, 3})
      // C divides vw, equals it, is a multiple of it, and (chunked) far exceeds the unit.
      for (std::uint64_t C : {std::uint64_t{1}, std::uint64_t{(vw + 1) / 2}, std::uint64_t{vw},
                              std::uint64_t{3 * vw}, std::uint64_t{40 * vw + 3}})
        for (const auto& ab : std::vector<std::array<std::uint64_t, 2>>{
                 {1, 5}, {3, 2}, {13, 11}, {32, 8}, {2, 64}}) {
          const Shape4 s{1, ab[0], ab[1], C};
          INFO("vw " << vw << " regs " << regs << " shape " << describe(s));
          CHECK(run_0100(s, 4, make_config(vw, 64 / vw, regs), ++seed) == "");
        }
}

TEST_CASE("100! whole-work-group units and super-elements much larger than a unit",
          "[soa][elementary]") {
  std::uint64_t seed = 12000;
  for (std::size_t regs : {0, 2})
    for (std::uint64_t chunk : {0, 100})
      for (const Shape4& s :
           std::vector<Shape4>{{1, 3, 5, 2560}, {1, 7, 2, 1000}, {1, 4, 4, 257}, {1, 9, 10, 64}}) {
        auto config = make_config(128, 1, regs, regs > 0 ? 0 : chunk);
        INFO("regs " << regs << " chunk " << chunk << " shape " << describe(s));
        CHECK(run_0100(s, 8, config, ++seed) == "");
      }
}

TEST_CASE("100! every element size and index width", "[soa][elementary]") {
  std::uint64_t seed = 13000;
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (const int width : {32, 64, 128})  // 64: 32-bit items; 128: 64-bit throughout
      for (std::size_t regs : {0, 2})
        for (bool words : {false, true})  // 1- and 2-byte elements in registers: in words too
          for (const Shape4& s :
               std::vector<Shape4>{{1, 2, 3, 1}, {1, 17, 19, 5}, {1, 32, 32, 8}, {1, 5, 100, 33}}) {
            if (words && (elem_size >= 4 || regs == 0)) continue;
            auto config = make_config(8, 8, regs);
            config.force_index64 = width > 32;
            config.force_items64 = width > 64;
            config.words = words;
            INFO("elem " << elem_size << " width " << width << " regs " << regs << " words "
                         << words << " shape " << describe(s));
            CHECK(run_0100(s, elem_size, config, ++seed) == "");
          }
}

TEST_CASE("100! of 1- and 2-byte elements in words, at every place in a word",
          "[soa][elementary]") {
  // Narrow elements move in the 4-byte words of their destination (kernels/soa_asta.cl,
  // SHIFTED_WORDS): chunks start at every place in a word at their source and at their
  // destination, the end words are shared with neighbours, and the matrix ends with its
  // buffer (no guard bytes after it), mid-word where its size is odd. Chunks of the
  // planner's configuration, of a few lanes and registers (several chunks a
  // super-element, chains whose words differ in count), and with started marks (chunks of
  // 512 bytes and more). Element by element (SoaConfig::words off), the other tests.
  std::uint64_t seed = 13500;
  const auto profile = ipt::runtime::query_device_profile(session().device());
  for (std::size_t elem_size : {1, 2})
    for (std::uint64_t offset : {0, 1, 2, 3})
      for (const Shape4& s : std::vector<Shape4>{{1, 2, 3, 1},
                                                 {1, 7, 5, 3},
                                                 {1, 13, 11, 5},
                                                 {2, 5, 9, 6},
                                                 {1, 17, 19, 33},
                                                 {1, 31, 6, 127},
                                                 {1, 5, 4, 1031}})
        for (int kind = 0; kind < 2; ++kind) {
          auto config =
              kind == 0 ? ipt::planner::choose_soa(profile, s[3], elem_size) : make_config(4, 4, 3);
          config.words = true;
          const auto site = site_of(elem_size, offset);
          const auto step = ipt::planner::soa_step(site, s[0], s[1], s[2], s[3], config);
          INFO("elem " << elem_size << " offset " << offset << " shape " << describe(s) << " vw "
                       << config.vw << " regs " << config.regs << " chunk " << config.chunk);
          CHECK(check_step(step, site, s[0] * s[1] * s[2] * s[3], 0, ++seed) == "");
        }
}

TEST_CASE("0100! several instances in one launch", "[soa][elementary]") {
  std::uint64_t seed = 14000;
  for (std::size_t regs : {0, 1})
    for (const int width : {32, 64, 128})
      for (const Shape4& s : std::vector<Shape4>{{3, 5, 7, 4},
                                                 {7, 2, 3, 1},
                                                 {2, 16, 8, 32},
                                                 {5, 1, 9, 3},
                                                 {4, 9, 1, 3},
                                                 {11, 13, 3, 70}}) {
        auto config = make_config(4, 16, regs);
        config.force_index64 = width > 32;
        config.force_items64 = width > 64;
        INFO("regs " << regs << " width " << width << " shape " << describe(s));
        CHECK(run_0100(s, 4, config, ++seed) == "");
      }
}

TEST_CASE("1000! is 100! with super-elements of C*D elements", "[soa][elementary]") {
  std::uint64_t seed = 15000;
  for (const auto& s : std::vector<std::array<std::uint64_t, 4>>{
           {3, 4, 5, 6}, {8, 6, 7, 2}, {2, 9, 1, 1}, {13, 7, 24, 24}}) {
    const auto [A, B, C, D] = s;
    for (const int width : {32, 64, 128}) {
      auto config = ipt::planner::choose_soa(ipt::planner::DeviceProfile{}, C * D, 4);
      config.force_index64 = width > 32;
      config.force_items64 = width > 64;
      INFO("shape " << A << "x" << B << "x" << C << "x" << D << " width " << width);
      CHECK(run_0100({1, A, B, C * D}, 4, config, ++seed) == "");
    }
  }
}

TEST_CASE("100! with the configurations a 48 KiB and a 32 KiB/64-wide GPU would pick",
          "[soa][elementary]") {
  std::uint64_t seed = 16000;
  for (const char* overrides : {"local_mem=49152,simd=32", "local_mem=32768,max_wg=256,simd=64"}) {
    ipt::test::ScopedOverrides env(overrides);
    const auto profile = ipt::runtime::query_device_profile(session().device());
    for (std::size_t elem_size : {4, 16})
      for (std::uint64_t C : {1, 2, 5, 24, 32, 64, 96, 100, 500, 2560})
        for (bool index64 : {false, true}) {  // 64-bit: the units of matrices past 2^31
          ipt::planner::StepSite site;
          site.index64 = index64;
          auto config = ipt::planner::choose_soa(profile, C, elem_size, site);
          config.force_index64 = index64;
          const Shape4 s{1, 11, 7, C};
          INFO(overrides << " elem " << elem_size << " C " << C << " index64 " << index64 << " vw "
                         << config.vw << " units " << config.units << " regs " << config.regs
                         << " chunk " << config.chunk);
          CHECK(config.vw * config.units <= profile.max_work_group_size);
          if (config.regs == 0)
            CHECK(2 * config.units * config.chunk * elem_size <= profile.local_mem_bytes);
          CHECK(run_0100(s, elem_size, config, ++seed) == "");
        }
  }
}

TEST_CASE("100! refuses a chunk larger than a unit holds", "[soa][elementary]") {
  // Refused by the planner (the runtime reports IPT_OUT_OF_RESOURCES): nothing to launch.
  const auto config = make_config(8, 4, 2, 17);  // registers hold 2 * 8 = 16 elements
  CHECK_THROWS_AS(ipt::planner::soa_step(site_of(4, 7), 1, 3, 4, 50, config),
                  ipt::planner::ResourceError);
}

TEST_CASE("100! with starts handed out in slices of every size", "[soa][elementary]") {
  // Slices of 32 items (one flag word) down to 1, on shapes whose items fill a fraction
  // of a word, a few words, and many, with many groups (all units start at once). A
  // square A x B has only 2-cycles, so an item that no slice offers as a start shows.
  std::uint64_t seed = 16500;
  for (std::size_t slice : {1, 2, 4, 8, 16, 32})
    for (const Shape4& shape :
         std::vector<Shape4>{{1, 2, 3, 700},
                             {3, 5, 7, 9},
                             {1, 31, 37, 5},
                             {4, 64, 3, 2},
                             {1, 300, 299, 3},
                             {2, 40, 40, 3}}) {  // square A x B: 2-cycles, each needs its own start
      auto config = make_config(4, 8, 4);
      config.max_groups = 0;
      config.slice_items = slice;
      INFO(describe(shape) << ", slices of " << slice);
      CHECK(run_0100(shape, 4, config, ++seed) == "");
    }
  auto config = make_config(4, 8, 4);
  config.slice_items = 3;
  CHECK_THROWS_AS(ipt::planner::soa_step(site_of(4, 7), 1, 5, 7, 9, config), std::invalid_argument);
}

TEST_CASE("0100! uses the flags region it is given, and nothing around it", "[soa][elementary]") {
  // A call hands each stage a region of one scratch buffer by offset: the kernel must
  // take its flags and start counter there. The bytes around the region are all ones
  // (every item "claimed": a kernel reading them would move nothing) and must stay so.
  const Shape4 shape{3, 37, 29, 5};
  const std::size_t elem_size = 4;
  const auto config = ipt::planner::choose_soa(
      ipt::runtime::query_device_profile(session().device()), shape[3], elem_size);
  const std::uint64_t flag_bytes = ipt::planner::soa_launch_flag_bytes(
      config, ipt::test::device_local_mem(), elem_size, shape[0], shape[1], shape[2], shape[3]);
  const std::uint64_t before = 256, after = 256, total = before + flag_bytes + after;
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer scratch(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                           static_cast<std::size_t>(total));
  queue.enqueueFillBuffer(scratch, cl_uchar{0xff}, 0, static_cast<std::size_t>(total));
  // The run zeroes the region before the kernel (it starts zeroed in a call too).
  const auto site = site_of(elem_size, 7);
  const auto step = ipt::planner::soa_step(site, shape[0], shape[1], shape[2], shape[3], config,
                                           {ipt::planner::Buffer::kScratch, before, flag_bytes});
  ipt::runtime::EnqueueOptions options;
  options.scratch = &scratch;
  CHECK(check_step(step, site, shape[0] * shape[1] * shape[2] * shape[3], 17, 4242, options) == "");
  CHECK(ipt::test::bytes_changed_around(scratch(), before, flag_bytes, 0xff) == 0);
}

TEST_CASE("100! above 2^24 elements", "[soa][elementary][large]") {
  auto config = make_config(4, 64, 1);
  config.max_groups = 0;
  CHECK(run_0100({1, 2053, 2048, 4}, 1, config, 17000) == "");  // 16 818 176 > 2^24
}

TEST_CASE("100! at the largest chunk a unit holds, and refusing one more element",
          "[soa][elementary]") {
  const std::size_t local = ipt::test::device_local_mem();
  // Local tiling, one whole-group unit: the chunk that fills the device's local memory,
  // on super-elements of two full chunks and a bit (so three chunks each).
  auto config = make_config(64, 1, 0);
  const std::size_t elem_size = 16;
  const std::uint64_t capacity = ipt::planner::soa_chunk_capacity(config, local, elem_size);
  config.chunk = capacity;
  INFO("local " << local << " chunk " << capacity);
  CHECK(run_0100({1, 3, 2, 2 * capacity + 5}, elem_size, config, 18000) == "");
  // Register tiling at exactly regs * vw elements.
  CHECK(run_0100({1, 5, 3, 4 * 32}, 4, make_config(32, 2, 4), 18001) == "");
  CHECK(run_0100({1, 5, 3, 4 * 32 + 1}, 4, make_config(32, 2, 4), 18002) == "");  // 2 chunks

  // Refused by the planner (the runtime reports IPT_OUT_OF_RESOURCES): nothing to launch.
  config.chunk = ipt::planner::soa_chunk_capacity(config, local, elem_size) + 1;
  CHECK_THROWS_AS(ipt::planner::soa_step(site_of(elem_size, 7), 1, 3, 2, 10 * config.chunk, config),
                  ipt::planner::ResourceError);
}

TEST_CASE("100! stress: many one-lane groups whose chains interleave across host threads",
          "[soa][elementary][stress]") {
  // Work-groups of one work-item run concurrently on every PoCL thread and on every GPU
  // core, so chains of different groups race for the same flags at fine granularity.
  auto config = make_config(1, 1, 1);
  config.max_groups = 0;
  for (std::uint64_t seed = 19000; seed < 19003; ++seed)
    CHECK(run_0100({1, 1000, 999, 1}, 4, config, seed) == "");
}
