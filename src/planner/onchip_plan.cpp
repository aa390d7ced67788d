#include "planner/onchip_plan.hpp"

#include <algorithm>

namespace ipt::planner {

OnChipConfig choose_onchip(const DeviceProfile& device, std::size_t elem_size) {
  OnChipConfig config;
  if (elem_size == 0 || device.compute_units == 0) return config;
  std::size_t wg = 1024;
  while (wg > device.max_work_group_size) wg /= 2;
  if (wg < kOnChipTile) return config;  // a tile row per work-item at least
  const std::size_t words_per_element = std::max<std::size_t>(1, elem_size / 4);
  const std::size_t elements_per_item = kOnChipRegisterWords / words_per_element;
  const std::size_t tiles = elements_per_item * wg / (kOnChipTile * kOnChipTile);
  // Local memory: the staged tiles (32 x 33 elements each) and a sink word per item.
  const std::size_t tile_bytes = kOnChipTile * (kOnChipTile + 1) * elem_size;
  const std::size_t fixed = 4 * wg + 64;
  if (tiles == 0 || device.local_mem_bytes < fixed + tile_bytes) return config;
  config.work_group = wg;
  config.tiles = tiles;
  config.stage = std::min<std::size_t>({8, tiles, (device.local_mem_bytes - fixed) / tile_bytes});
  config.groups = device.compute_units;
  config.patience = 1u << 16;
  config.elem_size = elem_size;
  config.stage_bytes = device.local_mem_bytes - fixed;
  return config;
}

namespace {

std::uint64_t staged_tile_bytes(const OnChipConfig& config, const OnChipTile& tile) {
  return tile.rows * (tile.cols + 1) * config.elem_size;  // +1: see onchip.cl
}

}  // namespace

OnChipTile onchip_tile(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols) {
  OnChipTile tile;
  if (config.work_group == 0) return tile;
  const bool narrow = cols < kOnChipTile && cols <= rows;
  const bool short_ = !narrow && rows < kOnChipTile;
  if (!narrow && !short_) return tile;
  // Square tiles whenever they fit: fewer, fuller tiles leave groups idle (a tenth of
  // the groups for 12021 x 3), and skinny doubles that fit either way ran 15% slower in
  // narrow tiles on the H200, floats 4%.
  const std::uint64_t square_tiles =
      ((rows + kOnChipTile - 1) / kOnChipTile) * ((cols + kOnChipTile - 1) / kOnChipTile);
  if (square_tiles <= config.groups * config.tiles) return tile;
  std::uint64_t side = std::max<std::uint64_t>(1, kOnChipTileArea / config.work_group);
  while (side < (narrow ? cols : rows)) side *= 2;
  OnChipTile shaped;
  shaped.rows = narrow ? kOnChipTileArea / side : side;
  shaped.cols = narrow ? side : kOnChipTileArea / side;
  if (staged_tile_bytes(config, shaped) > config.stage_bytes) return tile;
  return shaped;
}

std::size_t onchip_stage_tiles(const OnChipConfig& config, const OnChipTile& tile) {
  return std::min<std::size_t>(
      {8, config.tiles,
       static_cast<std::size_t>(config.stage_bytes / staged_tile_bytes(config, tile))});
}

std::uint64_t onchip_tiles(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols) {
  const OnChipTile tile = onchip_tile(config, rows, cols);
  return ((rows + tile.rows - 1) / tile.rows) * ((cols + tile.cols - 1) / tile.cols);
}

bool onchip_fits(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols) {
  if (config.work_group == 0 || rows == 0 || cols == 0) return false;
  // The kernel indexes the matrix with 32-bit offsets from its start.
  if (rows > UINT32_MAX / cols) return false;
  return onchip_tiles(config, rows, cols) <= config.groups * config.tiles;
}

}  // namespace ipt::planner
