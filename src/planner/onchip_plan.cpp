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
  return config;
}

std::uint64_t onchip_tiles(std::uint64_t rows, std::uint64_t cols) {
  return ((rows + kOnChipTile - 1) / kOnChipTile) * ((cols + kOnChipTile - 1) / kOnChipTile);
}

bool onchip_fits(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols) {
  if (config.work_group == 0 || rows == 0 || cols == 0) return false;
  // The kernel indexes the matrix with 32-bit offsets from its start.
  if (rows > UINT32_MAX / cols) return false;
  return onchip_tiles(rows, cols) <= config.groups * config.tiles;
}

}  // namespace ipt::planner
