// SPDX-License-Identifier: Apache-2.0
#include "planner/cost_model.hpp"

#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/families/square.hpp"

namespace ipt::planner {

double estimated_cost(const DeviceProfile& device, const TransposePlan& plan, std::size_t elem_size,
                      TileLayout onchip_tiles) {
  // Every pass moves the padded matrix; the cost is relative to the caller's matrix.
  const double scale =
      static_cast<double>(plan.padded_elements()) / static_cast<double>(plan.rows * plan.cols);
  double cost = 0;
  if (plan.sequence == Sequence::kSquare) cost += scale / kSquareEfficiency;
  for (const Stage& s : plan.stages) {
    if (s.kind == Stage::Kind::k010 && s.onchip)
      cost += scale / onchip_efficiency(choose_onchip(device, elem_size, onchip_tiles), s.B, s.C,
                                        elem_size);
    else if (s.kind == Stage::Kind::k010)
      cost += scale / bs_efficiency(device, s.B, s.C, elem_size);
    else
      cost += scale / soa_stage_efficiency(device, s.C, elem_size);
  }
  if (plan.padded_cols != plan.cols)
    cost += scale / restride_efficiency(plan.cols * elem_size, elem_size, true);
  if (plan.padded_rows != plan.rows)
    cost += scale / restride_efficiency(plan.rows * elem_size, elem_size, false);
  return cost;
}

}  // namespace ipt::planner
