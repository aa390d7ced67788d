// SPDX-License-Identifier: Apache-2.0
// 010! by barrier synchronisation (kernels/bs.cl), its step run alone: one tile per group
// and several tiles per group (virtual SIMD units), every element size, 32- and 64-bit
// indices, shapes with 1 in every dimension, primes, powers of two, the largest tile the
// device accepts and one above 2^24 elements.
#include <algorithm>
#include <catch2/catch.hpp>
#include <tuple>
#include <vector>

#include "helpers/step_check.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_support.hpp"
#include "helpers/words_to_zero.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/launch_plan.hpp"

using ipt::test::check_refused;
using ipt::test::check_step;
using ipt::test::session;
using ipt::test::site_of;

namespace {

using Shape = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;

// Runs 010! on (A, B, C) at offset 3 with guard bytes after; empty string when exact.
std::string run_bs(const Shape& shape, std::size_t elem_size, const ipt::planner::BsConfig& config,
                   std::uint64_t seed) {
  const auto [A, B, C] = shape;
  const auto site = site_of(elem_size, 3);
  const auto step = ipt::planner::bs_step(site, A, B, C, config);
  // Every shape here indexes within 32 bits: the width is the one the config forces.
  if (!step.noop() && step.index64 != config.force_index64) return "wrong index width";
  // Tiles beyond the device's local memory (a 48 KiB GPU, not PoCL's 1 MiB) must be
  // refused with nothing enqueued.
  const std::uint64_t tiles = std::min<std::uint64_t>(config.tiles_per_group, A);
  if (B > 1 && C > 1 &&
      ipt::planner::bs_local_elements(B * C, tiles) * elem_size > ipt::test::device_local_mem())
    return check_refused(step, site, A * B * C, 11, seed);
  return check_step(step, site, A * B * C, 11, seed);
}

const std::vector<Shape> kShapes = {{1, 1, 1},   {1, 1, 9},   {1, 9, 1},    {4, 1, 1},
                                    {1, 2, 3},   {5, 3, 2},   {2, 31, 37},  {3, 13, 17},
                                    {1, 64, 64}, {4, 32, 64}, {3, 64, 32},  {7, 97, 5},
                                    {2, 1, 257}, {6, 128, 3}, {1, 200, 199}};

}  // namespace

TEST_CASE("BS 010! one tile per group, every element size and index width", "[bs][elementary]") {
  std::uint64_t seed = 1;
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (bool index64 : {false, true})
      for (std::size_t wg : {64, 256})
        for (const auto& shape : kShapes) {
          ipt::planner::BsConfig config;
          config.work_group = wg;
          config.force_index64 = index64;
          config.max_groups = 2;  // exercise the grid-stride loop
          INFO("elem " << elem_size << " idx64 " << index64 << " wg " << wg << " shape "
                       << std::get<0>(shape) << "x" << std::get<1>(shape) << "x"
                       << std::get<2>(shape));
          CHECK(run_bs(shape, elem_size, config, ++seed) == "");
        }
}

TEST_CASE("BS 010! small tiles, several tiles per group (virtual SIMD units)", "[bs][elementary]") {
  const std::vector<Shape> shapes = {{1000, 2, 3}, {999, 3, 2}, {513, 1, 2},  {300, 4, 4},
                                     {257, 2, 8},  {130, 5, 7}, {65, 16, 16}, {17, 2, 2}};
  std::uint64_t seed = 100;
  for (std::size_t elem_size : {1, 4, 8, 16})
    for (std::uint64_t tiles : {2, 7, 64, 341})
      for (std::size_t wg : {32, 128})
        for (const auto& shape : shapes) {
          ipt::planner::BsConfig config;
          config.work_group = wg;
          config.tiles_per_group = tiles;
          config.max_groups = 3;
          config.force_index64 = (seed % 2) == 0;
          INFO("elem " << elem_size << " tiles/group " << tiles << " wg " << wg << " shape "
                       << std::get<0>(shape) << "x" << std::get<1>(shape) << "x"
                       << std::get<2>(shape));
          CHECK(run_bs(shape, elem_size, config, ++seed) == "");
        }
}

TEST_CASE("BS 010! in word tiles", "[bs][elementary][words]") {
  // 1- and 2-byte elements move in 4-byte words where every tile's B x C elements fill
  // whole words and the matrix starts on a 4-byte boundary; elsewhere one by one. One and
  // several tiles per group, the grid-stride loop, both index widths, guard bytes after.
  const std::vector<Shape> shapes = {{1, 2, 2},  {5, 4, 3},   {3, 2, 6},   {1000, 2, 2},
                                     {7, 8, 16}, {2, 32, 64}, {3, 64, 36}, {4, 97, 4},
                                     {9, 3, 3},  {2, 31, 37}, {6, 5, 7}};
  std::uint64_t seed = 500;
  int words = 0;
  for (const std::size_t elem_size : {1, 2}) {
    const std::size_t word = 4 / elem_size;
    for (const std::uint64_t offset : {0, 4, 3})
      for (const std::uint64_t tiles : {1, 7, 64})
        for (const std::size_t wg : {32, 256})
          for (const auto& shape : shapes) {
            const auto [A, B, C] = shape;
            ipt::planner::BsConfig config;
            config.work_group = wg;
            config.tiles_per_group = tiles;
            config.max_groups = 3;
            config.force_index64 = (++seed % 2) == 0;
            const auto site = site_of(elem_size, offset);
            const auto step = ipt::planner::bs_step(site, A, B, C, config);
            const bool in_words = (B * C) % word == 0 && (offset * elem_size) % 4 == 0;
            INFO("elem " << elem_size << " offset " << offset << " tiles/group " << tiles << " wg "
                         << wg << " shape " << A << "x" << B << "x" << C);
            REQUIRE((step.options.find("-DIPT_WORDS=" + std::to_string(word)) !=
                     std::string::npos) == in_words);
            words += in_words;
            if (ipt::planner::bs_local_elements(B * C, std::min<std::uint64_t>(tiles, A)) *
                    elem_size >
                ipt::test::device_local_mem())
              continue;
            CHECK(check_step(step, site, A * B * C, 13, seed) == "");
          }
  }
  CHECK(words > 100);
  // Profiles without words (IPT_OVERRIDES word=1) keep the element kernel.
  ipt::planner::DeviceProfile no_words;
  no_words.word_bytes = 1;
  const auto config = ipt::planner::choose_bs(no_words, 5, 4, 4, 1);
  CHECK(ipt::planner::bs_step(site_of(1, 0), 5, 4, 4, config).options.find("IPT_WORDS") ==
        std::string::npos);
}

TEST_CASE("BS 010! with the configurations a 48 KiB and a 32 KiB/64-wide GPU would pick",
          "[bs][elementary]") {
  ipt::planner::DeviceProfile nvidia;  // 48 KiB, 1024 work-items, warps of 32
  ipt::planner::DeviceProfile amd;
  amd.local_mem_bytes = 32 * 1024;
  amd.max_work_group_size = 256;
  amd.simd_width = 64;
  const std::vector<Shape> shapes = {{700, 2, 5},  {90, 7, 9},  {33, 16, 16},
                                     {3, 100, 30}, {2, 40, 48}, {2, 31, 63}};
  std::uint64_t seed = 500;
  for (const auto* profile : {&nvidia, &amd})
    for (std::size_t elem_size : {4, 8})
      for (const auto& shape : shapes) {
        const auto [A, B, C] = shape;
        REQUIRE(ipt::planner::bs_fits(*profile, B, C, elem_size));
        const auto config = ipt::planner::choose_bs(*profile, A, B, C, elem_size);
        INFO("local " << profile->local_mem_bytes << " elem " << elem_size << " shape " << A << "x"
                      << B << "x" << C << " tiles/group " << config.tiles_per_group << " wg "
                      << config.work_group);
        CHECK(config.work_group <= profile->max_work_group_size);
        CHECK(ipt::planner::bs_local_elements(B * C, config.tiles_per_group) * elem_size <=
              profile->local_mem_bytes);
        CHECK(run_bs(shape, elem_size, config, ++seed) == "");
      }
}

TEST_CASE("BS 010! at the largest tile the device holds, and refusing one more",
          "[bs][elementary]") {
  const std::size_t local = ipt::test::device_local_mem();
  const std::size_t elem_size = 16;
  // The largest B x C = B * (B + 1) (a non-square tile) whose padded tile fits.
  std::uint64_t B = 1;
  while (ipt::planner::bs_local_elements((B + 1) * (B + 2), 1) * elem_size <= local) ++B;
  ipt::planner::BsConfig config;
  config.work_group = 256;
  INFO("local memory " << local << " tile " << B << "x" << B + 1);
  CHECK(run_bs({2, B, B + 1}, elem_size, config, 7) == "");

  // One more row and column: the launch is refused with nothing enqueued.
  const auto site = site_of(elem_size, 3);
  CHECK(check_refused(ipt::planner::bs_step(site, 1, B + 1, B + 2, config), site, (B + 1) * (B + 2),
                      11, 8) == "");
}

TEST_CASE("BS 010! above 2^24 elements", "[bs][elementary][large]") {
  ipt::planner::BsConfig config;
  config.work_group = 256;
  config.tiles_per_group = 1;
  CHECK(run_bs({4099, 64, 64}, 1, config, 9) == "");  // 16 789 504 > 2^24 elements
}

TEST_CASE("BS also zeroes the words it is given, and nothing around them", "[bs]") {
  // A call that starts with BS clears the next kernel's flags in the same command: the
  // words must end zero, the bytes around them as they were, and the tiles transposed.
  const cl::CommandQueue queue(session().queue(), true);
  const std::vector<Shape> shapes = {{300, 9, 7}, {3, 64, 32}, {40, 5, 131}};
  for (std::uint64_t words : {1ull, 255ull, 70000ull}) {  // below and beyond a grid
    for (const Shape& shape : shapes) {
      const auto [A, B, C] = shape;
      CAPTURE(words, A, B, C);
      const ipt::test::WordsToZero zero(queue, words);
      const auto config = ipt::planner::choose_bs(ipt::test::nvidia_like(), A, B, C, 4);
      const auto site = site_of(4, 3);
      const auto step = ipt::planner::bs_step(site, A, B, C, config, zero.region());
      CHECK(check_step(step, site, A * B * C, 11, words + A, zero.options()) == "");
      CHECK(zero.wrong_bytes(queue) == 0);
    }
  }
}
