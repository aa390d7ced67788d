// SPDX-License-Identifier: Apache-2.0
#include "planner/imatcopy_plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace ipt::planner {
namespace {

void check_shape(const ImatcopyShape& shape) {
  if (shape.rows == 0 || shape.cols == 0)
    throw std::invalid_argument("an empty matrix has no imatcopy plan");
  const std::uint64_t row_after = shape.transpose ? shape.rows : shape.cols;
  if (shape.lda < shape.cols)
    throw std::invalid_argument("lda " + std::to_string(shape.lda) + " is shorter than a row (" +
                                std::to_string(shape.cols) + " elements)");
  if (shape.ldb < row_after)
    throw std::invalid_argument("ldb " + std::to_string(shape.ldb) +
                                " is shorter than a row of the result (" +
                                std::to_string(row_after) + " elements)");
}

}  // namespace

LaunchPlan plan_imatcopy(const DeviceProfile& given, const ImatcopyShape& shape,
                         const PlanOverrides& overrides) {
  check_shape(shape);
  // The last step transforms each element it stores (transformed_step), so it must move
  // elements, not words of several: with a transform, no step moves wider words.
  DeviceProfile device = given;
  if (!shape.transform.identity()) device.word_bytes = std::min(device.word_bytes, shape.elem_size);
  const std::uint64_t R = shape.rows, C = shape.cols;
  const std::size_t elem_size = shape.elem_size;
  LaunchPlan launch;
  if (shape.transpose) {
    // The dense matrix's plan, with an undo for every step: more steps follow. It may pad
    // into the room the strides leave (restored or, past the matrix, overwritten later).
    CallShape call{R, C, elem_size, shape.offset, shape.capacity(), 1};
    call.undo_last = true;
    launch = plan_call(device, call, overrides);
  } else {
    launch.elem_size = elem_size;
    launch.offset = shape.offset;
    launch.transpose.rows = launch.transpose.padded_rows = R;
    launch.transpose.cols = launch.transpose.padded_cols = C;
  }
  if (launch.undo.size() != launch.steps.size())
    throw std::logic_error("imatcopy: the transposition's plan lacks an undo");

  // The restrides share one flag region after the transposition's scratch; each zeroes
  // it by a fill just before it runs (as each undo does).
  const StepSite site{elem_size, shape.offset, device.local_mem_bytes, false};
  const RestrideConfig config = choose_restride(device, elem_size, R * C);
  const Region flags{Buffer::kScratch, scratch_aligned(launch.scratch_bytes),
                     restride_scratch_bytes(config, R * C)};
  bool flags_used = false;
  const auto restride = [&](std::uint64_t rows, std::uint64_t len, std::uint64_t s_in,
                            std::uint64_t s_out) {
    Step step = restride_step(site, rows, len, s_in, s_out, config, flags);
    if (!step.noop()) {
      step.fill_before = step.flags;
      flags_used = true;
    }
    return step;
  };
  const auto undo_of = [](Step undo, const Step& step) {
    undo.what = "undo " + step.what;
    return undo;
  };

  if (shape.transpose && shape.lda != C) {
    const Step close_up = restride(R, C, shape.lda, C);
    if (!close_up.noop()) {
      launch.steps.insert(launch.steps.begin(), close_up);
      launch.undo.insert(launch.undo.begin(), undo_of(restride(R, C, C, shape.lda), close_up));
    }
  }
  // The result: rows_after rows of len_after elements, from stride `stride` to ldb.
  const std::uint64_t rows_after = shape.transpose ? C : R;
  const std::uint64_t len_after = shape.transpose ? R : C;
  const std::uint64_t stride = shape.transpose ? R : shape.lda;
  if (stride != shape.ldb) {
    const Step spread = restride(rows_after, len_after, stride, shape.ldb);
    if (!spread.noop()) {
      launch.undo.push_back(undo_of(restride(rows_after, len_after, shape.ldb, stride), spread));
      launch.steps.push_back(spread);
    }
  }
  // The transform: by the last step when it stores every value once (a restride, or a
  // BS or square kernel ending the transposition), else by a pass of its own.
  if (!shape.transform.identity()) {
    if (!launch.steps.empty() && can_transform(launch.steps.back()))
      launch.steps.back() = transformed_step(launch.steps.back(), shape.transform, elem_size);
    else {
      launch.steps.push_back(scale_step(site, rows_after, len_after, shape.ldb, shape.transform));
      launch.undo.push_back({});  // never used: dropped below
    }
  }
  // The last step needs no undo (launch_plan.hpp); the transform, which has no exact
  // one, is only ever in the last step.
  if (!launch.undo.empty()) launch.undo.pop_back();
  if (flags_used) launch.scratch_bytes = flags.offset + flags.bytes;
  check_allocations(launch, device);
  return launch;
}

}  // namespace ipt::planner
