// SPDX-License-Identifier: Apache-2.0
// Square (kernels/square.cl): tiles swapped across the diagonal of n x n matrices.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/families/step_building.hpp"
#include "planner/families/variants.hpp"

namespace ipt::planner {

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
  Step step = launch(Family::kSquare, site, index64,
                     " -DTILE=" + std::to_string(plan.tile) + " -DWG_ROWS=" + std::to_string(rows) +
                         (word > 1 ? " -DIPT_WORDS=" + std::to_string(word)
                                   : std::string(tile_layout_option(plan.layout))),
                     plan.grid_x, plan.tile / word);
  step.dims = 2;
  step.global[1] = plan.grid_y * rows;
  step.local[1] = rows;
  step.args = {buffer_arg(Buffer::kMatrix), index_arg(site.offset), index_arg(n),
               index_arg(plan.num_pairs), index_arg(plan.matrices)};
  step.touches = elements;
  step.move = permute(plan.matrices, n, n, 1);
  step.what = "tiled swap across the diagonal: tiles of " + std::to_string(plan.tile) + " x " +
              std::to_string(plan.tile) + ", work-groups of " + std::to_string(plan.tile / word) +
              " x " + std::to_string(rows);
  if (plan.layout == TileLayout::kSwizzled) step.what += ", swizzled tiles";
  if (word > 1) step.what += ", moved as 4-byte words";
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
