// SPDX-License-Identifier: Apache-2.0
// The on-chip 010! stage: 2.1 and 2.2 plans whose m x N (M x n) tiles are too large for
// one work-group's local memory but fit the device's registers, moved by the on-chip
// kernel in rounds of whole instances (or by its own cycle following when the device
// cannot run every group at once).
#include <CL/cl.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <sstream>
#include <string>

#include "helpers/fault_injection.hpp"
#include "helpers/onchip_kernel_run.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"
#include "planner/cost_model.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/opencl.hpp"

using ipt::planner::DeviceProfile;
using ipt::planner::OnChip;
using ipt::planner::PlanRequest;
using ipt::planner::Sequence;
using ipt::planner::Stage;
using ipt::test::GuardedMatrix;
using ipt::test::nvidia_like;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

std::size_t onchip_stages(const ipt::planner::TransposePlan& plan) {
  return static_cast<std::size_t>(std::count_if(plan.stages.begin(), plan.stages.end(),
                                                [](const Stage& s) { return s.onchip; }));
}

}  // namespace

TEST_CASE("2-stage plans take an on-chip 010! stage where it beats three passes",
          "[onchip_stage][planner]") {
  const DeviceProfile gpu = nvidia_like();
  for (std::size_t elem_size : {4, 8}) {
    INFO("elem_size " << elem_size);
    const auto config = ipt::planner::choose_onchip(gpu, elem_size);
    for (auto [rows, cols] : {std::pair<std::uint64_t, std::uint64_t>{10000, 9000},
                              {12800, 10000},
                              {6762, 13709},
                              {3001, 17777}}) {
      INFO(rows << " x " << cols);
      PlanRequest exact;
      exact.padding = ipt::planner::Padding::kOff;
      const auto plan = ipt::planner::plan_transpose(gpu, rows, cols, elem_size, exact);
      REQUIRE(onchip_stages(plan) == 1);
      CHECK((plan.sequence == Sequence::k21 || plan.sequence == Sequence::k22));
      for (const Stage& s : plan.stages) {
        if (!s.onchip) continue;
        CHECK(s.kind == Stage::Kind::k010);
        CHECK_FALSE(ipt::planner::bs_fits(gpu, s.B, s.C, elem_size));
        CHECK(ipt::planner::onchip_fits(config, s.B, s.C));
        CHECK(s.I * s.A * s.B * s.C == rows * cols);
      }
      // Chosen because the model expects it to beat the plan without it.
      PlanRequest off = exact;
      off.onchip = OnChip::kOff;
      const auto regular = ipt::planner::plan_transpose(gpu, rows, cols, elem_size, off);
      CHECK(onchip_stages(regular) == 0);
      CHECK(ipt::planner::estimated_cost(gpu, plan, elem_size) <
            ipt::planner::estimated_cost(gpu, regular, elem_size));
      CHECK(ipt::planner::describe(plan).find("on chip, rounds") != std::string::npos);
      // Not on devices that may not run every group at once, unless forced per sequence.
      DeviceProfile cpu = gpu;
      cpu.resident_groups = false;
      CHECK(onchip_stages(ipt::planner::plan_transpose(cpu, rows, cols, elem_size, exact)) == 0);
    }
  }
}

TEST_CASE("forced 2.1 and 2.2 take tiles that fit the device but not a work-group",
          "[onchip_stage][planner]") {
  DeviceProfile cpu = nvidia_like();
  cpu.resident_groups = false;
  PlanRequest r;
  r.auto_sequence = false;
  r.sequence = Sequence::k21;
  r.m = 200;  // 200 x 9000 floats: 7 MB, far beyond 48 KiB
  auto plan = ipt::planner::plan_transpose(cpu, 10000, 9000, 4, r);
  REQUIRE(plan.stages.size() == 2);
  CHECK(plan.stages[0].onchip);
  CHECK(plan.stages[0].B == 200);
  CHECK(plan.stages[0].C == 9000);
  CHECK_FALSE(plan.stages[1].onchip);
  r.m = 8;  // 8 x 1000 fits a work-group: the regular BS stage
  CHECK(onchip_stages(ipt::planner::plan_transpose(cpu, 10000, 1000, 4, r)) == 0);
  r.sequence = Sequence::k22;
  r.m = 0;
  r.n = 100;  // 10000 x 100
  plan = ipt::planner::plan_transpose(cpu, 10000, 9000, 4, r);
  REQUIRE(plan.stages.size() == 2);
  CHECK(plan.stages[1].onchip);
  // Too large for the device too, or on-chip ruled out: refused.
  r.n = 4500;
  CHECK_THROWS_AS(ipt::planner::plan_transpose(cpu, 10000, 9000, 4, r), std::invalid_argument);
  r.n = 100;
  r.onchip = OnChip::kOff;
  CHECK_THROWS_AS(ipt::planner::plan_transpose(cpu, 10000, 9000, 4, r), std::invalid_argument);
}

TEST_CASE("on-chip stages keep the plan invariants over random shapes", "[onchip_stage][planner]") {
  const DeviceProfile gpu = nvidia_like();
  IPT_TEST_SEED(seed, 77);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint64_t> side(1000, 20000);
  std::size_t with_stage = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::uint64_t rows = side(random), cols = side(random);
    const std::size_t elem_size = i % 2 ? 8 : 4;
    const auto config = ipt::planner::choose_onchip(gpu, elem_size);
    const auto plan =
        ipt::planner::plan_transpose(gpu, rows, cols, elem_size, {}, {}, rows * cols * 11 / 10);
    INFO(rows << " x " << cols << " (" << elem_size << "): " << ipt::planner::describe(plan));
    with_stage += onchip_stages(plan) > 0;
    for (const Stage& s : plan.stages) {
      CHECK(s.I * s.A * s.B * s.C == plan.padded_elements());
      if (s.kind == Stage::Kind::k010)
        CHECK((s.onchip ? ipt::planner::onchip_fits(config, s.B, s.C)
                        : ipt::planner::bs_fits(gpu, s.B, s.C, elem_size)));
      else
        CHECK_FALSE(s.onchip);
    }
  }
  // Most shapes of this range have a factor for it (the planner still chooses by cost).
  CHECK(with_stage > 1500);
}

TEST_CASE("a buffer of just the matrix gets the on-chip attempt when ipt_padded_size says so",
          "[onchip_stage][planner]") {
  const DeviceProfile gpu = nvidia_like();
  IPT_TEST_SEED(seed, 31);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint64_t> side(1, 4000);
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t rows = side(random), cols = side(random);
    const auto roomy = ipt::planner::plan_transpose(gpu, rows, cols, 4, {}, {}, ~std::uint64_t{0});
    const auto exact = ipt::planner::plan_transpose(gpu, rows, cols, 4, {}, {}, rows * cols);
    INFO(rows << " x " << cols);
    if (roomy.onchip) CHECK(exact.onchip);
  }
  // 1613 x 2416: the unpadded plan (2.2, n = 4: super-elements of 16 bytes) took about
  // twice as long as the on-chip attempt.
  CHECK(ipt::planner::plan_transpose(gpu, 1613, 2416, 4, {}, {}, 1613 * 2416).onchip);
}

TEST_CASE("the on-chip kernel moves many instances in rounds", "[onchip_stage]") {
  IPT_TEST_SEED(shapes_seed, 4242);
  std::mt19937_64 random(shapes_seed);
  std::uint64_t seed = 10;
  for (std::size_t max_wg : {1024, 256})
    for (std::size_t elem_size : {1, 4, 8, 16}) {
      DeviceProfile profile = ipt::test::one_unit(max_wg);
      auto config = ipt::planner::choose_onchip(profile, elem_size);
      INFO("max_wg " << max_wg << ", elem_size " << elem_size);
      // Two groups of 512 where 1024 work-items are allowed; one here, which never waits
      // for another, so that every round goes ahead.
      REQUIRE(config.work_group == (max_wg == 1024 ? 512 : max_wg));
      config.groups = 1;
      // Sides of 32 or more (tiles of 32 x 32; the fallback below has narrow ones), as every
      // tile shape is a program to build.
      std::uniform_int_distribution<std::uint64_t> any(32, 80);
      for (int i = 0; i < 3; ++i) {
        std::uint64_t rows = any(random), cols = any(random);
        while (!ipt::planner::onchip_fits(config, rows, cols)) {
          rows = (rows + 1) / 2;
          cols = (cols + 1) / 2;
        }
        // Enough instances for several rounds, and a last round that is not full.
        const std::uint64_t per_round =
            config.groups *
            ipt::planner::onchip_group_tiles(config, onchip_tile(config, rows, cols)) /
            ipt::planner::onchip_tiles(config, rows, cols);
        const std::uint64_t instances = std::min<std::uint64_t>(2 * per_round + 1 + i, 40);
        CHECK(ipt::test::run_onchip_kernel(instances, rows, cols, elem_size, config, false,
                                           ++seed) == 1);
      }
      // Instances of exactly what one round holds, twice over; in word tiles (1-byte
      // elements), of a band of them as wide as fits on chip either way round.
      if (config.word == 1) {
        CHECK(ipt::test::run_onchip_kernel(2, 32, 32 * ipt::planner::onchip_group_tiles(config, {}),
                                           elem_size, config, false, ++seed) == 1);
      } else {
        const auto words = ipt::planner::onchip_word_tile(config.word);
        std::uint64_t cols = words.cols * ipt::planner::onchip_group_tiles(config, words);
        while (!ipt::planner::onchip_fits(config, words.rows, cols)) cols -= words.cols;
        CHECK(ipt::test::run_onchip_kernel(3, words.rows, cols, elem_size, config, false, ++seed) ==
              1);
      }
      CHECK(ipt::test::run_onchip_kernel(5, 7, 3, elem_size, config, true, ++seed) == 2);
      config.groups = 3;
      ipt::test::run_onchip_kernel(9, 50, 33, elem_size, config, false, ++seed);
      CHECK(ipt::test::run_onchip_kernel(9, 50, 33, elem_size, config, true, ++seed) == 2);
    }
}

TEST_CASE("on-chip rounds of floats wait on flags or on the counter, every group running",
          "[onchip_stage]") {
  // After round 0 the kernel's groups wait, round by round, either each for the groups
  // whose tiles its stores overwrite (a flag per group) or all for all (the counter):
  // flags where a group's tiles lie within a tile row or a round holds 4 instances or
  // more (kernels/onchip.cl). Races show only where every group of the device's own
  // configuration runs at once, so the real device and its groups; shapes sized from
  // them for rounds on flags only, on the counter only, and on flags then the counter.
  const ScopedEnv no_overrides("IPT_OVERRIDES", nullptr);
  const auto profile = ipt::runtime::query_device_profile(session().device());
  if (!profile.resident_groups)
    IPT_SKIP("this device does not run every work-group at once (a GPU does)");
  const auto config = ipt::planner::choose_onchip(profile, 4);
  const std::uint64_t group_tiles = ipt::planner::onchip_group_tiles(config, {});
  const std::uint64_t round_tiles = config.groups * group_tiles;  // of 32 x 32
  INFO(config.groups << " groups of " << group_tiles << " tiles");
  struct Case {
    const char* what;
    std::uint64_t instances, rows, cols;
  };
  // Wide: tile rows longer than twice a group's tiles, an instance half a round.
  const std::uint64_t wide_cols = 32 * (2 * group_tiles + 1) - 5;
  const std::uint64_t wide_rows = 32 * (round_tiles / (2 * group_tiles + 1) / 2) - 3;
  // Short and wide: a tile's output rows come from a stretch of an input row that the
  // tiles of many groups hold, so each group waits for many (a range cut short shows
  // here).
  const std::uint64_t short_rows = 32 * 10 - 3;
  const std::uint64_t short_cols = 32 * (round_tiles / 2 / 10) - 5;
  // Tall: two tile columns, an instance a third of a round (rounds of 3 instances, the
  // counter), or a fifth (rounds of 5 on flags, then a last round of 1, whose groups'
  // tiles span tile rows, on the counter).
  const std::uint64_t tall_cols = 55;
  const Case cases[] = {
      {"flags (tiles within a tile row)", 5, wide_rows, wide_cols},
      {"flags (a tile's stores wait for many groups)", 5, short_rows, short_cols},
      {"the counter", 7, 32 * (round_tiles / 2 / 3) - 7, tall_cols},
      {"flags, then the counter", 11, 32 * (round_tiles / 2 / 5) - 11, tall_cols},
  };
  std::uint64_t seed = 4300;
  for (const Case& c : cases) {
    INFO(c.what << ": " << c.instances << " x (" << c.rows << " x " << c.cols << ")");
    REQUIRE(ipt::planner::onchip_fits(config, c.rows, c.cols));
    CHECK(ipt::test::run_onchip_kernel(c.instances, c.rows, c.cols, 4, config, false, ++seed) == 1);
  }
}

TEST_CASE("the on-chip kernel holds tiles in local memory as well as registers", "[onchip_stage]") {
  std::uint64_t seed = 700;
  for (std::size_t elem_size : {4, 8, 2, 1}) {
    DeviceProfile profile = ipt::test::one_unit(1024);
    profile.local_mem_per_unit = 228 * 1024;  // an H200's: 48 KiB for each of two groups
    auto config = ipt::planner::choose_onchip(profile, elem_size);
    config.groups = 1;  // never waits for another group: every round goes ahead
    INFO("elem_size " << elem_size);
    // Blocks for 1- and 2-byte elements: rows (and for 2-byte ones columns) a multiple
    // of the block; the last shape's rows end inside a word for 1-byte ones.
    const std::uint64_t b = elem_size < 4 ? 4 / elem_size : 1;
    if (b > 1) {
      ipt::planner::OnChipTile blocks;
      blocks.block = b;
      blocks.rows = blocks.cols = 32 * b;
      CHECK(ipt::planner::onchip_held_tiles(config, blocks) > 0);
    }
    // 1-byte ones in 4 x 4 blocks: two groups of 512 share a unit, and tiles of 128 x 128
    // bytes take 5 registers' and 1 held (matrices that word tiles hold both ways round).
    const std::uint64_t shapes[][2] = {
        {b * 40, b * 90}, {b * 33, b * 64 + 2 * (b == 2)}, {b * 70, b * 70 + (b == 4)}};
    const std::uint64_t byte_shapes[][2] = {{136, 260}, {132, 258}, {140, 257}};
    for (const auto& [rows, cols] : b == 4 ? byte_shapes : shapes) {
      INFO(rows << " x " << cols);
      const auto tile = onchip_tile(config, rows, cols);
      const auto tiles = ipt::planner::onchip_tiles(config, rows, cols);
      if (b == 1) CHECK(ipt::planner::onchip_held_tiles(config, tile) > 0);
      const std::uint64_t per_round =
          ipt::planner::onchip_group_tiles(config, tile) / std::max<std::uint64_t>(tiles, 1);
      if (per_round == 0) continue;
      const std::uint64_t instances = 2 * per_round + 1;
      CHECK(ipt::test::run_onchip_kernel(instances, rows, cols, elem_size, config, false, ++seed) ==
            1);
    }
    // Rounds that the registers hold: no tile held.
    CHECK(ipt::test::run_onchip_kernel(3, b * 32, b * 32, elem_size, config, false, ++seed) == 1);
    // 1-byte elements in 2 x 2 blocks (rows even, not a multiple of 4), held as well: two
    // rounds, the last not full, where the registers alone would take three.
    if (elem_size == 1) {
      ipt::planner::OnChipTile halves;
      halves.block = 2;
      halves.rows = halves.cols = 64;
      CHECK(ipt::planner::onchip_held_tiles(config, halves) > 0);
      const std::uint64_t per_round = ipt::planner::onchip_group_tiles(config, halves) / (2 * 3);
      ipt::planner::StepSite bytes;
      bytes.elem_size = 1;
      const std::string options =
          ipt::planner::onchip_step(bytes, 2 * per_round - 1, 126, 180, config).options;
      CHECK(options.find("-DIPT_BLOCK=2 ") != std::string::npos);
      CHECK(options.find("-DHELD=") != std::string::npos);
      CHECK(ipt::test::run_onchip_kernel(2 * per_round - 1, 126, 180, 1, config, false, 900) == 1);
    }
  }
}

namespace {

void transpose_and_check(std::size_t rows, std::size_t cols, std::size_t elem_size,
                         std::uint64_t seed, bool expect_stage) {
  ipt_plan_info info{};
  REQUIRE(ipt_plan(session().device(), rows, cols, elem_size, nullptr, &info) == IPT_SUCCESS);
  INFO(rows << " x " << cols << ", elem_size " << elem_size << ": " << info.description);
  if (expect_stage)
    CHECK(std::string(info.description).find("on chip, rounds") != std::string::npos);
  CHECK(ipt::test::transpose_through_api(rows, cols, elem_size, seed % 7, elem_size + 5, seed) ==
        "");
}

}  // namespace

TEST_CASE("calls with an on-chip 010! stage give the transpose, attempt or fallback",
          "[onchip_stage]") {
  // A GPU-sized local memory makes the larger tiles too large for a work-group; one or
  // three compute units (three: whichever way each attempt goes), or every attempt giving
  // up (the regular kernel, PTTWAC for such tiles, does the stage).
  for (const char* overrides :
       {"resident_groups=1,local_mem=49152,compute_units=1",
        "resident_groups=1,local_mem=49152,compute_units=3",
        "resident_groups=1,local_mem=49152,compute_units=1,onchip.abort=1"}) {
    ipt::test::ScopedOverrides env(overrides);
    INFO(overrides);
    std::uint64_t seed = 700;
    // 2.1 with m = 32 (32 x 1000 floats: 32 tiles, within the 40 of one group, but not
    // within one work-group's local memory), 2.2 with n = 32, and shapes the planner
    // chooses for itself.
    {
      const std::string forced = std::string(overrides) + ",sequence=2.1,m=32";
      ipt::test::ScopedOverrides env21(forced.c_str());
      transpose_and_check(384, 1000, 4, ++seed, true);
    }
    {
      const std::string forced = std::string(overrides) + ",sequence=2.2,n=32";
      ipt::test::ScopedOverrides env22(forced.c_str());
      transpose_and_check(1000, 384, 4, ++seed, true);
      transpose_and_check(500, 64, 8, ++seed, true);
    }
    {
      // Tiles of 400 x 1000 (beyond local flags too): the kernel's fallback needs no flag
      // per element; the call's scratch stays under 0.1% of the matrix.
      const std::string forced = std::string(overrides) + ",compute_units=16,sequence=2.1,m=400";
      ipt::test::ScopedOverrides big(forced.c_str());
      ipt_plan_info info{};
      REQUIRE(ipt_plan(session().device(), 800, 1000, 4, nullptr, &info) == IPT_SUCCESS);
      CHECK(info.scratch_bytes < 800 * 1000 * 4 / 1000);
      transpose_and_check(800, 1000, 4, ++seed, true);
    }
    IPT_TEST_SEED(shapes_seed, seed);
    std::mt19937_64 random(shapes_seed);
    std::uniform_int_distribution<std::size_t> side(100, 1500);
    for (int i = 0; i < 6; ++i)
      transpose_and_check(side(random), side(random), i % 2 ? 8 : 4, ++seed, false);
  }
}

TEST_CASE("padded plans with an on-chip 010! stage", "[onchip_stage]") {
  // Shapes whose plan on this profile pads and runs its 010! stage on chip, each in a
  // buffer of ipt_padded_size bytes (and guard bytes after it).
  for (const char* overrides :
       {"resident_groups=1,local_mem=49152,compute_units=1",
        "resident_groups=1,local_mem=49152,compute_units=1,onchip.abort=1"}) {
    ipt::test::ScopedOverrides env(overrides);
    INFO(overrides);
    IPT_TEST_SEED(shapes_seed, 55);
    std::mt19937_64 random(shapes_seed);
    std::uniform_int_distribution<std::size_t> side(100, 3000);
    std::uint64_t seed = 900;
    int found = 0;
    for (int tries = 0; tries < 3000 && found < 4; ++tries) {
      const std::size_t rows = side(random), cols = side(random), elem_size = tries % 2 ? 8 : 4;
      ipt_plan_info info{};
      REQUIRE(ipt_plan(session().device(), rows, cols, elem_size, nullptr, &info) == IPT_SUCCESS);
      const std::string words = info.description;
      if (words.find("padded to") == std::string::npos ||
          words.find("on chip, rounds") == std::string::npos)
        continue;
      ++found;
      std::size_t bytes = 0;
      REQUIRE(ipt_padded_size(session().device(), rows, cols, elem_size, &bytes) == IPT_SUCCESS);
      INFO(words);
      CHECK(ipt::test::transpose_through_api(rows, cols, elem_size, seed % 5,
                                             bytes - rows * cols * elem_size + 7, seed) == "");
      ++seed;
    }
    CHECK(found == 4);
  }
}

TEST_CASE("calls with swizzled on-chip tiles (IPT_OVERRIDES onchip.tiles)",
          "[onchip_stage][tile_layout]") {
  // The configuration of the kernel tests of swizzled tiles (test_onchip.cpp): 1024
  // work-items, 48 KiB, one group, so the same programs. An on-chip 010! stage (2.1 with
  // m = 32) in one pass or by its cycle following, and the whole matrix.
  const std::string device = "resident_groups=1,local_mem=49152,compute_units=1,max_wg=1024";
  std::uint64_t seed = 1700;
  for (const char* attempt : {"", ",onchip.abort=1"}) {
    const std::string overrides = device + ",onchip.tiles=swizzled" + attempt;
    INFO(overrides);
    {
      ipt::test::ScopedOverrides env((overrides + ",sequence=2.1,m=32").c_str());
      ipt_plan_info info{};
      REQUIRE(ipt_plan(session().device(), 384, 1000, 4, nullptr, &info) == IPT_SUCCESS);
      CHECK(std::string(info.description).find("swizzled tiles") != std::string::npos);
      transpose_and_check(384, 1000, 4, ++seed, true);
    }
    {
      ipt::test::ScopedOverrides env((overrides + ",onchip=on").c_str());
      for (std::size_t elem_size : {4, 8}) {
        ++seed;
        CHECK(ipt::test::transpose_through_api(100, 97, elem_size, seed % 7, 9, seed) == "");
      }
    }
  }
  // A caller's plan options choose the plan, not how the kernel lays out its tiles: the
  // layout of IPT_OVERRIDES stays.
  ipt::test::ScopedOverrides env((device + ",onchip.tiles=swizzled").c_str());
  ipt_plan_options options{};
  options.sequence = IPT_SEQUENCE_2_1;
  options.m = 32;
  ipt_plan_info info{};
  REQUIRE(ipt_plan(session().device(), 384, 1000, 4, &options, &info) == IPT_SUCCESS);
  CHECK(std::string(info.description).find("on chip, rounds") != std::string::npos);
  CHECK(std::string(info.description).find("swizzled tiles") != std::string::npos);
  GuardedMatrix m(384, 1000, 4, 3, 8, ++seed);
  CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 3, 384, 1000, 4, &options, 0,
                                   nullptr, nullptr) == IPT_SUCCESS);
  CHECK(clFinish(session().queue()) == CL_SUCCESS);
  CHECK(m.check_transposed() == "");
}
