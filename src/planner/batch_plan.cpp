// SPDX-License-Identifier: Apache-2.0
#include "planner/batch_plan.hpp"

#include <stdexcept>
#include <string>

#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"

namespace ipt::planner {
namespace {

// One 010! pass over the batch, every matrix one instance: 2.1 with m = rows, whose
// 100! is on (1, cols, rows), an identity.
TransposePlan one_pass(std::uint64_t batch, std::uint64_t rows, std::uint64_t cols, bool onchip) {
  TransposePlan plan;
  plan.rows = plan.padded_rows = rows;
  plan.cols = plan.padded_cols = cols;
  plan.sequence = Sequence::k21;
  plan.m = rows;
  plan.batch = batch;
  plan.stages.push_back({Stage::Kind::k010, batch, 1, rows, cols, onchip});
  plan.stages.push_back({Stage::Kind::k0100, batch, 1, cols, rows, false});
  return plan;
}

}  // namespace

TransposePlan plan_batched_transpose(const DeviceProfile& device, std::uint64_t batch,
                                     std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
                                     const PlanRequest& request) {
  if (request.padded_rows != 0 || request.padded_cols != 0)
    throw std::invalid_argument(
        "a batch is transposed without padding: its matrices lie back to back, with no room "
        "between them");
  const bool automatic = request.auto_sequence && request.onchip == OnChip::kAuto;
  const bool onchip_allowed = request.onchip != OnChip::kOff && batch <= UINT32_MAX;
  if (request.onchip == OnChip::kForce) {
    if (!onchip_allowed ||
        !onchip_fits(choose_onchip(device, elem_size, request.onchip_tiles), rows, cols))
      throw std::invalid_argument("the " + std::to_string(rows) + " x " + std::to_string(cols) +
                                  " matrices of the batch do not fit on chip");
    return one_pass(batch, rows, cols, true);
  }
  if (automatic) {
    if (bs_fits(device, rows, cols, elem_size)) return one_pass(batch, rows, cols, false);
    if (rows != cols && device.resident_groups && onchip_allowed &&
        onchip_fits(choose_onchip(device, elem_size, request.onchip_tiles), rows, cols))
      return one_pass(batch, rows, cols, true);
  }
  PlanRequest unpadded = request;
  unpadded.padding = Padding::kOff;
  if (unpadded.onchip == OnChip::kAuto && !device.resident_groups) unpadded.onchip = OnChip::kOff;
  TransposePlan plan = plan_transpose(device, rows, cols, elem_size, unpadded);
  if (plan.onchip) return one_pass(batch, rows, cols, true);
  plan.batch = batch;
  for (Stage& stage : plan.stages) {
    stage.I *= batch;
    // The on-chip kernel counts its instances in 32 bits.
    if (stage.onchip && stage.I * stage.A > UINT32_MAX) stage.onchip = false;
  }
  return plan;
}

}  // namespace ipt::planner
