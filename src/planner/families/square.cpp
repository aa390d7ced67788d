// SPDX-License-Identifier: Apache-2.0
// Square (kernels/square.cl): tiles swapped across the diagonal of n x n matrices.
#include "planner/families/square.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/families/step_building.hpp"
#include "planner/families/variants.hpp"
#include "planner/narrow_words.hpp"

namespace ipt::planner {

std::size_t square_local_bytes(std::size_t tile, std::size_t elem_size, TileLayout layout,
                               std::size_t word) {
  if (word > 1) return 2 * tile * (tile / word + 1) * 4;  // kernels/square.cl, WSTRIDE
  return static_cast<std::size_t>(2 * tile_slots(tile, tile, layout)) * elem_size;
}

std::size_t square_words(const SquarePlan& plan, std::uint64_t n, std::size_t elem_size,
                         std::uint64_t offset, bool split, std::size_t local_mem_bytes) {
  if (!plan.words || plan.layout != TileLayout::kPadded) return 1;
  const std::size_t word = narrow_word(elem_size, offset, split, n);
  if (word == 1 || plan.tile % word != 0 ||
      square_local_bytes(plan.tile, elem_size, plan.layout, word) > local_mem_bytes)
    return 1;
  return word;
}

bool square_vectors(const SquarePlan& plan, std::size_t elem_size, bool split) {
  return plan.vectors && elem_size == 4 && !split && plan.tile % (4 * plan.wg_rows) == 0;
}

SquarePlan plan_square(const DeviceProfile& device, std::uint64_t n, std::size_t elem_size,
                       std::size_t forced_tile, std::size_t forced_wg_rows, TileLayout layout) {
  SquarePlan plan;
  plan.layout = layout;
  // Words for 1- and 2-byte elements unless the device's profile keeps them element by
  // element (IPT_OVERRIDES word=1). One element per work-item, such squares ran at 56%
  // (1-byte) and 81% (2-byte) of the copy bandwidth, against 93% for floats.
  plan.words = device.word_bytes >= 4;
  plan.tile = 8;
  for (std::size_t tile : {64, 32, 16}) {
    if (square_local_bytes(tile, elem_size, layout) <= device.local_mem_bytes * 3 / 4 &&
        tile * 4 <= device.max_work_group_size) {
      plan.tile = tile;
      break;
    }
  }
  // Four rows of work-items: each moves tile / 4 elements of each tile, which keeps many
  // loads in flight per work-item. Measured (f32, n = 16384): 64 x 4 reached 86% of the
  // copy bandwidth, 32 x 4 82%, 32 x 8 80%, 16 x 4 48%.
  plan.wg_rows = 4;
  while (plan.tile * plan.wg_rows > device.max_work_group_size && plan.wg_rows > 1)
    plan.wg_rows /= 2;
  // Word tiles (square_words: n a multiple of the word) have rows of 32 words, whole
  // 128-byte lines, in work-groups of 32 x 8: 128 x 128 tiles of 1-byte elements ran at
  // 84% of the copy bandwidth (16384^2), 64 x 64 ones at 59%; 2-byte elements take
  // 64 x 64 either way (88%). Work-groups of 512 did not compile for words on NVIDIA.
  if (plan.words && layout == TileLayout::kPadded && (elem_size == 1 || elem_size == 2) &&
      n % (4 / elem_size) == 0) {
    const std::size_t word = 4 / elem_size, tile = 32 * word;
    if (square_local_bytes(tile, elem_size, layout, word) <= device.local_mem_bytes * 3 / 4 &&
        device.max_work_group_size >= 256) {
      plan.tile = tile;
      plan.wg_rows = 8 / word;
    }
  }
  // Vector rows where rows do not start on cache lines: element by element, each warp's
  // 128 bytes then touch two lines. Measured (f32, 64 x 4 tiles): 24577^2 ran at 78-79% of
  // the copy bandwidth against 73-74%, 30011^2 77% against 71%, 10007^2 78-79% against
  // 73-74%; rows of whole lines gain nothing (12000^2: 87.7% against 88.4%). 8-byte
  // elements lost (15001^2: 74% against 79%), so they stay element by element.
  const bool rows_off_lines = device.line_bytes > 0 && n * elem_size % device.line_bytes != 0;
  plan.vectors = rows_off_lines && elem_size == 4;
  // Pairs in bands of tile columns (kernels/square.cl says why) where rows do not start on
  // cache lines and a tile column holds more than 6 MiB: floats and doubles (tiles of 256
  // bytes across) of more than 24576 rows. Down the tile columns, the pairs that share a
  // line come a tile column apart. Measured (ipt-kernel-bench square, both orders in one
  // run, bands of 32): floats 46349^2 at 81% of the copy bandwidth, 38011^2 82.5%,
  // 30011^2 82-83% against 78-79% down the columns, 27011^2 83% against 82%, 24577^2 80%
  // either way, 20011^2 80% against 82%; doubles 30011^2 77-79%, 24577^2 79% against
  // 77.5%, 21011^2 and 19997^2 79-80% either way (docs/results/square-band-width.log).
  // Floats ran fastest in bands of 32 (against 64, 48, 24, 16, 12, 8, 4 and 2), doubles in
  // 32 and 64 alike (16 and 8 slower); 1-, 2- and 16-byte elements (tiles of 64, 128 and
  // 512 bytes across) keep 8, not measured. Rows of whole lines ran as fast either way (36000^2 and
  // 40000^2 floats: 90-99%).
  plan.band = rows_off_lines && n > kSquareBandFromColumnBytes / (plan.tile * elem_size)
                  ? square_band(elem_size)
                  : 0;
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

using namespace steps;

Step square_step(const StepSite& site, std::uint64_t n, const SquarePlan& plan) {
  check_elem_size(site.elem_size);
  if (plan.layout == TileLayout::kSwizzled && (plan.tile & (plan.tile - 1)) != 0)
    throw std::invalid_argument("square: swizzled tiles need a power-of-two tile, not " +
                                std::to_string(plan.tile));
  // Every index the kernel forms is below offset + matrices * n * n; the pair arithmetic
  // stays far below it.
  const std::uint64_t elements = plan.matrices * n * n;
  const bool index64 = site.index64 || needs_index64(site.offset, elements, /*strides=*/false);
  // Word tiles keep the work-group's size: TILE / word x WG_ROWS * word work-items.
  const std::size_t word =
      square_words(plan, n, site.elem_size, site.offset, site.split != 0, site.local_mem_bytes);
  const std::size_t rows = plan.wg_rows * word;
  const bool vectors = word == 1 && square_vectors(plan, site.elem_size, site.split != 0);
  Step step = launch(Family::kSquare, site, index64,
                     " -DTILE=" + std::to_string(plan.tile) + " -DWG_ROWS=" + std::to_string(rows) +
                         (word > 1 ? " -DIPT_WORDS=" + std::to_string(word)
                                   : std::string(tile_layout_option(plan.layout))) +
                         (vectors ? " -DIPT_VECTORS=1" : ""),
                     plan.grid_x, plan.tile / word);
  step.dims = 2;
  step.global[1] = plan.grid_y * rows;
  step.local[1] = rows;
  step.args = {buffer_arg(Buffer::kMatrix), index_arg(site.offset),   index_arg(n),
               index_arg(plan.num_pairs),   index_arg(plan.matrices), index_arg(plan.band)};
  step.touches = elements;
  step.move = permute(plan.matrices, n, n, 1);
  step.what = "tiled swap across the diagonal: tiles of " + std::to_string(plan.tile) + " x " +
              std::to_string(plan.tile) + ", work-groups of " + std::to_string(plan.tile / word) +
              " x " + std::to_string(rows);
  if (plan.layout == TileLayout::kSwizzled) step.what += ", swizzled tiles";
  if (word > 1) step.what += ", moved as 4-byte words";
  if (vectors) step.what += ", rows moved in 16-byte vectors";
  if (plan.band != 0)
    step.what += ", pairs in bands of " + std::to_string(plan.band) + " tile columns";
  if (plan.matrices > 1) step.what += ", " + std::to_string(plan.matrices) + " matrices";
  return with_split(std::move(step), site);
}

// n = 64 takes word tiles where the element size has them, 65 never; an odd offset moves
// the word tiles' plan element by element.
void square_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out) {
  for (const std::uint64_t n : {64, 65})
    out.push_back(square_step(at, n, plan_square(device, n, at.elem_size)));
  StepSite odd = at;
  odd.offset = 1;
  out.push_back(square_step(odd, 64, plan_square(device, 64, at.elem_size)));
}

}  // namespace ipt::planner
