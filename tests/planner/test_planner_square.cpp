// SPDX-License-Identifier: Apache-2.0
// The square plan without a device: tile choice by local memory and work-group limits,
// forced tiles, the square step's index width, and the pair count.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "planner/families/square.hpp"
#include "planner/launch_plan.hpp"

using ipt::planner::DeviceProfile;
using ipt::planner::plan_square;
using ipt::planner::square_local_bytes;

TEST_CASE("square tiles fit half the local memory and the work-group limit", "[planner]") {
  DeviceProfile gpu;  // 48 KiB, 1024 work-items
  CHECK(plan_square(gpu, 1000, 4).tile == 64);
  CHECK(plan_square(gpu, 1000, 4).wg_rows == 4);
  CHECK(plan_square(gpu, 1000, 1).tile == 128);  // word tiles: rows of 32 words
  CHECK(plan_square(gpu, 1000, 1).wg_rows == 2);
  CHECK(plan_square(gpu, 1001, 1).tile == 64);  // 1001 is no multiple of the word
  CHECK(plan_square(gpu, 1002, 2).tile == 64);
  CHECK(plan_square(gpu, 1002, 2).wg_rows == 4);
  CHECK(plan_square(gpu, 1000, 8).tile == 32);
  CHECK(plan_square(gpu, 1000, 16).tile == 32);
  DeviceProfile amd;
  amd.local_mem_bytes = 32 * 1024;
  amd.max_work_group_size = 256;
  CHECK(plan_square(amd, 1000, 4).tile == 32);
  CHECK(plan_square(amd, 1000, 16).tile == 16);
  DeviceProfile tiny;
  tiny.local_mem_bytes = 4 * 1024;
  tiny.max_work_group_size = 64;
  const auto plan = plan_square(tiny, 1000, 16);
  CHECK(plan.tile == 8);
  CHECK(plan.tile * plan.wg_rows <= 64);
  for (std::size_t elem : {1, 2, 4, 8, 16})
    for (const DeviceProfile& device : {gpu, amd, tiny}) {
      const auto p = plan_square(device, 777, elem);
      CHECK((square_local_bytes(p.tile, elem) <= device.local_mem_bytes * 3 / 4 || p.tile == 8));
      const auto w = plan_square(device, 1024, elem);  // word tiles where elem < 4
      CHECK(square_local_bytes(w.tile, elem, w.layout, elem < 4 ? 4 / elem : 1) <=
            std::max<std::size_t>(device.local_mem_bytes * 3 / 4, square_local_bytes(8, elem)));
      CHECK(w.tile * w.wg_rows <= device.max_work_group_size);
      CHECK(p.tile * p.wg_rows <= device.max_work_group_size);
    }
}

TEST_CASE("forced square tiles win when they fit, and are refused when they do not", "[planner]") {
  DeviceProfile gpu;  // 48 KiB, 1024 work-items
  const auto forced = plan_square(gpu, 1000, 4, 16, 2);
  CHECK(forced.tile == 16);
  CHECK(forced.wg_rows == 2);
  CHECK(plan_square(gpu, 1000, 4, 32).tile == 32);
  DeviceProfile amd;
  amd.local_mem_bytes = 32 * 1024;
  amd.max_work_group_size = 256;
  CHECK_THROWS_AS(plan_square(amd, 1000, 4, 64, 8), std::invalid_argument);  // 512 work-items
  CHECK_THROWS_AS(plan_square(amd, 1000, 16, 64), std::invalid_argument);    // local memory
}

TEST_CASE("square steps switch to 64-bit indices exactly when needed", "[planner]") {
  // The one rule (needs_index64): a kernel that strides over a grid from offset +
  // elements = 2^31, the square kernel, which forms no index past the matrix, from 2^32.
  using ipt::planner::needs_index64;
  using ipt::planner::square_step;
  using ipt::planner::StepSite;
  CHECK_FALSE(needs_index64(0, (std::uint64_t{1} << 31) - 1));
  CHECK(needs_index64(0, std::uint64_t{1} << 31));
  CHECK_FALSE(needs_index64(1000, (std::uint64_t{1} << 31) - 1001));
  CHECK(needs_index64(1000, (std::uint64_t{1} << 31) - 1000));
  CHECK_FALSE(needs_index64(0, (std::uint64_t{1} << 32) - 1, false));
  CHECK(needs_index64(0, std::uint64_t{1} << 32, false));
  DeviceProfile gpu;
  auto step_of = [&gpu](std::uint64_t n, std::uint64_t offset, bool forced = false) {
    return square_step(StepSite{4, offset, gpu.local_mem_bytes, forced}, n, plan_square(gpu, n, 4));
  };
  // 65535^2 < 2^32 <= 65536^2: squares of 46341 to 65535 (beyond 2^31) stay 32-bit.
  CHECK_FALSE(step_of(46341, 0).index64);
  CHECK_FALSE(step_of(65535, 0).index64);
  CHECK(step_of(65536, 0).index64);
  // 1000 x 1000 elements ending just below 2^32, and reaching it.
  const std::uint64_t last32 = (std::uint64_t{1} << 32) - 1000000 - 1;
  CHECK_FALSE(step_of(1000, last32).index64);
  CHECK(step_of(1000, last32 + 1).index64);
  CHECK(step_of(7, 0, true).index64);
  // The width reaches the kernel's build options.
  CHECK(step_of(65535, 0).options.find("-DIPT_INDEX_64=0") != std::string::npos);
  CHECK(step_of(65536, 0).options.find("-DIPT_INDEX_64=1") != std::string::npos);
}

TEST_CASE("square plans cover every tile pair once", "[planner]") {
  DeviceProfile gpu;
  CHECK(plan_square(gpu, 1, 4).num_pairs == 1);
  CHECK(plan_square(gpu, 64, 4).num_pairs == 1);
  CHECK(plan_square(gpu, 65, 4).num_pairs == 3);
  CHECK(plan_square(gpu, 16384, 4).num_pairs == 256 * 257 / 2);
  CHECK(plan_square(gpu, 1, 4).grid_x == 1);
  CHECK(plan_square(gpu, 1, 4).grid_y == 1);
  const auto huge = plan_square(gpu, 1u << 20, 4);
  CHECK(huge.grid_x == (1u << 20));
  CHECK(huge.grid_y == 129);  // 16384 * 16385 / 2 pairs of 64-wide tiles
  CHECK(huge.grid_x * huge.grid_y >= huge.num_pairs);
  CHECK(huge.grid_x * (huge.grid_y - 1) < huge.num_pairs);
  const auto narrow = ipt::planner::complete_square_plan(huge, 1000, 3);
  CHECK(narrow.grid_x == 3);
  CHECK(narrow.grid_y == (narrow.num_pairs + 2) / 3);
}

TEST_CASE("swizzled square tiles are sized without the padding column", "[planner][tile_layout]") {
  using ipt::planner::TileLayout;
  constexpr auto kSwizzled = TileLayout::kSwizzled;
  CHECK(square_local_bytes(64, 4) == 2 * 64 * 65 * 4);
  CHECK(square_local_bytes(64, 4, kSwizzled) == 2 * 64 * 64 * 4);
  // Three quarters of 44000 bytes hold two 64 x 64 float tiles (32768 bytes), not two
  // padded ones (33280): the swizzled plan takes the larger tile.
  DeviceProfile device;
  device.local_mem_bytes = 44000;
  CHECK(plan_square(device, 1000, 4).tile == 32);
  const auto swizzled = plan_square(device, 1000, 4, 0, 0, kSwizzled);
  CHECK(swizzled.tile == 64);
  CHECK(swizzled.layout == kSwizzled);
  CHECK(plan_square(device, 1000, 4).layout == TileLayout::kPadded);
  // A forced tile: 64 x 64 floats fit 32768 bytes only swizzled.
  device.local_mem_bytes = 32768;
  CHECK_THROWS_AS(plan_square(device, 1000, 4, 64), std::invalid_argument);
  CHECK(plan_square(device, 1000, 4, 64, 0, kSwizzled).tile == 64);
  // XOR keeps a row's columns in the row only for a power-of-two width.
  CHECK_THROWS_AS(plan_square(device, 1000, 4, 24, 0, kSwizzled), std::invalid_argument);
  CHECK(plan_square(device, 1000, 4, 24).tile == 24);

  // The layout reaches the kernel as IPT_SWIZZLE=1; padded steps keep the options they
  // had before there was a layout (the same programs and cached binaries).
  using ipt::planner::square_step;
  using ipt::planner::StepSite;
  const StepSite site{4, 0, device.local_mem_bytes, false};
  const auto padded_step = square_step(site, 1000, plan_square(device, 1000, 4));
  CHECK(padded_step.options == "-DIPT_ELEM_BYTES=4 -DIPT_INDEX_64=0 -DTILE=32 -DWG_ROWS=4");
  const auto swizzled_step = square_step(site, 1000, plan_square(device, 1000, 4, 0, 0, kSwizzled));
  CHECK(swizzled_step.options == padded_step.options + " -DIPT_SWIZZLE=1");
  auto bad = plan_square(device, 1000, 4, 24);
  bad.layout = kSwizzled;
  CHECK_THROWS_AS(square_step(site, 1000, bad), std::invalid_argument);
}

TEST_CASE("the square plan takes vector rows where rows do not start on cache lines",
          "[planner][vectors]") {
  DeviceProfile device;
  device.local_mem_bytes = 49152;
  device.line_bytes = 128;
  // 4-byte rows of 1001 or 1000 elements (4000 bytes: 32-byte aligned) straddle lines;
  // 1024 and 4096 are whole lines.
  CHECK(plan_square(device, 1001, 4).vectors);
  CHECK(plan_square(device, 1000, 4).vectors);
  CHECK_FALSE(plan_square(device, 1024, 4).vectors);
  CHECK_FALSE(plan_square(device, 4096, 4).vectors);
  // Other element sizes never; nor a device without cache lines.
  for (const std::size_t elem_size : {1, 2, 8, 16})
    CHECK_FALSE(plan_square(device, 1001, elem_size).vectors);
  device.line_bytes = 0;
  CHECK_FALSE(plan_square(device, 1001, 4).vectors);
  // They reach the kernel as IPT_VECTORS=1.
  device.line_bytes = 128;
  using ipt::planner::square_step;
  using ipt::planner::StepSite;
  const StepSite site{4, 0, device.local_mem_bytes, false};
  CHECK(square_step(site, 1001, plan_square(device, 1001, 4)).options ==
        "-DIPT_ELEM_BYTES=4 -DIPT_INDEX_64=0 -DTILE=64 -DWG_ROWS=4 -DIPT_VECTORS=1");
}

TEST_CASE("the square plan orders its pairs in bands for large matrices of rows off lines",
          "[planner][bands]") {
  DeviceProfile device;
  device.local_mem_bytes = 49152;
  device.line_bytes = 128;
  // Tile columns of more than 6 MiB with rows that do not start on lines: floats and
  // doubles (tiles 256 bytes across) of more than 24576 rows, 50000^2 floats (rows on
  // 32-byte sectors, not lines), 2-byte elements (tiles of 64, 128 bytes) of more than
  // 49152; bands of 32 tile columns of 4- and 8-byte elements, 8 of others.
  CHECK(plan_square(device, 38011, 4).band == 32);
  CHECK(plan_square(device, 30011, 4).band == 32);
  CHECK(plan_square(device, 24577, 4).band == 32);  // just over 6 MiB
  CHECK(plan_square(device, 24577, 8).band == 32);
  CHECK(plan_square(device, 30011, 8).band == 32);
  CHECK(plan_square(device, 50000, 4).band == 32);
  CHECK(plan_square(device, 49153, 2).band == 8);
  CHECK(plan_square(device, 20011, 16).band == 8);  // tiles of 512 bytes: 9.8 MiB
  // 6 MiB or less, or rows of whole lines: down the tile columns.
  CHECK(plan_square(device, 24575, 4).band == 0);  // just under
  CHECK(plan_square(device, 21011, 8).band == 0);
  CHECK(plan_square(device, 46349, 2).band == 0);
  CHECK(plan_square(device, 65537, 1).band == 0);  // tiles of 64 bytes: 4 MiB
  CHECK(plan_square(device, 40000, 4).band == 0);  // 160000-byte rows: whole lines
  CHECK(plan_square(device, 24576, 8).band == 0);
  CHECK(plan_square(device, 1001, 4).band == 0);
  // Without cache lines, never.
  device.line_bytes = 0;
  CHECK(plan_square(device, 38011, 4).band == 0);
  // The band reaches the kernel as its last argument and shows in the step's description.
  device.line_bytes = 128;
  using ipt::planner::square_step;
  using ipt::planner::StepSite;
  const StepSite site{4, 0, device.local_mem_bytes, false};
  const auto banded = square_step(site, 38011, plan_square(device, 38011, 4));
  REQUIRE(banded.args.size() == 6);
  CHECK(banded.args.back().value == 32);
  CHECK(banded.what.find("pairs in bands of 32 tile columns") != std::string::npos);
  const auto plain = square_step(site, 20011, plan_square(device, 20011, 4));
  CHECK(plain.args.back().value == 0);
  CHECK(plain.what.find("bands") == std::string::npos);
}
