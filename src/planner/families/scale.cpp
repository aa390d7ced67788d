// SPDX-License-Identifier: Apache-2.0
// Scale (kernels/scale.cl): values transformed in place, rows of a strided matrix.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "planner/families/step_building.hpp"

namespace ipt::planner {

using namespace steps;

Step scale_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t stride,
                const ElementTransform& transform) {
  check_elem_size(site.elem_size);
  if (stride < len) throw std::invalid_argument("scale: the stride is shorter than the row");
  if (rows == 0 || len == 0 || transform.identity())
    return nothing(Family::kScale, "scale: nothing to do");
  const std::uint64_t extent = (rows - 1) * stride + len;
  const bool index64 = site.index64 || needs_index64(site.offset, extent);
  constexpr std::uint64_t kWorkGroup = 256;
  // A few elements per work-item for large matrices: a grid of at most 4096 groups.
  const std::uint64_t groups =
      std::min<std::uint64_t>(4096, (rows * len + kWorkGroup - 1) / kWorkGroup);
  Step step = launch(Family::kScale, site, index64, "", groups, kWorkGroup);
  step.args = {buffer_arg(Buffer::kMatrix), index_arg(site.offset), index_arg(rows), index_arg(len),
               index_arg(stride)};
  step.touches = extent;
  step.move = permute(1, 1, 1, 1);  // values change, places do not
  step.what = std::to_string(rows) + " rows of " + std::to_string(len) + " elements (stride " +
              std::to_string(stride) + ")";
  add_transform(step, transform, site.elem_size);
  return step;
}

}  // namespace ipt::planner
