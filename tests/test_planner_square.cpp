// The square plan without a device: tile choice by local memory and work-group limits,
// index width, and the pair count.
#include <catch2/catch.hpp>

#include "planner/square_plan.hpp"

using ipt::planner::DeviceProfile;
using ipt::planner::plan_square;
using ipt::planner::square_local_bytes;

TEST_CASE("square tiles fit half the local memory and the work-group limit", "[planner]") {
  DeviceProfile gpu;  // 48 KiB, 1024 work-items
  CHECK(plan_square(gpu, 1000, 4, 0).tile == 64);
  CHECK(plan_square(gpu, 1000, 4, 0).wg_rows == 4);
  CHECK(plan_square(gpu, 1000, 1, 0).tile == 64);
  CHECK(plan_square(gpu, 1000, 8, 0).tile == 32);
  CHECK(plan_square(gpu, 1000, 16, 0).tile == 32);
  DeviceProfile amd;
  amd.local_mem_bytes = 32 * 1024;
  amd.max_work_group_size = 256;
  CHECK(plan_square(amd, 1000, 4, 0).tile == 32);
  CHECK(plan_square(amd, 1000, 16, 0).tile == 16);
  DeviceProfile tiny;
  tiny.local_mem_bytes = 4 * 1024;
  tiny.max_work_group_size = 64;
  const auto plan = plan_square(tiny, 1000, 16, 0);
  CHECK(plan.tile == 8);
  CHECK(plan.tile * plan.wg_rows <= 64);
  for (std::size_t elem : {1, 2, 4, 8, 16})
    for (const DeviceProfile& device : {gpu, amd, tiny}) {
      const auto p = plan_square(device, 777, elem, 0);
      CHECK((square_local_bytes(p.tile, elem) <= device.local_mem_bytes * 3 / 4 || p.tile == 8));
      CHECK(p.tile * p.wg_rows <= device.max_work_group_size);
    }
}

TEST_CASE("square plans switch to 64-bit indices exactly when needed", "[planner]") {
  DeviceProfile gpu;
  CHECK_FALSE(plan_square(gpu, 65535, 4, 0).index64);
  CHECK(plan_square(gpu, 65536, 4, 0).index64);
  CHECK_FALSE(plan_square(gpu, 1000, 4, 4294967295ull - 1000000).index64);
  CHECK(plan_square(gpu, 1000, 4, 4294967295ull - 999999).index64);
}

TEST_CASE("square plans cover every tile pair once", "[planner]") {
  DeviceProfile gpu;
  CHECK(plan_square(gpu, 1, 4, 0).num_pairs == 1);
  CHECK(plan_square(gpu, 64, 4, 0).num_pairs == 1);
  CHECK(plan_square(gpu, 65, 4, 0).num_pairs == 3);
  CHECK(plan_square(gpu, 16384, 4, 0).num_pairs == 256 * 257 / 2);
  CHECK(plan_square(gpu, 1, 4, 0).grid_x == 1);
  CHECK(plan_square(gpu, 1, 4, 0).grid_y == 1);
  const auto huge = plan_square(gpu, 1u << 20, 4, 0);
  CHECK(huge.grid_x == (1u << 20));
  CHECK(huge.grid_y == 129);  // 16384 * 16385 / 2 pairs of 64-wide tiles
  CHECK(huge.grid_x * huge.grid_y >= huge.num_pairs);
  CHECK(huge.grid_x * (huge.grid_y - 1) < huge.num_pairs);
  const auto narrow = ipt::planner::complete_square_plan(huge, 1000, 0, 3);
  CHECK(narrow.grid_x == 3);
  CHECK(narrow.grid_y == (narrow.num_pairs + 2) / 3);
}
