#include "planner/square_plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ipt::planner {

std::size_t square_local_bytes(std::size_t tile, std::size_t elem_size, TileLayout layout) {
  return static_cast<std::size_t>(2 * tile_slots(tile, tile, layout)) * elem_size;
}

SquarePlan plan_square(const DeviceProfile& device, std::uint64_t n, std::size_t elem_size,
                       std::size_t forced_tile, std::size_t forced_wg_rows, TileLayout layout) {
  SquarePlan plan;
  plan.layout = layout;
  plan.tile = 8;
  for (std::size_t tile : {64, 32, 16}) {
    if (square_local_bytes(tile, elem_size, layout) <= device.local_mem_bytes * 3 / 4 &&
        tile * 4 <= device.max_work_group_size) {
      plan.tile = tile;
      break;
    }
  }
  // Four rows of work-items: each moves tile / 4 elements of each tile, which keeps many
  // loads in flight per work-item. Measured on an H200 (f32, n = 16384,
  // docs/performance-history.md, "Square matrices (0.1)"):
  // 64 x 4 reached 86% of the copy bandwidth, 32 x 4 82%, 32 x 8 80%, 16 x 4 48%.
  plan.wg_rows = 4;
  while (plan.tile * plan.wg_rows > device.max_work_group_size && plan.wg_rows > 1)
    plan.wg_rows /= 2;
  if (forced_tile != 0) plan.tile = forced_tile;
  if (forced_wg_rows != 0) plan.wg_rows = forced_wg_rows;
  if (forced_tile != 0 || forced_wg_rows != 0) {
    if (plan.wg_rows > plan.tile || plan.tile * plan.wg_rows > device.max_work_group_size ||
        square_local_bytes(plan.tile, elem_size, layout) > device.local_mem_bytes)
      throw std::invalid_argument(
          "square tile " + std::to_string(plan.tile) + " x " + std::to_string(plan.wg_rows) +
          " work-items does not fit the device (work-group or local memory limit)");
    // The swizzle permutes a row's columns by XOR, which stays within the row only for a
    // power-of-two width.
    if (layout == TileLayout::kSwizzled && (plan.tile & (plan.tile - 1)) != 0)
      throw std::invalid_argument("square tile " + std::to_string(plan.tile) +
                                  ": swizzled tiles need a power of two");
  }
  return complete_square_plan(plan, n);
}

SquarePlan complete_square_plan(SquarePlan plan, std::uint64_t n, std::uint64_t max_grid_x,
                                std::uint64_t matrices) {
  const std::uint64_t tiles = (n + plan.tile - 1) / plan.tile;
  plan.num_pairs = tiles * (tiles + 1) / 2;
  plan.matrices = matrices;
  // A row of up to a million groups keeps dimension 0 of the NDRange far below 2^32
  // work-items; more pairs take more rows (n = 2^20 needs 129).
  const std::uint64_t groups = plan.num_pairs * matrices;
  plan.grid_x = std::max<std::uint64_t>(1, std::min(groups, max_grid_x));
  plan.grid_y = (groups + plan.grid_x - 1) / plan.grid_x;
  return plan;
}

}  // namespace ipt::planner
