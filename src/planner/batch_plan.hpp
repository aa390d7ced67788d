// SPDX-License-Identifier: Apache-2.0
// Batches: `batch` matrices of rows x cols stored back to back, each transposed in place
// by one call whose kernels take the batch as their outermost instance dimension (never
// a loop of calls). Pure C++: decided here, without a device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/transpose_plan.hpp"

namespace ipt::planner {

// The plan for a batch (TransposePlan::batch = batch), chosen for the batch rather than
// for one matrix. With an automatic request:
//   - a matrix that one work-group's local memory holds: one BS 010! over the batch, every
//     matrix a tile (one pass, whatever the shape);
//   - a square matrix: the square kernel, its tile pairs counted over the batch;
//   - a non-square matrix that fits on chip, on a device with resident groups: one on-chip
//     010! stage, in rounds of whole matrices (one pass, whatever the shape);
//   - otherwise the unpadded plan of one matrix, each stage's instances times the batch.
// A batch never pads: the matrices lie back to back, with no room between them. A
// forced request applies to every matrix (its sequence and factors; no padded shape:
// std::invalid_argument). plan_transpose's limits apply to each matrix.
TransposePlan plan_batched_transpose(const DeviceProfile& device, std::uint64_t batch,
                                     std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
                                     const PlanRequest& request = {});

}  // namespace ipt::planner
