// SPDX-License-Identifier: Apache-2.0
// The one-pass on-chip transposition (kernels/onchip.cl): when the whole matrix fits the
// registers of a compute unit's work-groups, a single kernel reads it all, waits at a
// grid barrier and writes it back transposed. Pure C++: sized and decided here, without
// a device.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/step.hpp"
#include "planner/tile_layout.hpp"

namespace ipt::planner {

// Tiles of 64 x 64 ran at most 2% faster, and 9-16% slower where instances have fewer
// than 300 rows.
inline constexpr std::uint64_t kOnChipTile = 32;  // tiles of 32 x 32 elements, or at most
inline constexpr std::uint64_t kOnChipTileArea = kOnChipTile * kOnChipTile;  // as many, skinny

// Polls the first group of the on-chip kernel makes for the others' arrival before it
// gives up on running them all at once.
inline constexpr std::uint32_t kOnChipPatience = 1u << 16;

struct OnChipConfig {
  std::size_t work_group = 0;         // WG: a divisor of 1024, at least 32 (0: no on-chip plan)
  std::size_t tiles = 0;              // TILES: tiles one group holds in registers
  std::size_t stage = 0;              // STAGE: tiles staged in local memory per round of stores
  std::uint64_t groups = 0;           // groups launched: one or two per compute unit
  std::uint32_t groups_per_unit = 0;  // of those, on each compute unit: one or two
  std::uint32_t patience = 0;         // polls the first group waits for the others to start
  std::size_t elem_size = 0;
  std::size_t stage_bytes = 0;  // local memory for staged tiles
  // The staged tiles' layout (IPT_SWIZZLE of kernels/onchip.cl).
  TileLayout layout = TileLayout::kPadded;
  // Elements per 4-byte word in word tiles (IPT_WORDS of kernels/onchip.cl): 4 for 1-byte
  // elements in the padded layout (choose_onchip); 1: elements move one by one.
  std::size_t word = 1;
  // 1- and 2-byte elements in 4 x 4 and 2 x 2 blocks of 4-byte words where a step's
  // matrix allows them (IPT_BLOCK of kernels/onchip.cl): unless DeviceProfile::word_bytes
  // is below 4.
  bool blocks = false;
  // Whether tiles beyond the staged ones that fit stage_bytes are held in local memory as
  // loaded (HELD of kernels/onchip.cl; element tiles and blocks): DeviceProfile::onchip_hold.
  // A step holds them only where that makes its rounds fewer (onchip_step).
  bool hold = false;
};

// The tile shape (TR x TC in onchip.cl) for a rows x cols matrix: 32 x 32, except for a
// matrix with fewer than 32 columns (rows) that does not fit in 32 x 32 tiles, whose
// tiles are exactly as narrow (short) as it, at least 2, and as long as 1024 elements
// allow (170 x 6, 113 x 9): the 32-wide tiles of 463844 x 6 floats were three-quarters
// empty and did not fit on chip, and tiles a power of two wide left 9 columns a 16-wide
// tile's 56%. Such a tile stages by rows, padded after every 128 bytes, in any layout,
// where it fits local memory; else the tile is square. With
// word tiles (config.word > 1; kernels/onchip.cl explains them), 15 x 31 words (60 x 124
// bytes, 30 x 62 2-byte elements) instead of 32 x 32, except for skinny matrices that
// then do not fit.
struct OnChipTile {
  std::uint64_t rows = kOnChipTile, cols = kOnChipTile;
  std::size_t word = 1;  // elements per register: IPT_WORDS
  // Blocks of block x block elements of 4-byte rows, as many registers as elements
  // (IPT_BLOCK): rows and cols count elements, `block` times the kernel's TR and TC.
  std::size_t block = 1;
  std::uint64_t area() const { return rows * cols; }
  // Registers of a group that hold it: a word tile loads a word more per row and stages
  // a word's rows more than it holds; narrow and short tiles of fewer than 1024 elements
  // take the registers of 1024.
  std::uint64_t registers() const {
    if (block > 1) return rows * cols / block;
    return word > 1 ? (rows + word) * (cols / word + 1) : std::max(rows * cols, kOnChipTileArea);
  }
};
OnChipTile onchip_word_tile(std::size_t word);

// Narrow and short tiles (element by element, not 32 x 32) share one kernel build, which
// takes the tile's width as an argument (IPT_RUNTIME_TILE of kernels/onchip.cl), and
// its twin that holds tiles in local memory too.
inline bool onchip_runtime_tile(const OnChipTile& tile) {
  return tile.word == 1 && tile.rows != tile.cols;
}

// Tiles of this shape that one group holds: in registers (TILES of the kernel built for
// it) and in local memory (HELD).
std::size_t onchip_register_tiles(const OnChipConfig& config, const OnChipTile& tile);
std::size_t onchip_held_tiles(const OnChipConfig& config, const OnChipTile& tile);
std::size_t onchip_group_tiles(const OnChipConfig& config, const OnChipTile& tile);
OnChipTile onchip_tile(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols);

// Tiles of `tile` staged in local memory per round of stores (STAGE), in config.layout:
// at most 8, and where the rest of stage_bytes holds tiles (onchip_held_tiles), those in
// 16 KiB (at least one). Narrow and short tiles all stage as many as the largest of them
// that onchip_tile returns (their one build has one local array).
std::size_t onchip_stage_tiles(const OnChipConfig& config, const OnChipTile& tile);

// Registers of 32 bits per work-item that hold elements: 40 fit the 64 registers a
// work-item of a 1024-wide group gets on a compute unit of 64K registers (with 60 bytes
// of spills), and ran fastest of 16, 24, 32, 40 and 56 (with two groups of 512 a unit,
// 16 words ran 8-18% slower, 24 and 32 up to 7%; from 48 the groups no longer all fit at
// once, and every call fell back to cycle following).
inline constexpr std::size_t kOnChipRegisterWords = 40;

// The configuration for elem_size-byte elements, its staged tiles in `layout`: padded
// ones of 1-byte elements in word tiles where a word tile stages. A swizzled
// configuration fits (onchip_fits) every matrix the padded one fits element by element,
// in as many tiles or fewer: only the staged bytes differ; with word tiles, a padded one
// fits more.
OnChipConfig choose_onchip(const DeviceProfile& device, std::size_t elem_size,
                           TileLayout layout = TileLayout::kPadded);

// Tiles of a rows x cols matrix (onchip_tile), and whether `config` holds them all, and
// those of its transpose.
std::uint64_t onchip_tiles(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols);
bool onchip_fits(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols);

// Its cost curve: the fraction of the copy bandwidth that the on-chip kernel reaches
// moving instances of rows x cols elements (onchip.cl): what it loses is the tiles'
// unused rows and columns.
double onchip_efficiency(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols,
                         std::size_t elem_size);

// The elements per word of the blocks in which an on-chip step moves rows x cols
// elem_size-byte elements of one buffer from element `offset` (kernels/onchip.cl,
// IPT_BLOCK); 1 where it moves none. A split matrix keeps them where it splits on such a
// word into a tail that starts on one.
std::uint64_t onchip_block(const OnChipConfig& config, std::size_t elem_size, std::uint64_t offset,
                           std::uint64_t rows, std::uint64_t cols);

// What an on-chip step of rows x cols 1- or 2-byte elements (in one buffer, from a 4-byte
// word) costs beyond onchip_efficiency's estimate, in passes at full tiles, unless it moves
// them in blocks of 4-byte words (kernels/onchip.cl, IPT_BLOCK); 0 for wider elements.
// onchip_efficiency rates narrow elements as floats, which blocks come near and tiles of
// elements or words do not. On an H200, the random protocol's first 40 shapes
// (ipt-kernel-bench stages): u8 steps in blocks at a median of 55% of copy, in word tiles
// 19% (in two groups of 512 per compute unit); f16 in blocks 68%, one by one 46%
// (docs/results/stages-f16.log). 1-byte elements in 2 x 2 blocks of 2-byte words ran at
// 48-52%: as 4 x 4 ones.
double onchip_cost_without_blocks(const OnChipConfig& config, std::size_t elem_size,
                                  std::uint64_t rows, std::uint64_t cols);

// Its step builder (planner/families/onchip.cpp): its program holds tiles in local memory
// only where the rounds are fewer for it. A region left with Buffer::kNone is placed
// at the start of the call scratch (the on-chip kernel's: of the zero scratch), as a kernel run
// alone needs.
Step onchip_step(const StepSite& site, std::uint64_t instances, std::uint64_t rows,
                 std::uint64_t cols, const OnChipConfig& config, Region scratch = {},
                 Region zeroes = {}, bool give_up = false);

// The same transposition by the kernel's cycle following alone (IPT_CYCLES_ONLY of
// kernels/onchip.cl): elements one by one, no tile in registers, groups of
// kMaxDefaultWorkGroup, any shape that fits 32-bit instance indices. Slow, but a program
// a driver translates in a fraction of a tile program's time: the undo of an on-chip step
// whose inverse would need a program of its own (launch_plan.cpp), which every call builds
// first and runs only when a later command of the call fails.
Step onchip_cycles_step(const StepSite& site, std::uint64_t instances, std::uint64_t rows,
                        std::uint64_t cols, const OnChipConfig& config, Region scratch = {});

// Scratch of the on-chip kernel: its polled words (tickets, decision, loads announced,
// groups gone, arrivals at the fallback's barrier) on a cache line of their own; for
// 4-byte elements then a word per work-group (up to kOnChipFlagWords groups; more wait
// on the counter), which its narrow waits poll. Its fallback needs no flag per element
// (kernels/onchip.cl).
inline constexpr std::uint64_t kOnChipSyncBytes = 128;
inline constexpr std::uint64_t kOnChipFlagWords = 1024;
bool onchip_narrow_waits(std::size_t elem_size);
std::uint64_t onchip_scratch_bytes(const OnChipConfig& config, std::size_t elem_size);

// The on-chip kernel's probe: the kernel of `onchip` on a matrix of one element (one block
// where it moves blocks) in a buffer of kOnChipProbeBytes, with zero scratch of
// onchip's (its flags' size), every group it launches awaited with the patience of a call. For
// tests, it can await one group more than it launches (a device that cannot hold them all,
// whatever the device) or launch one group only (a device that holds them). It reports,
// through Buffer::kReport, kOnChipAllResident if every work-group ran at once and the
// kernel's own fallback would never be taken for want of room, anything else if not.
// Launching it also shows whether the device accepts the kernel's work-group: NVIDIA's
// driver under-reports this kernel's limit, so asking is not enough.
inline constexpr std::uint32_t kOnChipAllResident = 1;  // DECISION_GO of kernels/onchip.cl
inline constexpr std::uint64_t kOnChipProbeBytes = 16;  // a block of 4 x 4 bytes
enum class ProbeGroups { kAll, kOneMore, kOne };
Step onchip_probe_step(const Step& onchip, ProbeGroups groups = ProbeGroups::kAll);

}  // namespace ipt::planner
