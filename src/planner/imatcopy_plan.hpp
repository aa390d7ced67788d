// SPDX-License-Identifier: Apache-2.0
// The plan of an ipt_imatcopy call (MKL's mkl_?imatcopy on a device buffer): a row-major
// rows x cols matrix stored with row stride lda becomes op(A) * alpha stored with row
// stride ldb, in the same memory, where op is the identity or the transpose, with or
// without conjugation. A column-major matrix is the row-major cols x rows one (the API
// swaps the sides).
//
// Steps. A transposing call closes the rows up to a dense matrix (lda -> cols), runs the
// transposition plan of that dense matrix (plan_call), and spreads the transpose's rows
// out to ldb; a call that does not transpose restrides once (lda -> ldb). The transform
// (alpha, conjugation) is applied by the last step as it stores, when that step stores
// every value once (a restride, or a BS or square kernel ending the transposition:
// can_transform); otherwise one more pass (kernels/scale.cl) applies it. Either way it comes
// last, so that every earlier step has an exact undo and a call that fails part-way
// rolls back to the caller's bytes.
#pragma once

#include <algorithm>
#include <cstdint>

#include "planner/element_transform.hpp"
#include "planner/launch_plan.hpp"

namespace ipt::planner {

struct ImatcopyShape {
  std::uint64_t rows = 0, cols = 0;  // the row-major matrix before the call
  std::uint64_t lda = 0, ldb = 0;    // row strides before and after (elements)
  bool transpose = false;
  ElementTransform transform;
  std::size_t elem_size = 4;
  std::uint64_t offset = 0;  // in elements

  // Elements from the start that hold the matrix before and after the call: the last row
  // ends there.
  std::uint64_t extent_before() const { return (rows - 1) * lda + cols; }
  std::uint64_t extent_after() const {
    return transpose ? (cols - 1) * ldb + rows : (rows - 1) * ldb + cols;
  }
  // Elements from the matrix's start that the call may use as workspace: the larger
  // extent (the middle transposition may pad into it), never a byte past it.
  std::uint64_t capacity() const { return std::max(extent_before(), extent_after()); }
};

// Throws std::invalid_argument for strides shorter than the rows, an empty matrix, or a
// transform that does not fit the element size; otherwise as plan_call.
LaunchPlan plan_imatcopy(const DeviceProfile& device, const ImatcopyShape& shape,
                         const PlanOverrides& overrides = {});

}  // namespace ipt::planner
