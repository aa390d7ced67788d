// SPDX-License-Identifier: Apache-2.0
// The one-pass on-chip transposition (kernels/onchip.cl): its sizing and when the planner
// picks it (no device), the kernel's step run alone (in one pass, or by cycle following
// when it gives up, with the way it went reported, its scratch zero again and
// the words it is given zeroed), and whole calls through the public API, one kernel that
// must give the transpose whichever way it went. Random data, every element size, guard
// bytes around the matrix.
#include <array>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "helpers/fault_injection.hpp"
#include "helpers/onchip_kernel_run.hpp"
#include "helpers/step_check.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/onchip.hpp"
#include "planner/launch_plan.hpp"
#include "planner/transpose_plan.hpp"
#include "runtime/opencl.hpp"

using ipt::planner::DeviceProfile;
using ipt::planner::OnChip;
using ipt::planner::PlanRequest;
using ipt::test::amd_like;
using ipt::test::GuardedMatrix;
using ipt::test::nvidia_like;
using ipt::test::ScopedEnv;
using ipt::test::session;

TEST_CASE("on-chip sizing follows the work-group, element size and local memory",
          "[onchip][planner]") {
  using ipt::planner::onchip_held_tiles;
  const ipt::planner::OnChipTile square{};
  const auto f32 = ipt::planner::choose_onchip(nvidia_like(), 4);
  // Two groups of 512 per compute unit, sharing the registers of 1024; each takes a
  // group's 48 KiB of local memory, two of which a unit of 228 KiB holds.
  CHECK(f32.work_group == 512);
  CHECK(f32.tiles == 20);                      // 40 registers of elements per work-item
  CHECK(f32.stage == 3);                       // the tiles of 32 x 33 floats in 16 KiB
  CHECK(onchip_held_tiles(f32, square) == 8);  // (49152 - 2112) / (32 * 33 * 4) - 3
  CHECK(f32.groups == 264);
  const auto f64 = ipt::planner::choose_onchip(nvidia_like(), 8);
  CHECK(f64.tiles == 10);
  CHECK(f64.stage == 1);
  CHECK(onchip_held_tiles(f64, square) == 4);  // (49152 - 2112) / (32 * 33 * 8) - 1
  const auto wide = ipt::planner::choose_onchip(nvidia_like(), 16);
  CHECK(wide.tiles == 5);
  CHECK(wide.stage == 1);
  CHECK(onchip_held_tiles(wide, square) == 1);
  // 1-byte elements (word tiles and blocks) in two groups of 512 too.
  const auto u8 = ipt::planner::choose_onchip(nvidia_like(), 1);
  CHECK(u8.work_group == 512);
  CHECK(u8.groups == 264);
  CHECK(onchip_held_tiles(u8, onchip_tile(u8, 1000, 1000)) == 0);  // word tiles: none held
  const auto amd = ipt::planner::choose_onchip(amd_like(), 4);
  CHECK(amd.work_group == 256);
  CHECK(amd.tiles == 10);
  CHECK(amd.stage == 3);
  CHECK(onchip_held_tiles(amd, square) == 4);  // (32768 - 1088) / 4224 - 3
  // Where the unit's local memory is not known, two groups share a group's; where it is
  // less than two groups' (96 KiB), they share it, less 1 KiB each.
  DeviceProfile unknown = nvidia_like(), small_units = nvidia_like();
  unknown.local_mem_per_unit = 0;
  small_units.local_mem_per_unit = 96 * 1024;
  CHECK(onchip_held_tiles(ipt::planner::choose_onchip(unknown, 4), square) == 2);      // 5 - 3
  CHECK(onchip_held_tiles(ipt::planner::choose_onchip(small_units, 4), square) == 7);  // 10 - 3
  // IPT_OVERRIDES onchip.hold=0: registers only, staging what fits.
  DeviceProfile registers_only = nvidia_like();
  registers_only.onchip_hold = false;
  const auto unheld = ipt::planner::choose_onchip(registers_only, 4);
  CHECK(unheld.stage == 8);
  CHECK(onchip_held_tiles(unheld, square) == 0);
  DeviceProfile tiny = nvidia_like();
  tiny.max_work_group_size = 16;
  CHECK(ipt::planner::choose_onchip(tiny, 4).work_group == 0);
  CHECK_FALSE(ipt::planner::onchip_fits(ipt::planner::choose_onchip(tiny, 4), 10, 10));

  // 264 x (20 + 8) tiles of 32 x 32: 7392 tiles.
  CHECK(ipt::planner::onchip_tiles(f32, 1294, 1339) == 41 * 42);
  CHECK(ipt::planner::onchip_fits(f32, 1294, 1339));
  CHECK(ipt::planner::onchip_fits(f32, 32 * 7392, 32));
  CHECK_FALSE(ipt::planner::onchip_fits(f32, 32 * 7392 + 1, 32));
  CHECK_FALSE(ipt::planner::onchip_fits(unheld, 32 * 5280 + 1, 32));
  CHECK_FALSE(ipt::planner::onchip_fits(f64, 3000, 2000));
  CHECK_FALSE(ipt::planner::onchip_fits(f32, 0, 7));
}

TEST_CASE("on-chip tiles are as narrow as a skinny matrix and as short as a wide one",
          "[onchip][planner]") {
  using ipt::planner::onchip_tile;
  const auto f32 = ipt::planner::choose_onchip(nvidia_like(), 4);
  using Shape = std::pair<std::uint64_t, std::uint64_t>;
  auto shape = [](ipt::planner::OnChipTile t) { return Shape{t.rows, t.cols}; };
  CHECK(shape(onchip_tile(f32, 1294, 1339)) == Shape{32, 32});
  CHECK(shape(onchip_tile(f32, 40, 33)) == Shape{32, 32});
  // Few columns, too many for square tiles: as wide, as long as 1024 elements allow.
  CHECK(shape(onchip_tile(f32, 463844, 6)) == Shape{170, 6});
  CHECK(shape(onchip_tile(f32, 489690, 9)) == Shape{113, 9});
  CHECK(shape(onchip_tile(f32, 1000000, 2)) == Shape{512, 2});
  CHECK(shape(onchip_tile(f32, 200000, 17)) == Shape{32, 32});
  CHECK(shape(onchip_tile(f32, 250000, 16)) == Shape{64, 16});  // 7813 square ones: over 7392
  // Square tiles while they fit: 100000 x 2 in 3125 of them.
  CHECK(shape(onchip_tile(f32, 100000, 2)) == Shape{32, 32});
  CHECK(shape(onchip_tile(f32, 20, 7000)) == Shape{32, 32});
  // Few rows: the same, turned.
  CHECK(shape(onchip_tile(f32, 6, 463844)) == Shape{6, 170});
  CHECK(shape(onchip_tile(f32, 18, 250555)) == Shape{18, 56});
  CHECK(shape(onchip_tile(f32, 1, 6000000)) == Shape{2, 512});  // at most 512 wide
  CHECK(shape(onchip_tile(f32, 3, 3)) == Shape{32, 32});
  // 6 columns in 6-wide tiles: 2729 tiles, where 32-wide ones needed 14496 (over 7392),
  // 8-wide ones 3624. Narrow and short tiles are held in local memory too: 28 a group, as
  // square ones, each staged by rows padded after every 32 (at most 1055 slots).
  CHECK(ipt::planner::onchip_tiles(f32, 463844, 6) == 2729);
  CHECK(ipt::planner::onchip_group_tiles(f32, onchip_tile(f32, 463844, 6)) == 28);
  CHECK(ipt::planner::onchip_fits(f32, 463844, 6));
  CHECK(ipt::planner::onchip_fits(f32, 6, 463844));
  CHECK_FALSE(ipt::planner::onchip_fits(f32, 7392 * 512 + 1, 2));
  CHECK(ipt::planner::onchip_fits(f32, 7392 * 512, 2));
  CHECK_FALSE(ipt::planner::onchip_fits(f32, 7392 * 113 + 1, 9));
  CHECK(ipt::planner::onchip_fits(f32, 9, 7392 * 113));
  // Either side beyond the work-group: 256 items move a 512 x 2 tile in 4 passes.
  const auto amd = ipt::planner::choose_onchip(amd_like(), 4);
  CHECK(shape(onchip_tile(amd, 1000000, 2)) == Shape{512, 2});
  CHECK(shape(onchip_tile(amd, 1, 1000000)) == Shape{2, 512});
  // Every staged tile fits local memory: with 24 KiB, 16-byte elements stage no 32 x 32
  // tile in half of it, so one group of 1024 takes the unit (20416 bytes to stage in), where
  // a 512 x 2 tile stages in 1151 slots (18416 bytes, a slot of padding after every 8
  // elements; with a padding column, as 512 x 3, it took 24576).
  DeviceProfile small = nvidia_like();
  small.local_mem_bytes = 24 * 1024;
  small.local_mem_per_unit = 0;  // 24 KiB a unit
  const auto wide = ipt::planner::choose_onchip(small, 16);
  REQUIRE(wide.work_group == 1024);
  CHECK(wide.groups == 132);
  CHECK(shape(onchip_tile(wide, 1000000, 2)) == Shape{512, 2});
  CHECK(shape(onchip_tile(wide, 1000000, 5)) == Shape{204, 5});
  // Where the tile as narrow as the matrix does not stage, square ones (no narrower tile
  // would stage in fewer slots).
  auto tight = wide;
  tight.stage_bytes = 18400;
  CHECK(shape(onchip_tile(tight, 1000000, 6)) == Shape{170, 6});  // 1147 slots: 18352 bytes
  CHECK(shape(onchip_tile(tight, 1000000, 8)) == Shape{32, 32});  // 1151 slots: 18416
  CHECK(ipt::planner::onchip_stage_tiles(wide, onchip_tile(wide, 1000000, 2)) >= 1);
  for (std::uint64_t narrow = 1; narrow < 32; ++narrow)
    for (const auto& config : {f32, amd, wide}) {
      const auto t = onchip_tile(config, 7000000, narrow);
      INFO(narrow << " columns, work-group " << config.work_group);
      // The kernel derives the rows from the columns (onchip.cl, IPT_RUNTIME_TILE).
      CHECK(t.rows == 1024 / t.cols);
      CHECK(t.rows * t.cols > 1024 - 32);
      CHECK(t.cols >= std::max<std::uint64_t>(narrow, 2));
      CHECK(ipt::planner::onchip_stage_tiles(config, t) >= 1);
    }
}

TEST_CASE("the planner picks the on-chip attempt for small non-square matrices on GPUs",
          "[onchip][planner]") {
  const DeviceProfile gpu = nvidia_like();
  SECTION("automatic") {
    for (auto [rows, cols] :
         {std::pair<std::uint64_t, std::uint64_t>{1294, 1339}, {2395, 1309}, {1000, 5000}}) {
      INFO(rows << " x " << cols);
      // Even with room to pad: the attempt works on the matrix as it is.
      const auto plan = ipt::planner::plan_transpose(gpu, rows, cols, 4, {}, {}, 2 * rows * cols);
      CHECK(plan.onchip);
      CHECK_FALSE(plan.padded());
      // One kernel, its fallback inside: no stages.
      CHECK(plan.stages.empty());
      CHECK(plan.m == 1);
      CHECK(plan.n == 1);
      CHECK(ipt::planner::describe(plan).find("on chip, in one kernel") != std::string::npos);
      // One command, in the zero scratch it leaves zero: no call scratch, no fill.
      const auto launch = ipt::planner::plan_call(gpu, {rows, cols, 4, 0, 2 * rows * cols});
      REQUIRE(launch.steps.size() == 1);
      CHECK(launch.steps[0].family == ipt::planner::Family::kOnChip);
      CHECK(launch.steps[0].flags.buffer == ipt::planner::Buffer::kZeroScratch);
      CHECK(launch.fill.empty());
      CHECK(launch.scratch_bytes == 0);
      // The sync words' line, then a flag for each of its groups (4-byte elements).
      CHECK(launch.zero_scratch_bytes ==
            ipt::planner::kOnChipSyncBytes + 4 * ipt::planner::choose_onchip(gpu, 4).groups);
    }
    // A prime side without room to pad: the regular plan is one kernel, but a slow one.
    const auto prime = ipt::planner::plan_transpose(gpu, 3001, 1777, 4);
    CHECK(prime.onchip);
  }
  SECTION("not chosen") {
    // Square shapes (one kernel already), too large, not a GPU, switched off, explicit
    // sequences and padded shapes.
    CHECK_FALSE(ipt::planner::plan_transpose(gpu, 1500, 1500, 4).onchip);
    CHECK_FALSE(ipt::planner::plan_transpose(gpu, 3500, 2500, 4).onchip);
    CHECK_FALSE(ipt::planner::plan_transpose(gpu, 3000, 2000, 8).onchip);
    DeviceProfile cpu = gpu;
    cpu.resident_groups = false;
    CHECK_FALSE(ipt::planner::plan_transpose(cpu, 1294, 1339, 4).onchip);
    PlanRequest off;
    off.onchip = OnChip::kOff;
    CHECK_FALSE(ipt::planner::plan_transpose(gpu, 1294, 1339, 4, off).onchip);
    PlanRequest explicit_sequence;
    explicit_sequence.auto_sequence = false;
    explicit_sequence.sequence = ipt::planner::Sequence::k31;
    CHECK_FALSE(ipt::planner::plan_transpose(gpu, 1200, 1320, 4, explicit_sequence).onchip);
    PlanRequest padded;
    padded.padded_rows = 1296;
    CHECK_FALSE(ipt::planner::plan_transpose(gpu, 1294, 1339, 4, padded, {}, 1 << 22).onchip);
    // A matrix that is one BS tile already is one kernel.
    CHECK_FALSE(ipt::planner::plan_transpose(gpu, 30, 50, 4).onchip);
  }
  SECTION("rather than two kernels") {
    // A skinny matrix's 2-stage plan is two commands (and a fill for its 100!'s flags).
    PlanRequest off;
    off.onchip = OnChip::kOff;
    CHECK(ipt::planner::plan_transpose(gpu, 20000, 17, 4, off).sequence ==
          ipt::planner::Sequence::k21);
    CHECK(ipt::planner::plan_transpose(gpu, 20000, 17, 4).onchip);
  }
  SECTION("forced") {
    PlanRequest on;
    on.onchip = OnChip::kForce;
    DeviceProfile cpu = gpu;
    cpu.resident_groups = false;
    const auto plan = ipt::planner::plan_transpose(cpu, 30, 50, 4, on);
    CHECK(plan.onchip);
    // One kernel: no stages, nothing padded, whatever the shape.
    CHECK(plan.stages.empty());
    const auto square = ipt::planner::plan_transpose(gpu, 640, 640, 4, on);
    CHECK(square.onchip);
    CHECK(square.stages.empty());
    CHECK_FALSE(square.padded());
    CHECK_THROWS_AS(ipt::planner::plan_transpose(gpu, 3500, 2500, 4, on), std::invalid_argument);
    on.padded_rows = 40;
    CHECK_THROWS_AS(ipt::planner::plan_transpose(gpu, 30, 50, 4, on), std::invalid_argument);
  }
}

TEST_CASE("the on-chip kernel transposes in one pass or by cycle following, scratch left zero",
          "[onchip]") {
  IPT_TEST_SEED(shapes_seed, 909);
  std::mt19937_64 random(shapes_seed);
  std::uint64_t seed = 1;
  for (std::size_t max_wg : {1024, 256, 64})
    for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
      DeviceProfile profile = ipt::test::one_unit(max_wg);
      auto config = ipt::planner::choose_onchip(profile, elem_size);
      INFO("max_wg " << max_wg << ", elem_size " << elem_size);
      if (max_wg == 64 && elem_size == 16) {
        CHECK(config.work_group == 0);  // 64 work-items cannot hold a tile of 16-byte elements
        continue;
      }
      // Two groups of 512 where 1024 work-items are allowed.
      REQUIRE(config.work_group == (max_wg == 1024 ? 512 : max_wg));
      // One group: it never waits for another, so it always goes ahead. Sides of 32 or more
      // (tiles of 32 x 32), as every tile shape is a program to build.
      config.groups = 1;
      std::uniform_int_distribution<std::uint64_t> any(32, 3 * 32);
      for (int i = 0; i < 3; ++i) {
        std::uint64_t rows = any(random), cols = any(random);
        while (!ipt::planner::onchip_fits(config, rows, cols)) {
          rows = (rows + 1) / 2;
          cols = (cols + 1) / 2;
        }
        CHECK(ipt::test::run_onchip_kernel(1, rows, cols, elem_size, config, false, ++seed) == 1);
      }
      // A skinny or a wide matrix in tiles as narrow (short) as it, filling the group but
      // for half a tile, its registers and the tiles it holds in local memory: one shape
      // for five of the configurations, as every build is a program to build (20-25 s
      // each on PoCL). Widths of powers of two and not, 1024 elements a tile or fewer.
      const bool skinny = elem_size == 4 ? max_wg != 256 : max_wg == 256;
      if (elem_size == 4 || (elem_size == 16 && max_wg != 64)) {
        const std::uint64_t widths[] = {2, 5, 13, 9, 1, 7, 3};
        const std::uint64_t narrow = widths[(elem_size + max_wg / 64) % 7];
        // Longer than square tiles hold, so that the tiles are narrow.
        const auto tile = ipt::planner::onchip_tile(
            config, 32 * ipt::planner::onchip_group_tiles(config, {}) + 1, narrow);
        REQUIRE(tile.cols == std::max<std::uint64_t>(narrow, 2));
        if (elem_size == 4) REQUIRE(ipt::planner::onchip_held_tiles(config, tile) > 0);
        const std::uint64_t length =
            tile.rows * ipt::planner::onchip_group_tiles(config, tile) - tile.rows / 2;
        INFO((skinny ? length : narrow) << " x " << (skinny ? narrow : length));
        CHECK(ipt::test::run_onchip_kernel(1, skinny ? length : narrow, skinny ? narrow : length,
                                           elem_size, config, false, ++seed) == 1);
      }
      // Giving up: the cycle following transposes instead.
      CHECK(ipt::test::run_onchip_kernel(1, std::min<std::uint64_t>(45, 32 * config.tiles), 20,
                                         elem_size, config, true, ++seed) == 2);
      // Several groups: each outcome is checked (a CPU device may not run them at once).
      config.groups = 3;
      const std::uint64_t rows = std::min<std::uint64_t>(100, 32 * 3 * config.tiles - 7);
      ipt::test::run_onchip_kernel(1, rows, 29, elem_size, config, false, ++seed);
      CHECK(ipt::test::run_onchip_kernel(1, rows, 29, elem_size, config, true, ++seed) == 2);
    }
}

TEST_CASE("the on-chip kernel's cycle following alone transposes any shape, scratch left zero",
          "[onchip]") {
  // The undo of an on-chip step whose inverse would need a program of its own: odd, short,
  // skinny and several instances, none of them shaped for blocks, in one group and in
  // several (each running or not: any count of them follows the cycles).
  std::uint64_t seed = 5100;
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (std::uint64_t groups : {1, 3}) {
      DeviceProfile profile = ipt::test::one_unit(1024);
      auto config = ipt::planner::choose_onchip(profile, elem_size);
      config.groups = groups;
      for (const auto& [instances, rows, cols] : std::vector<std::array<std::uint64_t, 3>>{
               {1, 61, 63}, {3, 5, 37}, {1, 2000, 3}, {2, 129, 130}}) {
        INFO(instances << " x (" << rows << " x " << cols << "), elem_size " << elem_size << ", "
                       << groups << " groups");
        CHECK(ipt::test::run_onchip_kernel(instances, rows, cols, elem_size, config, false, ++seed,
                                           true) == 2);
      }
    }
}

TEST_CASE("the on-chip kernel in one group of 1024 per compute unit (onchip.groups=1)",
          "[onchip]") {
  // The configuration 4-byte elements took before two groups of 512, and the one devices
  // whose half local memory stages no tile still take: its program, run once ahead and
  // once giving up.
  DeviceProfile profile = ipt::test::one_unit(1024);
  profile.onchip_groups = 1;
  const auto config = ipt::planner::choose_onchip(profile, 4);
  REQUIRE(config.work_group == 1024);
  REQUIRE(config.groups == 1);
  CHECK(config.tiles == 40);
  CHECK(ipt::test::run_onchip_kernel(1, 150, 170, 4, config, false, 77) == 1);
  CHECK(ipt::test::run_onchip_kernel(2, 70, 33, 4, config, true, 78) == 2);
}

TEST_CASE("1-byte elements move on chip in word tiles", "[onchip][planner]") {
  using Shape = std::pair<std::uint64_t, std::uint64_t>;
  auto shape = [](ipt::planner::OnChipTile t) { return Shape{t.rows, t.cols}; };
  const auto f32 = ipt::planner::choose_onchip(nvidia_like(), 4);
  const auto u8 = ipt::planner::choose_onchip(nvidia_like(), 1);
  auto f16 = ipt::planner::choose_onchip(nvidia_like(), 2);
  CHECK(f32.word == 1);
  CHECK(u8.word == 4);
  CHECK(f16.word == 1);  // slower in words (families/onchip.cpp); the kernel takes them (below)
  f16.word = 2;
  // Tiles of 15 x 31 words: 60 x 124 bytes in 16 x 32 words of registers (the row's words
  // wherever it starts; an output row's share of it likewise), 30 x 62 2-byte elements in
  // 32 x 32; staged with a padding word per row and a byte of its place in its words.
  CHECK(u8.tiles == f32.tiles);  // two groups of 512 each
  const auto bytes = onchip_tile(u8, 1294, 1339), halves = onchip_tile(f16, 20, 7000);
  CHECK(shape(bytes) == Shape{60, 124});
  CHECK(bytes.word == 4);
  CHECK(shape(halves) == Shape{30, 62});
  CHECK(halves.word == 2);
  CHECK(ipt::planner::onchip_group_tiles(u8, bytes) == 10);
  CHECK(ipt::planner::onchip_group_tiles(f16, halves) == 20);
  CHECK(ipt::planner::onchip_stage_tiles(u8, bytes) == 5);  // 47040 / (64 * 33 * 4 + 64)
  // 2.6 (1.3) times the elements of float tiles on chip: 264 x 10 tiles of 60 x 124.
  CHECK(ipt::planner::onchip_fits(u8, 4300, 4300));         // 72 x 35 tiles
  CHECK_FALSE(ipt::planner::onchip_fits(u8, 4500, 4500));   // 75 x 37
  CHECK_FALSE(ipt::planner::onchip_fits(f32, 2800, 2800));  // 88 x 88 of 32 x 32: over 7392
  // Both ways round: 158400 x 124 takes 2640 x 1 tiles, its transpose 3 x 1278.
  CHECK(ipt::planner::onchip_tiles(u8, 60 * 2640, 124) == 2640);
  CHECK_FALSE(ipt::planner::onchip_fits(u8, 60 * 2640, 124));
  // A skinny matrix that word tiles do not hold takes the element tiles as narrow as it
  // (here one 32 x 32 tile more than the groups hold, in registers and local memory).
  const auto skinny = onchip_tile(u8, 473120, 6);
  CHECK(shape(onchip_tile(u8, 473088, 6)) == Shape{32, 32});
  CHECK(shape(skinny) == Shape{170, 6});
  CHECK(skinny.word == 1);
  CHECK(onchip_tile(u8, 5000, 6).word == 4);  // it fits: fewer, fuller tiles
  // The kernel is built for words; a swizzled configuration keeps elements.
  ipt::planner::StepSite site;
  site.elem_size = 1;
  const auto step = ipt::planner::onchip_step(site, 1, 1294, 1339, u8);
  CHECK(step.options.find("-DIPT_WORDS=4") != std::string::npos);
  CHECK(step.options.find("-DTR=60 -DTC=124 -DTILES=10 -DSTAGE=5") != std::string::npos);
  const auto swizzled =
      ipt::planner::choose_onchip(nvidia_like(), 1, ipt::planner::TileLayout::kSwizzled);
  CHECK(swizzled.word == 1);
  CHECK(ipt::planner::onchip_step(site, 1, 1294, 1339, swizzled).options.find("IPT_WORDS") ==
        std::string::npos);
}

TEST_CASE("1- and 2-byte elements move on chip in blocks where the matrix allows",
          "[onchip][planner]") {
  for (const std::size_t elem_size : {2, 1}) {
    const std::uint64_t b = 4 / elem_size;
    INFO("elem_size " << elem_size);
    const auto config = ipt::planner::choose_onchip(nvidia_like(), elem_size);
    CHECK(config.blocks);
    const auto blocks = [&](std::uint64_t offset, std::uint64_t rows, std::uint64_t cols) {
      return ipt::planner::onchip_step(ipt::test::site_of(elem_size, offset), 3, rows, cols, config)
                 .options.find("-DIPT_BLOCK=" + std::to_string(b)) != std::string::npos;
    };
    CHECK(blocks(0, 296, 13708));
    CHECK(blocks(3 * b, b, 64));  // a tile of blocks taller than the matrix, not narrower
    CHECK_FALSE(blocks(b / 2, 296, 13708));      // starts inside a word
    CHECK_FALSE(blocks(0, 296 + b / 2, 13708));  // output rows that start inside words
    // 1-byte elements: input rows of any length, the last block column short by what
    // they lack; 2-byte ones only rows of whole words.
    const auto short_by = [&](std::uint64_t cols) {
      const std::string options =
          ipt::planner::onchip_step(ipt::test::site_of(elem_size, 0), 3, 296, cols, config).options;
      if (options.find("-DIPT_BLOCK=" + std::to_string(b)) == std::string::npos) return -1;
      const auto at = options.find("-DIPT_BLOCK_SHORT=");
      return at == std::string::npos ? 0 : std::stoi(options.substr(at + 18));
    };
    CHECK(short_by(13708) == 0);
    CHECK(short_by(13709) == (elem_size == 1 ? 3 : -1));
    CHECK(short_by(13710) == (elem_size == 1 ? 2 : 0));
    CHECK(short_by(13711) == (elem_size == 1 ? 1 : -1));
    // A split matrix keeps its blocks where it splits on a word into a tail that starts on
    // one (every word on one side); else it moves element by element (or in word tiles).
    auto split = ipt::test::site_of(elem_size, 0);
    const auto split_blocks = [&](std::uint64_t at, std::uint64_t tail_offset) {
      split.split = at;
      split.tail = {ipt::planner::Buffer::kScratch, tail_offset,
                    elem_size * (3 * 296 * 13708 - at)};
      return ipt::planner::onchip_step(split, 3, 296, 13708, config)
                 .options.find("-DIPT_BLOCK=" + std::to_string(b)) != std::string::npos;
    };
    CHECK(split_blocks(1000, 0));
    CHECK(split_blocks(1000, 4 * 64));
    CHECK_FALSE(split_blocks(1001, 0));
    CHECK_FALSE(split_blocks(1000 + b / 2, 0));
    CHECK_FALSE(split_blocks(1000, 2));
    // IPT_OVERRIDES word=2 (or 1): no word wider than the element.
    DeviceProfile narrow_words = nvidia_like();
    narrow_words.word_bytes = 2;
    const auto unblocked = ipt::planner::choose_onchip(narrow_words, elem_size);
    CHECK_FALSE(unblocked.blocks);
    CHECK(ipt::planner::onchip_step(ipt::test::site_of(elem_size, 0), 3, 296, 13708, unblocked)
              .options.find("IPT_BLOCK") == std::string::npos);
  }
  // 1-byte elements whose rows are even but not a multiple of 4: 2 x 2 blocks of 2-byte
  // words, where the columns are even too (odd ones would load shifted words, no faster
  // than word tiles) and the matrix starts on such a word.
  const auto u8 = ipt::planner::choose_onchip(nvidia_like(), 1);
  const auto u8_step = [&](std::uint64_t offset, std::uint64_t rows, std::uint64_t cols) {
    return ipt::planner::onchip_step(ipt::test::site_of(1, offset), 3, rows, cols, u8);
  };
  CHECK(u8_step(0, 298, 13708).options.find("-DIPT_BLOCK=2 ") != std::string::npos);
  CHECK(u8_step(0, 298, 13708).what.find("moved as 2-byte words, in blocks of 2 x 2") !=
        std::string::npos);
  CHECK(u8_step(2, 298, 13708).options.find("-DIPT_BLOCK=2 ") != std::string::npos);
  CHECK(u8_step(1, 298, 13708).options.find("IPT_BLOCK") == std::string::npos);
  CHECK(u8_step(0, 298, 13709).options.find("IPT_BLOCK") == std::string::npos);
  CHECK(u8_step(0, 297, 13708).options.find("IPT_BLOCK") == std::string::npos);
  CHECK(u8_step(0, 296, 13709).options.find("-DIPT_BLOCK=4 ") != std::string::npos);
  // Wider elements move one by one.
  CHECK_FALSE(ipt::planner::choose_onchip(nvidia_like(), 4).blocks);
}

TEST_CASE("the on-chip kernel in blocks: one pass, rounds and cycle following", "[onchip]") {
  IPT_TEST_SEED(shapes_seed, 2222);
  std::mt19937_64 random(shapes_seed);
  for (const std::size_t elem_size : {2, 1}) {
    const std::uint64_t b = 4 / elem_size;
    auto config = ipt::planner::choose_onchip(ipt::test::one_unit(1024), elem_size);
    INFO("elem_size " << elem_size);
    // One group: it never waits for another, so it always goes ahead. run_onchip_kernel
    // gives the matrix an offset of seed % 5: seeds of 0 and 4 mod 5 (and 2 for 2-byte
    // elements) start it on a word, in blocks; the others element by element or in word
    // tiles. Rows of every length mod the block (i % b): 1-byte blocks whose rows start at
    // every position in a word.
    config.groups = 1;
    std::uniform_int_distribution<std::uint64_t> side(1, 160 / b);
    std::uint64_t seed = 10 * shapes_seed;
    for (int i = 0; i < 8; ++i) {
      const std::uint64_t rows = b * side(random), cols = b * side(random) - i % b;
      const std::uint64_t instances = 1 + i % 3;
      if (!ipt::planner::onchip_fits(config, rows, cols)) continue;
      for (std::uint64_t s : {seed + 5, seed + 7, seed + 6, seed + 9}) {
        const bool blocked = ipt::planner::onchip_step(ipt::test::site_of(elem_size, s % 5),
                                                       instances, rows, cols, config)
                                 .options.find("-DIPT_BLOCK=") != std::string::npos;
        INFO(instances << " x " << rows << " x " << cols << ", offset " << s % 5);
        CHECK(blocked == (s % 5 % b == 0 && (elem_size == 1 || cols % b == 0)));
        CHECK(ipt::test::run_onchip_kernel(instances, rows, cols, elem_size, config, false, s) ==
              1);
      }
      seed += 10;
    }
    // 1-byte elements in 2 x 2 blocks of 2-byte words: rows even, not a multiple of 4;
    // even columns (odd ones, and odd offsets, in word tiles).
    for (int i = 0; elem_size == 1 && i < 6; ++i) {
      const std::uint64_t rows = 4 * side(random) + 2, cols = 2 * side(random) + i % 2;
      const std::uint64_t instances = 1 + i % 3;
      if (!ipt::planner::onchip_fits(config, rows, cols)) continue;
      for (std::uint64_t s : {seed + 5, seed + 7, seed + 6, seed + 9}) {
        const std::string options =
            ipt::planner::onchip_step(ipt::test::site_of(1, s % 5), instances, rows, cols, config)
                .options;
        INFO(instances << " x " << rows << " x " << cols << ", offset " << s % 5);
        CHECK((options.find("-DIPT_BLOCK=2 ") != std::string::npos) ==
              (s % 5 % 2 == 0 && cols % 2 == 0));
        CHECK(ipt::test::run_onchip_kernel(instances, rows, cols, 1, config, false, s) == 1);
      }
      seed += 10;
    }
    // Giving up: the cycle following transposes instead, element by element.
    CHECK(ipt::test::run_onchip_kernel(2, 64, 96, elem_size, config, true, 20) == 2);
    CHECK(ipt::test::run_onchip_kernel(2, 62, 96, elem_size, config, true, 20) == 2);
    CHECK(ipt::test::run_onchip_kernel(2, 64, 93, elem_size, config, true, 25) == 2);
    // Several groups: each outcome is checked (a CPU device may not run them at once).
    config.groups = 3;
    ipt::test::run_onchip_kernel(3, 128, 68, elem_size, config, false, 30);
    ipt::test::run_onchip_kernel(3, 128, 67, elem_size, config, false, 35);
    CHECK(ipt::test::run_onchip_kernel(3, 128, 68, elem_size, config, true, 40) == 2);
  }
}

// Word tiles on random data: a matrix at every alignment in its buffer (offsets of 0 to 4
// elements), rows and instances of every length mod 4 (tile rows and output segments that
// start anywhere in a word), partial tiles, rounds of instances, the cycle-following
// fallback, and several groups.
TEST_CASE("the on-chip kernel in word tiles, at every alignment", "[onchip]") {
  IPT_TEST_SEED(shapes_seed, 4411);
  std::mt19937_64 random(shapes_seed);
  std::uint64_t seed = 300;
  for (std::size_t max_wg : {256, 64})
    for (std::size_t elem_size : {1, 2}) {
      DeviceProfile profile = ipt::test::one_unit(max_wg);
      auto config = ipt::planner::choose_onchip(profile, elem_size);
      INFO("max_wg " << max_wg << ", elem_size " << elem_size);
      REQUIRE(config.word == (elem_size == 1 ? 4 : 1));
      config.word = 4 / elem_size;  // 2-byte elements: the kernel's words, which plans leave
      config.blocks = false;        // word tiles even where blocks would do
      std::uniform_int_distribution<std::uint64_t> side(33, 200);
      for (int i = 0; i < 5; ++i) {  // seeds 1..5 mod 5: every offset
        std::uint64_t rows = side(random), cols = side(random);
        while (!ipt::planner::onchip_fits(config, rows, cols)) {
          rows = std::max<std::uint64_t>(33, rows * 3 / 4);
          cols = std::max<std::uint64_t>(33, cols * 3 / 4);
        }
        REQUIRE(onchip_tile(config, rows, cols).word == config.word);
        CHECK(ipt::test::run_onchip_kernel(1, rows, cols, elem_size, config, false, ++seed) == 1);
      }
      // Rounds of instances whose sizes are odd: instance boundaries inside words.
      const std::uint64_t rows = 37, cols = 45;
      const std::uint64_t per_round =
          ipt::planner::onchip_group_tiles(config, onchip_tile(config, rows, cols)) /
          onchip_tiles(config, rows, cols);
      REQUIRE(per_round >= 1);
      CHECK(ipt::test::run_onchip_kernel(2 * per_round + 1, rows, cols, elem_size, config, false,
                                         ++seed) == 1);
      CHECK(ipt::test::run_onchip_kernel(3, rows, cols, elem_size, config, true, ++seed) == 2);
      config.groups = 3;
      ipt::test::run_onchip_kernel(1, 70, 75, elem_size, config, false, ++seed);
      CHECK(ipt::test::run_onchip_kernel(1, 70, 75, elem_size, config, true, ++seed) == 2);
    }
}

TEST_CASE("swizzled on-chip tiles stage without the padding column",
          "[onchip][planner][tile_layout]") {
  using ipt::planner::OnChipTile;
  using ipt::planner::TileLayout;
  constexpr auto kSwizzled = TileLayout::kSwizzled;
  DeviceProfile gpu = nvidia_like();
  gpu.local_mem_per_unit = 0;  // two groups share 48 KiB: the least room to stage in
  // Tiles of 32 x 32: as many staged either way with 48 KiB (at most 8; doubles 2 of the
  // 22464 bytes, 8448 padded, 8192 swizzled), the rest of the configuration the same.
  for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
    const auto padded = ipt::planner::choose_onchip(gpu, elem_size);
    const auto swizzled = ipt::planner::choose_onchip(gpu, elem_size, kSwizzled);
    INFO("elem_size " << elem_size);
    CHECK(padded.layout == TileLayout::kPadded);
    CHECK(swizzled.layout == kSwizzled);
    CHECK(swizzled.stage == padded.stage);
    CHECK(swizzled.work_group == padded.work_group);
    CHECK(swizzled.tiles == padded.tiles);
    CHECK(swizzled.stage_bytes == padded.stage_bytes);
  }
  // Narrow and short tiles are never swizzled (their sides need not be powers of two): one
  // build stages them all, in either layout, as many as of the largest (1087 slots of
  // doubles, a slot of padding after every 16: 8696 bytes, 2 of 22464, or 1 beside 1 held).
  const auto f64 = ipt::planner::choose_onchip(gpu, 8);
  const auto f64_swizzled = ipt::planner::choose_onchip(gpu, 8, kSwizzled);
  for (const OnChipTile tile : {OnChipTile{512, 2}, OnChipTile{170, 6}, OnChipTile{2, 512}}) {
    CHECK(ipt::planner::onchip_stage_tiles(f64, tile) == 1);
    CHECK(ipt::planner::onchip_held_tiles(f64, tile) == 1);
    CHECK(ipt::planner::onchip_stage_tiles(f64_swizzled, tile) == 1);
    CHECK(ipt::planner::onchip_held_tiles(f64_swizzled, tile) == 1);
  }
  auto f64_unheld = f64;
  f64_unheld.hold = false;
  CHECK(ipt::planner::onchip_stage_tiles(f64_unheld, OnChipTile{512, 2}) == 2);
  // With little local memory a skinny tile of 16-byte elements is as narrow either way.
  DeviceProfile small = gpu;
  small.local_mem_bytes = 24 * 1024;
  const auto wide = ipt::planner::choose_onchip(small, 16);
  const auto wide_swizzled = ipt::planner::choose_onchip(small, 16, kSwizzled);
  const auto tile = ipt::planner::onchip_tile(wide, 1000000, 2);
  const auto tile_swizzled = ipt::planner::onchip_tile(wide_swizzled, 1000000, 2);
  CHECK((tile.rows == 512 && tile.cols == 2));
  CHECK((tile_swizzled.rows == 512 && tile_swizzled.cols == 2));
  // The layout leaves the groups as they are, also where only a swizzled 32 x 32 tile of
  // 16-byte elements would stage in half the local memory (16384 + 2112 bytes of 18944).
  DeviceProfile between = gpu;
  between.local_mem_bytes = 37888;
  CHECK(ipt::planner::choose_onchip(between, 16).work_group == 1024);
  CHECK(ipt::planner::choose_onchip(between, 16, kSwizzled).work_group == 1024);
  // Whatever fits padded fits swizzled, in as many tiles or fewer, element by element
  // (word tiles, which narrow elements take padded, hold more).
  IPT_TEST_SEED(seed, 17);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint64_t> side(1, 60000);
  for (const DeviceProfile& device : {gpu, small, amd_like()})
    for (std::size_t elem_size : {1, 4, 8, 16}) {
      auto padded = ipt::planner::choose_onchip(device, elem_size);
      padded.word = 1;
      const auto swizzled = ipt::planner::choose_onchip(device, elem_size, kSwizzled);
      for (int i = 0; i < 300; ++i) {
        const std::uint64_t rows = side(random), cols = 1 + side(random) % (i % 2 ? 40 : 4000);
        INFO(rows << " x " << cols << ", elem_size " << elem_size);
        if (ipt::planner::onchip_fits(padded, rows, cols)) {
          CHECK(ipt::planner::onchip_fits(swizzled, rows, cols));
          CHECK(ipt::planner::onchip_tiles(swizzled, rows, cols) <=
                ipt::planner::onchip_tiles(padded, rows, cols));
        }
      }
    }
  // The layout reaches the kernel (IPT_SWIZZLE=1), from a call's overrides too, for the
  // whole matrix and for an on-chip 010! stage; padded steps keep their options.
  const auto has_swizzle = [](const ipt::planner::Step& step) {
    return step.options.find("-DIPT_SWIZZLE=1") != std::string::npos;
  };
  const ipt::planner::StepSite site;
  CHECK(has_swizzle(ipt::planner::onchip_step(site, 1, 100, 97, f64_swizzled)));
  CHECK_FALSE(has_swizzle(ipt::planner::onchip_step(site, 1, 100, 97, f64)));
  ipt::planner::PlanOverrides overrides;
  overrides.request.onchip_tiles = kSwizzled;
  for (auto [rows, cols] : {std::pair<std::uint64_t, std::uint64_t>{1294, 1339}, {12800, 10000}}) {
    INFO(rows << " x " << cols);
    const auto launch = ipt::planner::plan_call(gpu, {rows, cols, 4, 0, 0}, overrides);
    const auto regular = ipt::planner::plan_call(gpu, {rows, cols, 4, 0, 0});
    REQUIRE(launch.uses_onchip());
    REQUIRE(launch.steps.size() == regular.steps.size());
    for (std::size_t i = 0; i < launch.steps.size(); ++i) {
      const bool onchip = launch.steps[i].family == ipt::planner::Family::kOnChip;
      CHECK(has_swizzle(launch.steps[i]) == onchip);
      CHECK_FALSE(has_swizzle(regular.steps[i]));
      if (!onchip) CHECK(launch.steps[i].options == regular.steps[i].options);
    }
  }
}

TEST_CASE("the on-chip kernel with swizzled tiles: one pass, rounds and cycle following",
          "[onchip][tile_layout]") {
  // Three programs (20-25 s each to build on PoCL): 32 x 32 tiles of 4- and 8-byte
  // elements, and the narrow tiles of a skinny matrix of 4-byte ones.
  using ipt::planner::TileLayout;
  std::uint64_t seed = 1300;
  DeviceProfile profile = ipt::test::one_unit(1024);
  for (std::size_t elem_size : {4, 8}) {
    auto config = ipt::planner::choose_onchip(profile, elem_size, TileLayout::kSwizzled);
    INFO("elem_size " << elem_size << ", stage " << config.stage);
    REQUIRE(config.work_group == 512);
    config.groups = 1;  // one group: it never waits for another, so it always goes ahead
    // Whole and partial tiles in one pass; instances in rounds (an on-chip 010! stage),
    // the last round not full.
    CHECK(ipt::test::run_onchip_kernel(1, 60, 97, elem_size, config, false, ++seed) == 1);
    const std::uint64_t per_round = config.groups * ipt::planner::onchip_group_tiles(config, {}) /
                                    ipt::planner::onchip_tiles(config, 50, 40);
    CHECK(ipt::test::run_onchip_kernel(2 * per_round + 1, 50, 40, elem_size, config, false,
                                       ++seed) == 1);
    // Giving up: 60 x 97 has more elements than the stage array holds heads (STAGE * 1024,
    // SLOTS per work-item), so the fallback cuts its cycles into segments; instances too.
    REQUIRE(60 * 97 > config.stage * 1024);
    CHECK(ipt::test::run_onchip_kernel(1, 60, 97, elem_size, config, true, ++seed) == 2);
    CHECK(ipt::test::run_onchip_kernel(3, 50, 40, elem_size, config, true, ++seed) == 2);
    // Several groups: each outcome is checked (a CPU device may not run them at once).
    config.groups = 3;
    ipt::test::run_onchip_kernel(1, 60, 97, elem_size, config, false, ++seed);
    CHECK(ipt::test::run_onchip_kernel(1, 60, 97, elem_size, config, true, ++seed) == 2);
  }
  // A skinny matrix in tiles of 170 x 6 (never swizzled), filling the group's registers but
  // for half a tile.
  auto config = ipt::planner::choose_onchip(profile, 4, TileLayout::kSwizzled);
  config.groups = 1;
  const auto tile =
      ipt::planner::onchip_tile(config, 32 * ipt::planner::onchip_group_tiles(config, {}) + 1, 6);
  REQUIRE((tile.rows == 170 && tile.cols == 6));
  const std::uint64_t length = tile.rows * config.tiles - tile.rows / 2;
  CHECK(ipt::test::run_onchip_kernel(1, length, 6, 4, config, false, ++seed) == 1);
  CHECK(ipt::test::run_onchip_kernel(1, length, 6, 4, config, true, ++seed) == 2);
}

namespace {

void transpose_and_check(std::size_t rows, std::size_t cols, std::size_t elem_size,
                         std::uint64_t seed) {
  // Shrink the shape until the forced on-chip plan fits this profile.
  ipt_plan_info info{};
  while (ipt_plan(session().device(), rows, cols, elem_size, nullptr, &info) == IPT_INVALID_VALUE) {
    INFO(ipt_last_error_message());
    REQUIRE(rows * cols > 1);
    rows = (rows + 1) / 2;
    cols = (cols + 1) / 2;
  }
  INFO(rows << " x " << cols << ", elem_size " << elem_size);
  CHECK(ipt::test::transpose_through_api(rows, cols, elem_size, seed % 7, elem_size + 5, seed) ==
        "");
}

}  // namespace

TEST_CASE("calls with the on-chip attempt give the transpose, attempt or fallback", "[onchip]") {
  IPT_TEST_SEED(shapes_seed, 2026);
  std::mt19937_64 random(shapes_seed);
  std::uniform_int_distribution<std::size_t> side(1, 160);
  for (const char* overrides :
       {"onchip=on,compute_units=1", "onchip=on,compute_units=2",
        "onchip=on,compute_units=4,max_wg=256", "onchip=on,onchip.abort=1",
        "onchip=on,onchip.abort=1,local_mem=32768,max_wg=256,simd=64,compute_units=8",
        "onchip=on,onchip.abort=1,sequence=1", "resident_groups=1,local_mem=49152"}) {
    ipt::test::ScopedOverrides env(overrides);
    INFO(overrides);
    std::uint64_t seed = 400;
    for (int i = 0; i < 6; ++i) {
      std::size_t rows = side(random), cols = side(random);
      transpose_and_check(rows, cols, std::size_t{1} << (i % 5), ++seed);
    }
    transpose_and_check(1, 150, 4, ++seed);
    transpose_and_check(150, 1, 8, ++seed);
  }
  // Fallbacks of every 2- and 3-stage sequence, on shapes with factors for them.
  for (const char* sequence : {"sequence=2.1", "sequence=2.2", "sequence=3.1", "sequence=3.2"})
    for (const char* attempt : {"onchip=on,compute_units=3", "onchip=on,onchip.abort=1"}) {
      const std::string text = std::string(attempt) + "," + sequence;
      ipt::test::ScopedOverrides env(text.c_str());
      INFO(attempt << "," << sequence);
      std::uint64_t seed = 500;
      for (std::size_t elem_size : {1, 4, 16})
        for (auto [rows, cols] :
             {std::pair<std::size_t, std::size_t>{60, 84}, {96, 40}, {120, 126}})
          transpose_and_check(rows, cols, elem_size, ++seed);
    }
}

TEST_CASE("ipt_plan reports and refuses the on-chip attempt", "[onchip][plan_api]") {
  ipt_plan_options options{};
  options.sequence = IPT_SEQUENCE_ON_CHIP;
  ipt_plan_info info{};
  REQUIRE(ipt_plan(session().device(), 100, 37, 4, &options, &info) == IPT_SUCCESS);
  CHECK(info.sequence == IPT_SEQUENCE_ON_CHIP);
  CHECK(info.padded_rows == 100);
  CHECK(info.padded_cols == 37);
  CHECK(std::string(info.description).find("on chip") != std::string::npos);
  CHECK(info.scratch_bytes > 0);
  CHECK(info.num_stages == 1);  // one kernel, its fallback inside
  // Far too large for any device's registers, yet one allocation holds it (a larger one
  // is refused as such, before any plan).
  CHECK(ipt_plan(session().device(), 20000, 19999, 4, &options, &info) == IPT_INVALID_VALUE);
  GuardedMatrix m(60, 50, 4, 0, 8, 5);
  CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 0, 60, 50, 4, &options, 0,
                                   nullptr, nullptr) == IPT_SUCCESS);
  CHECK(clFinish(session().queue()) == CL_SUCCESS);
  CHECK(m.check_transposed() == "");
  GuardedMatrix big(100000, 99999 / 1000, 4, 0, 8, 6);
  options.padding = IPT_PADDING_AUTO;
  ipt_plan_info fits{};
  if (ipt_plan(session().device(), 100000, 99, 4, &options, &fits) != IPT_SUCCESS) {
    CHECK(ipt_transpose_with_options(session().queue(), big.buffer(), 0, 100000, 99, 4, &options, 0,
                                     nullptr, nullptr) == IPT_INVALID_VALUE);
    CHECK(big.check_unchanged() == "");
  }
}
