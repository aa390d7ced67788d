// The one-pass on-chip transposition (kernels/onchip.cl): when the whole matrix fits the
// registers of one work-group per compute unit, a single kernel reads it all, waits at a
// grid barrier and writes it back transposed. Pure C++: sized and decided here, without
// a device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"

namespace ipt::planner {

inline constexpr std::uint64_t kOnChipTile = 32;  // tiles of 32 x 32 elements

struct OnChipConfig {
  std::size_t work_group = 0;  // WG: a divisor of 1024, at least 32 (0: no on-chip plan)
  std::size_t tiles = 0;       // TILES: tiles one group holds in registers
  std::size_t stage = 0;       // STAGE: tiles staged in local memory per round of stores
  std::uint64_t groups = 0;    // groups launched, one per compute unit
  std::uint32_t patience = 0;  // polls the first group waits for the others to start
};

// Registers of 32 bits per work-item (of a 1024-item group) that hold elements: 40 left
// an H200's kernel at 64 registers with 60 bytes of spills, and fastest of 40 and 56.
inline constexpr std::size_t kOnChipRegisterWords = 40;

OnChipConfig choose_onchip(const DeviceProfile& device, std::size_t elem_size);

// Tiles of a rows x cols matrix, and whether `config` holds them all.
std::uint64_t onchip_tiles(std::uint64_t rows, std::uint64_t cols);
bool onchip_fits(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols);

}  // namespace ipt::planner
