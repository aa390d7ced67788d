// SPDX-License-Identifier: Apache-2.0
// The on-chip kernel (kernels/onchip.cl): a whole matrix, or rounds of small ones, in one kernel,
// and its probe.
#include "planner/families/onchip.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "planner/families/step_building.hpp"
#include "planner/families/variants.hpp"
#include "planner/work_limits.hpp"

namespace ipt::planner {

namespace {

std::uint64_t staged_tile_bytes(std::size_t elem_size, const OnChipTile& tile, TileLayout layout) {
  // Narrow and short tiles: by rows, a slot of padding after every 128 bytes, in any layout
  // (onchip.cl, PADDED).
  if (onchip_runtime_tile(tile)) {
    const std::uint64_t elements = tile.rows * tile.cols, pad_every = 128 / elem_size;
    return (elements + (elements - 1) / pad_every) * elem_size;
  }
  if (tile.block > 1)  // a block per slot
    return tile_slots(tile.rows / tile.block, tile.cols / tile.block, layout) * tile.block *
           tile.block * elem_size;
  if (tile.word > 1)  // rows of the loaded words and a padding word, and a byte per row
    return (tile.rows + tile.word) * ((tile.cols / tile.word + 2) * 4 + 1);
  return tile_slots(tile.rows, tile.cols, layout) * elem_size;  // onchip.cl, IPT_SWIZZLE
}

// The narrow (short) tile of `side` < 32 columns (rows): as many rows (columns) as 1024
// elements hold.
OnChipTile skinny_tile(std::uint64_t side, bool narrow) {
  OnChipTile tile;
  tile.rows = narrow ? kOnChipTileArea / side : side;
  tile.cols = narrow ? side : kOnChipTileArea / side;
  return tile;
}

// Elements of local memory a staged tile of the runtime-shaped build takes: room for the
// largest narrow or short tile that onchip_tile can return (STAGE_SLOTS of onchip.cl).
std::uint64_t runtime_tile_slots(const OnChipConfig& config) {
  std::uint64_t slots = 0;
  for (std::uint64_t side = 2; side < kOnChipTile; ++side)
    for (const bool narrow : {false, true}) {
      const std::uint64_t bytes =
          staged_tile_bytes(config.elem_size, skinny_tile(side, narrow), {});
      if (bytes <= config.stage_bytes) slots = std::max(slots, bytes / config.elem_size);
    }
  return slots;
}

// Bytes of local memory a staged (or held) tile of this shape takes in `layout`: for a
// narrow or short one, those of the largest (one build holds them all).
std::uint64_t stage_slot_bytes(const OnChipConfig& config, const OnChipTile& tile,
                               TileLayout layout) {
  return onchip_runtime_tile(tile) ? runtime_tile_slots(config) * config.elem_size
                                   : staged_tile_bytes(config.elem_size, tile, layout);
}

std::uint64_t tile_count(const OnChipTile& tile, std::uint64_t rows, std::uint64_t cols) {
  return ((rows + tile.rows - 1) / tile.rows) * ((cols + tile.cols - 1) / tile.cols);
}

// The configuration with `per_unit` groups per compute unit, which share its 1024
// work-items' registers and its local memory; word tiles left as they are (work_group 0:
// none fits).
OnChipConfig sized_onchip(const DeviceProfile& device, std::size_t elem_size, TileLayout layout,
                          std::size_t per_unit) {
  OnChipConfig config;
  config.layout = layout;
  std::size_t wg = 1024 / per_unit;
  while (wg > device.max_work_group_size) wg /= 2;
  if (wg < kOnChipTile) return config;  // a tile row per work-item at least
  const std::size_t words_per_element = std::max<std::size_t>(1, elem_size / 4);
  const std::size_t elements_per_item = kOnChipRegisterWords / words_per_element;
  const std::size_t tiles = elements_per_item * wg / kOnChipTileArea;
  // Local memory, for the staged and held tiles (a 32 x 32 tile stages as 32 x 33 padded,
  // 32 x 32 swizzled) and a sink word per item: what each group may take of the unit's,
  // less the 1 KiB NVIDIA keeps per group, at most a group's.
  const std::size_t unit =
      device.local_mem_per_unit != 0 ? device.local_mem_per_unit : device.local_mem_bytes;
  const std::size_t reserved = device.local_mem_per_unit != 0 ? 1024 : 0;
  const std::size_t local =
      std::min(device.local_mem_bytes, unit / per_unit > reserved ? unit / per_unit - reserved : 0);
  const std::size_t fixed = 4 * wg + 64;
  if (tiles == 0 || local < fixed + staged_tile_bytes(elem_size, {}, layout)) return config;
  config.work_group = wg;
  config.tiles = tiles;
  config.groups = device.compute_units * per_unit;
  config.groups_per_unit = static_cast<std::uint32_t>(per_unit);
  config.patience = kOnChipPatience;
  config.elem_size = elem_size;
  config.stage_bytes = local - fixed;
  config.hold = device.onchip_hold;
  config.stage = onchip_stage_tiles(config, {});
  return config;
}

}  // namespace

OnChipConfig choose_onchip(const DeviceProfile& device, std::size_t elem_size, TileLayout layout) {
  OnChipConfig config;
  config.layout = layout;
  if (elem_size == 0 || device.compute_units == 0) return config;
  // Two groups of 512 work-items per compute unit where it takes 1024, with the registers
  // and local memory of one group of 1024 between them: while one waits at a barrier (a
  // round of staged stores, the grid-wide wait) the other moves data. The 010! stages of
  // 7 random shapes ran 2-13% faster for floats (15095 x 18501: 0.831 against 0.952 ms),
  // 12-15% for 2-byte elements, 0-5% for doubles. Two groups need a compiler that keeps
  // each work-item to half a unit's registers: where it cannot be asked to
  // (Step::groups_per_unit), a probe finds the program crowded and calls go around it
  // (IPT_OVERRIDES onchip.groups=1 goes back to one group of 1024). One group where a
  // staged tile does not fit half the local memory. 1-byte elements in two groups: in the
  // random protocol's first 40 u8 shapes, on-chip steps in blocks ran at a median of 55%
  // of copy against 47% in one group, word tiles at 19% against 21%; of the 300 shapes'
  // whole calls, those with steps in blocks took a median of 0.94 of the time, those in
  // word tiles 1.00.
  // The padded layout decides for both, so that a layout changes only the staging (a
  // padded tile stages at least as many bytes as a swizzled one).
  std::size_t per_unit = device.onchip_groups;
  if (per_unit == 0)
    per_unit = device.max_work_group_size >= 1024 &&
                       sized_onchip(device, elem_size, TileLayout::kPadded, 2).work_group != 0
                   ? 2
                   : 1;
  config = sized_onchip(device, elem_size, layout, per_unit);
  config.blocks = config.work_group != 0 && elem_size < 4 && device.word_bytes >= 4;
  // Word tiles for 1-byte elements. 2-byte ones ran slower in them than one by one (010!
  // on (21, 322, 13709): 0.269 against 0.239 ms; 60 random shapes: a median of 709
  // against 793 GB/s): their gathers and part-words cost more than the loads and stores
  // saved. The kernel takes either (tests build both).
  if (config.work_group == 0 || elem_size != 1 || layout != TileLayout::kPadded) return config;
  const OnChipTile tile = onchip_word_tile(4 / elem_size);
  if (staged_tile_bytes(elem_size, tile, layout) <= config.stage_bytes &&
      onchip_group_tiles(config, tile) > 0)
    config.word = tile.word;
  return config;
}

OnChipTile onchip_word_tile(std::size_t word) {
  OnChipTile tile;
  tile.rows = 15 * word;  // TRW = 16 words hold an output row's share, wherever it starts
  tile.cols = 31 * word;  // TCW = 32 words hold a tile row, wherever it starts
  tile.word = word;
  return tile;
}

std::size_t onchip_register_tiles(const OnChipConfig& config, const OnChipTile& tile) {
  return static_cast<std::size_t>(config.tiles * kOnChipTileArea / tile.registers());
}

namespace {

bool holds_tiles(const OnChipConfig& config, const OnChipTile& tile) {
  return config.hold && tile.word == 1;
}

}  // namespace

// Held tiles make a round larger: fewer rounds, each with its grid-wide wait, and larger
// instances on chip. On 10 instances of the random protocol's shapes, floats held 8 tiles
// beside 20 in registers (3 staged) ran at 70-71% of copy against 67-69% with none held;
// doubles 4 beside 10 (1 staged) at 77-79% against 75-76%. Staging 8 tiles rather than 3
// changed nothing; the held ones are what counts.
std::size_t onchip_held_tiles(const OnChipConfig& config, const OnChipTile& tile) {
  if (!holds_tiles(config, tile)) return 0;
  const std::uint64_t staged = stage_slot_bytes(config, tile, config.layout);
  const std::uint64_t slots = config.stage_bytes / staged;
  const std::size_t stage = onchip_stage_tiles(config, tile);
  return slots > stage ? static_cast<std::size_t>(slots - stage) : 0;
}

std::size_t onchip_group_tiles(const OnChipConfig& config, const OnChipTile& tile) {
  return onchip_register_tiles(config, tile) + onchip_held_tiles(config, tile);
}

OnChipTile onchip_tile(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols) {
  OnChipTile tile;
  if (config.work_group == 0) return tile;
  const bool narrow = cols < kOnChipTile && cols <= rows;
  const bool short_ = !narrow && rows < kOnChipTile;
  if (config.word > 1) {
    const OnChipTile words = onchip_word_tile(config.word);
    if ((!narrow && !short_) ||
        tile_count(words, rows, cols) <= config.groups * onchip_group_tiles(config, words))
      return words;
  }
  if (!narrow && !short_) return tile;
  // Square tiles whenever they fit: fewer, fuller tiles leave groups idle (a tenth of the
  // groups for 12021 x 3), and skinny doubles that fit either way ran 15% slower in
  // narrow tiles, floats 4%. Exactly as narrow as the matrix, 40 such shapes of floats
  // took a median of 11% longer than in square tiles, doubles 8% (H200).
  if (tile_count(tile, rows, cols) <= config.groups * onchip_group_tiles(config, tile)) return tile;
  // As narrow (short) as the matrix, at least 2, where that tile stages in local memory;
  // else square ones (every narrow or short tile of 993 to 1024 elements stages padded as
  // those of 1024 nearly do, so none wider would).
  const OnChipTile shaped = skinny_tile(std::max<std::uint64_t>(2, narrow ? cols : rows), narrow);
  return staged_tile_bytes(config.elem_size, shaped, config.layout) <= config.stage_bytes ? shaped
                                                                                          : tile;
}

std::size_t onchip_stage_tiles(const OnChipConfig& config, const OnChipTile& tile) {
  const std::uint64_t staged = stage_slot_bytes(config, tile, config.layout);
  // In 16 KiB padded, so that a layout changes only what a staged tile takes.
  const std::uint64_t most =
      holds_tiles(config, tile)
          ? std::max<std::uint64_t>(1,
                                    16 * 1024 / stage_slot_bytes(config, tile, TileLayout::kPadded))
          : 8;
  return std::min<std::size_t>({static_cast<std::size_t>(std::min<std::uint64_t>(most, 8)),
                                onchip_register_tiles(config, tile),
                                static_cast<std::size_t>(config.stage_bytes / staged)});
}

std::uint64_t onchip_tiles(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols) {
  return tile_count(onchip_tile(config, rows, cols), rows, cols);
}

bool onchip_fits(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols) {
  if (config.work_group == 0 || rows == 0 || cols == 0) return false;
  // The kernel indexes the matrix with 32-bit offsets from its start.
  if (rows > UINT32_MAX / cols) return false;
  // Both ways round: a step's undo transposes the cols x rows result back, and word tiles
  // (32 x 128 bytes) count differently the other way.
  const auto holds = [&](std::uint64_t r, std::uint64_t c) {
    const OnChipTile tile = onchip_tile(config, r, c);
    return tile_count(tile, r, c) <= config.groups * onchip_group_tiles(config, tile);
  };
  return holds(rows, cols) && holds(cols, rows);
}

namespace {
// onchip_efficiency for instances that fill their tiles.
double full_tile_efficiency(std::size_t elem_size) { return elem_size >= 8 ? 0.8 : 0.72; }
}  // namespace

double onchip_efficiency(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols,
                         std::size_t elem_size) {
  // On-chip instances of 64 x 15000, 128 x 10000 and 160 x 20000 floats, whose tiles are
  // full, ran at 70-73% of copy, and 100 x 10000, whose last tile row is an eighth full,
  // at 61%; doubles at 75-76%. What a tile holds beyond the instance costs time: a skinny
  // instance (a few columns in 32-wide tiles) is slow.
  const double used = static_cast<double>(rows * cols) /
                      static_cast<double>(onchip_tiles(config, rows, cols) *
                                          onchip_tile(config, rows, cols).area());
  return full_tile_efficiency(elem_size) * std::sqrt(used);
}

namespace {

// The tile of blocks that elem_size-byte elements move in: 32 x 32 blocks of block x block
// elements, each row of a block one word (block 1: 32 x 32 elements, for elements of 4
// bytes or more). Blocks of 4-byte words; 1-byte elements also in 2 x 2 blocks of 2-byte
// words (`half`), for matrices whose rows are even but not a multiple of 4.
OnChipTile block_tile(std::size_t elem_size, bool half = false) {
  OnChipTile blocks;
  blocks.block = elem_size >= 4 ? 1 : half && elem_size == 1 ? 2 : 4 / elem_size;
  blocks.rows = blocks.cols = blocks.block * kOnChipTile;
  return blocks;
}

// Whole rows x cols instances that the groups of `config` hold in tiles of `tile` at once.
std::uint64_t instances_per_round(const OnChipConfig& config, const OnChipTile& tile,
                                  std::uint64_t rows, std::uint64_t cols) {
  return config.groups * onchip_group_tiles(config, tile) / tile_count(tile, rows, cols);
}

// Blocks for a step of 1- or 2-byte elements (kernels/onchip.cl, IPT_BLOCK): where its
// matrix's rows are a multiple of the block (so that every output row starts on a word),
// it starts on a word and a split matrix splits on one into a tail that starts on one,
// every store moves a whole word and every load one, or two where an input row starts
// inside a word; in 32 x 32 tiles of blocks.
// Blocks of 2 x 2 (2-byte elements in 4-byte words, 1-byte elements whose rows are even
// but not a multiple of 4 in 2-byte words) only where no row does: with odd columns they
// ran no faster than one by one or in word tiles (10 instances of the random protocol's
// shapes, 2-byte elements: a median of 47% of copy either way; 13 of 1-byte elements in
// 2 x 2 blocks 27-33% against 24-28%), where 4 x 4 blocks of bytes ran at 43% against 33%. The
// tile shape otherwise (narrow tiles, or blocks that do not fit on chip where those do).
OnChipTile step_tile(const OnChipConfig& config, const StepSite& site, std::uint64_t rows,
                     std::uint64_t cols) {
  const OnChipTile tile = onchip_tile(config, rows, cols);
  if (!config.blocks || site.elem_size > 2 || onchip_runtime_tile(tile)) return tile;
  const OnChipTile blocks = block_tile(site.elem_size, rows % 4 != 0);
  const std::uint64_t b = blocks.block;
  if (rows % b != 0 || (b == 2 && cols % b != 0) || site.offset % b != 0 || site.split % b != 0 ||
      site.tail.offset % (b * site.elem_size) != 0 ||
      staged_tile_bytes(site.elem_size, blocks, config.layout) > config.stage_bytes ||
      tile_count(blocks, rows, cols) > config.groups * onchip_group_tiles(config, blocks))
    return tile;
  return blocks;
}

// Rounds of `instances` whose tiles `config` moves (0: an instance does not fit).
std::uint64_t rounds_of(const OnChipConfig& config, const OnChipTile& tile, std::uint64_t instances,
                        std::uint64_t rows, std::uint64_t cols) {
  const std::uint64_t per_round = instances_per_round(config, tile, rows, cols);
  return per_round == 0 ? 0 : (instances + per_round - 1) / per_round;
}

// `config` without held tiles where they would not make the rounds fewer: its program
// has no held-tile code and less local memory, and whole small matrices ran faster in it
// (floats of 1707 x 1032: 25 us a call against 30).
OnChipConfig without_needless_hold(const OnChipConfig& config, const OnChipTile& tile,
                                   std::uint64_t instances, std::uint64_t rows,
                                   std::uint64_t cols) {
  if (onchip_held_tiles(config, tile) == 0) return config;
  OnChipConfig plain = config;
  plain.hold = false;
  const std::uint64_t rounds = rounds_of(plain, tile, instances, rows, cols);
  return rounds != 0 && rounds == rounds_of(config, tile, instances, rows, cols) ? plain : config;
}

}  // namespace

std::uint64_t onchip_block(const OnChipConfig& config, std::size_t elem_size, std::uint64_t offset,
                           std::uint64_t rows, std::uint64_t cols) {
  StepSite site;
  site.elem_size = elem_size;
  site.offset = offset;  // one buffer
  return step_tile(config, site, rows, cols).block;
}

double onchip_cost_without_blocks(const OnChipConfig& config, std::size_t elem_size,
                                  std::uint64_t rows, std::uint64_t cols) {
  if (elem_size > 2 || onchip_block(config, elem_size, 0, rows, cols) > 1) return 0;
  const double slowdown = elem_size == 1 ? 55.0 / 19.0 : 68.0 / 46.0;
  return (slowdown - 1) / full_tile_efficiency(elem_size);
}

using namespace steps;

bool onchip_narrow_waits(std::size_t elem_size) { return elem_size == 4; }

std::uint64_t onchip_scratch_bytes(const OnChipConfig& config, std::size_t elem_size) {
  if (!onchip_narrow_waits(elem_size)) return kOnChipSyncBytes;
  return kOnChipSyncBytes + 4 * std::min<std::uint64_t>(config.groups, kOnChipFlagWords);
}

namespace {

// The arguments of ipt_onchip, in its order: the matrix, its shape and rounds, the
// step's scratch words (step.flags), the groups awaited and for how long, the words zeroed
// on the way and the report.
void set_onchip_args(Step& step, const StepSite& site, std::uint64_t rows, std::uint64_t cols,
                     std::uint64_t instances, std::uint64_t per_round, std::uint64_t tile_cols_log2,
                     std::uint64_t groups, std::uint64_t patience, const Region& zeroes) {
  step.args = {buffer_arg(Buffer::kMatrix),
               index_arg(site.offset),
               uint_arg(rows),
               uint_arg(cols),
               uint_arg(instances),
               uint_arg(per_round),
               uint_arg(tile_cols_log2),
               buffer_arg(step.flags.buffer),
               ulong_arg(step.flags.offset / 4),
               uint_arg(groups),
               uint_arg(patience)};
  add_zeroing(step, zeroes);
  step.args.push_back(buffer_arg(Buffer::kReport));
}

}  // namespace

Step onchip_step(const StepSite& site, std::uint64_t instances, std::uint64_t rows,
                 std::uint64_t cols, const OnChipConfig& config, Region scratch, Region zeroes,
                 bool give_up) {
  check_elem_size(site.elem_size);
  if (!onchip_fits(config, rows, cols) || instances == 0 || instances > UINT32_MAX)
    throw std::logic_error("an on-chip step for a matrix that does not fit");
  const OnChipTile tile = step_tile(config, site, rows, cols);
  const OnChipConfig used = without_needless_hold(config, tile, instances, rows, cols);
  const std::uint64_t per_round = std::min(instances, instances_per_round(used, tile, rows, cols));
  const std::uint64_t block = tile.block;  // the kernel's rows and cols: of blocks
  const std::uint64_t block_cols = (cols + block - 1) / block;
  const std::uint64_t short_by = block_cols * block - cols;  // the last block column's
  const bool index64 = site.index64 || needs_index64(site.offset, instances * rows * cols);
  const bool runtime_tile = onchip_runtime_tile(tile);
  if (runtime_tile && tile.rows != kOnChipTileArea / tile.cols)
    throw std::logic_error("a narrow or short on-chip tile the kernel cannot derive");
  const std::string shape =
      runtime_tile
          ? " -DIPT_RUNTIME_TILE=1 -DSTAGE_SLOTS=" + std::to_string(runtime_tile_slots(config))
          : " -DTR=" + std::to_string(tile.rows / block) +
                " -DTC=" + std::to_string(tile.cols / block) +
                (block > 1 ? " -DIPT_BLOCK=" + std::to_string(block) : "") +
                (short_by > 0 ? " -DIPT_BLOCK_SHORT=" + std::to_string(short_by) : "");
  Step step = launch(Family::kOnChip, site, index64,
                     " -DWG=" + std::to_string(config.work_group) + shape +
                         " -DTILES=" + std::to_string(onchip_register_tiles(used, tile)) +
                         (onchip_held_tiles(used, tile) > 0
                              ? " -DHELD=" + std::to_string(onchip_held_tiles(used, tile))
                              : std::string()) +
                         " -DSTAGE=" + std::to_string(onchip_stage_tiles(used, tile)) +
                         (tile.word > 1  ? " -DIPT_WORDS=" + std::to_string(tile.word)
                          : runtime_tile ? std::string()  // always padded (onchip.cl)
                                         : std::string(tile_layout_option(config.layout))) +
                         (onchip_narrow_waits(site.elem_size)
                              ? " -DIPT_FLAGS_AT=" + std::to_string(kOnChipSyncBytes / 4) +
                                    " -DIPT_FLAG_WORDS=" + std::to_string(kOnChipFlagWords)
                              : std::string()),
                     config.groups, config.work_group);
  step.probed_launch = true;
  step.groups_per_unit = config.groups_per_unit;
  step.flags = placed(scratch, Buffer::kZeroScratch, onchip_scratch_bytes(config, site.elem_size));
  if (step.flags.buffer != Buffer::kZeroScratch)
    throw std::logic_error("the on-chip kernel's scratch is not zero scratch");
  // Waiting for one group more than launched never ends: the fallback.
  set_onchip_args(step, site, rows / block, block_cols, instances, per_round,
                  runtime_tile ? tile.cols : 0, config.groups + (give_up ? 1 : 0),
                  give_up ? 16u : config.patience, zeroes);
  step.touches = instances * rows * cols;
  step.move = permute(instances, rows, cols, 1);
  if (instances == 1)
    step.what =
        "on chip, in one kernel (one pass: every element read, a grid barrier, every "
        "element written; when the device cannot run every work-group at once, the same "
        "kernel follows the permutation's cycles instead)";
  else
    step.what = "010! on " + shape_text(instances, rows, cols) + ": on chip, rounds of whole " +
                std::to_string(rows) + " x " + std::to_string(cols) +
                " instances (cycle following in the same kernel if the device cannot run every "
                "work-group at once)";
  if (config.layout == TileLayout::kSwizzled) step.what += "; swizzled tiles";
  if (block > 1)
    step.what += "; moved as " + std::to_string(block * site.elem_size) +
                 "-byte words, in blocks of " + std::to_string(block) + " x " +
                 std::to_string(block);
  if (tile.word > 1)
    step.what += "; moved as 4-byte words, tiles of " + std::to_string(tile.rows) + " x " +
                 std::to_string(tile.cols);
  return with_split(std::move(step), site);
}

Step onchip_cycles_step(const StepSite& site, std::uint64_t instances, std::uint64_t rows,
                        std::uint64_t cols, const OnChipConfig& config, Region scratch) {
  check_elem_size(site.elem_size);
  if (config.work_group == 0 || instances == 0 || instances > UINT32_MAX ||
      rows * cols > UINT32_MAX)
    throw std::logic_error("cycle following on chip for a matrix it does not take");
  // Its few registers let NVIDIA's driver report the group it was built for: no probe.
  const std::size_t work_group = std::min(kMaxDefaultWorkGroup, config.work_group);
  OnChipConfig plain = config;
  plain.layout = TileLayout::kPadded;
  plain.hold = false;
  const std::size_t stage = std::max<std::size_t>(1, onchip_stage_tiles(plain, OnChipTile{}));
  const bool index64 = site.index64 || needs_index64(site.offset, instances * rows * cols);
  Step step =
      launch(Family::kOnChip, site, index64,
             " -DWG=" + std::to_string(work_group) + " -DTR=" + std::to_string(kOnChipTile) +
                 " -DTC=" + std::to_string(kOnChipTile) +
                 " -DTILES=1 -DSTAGE=" + std::to_string(stage) + " -DIPT_CYCLES_ONLY=1",
             config.groups, work_group);
  step.flags = placed(scratch, Buffer::kZeroScratch, kOnChipSyncBytes);  // no narrow waits
  if (step.flags.buffer != Buffer::kZeroScratch)
    throw std::logic_error("the on-chip kernel's scratch is not zero scratch");
  // The kernel reads neither the rounds nor the tile shape.
  set_onchip_args(step, site, rows, cols, instances, instances, 0, config.groups, config.patience,
                  {});
  step.touches = instances * rows * cols;
  step.move = permute(instances, rows, cols, 1);
  step.what = "010! on " + shape_text(instances, rows, cols) +
              ": cycle following (the on-chip kernel without its tiles)";
  return with_split(std::move(step), site);
}

constexpr std::size_t kTileShapeArg = 6;  // tile_cols_log2 of ipt_onchip

Step onchip_probe_step(const Step& onchip, ProbeGroups groups) {
  if (onchip.family != Family::kOnChip) throw std::logic_error("a probe of a non-on-chip step");
  Step probe = onchip;
  if (groups == ProbeGroups::kOne) probe.global[0] = probe.local[0];
  const std::uint64_t launched = probe.global[0] / probe.local[0];
  const std::uint64_t awaited = launched + (groups == ProbeGroups::kOneMore ? 1 : 0);
  probe.args = {buffer_arg(Buffer::kMatrix),
                index_arg(0),
                uint_arg(1),
                uint_arg(1),
                uint_arg(1),
                uint_arg(1),
                onchip.args[kTileShapeArg],  // the tile the kernel's staging is built for
                buffer_arg(Buffer::kZeroScratch),
                ulong_arg(0),
                uint_arg(awaited),
                uint_arg(kOnChipPatience),
                buffer_arg(Buffer::kZeroScratch),
                ulong_arg(0),
                ulong_arg(0),
                buffer_arg(Buffer::kReport)};
  probe.flags = {Buffer::kZeroScratch, 0, onchip.flags.bytes};
  probe.zeroes = {};
  probe.touches = 1;
  probe.move = permute(1, 1, 1, 1);
  // A split kernel's tail, never reached: the split past every element of the probe's
  // buffer (a block's words before it, none of them in the tail, the zero scratch).
  if (!onchip.tail.empty())
    probe.args.insert(probe.args.end(), {buffer_arg(Buffer::kZeroScratch), ulong_arg(0),
                                         index_arg(kOnChipProbeBytes / onchip.unit_bytes)});
  probe.what = "probe of the on-chip kernel";
  return probe;
}

// 32 x 32 (or word) tiles, and the narrow (short) tiles of matrices with 2 to 31 columns
// (rows) that those do not fit on chip: one for each power of two up to 32. (A single
// column or row moves nothing.)
void onchip_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out) {
  const OnChipConfig config = choose_onchip(device, at.elem_size, TileLayout::kPadded);
  if (config.work_group == 0) return;
  if (onchip_fits(config, 64, 64)) out.push_back(onchip_step(at, 1, 64, 64, config));
  // The undo of a step whose inverse would run a program of its own (launch_plan.cpp).
  out.push_back(onchip_cycles_step(at, 1, 64, 63, config));
  // 1- and 2-byte elements: the 64 x 64 above in blocks where `at` allows them (1-byte
  // ones also with rows 1 to 3 elements short of a block), and in word tiles or element
  // by element in 63 x 63.
  if (at.elem_size <= 2) {
    for (std::uint64_t short_by = 1; at.elem_size == 1 && short_by < 4; ++short_by)
      if (onchip_fits(config, 64, 64 - short_by))
        out.push_back(onchip_step(at, 1, 64, 64 - short_by, config));
    // 1-byte elements in 2 x 2 blocks: rows even, not a multiple of 4.
    if (at.elem_size == 1 && onchip_fits(config, 62, 64))
      out.push_back(onchip_step(at, 1, 62, 64, config));
    if (onchip_fits(config, 63, 63)) out.push_back(onchip_step(at, 1, 63, 63, config));
  }
  // More tiles than the groups' registers hold, which held tiles take on chip (onchip_step
  // holds tiles only then). In 32 x 32 tiles: a narrow matrix one tile longer than the
  // registers hold, of 29 columns (too narrow for word tiles, odd for blocks of 2-byte
  // elements) and rows one past a multiple of the tile (none of a block). In blocks:
  // instances of a block tile each, more than the registers hold in a round (of 1-byte
  // elements: also 1 to 3 columns short of a block).
  if (const OnChipTile square; onchip_held_tiles(config, square) > 0) {
    const std::uint64_t rows =
        square.rows * (config.groups * onchip_register_tiles(config, square)) + 1;
    if (onchip_fits(config, rows, kOnChipTile - 3))
      out.push_back(onchip_step(at, 1, rows, kOnChipTile - 3, config));
  }
  // Narrow tiles (one build for every width), more than the registers hold.
  if (const OnChipTile narrow = skinny_tile(3, true); onchip_held_tiles(config, narrow) > 0) {
    const std::uint64_t rows =
        narrow.rows * (config.groups * onchip_register_tiles(config, narrow)) + 1;
    if (onchip_fits(config, rows, narrow.cols))
      out.push_back(onchip_step(at, 1, rows, narrow.cols, config));
  }
  for (const bool half : {false, true}) {
    const OnChipTile blocks = block_tile(at.elem_size, half);
    if (blocks.block == 1 || (half && at.elem_size != 1) || onchip_held_tiles(config, blocks) == 0)
      continue;
    const std::uint64_t instances = config.groups * onchip_register_tiles(config, blocks) + 1;
    // Rows of 2 x 2 blocks of bytes: even, not a multiple of 4.
    const std::uint64_t rows = blocks.rows - (half ? 2 : 0);
    for (std::uint64_t short_by = 0; short_by < (blocks.block == 4 ? 4 : 1); ++short_by)
      if (onchip_fits(config, rows, blocks.cols - short_by))
        out.push_back(onchip_step(at, instances, rows, blocks.cols - short_by, config));
  }
  // Longer than the 32 x 32 tiles, or the word tiles along either side, hold.
  std::vector<std::uint64_t> lengths{
      kOnChipTile * (config.groups * onchip_group_tiles(config, OnChipTile{}) + 1)};
  if (config.word > 1) {
    const OnChipTile words = onchip_word_tile(config.word);
    const std::uint64_t beyond = config.groups * onchip_group_tiles(config, words) + 1;
    lengths.insert(lengths.end(), {words.rows * beyond, words.cols * beyond});
  }
  // Tall ones of 1- and 2-byte elements move in blocks; one row more, element by element.
  for (const std::uint64_t tall : lengths)
    for (std::uint64_t side = 2; side < kOnChipTile; ++side)
      for (const auto& [rows, cols] :
           {std::pair{tall, side}, std::pair{side, tall}, std::pair{tall + 1, side}})
        if (onchip_fits(config, rows, cols)) out.push_back(onchip_step(at, 1, rows, cols, config));
}

}  // namespace ipt::planner
