// SPDX-License-Identifier: Apache-2.0
#include "planner/cost_model.hpp"

#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/families/square.hpp"
#include "planner/step.hpp"

namespace ipt::planner {

namespace {

// What a 2.2 plan that pads columns pays beyond its passes' speeds where its 010! runs on
// chip and the matrix's rows are longer than a cache line but do not fill whole lines.
// Timed with room on an H100 (`ipt-kernel-bench plans --buffer padded`, three runs), such
// plans took a median of 1.06 (22 of the 50 primes) and 1.08 (12 of the 300 random f32
// shapes) of the time of the fastest 2.1 plan that pads rows, where the model rated them
// 3% cheaper; among unpadded plans, 2.2 and 2.1 showed no such gap. Likely cause: that
// on-chip step stores output rows of M elements, which then straddle lines, where the 2.1
// plan's are m long, m mostly a multiple of 32, and output rows on lines speed the step
// most (kernels/onchip.cl). Applied to the timed plans, this term moves 15 of those
// shapes to a row-padded plan, each 3-13% faster in the same runs. Only 4-byte elements
// were timed so: other sizes' padding keeps the model as it was. Nor were matrices whose
// indices take 64 bits, whose kernels run at other speeds: 90001 x 100003, which the term
// moved to a 2.1 plan that pads rows, took 1.03 of its 2.2 plan's time (CHANGELOG.md).
// Counted with the plan's on-chip 010! stage (estimated_cost).
double column_padding_onchip_cost(const DeviceProfile& device, const TransposePlan& plan,
                                  std::size_t elem_size) {
  const std::uint64_t row_bytes = plan.padded_rows * elem_size;
  const bool pads_columns = plan.sequence == Sequence::k22 && plan.padded_cols != plan.cols;
  if (!pads_columns || elem_size != 4 || needs_index64(0, plan.padded_elements()) ||
      device.line_bytes == 0 || row_bytes <= device.line_bytes || line_aligned(device, row_bytes))
    return 0;
  return 0.1;
}

}  // namespace

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
                                        elem_size) +
              scale * column_padding_onchip_cost(device, plan, elem_size);
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
