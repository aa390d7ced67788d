// SPDX-License-Identifier: Apache-2.0
// A sequence of elementary transpositions and the views of its stages (Sung, Gómez-Luna
// et al., TPDS 2015 §4): what a plan is, apart from how the planner chooses it
// (transpose_plan.hpp) and what it costs (cost_model.hpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ipt::planner {

enum class Sequence {
  kSquare,    // tiled swap across the diagonal (kernels/square.cl)
  kOneStage,  // 100! on (M, N, 1): full cycle following, any shape
  k21,        // 010! (M', m, N); 100! (M', N, m)
  k22,        // 100! (M, N', n); 010! (N', M, n)
  k31,        // 100! (M, N', n); 010! (N'M', m, n); 0100! (N' | M', n, m)
  k32,        // 0100! (M' | m, N', n); 010! (M'N', m, n); 100! (M', N, m)
  k41,        // Gustavson's 4 stages: 0100! (M' | m, N', n); 010! (M'N', m, n);
              //   1000! (M', N', nm); 0100! (N' | M', n, m). For comparison only.
  k42,        // as 4.1 with its 2nd and 3rd stages swapped. For comparison only.
};

const char* sequence_name(Sequence sequence);  // "square", "1", "2.1", ...

// One elementary transposition on a view (I instances of A x B x C):
//   k010:  (I*A, B, C) -> (I*A, C, B)  with BS tiles of B x C (I folded into A)
//   k0100: (I, A, B, C) -> (I, B, A, C) by cycle following over super-elements of C
struct Stage {
  enum class Kind { k010, k0100 } kind;
  std::uint64_t I = 1, A = 1, B = 1, C = 1;
  // k010 only: the tiles are too large for one work-group's local memory but the whole
  // device holds them (families/onchip.hpp): the on-chip kernel moves the I*A instances of
  // B x C in rounds (or, when the device cannot run all its groups at once, by cycle
  // following, in the same kernel).
  bool onchip = false;

  // A factor of 1 in the transposed pair: the stage moves nothing.
  bool identity() const { return kind == Kind::k010 ? (B == 1 || C == 1) : (A == 1 || B == 1); }
};

// The stage that undoes `stage`: the same elementary transposition on the transposed
// view, (I*A, C, B) for 010! and (I, B, A, C) for 0100!. Tiles, flags and super-elements
// keep their sizes, so the inverse runs on the scratch the stage had.
inline Stage inverse(Stage stage) {
  if (stage.kind == Stage::Kind::k010)
    std::swap(stage.B, stage.C);
  else
    std::swap(stage.A, stage.B);
  return stage;
}

// A padded plan (TPDS 2015 §6.2, Algorithm 5) transposes a padded_rows x padded_cols
// matrix instead of the caller's rows x cols: the rows are first spread from cols to
// padded_cols elements (the padding kernel; extra rows simply follow the matrix), the
// padded matrix is transposed, and its rows are closed up from padded_rows to rows
// elements (the unpadding kernel), dropping the extra rows at the end. The sequence,
// m, n and stages refer to the padded matrix.
struct TransposePlan {
  std::uint64_t rows = 0, cols = 0;                // M, N: the caller's matrix
  std::uint64_t padded_rows = 0, padded_cols = 0;  // what the sequence transposes
  Sequence sequence = Sequence::kOneStage;
  std::uint64_t m = 1, n = 1;  // tile factors (m | padded rows, n | padded cols)
  std::vector<Stage> stages;   // empty for kSquare (its own kernel)
  // The whole matrix in one on-chip kernel (kernels/onchip.cl): no stages, no padding,
  // m = n = 1 (the sequence field says kOneStage and means nothing).
  bool onchip = false;
  // Matrices of rows x cols stored back to back, each transposed in place by the same
  // plan: the batch is the outermost instance dimension of every stage (its I counts
  // them all) and of the square kernel. A batched plan never pads (batch_plan.hpp).
  std::uint64_t batch = 1;

  bool padded() const { return padded_rows != rows || padded_cols != cols; }
  // The on-chip kernel runs in the call: on the whole matrix or in a stage.
  bool uses_onchip() const {
    for (const Stage& s : stages)
      if (s.onchip) return true;
    return onchip;
  }
  std::uint64_t padded_elements() const { return padded_rows * padded_cols; }
  // Elements of every matrix of the batch (the padded matrix's when it pads).
  std::uint64_t batch_elements() const { return batch * padded_elements(); }
};

}  // namespace ipt::planner
