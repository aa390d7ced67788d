// SPDX-License-Identifier: Apache-2.0
#include "planner/elementary_configs.hpp"

#include <algorithm>

namespace ipt::planner {
namespace {

// Largest power of two <= x (x >= 1).
std::size_t floor_pow2(std::size_t x) {
  std::size_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// Smallest power of two >= x.
std::size_t ceil_pow2(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p *= 2;
  return p;
}

}  // namespace

std::uint64_t bs_local_elements(std::uint64_t tile_elements, std::uint64_t tiles_per_group) {
  // PAD(x) = x + x / 32 of kernels/bs.cl, applied to the last slot, plus one.
  const std::uint64_t last = tile_elements * tiles_per_group - 1;
  return last + last / 32 + 1;
}

std::uint64_t pttwac_flag_words(std::uint64_t n, std::size_t spreading, bool padding) {
  // Same map as flag_word() of kernels/pttwac.cl, applied to the last position.
  const std::uint64_t word = (n - 1) * spreading / 32;
  return word + (padding ? word / 32 : 0) + 1;
}

std::uint64_t soa_chunk_capacity(const SoaConfig& config, std::size_t local_mem_bytes,
                                 std::size_t elem_size) {
  if (config.regs > 0) return std::uint64_t{config.regs} * config.vw;
  // The kernel's own local arrays: pub_base[2][UNITS] (64-bit at most), pub_state[2][UNITS]
  // and live[3].
  const std::size_t fixed = 2 * config.units * (8 + 4) + 3 * 4;
  if (local_mem_bytes <= fixed) return 0;
  return (local_mem_bytes - fixed) / (2 * config.units * elem_size);
}

std::uint64_t soa_chunk(const SoaConfig& config, std::size_t local_mem_bytes, std::size_t elem_size,
                        std::uint64_t C) {
  const std::uint64_t capacity = soa_chunk_capacity(config, local_mem_bytes, elem_size);
  return std::min(C, config.chunk == 0 ? capacity : config.chunk);
}

std::size_t soa_slice_items(std::uint64_t items, std::uint64_t launch_units) {
  const std::uint64_t words = (items + 31) / 32;
  std::size_t slice = 32;
  while (slice > 1 && words * (32 / (slice / 2)) <= launch_units) slice /= 2;
  return slice;
}

std::uint64_t soa_flag_bytes(std::uint64_t items) { return ((items + 31) / 32 + 1) * 4; }

std::uint64_t soa_launch_flag_bytes(const SoaConfig& config, std::size_t local_mem_bytes,
                                    std::size_t elem_size, std::uint64_t I, std::uint64_t A,
                                    std::uint64_t B, std::uint64_t C) {
  const std::uint64_t L =
      std::max<std::uint64_t>(1, soa_chunk(config, local_mem_bytes, elem_size, C));
  return soa_flag_bytes(I * A * B * ((C + L - 1) / L));
}

std::uint64_t restride_scratch_bytes(const RestrideConfig& config, std::uint64_t elements) {
  const std::uint64_t chunk = std::uint64_t{config.work_group} * config.per_item;
  return ((elements + chunk - 1) / chunk + 1) * 4;  // the id counter, a flag per chunk
}

bool bs_fits(const DeviceProfile& device, std::uint64_t B, std::uint64_t C, std::size_t elem_size) {
  if (B == 0 || C == 0) return false;
  // A tile of more elements than local memory has bytes never fits; deciding that first
  // keeps the products below from wrapping (a tile of about 2^60 16-byte elements once
  // "fitted" in 528 bytes).
  const std::uint64_t usable = usable_local_bytes(device);
  if (B > usable || C > usable / B) return false;
  return bs_local_elements(B * C, 1) * elem_size <= usable;
}

// Default work-groups stay at or below 256 work-items: NVIDIA's OpenCL compiler gives
// these kernels, and the square kernel, a CL_KERNEL_WORK_GROUP_SIZE of 256, so larger
// groups would be refused at launch.
constexpr std::size_t kMaxDefaultWorkGroup = 256;

BsConfig choose_bs(const DeviceProfile& device, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                   std::size_t elem_size) {
  BsConfig config;
  const std::uint64_t n = B * C;
  const std::size_t max_wg = std::max<std::size_t>(1, device.max_work_group_size);
  config.words = device.word_bytes >= 4;  // IPT_OVERRIDES word=1: element by element
  if (n < 512) {
    // Small tiles: about 1024 elements per group, so every lane moves ~4 elements, and at
    // most half the local memory so that two groups share a compute unit. (One 16 x 16
    // tile per group of 128 ran at 57% of copy, four tiles per group at 79%.)
    std::uint64_t tiles = std::max<std::uint64_t>(1, 1024 / n);
    tiles = std::min<std::uint64_t>(tiles, std::max<std::uint64_t>(A, 1));
    while (tiles > 1 && bs_local_elements(n, tiles) * elem_size > device.local_mem_bytes / 2)
      tiles /= 2;
    config.tiles_per_group = tiles;
    config.work_group = std::min<std::size_t>(kMaxDefaultWorkGroup, floor_pow2(max_wg));
  } else {
    // One tile per group; about four elements per work-item, 128..256 work-items.
    const std::uint64_t wanted = std::clamp<std::uint64_t>(n / 4, 128, kMaxDefaultWorkGroup);
    config.work_group =
        std::min<std::size_t>(floor_pow2(static_cast<std::size_t>(wanted)), floor_pow2(max_wg));
  }
  return config;
}

std::size_t usable_local_bytes(const DeviceProfile& device) {
  return device.local_mem_bytes > 4096 ? device.local_mem_bytes - 1024 : device.local_mem_bytes / 2;
}

PttwacConfig choose_pttwac(const DeviceProfile& device, std::uint64_t B, std::uint64_t C) {
  PttwacConfig config;
  const std::uint64_t n = B * C;
  config.work_group = std::min<std::size_t>(
      kMaxDefaultWorkGroup, floor_pow2(std::max<std::size_t>(1, device.max_work_group_size)));
  config.padding = true;
  // The widest spreading (up to 16: PPoPP found 32 no better, and it costs as much local
  // memory as BS) whose flags take at most half the local memory; else R = 1 if the
  // flags fit at all; else global flags.
  for (std::size_t r : {16, 8, 4, 2, 1}) {
    if (pttwac_flag_words(n, r, true) * 4 <= device.local_mem_bytes / 2) {
      config.spreading = r;
      return config;
    }
  }
  config.spreading = 1;
  config.global_flags = pttwac_flag_words(n, 1, true) * 4 > usable_local_bytes(device);
  return config;
}

SoaConfig choose_soa(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size) {
  SoaConfig config;
  const std::size_t simd = std::max<std::size_t>(1, device.simd_width);
  const std::size_t max_wg = std::max<std::size_t>(1, device.max_work_group_size);
  const std::size_t group = std::min<std::size_t>(kMaxDefaultWorkGroup, floor_pow2(max_wg));
  // Register tiling for every C (the kernel guards each lane's last, partial register, so
  // C need not divide or be a multiple of the unit width as in PPoPP §5.2): registers
  // spare the kernel a round trip through local memory and its barriers, and it ran
  // 1.1-2x faster than local-memory tiling at every C measured. The unit: the smallest
  // power of two from 4 lanes up to the SIMD width that holds C in about kLaneBytes per
  // lane (measured best at 16-24 bytes of f32 per lane: 4-6 registers; units narrower
  // than 4 lanes lost at every C, even C = 1). Wider C is cut into chunks of max_regs per
  // lane.
  constexpr std::size_t kLaneBytes = 24;
  constexpr std::size_t kMinLanes = 4;
  const std::size_t lane_regs = std::clamp<std::size_t>(kLaneBytes / elem_size, 1, 16);
  const std::size_t max_regs = std::clamp<std::size_t>(64 / elem_size, 2, 16);
  const std::size_t widest = std::min(simd, group);
  std::size_t vw = 1;
  while (vw < widest && (vw < kMinLanes || (C + vw - 1) / vw > lane_regs)) vw *= 2;
  config.vw = vw;
  // Work-groups of 64 work-items: a group steps at the pace of its slowest unit (one
  // barrier per step), and groups of 64 ran every measured 0100! stage 5-13% faster than
  // groups of 256 (ipt-kernel-bench soa --soa-shapes); 64 is also the smallest size that
  // still fills a compute unit that holds at most 32 resident groups.
  constexpr std::size_t kSoaGroup = 64;
  config.units = std::max<std::size_t>(1, std::min(group, kSoaGroup) / vw);
  const std::size_t regs =
      static_cast<std::size_t>(std::min<std::uint64_t>(max_regs, (C + vw - 1) / vw));
  config.chunk = std::min<std::uint64_t>(C, std::uint64_t{regs} * vw);
  // REGS is a build option: rounded up to a power of two (the kernel skips the registers
  // past a lane's share of the chunk), an element size has a few register counts per unit
  // width instead of sixteen, so that every variant can be built ahead of the calls
  // (kernel_variants.hpp). max_regs is a power of two, so the rounding stays within it.
  config.regs = ceil_pow2(regs);
  // Enough groups of 64 to fill every compute unit (2048 work-items each) twice.
  config.max_groups = std::max<std::uint64_t>(1, 64 * std::uint64_t{device.compute_units});
  return config;
}

RestrideConfig choose_restride(const DeviceProfile& device, std::size_t elem_size,
                               std::uint64_t elements) {
  RestrideConfig config;
  config.work_group = std::min<std::size_t>(
      kMaxDefaultWorkGroup, floor_pow2(std::max<std::size_t>(1, device.max_work_group_size)));
  const std::size_t words = elements > (std::uint64_t{1} << 31) ? 32 : 16;
  const std::size_t size = std::max<std::size_t>(1, elem_size);
  config.per_item = std::min<std::size_t>(
      {words * std::max<std::size_t>(1, 4 / size), kMaxRestrideItems, kMaxRestrideBytes / size});
  config.word_bytes = device.word_bytes;
  return config;
}

SoaConfig pttwac_global_soa(const PttwacConfig& config) {
  SoaConfig soa;
  soa.vw = 1;
  soa.units = config.work_group;
  soa.regs = 1;
  soa.chunk = 1;
  soa.max_groups = config.max_groups;
  soa.force_index64 = config.force_index64;
  return soa;
}

std::uint64_t pttwac_launch_flag_bytes(const PttwacConfig& config, std::size_t local_mem_bytes,
                                       std::size_t elem_size, std::uint64_t A, std::uint64_t B,
                                       std::uint64_t C) {
  if (!config.global_flags || A == 0 || B <= 1 || C <= 1) return 0;
  return soa_launch_flag_bytes(pttwac_global_soa(config), local_mem_bytes, elem_size, A, B, C, 1);
}

std::uint64_t word_factor(const DeviceProfile& device, std::size_t elem_size, std::uint64_t run,
                          std::uint64_t offset, std::uint64_t split) {
  return word_factor(device.word_bytes, elem_size, run, offset, split);
}

std::uint64_t word_factor(std::size_t word_bytes, std::size_t elem_size, std::uint64_t run,
                          std::uint64_t offset, std::uint64_t split) {
  for (std::uint64_t k = word_bytes / std::min(elem_size, word_bytes); k > 1; k /= 2)
    if (run % k == 0 && offset % k == 0 && split % k == 0) return k;
  return 1;
}

}  // namespace ipt::planner
