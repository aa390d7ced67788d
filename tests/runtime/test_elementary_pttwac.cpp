// SPDX-License-Identifier: Apache-2.0
// 010! by PTTWAC (kernels/pttwac.cl), its step run alone: spreading 1, 2, 8, 32
// with and without padding of the flag words, every element size, 32- and 64-bit
// indices, the largest tile whose flags fit a 48 KiB GPU, the global-flag fallback for
// tiles just over it, and forced tiny work-groups (long chains per work-item).
#include <catch2/catch.hpp>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "helpers/fault_injection.hpp"
#include "helpers/step_check.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/launch_plan.hpp"
#include "planner/work_limits.hpp"
#include "runtime/device_query.hpp"

using ipt::test::check_refused;
using ipt::test::check_step;
using ipt::test::session;
using ipt::test::site_of;

namespace {

using Shape = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;

std::string run_pttwac(const Shape& shape, std::size_t elem_size,
                       const ipt::planner::PttwacConfig& config, std::uint64_t seed) {
  const auto [A, B, C] = shape;
  const auto site = site_of(elem_size, 5);
  const auto step = ipt::planner::pttwac_step(site, A, B, C, config);
  // Every shape here indexes within 32 bits: the width is the one the config forces.
  if (!step.noop() && step.index64 != config.force_index64) return "wrong index width";
  // Local flags beyond the device's local memory (a 48 KiB GPU, not PoCL's 1 MiB) must be
  // refused with nothing enqueued.
  if (!config.global_flags && B > 1 && C > 1 &&
      ipt::planner::pttwac_flag_words(B * C, config.spreading, config.padding) * 4 >
          ipt::test::device_local_mem())
    return check_refused(step, site, A * B * C, 13, seed);
  return check_step(step, site, A * B * C, 13, seed);
}

const std::vector<Shape> kShapes = {{1, 1, 1},    {2, 1, 5},    {3, 5, 1},    {1, 2, 3},
                                    {2, 5, 3},    {1, 31, 37},  {2, 64, 64},  {1, 128, 32},
                                    {3, 97, 101}, {1, 1024, 3}, {2, 7, 1031}, {1, 250, 333}};

}  // namespace

TEST_CASE("PTTWAC 010! at spreading 1, 2, 8, 32 with and without padding", "[pttwac][elementary]") {
  std::uint64_t seed = 1000;
  for (std::size_t spreading : {1, 2, 8, 32})
    for (bool padding : {false, true})
      for (std::size_t wg : {32, 256})
        for (const auto& shape : kShapes) {
          ipt::planner::PttwacConfig config;
          config.spreading = spreading;
          config.padding = padding;
          config.work_group = wg;
          config.max_groups = 2;
          INFO("R " << spreading << " padding " << padding << " wg " << wg << " shape "
                    << std::get<0>(shape) << "x" << std::get<1>(shape) << "x"
                    << std::get<2>(shape));
          CHECK(run_pttwac(shape, 4, config, ++seed) == "");
        }
}

TEST_CASE("PTTWAC 010! every element size and index width", "[pttwac][elementary]") {
  std::uint64_t seed = 2000;
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (bool index64 : {false, true})
      for (std::size_t spreading : {1, 4})
        for (const auto& shape : kShapes) {
          ipt::planner::PttwacConfig config;
          config.spreading = spreading;
          config.work_group = 128;
          config.force_index64 = index64;
          INFO("elem " << elem_size << " idx64 " << index64 << " R " << spreading << " shape "
                       << std::get<0>(shape) << "x" << std::get<1>(shape) << "x"
                       << std::get<2>(shape));
          CHECK(run_pttwac(shape, elem_size, config, ++seed) == "");
        }
}

TEST_CASE("PTTWAC 010! flag layout is collision-free and sized like the kernel",
          "[pttwac][planner]") {
  // Mirror of flag_word()/flag_bit() of kernels/pttwac.cl.
  for (std::size_t spreading : {1, 2, 4, 8, 16, 32})
    for (bool padding : {false, true})
      for (std::uint64_t n : {1, 2, 31, 32, 33, 1000, 4097, 70001}) {
        int shift = 5;
        while ((std::size_t{1} << (5 - shift)) != spreading) --shift;
        std::vector<std::uint32_t> words(ipt::planner::pttwac_flag_words(n, spreading, padding), 0);
        bool collision = false, outside = false;
        for (std::uint64_t p = 0; p < n; ++p) {
          std::uint64_t w = p >> shift;
          if (padding) w += w >> 5;
          if (w >= words.size()) {
            outside = true;
            break;
          }
          const std::uint32_t bit = 1u << (p & 31);
          if (words[w] & bit) collision = true;
          words[w] |= bit;
        }
        INFO("R " << spreading << " padding " << padding << " n " << n);
        CHECK_FALSE(collision);
        CHECK_FALSE(outside);
      }
}

TEST_CASE("PTTWAC 010! at the largest tile whose flags fit 48 KiB, global flags just above",
          "[pttwac][elementary]") {
  ipt::planner::DeviceProfile gpu;  // 48 KiB local memory, as NVIDIA's driver reports
  gpu.local_mem_bytes = 48 * 1024;
  // The largest 128 x C tile whose flags (R = 1, padding) fit what the planner lets a
  // kernel use (48 KiB less the driver's reserve; NVIDIA's refused an exact 48 KiB).
  const std::size_t usable = ipt::planner::usable_local_bytes(gpu);
  REQUIRE(usable < gpu.local_mem_bytes);
  std::uint64_t C = 2979;  // 128 x 2979 needs exactly 48 KiB of flags
  while (ipt::planner::pttwac_flag_words(128 * C, 1, true) * 4 > usable) --C;
  REQUIRE(ipt::planner::pttwac_flag_words(128 * (C + 1), 1, true) * 4 > usable);
  INFO("largest tile 128 x " << C);
  auto config = ipt::planner::choose_pttwac(gpu, 128, C);
  CHECK_FALSE(config.global_flags);
  CHECK(config.spreading == 1);
  CHECK(run_pttwac({1, 128, C}, 1, config, 3001) == "");

  // One more column does not fit: the planner falls back to global flags
  // (0100! on (A, B, C, 1)), which has no size limit.
  config = ipt::planner::choose_pttwac(gpu, 128, C + 1);
  CHECK(config.global_flags);
  CHECK(run_pttwac({1, 128, C + 1}, 1, config, 3004) == "");
  config = ipt::planner::choose_pttwac(gpu, 227, 1681);  // 381 587 positions
  CHECK(config.global_flags);
  CHECK(run_pttwac({1, 227, 1681}, 1, config, 3002) == "");
  CHECK(run_pttwac({2, 1000, 383}, 2, config, 3003) == "");
}

TEST_CASE("PTTWAC 010! global-flag fallback on many shapes", "[pttwac][elementary]") {
  std::uint64_t seed = 4000;
  for (std::size_t elem_size : {1, 4, 16})
    for (bool index64 : {false, true})
      for (const auto& shape : kShapes) {
        ipt::planner::PttwacConfig config;
        config.global_flags = true;
        config.work_group = 64;
        config.max_groups = 3;
        config.force_index64 = index64;
        INFO("elem " << elem_size << " idx64 " << index64 << " shape " << std::get<0>(shape) << "x"
                     << std::get<1>(shape) << "x" << std::get<2>(shape));
        CHECK(run_pttwac(shape, elem_size, config, ++seed) == "");
      }
}

TEST_CASE("PTTWAC 010! with the planner's choice under IPT_OVERRIDES", "[pttwac][elementary]") {
  std::uint64_t seed = 5000;
  for (const char* overrides : {"local_mem=49152", "local_mem=32768,max_wg=256,simd=64"}) {
    ipt::test::ScopedOverrides env(overrides);
    const auto profile = ipt::runtime::query_device_profile(session().device());
    for (const auto& shape : std::vector<Shape>{{2, 300, 301}, {1, 1000, 999}, {3, 64, 1000}}) {
      const auto [A, B, C] = shape;
      const auto config = ipt::planner::choose_pttwac(profile, B, C);
      INFO(overrides << " shape " << A << "x" << B << "x" << C << " R " << config.spreading
                     << " global " << config.global_flags);
      CHECK(config.work_group <= profile.max_work_group_size);
      if (!config.global_flags)
        CHECK(ipt::planner::pttwac_flag_words(B * C, config.spreading, config.padding) * 4 <=
              profile.local_mem_bytes);
      CHECK(run_pttwac(shape, 4, config, ++seed) == "");
    }
  }
}

TEST_CASE("PTTWAC 010! rejects a spreading factor that is not a power of two up to 32",
          "[pttwac][elementary]") {
  for (std::size_t spreading : {0, 3, 64}) {
    ipt::planner::PttwacConfig config;
    config.spreading = spreading;
    INFO("spreading " << spreading);
    CHECK_THROWS_AS(ipt::planner::pttwac_step(site_of(4, 5), 1, 6, 10, config),
                    std::invalid_argument);
  }
}
