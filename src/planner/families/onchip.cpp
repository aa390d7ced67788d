// SPDX-License-Identifier: Apache-2.0
// The on-chip kernel (kernels/onchip.cl): a whole matrix, or rounds of small ones, in one kernel,
// and its probe.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "planner/families/step_building.hpp"
#include "planner/families/variants.hpp"

namespace ipt::planner {

using namespace steps;

Step onchip_step(const StepSite& site, std::uint64_t instances, std::uint64_t rows,
                 std::uint64_t cols, const OnChipConfig& config, Region scratch, Region zeroes,
                 bool give_up) {
  check_elem_size(site.elem_size);
  if (!onchip_fits(config, rows, cols) || instances == 0 || instances > UINT32_MAX)
    throw std::logic_error("an on-chip step for a matrix that does not fit");
  const OnChipTile tile = onchip_tile(config, rows, cols);
  const std::size_t group_tiles = onchip_group_tiles(config, tile);
  const std::uint64_t per_round =
      std::min(instances, config.groups * group_tiles / onchip_tiles(config, rows, cols));
  const bool index64 = site.index64 || needs_index64(site.offset, instances * rows * cols);
  Step step =
      launch(Family::kOnChip, site, index64,
             " -DWG=" + std::to_string(config.work_group) + " -DTR=" + std::to_string(tile.rows) +
                 " -DTC=" + std::to_string(tile.cols) + " -DTILES=" + std::to_string(group_tiles) +
                 " -DSTAGE=" + std::to_string(onchip_stage_tiles(config, tile)) +
                 (tile.word > 1 ? " -DIPT_WORDS=" + std::to_string(tile.word)
                                : std::string(tile_layout_option(config.layout))),
             config.groups, config.work_group);
  step.probed_launch = true;
  step.flags = placed(scratch, Buffer::kZeroScratch, kOnChipScratchBytes);
  if (step.flags.buffer != Buffer::kZeroScratch)
    throw std::logic_error("the on-chip kernel's scratch is not zero scratch");
  step.args = {buffer_arg(Buffer::kMatrix), index_arg(site.offset), uint_arg(rows), uint_arg(cols),
               uint_arg(instances), uint_arg(per_round), buffer_arg(step.flags.buffer),
               ulong_arg(step.flags.offset / 4),
               // Waiting for one group more than launched never ends: the fallback.
               uint_arg(config.groups + (give_up ? 1 : 0)),
               uint_arg(give_up ? 16u : config.patience)};
  add_zeroing(step, zeroes);
  step.args.push_back(buffer_arg(Buffer::kReport));
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
  if (tile.word > 1)
    step.what += "; moved as 4-byte words, tiles of " + std::to_string(tile.rows) + " x " +
                 std::to_string(tile.cols);
  return with_split(std::move(step), site);
}

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
                buffer_arg(Buffer::kZeroScratch),
                ulong_arg(0),
                uint_arg(awaited),
                uint_arg(kOnChipPatience),
                buffer_arg(Buffer::kZeroScratch),
                ulong_arg(0),
                ulong_arg(0),
                buffer_arg(Buffer::kReport)};
  probe.flags = {Buffer::kZeroScratch, 0, kOnChipScratchBytes};
  probe.zeroes = {};
  probe.touches = 1;
  probe.move = permute(1, 1, 1, 1);
  if (!onchip.tail.empty())  // a split kernel's tail, never reached
    probe.args.insert(probe.args.end(),
                      {buffer_arg(Buffer::kZeroScratch), ulong_arg(0), index_arg(1)});
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
  // Longer than the 32 x 32 tiles, or the word tiles along either side, hold.
  std::vector<std::uint64_t> lengths{kOnChipTile * (config.groups * config.tiles + 1)};
  if (config.word > 1) {
    const OnChipTile words = onchip_word_tile(config.word);
    const std::uint64_t beyond = config.groups * onchip_group_tiles(config, words) + 1;
    lengths.insert(lengths.end(), {words.rows * beyond, words.cols * beyond});
  }
  for (const std::uint64_t tall : lengths)
    for (std::uint64_t side = 2; side < kOnChipTile; ++side)
      for (const auto& [rows, cols] : {std::pair{tall, side}, std::pair{side, tall}})
        if (onchip_fits(config, rows, cols)) out.push_back(onchip_step(at, 1, rows, cols, config));
}

}  // namespace ipt::planner
